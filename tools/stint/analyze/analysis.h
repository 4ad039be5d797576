/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - building blocks the analysis commands share: quantiles, the
 * aggregated call tree, the per-step breakdown, and the small formatting
 * helpers that label every figure with its unit. Interval unions (never
 * sums of nested time) come from base/intervals.h, the one interval
 * library: intervals are half-open [start, end); a union counts time
 * covered by at least one interval, "overlap" time covered by two or more.
 */
#ifndef STINT_CLI_ANALYSIS_H
#define STINT_CLI_ANALYSIS_H

#include "model/filters.h"
#include "model/model.h"
#include "base/intervals.h"
#include "base/tsparse.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Sorts v ascending. */
void stint_an_sort_i64(int64_t *v, size_t n);
void stint_an_sort_f64(double *v, size_t n);
/* Quantile q in [0,1] of sorted v by linear interpolation between closest
 * ranks (numpy's default); NaN when n == 0. */
double stint_an_quantile(const int64_t *v, size_t n, double q);
double stint_an_quantile_f64(const double *v, size_t n, double q);

/* Writes ns as microseconds with three decimals ("12.345") into buf (>= 32). */
const char *stint_an_us(char *buf, int64_t ns);
/* The same, returning the length written (the terminating NUL not counted). */
size_t stint_an_us_len(char *buf, int64_t ns);
/* Same for a fractional ns value (a mean or an interpolated quantile);
 * values past the int64 range print as its ends. */
const char *stint_an_us_f(char *buf, double ns);
/* The mean of n int64 values, summed exactly (no overflow, unlike a capped
 * total / calls); NAN when n is 0. */
double stint_an_mean(const int64_t *v, size_t n);

/* Exact figures of int64 values, for printing without a double on the way
 * (a double cannot hold every ns past 2^53: a mean or quantile of spans of
 * about 146 years would round past their max). The value is num / den,
 * den > 0; den is 0 when there is no value (n == 0). */
struct stint_an_ratio {
    stint_i128 num, den;
};
/* The mean of n values: the exact 128-bit sum over n. */
struct stint_an_ratio stint_an_mean_exact(const int64_t *v, size_t n);
/* Quantile pct/100 (pct <= 100; more counts as 100) of sorted v by nearest
 * rank, as `stint summary`: the value at index ceil(pct * n / 100) - 1
 * (index 0 for pct 0), as num / 1; always one of the values. */
struct stint_an_ratio stint_an_quantile_rank(const int64_t *v, size_t n, unsigned pct);
/* Arranges v[0..n) so that stint_an_quantile_rank(v, n, 50) and (v, n, 90)
 * read what they read on the sorted values, in time linear in n (a
 * selection of the p90 rank, then of the p50 rank among the values before
 * it): the values are kept, their order is not sorted. */
void stint_an_quantiles_ready(int64_t *v, size_t n);
/* Writes r / 10^shift (shift <= 6) with `decimals` decimals (<= 6), rounded
 * half up (ties toward +infinity), into buf (>= 64 bytes): shift 0,
 * decimals 1 gives ns with one decimal ("12.5"); shift 3, decimals 3 gives
 * us with three ("0.013"). "-" when r has no value. */
const char *stint_an_fmt_ratio(char *buf, struct stint_an_ratio r, unsigned shift, unsigned decimals);

/* ---- the aggregated call tree -------------------------------------------
 * Nodes are keyed by (parent node, name): one node per distinct call path.
 * Node 0 is the invisible root of host-clock lanes, node 1 the root of
 * device-clock lanes (never merged with host time). Only finished spans on
 * thread tracks are aggregated; instants, unfinished spans and async slices
 * are counted in the tree's scope fields. Instants are no part of any path:
 * they make no node, and a slice nested in an instant (a zero-length slice
 * at the instant's time) takes the path of the instant's nearest enclosing
 * non-instant slice. Unfinished and filtered-out spans do lend their names
 * to their descendants' paths (their nodes may have 0 calls).
 *   calls  spans at this path
 *   total  sum of their durations; a span whose ancestor has the same path
 *          cannot exist, so nothing nested is added twice
 *   self   per span: duration minus the union of its direct children clipped
 *          to the span (so self >= 0 by construction), summed
 *   durs   every span's duration, arranged for p50 and p90
 *          (stint_an_quantiles_ready)
 */
struct stint_tnode {
    uint32_t parent, name, first_child, next_sibling, last_child, depth;
    uint8_t clock;
    uint64_t calls;
    int64_t total_ns, self_ns, max_ns;
    int64_t *durs;        /* calls entries, arranged for p50 and p90 after build (not sorted) */
    size_t ndurs;
};

struct stint_calltree {
    struct stint_tnode *nodes;
    size_t n, cap;
    uint32_t *slice_node; /* per model slice: its node, STINT_NO_ID when not aggregated
                             (async, filtered out, instant or unfinished) */
    int64_t *slice_self;  /* per model slice: its self time (0 when not aggregated) */
    uint64_t spans, instants, unfinished, async, filtered_out, lanes_host, lanes_device;
    /* built by the span sink (stint_tree_sink): no per-slice arrays, the
     * --flat rows made as the spans came (stint_calltree_flat copies them) */
    struct stint_flat_row *flat;
    size_t nflat;
    /* hash (parent, name) -> node */
    uint32_t *tab;
    size_t tabcap;
};

/* Builds the tree of the finished model m over the slices that pass f (a
 * slice filtered out still lends its name to its descendants' paths).
 * Returns 0, or -1 when out of memory. Free with stint_calltree_free. */
int stint_calltree_build(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f);
/* The same without the nodes' durations (durs stays NULL: no quantiles),
 * for a caller that reads sums only (the HTML report's flame graph): 8
 * bytes a span, a malloc a node and the sorts saved. */
int stint_calltree_build_sums(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f);
void stint_calltree_free(struct stint_calltree *t);

/* The same tree built from the spans a lean model's finish streams
 * (model.h, STINT_MODEL_LEAN; `tree` on Chrome JSON and marker logs), with
 * what it needs per open span and per node only: 8 bytes per aggregated
 * span (its duration), nothing per slice. new returns NULL when out of
 * memory; set stint_tree_sink_span as the model's span sink with the
 * returned context before reading (no span split: one walker). finish then
 * completes t (an empty tree made by new): 0, 1 when a span's parent was not
 * the span open on its track (explicit parents, as JSONL sessions have:
 * build from the whole model instead), -1 when out of memory; either way it
 * frees the sink. The tree equals stint_calltree_build's on the same input
 * in every field that `tree` prints, the --flat rows included; slice_node
 * and slice_self stay NULL. */
struct stint_tree_sink;
struct stint_tree_sink *stint_tree_sink_new(struct stint_calltree *t, const struct stint_filter *f);
/* Places no slice from the stream, only lean records: finish places the
 * model's slices from their parents, as stint_calltree_build does, into the
 * same tree. For a model whose slices and lean records never nest in one
 * another (a marker log read lean: its slices are the groups whose depth
 * tree is not their nesting in time, and a lean group's range meets no
 * other group's on its thread). Call before reading. */
void stint_tree_sink_defer_slices(struct stint_tree_sink *s);
void stint_tree_sink_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);
int stint_tree_sink_finish(struct stint_tree_sink *s, const struct stint_model *m);

/* Per name over the aggregated spans (`tree --flat`):
 * calls, self summed, max, and total over the outermost calls only (a call
 * with a same-name ancestor on its parent chain is not added again). */
struct stint_flat_row {
    uint32_t name;
    int device; /* the row's spans are on device-clock lanes (never pooled with host ones) */
    uint64_t calls, outer_calls;
    int64_t total_ns, self_ns, max_ns; /* sums capped at INT64_MAX */
};
/* The rows of the (name, clock) pairs that have calls, in name-id order, host
 * before device (malloc'd, *count of them); NULL when out of memory. */
struct stint_flat_row *stint_calltree_flat(const struct stint_calltree *t, const struct stint_model *m, size_t *count);

enum stint_tree_sort { STINT_TREE_SORT_TOTAL, STINT_TREE_SORT_SELF, STINT_TREE_SORT_CALLS };
/* Reorders every node's children by key (descending, ties by name). */
void stint_calltree_sort(struct stint_calltree *t, const struct stint_model *m, enum stint_tree_sort key);

/* Names that differ only by a trailing number taken as one (calltree_merge.c).
 * stint_name_number_stem: the length of name without its trailing decimal
 * digits ("ProfilerStep#12": 13), or len when it ends in none or is all
 * digits. A family is the names with one stem; it is shown as the stem and
 * "N" ("ProfilerStep#N") and keyed by its first name id.
 * stint_calltree_merge_numbered: dst (new; free with stint_calltree_free)
 * is src with each node's numbered children merged by family, recursively:
 * calls, totals and self times added, durations pooled; node names are the
 * families' first names. stint_flat_merge_numbered: the --flat rows merged
 * the same way per (family, clock), in place (*count updated). Out of
 * memory exits. */
size_t stint_name_number_stem(const char *name, size_t len);
void stint_calltree_merge_numbered(struct stint_calltree *dst, const struct stint_calltree *src,
                                   const struct stint_model *m);
struct stint_flat_row *stint_flat_merge_numbered(struct stint_flat_row *rows, size_t *count,
                                                 const struct stint_model *m);
/* The same families one name at a time (summary --merge-numbered, as spans
 * stream): stint_name_family gives name's family's first name id seen
 * (name itself when it ends in no number). Out of memory exits. */
struct stint_name_families;
struct stint_name_families *stint_name_families_new(void);
uint32_t stint_name_family(struct stint_name_families *f, const struct stint_model *m, uint32_t name);
void stint_name_families_free(struct stint_name_families *f);

/* Writes node's path "a;b;c" (names joined with sep) into a malloc'd string;
 * NULL when out of memory. */
char *stint_calltree_path(const struct stint_calltree *t, const struct stint_model *m, uint32_t node, char sep);

/* ---- steps ----------------------------------------------------------------
 * Steps are finished spans on thread tracks whose name matches a glob (or,
 * with glob NULL, spans with a true "measured" arg, JSONL's measured region).
 * Per step: its wall time, the union of each direct child name clipped to the
 * step, the overlap (time covered by two or more children) and the
 * unattributed remainder, wall minus the union of all children (>= 0).
 *
 * The result is sparse, linear in the input however many distinct child
 * names there are: one cell per (step, child name) that occurs in the step,
 * never a zero for every name. Child names are ranked by their total union
 * time over all steps (largest first, ties by name); the first nshown are the
 * shown columns and other_ns is, per step, the union of the intervals of the
 * names ranked after them, clipped to the step (a union, not a sum). Rows are
 * host-clock steps in time order, then (from nhost on) device-clock ones. */
struct stint_step_cell {
    uint32_t step;    /* row index */
    uint32_t child;   /* rank: index into children */
    int64_t union_ns; /* that name's union inside the step */
};
struct stint_step_row {
    uint32_t slice; /* the step's model slice (STINT_NO_ID when streamed: steps_stream.h) */
    uint32_t lane;  /* its lane */
    int64_t ts_ns;  /* its start */
    int64_t wall_ns, overlap_ns, unattributed_ns, other_ns;
    size_t cell0, ncells; /* its cells: cells[cell0 .. cell0 + ncells), by rank */
};
struct stint_steps_sparse {
    size_t nsteps, nhost, nchildren, nshown, ncells;
    struct stint_step_row *rows;
    uint32_t *children; /* name ids by rank */
    struct stint_step_cell *cells;
    uint64_t unfinished; /* matching spans that never ended (left out) */
    uint64_t on_streams; /* matching spans on GPU streams left out: CPU threads had steps too */
};
/* Per lane of m (finished): 1 when it is a GPU stream (its tid was written
 * "stream N", or it holds spans of a GPU work or annotation category:
 * kernel, gpu_memcpy, gpu_memset, memcpy, memset, gpu_user_annotation,
 * any case), else 0. malloc'd, one byte per lane; out of memory exits. */
uint8_t *stint_steps_stream_lanes(const struct stint_model *m);
/* The step family of m when it has one: names that differ only by a
 * trailing number after '#' ("ProfilerStep#12"), on CPU-thread lanes, whose
 * stem holds "step" in any case; the family with the most spans (ties: the
 * first seen). Writes its glob (the stem, escaped, then '*': "ProfilerStep#*")
 * into glob (cap bytes) and returns its span count; 0 when m has none (or
 * the glob does not fit). Steps match case-blind (stint_steps_sparse_compute). */
size_t stint_steps_guess(const struct stint_model *m, char *glob, size_t cap);
/* The length of name's stem when it is a step family member ("...#" then
 * digits only, the stem holding "step" in any case: ProfilerStep#12); else
 * 0. The rule stint_steps_guess and the report's streamed steps follow. */
size_t stint_step_stem(const char *name, size_t len);
/* Writes the glob of a step family into glob (cap bytes): name's first stem
 * bytes, glob characters escaped, then '*' ("ProfilerStep#*"). Returns 1, or
 * 0 when it does not fit (glob is then not a string). */
int stint_step_family_glob(const char *name, size_t stem, char *glob, size_t cap);
/* What ranks a step table's children (child index -> name id, total union
 * over the steps), for stint_step_rank_cmp. */
struct stint_step_rank {
    const struct stint_model *m;
    const uint32_t *names;
    const stint_i128 *totals;
};
/* Orders child indexes (qsort_r, ctx a struct stint_step_rank) by total
 * union, largest first, then by name bytes (a shorter prefix first): a total
 * order, names being distinct. */
int stint_step_rank_cmp(const void *pa, const void *pb, void *ctx);
/* Orders a row's cells (qsort) by child index. */
int stint_step_cell_cmp(const void *pa, const void *pb);
/* Computes r with nshown = min(max_shown, nchildren) (SIZE_MAX: all); the
 * step glob matches names case-blind; steps are per lane kind (on_streams).
 * 0, or
 * -1 when out of memory (r is then empty). Free with stint_steps_sparse_free. */
int stint_steps_sparse_compute(struct stint_steps_sparse *r, const struct stint_model *m, const char *step_glob,
                               const struct stint_filter *filter, size_t max_shown);
void stint_steps_sparse_free(struct stint_steps_sparse *r);

/* The figures every step row has (besides its shown children's unions). */
enum stint_step_fig { STINT_STEP_WALL, STINT_STEP_OTHER, STINT_STEP_OVERLAP, STINT_STEP_UNATTRIBUTED };
/* Figure `which` of row. */
int64_t stint_step_row_fig(const struct stint_step_row *row, enum stint_step_fig which);

/* min, median and max of one column over the steps of one clock; a step in
 * which a child name does not occur counts 0 for it. The median is exact: the
 * middle value over 1, or the two middle values' sum over 2 (a double holds no
 * ns past 2^53). */
struct stint_step_stats {
    int64_t min_ns, max_ns;
    struct stint_an_ratio median;
    size_t noccur; /* the clock's steps in which the child name occurs (all of them for a figure) */
};
/* Per clock ([0] host, [1] device; never pooled): the number of steps (the
 * samples), the stats of each figure, and those of each shown child by rank
 * (nshown of them). A clock without steps has all zero stats. */
struct stint_steps_stats {
    size_t nsteps[2];
    struct stint_step_stats fig[2][4]; /* by enum stint_step_fig */
    struct stint_step_stats *child[2];
};
/* Computes st from r: linear in r's cells and steps, plus sorting. 0, or -1
 * when out of memory (st is then empty). Free with stint_steps_stats_free. */
int stint_steps_stats_compute(struct stint_steps_stats *st, const struct stint_steps_sparse *r);
void stint_steps_stats_free(struct stint_steps_stats *st);

#endif
