/* SPDX-License-Identifier: MIT */
/*
 * tsparse.c - exact decimal-to-nanosecond conversion.
 *
 * The number is split into its integer digits, fraction digits and exponent;
 * the value times mult_ns is assembled in unsigned 128-bit-safe steps
 * (checked multiplication on uint64) so that every representable ns value is
 * exact and anything larger is reported as out of range, never wrapped.
 * Digits below 1 ns are truncated, as Perfetto does, and never silently:
 * each time so cut is counted (stint_i_subns_note) for the reader to report.
 */
#include "base/tsparse.h"

#include <stdio.h>
#include <string.h>

static int mul_add(uint64_t *acc, uint64_t mul, uint64_t add)
{
    uint64_t r;
    if (__builtin_mul_overflow(*acc, mul, &r) || __builtin_add_overflow(r, add, &r))
        return -1;
    *acc = r;
    return 0;
}

/* The common case: up to 18 digits in all, optional fraction, no sign or
 * exponent, mult_ns 1000 (Chrome microseconds). Returns 0 when it handled
 * the text, 1 to fall back to the general parser. */
static int parse_us_fast(const char *s, size_t len, int64_t *out)
{
    if (len == 0 || len > 19)
        return 1;
    uint64_t v = 0;
    size_t i = 0;
    /* eight digits at a time (SWAR), then one at a time */
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if ((w & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL ||
            ((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) != 0x3030303030303030ULL)
            break;
        w -= 0x3030303030303030ULL;
        w = (w * 10) + (w >> 8); /* pairs of digits */
        w = (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
             (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
        v = v * 100000000ULL + w; /* at most 16 digits here: len <= 19 and a fraction or digits follow */
        i += 8;
    }
    while (i < len && (unsigned)(s[i] - '0') < 10)
        v = v * 10 + (uint64_t)(s[i++] - '0');
    if (i == 0)
        return 1;
    unsigned frac = 0, nfrac = 0;
    if (i < len) {
        if (s[i] != '.')
            return 1;
        i++;
        size_t f0 = i;
        int below_ns = 0; /* a digit past the third one is not 0 */
        while (i < len && (unsigned)(s[i] - '0') < 10) {
            if (nfrac < 3) {
                frac = frac * 10 + (unsigned)(s[i] - '0');
                nfrac++;
            } else
                below_ns |= s[i] != '0';
            i++;
        }
        if (i != len || i == f0)
            return 1;
        if (below_ns)
            stint_i_subns_note(s, len);
    }
    static const unsigned scale[4] = {1000, 100, 10, 1};
    if (v > (uint64_t)INT64_MAX / 1000)
        return 1;
    *out = (int64_t)(v * 1000 + frac * scale[nfrac]);
    return 0;
}

int stint_parse_ts(const char *s, size_t len, int64_t mult_ns, int64_t *out)
{
    if (mult_ns == 1000 && parse_us_fast(s, len, out) == 0)
        return 0;
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    size_t int_a = i;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t int_b = i, frac_a = i, frac_b = i;
    if (i < len && s[i] == '.') {
        i++;
        frac_a = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        frac_b = i;
    }
    if (int_b == int_a && frac_b == frac_a)
        return -1;
    long exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (s[i] == '-' || s[i] == '+')) {
            eneg = s[i] == '-';
            i++;
        }
        size_t ea = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (s[i] - '0');
            i++;
        }
        if (i == ea)
            return -1;
        if (eneg)
            exp10 = -exp10;
    }
    if (i != len)
        return -1;
    /* mult_ns is a power of ten here: fold it into the exponent. */
    uint64_t m = (uint64_t)mult_ns;
    while (m >= 10 && m % 10 == 0) {
        m /= 10;
        exp10++;
    }
    /* value = digits(int ++ frac) * 10^(exp10 - nfrac) * m */
    uint64_t acc = 0;
    long shift = exp10 - (long)(frac_b - frac_a);
    /* Digits that fall below 1 ns (shift < 0) are truncated. */
    size_t ndig = (int_b - int_a) + (frac_b - frac_a);
    long keep = (long)ndig + shift; /* digits at or above the ns position */
    size_t k = 0;
    int below_ns = 0; /* a digit that falls below 1 ns is not 0 */
    for (size_t j = int_a; j < frac_b; j++) {
        if (j == int_b)
            continue; /* the '.' */
        if ((long)k < keep) {
            if (mul_add(&acc, 10, (uint64_t)(s[j] - '0')) != 0)
                return -2;
        } else
            below_ns |= s[j] != '0';
        k++;
    }
    for (long e = shift; e > 0; e--) {
        if (acc == 0)
            break;
        if (mul_add(&acc, 10, 0) != 0)
            return -2;
    }
    if (m != 1 && mul_add(&acc, m, 0) != 0)
        return -2;
    if (neg) {
        if (acc > (uint64_t)INT64_MAX + 1)
            return -2;
        *out = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
    } else {
        if (acc > (uint64_t)INT64_MAX)
            return -2;
        *out = (int64_t)acc;
    }
    if (below_ns)
        stint_i_subns_note(s, len);
    return 0;
}

/* The times truncated below 1 ns since the last take on this thread, and
 * the first one's text. Per thread, so that a split read's parts each keep
 * their own and the reader adds them up in input order (stint_i_subns_put):
 * the example named is then the same on one thread or several. */
static _Thread_local uint64_t subns_n;
static _Thread_local char subns_first[48];

void stint_i_subns_note(const char *s, size_t len)
{
    if (subns_n++ != 0)
        return;
    size_t n = len < sizeof subns_first - 1 ? len : sizeof subns_first - 1;
    memcpy(subns_first, s, n);
    subns_first[n] = 0;
}

uint64_t stint_i_subns_take(char *first, size_t cap)
{
    uint64_t n = subns_n;
    subns_n = 0;
    if (cap)
        snprintf(first, cap, "%s", n ? subns_first : "");
    return n;
}

void stint_i_subns_put(uint64_t n, const char *first)
{
    if (!n)
        return;
    if (subns_n == 0)
        snprintf(subns_first, sizeof subns_first, "%s", first);
    subns_n += n;
}

int stint_parse_duration(const char *s, size_t len, int64_t *out)
{
    static const struct {
        const char *suf;
        int64_t mult;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t sl = strlen(units[u].suf);
        if (len > sl && memcmp(s + len - sl, units[u].suf, sl) == 0) {
            char c = s[len - sl - 1];
            if (c >= '0' && c <= '9') /* "ms" must not match as "s" after 'm' */
                return stint_parse_ts(s, len - sl, units[u].mult, out);
            if (c == '.')
                return stint_parse_ts(s, len - sl, units[u].mult, out);
        }
    }
    return stint_parse_ts(s, len, 1, out);
}

int stint_parse_i64(const char *s, size_t len, int64_t *out)
{
    /* the common case: up to 18 plain digits */
    if (len && len <= 18) {
        uint64_t v = 0;
        size_t i = 0;
        while (i < len && (unsigned)(s[i] - '0') < 10)
            v = v * 10 + (uint64_t)(s[i++] - '0');
        if (i == len) {
            *out = (int64_t)v;
            return 0;
        }
    }
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            return -1;
    return stint_parse_ts(s, len, 1, out);
}
