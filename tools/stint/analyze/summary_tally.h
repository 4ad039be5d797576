/* SPDX-License-Identifier: MIT */
/*
 * summary_tally.h - what `stint summary` counts, and the HTML report's lane
 * and name tables with it (CLI internal): one computation, fed by the
 * model's span sink (model.h), so both print the same figures.
 *
 * Spans are thread-track slices made by X or matched B/E (and JSONL/marker
 * spans); instants, async slices and unfinished spans (dur -1) are not spans
 * here: instants and async slices get their own tallies, unfinished spans
 * are counted. Device-clock lanes (markers clk=dev) are keyed apart (clock
 * "device") and never unioned with host spans.
 *
 * The sink sees each track's slices in start order with their nesting
 * level, so each lane's union, each name's per-lane union and each span's
 * self time (duration minus the union of its direct children, clipped to
 * it) come from one pass with a stack. Categories are unioned across lanes
 * from each track's merged runs at the end. Per span, only its duration (4
 * bytes while every duration of its name fits in 32 bits, else 8) is kept,
 * for the quantiles (docs/formats/summary-json.md).
 *
 * Use: stint_tally_init; load the model with stint_tally_on_slice as its
 * span sink (and stint_tally_split for a lean finish on two threads); then
 * stint_tally_compute once; read the rows; stint_tally_free.
 */
#ifndef STINT_CLI_SUMMARY_TALLY_H
#define STINT_CLI_SUMMARY_TALLY_H

#include "model/filters.h"
#include "base/intervals.h"
#include "model/model.h"
#include "base/umap.h"

#include <stddef.h>
#include <stdint.h>

#define STINT_TALLY_RCACHE 1024 /* entries of the name rows' cache */

struct stint_tally_frame; /* the walk's open spans (summary_tally.c) */
struct stint_tally_xkid;  /* children of explicit parents (summary_tally.c) */

struct stint_tally_lane {
    uint64_t spans;
    int64_t sum_ns;
    struct stint_union_acc busy;
    /* Annotations on a device stream (Kineto's gpu_user_annotation: a range
     * that labels device work, not work): kept out of spans, sum and busy,
     * which count the device work alone, and tallied here. */
    uint64_t annot_spans;
    int64_t annot_sum_ns;
    struct stint_union_acc annot;
};

/* Whether category cat is a device-stream annotation (gpu_user_annotation). */
int stint_tally_is_annotation(const struct stint_model *m, uint32_t cat);


struct stint_tally_cat {
    uint32_t cat;
    uint8_t clock;
    uint64_t spans;
    int64_t sum_ns, busy_ns;
    int64_t run_start, run_end; /* the current track's merged run */
    int run_open;
    int run_cont;               /* a run of the current track is kept already, starting at run_prev */
    int64_t run_prev;
    /* finished runs of every track, unioned at the end, packed in 8-byte
     * slots (intervals.h: most runs take one): slot i is
     * ivb[i >> STINT_TALLY_RUN_SHIFT][i & STINT_TALLY_RUN_MASK]
     * (summary_tally_int.h); block 0 doubles up to STINT_TALLY_RUN_BLOCK
     * slots, the others are STINT_TALLY_RUN_BLOCK slots (64 KiB) each, so large
     * categories take the same blocks as the span records they outlive */
    uint64_t **ivb;
    size_t niv, iv0cap, nivb;
    size_t *seg, nseg, segcap;  /* where each track's slots end in ivb (each track's runs are sorted) */
};

/* A block of a name's durations. Blocks double from DUR_FIRST values to
 * DUR_BLOCK (64 KiB, the size of a full segment of span records, whose
 * memory the walk frees as it goes: hmem.h hands it on as it is), then stay
 * at DUR_BLOCK; nothing is copied as a list grows, and joining two lists
 * moves block pointers only. The smaller blocks are cut in turn from slabs
 * of DUR_SLAB bytes (hmem.h too) and freed with them at the end: from
 * malloc, the ~2,000 lists of a large trace took some 7 MiB of 4 KiB pages,
 * each ~10 us at its first touch here. */
struct stint_tally_dblk {
    uint32_t *v;
    uint32_t n, cap;
};

/* The slabs the small duration blocks of one walker's rows are cut from. */
struct stint_tally_slab {
    char *at;   /* the current slab's free part */
    size_t left;
    char **all;
    size_t n, cap;
};

/* A name row: 160 bytes (a trace of many distinct names pays this per
 * name, besides its durations and the two maps that find it). */
struct stint_tally_name {
    /* what every span of the name updates first (the row's first 64 bytes) */
    uint64_t spans;
    int64_t sum_ns, min_ns, max_ns;
    /* every duration, for the quantiles (d_len in all): 4 bytes each while
     * all fit in 32 bits (4.29 s), in blocks (dt the last one, dt_n of its
     * dt_cap used; the earlier ones in dblk), then 8 bytes each in one array
     * (d) once one does not */
    uint32_t *dt;
    uint32_t dt_n, dt_cap;
    int64_t *d;
    size_t d_len;
    struct stint_tally_dblk *dblk;
    uint32_t ndblk, dblk_cap;
    size_t d_cap;
    uint32_t crow;       /* its category row */
    uint32_t stamp;      /* lane of the running union below */
    union {
        struct stint_union_acc acc; /* during the walk */
        struct {                    /* set at the end (stint_tally_compute), when acc is done */
            int64_t p50, p90, p99, mean_ns;
        };
    };
    int64_t self_ns, total_ns;
    /* set when the row is made */
    uint32_t cat, name;
    uint8_t clock;
};
_Static_assert(sizeof(struct stint_tally_name) == 160, "a name row takes 160 bytes");

struct stint_tally_async {
    uint32_t cat, name;
    uint64_t spans, unfinished;
    int64_t sum_ns;
};

/* Rows are read after stint_tally_compute: lanes (by lane index; busy is
 * the union), cats, names (total, self, min/max, p50/p90/p99, mean),
 * asyncs, spans, unfinished, sum_ns. The rest is the walk's state. */
struct stint_tally {
    const struct stint_filter *f;
    int filtering;            /* any filter option given */
    int exits_after;          /* the process exits right after (set by the caller after init):
                               * stint_tally_compute leaves the big blocks to the exit */
    struct stint_tally_lane *lanes;   /* by lane index */
    struct stint_tally_cat *cats;
    size_t ncats, ccap;
    struct stint_tally_name *names;
    size_t nnames, ncap;
    struct stint_tally_async *asyncs;
    size_t nasync;
    uint64_t spans, unfinished;
    int64_t sum_ns;
    struct stint_umap cmap, nmap;
    struct stint_tally_frame *frames;     /* the current track's open spans, by level */
    size_t sn, fcap;
    uint32_t track;           /* the track being streamed */
    uint32_t acat;            /* the last category looked at for stint_tally_is_annotation, + 1 */
    int acat_is;              /* its answer */
    struct stint_tally_xkid *xk;          /* the children of explicit parents, by parent and start */
    uint32_t *xfirst;         /* by slice: where its children start in xk (n + 1 entries; NULL: not built) */
    size_t nxk;
    /* with filters, the instants and counter samples that pass them (the
     * model's own tallies count everything): */
    uint64_t *icount;         /* per m->instants row */
    struct stint_umap imap[4]; /* (cat, name) -> m->instants row, per track kind */
    struct stint_tally_ctr {
        uint64_t samples;
        double min, max;
        long double sum;
    } *ctally;                /* per m->counters row, with --pid or --time-range */
    struct stint_tally_slab slab;     /* the small blocks of the names' durations */
    uint32_t *prow;           /* by lean pair (stint_span_ev.pair1 - 1): name row + 1, 0 = not seen yet */
    size_t nprow;
    struct stint_tally_rcache {
        uint64_t key;
        uint32_t row1;        /* name row + 1, 0 = empty */
    } rcache[STINT_TALLY_RCACHE];
};

/* An empty tally counting what passes filter f (NULL: no filter; f must
 * outlive the tally). */
void stint_tally_init(struct stint_tally *T, const struct stint_filter *f);

/* The span sink (model.h, stint_span_sink): ctx is the tally. */
void stint_tally_on_slice(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);

/* The sink's split over two walkers (model.h), from 2^16 spans on
 * (STINT_FINISH_SPLIT_MIN in the environment sets another count, for tests). */
struct stint_span_split stint_tally_split(void);

/* Once the model is finished (its spans streamed): async rows, category
 * unions across lanes, names' totals, quantiles and means, and with --pid or
 * --time-range the counter samples that pass. Frees the walk's state and the
 * durations. Out of memory ends the process (xalloc.h: exit STINT_EXIT_NOMEM). */
void stint_tally_compute(struct stint_tally *T, const struct stint_model *m);

/* Counter series k as reported (its name matching the filter's --name, the
 * samples that pass --pid and --time-range when given): 0 when it is left
 * out, else 1 with its sample count, min, max and mean. */
int stint_tally_counter(const struct stint_tally *T, const struct stint_model *m, size_t k, uint64_t *n, double *mn,
                        double *mx, double *mean);

/* How many instants of the model's instant tally k pass the filters. */
uint64_t stint_tally_instants(const struct stint_tally *T, const struct stint_model *m, size_t k);

/* Frees the rows (after stint_tally_compute). */
void stint_tally_free(struct stint_tally *T);

#endif
