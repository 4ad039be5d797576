/* SPDX-License-Identifier: MIT */
/* bench_median.h - the median the C benchmarks report: of n values (sorted
 * in place), the middle one, or the mean of the two middle ones when n is
 * even. Header-only; benchmarks only. */
#ifndef STINT_BENCH_MEDIAN_H
#define STINT_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n), n >= 1; v is left sorted. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
