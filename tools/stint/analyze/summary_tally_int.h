/* SPDX-License-Identifier: MIT */
/*
 * summary_tally_int.h - what the walk of `stint summary` (summary_tally.c)
 * and its tail (summary_tail.c) share (internal to those two files).
 */
#ifndef STINT_CLI_SUMMARY_TALLY_INT_H
#define STINT_CLI_SUMMARY_TALLY_INT_H

#include "analyze/summary_tally.h"
#include "base/umap.h"

/* A category's runs: slot i is ivb[i >> STINT_TALLY_RUN_SHIFT][i & STINT_TALLY_RUN_MASK]. */
#define STINT_TALLY_RUN_SHIFT 13
#define STINT_TALLY_RUN_BLOCK ((size_t)1 << STINT_TALLY_RUN_SHIFT)
#define STINT_TALLY_RUN_MASK (STINT_TALLY_RUN_BLOCK - 1)

/* The end of a track's stream: its open frames and category runs end. */
void stint_tally_track_end(struct stint_tally *S);

/* With filters: indexes the model's instant tallies for
 * stint_tally_instant_pass (once; nothing without filters). */
void stint_tally_instants_index(struct stint_tally *S, const struct stint_model *m);

/* With filters: one instant of track kind kind that passes them.
 * (inline: the walk calls it per instant) */
static inline void stint_tally_instant_pass(struct stint_tally *S, const struct stint_model *m,
                                            enum stint_track_kind kind, uint32_t cat, uint32_t name)
{
    int isnew;
    uint32_t k = stint_umap_get(&S->imap[kind & 3], ((uint64_t)cat << 32) | name, (uint32_t)m->instants.len, &isnew);
    if (k < m->instants.len)
        S->icount[k]++;
}

/* Frees a category's runs and track ends (after its union, or once joined). */
void stint_tally_cat_free(struct stint_tally_cat *cr);
/* Frees a name row's durations (after its figures, or once appended elsewhere). */
void stint_tally_name_free(struct stint_tally_name *nr);
/* Frees every slab (once no row holds a block cut from one). */
void stint_tally_slab_free(struct stint_tally_slab *sl);

#endif
