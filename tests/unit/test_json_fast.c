/* SPDX-License-Identifier: MIT */
/*
 * test_json_fast.c - the tokenizer's fast paths must agree with its general
 * paths: stint_json_skip (fast skip, then the general skip when it gives up)
 * on values that sit on every give-up edge (delimiters after numbers and
 * literals, escapes, control and non-ASCII bytes at every offset of long
 * strings, trailing commas, deep nesting, window ends, sub-windows whose end
 * is not followed by a 0), the inline short-token helpers of json.h, and the
 * eight-digit path of stint_parse_ts against a plain reference.
 */
#include "check.h"
#include "read/json.h"
#include "base/tsparse.h"

static char buf[1 << 16];

/* Copies s into a padded buffer; returns the cursor over it. */
static struct stint_json cursor(const char *s, size_t len, unsigned flags, int at_eof)
{
    memcpy(buf, s, len);
    memset(buf + len, 0, STINT_JSON_PAD);
    struct stint_json j = {.p = buf, .end = buf + len, .flags = flags, .at_eof = at_eof};
    return j;
}

struct skip_case {
    const char *in;
    unsigned flags;
    int rc;        /* expected */
    size_t used;   /* bytes consumed on OK */
    uint64_t tc;   /* trailing commas counted */
};

static void check_skip_cases(void)
{
    static const struct skip_case cases[] = {
        {"{\"a\": 1e5}", 0, STINT_JSON_OK, 10, 0},
        {"{\"a\": 1e5{\"b\":1}}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 12x}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 01}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": -}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 1.}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 1.5e+3, \"b\": -0.25E-2}", 0, STINT_JSON_OK, 28, 0},
        {"{\"a\": true}", 0, STINT_JSON_OK, 11, 0},
        {"{\"a\": truex}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": tru}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": null, \"b\": false}", 0, STINT_JSON_OK, 23, 0},
        {"{\"a\": nullfalse}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\" 1}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 1,}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": 1,}", STINT_JSON_TRAILING_COMMA, STINT_JSON_OK, 9, 1},
        {"[1, [2, 3,], {},]", STINT_JSON_TRAILING_COMMA, STINT_JSON_OK, 17, 2},
        {"[1 2]", 0, STINT_JSON_ERR, 0, 0},
        {"{1: 2}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": [1, {\"b\": \"c\\\"d\\\\\"}], \"e\": {}}", 0, STINT_JSON_OK, 36, 0},
        {"{\"a\": \"\\u00e9\\ud83d\\ude00\"}", 0, STINT_JSON_OK, 27, 0},
        {"{\"a\": \"\\x\"}", 0, STINT_JSON_ERR, 0, 0},
        {"{\"a\": \"\xc3\xa9\"}", 0, STINT_JSON_OK, 11, 0},
        {"{\"a\": \"\xff\"}", 0, STINT_JSON_ERR, 0, 0},
        {"[] ,", 0, STINT_JSON_OK, 2, 0},
        {"\"x\"", 0, STINT_JSON_OK, 3, 0},
        {"17 ", 0, STINT_JSON_OK, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct skip_case *c = &cases[i];
        struct stint_json j = cursor(c->in, strlen(c->in), c->flags, 1);
        int rc = stint_json_skip(&j);
        if (rc != c->rc || (rc == STINT_JSON_OK && (size_t)(j.p - buf) != c->used) || j.trailing_commas != c->tc)
            fprintf(stderr, "case %zu: %s -> rc %d used %td tc %llu\n", i, c->in, rc, j.p - buf,
                    (unsigned long long)j.trailing_commas);
        CHECK_EQ_I64(rc, c->rc);
        if (rc == STINT_JSON_OK)
            CHECK_EQ_I64(j.p - buf, (long long)c->used);
        CHECK_EQ_I64(j.trailing_commas, c->tc);
    }
}

/* A special byte at every offset of a long string, inside an object. */
static void check_long_strings(void)
{
    static const char *specials[] = {"\\n", "\\u0041", "\x01", "\xc3\xa9", "\xff", "\\q", "\""};
    for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++) {
        for (int at = 0; at < 80; at++) {
            char doc[256];
            int n = snprintf(doc, sizeof doc, "{\"k\": \"%.*s%s%.*s\", \"z\": 1}", at,
                             "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzab",
                             specials[s], 40, "0123456789012345678901234567890123456789");
            for (unsigned flags = 0; flags <= STINT_JSON_CONTROL_CHARS; flags += STINT_JSON_CONTROL_CHARS) {
                struct stint_json j = cursor(doc, (size_t)n, flags, 1);
                int rc = stint_json_skip(&j);
                int want_ok = s <= 1 || s == 3 || (s == 2 && flags);
                if (s == 6) /* an early quote: the string ends there, then garbage */
                    want_ok = 0;
                CHECK_EQ_I64(rc, want_ok ? STINT_JSON_OK : STINT_JSON_ERR);
                if (want_ok) {
                    CHECK_EQ_I64(j.p - buf, n);
                    CHECK_EQ_I64(j.control_chars, s == 2 ? 1 : 0);
                }
            }
        }
    }
}

/* Every prefix of a document is MORE (cursor unchanged) when the input goes
 * on, and the whole document is OK at the end of the input. */
static void check_prefixes(void)
{
    const char *doc = "{\"args\": {\"External id\": 1001, \"Input Dims\": [[32, 1024], [512, 1024]], "
                      "\"name\": \"void at::native::vectorized_elementwise_kernel<4, at::native::SiLUFunctor>\", "
                      "\"ok\": true, \"no\": null, \"f\": -0.5e-3, \"e\": \"a\\\"b\", \"d\": {\"x\": [{}, []]}}}";
    size_t len = strlen(doc);
    for (size_t l = 0; l < len; l++) {
        struct stint_json j = cursor(doc, l, STINT_JSON_TRAILING_COMMA, 0);
        int rc = stint_json_skip(&j);
        CHECK_EQ_I64(rc, STINT_JSON_MORE);
        CHECK(j.p == buf);
    }
    struct stint_json j = cursor(doc, len, 0, 1);
    CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_OK);
    CHECK_EQ_I64(j.p - buf, (long long)len);
    /* a number that ends the window may go on in the next one */
    j = cursor("[1, 23", 6, 0, 0);
    CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_MORE);
}

/* Sub-windows: the end is not followed by a 0 but by more text. */
static void check_sub_windows(void)
{
    const char *doc = "{\"a\": [1, 2]}   , {\"b\": 2}";
    memcpy(buf, doc, strlen(doc) + 1);
    memset(buf + strlen(doc) + 1, 0, STINT_JSON_PAD);
    struct stint_json j = {.p = buf, .end = buf + 13, .at_eof = 1};
    CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_OK);
    CHECK_EQ_I64(j.p - buf, 13);
    CHECK_EQ_I64(stint_json_ws(&j), 0);
    CHECK(j.p == j.end);
    /* the window ends inside the blanks after a value */
    j = (struct stint_json){.p = buf + 13, .end = buf + 15, .at_eof = 1};
    CHECK_EQ_I64(stint_json_ws(&j), 0);
    CHECK(j.p == buf + 15);
    /* the window ends inside a number that goes on past it */
    memcpy(buf, "[12345] ", 9);
    j = (struct stint_json){.p = buf, .end = buf + 4, .at_eof = 0};
    CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_MORE);
    CHECK(j.p == buf);
    j = (struct stint_json){.p = buf, .end = buf + 4, .at_eof = 1};
    CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_ERR);
}

static void check_depth(void)
{
    static char doc[4096];
    for (int depth = 60; depth <= 70; depth++) {
        size_t n = 0;
        for (int i = 0; i < depth; i++) {
            const char *open = i % 2 ? "[" : "{\"k\":";
            memcpy(doc + n, open, strlen(open));
            n += strlen(open);
        }
        doc[n++] = '1';
        for (int i = depth - 1; i >= 0; i--)
            doc[n++] = i % 2 ? ']' : '}';
        struct stint_json j = cursor(doc, n, 0, 1);
        CHECK_EQ_I64(stint_json_skip(&j), STINT_JSON_OK);
        CHECK_EQ_I64(j.p - buf, (long long)n);
    }
}

static void check_short_helpers(void)
{
    const char *s;
    size_t n;
    struct stint_json j = cursor("\"name\": 1", 9, 0, 1);
    REQUIRE(stint_json_string_short(&j, &s, &n));
    CHECK_EQ_I64(n, 4);
    CHECK(j.p == buf + 6);
    j = cursor("\"0123456789abcde\"", 17, 0, 1); /* 15 bytes: the longest it takes */
    CHECK(stint_json_string_short(&j, &s, &n) && n == 15);
    j = cursor("\"0123456789abcdef\"", 18, 0, 1);
    CHECK(!stint_json_string_short(&j, &s, &n) && j.p == buf);
    j = cursor("\"a\\nb\"", 6, 0, 1);
    CHECK(!stint_json_string_short(&j, &s, &n) && j.p == buf);
    j = cursor("\"ab", 3, 0, 0); /* the quote is past the window */
    CHECK(!stint_json_string_short(&j, &s, &n));
    j = cursor("12.5}", 5, 0, 1);
    CHECK(stint_json_number_short(&j, &s, &n) && n == 4 && j.p == buf + 4);
    j = cursor("12.5", 4, 0, 0);
    CHECK(!stint_json_number_short(&j, &s, &n) && j.p == buf);
    j = cursor("1e3,", 4, 0, 1);
    CHECK(!stint_json_number_short(&j, &s, &n));
    j = cursor("012,", 4, 0, 1);
    CHECK(!stint_json_number_short(&j, &s, &n));
}

/* stint_parse_ts(us) against a plain reference, 1 to 19 digits. */
static void check_ts_digits(void)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int nint = 1 + (int)(x % 16), nfrac = (int)((x >> 8) % 7);
        char t[40];
        size_t n = 0;
        uint64_t v = 0;
        for (int k = 0; k < nint; k++) {
            int d = (int)((x >> (k * 3 + 16)) % 10);
            if (k == 0 && nint > 1 && d == 0)
                d = 7;
            t[n++] = (char)('0' + d);
            v = v * 10 + (uint64_t)d;
        }
        uint64_t frac_ns = 0;
        if (nfrac) {
            t[n++] = '.';
            for (int k = 0; k < nfrac; k++) {
                int d = (int)((x >> (k * 4 + 2)) % 10);
                t[n++] = (char)('0' + d);
                if (k < 3)
                    frac_ns = frac_ns * 10 + (uint64_t)d;
            }
            for (int k = nfrac; k < 3; k++)
                frac_ns *= 10;
        }
        int64_t got = 0;
        int rc = stint_parse_ts(t, n, 1000, &got);
        if (v > (uint64_t)INT64_MAX / 1000)
            continue; /* out of range: the general parser's business */
        CHECK_EQ_I64(rc, 0);
        CHECK_EQ_I64(got, (int64_t)(v * 1000 + frac_ns));
    }
    int64_t out;
    CHECK(stint_parse_ts("12345678x", 9, 1000, &out) != 0);
    CHECK(stint_parse_ts("1234567890123456789", 19, 1000, &out) != 0); /* beyond int64 ns */
    CHECK(stint_parse_ts("9223372036854775", 16, 1000, &out) == 0 && out == 9223372036854775000LL);
}

int main(void)
{
    check_skip_cases();
    check_long_strings();
    check_prefixes();
    check_sub_windows();
    check_depth();
    check_short_helpers();
    check_ts_digits();
    CHECK_DONE();
}
