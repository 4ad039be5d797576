/* SPDX-License-Identifier: MIT */
/*
 * analysis_stats.c - the figures analysis.h prints: sorts, quantiles, means
 * and the unit-labelled formatting of ns values.
 *
 * Invariants: everything is exact int64 ns, or exact 128-bit rationals, up
 * to the printed decimal, except the interpolated quantiles and means of
 * stint_an_quantile and stint_an_mean, which become doubles only at the
 * very end. Rounding is half up (ties toward +infinity), everywhere the
 * same. Nothing here allocates or keeps state.
 */
#include "analyze/analysis.h"
#include "base/cmp.h"
#include "base/intervals.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void stint_an_sort_i64(int64_t *v, size_t n)
{
    stint_sort_i64(v, n); /* (intervals.h: an introsort with the comparison inlined) */
}

/* (qsort must not see a NULL array, even for n == 0) */
void stint_an_sort_f64(double *v, size_t n)
{
    if (n > 1)
        stint_xqsort(v, n, sizeof *v, stint_qsort_f64);
}

/* Where quantile q of n sorted values lies: -1 when n is 0 (no value); 0
 * when at the last value (*lo = n - 1); else 1, between index *lo and the
 * next one, *frac of the way. */
static int quantile_at(size_t n, double q, size_t *lo, double *frac)
{
    if (n == 0)
        return -1;
    double pos = q * (double)(n - 1);
    *lo = (size_t)pos;
    *frac = pos - (double)*lo;
    if (*lo < n - 1)
        return 1;
    *lo = n - 1;
    return 0;
}

double stint_an_quantile(const int64_t *v, size_t n, double q)
{
    size_t lo = 0;
    double frac = 0;
    int at = quantile_at(n, q, &lo, &frac);
    return at < 0 ? NAN : at == 0 ? (double)v[lo] : (double)v[lo] + frac * (double)(v[lo + 1] - v[lo]);
}

double stint_an_quantile_f64(const double *v, size_t n, double q)
{
    size_t lo = 0;
    double frac = 0;
    int at = quantile_at(n, q, &lo, &frac);
    if (at <= 0)
        return at < 0 ? NAN : v[lo];
    double d = v[lo + 1] - v[lo];
    if (frac == 0 || v[lo] == v[lo + 1])
        return v[lo];
    if (isinf(v[lo]) || isinf(v[lo + 1])) /* an infinite end is the value anywhere between (inf - inf is NaN) */
        return isinf(v[lo]) ? v[lo] : v[lo + 1];
    if (isinf(d)) /* values near +-DBL_MAX: weigh instead */
        return v[lo] * (1 - frac) + v[lo + 1] * frac;
    return v[lo] + frac * d;
}

size_t stint_an_us_len(char *buf, int64_t ns)
{
    /* (digits from the right, no snprintf: tables print one per cell, 45 MB of them for
     * the steps of a 1 GB log) */
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns, q = a / 1000;
    unsigned r = (unsigned)(a % 1000);
    char t[24];
    size_t k = sizeof t;
    t[--k] = (char)('0' + r % 10);
    t[--k] = (char)('0' + r / 10 % 10);
    t[--k] = (char)('0' + r / 100);
    t[--k] = '.';
    do {
        t[--k] = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    if (ns < 0)
        t[--k] = '-';
    memcpy(buf, t + k, sizeof t - k);
    buf[sizeof t - k] = '\0';
    return sizeof t - k;
}

const char *stint_an_us(char *buf, int64_t ns)
{
    stint_an_us_len(buf, ns);
    return buf;
}

const char *stint_an_us_f(char *buf, double ns)
{
    if (isnan(ns)) {
        snprintf(buf, 32, "-");
        return buf;
    }
    /* llround is undefined past the int64 range: clamp (only sums of centuries get there) */
    if (ns >= 9223372036854775807.0)
        return stint_an_us(buf, INT64_MAX);
    if (ns <= -9223372036854775808.0)
        return stint_an_us(buf, INT64_MIN);
    return stint_an_us(buf, (int64_t)llround(ns));
}

double stint_an_mean(const int64_t *v, size_t n)
{
    if (n == 0)
        return NAN;
    stint_i128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return (double)((long double)sum / (long double)n);
}

struct stint_an_ratio stint_an_mean_exact(const int64_t *v, size_t n)
{
    struct stint_an_ratio r = {0, 0};
    if (n == 0)
        return r;
    for (size_t i = 0; i < n; i++)
        r.num += v[i];
    r.den = (stint_i128)n;
    return r;
}

/* The 0-based index of the nearest-rank pct quantile of n > 0 values. */
static size_t rank_index(size_t n, unsigned pct)
{
    if (pct > 100)
        pct = 100;
    /* rank ceil(pct * n / 100), 1-based; 128-bit so that no n overflows */
    stint_i128 rank = ((stint_i128)pct * (stint_i128)n + 99) / 100;
    return rank > 0 ? (size_t)(rank - 1) : 0;
}

struct stint_an_ratio stint_an_quantile_rank(const int64_t *v, size_t n, unsigned pct)
{
    struct stint_an_ratio r = {0, 0};
    if (n == 0)
        return r;
    r.num = v[rank_index(n, pct)];
    r.den = 1;
    return r;
}

void stint_an_quantiles_ready(int64_t *v, size_t n)
{
    if (n < 2)
        return;
    size_t r90 = rank_index(n, 90), r50 = rank_index(n, 50);
    stint_select_i64(v, n, r90);
    if (r50 < r90) /* (v[0..r90) hold the r90 smallest) */
        stint_select_i64(v, r90, r50);
}

/* floor(a / b) for b > 0 */
static stint_i128 floor_div(stint_i128 a, stint_i128 b)
{
    stint_i128 q = a / b;
    if (a % b != 0 && a < 0)
        q--;
    return q;
}

const char *stint_an_fmt_ratio(char *buf, struct stint_an_ratio r, unsigned shift, unsigned decimals)
{
    if (r.den <= 0) {
        snprintf(buf, 64, "-");
        return buf;
    }
    if (shift > 6)
        shift = 6;
    if (decimals > 6)
        decimals = 6;
    stint_i128 pd = 1, ps = 1;
    for (unsigned k = 0; k < decimals; k++)
        pd *= 10;
    for (unsigned k = 0; k < shift; k++)
        ps *= 10;
    /* round half up: floor((2 * num * 10^decimals + D) / (2 * D)), D = den * 10^shift */
    stint_i128 d = r.den * ps;
    stint_i128 q = floor_div(2 * r.num * pd + d, 2 * d);
    int neg = q < 0;
    __extension__ typedef unsigned __int128 u128;
    u128 a = neg ? (u128)0 - (u128)q : (u128)q;
    char dig[48];
    size_t nd = 0;
    do {
        dig[nd++] = (char)('0' + (int)(a % 10));
        a /= 10;
    } while (a);
    while (nd <= decimals) /* at least one digit before the point */
        dig[nd++] = '0';
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    while (nd > decimals)
        buf[o++] = dig[--nd];
    if (decimals) {
        buf[o++] = '.';
        while (nd)
            buf[o++] = dig[--nd];
    }
    buf[o] = 0;
    return buf;
}
