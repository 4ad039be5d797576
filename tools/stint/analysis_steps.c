/*
 * analysis_steps.c - the per-step breakdown (analysis.h): wall time, the
 * union of each direct child name inside the step, the overlap between
 * children and the unattributed remainder. Child intervals are clipped to
 * their step before any union, so the remainder cannot be negative and no
 * figure adds a step to its children.
 */
#include "analysis.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct child_iv {
    uint32_t step;   /* index into steps */
    uint32_t col;    /* child name column */
    struct stint_iv iv;
};

static int civ_cmp(const void *pa, const void *pb)
{
    const struct child_iv *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->iv.start_ns > b->iv.start_ns) - (a->iv.start_ns < b->iv.start_ns);
}

static const struct stint_model *sort_model;

static int step_cmp(const void *pa, const void *pb)
{
    const struct stint_slice *a = stint_model_slice(sort_model, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(sort_model, *(const uint32_t *)pb);
    /* host-clock steps first, then device-clock ones: their ts is an offset
     * on another clock, never ordered against host time */
    int da = stint_model_track_device(sort_model, stint_model_track_at(sort_model, a->track));
    int db = stint_model_track_device(sort_model, stint_model_track_at(sort_model, b->track));
    if (da != db)
        return da - db;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Whether slice s carries a true "measured" arg: a JSONL session's span_start
 * field, which the reader keeps as the arg "args.measured" (a Chrome span's
 * top-level args {"measured": true}, as convert writes a session, reads the
 * same). Only that exact key: "args.unmeasured" or "args.x.measured" is not it. */
static int is_measured(const struct stint_model *m, const struct stint_slice *s)
{
    for (uint32_t k = 0; k < s->nargs; k++) {
        const struct stint_arg *a = stint_model_arg_at(m, s->args + k);
        size_t kl;
        const char *key = stint_model_str(m, a->key, &kl);
        if (kl == 13 && !memcmp(key, "args.measured", 13) && a->kind == STINT_ARG_BOOL && a->ival)
            return 1;
    }
    return 0;
}

void stint_steps_free(struct stint_steps *r)
{
    free(r->steps);
    free(r->cols);
    free(r->fig);
    memset(r, 0, sizeof *r);
}

int stint_steps_compute(struct stint_steps *r, const struct stint_model *mm, const char *step_glob,
                        const struct stint_filter *filter)
{
    memset(r, 0, sizeof *r);
    size_t n = stint_model_nslices(mm);
    uint32_t *step_of = malloc((n ? n : 1) * sizeof *step_of); /* slice -> step number */
    uint32_t *steps = malloc((n ? n : 1) * sizeof *steps);       /* step number -> slice */
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols);         /* column -> name id */
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_model_slice(mm, i)->name > maxname)
            maxname = stint_model_slice(mm, i)->name;
    uint32_t *col_of = malloc(((size_t)maxname + 1) * sizeof *col_of); /* name id -> column */
    if (col_of)
        memset(col_of, 0xff, ((size_t)maxname + 1) * sizeof *col_of);
    struct child_iv *civ = malloc((n ? n : 1) * sizeof *civ);
    struct stint_iv *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!step_of || !steps || !cols || !col_of || !civ || !tmp) {
        goto oom;
    }
    size_t nsteps = 0, ncols = 0, nciv = 0;
    uint64_t unfinished_steps = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(mm, i);
        step_of[i] = STINT_NO_ID;
        if (stint_model_track_at(mm, s->track)->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT))
            continue;
        int match = step_glob ? fnmatch(step_glob, stint_model_str(mm, s->name, NULL), 0) == 0 : is_measured(mm, s);
        if (!match || (filter && !stint_filter_slice(filter, mm, s)))
            continue;
        if (s->dur_ns < 0) {
            unfinished_steps++;
            continue;
        }
        step_of[i] = (uint32_t)nsteps;
        steps[nsteps++] = (uint32_t)i;
    }
    /* steps in time order per clock (the model groups slices by track) */
    sort_model = mm;
    qsort(steps, nsteps, sizeof *steps, step_cmp);
    for (size_t k = 0; k < nsteps; k++)
        step_of[steps[k]] = (uint32_t)k;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(mm, i);
        /* an unfinished child has no end: it covers nothing (no made-up end, as in summary and tree);
         * an instant covers no time and is no column (as in tree, where it makes no row) */
        if (s->parent == STINT_NO_ID || step_of[s->parent] == STINT_NO_ID || s->dur_ns < 0 ||
            (s->flags & STINT_SLICE_INSTANT))
            continue;
        const struct stint_slice *p = stint_model_slice(mm, s->parent);
        int64_t pend = p->ts_ns + p->dur_ns;
        int64_t end = s->ts_ns + s->dur_ns;
        if (end > pend)
            end = pend;
        uint32_t col = col_of[s->name];
        if (col == STINT_NO_ID) {
            col = (uint32_t)ncols;
            col_of[s->name] = col;
            cols[ncols++] = s->name;
        }
        civ[nciv].step = step_of[s->parent];
        civ[nciv].col = col;
        /* clipped at both ends (an explicit-parent child may start early) */
        civ[nciv].iv.start_ns = s->ts_ns < p->ts_ns ? p->ts_ns : s->ts_ns;
        civ[nciv].iv.end_ns = end;
        nciv++;
    }
    qsort(civ, nciv, sizeof *civ, civ_cmp);
    /* table: per step, ncols + 3 figures (wall, cols..., overlap, remainder) */
    size_t width = ncols + 3;
    int64_t *fig = calloc(nsteps * width + 1, sizeof *fig);
    if (!fig) {
        goto oom;
    }
    size_t c0 = 0;
    for (size_t k = 0; k < nsteps; k++) {
        int64_t *row = &fig[k * width];
        row[0] = stint_model_slice(mm, steps[k])->dur_ns;
        size_t c1 = c0;
        while (c1 < nciv && civ[c1].step == k)
            c1++;
        /* per column unions */
        size_t a = c0;
        while (a < c1) {
            size_t b = a, nt = 0;
            while (b < c1 && civ[b].col == civ[a].col)
                tmp[nt++] = civ[b++].iv;
            row[1 + civ[a].col] = stint_an_union(tmp, nt);
            a = b;
        }
        size_t nt = 0;
        for (size_t j = c0; j < c1; j++)
            tmp[nt++] = civ[j].iv;
        int64_t ov;
        int64_t all = stint_an_union_overlap(tmp, nt, &ov);
        row[1 + ncols] = ov;
        row[2 + ncols] = row[0] - all; /* >= 0: every child interval is clipped to the step */
        c0 = c1;
    }
    free(step_of);
    free(col_of);
    free(civ);
    free(tmp);
    r->nsteps = nsteps;
    r->ncols = ncols;
    r->width = width;
    r->steps = steps;
    r->cols = cols;
    r->fig = fig;
    r->unfinished = unfinished_steps;
    return 0;
oom:
    free(step_of);
    free(col_of);
    free(steps);
    free(cols);
    free(civ);
    free(tmp);
    return -1;
}
