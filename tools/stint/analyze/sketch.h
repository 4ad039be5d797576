/* SPDX-License-Identifier: MIT */
/*
 * sketch.h - a mergeable quantile sketch of int64 nanosecond durations in
 * bounded memory, and a sliding window of them cut into time slices.
 *
 * The sketch is a log-bucketed histogram (the DDSketch construction): a value
 * v >= 1 falls in bucket i = ceil(log(v) / log(gamma)), gamma = (1 + a) /
 * (1 - a) with a = STINT_SKETCH_REL_ERR, and a quantile is answered with the
 * bucket's value 2 gamma^i / (gamma + 1): within a relative error a of the
 * exact order statistic of the same rank (rank q * (count - 1), rounded
 * down), and clamped to the exact [min, max]. Values <= 0 have a bucket of
 * their own (answered as 0). count, sum, min and max are exact.
 *
 * Memory: the buckets a sketch has seen, kept as one contiguous run between
 * its lowest and highest index; every int64 up to 2^62 ns falls in one of
 * fewer than STINT_SKETCH_MAX_BUCKETS buckets, so a sketch never holds more
 * than that many counts, however many values it took. Two sketches merge by
 * adding counts bucket by bucket (the result is the sketch of both inputs).
 *
 * The window keeps `slices` sketches, one per slice of slice_ns of the time
 * axis (slice k holds the values whose time t has floor(t / slice_ns) == k);
 * the window at time now is the `slices` newest slices up to now's. A slice
 * that falls out is emptied (its buckets freed) when its ring entry is taken
 * by a new slice: memory follows what the window holds, never the run time.
 *
 * Thread safety: none; one owner.
 */
#ifndef STINT_CLI_SKETCH_H
#define STINT_CLI_SKETCH_H

#include <stddef.h>
#include <stdint.h>

/* The relative error of a quantile (1%). */
#define STINT_SKETCH_REL_ERR 0.01
/* Buckets of values in [1, 2^62]: ceil(62 ln 2 / ln gamma) + 1. */
#define STINT_SKETCH_MAX_BUCKETS 2200

struct stint_sketch {
    uint64_t count;    /* values taken (the zero bucket included) */
    uint64_t zeros;    /* values <= 0 */
    int64_t sum;       /* exact sum, saturated at the int64 ends */
    int64_t min, max;  /* exact; meaningless while count is 0 */
    int32_t lo;        /* index of cnt[0] */
    uint32_t len;      /* buckets in use: lo .. lo + len - 1 */
    uint32_t cap;      /* cnt's room */
    uint32_t *cnt;     /* owned */
};

/* An empty sketch (no memory until the first value). */
#define STINT_SKETCH_INIT {0, 0, 0, 0, 0, 0, 0, 0, NULL}

/* Adds one value. Out of memory exits (base/xalloc.h). */
void stint_sketch_add(struct stint_sketch *s, int64_t v);

/* The bucket of v (values <= 0: -1), and stint_sketch_add given it: for a
 * value added to several sketches, the logarithm is taken once. */
int32_t stint_sketch_bucket(int64_t v);
void stint_sketch_add_at(struct stint_sketch *s, int64_t v, int32_t bucket);

/* Adds every value of src to dst (src unchanged). */
void stint_sketch_merge(struct stint_sketch *dst, const struct stint_sketch *src);

/* The q-quantile (0 <= q <= 1) within STINT_SKETCH_REL_ERR, clamped to
 * [min, max]; 0 when the sketch is empty. q 0 gives min, q 1 max. */
int64_t stint_sketch_quantile(const struct stint_sketch *s, double q);

/* Empties the sketch, keeping its memory for reuse. */
void stint_sketch_clear(struct stint_sketch *s);

/* Frees the sketch's memory (it is then empty). */
void stint_sketch_free(struct stint_sketch *s);

/* Bytes the sketch holds on the heap. */
size_t stint_sketch_bytes(const struct stint_sketch *s);

/* ---- the sliding window ------------------------------------------------- */

struct stint_sketch_window {
    unsigned slices;        /* sketches in the ring */
    int64_t slice_ns;       /* each one's width */
    int64_t *slice_k;       /* the slice number each ring entry holds (INT64_MIN: none) */
    struct stint_sketch *s; /* the ring */
};

/* Sets up a window of `slices` (>= 1) slices of slice_ns (>= 1) each. */
void stint_sketch_window_init(struct stint_sketch_window *w, unsigned slices, int64_t slice_ns);

/* The slice number of time t (floor division). */
int64_t stint_sketch_slice_of(const struct stint_sketch_window *w, int64_t t);

/* Adds value v at time t, when t's slice is inside the window that ends at
 * now_k (the newest slice number: now's); returns 1 when added, 0 when t is
 * older than the window (or newer than now_k: the caller moves now first). */
int stint_sketch_window_add(struct stint_sketch_window *w, int64_t now_k, int64_t t, int64_t v);
/* The same, with v's bucket (stint_sketch_bucket). */
int stint_sketch_window_add_at(struct stint_sketch_window *w, int64_t now_k, int64_t t, int64_t v, int32_t bucket);

/* Merges the slices inside the window ending at slice now_k into out (which
 * the caller has cleared or not, as it likes). */
void stint_sketch_window_merge(const struct stint_sketch_window *w, int64_t now_k, struct stint_sketch *out);

/* Frees the ring. */
void stint_sketch_window_free(struct stint_sketch_window *w);

/* Bytes the window holds on the heap (its sketches included). */
size_t stint_sketch_window_bytes(const struct stint_sketch_window *w);

#endif
