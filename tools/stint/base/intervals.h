/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - union and overlap of half-open time intervals [start, end),
 * the one interval library of the CLI (the model, summary, tree and steps
 * all take their unions from here), and the sorts and selections they need.
 *
 * The rule everywhere in stint: intervals that overlap or touch (one starts
 * exactly where another ends) merge; a zero-length interval inside or at the
 * edge of another adds nothing; the union's length counts every covered
 * nanosecond once ("busy"), while a plain sum counts overlap repeatedly.
 * A worked example of the union: [0,10), [2,7), [8,12) have union 12 (the
 * first two merge, the third overlaps the first) and sum 19.
 */
#ifndef STINT_CLI_INTERVALS_H
#define STINT_CLI_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

struct stint_interval {
    int64_t start;
    int64_t end; /* >= start */
};

/* Sorts iv[0..n) by (start, end) in place (not stable; no allocation). */
void stint_intervals_sort(struct stint_interval *iv, size_t n);

/* Sorts v[0..n) ascending in place (no allocation). */
void stint_sort_i64(int64_t *v, size_t n);

/* Reorders v[0..n) in place so that v[k] is the value sorting would put
 * there, with nothing larger before it and nothing smaller after it
 * (quickselect; sorts the rest after a run of bad pivots). No allocation. */
void stint_select_i64(int64_t *v, size_t n, size_t k);
void stint_select_u32(uint32_t *v, size_t n, size_t k);

/* Values kept as runs (blocks of a list). */
struct stint_u32_run {
    uint32_t *v;
    size_t n;
};

/* Sets out[i] to the value sorting the values of runs[0..nruns), taken as
 * one array of n, would put at index ranks[i], for nr ranks given in
 * ascending order, each < n. Large sets go by a histogram on a monotone
 * log-linear key (the top six bits below each value's leading one): one pass
 * counts, one pass gathers the buckets that hold the ranks, and a quickselect
 * finishes inside each; small ones by chained quickselects, in place when
 * there is one run (it may be reordered, its values kept), else on a copy
 * (the runs are left as they are). 0 on success, -1 when out of memory for
 * the gathered or copied values (at most n words). */
int stint_select_ranks_u32_runs(const struct stint_u32_run *runs, size_t nruns, const size_t *ranks, size_t nr,
                                uint32_t *out);

/* Fills order[0..n) with 0..n-1 sorted by w[] descending, ties by index
 * ascending (the order to hand out work items biggest first). 0, or -1 when
 * out of memory for its scratch (16 bytes per item). */
int stint_order_heaviest(const size_t *w, size_t n, uint32_t *order);

/* Merges iv[0..n) in place: afterwards iv[0..k) are disjoint and sorted, and
 * k is returned. Two intervals merge when the next start is <= the current
 * end + epsilon (epsilon 0: touching merges). Zero-length intervals not
 * touching anything stay as their own (zero-length) entries. */
size_t stint_intervals_merge(struct stint_interval *iv, size_t n, int64_t epsilon);

/* Length of the union of iv[0..n) (sorts iv in place). */
int64_t stint_intervals_union(struct stint_interval *iv, size_t n);

/* Length of the union of iv[0..n) and the time covered by two or more of
 * them (*overlap_ns), in one sweep; sorts iv in place. Empty and inverted
 * intervals (end <= start) add nothing; both sums saturate at INT64_MAX
 * (tsparse.h, stint_sum_add). When its scratch (8 bytes per interval)
 * cannot be allocated, it returns the union alone with *overlap_ns 0. */
int64_t stint_intervals_union_overlap(struct stint_interval *iv, size_t n, int64_t *overlap_ns);

/* Length of the union of a sequence already sorted by start (no changes). */
int64_t stint_intervals_union_sorted(const struct stint_interval *iv, size_t n);

/* Intervals sorted by start, packed in 8-byte slots: an interval whose
 * start lies less than STINT_PACK_ESC ns after the previous one's start and
 * whose length fits in 32 bits takes one slot, (start delta << 32 | length);
 * any other (and the first of a run) takes three: STINT_PACK_ESC << 32, then
 * its start and its end as they are. Appends interval [start, end) (end >=
 * start >= prev_start when first is 0) to out[] and returns the slots used. */
#define STINT_PACK_ESC UINT32_MAX
static inline unsigned stint_pack_interval(uint64_t out[3], int first, int64_t prev_start, int64_t start, int64_t end)
{
    if (!first && start >= prev_start && end >= start && (uint64_t)start - (uint64_t)prev_start < STINT_PACK_ESC &&
        (uint64_t)end - (uint64_t)start <= UINT32_MAX) {
        out[0] = ((uint64_t)start - (uint64_t)prev_start) << 32 | ((uint64_t)end - (uint64_t)start);
        return 1;
    }
    out[0] = (uint64_t)STINT_PACK_ESC << 32;
    out[1] = (uint64_t)start;
    out[2] = (uint64_t)end;
    return 3;
}

/* Length of the union of the intervals packed (above) in slots 0..n, as
 * nruns runs: run r is slots starts[r] .. starts[r+1] (the last one ends at
 * n), each sorted by start and beginning with a three-slot interval. Slot i
 * is blocks[i >> shift][i & (2^shift - 1)] (one contiguous array: blocks =
 * &slots, shift = 63). A k-way merge, O(n log nruns), nothing changed; -1
 * when out of memory for the 6 x nruns words it needs. */
int64_t stint_intervals_union_packed(const uint64_t *const *blocks, unsigned shift, size_t n, const size_t *starts,
                                     size_t nruns);

/* Streaming union over intervals given in nondecreasing start order. */
struct stint_union_acc {
    int64_t cur_start, cur_end;
    int64_t total;
    int open;
};
/* (inline: summary calls them several times per span) */
static inline void stint_union_acc_init(struct stint_union_acc *a)
{
    a->cur_start = a->cur_end = 0;
    a->total = 0;
    a->open = 0;
}

static inline void stint_union_acc_add(struct stint_union_acc *a, int64_t start, int64_t end)
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

static inline int64_t stint_union_acc_total(const struct stint_union_acc *a)
{
    return a->total + (a->open ? a->cur_end - a->cur_start : 0);
}

/* Concurrency step function (Perfetto's intervals_overlap_count): +1 at each
 * start, -1 at each end (no end for dur < 0, i.e. unfinished); one point per
 * distinct timestamp that had any event. ts[] and dur[] have n entries; out
 * gets up to 2n (ts, value) points; returns how many. Allocates a scratch
 * array of 2n events; returns (size_t)-1 when out of memory. */
struct stint_step {
    int64_t ts;
    int64_t value;
};
size_t stint_intervals_overlap_count(const int64_t *ts, const int64_t *dur, size_t n, struct stint_step *out);

#endif
