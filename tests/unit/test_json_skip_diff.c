/* SPDX-License-Identifier: MIT */
/*
 * test_json_skip_diff.c - differential test of the fast skip paths against
 * the general skip. Many generated JSON values (Chrome args shapes, random
 * nesting, strings with escapes, UTF-8 and control bytes, every number form,
 * literals) and random mutations of them (byte changes, insertions,
 * deletions, truncations) are skipped from buffers whose size is exact (so
 * ASan sees any read past the padding), with windows that end at the value,
 * inside it, or before more text (a sub-window whose end is not followed by
 * a 0). Each fast path, whenever it does not give up, must end the value
 * where the general skip does, and the general skip must accept it without
 * any counted leniency; stint_json_skip must agree with the general skip in
 * result, position and counts. The fast paths must also accept most of the
 * unmutated values, or they would be tested on nothing.
 */
#include "check.h"
#include "read/json.h"

#include <stdlib.h>

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

struct out {
    char b[8192];
    size_t n;
};

static void put(struct out *o, const char *s)
{
    size_t l = strlen(s);
    if (o->n + l < sizeof o->b) {
        memcpy(o->b + o->n, s, l);
        o->n += l;
    }
}

static void put_ws(struct out *o)
{
    static const char *const ws[] = {"", "", "", " ", " ", "\n", "\t", "\r\n  ", "                                 "};
    put(o, ws[rnd(sizeof ws / sizeof ws[0])]);
}

static void put_string(struct out *o)
{
    static const char *const parts[] = {
        "a", "External id", "c10::BFloat16", " ", "xyzzy0123456789", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\u00e9",
        "\\ud83d\\ude00", "\\ud800", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "{}[]:,", "\\\\\\\"", "'",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"};
    put(o, "\"");
    for (unsigned k = rnd(6); k > 0; k--)
        put(o, parts[rnd(sizeof parts / sizeof parts[0])]);
    put(o, "\"");
}

static void put_scalar(struct out *o)
{
    static const char *const s[] = {"0",    "1",    "7",    "42",   "1084", "4096",     "-1",     "-0",
                                    "0.5",  "3.25", "1e5",  "2E-3", "1.5e+10", "123456789012345678", "true",
                                    "false", "null", "0.969697", "-12.5", "9"};
    put(o, s[rnd(sizeof s / sizeof s[0])]);
}

/* A random value, nesting at most depth more levels. */
static void put_value(struct out *o, int depth)
{
    unsigned k = depth > 0 ? rnd(10) : 5 + rnd(5);
    if (k < 3) {
        put(o, "{");
        put_ws(o);
        for (unsigned n = rnd(5), i = 0; i < n; i++) {
            if (i) {
                put(o, ",");
                put_ws(o);
            }
            put_string(o);
            put_ws(o);
            put(o, ":");
            put_ws(o);
            put_value(o, depth - 1);
            put_ws(o);
        }
        put(o, "}");
    } else if (k < 5) {
        put(o, "[");
        put_ws(o);
        for (unsigned n = rnd(6), i = 0; i < n; i++) {
            if (i) {
                put(o, ",");
                put_ws(o);
            }
            put_value(o, depth - 1);
            put_ws(o);
        }
        put(o, "]");
    } else if (k < 7)
        put_string(o);
    else
        put_scalar(o);
}

/* Kineto-like args objects, the values the Chrome reader skips most. */
static void put_args(struct out *o)
{
    char v[512];
    unsigned id = rnd(100000);
    if (rnd(2))
        snprintf(v, sizeof v,
                 "{\"External id\": %u, \"Record function id\": 0, \"Sequence number\": %u, \"Fwd thread id\": 0, "
                 "\"Concrete Inputs\": [\"\", \"%u\"], \"Input type\": [\"c10::BFloat16\", \"Scalar\"], "
                 "\"Input Strides\": [[%u, 1], [%u, 1]], \"Input Dims\": [[%u, %u], [%u, 128]], \"Ev Idx\": %u}",
                 id, rnd(5000), rnd(10), 1u << rnd(13), 1u << rnd(13), 1u << rnd(11), rnd(2000), 1u << rnd(11), id);
    else
        snprintf(v, sizeof v,
                 "{\"External id\": %u, \"queued\": 0, \"device\": %u, \"stream\": %u, \"blocks per SM\": %u.%06u, "
                 "\"grid\": [%u, 1, 1], \"est. achieved occupancy %%\": %u}",
                 id, rnd(8), rnd(32), rnd(40), rnd(1000000), 1u << rnd(12), rnd(100));
    put(o, v);
}

/* Deep nesting around a small value, 60 to 70 levels (the fast walks stop at 64). */
static void put_deep(struct out *o)
{
    int d = 60 + (int)rnd(11);
    for (int i = 0; i < d; i++)
        put(o, i % 2 ? "[" : "{\"k\":");
    put_scalar(o);
    for (int i = d - 1; i >= 0; i--)
        put(o, i % 2 ? "]" : "}");
}

/* Changes the value in place: a few byte changes, insertions or deletions. */
static void mutate(struct out *o)
{
    static const char pool[] = "{}[]:,\"\\ 0123456789eE.-+tfnulx/\x00\x01\x1f\x7f\x80\xbf\xc3\xe0\xed\xf0\xf4\xff\n\t";
    for (unsigned m = 1 + rnd(3); m > 0 && o->n > 0; m--) {
        size_t at = rnd((unsigned)o->n);
        char c = pool[rnd(sizeof pool - 1)];
        switch (rnd(3)) {
        case 0:
            o->b[at] = c;
            break;
        case 1:
            if (o->n + 1 < sizeof o->b) {
                memmove(o->b + at + 1, o->b + at, o->n - at);
                o->b[at] = c;
                o->n++;
            }
            break;
        default:
            memmove(o->b + at, o->b + at + 1, o->n - at - 1);
            o->n--;
            break;
        }
    }
}

static const int paths[] = {STINT_I_JSON_FAST_SWAR, STINT_I_JSON_FAST_TOKEN, STINT_I_JSON_FAST_DIGITS,
                            STINT_I_JSON_FAST_BLOCK, STINT_I_JSON_FAST_BLOCK512, STINT_I_JSON_FAST_AUTO};
#define NPATHS (sizeof paths / sizeof paths[0])
static unsigned long accepted[NPATHS], valid_plain;
static int path_runs[NPATHS];

/* Skips doc[0, len) in a buffer of exactly len + PAD bytes, the window
 * ending at win (<= len); bytes from win on are the doc's own (a sub-window)
 * except that the byte at len is 0. */
static void check_one(const char *doc, size_t len, size_t win, unsigned flags, int plain)
{
    char *buf = malloc(len + STINT_JSON_PAD);
    REQUIRE(buf);
    memcpy(buf, doc, len);
    memset(buf + len, 0, STINT_JSON_PAD);
    int at_eof = (int)rnd(2);
    struct stint_json g = {.p = buf, .end = buf + win, .flags = flags, .at_eof = at_eof};
    int rc = stint_i_json_skip_general(&g);
    if (plain && rc == STINT_JSON_OK && !g.trailing_commas && !g.control_chars)
        valid_plain++;
    for (size_t k = 0; k < NPATHS; k++) {
        if (!path_runs[k])
            continue;
        const char *e = stint_i_json_fast_skip(buf, buf + win, paths[k]);
        if (!e)
            continue;
        if (plain)
            accepted[k]++;
        if (rc != STINT_JSON_OK || e != g.p || g.trailing_commas || g.control_chars) {
            fprintf(stderr, "path %d accepts %zu bytes, general rc %d at %td (window %zu of %zu, flags %u): ",
                    paths[k], (size_t)(e - buf), rc, g.p - buf, win, len, flags);
            fwrite(doc, 1, len, stderr);
            fputc('\n', stderr);
        }
        CHECK(rc == STINT_JSON_OK && e == g.p && !g.trailing_commas && !g.control_chars);
    }
    struct stint_json j = {.p = buf, .end = buf + win, .flags = flags, .at_eof = at_eof};
    int rc2 = stint_json_skip(&j);
    CHECK_EQ_I64(rc2, rc);
    CHECK(j.p == g.p);
    CHECK_EQ_U64(j.trailing_commas, g.trailing_commas);
    CHECK_EQ_U64(j.control_chars, g.control_chars);
    free(buf);
}

/* One value with what may follow it, skipped whole, cut short, and as a sub-window. */
static void check_doc(struct out *o, int plain)
{
    static const char *const after[] = {"", " ", "\n", ", {\"next\": 1}", "}", "\"", "]", "0", "\\\"abc\"", " \xff"};
    size_t vlen = o->n;
    put(o, after[rnd(sizeof after / sizeof after[0])]);
    unsigned flags = rnd(4);
    check_one(o->b, o->n, o->n, flags, 0);
    check_one(o->b, o->n, vlen, flags, plain);
    if (vlen > 0)
        check_one(o->b, o->n, rnd((unsigned)vlen), flags, 0);
}

static void check_random(void)
{
    char probe[3 + STINT_JSON_PAD] = "[] ";
    for (size_t k = 0; k < NPATHS; k++)
        path_runs[k] = stint_i_json_fast_skip(probe, probe + 3, paths[k]) != NULL;
    for (int it = 0; it < 60000; it++) {
        struct out o = {.n = 0};
        put(&o, (const char *[]){"", " ", "\n  "}[rnd(3)]);
        unsigned kind = rnd(10);
        if (kind < 4)
            put_args(&o);
        else if (kind < 5)
            put_deep(&o);
        else
            put_value(&o, 1 + (int)rnd(5));
        struct out m = o;
        check_doc(&o, 1);
        for (int r = 0; r < 3; r++) {
            struct out x = m;
            mutate(&x);
            check_doc(&x, 0);
        }
    }
    fprintf(stderr, "%lu valid plain values\n", valid_plain);
    for (size_t k = 0; k < NPATHS; k++) {
        fprintf(stderr, "path %d: %s, accepted %lu\n", paths[k], path_runs[k] ? "runs" : "not on this CPU",
                accepted[k]);
        /* deep nesting, \u escapes and (for the token walks) UTF-8 give up; most others must not */
        if (path_runs[k])
            CHECK(accepted[k] * 2 > valid_plain);
    }
}

/* Values straddling every 64-byte block edge: one long string, number or
 * escape run placed at each offset. */
static void check_edges(void)
{
    static const char *const mid[] = {"\"\\\\\\\"\"", "12345678", "\"\xe2\x82\xac\"", "\"\\n\"", "-0.5e3", "true",
                                      "\"\\\\\"", "\"\x01\"", "01", "\"\\u0041\""};
    for (size_t m = 0; m < sizeof mid / sizeof mid[0]; m++) {
        for (int pad = 0; pad < 140; pad++) {
            struct out o = {.n = 0};
            put(&o, "[");
            for (int i = 0; i < pad; i++)
                put(&o, " ");
            put(&o, mid[m]);
            put(&o, ", \"");
            for (int i = 0; i < pad % 70; i++)
                put(&o, "x");
            put(&o, "\", [1]]");
            check_doc(&o, 0);
        }
    }
}

int main(void)
{
    check_edges();
    check_random();
    CHECK_DONE();
}
