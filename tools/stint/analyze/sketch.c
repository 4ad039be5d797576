/* SPDX-License-Identifier: MIT */
/*
 * sketch.c - the log-bucketed quantile sketch and its sliding window
 * (sketch.h).
 *
 * Invariants: cnt[0 .. len) counts the buckets lo .. lo + len - 1, and the
 * counts of every bucket plus zeros add up to count; len <= cap <=
 * STINT_SKETCH_MAX_BUCKETS; a window's ring entry i holds slice slice_k[i]
 * (or none, INT64_MIN), and slice_k[i] mod slices == i.
 */
#include "analyze/sketch.h"

#include "base/tsparse.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ln(gamma), gamma = (1 + a) / (1 - a). */
static double log_gamma(void)
{
    static double lg;
    if (lg == 0)
        lg = log((1 + STINT_SKETCH_REL_ERR) / (1 - STINT_SKETCH_REL_ERR));
    return lg;
}

/* The bucket of v >= 1. */
static int32_t bucket_of(int64_t v)
{
    double i = ceil(log((double)v) / log_gamma());
    if (i < 0)
        i = 0;
    if (i > STINT_SKETCH_MAX_BUCKETS - 1)
        i = STINT_SKETCH_MAX_BUCKETS - 1;
    return (int32_t)i;
}

/* The value a bucket answers with: the middle of (gamma^(i-1), gamma^i] in
 * relative terms. */
static int64_t bucket_value(int32_t i)
{
    double g = exp(log_gamma());
    double v = 2 * exp(log_gamma() * i) / (g + 1);
    if (v >= 9.2e18)
        return INT64_MAX;
    return (int64_t)llround(v);
}

/* Makes room so that buckets lo_new .. hi_new (inclusive) are in cnt. */
static void cover(struct stint_sketch *s, int32_t lo_new, int32_t hi_new)
{
    if (s->len) {
        if (s->lo < lo_new)
            lo_new = s->lo;
        if (s->lo + (int32_t)s->len - 1 > hi_new)
            hi_new = s->lo + (int32_t)s->len - 1;
    }
    uint32_t need = (uint32_t)(hi_new - lo_new + 1);
    if (need > s->cap) {
        uint32_t cap = s->cap ? s->cap : 16;
        while (cap < need)
            cap *= 2;
        if (cap > STINT_SKETCH_MAX_BUCKETS)
            cap = STINT_SKETCH_MAX_BUCKETS;
        s->cnt = stint_xreallocarray(s->cnt, cap, sizeof *s->cnt);
        s->cap = cap;
    }
    if (!s->len) {
        memset(s->cnt, 0, need * sizeof *s->cnt);
    } else {
        uint32_t shift = (uint32_t)(s->lo - lo_new);
        if (shift)
            memmove(s->cnt + shift, s->cnt, s->len * sizeof *s->cnt);
        memset(s->cnt, 0, shift * sizeof *s->cnt);
        memset(s->cnt + shift + s->len, 0, (need - shift - s->len) * sizeof *s->cnt);
    }
    s->lo = lo_new;
    s->len = need;
}

/* Counts n values of bucket i (a count saturates at UINT32_MAX: past 4e9
 * values in one bucket of one slice the quantile leans toward the others). */
static void bump(struct stint_sketch *s, int32_t i, uint64_t n)
{
    if (!s->len || i < s->lo || i >= s->lo + (int32_t)s->len)
        cover(s, i, i);
    uint32_t *c = &s->cnt[i - s->lo];
    *c = (uint64_t)*c + n > UINT32_MAX ? UINT32_MAX : (uint32_t)(*c + n);
}

int32_t stint_sketch_bucket(int64_t v)
{
    return v <= 0 ? -1 : bucket_of(v);
}

void stint_sketch_add(struct stint_sketch *s, int64_t v)
{
    stint_sketch_add_at(s, v, stint_sketch_bucket(v));
}

void stint_sketch_add_at(struct stint_sketch *s, int64_t v, int32_t bucket)
{
    if (!s->count || v < s->min)
        s->min = v;
    if (!s->count || v > s->max)
        s->max = v;
    s->count++;
    s->sum = stint_sum_add(s->sum, v);
    if (v <= 0)
        s->zeros++;
    else
        bump(s, bucket, 1);
}

void stint_sketch_merge(struct stint_sketch *dst, const struct stint_sketch *src)
{
    if (!src->count)
        return;
    if (!dst->count || src->min < dst->min)
        dst->min = src->min;
    if (!dst->count || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->zeros += src->zeros;
    dst->sum = stint_sum_add(dst->sum, src->sum);
    if (!src->len)
        return;
    cover(dst, src->lo, src->lo + (int32_t)src->len - 1);
    uint32_t off = (uint32_t)(src->lo - dst->lo);
    for (uint32_t i = 0; i < src->len; i++) {
        uint64_t c = (uint64_t)dst->cnt[off + i] + src->cnt[i];
        dst->cnt[off + i] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    }
}

int64_t stint_sketch_quantile(const struct stint_sketch *s, double q)
{
    if (!s->count)
        return 0;
    if (q <= 0)
        return s->min;
    if (q >= 1)
        return s->max;
    uint64_t rank = (uint64_t)(q * (double)(s->count - 1));
    int64_t v = 0;
    if (rank >= s->zeros) {
        uint64_t seen = s->zeros;
        v = s->max;
        for (uint32_t i = 0; i < s->len; i++) {
            seen += s->cnt[i];
            if (seen > rank) {
                v = bucket_value(s->lo + (int32_t)i);
                break;
            }
        }
    }
    if (v < s->min)
        v = s->min;
    if (v > s->max)
        v = s->max;
    return v;
}

void stint_sketch_clear(struct stint_sketch *s)
{
    s->count = s->zeros = 0;
    s->sum = s->min = s->max = 0;
    s->lo = 0;
    s->len = 0;
}

void stint_sketch_free(struct stint_sketch *s)
{
    free(s->cnt);
    s->cnt = NULL;
    s->cap = 0;
    stint_sketch_clear(s);
}

size_t stint_sketch_bytes(const struct stint_sketch *s)
{
    return (size_t)s->cap * sizeof *s->cnt;
}

/* ---- the sliding window ------------------------------------------------- */

void stint_sketch_window_init(struct stint_sketch_window *w, unsigned slices, int64_t slice_ns)
{
    w->slices = slices ? slices : 1;
    w->slice_ns = slice_ns > 0 ? slice_ns : 1;
    w->slice_k = stint_xmalloc(w->slices * sizeof *w->slice_k);
    w->s = stint_xcalloc(w->slices, sizeof *w->s);
    for (unsigned i = 0; i < w->slices; i++)
        w->slice_k[i] = INT64_MIN;
}

int64_t stint_sketch_slice_of(const struct stint_sketch_window *w, int64_t t)
{
    int64_t k = t / w->slice_ns;
    if (t % w->slice_ns < 0)
        k--;
    return k;
}

/* The ring entry of slice k. */
static unsigned ring_of(const struct stint_sketch_window *w, int64_t k)
{
    int64_t r = k % (int64_t)w->slices;
    return (unsigned)(r < 0 ? r + w->slices : r);
}

int stint_sketch_window_add(struct stint_sketch_window *w, int64_t now_k, int64_t t, int64_t v)
{
    return stint_sketch_window_add_at(w, now_k, t, v, stint_sketch_bucket(v));
}

int stint_sketch_window_add_at(struct stint_sketch_window *w, int64_t now_k, int64_t t, int64_t v, int32_t bucket)
{
    int64_t k = stint_sketch_slice_of(w, t);
    if (k > now_k || k <= now_k - (int64_t)w->slices)
        return 0;
    unsigned i = ring_of(w, k);
    if (w->slice_k[i] != k) { /* the slice is reused: its buckets go (the new one grows as it needs) */
        stint_sketch_free(&w->s[i]);
        w->slice_k[i] = k;
    }
    stint_sketch_add_at(&w->s[i], v, bucket);
    return 1;
}

void stint_sketch_window_merge(const struct stint_sketch_window *w, int64_t now_k, struct stint_sketch *out)
{
    for (unsigned i = 0; i < w->slices; i++) {
        int64_t k = w->slice_k[i];
        if (k != INT64_MIN && k <= now_k && k > now_k - (int64_t)w->slices)
            stint_sketch_merge(out, &w->s[i]);
    }
}

void stint_sketch_window_free(struct stint_sketch_window *w)
{
    if (!w->s)
        return;
    for (unsigned i = 0; i < w->slices; i++)
        stint_sketch_free(&w->s[i]);
    free(w->s);
    free(w->slice_k);
    w->s = NULL;
    w->slice_k = NULL;
}

size_t stint_sketch_window_bytes(const struct stint_sketch_window *w)
{
    size_t b = w->slices * (sizeof *w->s + sizeof *w->slice_k);
    for (unsigned i = 0; i < w->slices; i++)
        b += stint_sketch_bytes(&w->s[i]);
    return b;
}
