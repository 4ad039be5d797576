/* SPDX-License-Identifier: MIT */
/*
 * test_sketch.c - the quantile sketch against exact order statistics of the
 * same values (sorted copies, the oracle), its merge, its bounded memory, and
 * the sliding window's slices coming and going.
 */
#include "check.h"
#include "analyze/sketch.h"

#include <math.h>
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The exact value of rank floor(q * (n - 1)) of sorted v. */
static int64_t exact(const int64_t *v, size_t n, double q)
{
    return v[(size_t)(q * (double)(n - 1))];
}

/* |est - want| <= a * want (+1 ns for rounding of the bucket's value). */
static int close_enough(int64_t est, int64_t want)
{
    double d = (double)est - (double)want;
    if (d < 0)
        d = -d;
    return d <= STINT_SKETCH_REL_ERR * (double)want + 1;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void quantiles_against_sorted(void)
{
    enum { N = 20000 };
    static int64_t v[N];
    struct stint_sketch s = STINT_SKETCH_INIT, a = STINT_SKETCH_INIT, b = STINT_SKETCH_INIT;
    for (size_t i = 0; i < N; i++) {
        /* log-uniform over 100 ns .. 100 ms, plus a few exact zeros */
        double e = 2 + 6 * (double)(next() % 1000000) / 1e6;
        v[i] = i % 997 == 0 ? 0 : (int64_t)pow(10, e);
        stint_sketch_add(&s, v[i]);
        stint_sketch_add(i % 2 ? &a : &b, v[i]);
    }
    stint_sketch_merge(&a, &b);
    qsort(v, N, sizeof v[0], cmp_i64);
    const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        int64_t want = exact(v, N, qs[i]);
        CHECK(close_enough(stint_sketch_quantile(&s, qs[i]), want));
        /* the merge of two halves answers exactly as the whole */
        CHECK_EQ_I64(stint_sketch_quantile(&a, qs[i]), stint_sketch_quantile(&s, qs[i]));
    }
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0), v[0]);
    CHECK_EQ_I64(stint_sketch_quantile(&s, 1), v[N - 1]);
    CHECK_EQ_U64(s.count, N);
    CHECK_EQ_U64(a.count, N);
    CHECK_EQ_I64(a.sum, s.sum);
    CHECK_EQ_I64(a.max, s.max);
    stint_sketch_free(&s);
    stint_sketch_free(&a);
    stint_sketch_free(&b);
}

static void edges_and_memory(void)
{
    struct stint_sketch s = STINT_SKETCH_INIT;
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0.5), 0); /* empty */
    stint_sketch_add(&s, 1000);
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0.5), 1000); /* clamped to [min, max] */
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0.99), 1000);
    stint_sketch_add(&s, -5); /* the zero bucket */
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0), -5);
    CHECK_EQ_I64(s.sum, 995);
    /* every magnitude from 1 ns to 2^62 ns: memory stops at the bucket bound */
    for (int64_t x = 1; x > 0 && x <= ((int64_t)1 << 62); x = x + x / 64 + 1)
        stint_sketch_add(&s, x);
    stint_sketch_add(&s, ((int64_t)1 << 62));
    CHECK(s.len <= STINT_SKETCH_MAX_BUCKETS);
    CHECK(stint_sketch_bytes(&s) <= STINT_SKETCH_MAX_BUCKETS * sizeof(uint32_t));
    CHECK_EQ_I64(stint_sketch_quantile(&s, 1), (int64_t)1 << 62);
    size_t before = stint_sketch_bytes(&s);
    for (int r = 0; r < 100000; r++)
        stint_sketch_add(&s, (int64_t)(next() % 1000000000) + 1);
    CHECK_EQ_U64(stint_sketch_bytes(&s), before); /* no growth with the count */
    stint_sketch_clear(&s);
    CHECK_EQ_U64(s.count, 0);
    CHECK_EQ_I64(stint_sketch_quantile(&s, 0.5), 0);
    stint_sketch_free(&s);
}

static void window_slides(void)
{
    struct stint_sketch_window w;
    stint_sketch_window_init(&w, 3, 100); /* slices of 100 ns, 3 of them */
    CHECK_EQ_I64(stint_sketch_slice_of(&w, -1), -1);
    CHECK_EQ_I64(stint_sketch_slice_of(&w, 250), 2);
    CHECK_EQ_I64(stint_sketch_window_add(&w, 2, 250, 7), 1);
    CHECK_EQ_I64(stint_sketch_window_add(&w, 2, 50, 9), 1);   /* slice 0: still inside */
    CHECK_EQ_I64(stint_sketch_window_add(&w, 2, 350, 1), 0);  /* after now: refused */
    CHECK_EQ_I64(stint_sketch_window_add(&w, 3, 350, 11), 1); /* reuses slice 0's entry */
    CHECK_EQ_I64(stint_sketch_window_add(&w, 3, 50, 1), 0);   /* slice 0 has left */
    struct stint_sketch m = STINT_SKETCH_INIT;
    stint_sketch_window_merge(&w, 3, &m);
    CHECK_EQ_U64(m.count, 2);
    CHECK_EQ_I64(m.sum, 18);
    CHECK_EQ_I64(m.max, 11);
    stint_sketch_clear(&m);
    stint_sketch_window_merge(&w, 5, &m); /* only slice 3 is left of the window */
    CHECK_EQ_U64(m.count, 1);
    CHECK_EQ_I64(m.max, 11);
    stint_sketch_clear(&m);
    stint_sketch_window_merge(&w, 9, &m);
    CHECK_EQ_U64(m.count, 0);
    stint_sketch_free(&m);
    stint_sketch_window_free(&w);
}

int main(void)
{
    quantiles_against_sorted();
    edges_and_memory();
    window_slides();
    CHECK_DONE();
}
