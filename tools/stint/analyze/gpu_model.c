/* SPDX-License-Identifier: MIT */
/*
 * gpu_model.c - the lists of the gpu analysis (gpu_int.h) taken from a
 * finished model that keeps its slices and args.correlation (`report`):
 * device work, runtime calls with their enclosing cpu_op spans (the model's
 * parent chain on the call's track), and step spans; gpu_collect.c takes
 * the same lists from a span sink while a file is read.
 *
 * Invariants: the lists come in the model's slice order; an op span enters
 * ops once, the first time a call needs it; every device-work span is
 * listed whatever --time-range says (stint_gpu_prepare applies it).
 */
#include "analyze/gpu_int.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The innermost (*o) and outermost (*t) cpu_op spans enclosing slice si on
 * its thread; STINT_NO_ID when none. */
static void enclosing_ops(struct gpu_file *f, uint32_t si, uint32_t *o, uint32_t *t)
{
    const struct stint_model *m = f->m;
    const struct stint_slice *s = stint_model_slice(m, si);
    int64_t end = s->ts_ns + s->dur_ns;
    *o = *t = STINT_NO_ID;
    for (uint32_t p = s->parent; p != STINT_NO_ID;) {
        const struct stint_slice *ps = stint_model_slice(m, p);
        if (ps->dur_ns >= 0 && ps->track == s->track && ps->ts_ns <= s->ts_ns && ps->ts_ns + ps->dur_ns >= end &&
            stint_gpu_cat_kind(f, ps->cat) == GK_CPU_OP) {
            if (*o == STINT_NO_ID)
                *o = p;
            *t = p;
        }
        p = ps->parent;
    }
}

/* The index in f->ops of op slice si (added on first use; opi: slice -> index + 1). */
static uint32_t op_index(struct gpu_file *f, uint32_t si, uint32_t *opi)
{
    if (si == STINT_NO_ID)
        return STINT_NO_ID;
    if (!opi[si]) {
        const struct stint_slice *s = stint_model_slice(f->m, si);
        f->ops = stint_xgrow(f->ops, &f->opcap, f->nops + 1, sizeof *f->ops, 64);
        f->ops[f->nops++] = (struct gpu_opspan){s->dur_ns, s->name};
        opi[si] = (uint32_t)f->nops;
    }
    return opi[si] - 1;
}

void stint_gpu_collect_model(struct gpu_file *f, const struct stint_gpu_opts *o)
{
    const struct stint_model *m = f->m;
    const char *glob = o->step_glob ? o->step_glob : "ProfilerStep#*";
    uint8_t *xla = stint_gpu_xla_lanes(m);
    size_t ns = stint_model_nslices(m);
    uint32_t *opi = stint_xcalloc(ns ? ns : 1, sizeof *opi);
    struct gpu_idcache comm = {0};
    for (size_t i = 0; i < ns; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->dur_ns < 0 || (s->flags & STINT_SLICE_INSTANT))
            continue;
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD)
            continue;
        enum gpu_kind k = stint_gpu_cat_kind(f, s->cat);
        int work = k == GK_KERNEL || k == GK_COPY || k == GK_MTIA;
        if (!work && xla[t->lane] && k != GK_ANNOT) {
            work = 1;
            k = GK_KERNEL;
        }
        if (work) {
            stint_gpu_mark_lane(f, t->lane);
            int64_t corr = 0;
            int has_corr = stint_gpu_corr(f, s, &corr);
            f->items = stint_hmem_xgrow(f->items, &f->itemcap, f->nitems + 1, sizeof *f->items, 1024);
            uint8_t cls = stint_gpu_item_class(m, k, s->name, &comm);
            f->items[f->nitems++] = (struct gpu_item){.ts = s->ts_ns, .dur = s->dur_ns, .corr = corr,
                                                      .dev = stint_model_lane_at(m, t->lane)->pid, .lane = t->lane,
                                                      .name = s->name, .cls = cls,
                                                      .kernel = cls != STINT_GPU_MEMORY, .has_corr = (uint8_t)has_corr};
            continue;
        }
        if (k == GK_RUNTIME) {
            struct gpu_call c = {.ts = s->ts_ns, .dur = s->dur_ns, .name = s->name};
            c.has_corr = (uint8_t)stint_gpu_corr(f, s, &c.corr);
            uint32_t op, top;
            enclosing_ops(f, (uint32_t)i, &op, &top);
            c.op = op_index(f, op, opi);
            c.top = op_index(f, top, opi);
            f->calls = stint_hmem_xgrow(f->calls, &f->callcap, f->ncalls + 1, sizeof *f->calls, 1024);
            f->calls[f->ncalls++] = c;
        }
        if (k != GK_ANNOT && stint_gpu_is_step_name(f, s->name, glob)) {
            f->stepc = stint_xgrow(f->stepc, &f->stepcap, f->nstepc + 1, sizeof *f->stepc, 16);
            f->stepc[f->nstepc++] = (struct gpu_stepc){s->ts_ns, s->dur_ns, s->name, t->lane};
        }
    }
    free(comm.v);
    free(opi);
    free(xla);
}
