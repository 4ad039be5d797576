/* SPDX-License-Identifier: MIT */
/*
 * test_json_shape.c - the args shape cache (json_shape.h) against the skips
 * of json.h.
 *
 * The rule every skip through a cache must keep: an end it gives is the end
 * the general skip finds, which accepts the object without a counted
 * leniency; where it gives none, the fast skip gives none either (a miss
 * falls back to it). Checked on: hand-written objects that share a shape
 * with a learnt one but differ where JSON cares (leading zeros in integer
 * parts, fractions and exponents, in strings; a digit turned into a letter;
 * a '}' inside a string; nested objects; a window that ends inside the
 * object); Kineto-like args with new numbers (which must mostly be taken by
 * their shape, or the path would be tested on nothing); random objects and
 * digit-aware mutations of learnt ones; more shapes than the cache holds,
 * and a stream of new shapes (it must stop looking for a while); the cases
 * and random objects again with all shapes hashed alike. Buffers are
 * sized exactly (a value and the padding), so ASan sees reads past them.
 */
#include "check.h"
#include "read/json.h"
#include "read/json_shape.h"

#include <stdlib.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static unsigned long n_checked, n_taken_by_general;

/* Skips doc[0..len) through c with the window ending at win (<= len) and
 * checks the rule above. Returns the end's offset, or -1. */
static long skip_one(struct stint_jshape *c, const char *doc, size_t len, size_t win)
{
    char *buf = malloc(len + STINT_JSON_PAD);
    REQUIRE(buf);
    memcpy(buf, doc, len);
    memset(buf + len, 0, STINT_JSON_PAD);
    struct stint_json g = {.p = buf, .end = buf + win, .at_eof = 1};
    int rc = stint_i_json_skip_general(&g);
    const char *fast = stint_i_json_fast_skip(buf, buf + win, STINT_I_JSON_FAST_AUTO);
    const char *e = stint_i_jshape_skip(c, buf, buf + win);
    n_checked++;
    if (e) {
        n_taken_by_general++;
        if (rc != STINT_JSON_OK || e != g.p || g.trailing_commas || g.control_chars || g.lone_surrogates) {
            fprintf(stderr, "shape skip ends at %td, general rc %d at %td (window %zu of %zu): ", e - buf, rc,
                    g.p - buf, win, len);
            fwrite(doc, 1, len, stderr);
            fputc('\n', stderr);
        }
        CHECK(rc == STINT_JSON_OK && e == g.p && !g.trailing_commas && !g.control_chars && !g.lone_surrogates);
    } else {
        if (fast) {
            fprintf(stderr, "shape skip gives up where the fast skip ends at %td: ", fast - buf);
            fwrite(doc, 1, len, stderr);
            fputc('\n', stderr);
        }
        CHECK(fast == NULL);
    }
    long r = e ? (long)(e - buf) : -1;
    free(buf);
    return r;
}

static long skip_str(struct stint_jshape *c, const char *s)
{
    return skip_one(c, s, strlen(s), strlen(s));
}

static uint64_t hits(const struct stint_jshape *c)
{
    struct stint_jshape_stats st;
    stint_i_jshape_stats(c, &st);
    return st.hits;
}

/* Learns `learn`, then skips obj followed by more: expect_hit says whether
 * the learnt shape must take it (1) or must not (0), valid whether obj is
 * valid JSON (its end expected) or not (no end). */
static void case_(const char *learn, const char *obj, const char *more, int expect_hit, int valid)
{
    struct stint_jshape *c = stint_i_jshape_new();
    REQUIRE(c);
    CHECK(skip_str(c, learn) == (long)strlen(learn));
    char doc[256];
    snprintf(doc, sizeof doc, "%s%s", obj, more);
    uint64_t h0 = hits(c);
    long got = skip_str(c, doc), want = valid ? (long)strlen(obj) : -1;
    if (got != want || (hits(c) > h0) != expect_hit)
        fprintf(stderr, "case: learnt %s, skipped %s: end %ld (want %ld), hit %d (want %d)\n", learn, doc, got, want,
                hits(c) > h0, expect_hit);
    CHECK(got == want);
    CHECK((hits(c) > h0) == expect_hit);
    stint_i_jshape_free(c);
}

static void check_cases(void)
{
    /* other numbers, same shape */
    case_("{\"a\": 1, \"b\": [2, 3]}", "{\"a\": 10, \"b\": [2000, 0]}", ", 5", 1, 1);
    case_("{\"a\": 1.5, \"e\": 2e5}", "{\"a\": 12.25, \"e\": 31e17}", "", 1, 1);
    /* leading zeros: invalid in an integer part, fine in a fraction, an exponent or a string */
    case_("{\"a\": 1}", "{\"a\": 05}", "", 0, 0);
    case_("{\"a\": -1}", "{\"a\": -05}", "", 0, 0);
    case_("{\"a\": [1, 2]}", "{\"a\": [1, 00]}", "", 0, 0);
    case_("{\"a\": 0}", "{\"a\": 0}", "", 1, 1);
    case_("{\"a\": 1.5}", "{\"a\": 1.05}", "", 1, 1);
    case_("{\"a\": 1e5}", "{\"a\": 1e05}", "", 1, 1);
    case_("{\"a\": 1E-5}", "{\"a\": 1E-005}", "", 1, 1);
    case_("{\"a\": 1e+5}", "{\"a\": 1e+05}", "", 1, 1);
    case_("{\"a\": \"v1\"}", "{\"a\": \"v007\"}", "", 1, 1);
    case_("{\"a1\": 1}", "{\"a01\": 1}", "", 1, 1);
    /* a digit is not a letter, a letter not a digit */
    case_("{\"a\": 1}", "{\"a\": x}", "", 0, 0);
    case_("{\"a\": \"1\"}", "{\"a\": \"x\"}", "", 0, 1);
    case_("{\"a\": true}", "{\"a\": 1rue}", "", 0, 0);
    /* a run is one run: "1 2" is not "12" */
    case_("{\"a\": [12]}", "{\"a\": [1 2]}", "", 0, 0);
    /* '}' inside strings, nested objects */
    case_("{\"a\": \"}\", \"b\": 1}", "{\"a\": \"}\", \"b\": 22}", "}", 1, 1);
    case_("{\"a\": {\"b\": 1}, \"c\": [1, {\"d\": 2}]}", "{\"a\": {\"b\": 13}, \"c\": [7, {\"d\": 99}]}", "", 1, 1);
    case_("{\"a\": {\"b\": 1}}", "{\"a\": {\"b\": 1}", "", 0, 0);
    /* an object that ends before the learnt one would */
    case_("{\"a\": 1, \"b\": 2}", "{\"a\": 1}", ", \"b\": 2}", 0, 1);
    /* bytes no shape holds */
    case_("{\"a\": \"x\"}", "{\"a\": \"\\n\"}", "", 0, 1);
    case_("{\"a\": \"xy\"}", "{\"a\": \"x\x01\"}", "", 0, 0);
    case_("{\"a\": \"xy\"}", "{\"a\": \"\xc3\xa9\"}", "", 0, 1);
    /* learnt objects must be printable ASCII without escapes: these teach nothing */
    case_("{\"a\": \"\\n\"}", "{\"a\": \"\\n\"}", "", 0, 1);
    case_("{\"a\": \"\xc3\xa9\"}", "{\"a\": \"\xc3\xa9\"}", "", 0, 1);
}

/* The same object cut by the window end at every byte, and followed by more. */
static void check_windows(void)
{
    const char *learn = "{\"External id\": 1083, \"cbid\": 211, \"correlation\": 50025, \"v\": [1.5, -2e3, \"s\"]}";
    const char *doc = "{\"External id\": 99999, \"cbid\": 2, \"correlation\": 7, \"v\": [10.25, -20e31, \"s\"]}, {}";
    struct stint_jshape *c = stint_i_jshape_new();
    REQUIRE(c);
    skip_str(c, learn);
    size_t len = strlen(doc), vlen = (size_t)(strchr(doc, ']') - doc) + 2;
    for (size_t win = 0; win <= len; win++) {
        long e = skip_one(c, doc, len, win);
        CHECK(e == (win >= vlen ? (long)vlen : -1));
    }
    CHECK(hits(c) > 0);
    stint_i_jshape_free(c);
}

/* Kineto-like args, as in test_json_skip_diff.c. */
static size_t put_args(char *v, size_t cap)
{
    static const char *types[] = {"c10::BFloat16", "float", "Scalar", "long int", ""};
    unsigned id = rnd(100000);
    int n;
    switch (rnd(3)) {
    case 0:
        n = snprintf(v, cap,
                     "{\"External id\": %u, \"Record function id\": 0, \"Sequence number\": %u, \"Fwd thread id\": 0, "
                     "\"Concrete Inputs\": [\"\", \"%u\"], \"Input type\": [\"%s\", \"%s\"], "
                     "\"Input Strides\": [[%u, 1], [%u, 1]], \"Input Dims\": [[%u, %u], [%u, 128]], \"Ev Idx\": %u}",
                     id, rnd(5000), rnd(10), types[rnd(5)], types[rnd(5)], 1u << rnd(13), 1u << rnd(13),
                     1u << rnd(11), rnd(2000), 1u << rnd(11), id);
        break;
    case 1:
        n = snprintf(v, cap,
                     "{\"External id\": %u, \"queued\": 0, \"device\": %u, \"stream\": %u, \"blocks per SM\": "
                     "%u.%06u, \"grid\": [%u, 1, 1], \"est. achieved occupancy %%\": %u, \"t\": %u.%ue-%u}",
                     id, rnd(8), rnd(32), rnd(40), rnd(1000000), 1u << rnd(12), rnd(100), rnd(10), rnd(1000),
                     rnd(20));
        break;
    default:
        n = snprintf(v, cap, "{\"External id\": %u, \"cbid\": %u, \"correlation\": %u, \"name\": \"k%u_%03u\"}", id,
                     rnd(300), 50000 + id, rnd(4), rnd(1000));
        break;
    }
    return (size_t)n;
}

/* Changes the object in place, digits mostly: a digit for another, one
 * more or fewer, a 0 put before a run, a digit for another byte or the
 * reverse, or any byte anywhere. */
static void mutate(char *v, size_t *n, size_t cap)
{
    static const char pool[] = "{}[]:,\"\\ 0123456789eE.-+x\x01\x80";
    size_t at = rnd((unsigned)*n);
    int digit = (unsigned)(v[at] - '0') < 10;
    switch (rnd(6)) {
    case 0:
        if (digit)
            v[at] = (char)('0' + rnd(10));
        break;
    case 1:
    case 2:
        if (*n + 1 < cap) { /* a digit (often a 0) inserted, before a run or inside one */
            memmove(v + at + 1, v + at, *n - at);
            v[at] = rnd(2) ? '0' : (char)('0' + rnd(10));
            (*n)++;
        }
        break;
    case 3:
        if (digit) {
            memmove(v + at, v + at + 1, *n - at - 1);
            (*n)--;
        }
        break;
    case 4:
        v[at] = digit ? pool[rnd(sizeof pool - 1)] : (char)('0' + rnd(10));
        break;
    default:
        v[at] = pool[rnd(sizeof pool - 1)];
        break;
    }
}

static void check_random(void)
{
    struct stint_jshape *c = stint_i_jshape_new();
    REQUIRE(c);
    char v[1024];
    unsigned long fresh = 0, fresh_hits = 0;
    for (int it = 0; it < 40000; it++) {
        size_t n = put_args(v, sizeof v);
        uint64_t h0 = hits(c);
        long e = skip_one(c, v, n, n);
        CHECK(e == (long)n);
        if (it >= 2000) {
            fresh++;
            fresh_hits += hits(c) > h0;
        }
        for (int m = 0, nm = 1 + (int)rnd(3); m < nm; m++)
            mutate(v, &n, sizeof v - 8);
        if (rnd(4) == 0) { /* more after it, as in a trace */
            memcpy(v + n, "}, {\"x", 6);
            n += 6;
        }
        skip_one(c, v, n, n);
        skip_one(c, v, n, rnd((unsigned)n + 1));
    }
    /* after the first objects nearly every new one has a known shape */
    fprintf(stderr, "%lu of %lu fresh args objects taken by their shape\n", fresh_hits, fresh);
    CHECK(fresh_hits * 10 > fresh * 9);
    stint_i_jshape_free(c);
}

/* More shapes than the cache holds (it starts over), then a stream of new
 * shapes that mostly miss (it rests), with checks all along. */
static void check_many_shapes(void)
{
    struct stint_jshape *c = stint_i_jshape_new();
    REQUIRE(c);
    char v[256];
    for (unsigned i = 0; i < 5000; i++) {
        /* key names differ: a new shape each, each seen three times */
        for (int k = 0; k < 3; k++) {
            int n = snprintf(v, sizeof v, "{\"key%c%c%c\": %u, \"v\": [%u]}", 'a' + i % 26, 'a' + i / 26 % 26,
                             'a' + i / 676 % 26, rnd(1000), rnd(100));
            CHECK(skip_one(c, v, (size_t)n, (size_t)n) == n);
        }
    }
    struct stint_jshape_stats st;
    stint_i_jshape_stats(c, &st);
    CHECK(st.resets > 0);
    CHECK(st.hits > 5000);
    for (unsigned i = 0; i < 40000; i++) { /* keys of letters: digits would make them one shape */
        int n = snprintf(v, sizeof v, "{\"z%c%c%c%c\": %u}", 'a' + i % 26, 'a' + i / 26 % 26, 'a' + i / 676 % 26,
                         'a' + i / 17576 % 26, rnd(1000));
        CHECK(skip_one(c, v, (size_t)n, (size_t)n) == n);
    }
    stint_i_jshape_stats(c, &st);
    CHECK(st.dormant > 0);
    fprintf(stderr, "many shapes: %llu lookups, %llu hits, %llu added, %llu resets, %llu rests\n",
            (unsigned long long)st.lookups, (unsigned long long)st.hits, (unsigned long long)st.added,
            (unsigned long long)st.resets, (unsigned long long)st.dormant);
    stint_i_jshape_free(c);
}

int main(void)
{
    struct stint_jshape *probe = stint_i_jshape_new();
    if (!probe) {
        printf("SKIP: no shape path here (needs AVX-512 VBMI and VBMI2; or STINT_JSON_SHAPES=0, STINT_JSON_SKIP, "
               "STINT_NO_AVX2 set)\n");
        return 77;
    }
    stint_i_jshape_free(probe);
    /* NULL is the plain fast skip */
    CHECK(skip_str(NULL, "{\"a\": 1}") == 8);
    check_cases();
    check_windows();
    check_random();
    check_many_shapes();
    /* again with every shape hashed alike: the compare alone tells them apart */
    setenv("STINT_JSON_SHAPES", "collide", 1);
    check_cases();
    check_random();
    fprintf(stderr, "%lu skips checked, %lu ended by a cache\n", n_checked, n_taken_by_general);
    CHECK_DONE();
}
