/*
 * intervals.c - interval union, merge and overlap counting.
 *
 * The sort is an in-place introsort-style quicksort on the 16-byte records
 * with an inlined comparison (several times faster than qsort on millions of
 * records), falling back to insertion sort on short runs; already-sorted
 * input is detected first and costs one pass.
 */
#include "intervals.h"

#include <stdlib.h>

static inline int iv_less(const struct stint_interval *a, const struct stint_interval *b)
{
    return a->start < b->start || (a->start == b->start && a->end < b->end);
}

static void insertion(struct stint_interval *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct stint_interval x = v[i];
        size_t j = i;
        while (j > 0 && iv_less(&x, &v[j - 1])) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static void heapify(struct stint_interval *v, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && iv_less(&v[m], &v[l]))
            m = l;
        if (r < n && iv_less(&v[m], &v[r]))
            m = r;
        if (m == i)
            return;
        struct stint_interval t = v[i];
        v[i] = v[m];
        v[m] = t;
        i = m;
    }
}

static void heapsort_iv(struct stint_interval *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        heapify(v, n, i);
    for (size_t i = n; i-- > 1;) {
        struct stint_interval t = v[0];
        v[0] = v[i];
        v[i] = t;
        heapify(v, i, 0);
    }
}

static void quick(struct stint_interval *v, size_t n, int budget)
{
    while (n > 24) {
        if (budget-- == 0) {
            heapsort_iv(v, n);
            return;
        }
        /* median of three as pivot */
        size_t mid = n / 2;
        struct stint_interval *a = &v[0], *b = &v[mid], *c = &v[n - 1];
        struct stint_interval p;
        if (iv_less(a, b))
            p = iv_less(b, c) ? *b : (iv_less(a, c) ? *c : *a);
        else
            p = iv_less(a, c) ? *a : (iv_less(b, c) ? *c : *b);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (iv_less(&v[i], &p))
                i++;
            while (iv_less(&p, &v[j]))
                j--;
            if (i >= j)
                break;
            struct stint_interval t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* recurse into the smaller side */
        size_t left = j + 1;
        if (left < n - left) {
            quick(v, left, budget);
            v += left;
            n -= left;
        } else {
            quick(v + left, n - left, budget);
            n = left;
        }
    }
    insertion(v, n);
}

void stint_intervals_sort(struct stint_interval *iv, size_t n)
{
    size_t i = 1;
    while (i < n && !iv_less(&iv[i], &iv[i - 1]))
        i++;
    if (i >= n)
        return;
    int budget = 2;
    for (size_t k = n; k; k >>= 1)
        budget += 2;
    quick(iv, n, budget);
}

size_t stint_intervals_merge(struct stint_interval *iv, size_t n, int64_t epsilon)
{
    if (n == 0)
        return 0;
    stint_intervals_sort(iv, n);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (iv[i].start <= iv[k].end + epsilon) {
            if (iv[i].end > iv[k].end)
                iv[k].end = iv[i].end;
        } else
            iv[++k] = iv[i];
    }
    return k + 1;
}

int64_t stint_intervals_union_sorted(const struct stint_interval *iv, size_t n)
{
    struct stint_union_acc a;
    stint_union_acc_init(&a);
    for (size_t i = 0; i < n; i++)
        stint_union_acc_add(&a, iv[i].start, iv[i].end);
    return stint_union_acc_total(&a);
}

int64_t stint_intervals_union(struct stint_interval *iv, size_t n)
{
    stint_intervals_sort(iv, n);
    return stint_intervals_union_sorted(iv, n);
}

void stint_union_acc_init(struct stint_union_acc *a)
{
    a->cur_start = a->cur_end = 0;
    a->total = 0;
    a->open = 0;
}

void stint_union_acc_add(struct stint_union_acc *a, int64_t start, int64_t end)
{
    if (!a->open) {
        a->cur_start = start;
        a->cur_end = end;
        a->open = 1;
        return;
    }
    if (start <= a->cur_end) {
        if (end > a->cur_end)
            a->cur_end = end;
        return;
    }
    a->total += a->cur_end - a->cur_start;
    a->cur_start = start;
    a->cur_end = end;
}

int64_t stint_union_acc_total(const struct stint_union_acc *a)
{
    return a->total + (a->open ? a->cur_end - a->cur_start : 0);
}

struct ev {
    int64_t ts;
    int64_t delta;
};

static int ev_cmp(const void *pa, const void *pb)
{
    const struct ev *a = pa, *b = pb;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

size_t stint_intervals_overlap_count(const int64_t *ts, const int64_t *dur, size_t n, struct stint_step *out)
{
    struct ev *e = malloc((2 * n + 1) * sizeof *e);
    if (!e)
        return (size_t)-1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        e[m].ts = ts[i];
        e[m++].delta = 1;
        if (dur[i] >= 0) {
            e[m].ts = ts[i] + dur[i];
            e[m++].delta = -1;
        }
    }
    qsort(e, m, sizeof *e, ev_cmp);
    size_t k = 0;
    int64_t v = 0;
    for (size_t i = 0; i < m;) {
        int64_t t = e[i].ts;
        while (i < m && e[i].ts == t)
            v += e[i++].delta;
        out[k].ts = t;
        out[k++].value = v;
    }
    free(e);
    return k;
}
