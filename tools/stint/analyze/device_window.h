/* SPDX-License-Identifier: MIT */
/*
 * device_window.h - the device window of each invocation of a marker log:
 * per device-clock lane (one per (pid, inv)), the device wall, the union of
 * its phases, the union of the phases that overlap another phase (the
 * concurrent window) and the orch ∪ sched window, beside the invocation's
 * host wall; then per hid bucket their mean, minimum and maximum.
 *
 * Scope: device times are on the device clock, per invocation; the host
 * wall is on the host clock. Durations on the two clocks compare (both ns);
 * timestamps do not, so no device time is ever placed on the host timeline.
 * Phases are the direct children of the lane's roots (device_wall's
 * .preamble, .graph_build, .orch, .sched ...) in the call tree the marker
 * reader rebuilt from depth; phases that run at the same time are siblings,
 * never nested.
 */
#ifndef STINT_CLI_DEVICE_WINDOW_H
#define STINT_CLI_DEVICE_WINDOW_H

#include "base/intervals.h"
#include "model/filters.h"
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stint_devwin {
    int64_t pid, inv;
    uint32_t lane;
    uint32_t hid;           /* string id of the hid as written, 0: none */
    int64_t host_wall_ns;   /* the outermost host span, host clock; -1: none seen */
    int64_t device_wall_ns; /* the union of the lane's root spans (device_wall) */
    int64_t phases_ns;      /* the union of the roots' direct children */
    int64_t concurrent_ns;  /* the union of the children that overlap another child */
    int64_t orch_sched_ns;  /* the union of the children named ...orch and ...sched; -1 unless both ran */
    uint32_t phases;        /* children counted */
    uint32_t concurrent;    /* of them, those that overlap another (concurrent siblings) */
};

/* One figure over the invocations of a bucket (those that have it). */
struct stint_devwin_stat {
    uint32_t n;
    int64_t min_ns, max_ns;
    long double sum_ns;
};

struct stint_devwin_bucket {
    uint32_t hid;            /* string id, 0: none */
    uint32_t n;              /* invocations */
    uint32_t first;          /* index of its first invocation in the sorted list */
    struct stint_devwin_stat host_wall, device_wall, phases, concurrent, orch_sched;
    double share_sum;        /* sum of device_wall / host_wall over the invocations with both */
    uint32_t share_n;
};

struct stint_devwins {
    struct stint_devwin *inv;        /* by (hid bucket, pid, inv) */
    size_t n;
    struct stint_devwin_bucket *bk;  /* most invocations first, then first seen */
    size_t nbk;
};

/* The device window of every device-clock lane of m (after finish) whose
 * root span passes f (NULL: all). Empty when the model has no device lane.
 * Out of memory exits (xalloc.h). */
void stint_devwins_build(struct stint_devwins *w, const struct stint_model *m, const struct stint_filter *f);
void stint_devwins_free(struct stint_devwins *w);

/* The union of iv[0..n) (*union_ns) and the union of those intervals that
 * overlap another one by more than 0 ns (*concurrent_ns, with their count
 * in *nconc). Sorts iv in place; no allocation. */
void stint_devwin_phases(struct stint_interval *iv, size_t n, int64_t *union_ns, int64_t *concurrent_ns,
                         uint32_t *nconc);

/* The device window section of `summary`: per hid bucket the mean, min and
 * max of each figure, then one row per invocation when there are few
 * (text); or `,"device_windows":{...}` with every invocation (JSON).
 * Nothing unless some invocation has a phase (a device root with children). */
void stint_devwins_put_text(FILE *f, const struct stint_devwins *w, const struct stint_model *m);
void stint_devwins_put_json(FILE *f, const struct stint_devwins *w, const struct stint_model *m);

/* The mean of a figure, in ns (0 when no invocation has it). */
double stint_devwin_mean(const struct stint_devwin_stat *s);

#endif
