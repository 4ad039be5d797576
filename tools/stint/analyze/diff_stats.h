/* SPDX-License-Identifier: MIT */
/*
 * diff_stats.h - the statistics of `stint diff` (CLI internal): per group of
 * span durations in A and in B, the medians, the ratio B/A, a seeded 95%
 * percentile bootstrap interval of that ratio, a permutation test (rank sum)
 * of "A and B are draws of one distribution", the p-values adjusted over
 * every group judged (Holm) and a verdict.
 *
 * Pure functions over the groups the caller fills: no printing, no options,
 * no globals. Everything is seeded (the seed, the group's cat and name, its
 * durations), so the same groups always get the same figures and verdicts.
 * Memory they cannot do without ends the process (base/xalloc.h).
 */
#ifndef STINT_CLI_DIFF_STATS_H
#define STINT_CLI_DIFF_STATS_H

#include <stddef.h>
#include <stdint.h>

/* From this many spans on each side, a group's p-value comes from the rank
 * sum's normal approximation instead of random splits. */
#define STINT_DSTAT_NORMAL_MIN 50

/* One (cat, name, clock) compared: the caller sets the texts, dev and the
 * two sides' durations (each sorted ascending); stint_dstat_judge sets the
 * rest. */
struct stint_dstat_group {
    const char *cat, *name; /* texts of catn and namen bytes (a name may hold a NUL) */
    size_t catn, namen;
    int dev;
    const int64_t *a, *b;
    size_t na, nb;
    /* the figures: medians, ratio B/A, its 95% interval, p-value and adjusted
     * p-value (NaN where not tested), and the permutations the p-value took */
    double meda, medb, ratio, lo, hi, p, q;
    size_t pr, pc; /* permutations, and how many of them were as extreme as the data */
    int normal;    /* p from the rank sum's normal approximation, pr = pc = 0 */
    double splits; /* distinct splits of the pooled spans into the two sides (capped at 1e18) */
    int tested;    /* judged: enough spans on both sides, and A's median > 0 */
    /* only_a, only_b, too_few, zero_a, no_change, slower, faster, unresolved */
    const char *verdict;
};

/* How to judge. */
struct stint_dstat_params {
    uint64_t seed;
    long resamples;   /* bootstrap resamples asked for (>= 1; bounded by the work bound) */
    long min_samples; /* fewer spans on a side: too_few, nothing claimed */
    int correction;   /* 1: Holm over the groups tested; 0: each p-value alone */
    double threshold; /* a change must exceed this fraction (0.02 = 2%) */
};

/* What the judging did, for the report. */
struct stint_dstat_result {
    size_t tested;     /* groups tested (m) */
    size_t resamples;  /* bootstrap resamples and first permutations used per group */
    size_t resamples_asked; /* what params asked for; resamples is fewer when the work bound cut it */
    double work_spans; /* spans of the tested groups, both sides: the bound is about 2e8 / work_spans */
    size_t need;       /* permutations the correction over m groups needs (0 without it) */
    size_t n_ext, r_ext;       /* groups given more permutations; the most one got */
    size_t n_normal;           /* groups whose p-value is the normal approximation's */
    int slower, faster;        /* groups flagged */
    size_t unresolved, r_unres; /* groups unresolved; the most permutations one of them had */
    size_t held;               /* groups the correction held back (resolved) */
};

/* Judges g[0..ng): sets every group's figures and verdict and fills *res.
 * A change is flagged when the interval excludes 1, the adjusted p-value
 * is <= 0.05 (with the correction) and the ratio differs from 1 by more
 * than the threshold; one that would pass but for too few permutations
 * within the work bound is `unresolved`. */
void stint_dstat_judge(struct stint_dstat_group *g, size_t ng, const struct stint_dstat_params *prm,
                       struct stint_dstat_result *res);

#endif
