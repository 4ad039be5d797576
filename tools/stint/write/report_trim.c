/* SPDX-License-Identifier: MIT */
/*
 * report_trim.c - the report's selection of the k first items by an order
 * and its call tree trimmed to the nodes (report_trim.h).
 *
 * The selection keeps every item exactly once (it only swaps), and v[0, k)
 * is the set a full sort by the same strict order would put first.
 */
#include "write/report_trim.h"
#include "base/cmp.h"

#include <stdlib.h>

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Partitions v[lo, hi] (hi > lo) around the median of its first, middle
 * and last items; returns the pivot's final place p: v[lo, p) before it by
 * cmp, v(p, hi] after it. */
static size_t partition(uint32_t *v, size_t lo, size_t hi, int (*cmp)(const void *, const void *, void *), void *ctx)
{
    size_t mid = lo + (hi - lo) / 2;
    if (cmp(&v[mid], &v[lo], ctx) < 0)
        swap_u32(&v[mid], &v[lo]);
    if (cmp(&v[hi], &v[lo], ctx) < 0)
        swap_u32(&v[hi], &v[lo]);
    if (cmp(&v[hi], &v[mid], ctx) < 0)
        swap_u32(&v[hi], &v[mid]);
    swap_u32(&v[mid], &v[hi]); /* the median as the pivot, at hi */
    size_t p = lo;
    for (size_t i = lo; i < hi; i++)
        if (cmp(&v[i], &v[hi], ctx) < 0)
            swap_u32(&v[i], &v[p++]);
    swap_u32(&v[p], &v[hi]);
    return p;
}

void stint_report_select(uint32_t *v, size_t n, size_t k, int (*cmp)(const void *, const void *, void *), void *ctx)
{
    if (k == 0 || k >= n)
        return;
    size_t lo = 0, hi = n - 1, rounds = 0, limit = 2;
    for (size_t x = n; x > 1; x >>= 1)
        limit += 2;
    /* invariant: v[0, lo) are first, v(hi, n) are not, and item k-1 of the order lies in [lo, hi] */
    while (lo < hi) {
        if (++rounds > limit) { /* (an order that keeps picking bad pivots) */
            stint_xqsort_r(v + lo, hi - lo + 1, sizeof *v, cmp, ctx);
            return;
        }
        size_t p = partition(v, lo, hi, cmp, ctx);
        if (p == k - 1 || p == k)
            return; /* (v[0, p) are the p first; at p == k - 1 the pivot is the k-th) */
        if (p < k)
            lo = p + 1;
        else
            hi = p - 1;
    }
}

void stint_report_tree_drop_per_span(struct stint_calltree *t)
{
    for (size_t k = 0; k < t->n; k++) {
        free(t->nodes[k].durs);
        t->nodes[k].durs = NULL;
        t->nodes[k].ndurs = 0;
    }
    free(t->slice_node);
    free(t->slice_self);
    t->slice_node = NULL;
    t->slice_self = NULL;
}
