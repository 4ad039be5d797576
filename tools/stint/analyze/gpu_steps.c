/* SPDX-License-Identifier: MIT */
/*
 * gpu_steps.c - steps and ranks of `stint gpu` (docs/cli/gpu.md): each
 * step span on a CPU thread with the file's device figures clipped to it,
 * then, with several files, per-rank step times, the straggler, and which
 * rank finished each step last.
 *
 * Invariants: a step's busy and class figures are lengths of the file's
 * merged unions (over all its devices) inside [ts, ts + wall), so busy <=
 * wall and idle >= 0; medians are nearest-rank values (one of the samples);
 * a rank's end of a step is on its own clock.
 */
#include "analyze/gpu_int.h"
#include "base/xalloc.h"
#include "model/filters.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int stint_gpu_is_step_name(struct gpu_file *f, uint32_t id, const char *glob)
{
    if (id >= f->nstep_name)
        f->step_name = stint_xgrow_zeroed(f->step_name, &f->nstep_name, (size_t)id + 1, 1, 64);
    if (!f->step_name[id])
        f->step_name[id] = fnmatch(glob, stint_model_str(f->m, id, NULL), 0) == 0 ? 2 : 1;
    return f->step_name[id] == 2;
}

/* The steps of file fi (its step spans on lanes without device work, inside
 * the range), appended to r->steps. */
static void file_steps(struct stint_gpu_result *r, size_t *cap, struct gpu_file *f, uint32_t fi,
                       const struct stint_gpu_opts *o)
{
    const struct stint_model *m = f->m;
    int64_t t0 = o->has_t0 ? o->t0 : INT64_MIN, t1 = o->has_t1 ? o->t1 : INT64_MAX;
    const struct stint_interval *all = f->u[STINT_GPU_CLASSES];
    size_t nall = f->nu[STINT_GPU_CLASSES];
    for (size_t i = 0; i < f->nstepc; i++) {
        const struct gpu_stepc *s = &f->stepc[i];
        if ((s->lane < f->nlane_work && f->lane_work[s->lane]) || !stint_filter_overlaps(t0, t1, s->ts, s->dur))
            continue;
        r->steps = stint_xgrow(r->steps, cap, r->nsteps + 1, sizeof *r->steps, 16);
        struct stint_gpu_step *st = &r->steps[r->nsteps++];
        memset(st, 0, sizeof *st);
        st->file = fi;
        st->name = stint_model_str(m, s->name, &st->name_len);
        st->ts_ns = s->ts;
        st->wall_ns = s->dur;
        int64_t e = s->ts + s->dur;
        st->busy_ns = stint_gpu_clip_len(all, nall, s->ts, e);
        for (int c = 0; c < STINT_GPU_CLASSES; c++)
            st->cls_ns[c] = stint_gpu_clip_len(f->u[c], f->nu[c], s->ts, e);
    }
}

/* Per rank: step median and max, and sums over its devices. */
static void rank_rows(struct stint_gpu_result *r, struct gpu_file *fs, size_t n)
{
    r->nranks = n;
    r->ranks = stint_xcalloc(n, sizeof *r->ranks);
    int64_t *w = stint_xmalloc((r->nsteps ? r->nsteps : 1) * sizeof *w);
    for (size_t fi = 0; fi < n; fi++) {
        struct stint_gpu_rank *rk = &r->ranks[fi];
        rk->rank = fs[fi].rank;
        rk->file = (uint32_t)fi;
        size_t k = 0;
        for (size_t i = 0; i < r->nsteps; i++)
            if (r->steps[i].file == fi)
                w[k++] = r->steps[i].wall_ns;
        rk->steps = k;
        if (k) {
            stint_sort_i64(w, k);
            rk->step_median_ns = stint_gpu_rank_q(w, k, 50);
            rk->step_max_ns = w[k - 1];
        }
        for (size_t d = 0; d < r->ndevices; d++) {
            const struct stint_gpu_device *dv = &r->devices[d];
            if (dv->file != fi)
                continue;
            rk->busy_ns += dv->busy_ns;
            rk->idle_ns += (dv->win1 - dv->win0) - dv->busy_ns;
            rk->comm_ns += dv->cls_ns[STINT_GPU_COMM];
        }
    }
    /* the straggler: the highest median (first on a tie), against the median rank */
    size_t k = 0;
    for (size_t fi = 0; fi < n; fi++) {
        if (!r->ranks[fi].steps)
            continue;
        w[k++] = r->ranks[fi].step_median_ns;
        if (!r->has_straggler || r->ranks[fi].step_median_ns > r->ranks[r->straggler].step_median_ns)
            r->straggler = fi;
        r->has_straggler = 1;
    }
    if (k) {
        stint_sort_i64(w, k);
        int64_t mid = stint_gpu_rank_q(w, k, 50);
        r->straggler_ratio = mid > 0 ? (double)r->ranks[r->straggler].step_median_ns / (double)mid : 0.0;
    }
    free(w);
}

/* Per step name of two or more ranks: the rank whose step ended last. */
static void last_rows(struct stint_gpu_result *r, size_t n)
{
    struct gpu_names names = {0};
    size_t cap = 0;
    /* ends[name * n + file]: the latest end of that name's steps in that file (INT64_MIN: none) */
    int64_t *ends = NULL;
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct stint_gpu_step *st = &r->steps[i];
        size_t before = names.n, k = stint_gpu_names_get(&names, st->name, st->name_len);
        if (names.n > before) {
            ends = stint_xgrow(ends, &cap, names.n * n, sizeof *ends, 64 * n);
            for (size_t f = 0; f < n; f++)
                ends[k * n + f] = INT64_MIN;
        }
        int64_t e = st->ts_ns + st->wall_ns;
        if (e > ends[k * n + st->file])
            ends[k * n + st->file] = e;
    }
    r->lasts = stint_xcalloc(names.n ? names.n : 1, sizeof *r->lasts);
    for (size_t k = 0; k < names.n; k++) {
        size_t have = 0, last = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t f = 0; f < n; f++) {
            int64_t e = ends[k * n + f];
            if (e == INT64_MIN)
                continue;
            have++;
            if (e > hi) {
                hi = e;
                last = f;
            }
            if (e < lo)
                lo = e;
        }
        if (have < 2)
            continue;
        r->lasts[r->nlasts++] = (struct stint_gpu_last){names.s[k], names.len[k], r->ranks[last].rank, hi, hi - lo};
    }
    free(ends);
    stint_gpu_names_free(&names);
}

void stint_gpu_steps(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o)
{
    size_t cap = 0;
    for (size_t fi = 0; fi < n; fi++)
        file_steps(r, &cap, &fs[fi], (uint32_t)fi, o);
    if (n > 1) {
        rank_rows(r, fs, n);
        last_rows(r, n);
    }
}
