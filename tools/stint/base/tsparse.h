/* SPDX-License-Identifier: MIT */
/*
 * tsparse.h - exact decimal text -> int64 nanoseconds, never through a double.
 *
 * Chrome JSON gives microseconds as decimal text ("5.1", "1850244461563845.0",
 * "1.5e3"); marker logs and JSONL give integer nanoseconds. Durations written
 * with a unit ("12.5ms", "3us", "40ns", "2s") are parsed by stint_parse_duration.
 */
#ifndef STINT_CLI_TSPARSE_H
#define STINT_CLI_TSPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The time range stint keeps: every timestamp, and every span's end (ts +
 * dur), lies in [-STINT_TS_LIMIT, STINT_TS_LIMIT] ns (|t| < 2^62 ns, about
 * 146 years either side of zero). Within it an end never overflows int64 and
 * neither does the difference of two times (< 2^63). Readers and the model
 * drop (and count) what lies outside it. An unfinished span's end, where one
 * is needed for arithmetic, is STINT_TS_LIMIT. */
#define STINT_TS_LIMIT (((int64_t)1 << 62) - 1)

/* 1 when ts lies in the kept range. */
static inline int stint_ts_in_range(int64_t ts)
{
    return ts >= -STINT_TS_LIMIT && ts <= STINT_TS_LIMIT;
}

/* 1 when a span starting at ts in range, lasting dur (>= 0), ends in range. */
static inline int stint_end_in_range(int64_t ts, int64_t dur)
{
    return dur <= STINT_TS_LIMIT && ts + dur <= STINT_TS_LIMIT;
}

/* Exact sums of many int64 values (means). */
__extension__ typedef __int128 stint_i128;

/* a + b saturated at the int64 ends instead of overflowing: sums of
 * durations and of unions (capped at INT64_MAX, 292 years: three spans of a
 * century each already pass it; a capped sum prints as 9223372036854775807),
 * and times moved by an anchor. */
static inline int64_t stint_sum_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* a + b saturated at UINT64_MAX: counts that a file may make as large as it
 * likes (the spans a writer reports lost). */
static inline uint64_t stint_count_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Parses a JSON-style decimal number (optional '-', digits, optional
 * fraction, optional exponent) given in units of 10^-scale_exp10 ns... in
 * practice: mult_ns is the number of ns per unit (1000 for us, 1 for ns,
 * 1000000 for ms). The result is exact; digits beyond 1 ns are truncated
 * toward zero, and counted when not 0 (stint_i_subns_note). Returns 0 and sets *out, or -1 when the text is not a number
 * (or has trailing bytes) and -2 when it does not fit int64. */
int stint_parse_ts(const char *s, size_t len, int64_t mult_ns, int64_t *out);

/* Counts one time whose digits below 1 ns were truncated (s, len: its
 * text, the first one kept): the parsers call it. Per calling thread;
 * stint_i_subns_take returns the thread's count since its last take
 * (resetting it) and copies the first text into first (cap bytes, cut);
 * stint_i_subns_put adds n such times, first among them, to the calling
 * thread's count (a split read hands its parts' counts to the reading
 * thread this way, in input order). */
void stint_i_subns_note(const char *s, size_t len) __attribute__((cold));
uint64_t stint_i_subns_take(char *first, size_t cap);
void stint_i_subns_put(uint64_t n, const char *first);

/* Parses a duration or time with an optional unit suffix: ns, us, ms, s
 * (no suffix = ns). "12.5ms" -> 12500000. Same return codes. */
int stint_parse_duration(const char *s, size_t len, int64_t *out);

/* Parses a plain decimal integer (optional '-'), exact. Same return codes. */
int stint_parse_i64(const char *s, size_t len, int64_t *out);

/* ---- fused scan-and-convert fast paths (readers' hot loops) ------------------------------ */

/* Per byte of x = 8 text bytes XOR '0': the high bit set where the byte was
 * not a decimal digit (masking off bit 7 first keeps the add carry-free). */
static inline uint64_t stint_i_nondigits(uint64_t x)
{
    return (((x & 0x7F7F7F7F7F7F7F7FULL) + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
}

/* The value of 8 digit bytes (each already XOR '0', first byte most significant). */
static inline uint64_t stint_i_digits8(uint64_t x)
{
    x = (x * 10) + (x >> 8); /* pairs of digits */
    return (((x & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((x >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
}

/* 8 bytes at s as a number whose low byte is s[0], on any byte order. */
static inline uint64_t stint_i_load_le64(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* Loads 8 bytes as digits XOR '0', the first byte in the low byte. */
static inline uint64_t stint_i_load_digits(const char *s)
{
    return stint_i_load_le64(s) ^ 0x3030303030303030ULL;
}

/* Scans the common shapes of a non-negative JSON number at s and converts it
 * exactly, as stint_parse_ts(text, len, mult_ns, out) would for mult_ns 1000
 * (microseconds: fraction digits past the third are truncated) or 1 (integer
 * nanoseconds: no fraction accepted). Shapes: "0" or 1-15 digits without a
 * leading zero, then for us an optional '.' with at least one digit. Returns
 * the byte after the number, or NULL when the text is another shape (sign,
 * exponent, leading zero, more digits, a '.' without digits): the caller then
 * uses the general parser, which also reports any error. It does not check
 * what follows the number. Reads up to 16 bytes past the end of the number
 * text, so s must lie in a buffer padded like the JSON window (a non-digit,
 * such as the window's 0, stops it). */
static inline __attribute__((always_inline)) const char *stint_scan_num(const char *s, int64_t mult_ns, int64_t *out)
{
    uint64_t x = stint_i_load_digits(s), m = stint_i_nondigits(x), v;
    unsigned nd;
    if (m) {
        nd = (unsigned)__builtin_ctzll(m) >> 3;
        if (nd == 0)
            return NULL;
        v = stint_i_digits8(x << (64 - 8 * nd));
    } else {
        uint64_t x1 = stint_i_load_digits(s + 8), m1 = stint_i_nondigits(x1);
        if (!m1) /* 15 digits at most: v * 1000 + 999 stays below 2^63 */
            return NULL;
        unsigned nd1 = (unsigned)__builtin_ctzll(m1) >> 3;
        static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
        v = stint_i_digits8(x) * pow10[nd1] + (nd1 ? stint_i_digits8(x1 << (64 - 8 * nd1)) : 0);
        nd = 8 + nd1;
    }
    if (s[0] == '0' && nd > 1)
        return NULL; /* a leading zero: not JSON, the general parser says so */
    const char *p = s + nd;
    if (mult_ns == 1) {
        if (*p == '.' || *p == 'e' || *p == 'E')
            return NULL;
        *out = (int64_t)v;
        return p;
    }
    uint64_t frac = 0;
    if (*p == '.') {
        x = stint_i_load_digits(p + 1);
        m = stint_i_nondigits(x);
        unsigned nf = m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
        if (nf == 0)
            return NULL;
        /* digits past the third are below 1 ns: truncated, counted when not 0 */
        uint64_t below = nf <= 3 ? 0 : nf == 8 ? x >> 24 : (x >> 24) & ((1ULL << (8 * (nf - 3))) - 1);
        /* the first three fraction digits, missing ones as zeros */
        x &= nf >= 3 ? 0xFFFFFFULL : (1ULL << (8 * nf)) - 1;
        frac = (x & 0xFF) * 100 + (x >> 8 & 0xFF) * 10 + (x >> 16);
        p += 1 + nf;
        if (nf == 8)
            while ((unsigned)(*p - '0') < 10)
                below |= (uint64_t)(*p++ - '0');
        if (__builtin_expect(below != 0, 0)) {
            if (*p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
                return NULL; /* (an exponent or worse follows: the general parser reads it, and counts) */
            stint_i_subns_note(s, (size_t)(p - s));
        }
    }
    *out = (int64_t)(v * 1000 + frac);
    return p;
}

#endif
