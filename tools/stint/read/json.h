/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small, strict, streaming-friendly JSON tokenizer over a buffer.
 *
 * The cursor works on one in-memory window [p, end) that must be followed by
 * at least STINT_JSON_PAD readable bytes, the first of which is 0 (readers
 * keep that padding in their reused buffers). Each function parses one
 * complete token or value; when the window ends inside it, it returns
 * STINT_JSON_MORE and leaves the cursor where it was, so a streaming reader
 * can move the unparsed tail to the front of its buffer, read more, and retry.
 *
 * Strict by default (RFC 8259: no trailing commas, no comments, no NaN, valid
 * UTF-8, no raw control characters in strings). A lone surrogate in a \u
 * escape (a high one not followed by a low one, or a low one alone) is
 * accepted and decodes to U+FFFD, as JavaScript's JSON.parse and Perfetto
 * accept it (RFC 8259 leaves it to the implementation); each is counted in
 * lone_surrogates (the Chrome reader turns that into a repair). The one leniency, STINT_JSON_TRAILING_COMMA, accepts a comma
 * before '}' or ']' and counts each one in trailing_commas (the Chrome reader
 * turns that into a repair); STINT_JSON_CONTROL_CHARS accepts raw control
 * bytes (a raw newline, as Perfetto's parser does) inside strings and counts
 * them in control_chars. Nesting is limited to STINT_JSON_MAX_DEPTH and
 * reported as an error beyond it, never a crash.
 */
#ifndef STINT_CLI_JSON_H
#define STINT_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define STINT_JSON_PAD 16
#define STINT_JSON_MAX_DEPTH 100000

enum { STINT_JSON_OK = 0, STINT_JSON_ERR = -1, STINT_JSON_MORE = -2 };
enum { STINT_JSON_TRAILING_COMMA = 1u << 0, STINT_JSON_CONTROL_CHARS = 1u << 1 };

struct stint_json {
    const char *p;          /* next byte */
    const char *end;        /* end of the window (end[0] == 0, padded) */
    unsigned flags;         /* STINT_JSON_* leniencies */
    int at_eof;             /* the window ends at the end of the input */
    uint64_t trailing_commas;
    uint64_t control_chars; /* raw control bytes accepted in strings (STINT_JSON_CONTROL_CHARS) */
    uint64_t lone_surrogates; /* \u escapes of an unpaired surrogate (always accepted, as U+FFFD) */
    /* where the first of each of those three since the caller last cleared
     * these lies (NULL: none): the bracket after the comma, the string's opening quote */
    const char *tc_at, *cc_at, *ls_at;
    const char *err;        /* static message on STINT_JSON_ERR */
    const char *err_at;     /* where in the window */
};

/* Counts a trailing comma accepted at j->p (the closing bracket after it),
 * remembering the first one's place. */
static inline void stint_json_trailing_comma(struct stint_json *j)
{
    j->trailing_commas++;
    if (!j->tc_at)
        j->tc_at = j->p;
}

/* The four JSON blanks (space, \t, \n, \r) as one bit test. */
static inline int stint_json_is_blank(int c)
{
    return (unsigned)c <= ' ' && ((1ULL << ' ' | 1ULL << '\t' | 1ULL << '\n' | 1ULL << '\r') >> c) & 1;
}

/* Skips whitespace. Returns the next byte, or 0 at the end of the window. */
static inline int stint_json_ws(struct stint_json *j)
{
    const char *p = j->p;
    int c = (unsigned char)*p;
    /* the common case first: no blank at all. Readers also run sub-windows
     * whose end is not followed by a 0, hence the bound checks. Bytes <= ' '
     * other than the four JSON blanks are never skipped. */
    if (c > ' ' && p < j->end)
        return c;
    while (p < j->end && stint_json_is_blank(c))
        c = (unsigned char)*++p;
    j->p = p;
    return p < j->end ? c : 0;
}

/* Fast paths for the common short token; each returns 1 when it handled the
 * token (and moved j->p), 0 when the caller must use the general function,
 * which then reports any error or MORE exactly as before. */

/* A string at *p == '"' whose body is under 16 plain ASCII bytes (no
 * escapes, no control bytes). Reads at most 17 bytes past p: the window's
 * padding covers that. */
static inline int stint_json_string_short(struct stint_json *j, const char **s, size_t *len)
{
#ifdef __SSE2__
    /* x86-64 always has SSE2: one 16-byte compare; signed bytes below 0x20
     * include every byte >= 0x80 */
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(j->p + 1));
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    unsigned mask = (unsigned)_mm_movemask_epi8(m);
    if (!mask)
        return 0;
    const char *at = j->p + 1 + __builtin_ctz(mask);
    if (*at != '"' || at >= j->end)
        return 0;
    *s = j->p + 1;
    *len = (size_t)(at - j->p - 1);
    j->p = at + 1;
    return 1;
#else
    const char *p = j->p + 1;
    for (int w = 0; w < 2; w++, p += 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
        uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
        uint64_t sp = (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x) | x) & highs;
        if (sp) {
            const char *at = p + (__builtin_ctzll(sp) >> 3);
            if (*at != '"' || at >= j->end)
                return 0;
            *s = j->p + 1;
            *len = (size_t)(at - j->p - 1);
            j->p = at + 1;
            return 1;
        }
    }
    return 0;
#endif
}

/* A number made of an optional '-', digits and an optional fraction,
 * followed inside the window by ',', '}', ']' or a blank. */
static inline int stint_json_number_short(struct stint_json *j, const char **s, size_t *len)
{
    const char *p = j->p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if ((unsigned)(*p - '1') < 9) {
        p++;
        while ((unsigned)(*p - '0') < 10)
            p++;
    } else
        return 0;
    if (*p == '.') {
        p++;
        if ((unsigned)(*p - '0') >= 10)
            return 0;
        while ((unsigned)(*p - '0') < 10)
            p++;
    }
    if (p >= j->end || !(*p == ',' || *p == '}' || *p == ']' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        return 0;
    *s = j->p;
    *len = (size_t)(p - j->p);
    j->p = p;
    return 1;
}

/* Parses a string at *p == '"'. On OK, *s and *len is the raw body between the
 * quotes and *escaped says whether it holds backslash escapes (then use
 * stint_json_unescape). */
int stint_json_string(struct stint_json *j, const char **s, size_t *len, int *escaped);

/* The value of hex digit c (either case), or -1 when c is none. */
static inline int stint_json_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Validates one UTF-8 sequence at p (lead byte >= 0x80, p < end): its
 * length, 0 when end comes inside it, -1 when invalid (overlong forms,
 * surrogates, code points above U+10FFFF). The tokenizer's rule, shared
 * with the writers (textout.c). */
static inline int stint_json_utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return -1;
    for (int i = 1; i < n; i++) {
        if (p + i >= end)
            return 0;
        unsigned b = p[i];
        if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return -1;
    }
    return n;
}

/* s[0, n) written at o as a JSON string body by the writers' rules
 * (write/textout.h, the UTF-8 form), o having room for 6 * n bytes: valid
 * UTF-8 and DEL as they are, '"' '\\' \n \r \t escaped, other control
 * bytes as \u00XX, a byte that starts no valid sequence as U+FFFD (each
 * counted in *bad). Returns the end of what it wrote. */
char *stint_json_escape_to(char *o, const char *s, size_t n, uint64_t *bad);

/* Parses a number; *s and *len is its text. */
int stint_json_number(struct stint_json *j, const char **s, size_t *len);
/* Skips one complete value of any type (iteratively; depth-limited). */
int stint_json_skip(struct stint_json *j);
/* Internal hooks for the tests and benches only (not part of the reader's
 * contract). stint_i_json_skip_general is the exact skip that
 * stint_json_skip falls back to (same contract as stint_json_skip).
 * stint_i_json_fast_skip runs one fast path on the value at p (blanks first)
 * and returns the position after it, or NULL where that path gives up
 * (anything it does not validate itself, the window end included, or a path
 * this CPU cannot run); it never reports errors. Whenever it returns non-NULL,
 * the general skip must return OK at the same position. */
enum {
    STINT_I_JSON_FAST_AUTO = 0,   /* what stint_json_skip picks on this CPU */
    STINT_I_JSON_FAST_SWAR = 1,   /* token walk, strings and digits 8 bytes at a time (the portable path) */
    STINT_I_JSON_FAST_TOKEN = 2,  /* token walk, strings 32 bytes at a time (AVX2; the fast path before the two below) */
    STINT_I_JSON_FAST_DIGITS = 3, /* TOKEN with digits 8 bytes at a time */
    STINT_I_JSON_FAST_BLOCK = 4,  /* 64-byte block classifier (AVX2 + PCLMUL + POPCNT) */
    STINT_I_JSON_FAST_BLOCK512 = 5 /* BLOCK classifying on AVX-512BW (and BMI1, BMI2) */
};
int stint_i_json_skip_general(struct stint_json *j);
const char *stint_i_json_fast_skip(const char *p, const char *end, int path);

/* Decodes a validated string body with escapes into out (which must hold len
 * bytes: decoding never grows). Returns the decoded length. */
size_t stint_json_unescape(const char *s, size_t len, char *out);

/* Validates a whole document: exactly one value plus whitespace. Returns 0
 * when valid; else -1 with *err_off (byte offset) and *err_msg (static text).
 * buf needs no padding (the function copies into a padded buffer only when it
 * must). flags as above (0 = strict RFC 8259). This is the fuzzing and
 * JSONTestSuite entry point. */
int stint_json_validate(const char *buf, size_t len, unsigned flags, size_t *err_off, const char **err_msg);

#endif
