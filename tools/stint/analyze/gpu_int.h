/* SPDX-License-Identifier: MIT */
/*
 * gpu_int.h - what the files of the gpu analysis share. A file's spans are
 * first collected into a few lists (struct gpu_file): from a finished model
 * (gpu.c, for `report`) or from the span sink and the reader's correlation
 * hook while the file is read (gpu_collect.c, for `gpu`); the analysis then
 * reads only those lists and the model's strings and lanes: gpu.c the
 * device, stream and kernel figures, gpu_links.c the launch links and CPU
 * ops, gpu_steps.c the steps and ranks. Not for other modules.
 *
 * Invariants: items are every device-work span (dur >= 0) until
 * stint_gpu_prepare keeps those inside --time-range, sorted by (device,
 * start, collection order);
 * calls are the runtime calls in the model's slice order (per track, start,
 * longest first), each with its innermost and outermost enclosing cpu_op
 * (indices into ops, STINT_NO_ID: none); stepc are the spans on CPU threads
 * whose name matches the step glob, in the same order; unions[] hold, per
 * file and per class (and all), the merged disjoint intervals over every
 * device.
 */
#ifndef STINT_CLI_GPU_INT_H
#define STINT_CLI_GPU_INT_H

#include "analyze/gpu.h"
#include "base/hmem.h"
#include "base/intervals.h"
#include "base/umap.h"

/* What a category (or a lane) makes of a span. */
enum gpu_kind {
    GK_NONE = STINT_GPU_CAT_NONE,
    GK_KERNEL = STINT_GPU_CAT_KERNEL,
    GK_COPY = STINT_GPU_CAT_COPY,
    GK_MTIA = STINT_GPU_CAT_MTIA,
    GK_RUNTIME = STINT_GPU_CAT_RUNTIME,
    GK_CPU_OP = STINT_GPU_CAT_CPU_OP,
    GK_ANNOT = STINT_GPU_CAT_ANNOT
};

struct gpu_item {
    int64_t ts, dur;          /* the span (its part inside the range: gpu.c's clip) */
    int64_t corr;
    int64_t dev;              /* the lane's pid */
    uint32_t lane, name;
    uint8_t cls, kernel, has_corr;
};

/* A runtime call: its span, correlation, and enclosing ops (into ops). */
struct gpu_call {
    int64_t ts, dur, corr;
    uint32_t name, op, top;
    uint8_t has_corr;
};

/* A cpu_op span that encloses a runtime call. */
struct gpu_opspan {
    int64_t dur;
    uint32_t name;
};

/* A step span (its name matches the glob) on lane; kept when the lane holds no device work. */
struct gpu_stepc {
    int64_t ts, dur;
    uint32_t name, lane;
};

/* A value per string id, grown on demand, 0 = unset (callers store v + 1). */
struct gpu_idcache {
    uint32_t *v;
    size_t n;
};
/* The slot of id (zero until set). Out of memory exits. */
uint32_t *stint_gpu_idslot(struct gpu_idcache *c, uint32_t id);

/* A name table shared by the files: name bytes -> dense index (exact). */
struct gpu_names {
    struct stint_umap map;     /* hash -> index (chained by rehashing on a clash) */
    const char **s;
    size_t *len;
    size_t n, cap;
};
size_t stint_gpu_names_get(struct gpu_names *t, const char *s, size_t len);
void stint_gpu_names_free(struct gpu_names *t);

struct gpu_file {
    const struct stint_model *m;
    int64_t rank;
    struct gpu_item *items;
    size_t nitems, itemcap;
    struct gpu_call *calls;
    size_t ncalls, callcap;
    struct gpu_opspan *ops;
    size_t nops, opcap;
    struct gpu_stepc *stepc;
    size_t nstepc, stepcap;
    uint8_t *lane_work;          /* per lane: 1 when it holds device work (any time) */
    size_t nlane_work;
    uint8_t *kind;               /* by cat string id: enum gpu_kind + 1, 0 = not looked at yet */
    size_t nkind;
    uint8_t *step_name;          /* by name string id: 1 not a step, 2 a step, 0 = not looked at yet */
    size_t nstep_name;
    int64_t *outcorr;            /* with --time-range: the correlations of device work outside it */
    size_t noutcorr, outcap;
    uint32_t corr_key;           /* the string id of "args.correlation" once seen (0: not yet) */
    struct stint_interval *u[STINT_GPU_CLASSES + 1]; /* per class, then all: merged over devices */
    size_t nu[STINT_GPU_CLASSES + 1];
};

/* Whether the name id (text nm) matches glob (cached per name in f). */
int stint_gpu_is_step_name(struct gpu_file *f, uint32_t id, const char *glob);
/* Marks lane l of f as holding device work. */
void stint_gpu_mark_lane(struct gpu_file *f, uint32_t l);
/* The class of a device-work span of kind k and name id (comm: a cache per name). */
uint8_t stint_gpu_item_class(const struct stint_model *m, enum gpu_kind k, uint32_t name, struct gpu_idcache *comm);
/* Per lane of m: 1 when its spans are XLA device work (to free). */
uint8_t *stint_gpu_xla_lanes(const struct stint_model *m);
/* Sorts the n elements of sz bytes at base stably by before (a strict
 * order), in place: a merge sort of the natural runs, so O(n log runs); the
 * device work of a file comes as a few sorted runs (its streams, in start
 * order). Out of memory exits. */
void stint_gpu_sort_runs(void *base, size_t n, size_t sz, int (*before)(const void *, const void *));

/* Keeps f's items inside the range (the others' correlations go to
 * outcorr), clips them, and orders them by device, then start. */
void stint_gpu_prepare(struct gpu_file *f, const struct stint_gpu_opts *o);
/* The figures of fs[0..n), whose lists are collected (gpu.c); frees the lists. */
void stint_gpu_analyze(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o);
/* Collects f's lists from its finished model f->m (gpu_model.c). */
void stint_gpu_collect_model(struct gpu_file *f, const struct stint_gpu_opts *o);
/* Frees f's lists and caches. */
void stint_gpu_file_free(struct gpu_file *f);

/* The kind of category id cat in f's model (cached). */
enum gpu_kind stint_gpu_cat_kind(struct gpu_file *f, uint32_t cat);
/* args.correlation of slice s of f's model as an integer: 1 and *out, or 0. */
int stint_gpu_corr(struct gpu_file *f, const struct stint_slice *s, int64_t *out);
/* The length of the part of merged (sorted, disjoint) iv[0..n) inside [a, b). */
int64_t stint_gpu_clip_len(const struct stint_interval *iv, size_t n, int64_t a, int64_t b);
/* The nearest-rank quantiles pct[0..np) (ascending; 0: the least, 100: the
 * largest) of v[0..n) (n > 0) into out, as sorting then
 * stint_gpu_rank_q would give them, by selection (v is reordered). */
void stint_gpu_quantiles(int64_t *v, size_t n, const unsigned *pct, size_t np, int64_t *out);
/* Nearest-rank quantile pct of sorted v[0..n) (n > 0), as `summary`. */
int64_t stint_gpu_rank_q(const int64_t *v, size_t n, unsigned pct);

void stint_gpu_links(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o);
void stint_gpu_steps(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o);

#endif
