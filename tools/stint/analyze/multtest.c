/* SPDX-License-Identifier: MIT */
/*
 * multtest.c - Monte Carlo p-values and Holm's adjustment.
 *
 * The adjustment sorts indexes by p-value (ties by index, so the order and
 * therefore the result do not depend on qsort's choices), walks them from the
 * smallest up keeping the running maximum of (n - rank + 1) * p, and writes
 * each q back at its test's own index: the output is in the input's order.
 */
#include "analyze/multtest.h"
#include "base/cmp.h"

#include <stdlib.h>

double stint_mt_mc_p(size_t n_extreme, size_t draws)
{
    double p = (1.0 + (double)n_extreme) / (1.0 + (double)draws);
    return p < 1 ? p : 1;
}

/* An index into the p-values, with them at hand for the comparator. */
struct by_p {
    const double *p;
    size_t i;
};

/* Orders by p-value, then by index. */
static int by_p_cmp(const void *pa, const void *pb)
{
    const struct by_p *a = pa, *b = pb;
    double x = a->p[a->i], y = b->p[b->i];
    if (x != y)
        return x < y ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int stint_mt_holm_adjust(const double *p, size_t n, double *q)
{
    if (!n)
        return 0;
    struct by_p *o = malloc(n * sizeof *o);
    if (!o)
        return -1;
    for (size_t i = 0; i < n; i++)
        o[i].p = p, o[i].i = i;
    stint_xqsort(o, n, sizeof *o, by_p_cmp);
    /* from the smallest p up: q of rank k (1-based) is the largest
     * (n - j + 1) * p of the ranks j <= k, capped at 1 (each p[i] is read
     * once, before q[i] is written: p may be q) */
    double run = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = o[k].i;
        double v = (double)(n - k) * p[i];
        if (v > run)
            run = v;
        q[i] = run < 1 ? run : 1;
    }
    free(o);
    return 0;
}
