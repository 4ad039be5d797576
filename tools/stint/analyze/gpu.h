/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - where an accelerator's time went (`stint gpu`): the figures of
 * one or more files (ranks), computed over finished models that keep their
 * slices (stint_gpu_compute, for `report`) or over collectors that took
 * what the figures need while each file was read (stint_gpu_collect_*,
 * for `gpu`); both give the same result.
 *
 * The definitions are docs/cli/gpu.md's, followed exactly: device work is
 * found by category (kernel, copy, set), classes by kernel name; busy and
 * class figures are lengths of unions computed from the spans themselves
 * (nothing depends on how spans nest on a stream lane); kernels are linked
 * to their runtime call by the integer args.correlation within one file;
 * quantiles are nearest-rank values (always one of the samples). Every
 * figure is int64 ns on the trace's own clock.
 *
 * Invariants of a result: idle = window - busy >= 0 per device; each class
 * union <= busy; overlap <= min(compute, communication); linked +
 * unlinked_kernels = the number of device-work spans kept. Names point into
 * the models, which must outlive the result.
 */
#ifndef STINT_CLI_GPU_H
#define STINT_CLI_GPU_H

#include "base/intervals.h"
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

enum stint_gpu_class { STINT_GPU_COMPUTE = 0, STINT_GPU_COMM = 1, STINT_GPU_MEMORY = 2, STINT_GPU_CLASSES = 3 };

/* What a category means to the accelerator analyses (docs/cli/gpu.md's
 * lists): device work (kernel; a copy or set; MTIA's ccp events), a runtime
 * call, a CPU op, an annotation on a device stream, or none of them. */
enum stint_gpu_cat {
    STINT_GPU_CAT_NONE = 0,
    STINT_GPU_CAT_KERNEL,  /* kernel */
    STINT_GPU_CAT_COPY,    /* gpu_memcpy, gpu_memset, memcpy, memset */
    STINT_GPU_CAT_MTIA,    /* mtia_ccp_events */
    STINT_GPU_CAT_RUNTIME, /* cuda_runtime, cuda_driver, runtime, mtia_runtime */
    STINT_GPU_CAT_CPU_OP,  /* cpu_op, operator */
    STINT_GPU_CAT_ANNOT    /* gpu_user_annotation */
};
/* The meaning of category text s[0..n), in any case (the one list: `gpu`
 * and `steps` both ask here). */
enum stint_gpu_cat stint_gpu_cat_of(const char *s, size_t n);

/* "compute", "communication", "memory" (static). */
const char *stint_gpu_class_name(enum stint_gpu_class c);

struct stint_gpu_opts {
    const char *step_glob;  /* NULL: "ProfilerStep#*" */
    size_t top;             /* rows of kernels, sites and ops; SIZE_MAX = all */
    int has_t0, has_t1;     /* --time-range sides */
    int64_t t0, t1;
};

struct stint_gpu_device {
    uint32_t file;
    int64_t device;           /* the lanes' pid */
    uint32_t streams;
    int64_t win0, win1;       /* window [win0, win1) */
    int64_t busy_ns, cls_ns[STINT_GPU_CLASSES], overlap_ns;
    size_t iv0, niv;          /* its merged busy union: res->ivs[iv0 .. iv0 + niv) */
};

struct stint_gpu_stream {
    uint32_t file, device_row;  /* device_row: index into devices */
    uint32_t lane;              /* in the file's model */
    uint64_t kernels;
    int64_t busy_ns, idle_ns;
};

struct stint_gpu_kernel {
    const char *name;
    size_t name_len;
    enum stint_gpu_class cls;
    uint64_t count;
    int64_t sum_ns, min_ns, p50_ns, p90_ns, max_ns;
};

struct stint_gpu_site {
    const char *name;           /* the innermost CPU op's name, or "(no op)" */
    size_t name_len;
    uint64_t count;
    int64_t delay_sum_ns, delay_max_ns;
};

struct stint_gpu_op {
    const char *name;
    size_t name_len;
    uint64_t launches, kernels;
    int64_t gpu_ns, cpu_ns;
};

struct stint_gpu_step {
    uint32_t file;
    const char *name;
    size_t name_len;
    int64_t ts_ns, wall_ns, busy_ns, cls_ns[STINT_GPU_CLASSES];
};

struct stint_gpu_rank {
    int64_t rank;
    uint32_t file;
    size_t steps;
    int64_t step_median_ns, step_max_ns; /* 0 without steps */
    int64_t busy_ns, idle_ns, comm_ns;
};

struct stint_gpu_last {
    const char *name;
    size_t name_len;
    int64_t rank, end_ns, spread_ns;
};

struct stint_gpu_result {
    size_t nfiles;
    uint64_t work;               /* device-work spans kept */
    struct stint_gpu_device *devices; size_t ndevices;  /* by file, then device id */
    struct stint_gpu_stream *streams; size_t nstreams;  /* by file, device, then lane tid */
    struct stint_gpu_kernel *kernels; size_t nkernels;  /* the top rows */
    size_t kernel_groups;        /* all (name, class) groups */
    uint64_t linked, unlinked_kernels, unlinked_launches;
    int64_t delay_p50_ns, delay_p90_ns, delay_p99_ns, delay_max_ns; /* valid when linked */
    struct stint_gpu_site *sites; size_t nsites;
    struct stint_gpu_op *ops; size_t nops;
    struct stint_gpu_step *steps; size_t nsteps;        /* by file, then start */
    struct stint_gpu_rank *ranks; size_t nranks;        /* one per file when nfiles > 1 */
    int has_straggler;
    size_t straggler;            /* index into ranks */
    double straggler_ratio;
    struct stint_gpu_last *lasts; size_t nlasts;
    struct stint_interval *ivs;  /* the devices' merged busy unions */
    size_t nivs;
};

/* Computes every figure of docs/cli/gpu.md over ms[0..n) (finished models
 * read with STINT_MODEL_KEEP_ARGS; one per file), ranks[i] the rank of file
 * i (its distributedInfo.rank or its position). Out of memory exits. */
void stint_gpu_compute(struct stint_gpu_result *r, const struct stint_model *const *ms, size_t n,
                       const int64_t *ranks, const struct stint_gpu_opts *o);
void stint_gpu_result_free(struct stint_gpu_result *r);

/* The busy fraction of device row d in nbins equal bins of its window:
 * out[b] = covered ns / bin ns (the last bin takes the remainder). */
void stint_gpu_util_bins(const struct stint_gpu_result *r, size_t d, size_t nbins, double *out);

/* One file's spans as `gpu` needs them, collected while the file is read
 * (analyze/gpu_collect.c), instead of keeping its slices and args: give
 * stint_gpu_collect_span to the model as its span sink (a lean model,
 * STINT_MODEL_LEAN), and stint_gpu_collect_want / _corr to the Chrome
 * reader as its correlation hook (readers.h), all with the collector as
 * their context. */
struct stint_gpu_collect;
struct stint_span_ev;
struct stint_gpu_collect *stint_gpu_collect_new(const struct stint_gpu_opts *o);
void stint_gpu_collect_free(struct stint_gpu_collect *c);
void stint_gpu_collect_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);
int stint_gpu_collect_want(void *ctx, const struct stint_model *m, uint32_t cat);
void stint_gpu_collect_corr(void *ctx, uint32_t track, uint32_t cat, uint32_t name, int64_t ts_ns, int64_t dur_ns,
                            int has, int64_t corr);
/* For a file read in parts on several threads (readers.h, corr_part and
 * corr_part_ops, with the collector as corr_ctx): a part's collector, and
 * how the parts' models carry and merge them. */
void *stint_gpu_collect_part(void *ctx);
extern const struct stint_model_part_ops stint_gpu_collect_part_ops;
/* The walk of a file's spans split over two threads by track, for a
 * collector as span sink (model.h, stint_span_split; min_spans from
 * STINT_FINISH_SPLIT_MIN, else 65536): the same lists as one thread's. */
struct stint_span_split stint_gpu_collect_split(void);
/* A collector holding the spans of m, a finished model read whole with
 * STINT_MODEL_KEEP_ARGS (as stint_gpu_compute takes it). */
struct stint_gpu_collect *stint_gpu_collect_of_model(const struct stint_model *m, const struct stint_gpu_opts *o);
/* 0 when the collector met what the stream cannot describe (a runtime call
 * or device work written as B/E, whose args the hook does not see): the
 * file must then be read whole and given to stint_gpu_compute. */
int stint_gpu_collect_ok(const struct stint_gpu_collect *c);
/* stint_gpu_compute over collectors cs[0..n) (each of model ms[i], read and
 * finished with it, stint_gpu_collect_ok): the same result. The collectors
 * are emptied (free them after). */
void stint_gpu_compute_collected(struct stint_gpu_result *r, struct stint_gpu_collect *const *cs,
                                 const struct stint_model *const *ms, size_t n, const int64_t *ranks,
                                 const struct stint_gpu_opts *o);

/* Whether the model has any device work (a cheap scan; the HTML report asks). */
int stint_gpu_has_work(const struct stint_model *m);

#endif
