/* SPDX-License-Identifier: MIT */
/*
 * intervals.c - interval union, merge and overlap counting, and the sorts
 * and selections behind them (intervals.h).
 *
 * The sort is an in-place introsort-style quicksort on the 16-byte records
 * with an inlined comparison (several times faster than qsort on millions of
 * records), falling back to insertion sort on short runs; already-sorted
 * input is detected first and costs one pass. Invariants: every union is
 * exact int64 arithmetic over half-open intervals; nothing here keeps state
 * between calls, and the only allocations are the documented scratch arrays,
 * whose failure is reported to the caller, never fatal.
 */
#include "base/intervals.h"
#include "base/cmp.h"
#include "base/tsparse.h"

#include <stdlib.h>
#include <string.h>

static inline int iv_less(const struct stint_interval *a, const struct stint_interval *b)
{
    return a->start < b->start || (a->start == b->start && a->end < b->end);
}

static inline int i64_less(const int64_t *a, const int64_t *b) { return *a < *b; }
static inline int u32_less(const uint32_t *a, const uint32_t *b) { return *a < *b; }

/* An in-place introsort (median-of-3 quicksort, heapsort when the depth
 * budget runs out, insertion sort on short runs), instantiated per type so
 * the comparison inlines. */
#define STINT_DEFINE_SORT(NAME, T, LESS)                                                           \
    /* Hoare's partition of v[0..n) around p (a value of v): returns j with                        \
     * v[0..j] <= p <= v[j+1..n). */                                                               \
    static inline size_t NAME##_partition(T *v, size_t n, T p)                                     \
    {                                                                                              \
        size_t i = 0, j = n - 1;                                                                   \
        for (;;) {                                                                                 \
            while (LESS(&v[i], &p))                                                                \
                i++;                                                                               \
            while (LESS(&p, &v[j]))                                                                \
                j--;                                                                               \
            if (i >= j)                                                                            \
                return j;                                                                          \
            T t = v[i];                                                                            \
            v[i] = v[j];                                                                           \
            v[j] = t;                                                                              \
            i++;                                                                                   \
            j--;                                                                                   \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_insertion(T *v, size_t n)                                                   \
    {                                                                                              \
        for (size_t i = 1; i < n; i++) {                                                           \
            T x = v[i];                                                                            \
            size_t j = i;                                                                          \
            while (j > 0 && LESS(&x, &v[j - 1])) {                                                 \
                v[j] = v[j - 1];                                                                   \
                j--;                                                                               \
            }                                                                                      \
            v[j] = x;                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_heapify(T *v, size_t n, size_t i)                                           \
    {                                                                                              \
        for (;;) {                                                                                 \
            size_t l = 2 * i + 1, r = l + 1, m = i;                                                \
            if (l < n && LESS(&v[m], &v[l]))                                                       \
                m = l;                                                                             \
            if (r < n && LESS(&v[m], &v[r]))                                                       \
                m = r;                                                                             \
            if (m == i)                                                                            \
                return;                                                                            \
            T t = v[i];                                                                            \
            v[i] = v[m];                                                                           \
            v[m] = t;                                                                              \
            i = m;                                                                                 \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_heapsort(T *v, size_t n)                                                    \
    {                                                                                              \
        for (size_t i = n / 2; i-- > 0;)                                                           \
            NAME##_heapify(v, n, i);                                                               \
        for (size_t i = n; i-- > 1;) {                                                             \
            T t = v[0];                                                                            \
            v[0] = v[i];                                                                           \
            v[i] = t;                                                                              \
            NAME##_heapify(v, i, 0);                                                               \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_quick(T *v, size_t n, int budget)                                           \
    {                                                                                              \
        while (n > 24) {                                                                           \
            if (budget-- == 0) {                                                                   \
                NAME##_heapsort(v, n);                                                             \
                return;                                                                            \
            }                                                                                      \
            size_t mid = n / 2;                                                                    \
            T *a = &v[0], *b = &v[mid], *c = &v[n - 1];                                            \
            T p;                                                                                   \
            if (LESS(a, b))                                                                        \
                p = LESS(b, c) ? *b : (LESS(a, c) ? *c : *a);                                      \
            else                                                                                   \
                p = LESS(a, c) ? *a : (LESS(b, c) ? *c : *b);                                      \
            size_t left = NAME##_partition(v, n, p) + 1;                                           \
            if (left < n - left) {                                                                 \
                NAME##_quick(v, left, budget);                                                     \
                v += left;                                                                         \
                n -= left;                                                                         \
            } else {                                                                               \
                NAME##_quick(v + left, n - left, budget);                                          \
                n = left;                                                                          \
            }                                                                                      \
        }                                                                                          \
        NAME##_insertion(v, n);                                                                    \
    }                                                                                              \
    static void NAME(T *v, size_t n)                                                               \
    {                                                                                              \
        size_t i = 1;                                                                              \
        while (i < n && !LESS(&v[i], &v[i - 1]))                                                   \
            i++;                                                                                   \
        if (i >= n)                                                                                \
            return;                                                                                \
        int budget = 2;                                                                            \
        for (size_t k = n; k; k >>= 1)                                                             \
            budget += 2;                                                                           \
        NAME##_quick(v, n, budget);                                                                \
    }

STINT_DEFINE_SORT(sort_iv, struct stint_interval, iv_less)
STINT_DEFINE_SORT(sort_i64, int64_t, i64_less)

void stint_intervals_sort(struct stint_interval *iv, size_t n) { sort_iv(iv, n); }

void stint_sort_i64(int64_t *v, size_t n) { sort_i64(v, n); }

/* Quickselect (see intervals.h) for one element type; after a run of bad
 * pivots the rest is sorted, which bounds the work. */
#define STINT_DEFINE_SELECT(NAME, T, SORT)                                                         \
    void NAME(T *v, size_t n, size_t k)                                                            \
    {                                                                                              \
        if (k >= n)                                                                                \
            return;                                                                                \
        size_t lo = 0, hi = n; /* v[k] is in [lo, hi) */                                           \
        int budget = 2;                                                                            \
        for (size_t x = n; x; x >>= 1)                                                             \
            budget += 2;                                                                           \
        while (hi - lo > 24) {                                                                     \
            if (budget-- == 0)                                                                     \
                break;                                                                             \
            T *w = v + lo;                                                                         \
            size_t m = hi - lo, mid = m / 2;                                                       \
            T a = w[0], b = w[mid], c = w[m - 1];                                                  \
            T p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));           \
            size_t j = SORT##_partition(w, m, p); /* w[0..j] <= p <= w[j+1..m) */                  \
            if (k - lo <= j)                                                                       \
                hi = lo + j + 1;                                                                   \
            else                                                                                   \
                lo += j + 1;                                                                       \
        }                                                                                          \
        SORT(v + lo, hi - lo);                                                                     \
    }

STINT_DEFINE_SORT(sort_u32, uint32_t, u32_less)
STINT_DEFINE_SELECT(stint_select_i64, int64_t, sort_i64)
STINT_DEFINE_SELECT(stint_select_u32, uint32_t, sort_u32)

/* The log-linear key of v: v itself below 64, else 64 per leading-bit
 * position from 7 on plus the six bits below the leading one. Monotone:
 * a < b gives key(a) <= key(b); 1728 keys in all. */
#define RANK_KEYS 1728
static inline uint32_t rank_key(uint32_t v)
{
    if (v < 64)
        return v;
    unsigned len = 32 - (unsigned)__builtin_clz(v); /* 7..32 */
    return (len - 6) * 64 + ((v >> (len - 7)) & 63);
}

/* Below this many values the chained quickselects win (no histogram to clear). */
#define RANK_HIST_MIN 512

int stint_select_ranks_u32_runs(const struct stint_u32_run *runs, size_t nruns, const size_t *ranks, size_t nr,
                                uint32_t *out)
{
    if (!nr)
        return 0;
    size_t n = 0;
    for (size_t k = 0; k < nruns; k++)
        n += runs[k].n;
    if (n < RANK_HIST_MIN || nr > 8) {
        /* from the highest rank down: each selection leaves the lower ranks in
         * front; in place in a single run, else in a copy of all the values */
        uint32_t *v = nruns == 1 ? runs[0].v : malloc((n ? n : 1) * sizeof *v);
        if (!v)
            return -1;
        if (nruns != 1)
            for (size_t k = 0, at = 0; k < nruns; at += runs[k++].n)
                memcpy(v + at, runs[k].v, runs[k].n * sizeof *v);
        size_t upto = n;
        for (size_t i = nr; i-- > 0;) {
            stint_select_u32(v, upto, ranks[i]);
            out[i] = v[ranks[i]];
            upto = ranks[i] + 1;
        }
        if (nruns != 1)
            free(v);
        return 0;
    }
    uint32_t hist[RANK_KEYS];
    memset(hist, 0, sizeof hist);
    for (size_t k = 0; k < nruns; k++)
        for (size_t i = 0; i < runs[k].n; i++)
            hist[rank_key(runs[k].v[i])]++;
    /* each rank's bucket and its rank inside the bucket; buckets come out ascending */
    uint32_t within[8], ub[8], ucount[8], slot[8];
    size_t nu = 0, below = 0, key = 0;
    for (size_t i = 0; i < nr; i++) {
        while (below + hist[key] <= ranks[i])
            below += hist[key++];
        within[i] = (uint32_t)(ranks[i] - below);
        if (!nu || ub[nu - 1] != key) {
            ub[nu] = (uint32_t)key;
            ucount[nu++] = hist[key];
        }
        slot[i] = (uint32_t)(nu - 1);
    }
    size_t total = 0, off[8];
    for (size_t u = 0; u < nu; u++) {
        off[u] = total;
        total += ucount[u];
    }
    uint32_t *g = malloc(total * sizeof *g);
    if (!g)
        return -1;
    /* gather: which of the (at most eight) buckets a key is, through a small map */
    uint8_t which[RANK_KEYS];
    memset(which, 0xff, sizeof which);
    for (size_t u = 0; u < nu; u++)
        which[ub[u]] = (uint8_t)u;
    size_t fill[8];
    memcpy(fill, off, sizeof fill);
    for (size_t k = 0; k < nruns; k++)
        for (size_t i = 0; i < runs[k].n; i++) {
            uint32_t x = runs[k].v[i];
            uint8_t w = which[rank_key(x)];
            if (w != 0xff)
                g[fill[w]++] = x;
        }
    for (size_t i = nr; i-- > 0;) {
        uint32_t *b = g + off[slot[i]];
        size_t bn = ucount[slot[i]];
        /* a higher rank in the same bucket already put this one's values in front */
        size_t upto = bn;
        if (i + 1 < nr && slot[i + 1] == slot[i])
            upto = within[i + 1] + 1;
        stint_select_u32(b, upto, within[i]);
        out[i] = b[within[i]];
    }
    free(g);
    return 0;
}


struct weighted {
    size_t w;
    uint32_t i;
};

static int heavier_first(const void *pa, const void *pb)
{
    const struct weighted *a = pa, *b = pb;
    int c = stint_cmp_u64(b->w, a->w);
    return c ? c : stint_cmp_u32(a->i, b->i);
}

int stint_order_heaviest(const size_t *w, size_t n, uint32_t *order)
{
    struct weighted *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return -1;
    for (size_t i = 0; i < n; i++)
        x[i] = (struct weighted){w[i], (uint32_t)i};
    stint_xqsort(x, n, sizeof *x, heavier_first);
    for (size_t i = 0; i < n; i++)
        order[i] = x[i].i;
    free(x);
    return 0;
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

/* A min-heap of int64 (the ends of the intervals covering the sweep's point). */
static void heap_push(int64_t *h, size_t *n, int64_t v)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p] <= h[i])
            break;
        int64_t t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static void heap_pop(int64_t *h, size_t *n)
{
    h[0] = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l] < h[m])
            m = l;
        if (r < *n && h[r] < h[m])
            m = r;
        if (m == i)
            break;
        int64_t t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
}

/* The union of sorted iv[0..n), empty and inverted intervals skipped, the
 * sum saturating (stint_intervals_union_overlap without its scratch). */
static int64_t union_nonempty_sorted(const struct stint_interval *iv, size_t n)
{
    int64_t total = 0, l = 0, r = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (iv[i].end <= iv[i].start)
            continue;
        if (iv[i].start > r) {
            if (r > l)
                total = stint_sum_add(total, r - l);
            l = iv[i].start;
            r = iv[i].end;
        } else if (iv[i].end > r)
            r = iv[i].end;
    }
    return stint_sum_add(total, r > l ? r - l : 0);
}

/* A sweep over the starts in order with a min-heap of the ends of the
 * intervals that cover the current point: covered by one when the heap is
 * non-empty, by two or more when it holds two or more. */
int64_t stint_intervals_union_overlap(struct stint_interval *iv, size_t n, int64_t *overlap_ns)
{
    *overlap_ns = 0;
    if (n == 0)
        return 0;
    stint_intervals_sort(iv, n);
    int64_t *h = malloc(n * sizeof *h);
    if (!h)
        return union_nonempty_sorted(iv, n);
    size_t hn = 0, i = 0;
    int64_t uni = 0, ov = 0, t = INT64_MIN;
    for (;;) {
        /* next event: the earliest pending end, or the next start */
        int64_t next_start = INT64_MAX;
        while (i < n && iv[i].end <= iv[i].start)
            i++;
        if (i < n)
            next_start = iv[i].start;
        if (hn == 0 && i >= n)
            break;
        int64_t next = hn && h[0] <= next_start ? h[0] : next_start;
        if (hn >= 1 && t != INT64_MIN)
            uni = stint_sum_add(uni, next - t);
        if (hn >= 2 && t != INT64_MIN)
            ov = stint_sum_add(ov, next - t);
        t = next;
        if (hn && h[0] <= next_start)
            heap_pop(h, &hn);
        else
            heap_push(h, &hn, iv[i++].end);
    }
    free(h);
    *overlap_ns = ov;
    return uni;
}

struct ev {
    int64_t ts;
    int64_t delta;
};

static int ev_cmp(const void *pa, const void *pb)
{
    return stint_cmp_i64(((const struct ev *)pa)->ts, ((const struct ev *)pb)->ts);
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
    stint_xqsort(e, m, sizeof *e, ev_cmp);
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

/* A run's cursor in stint_intervals_union_packed: its next slot and the
 * start of the interval before it. */
struct pk_cur {
    size_t at, end;
    int64_t prev;
};

/* Decodes the interval at c (c->at < c->end) into *s, *e and moves c past it. */
static inline void pk_next(const uint64_t *const *blocks, unsigned shift, struct pk_cur *c, int64_t *s, int64_t *e)
{
    const size_t mask = ((size_t)1 << shift) - 1;
#define SLOT(i) (blocks[(i) >> shift][(i) & mask])
    uint64_t v = SLOT(c->at);
    if ((v >> 32) == STINT_PACK_ESC) {
        *s = (int64_t)SLOT(c->at + 1);
        *e = (int64_t)SLOT(c->at + 2);
        c->at += 3;
    } else {
        *s = (int64_t)((uint64_t)c->prev + (v >> 32));
        *e = (int64_t)((uint64_t)*s + (v & UINT32_MAX));
        c->at++;
    }
#undef SLOT
    c->prev = *s;
}

int64_t stint_intervals_union_packed(const uint64_t *const *blocks, unsigned shift, size_t n, const size_t *starts,
                                     size_t nruns)
{
    if (!nruns)
        return 0;
    /* a binary min-heap of the runs' next intervals, keyed by start; each
     * node holds its interval, so comparisons touch the heap only */
    struct node {
        int64_t start, end;
        size_t run;
    };
    struct pk_cur *cur = malloc(nruns * sizeof *cur);
    struct node *heap = malloc(nruns * sizeof *heap);
    if (!cur || !heap) {
        free(cur), free(heap);
        return -1;
    }
    size_t hn = 0;
    for (size_t r = 0; r < nruns; r++) {
        cur[r] = (struct pk_cur){starts[r], r + 1 < nruns ? starts[r + 1] : n, 0};
        if (cur[r].at >= cur[r].end)
            continue;
        struct node x = {0, 0, r};
        pk_next(blocks, shift, &cur[r], &x.start, &x.end);
        size_t c = hn++;
        while (c && heap[(c - 1) / 2].start > x.start) { /* sift up */
            heap[c] = heap[(c - 1) / 2];
            c = (c - 1) / 2;
        }
        heap[c] = x;
    }
    struct stint_union_acc acc;
    stint_union_acc_init(&acc);
    while (hn) {
        struct node x = heap[0];
        stint_union_acc_add(&acc, x.start, x.end);
        /* the run's next intervals that start no later than every other run's
         * next one go straight in (often: a run's intervals come in stretches
         * that no other run's interleave; on equal starts the order does not
         * change the union) */
        int64_t lim = INT64_MAX;
        if (hn > 1)
            lim = hn > 2 && heap[2].start < heap[1].start ? heap[2].start : heap[1].start;
        struct pk_cur *c = &cur[x.run];
        int more = 0;
        while (c->at < c->end) {
            pk_next(blocks, shift, c, &x.start, &x.end);
            if (x.start > lim) {
                more = 1; /* the run's next interval replaces the top */
                break;
            }
            stint_union_acc_add(&acc, x.start, x.end);
        }
        if (!more)
            x = heap[--hn];
        size_t k = 0;
        for (;;) { /* sift x down from the top */
            size_t l = 2 * k + 1, b = l;
            if (l >= hn)
                break;
            if (l + 1 < hn && heap[l + 1].start < heap[l].start)
                b = l + 1;
            if (heap[b].start >= x.start)
                break;
            heap[k] = heap[b];
            k = b;
        }
        if (hn)
            heap[k] = x;
    }
    free(cur), free(heap);
    return stint_union_acc_total(&acc);
}
