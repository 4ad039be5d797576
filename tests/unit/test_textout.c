/* SPDX-License-Identifier: MIT */
/*
 * test_textout.c - the writers' JSON string escapers (write/textout.h)
 * against a reference written from their documented rule: strings of every
 * length up to several of the escaper's pieces, mixing plain bytes, escapes,
 * control bytes, DEL, valid 2-4 byte UTF-8 and invalid bytes (lone
 * continuations, cut sequences, overlongs, surrogates, bytes above U+10FFFF)
 * at every place, piece ends included; the U+FFFD count as well. Then the
 * ensure_ascii form on fixed cases.
 */
#include "check.h"
#include "write/textout.h"

#include <stdint.h>

/* The length of the valid UTF-8 sequence at p (n bytes left), -1 when p
 * starts none: RFC 3629, no overlong form, no surrogate, nothing above
 * U+10FFFF. */
static int ref_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0], cp;
    int l;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        l = 2;
        cp = c & 0x1f;
    } else if (c >= 0xE0 && c <= 0xEF) {
        l = 3;
        cp = c & 0x0f;
    } else if (c >= 0xF0 && c <= 0xF4) {
        l = 4;
        cp = c & 0x07;
    } else
        return -1;
    if (n < (size_t)l)
        return -1;
    for (int k = 1; k < l; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return -1;
        cp = cp << 6 | (p[k] & 0x3fu);
    }
    if (l == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
        return -1;
    if (l == 4 && (cp < 0x10000 || cp > 0x10FFFF))
        return -1;
    return l;
}

/* The rule, byte by byte, into o (with its quotes); returns the length and
 * adds the U+FFFD count to *bad. */
static size_t ref_escape(char *o, const unsigned char *s, size_t n, unsigned long long *bad)
{
    char *o0 = o;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
            i++;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            *o++ = '\\';
            *o++ = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            i++;
        } else if (c < 0x20) {
            o += sprintf(o, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            *o++ = (char)c;
            i++;
        } else {
            int l = ref_seq(s + i, n - i);
            if (l > 0) {
                memcpy(o, s + i, (size_t)l);
                o += l;
                i += (size_t)l;
            } else {
                memcpy(o, "\xEF\xBF\xBD", 3);
                o += 3;
                (*bad)++;
                i++;
            }
        }
    }
    *o++ = '"';
    return (size_t)(o - o0);
}

static uint64_t rng = 88172645463325252ull;

static unsigned next(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Appends one random token at s + n; returns the new length. */
static size_t put_token(unsigned char *s, size_t n)
{
    static const char *const tok[] = {
        "a", "xyz", "\"", "\\", "\n", "\r", "\t", "\x01", "\x1f", "\x7f", "\b",
        "\xC3\xA9",             /* U+00E9 */
        "\xE2\x82\xAC",         /* U+20AC */
        "\xF0\x9F\x98\x80",     /* U+1F600 */
        "\xF4\x8F\xBF\xBF",     /* U+10FFFF */
        "\xEF\xBF\xBD",         /* U+FFFD itself: valid */
        "\x80", "\xBF\xBF\xBF\xBF\xBF", /* lone continuations */
        "\xC3", "\xE2\x82", "\xF0\x9F\x98", /* cut sequences */
        "\xC0\x80", "\xE0\x80\x80", /* overlong */
        "\xED\xA0\x80", /* a surrogate */
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", /* above U+10FFFF, never a lead */
    };
    const char *t = next(3) ? tok[next(2)] : tok[next(sizeof tok / sizeof tok[0])];
    size_t l = strlen(t);
    if (!l) /* ("\0" cannot be in the table: a NUL byte itself) */
        return n;
    memcpy(s + n, t, l);
    return n + l;
}

static void check_utf8_form(void)
{
    enum { MAXLEN = 4200 };
    static unsigned char s[MAXLEN + 8];
    static char want[6 * (MAXLEN + 8) + 2];
    int bad_cases = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t target = iter < 1200 ? (size_t)iter * 3 : next(MAXLEN);
        size_t n = 0;
        while (n < target)
            n = put_token(s, n);
        if (n && next(4) == 0) /* a NUL byte too */
            s[next((unsigned)n)] = 0;
        unsigned long long want_bad = 0;
        size_t wn = ref_escape(want, s, n, &want_bad);
        char *got = NULL;
        size_t gn = 0;
        FILE *f = open_memstream(&got, &gn);
        REQUIRE(f != NULL);
        unsigned long long b0 = stint_out_bad_utf8();
        stint_out_json_str(f, (const char *)s, n);
        fclose(f);
        unsigned long long got_bad = stint_out_bad_utf8() - b0;
        if ((gn != wn || memcmp(got, want, wn) != 0 || got_bad != want_bad) && bad_cases++ < 3)
            fprintf(stderr, "length %zu: got %zu bytes (%llu U+FFFD), want %zu (%llu)\n", n, gn, got_bad, wn,
                    want_bad);
        free(got);
    }
    CHECK_EQ_I64(bad_cases, 0);
}

struct ascii_case {
    const char *in;
    const char *want;
    unsigned long long bad;
};

static void check_ascii_form(void)
{
    static const struct ascii_case cases[] = {
        {"plain", "\"plain\"", 0},
        {"q\"b\\", "\"q\\\"b\\\\\"", 0},
        {"\b\f\n\r\t\x01\x7f", "\"\\b\\f\\n\\r\\t\\u0001\\u007f\"", 0},
        {"\xC3\xA9", "\"\\u00e9\"", 0},
        {"\xE2\x82\xAC", "\"\\u20ac\"", 0},
        {"\xF0\x9F\x98\x80", "\"\\ud83d\\ude00\"", 0},
        {"a\xFF" "b", "\"a\\ufffdb\"", 1},
        {"\xE2\x82", "\"\\ufffd\\ufffd\"", 2},
        {"\xED\xA0\x80", "\"\\ufffd\\ufffd\\ufffd\"", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = NULL;
        size_t gn = 0;
        FILE *f = open_memstream(&got, &gn);
        REQUIRE(f != NULL);
        unsigned long long b0 = stint_out_bad_utf8();
        stint_out_json_ascii(f, cases[i].in, strlen(cases[i].in));
        fclose(f);
        CHECK_STR(got, cases[i].want);
        CHECK_EQ_U64(stint_out_bad_utf8() - b0, cases[i].bad);
        free(got);
    }
}

int main(void)
{
    check_utf8_form();
    check_ascii_form();
    CHECK_DONE();
}
