/* SPDX-License-Identifier: MIT */
/*
 * cmp.h - three-way comparisons for sort comparators (CLI internal).
 *
 * A comparator written as a chain of "if (a->x != b->x) return a->x < b->x
 * ? -1 : 1;" lines compares each key with one of these instead: every
 * function returns -1, 0 or 1, never a difference (which overflows for
 * 64-bit keys). The stint_qsort_* ones are ready qsort comparators for
 * plain arrays. Context (a model, a key choice) goes through glibc's
 * qsort_r, never a file-static global.
 */
#ifndef STINT_CLI_CMP_H
#define STINT_CLI_CMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* qsort and glibc's qsort_r for any array of n elements: an empty one may
 * have a NULL base, which C's qsort does not accept (UBSan says so), and
 * fewer than two elements are sorted already. Every sort of the analyzer
 * goes through these. */
static inline void stint_xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}
static inline void stint_xqsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                                  void *ctx)
{
    if (n > 1)
        qsort_r(base, n, size, cmp, ctx);
}

static inline int stint_cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }
static inline int stint_cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }
static inline int stint_cmp_u32(uint32_t a, uint32_t b) { return (a > b) - (a < b); }
/* NaN compares equal to everything (sort NaN-free values only). */
static inline int stint_cmp_f64(double a, double b) { return (a > b) - (a < b); }

/* qsort comparators over arrays of the type, ascending. */
static inline int stint_qsort_i64(const void *a, const void *b)
{
    return stint_cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}
static inline int stint_qsort_u64(const void *a, const void *b)
{
    return stint_cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}
static inline int stint_qsort_u32(const void *a, const void *b)
{
    return stint_cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}
static inline int stint_qsort_f64(const void *a, const void *b)
{
    return stint_cmp_f64(*(const double *)a, *(const double *)b);
}

#endif
