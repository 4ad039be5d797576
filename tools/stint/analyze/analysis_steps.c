/* SPDX-License-Identifier: MIT */
/*
 * analysis_steps.c - the per-step breakdown (analysis.h): wall time, the
 * union of each direct child name inside the step, the overlap between
 * children and the unattributed remainder. Child intervals are clipped to
 * their step before any union, so the remainder cannot be negative and no
 * figure adds a step to its children.
 *
 * One pass builds the sparse form: child intervals sorted by (step, name,
 * start) give one cell per (step, name) that occurs, so memory and time stay
 * linear in the input however many distinct child names there are. Nothing
 * here allocates steps x names. The per-clock stats read the same cells: a
 * step in which a name does not occur counts as a 0 that is never stored.
 *
 * Steps are per lane kind: a step name matches case-blind, and when it
 * matches spans both on CPU threads and on GPU streams (Kineto writes each
 * ProfilerStep#N again as a gpu_user_annotation on a stream), the CPU
 * threads' are the steps and the others are counted, never mixed in.
 */
#include "analyze/analysis.h"
#include "analyze/gpu.h"
#include "base/cmp.h"
#include "base/intervals.h"
#include "base/xalloc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct child_iv {
    uint32_t step;  /* row index */
    uint32_t child; /* child name, by first appearance */
    struct stint_interval iv;
};

static int civ_cmp(const void *pa, const void *pb)
{
    const struct child_iv *a = pa, *b = pb;
    int c = stint_cmp_u32(a->step, b->step);
    if (!c)
        c = stint_cmp_u32(a->child, b->child);
    return c ? c : stint_cmp_i64(a->iv.start, b->iv.start);
}

/* Orders step slices (qsort_r, ctx the model): host-clock steps first, then
 * device-clock ones (their ts is an offset on another clock, never ordered
 * against host time); by time, then by the order they were read in. */
static int step_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_model *m = ctx;
    const struct stint_slice *a = stint_model_slice(m, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(m, *(const uint32_t *)pb);
    int da = stint_model_track_device(m, stint_model_track_at(m, a->track));
    int db = stint_model_track_device(m, stint_model_track_at(m, b->track));
    if (da != db)
        return da - db;
    int c = stint_cmp_i64(a->ts_ns, b->ts_ns);
    return c ? c : stint_cmp_u32(a->seq, b->seq);
}

/* The work of stint_steps_sparse_compute, its scratch and its result. */
struct steps_work {
    const struct stint_model *m;
    size_t nsteps, nhost, nchildren, nciv, ncells;
    uint64_t unfinished, on_streams;
    uint32_t *step_of;        /* slice -> row */
    uint32_t *steps;          /* row -> slice */
    uint32_t *names;          /* first appearance -> name id */
    uint32_t *child_of;       /* name id -> first appearance */
    struct child_iv *civ;     /* the steps' children's intervals, by (step, child, start) */
    struct stint_interval *tmp;
    stint_i128 *totals;       /* per first appearance: its unions summed over the steps */
    uint32_t *order, *rank_of, *children;
    struct stint_step_row *rows;
    struct stint_step_cell *cells;
};

int stint_step_rank_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_step_rank *w = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (w->totals[a] != w->totals[b])
        return w->totals[a] > w->totals[b] ? -1 : 1;
    size_t la, lb;
    const char *sa = stint_model_str(w->m, w->names[a], &la);
    const char *sb = stint_model_str(w->m, w->names[b], &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    return c ? c : stint_cmp_u64(la, lb);
}

int stint_step_cell_cmp(const void *pa, const void *pb)
{
    return stint_cmp_u32(((const struct stint_step_cell *)pa)->child, ((const struct stint_step_cell *)pb)->child);
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

void stint_steps_sparse_free(struct stint_steps_sparse *r)
{
    free(r->rows);
    free(r->children);
    free(r->cells);
    memset(r, 0, sizeof *r);
}

/* Whether the category text (or one of its comma parts) is GPU work or a
 * GPU annotation as Kineto writes them for CUDA, ROCm and MTIA, any case. */
static int gpu_cat(const char *cat)
{
    for (const char *p = cat; *p;) {
        size_t n = strcspn(p, ",");
        enum stint_gpu_cat k = stint_gpu_cat_of(p, n); /* (gpu.h: the one list) */
        if (k == STINT_GPU_CAT_KERNEL || k == STINT_GPU_CAT_COPY || k == STINT_GPU_CAT_MTIA ||
            k == STINT_GPU_CAT_ANNOT)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

uint8_t *stint_steps_stream_lanes(const struct stint_model *m)
{
    uint8_t *gpu = stint_xcalloc(m->lanes.len ? m->lanes.len : 1, 1);
    uint32_t last_yes = STINT_NO_ID, last_no = STINT_NO_ID; /* (a one-entry cache each: runs of one cat) */
    for (size_t l = 0; l < m->lanes.len; l++) {
        size_t n;
        const char *t = stint_model_str(m, stint_model_lane_at(m, (uint32_t)l)->tid_text, &n);
        gpu[l] = n > 7 && !strncasecmp(t, "stream ", 7);
    }
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD || gpu[t->lane] || s->cat == last_no)
            continue;
        if (s->cat == last_yes || gpu_cat(stint_model_str(m, s->cat, NULL))) {
            gpu[t->lane] = 1;
            last_yes = s->cat;
        } else {
            last_no = s->cat;
        }
    }
    return gpu;
}

/* The finished steps that match, in row order (host steps first, each
 * clock's in time order): steps, step_of, nsteps, nhost, unfinished; the
 * matches on GPU streams are left out (on_streams) when CPU threads have
 * some: steps are per lane kind. */
static void steps_find(struct steps_work *w, const char *step_glob, const struct stint_filter *filter)
{
    const struct stint_model *mm = w->m;
    size_t n = stint_model_nslices(mm);
    uint8_t *gpu = stint_steps_stream_lanes(mm);
    size_t on_cpu = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(mm, i);
        const struct stint_track *t = stint_model_track_at(mm, s->track);
        w->step_of[i] = STINT_NO_ID;
        if (t->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT))
            continue;
        int match = step_glob ? fnmatch(step_glob, stint_model_str(mm, s->name, NULL), FNM_CASEFOLD) == 0
                              : is_measured(mm, s);
        if (!match || (filter && !stint_filter_slice(filter, mm, s)))
            continue;
        if (s->dur_ns < 0) {
            w->unfinished++;
            continue;
        }
        on_cpu += !gpu[t->lane];
        w->step_of[i] = (uint32_t)w->nsteps;
        w->steps[w->nsteps++] = (uint32_t)i;
    }
    if (on_cpu && on_cpu < w->nsteps) { /* both kinds: the CPU threads' are the steps */
        size_t k = 0;
        for (size_t j = 0; j < w->nsteps; j++) {
            uint32_t i = w->steps[j];
            if (gpu[stint_model_track_at(mm, stint_model_slice(mm, i)->track)->lane]) {
                w->step_of[i] = STINT_NO_ID;
                w->on_streams++;
            } else {
                w->steps[k++] = i;
            }
        }
        w->nsteps = k;
    }
    free(gpu);
    /* steps in time order per clock (the model groups slices by track) */
    stint_xqsort_r(w->steps, w->nsteps, sizeof *w->steps, step_cmp, (void *)mm);
    for (size_t k = 0; k < w->nsteps; k++) {
        w->step_of[w->steps[k]] = (uint32_t)k;
        w->nhost += !stint_model_track_device(mm, stint_model_track_at(mm, stint_model_slice(mm, w->steps[k])->track));
    }
}

/* The steps' direct children, clipped to their step, sorted by (step,
 * child, start): civ, nciv, names, child_of, nchildren. */
static void steps_child_ivs(struct steps_work *w)
{
    const struct stint_model *mm = w->m;
    size_t n = stint_model_nslices(mm);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(mm, i);
        /* an unfinished child has no end: it covers nothing (no made-up end, as in summary and tree);
         * an instant covers no time and is no column (as in tree, where it makes no row) */
        if (s->parent == STINT_NO_ID || w->step_of[s->parent] == STINT_NO_ID || s->dur_ns < 0 ||
            (s->flags & STINT_SLICE_INSTANT))
            continue;
        const struct stint_slice *p = stint_model_slice(mm, s->parent);
        int64_t pend = p->ts_ns + p->dur_ns;
        int64_t end = s->ts_ns + s->dur_ns;
        if (end > pend)
            end = pend;
        uint32_t child = w->child_of[s->name];
        if (child == STINT_NO_ID) {
            child = (uint32_t)w->nchildren;
            w->child_of[s->name] = child;
            w->names[w->nchildren++] = s->name;
        }
        /* clipped at both ends (an explicit-parent child may start early) */
        int64_t start = s->ts_ns < p->ts_ns ? p->ts_ns : s->ts_ns;
        w->civ[w->nciv++] = (struct child_iv){w->step_of[s->parent], child, {start, end}};
    }
    stint_xqsort(w->civ, w->nciv, sizeof *w->civ, civ_cmp);
}

/* Per step: one cell per child name (its union), the overlap and the
 * unattributed remainder; totals per child. */
static void steps_cells(struct steps_work *w)
{
    size_t c0 = 0;
    int64_t ov;
    for (size_t k = 0; k < w->nsteps; k++) {
        struct stint_step_row *row = &w->rows[k];
        const struct stint_slice *ss = stint_model_slice(w->m, w->steps[k]);
        row->slice = w->steps[k];
        row->lane = stint_model_track_at(w->m, ss->track)->lane;
        row->ts_ns = ss->ts_ns;
        row->wall_ns = ss->dur_ns;
        row->cell0 = w->ncells;
        size_t c1 = c0;
        while (c1 < w->nciv && w->civ[c1].step == k)
            c1++;
        for (size_t a = c0, b; a < c1; a = b) {
            size_t nt = 0;
            for (b = a; b < c1 && w->civ[b].child == w->civ[a].child; b++)
                w->tmp[nt++] = w->civ[b].iv;
            int64_t u = stint_intervals_union_overlap(w->tmp, nt, &ov);
            w->cells[w->ncells++] = (struct stint_step_cell){(uint32_t)k, w->civ[a].child, u};
            w->totals[w->civ[a].child] += u;
        }
        row->ncells = w->ncells - row->cell0;
        size_t nt = 0;
        for (size_t j = c0; j < c1; j++)
            w->tmp[nt++] = w->civ[j].iv;
        int64_t all = stint_intervals_union_overlap(w->tmp, nt, &row->overlap_ns);
        row->unattributed_ns = row->wall_ns - all; /* >= 0: every child interval is clipped to the step */
        c0 = c1;
    }
}

/* Ranks the names; cells then refer to ranks, in rank order within a step. */
static void steps_rank(struct steps_work *w)
{
    for (size_t c = 0; c < w->nchildren; c++)
        w->order[c] = (uint32_t)c;
    struct stint_step_rank rk = {w->m, w->names, w->totals};
    stint_xqsort_r(w->order, w->nchildren, sizeof *w->order, stint_step_rank_cmp, &rk);
    for (size_t k = 0; k < w->nchildren; k++) {
        w->rank_of[w->order[k]] = (uint32_t)k;
        w->children[k] = w->names[w->order[k]];
    }
    for (size_t j = 0; j < w->ncells; j++)
        w->cells[j].child = w->rank_of[w->cells[j].child];
    for (size_t k = 0; k < w->nsteps; k++)
        stint_xqsort(&w->cells[w->rows[k].cell0], w->rows[k].ncells, sizeof *w->cells, stint_step_cell_cmp);
}

/* Per step, the union of the names ranked past the nshown shown ones. */
static void steps_other(struct steps_work *w, size_t nshown)
{
    int64_t ov;
    for (size_t k = 0, c0 = 0; k < w->nsteps && nshown < w->nchildren; k++) {
        size_t c1 = c0, nt = 0;
        for (; c1 < w->nciv && w->civ[c1].step == k; c1++)
            if (w->rank_of[w->civ[c1].child] >= nshown)
                w->tmp[nt++] = w->civ[c1].iv;
        w->rows[k].other_ns = stint_intervals_union_overlap(w->tmp, nt, &ov);
        c0 = c1;
    }
}

static void steps_work_free(struct steps_work *w)
{
    void *all[] = {w->step_of, w->steps, w->names, w->child_of, w->civ,      w->tmp,
                   w->totals,  w->order, w->rank_of, w->children, w->rows, w->cells};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

int stint_steps_sparse_compute(struct stint_steps_sparse *r, const struct stint_model *mm, const char *step_glob,
                               const struct stint_filter *filter, size_t max_shown)
{
    memset(r, 0, sizeof *r);
    struct steps_work w = {.m = mm};
    size_t n = stint_model_nslices(mm), cap = n ? n : 1;
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_model_slice(mm, i)->name > maxname)
            maxname = stint_model_slice(mm, i)->name;
    w.step_of = malloc(cap * sizeof *w.step_of);
    w.steps = malloc(cap * sizeof *w.steps);
    w.names = malloc(cap * sizeof *w.names);
    w.child_of = malloc(((size_t)maxname + 1) * sizeof *w.child_of);
    w.civ = malloc(cap * sizeof *w.civ);
    w.tmp = malloc(cap * sizeof *w.tmp);
    int rc = -1; /* 0 once r holds the result */
    if (!w.step_of || !w.steps || !w.names || !w.child_of || !w.civ || !w.tmp)
        goto out;
    memset(w.child_of, 0xff, ((size_t)maxname + 1) * sizeof *w.child_of);
    steps_find(&w, step_glob, filter);
    steps_child_ivs(&w);
    size_t ccap = w.nchildren ? w.nchildren : 1;
    w.totals = calloc(ccap, sizeof *w.totals);
    w.order = malloc(ccap * sizeof *w.order);
    w.rank_of = malloc(ccap * sizeof *w.rank_of);
    w.children = malloc(ccap * sizeof *w.children);
    w.rows = calloc(w.nsteps ? w.nsteps : 1, sizeof *w.rows);
    w.cells = malloc((w.nciv ? w.nciv : 1) * sizeof *w.cells); /* at most one cell per interval */
    if (!w.totals || !w.order || !w.rank_of || !w.children || !w.rows || !w.cells)
        goto out;
    steps_cells(&w);
    steps_rank(&w);
    size_t nshown = max_shown < w.nchildren ? max_shown : w.nchildren;
    steps_other(&w, nshown);
    *r = (struct stint_steps_sparse){.nsteps = w.nsteps, .nhost = w.nhost, .nchildren = w.nchildren,
                                     .nshown = nshown, .ncells = w.ncells, .rows = w.rows,
                                     .children = w.children, .cells = w.cells, .unfinished = w.unfinished,
                                     .on_streams = w.on_streams};
    w.rows = NULL; /* (now r's) */
    w.children = NULL;
    w.cells = NULL;
    rc = 0;
out:
    steps_work_free(&w);
    return rc;
}

int64_t stint_step_row_fig(const struct stint_step_row *row, enum stint_step_fig which)
{
    switch (which) {
    case STINT_STEP_WALL:
        return row->wall_ns;
    case STINT_STEP_OTHER:
        return row->other_ns;
    case STINT_STEP_OVERLAP:
        return row->overlap_ns;
    default:
        return row->unattributed_ns;
    }
}

/* The i-th smallest of v (n values, any order: reordered by the selection)
 * merged with nzero zeros, of which neg values are negative. */
static int64_t padded_at(int64_t *v, size_t n, size_t nzero, size_t neg, size_t i)
{
    if (i >= neg && i < neg + nzero) /* zeros sort after the negative values */
        return 0;
    size_t k = i < neg ? i : i - nzero;
    stint_select_i64(v, n, k); /* (a selection, not a sort: three ranks of a column are read) */
    return v[k];
}

/* min, median and max of v (n values, any order: reordered) together with
 * nzero zeros (steps in which a child name does not occur); noccur = n.
 * n + nzero > 0. */
static struct stint_step_stats stats_of(int64_t *v, size_t n, size_t nzero)
{
    size_t total = n + nzero, neg = 0; /* (none in practice: unions are >= 0) */
    for (size_t k = 0; k < n; k++)
        neg += v[k] < 0;
    struct stint_step_stats st;
    st.min_ns = padded_at(v, n, nzero, neg, 0);
    st.max_ns = padded_at(v, n, nzero, neg, total - 1);
    if (total % 2) {
        st.median.num = padded_at(v, n, nzero, neg, total / 2);
        st.median.den = 1;
    } else {
        st.median.num = (stint_i128)padded_at(v, n, nzero, neg, total / 2 - 1) + padded_at(v, n, nzero, neg, total / 2);
        st.median.den = 2;
    }
    st.noccur = n;
    return st;
}

void stint_steps_stats_free(struct stint_steps_stats *st)
{
    free(st->child[0]);
    free(st->child[1]);
    memset(st, 0, sizeof *st);
}

int stint_steps_stats_compute(struct stint_steps_stats *st, const struct stint_steps_sparse *r)
{
    memset(st, 0, sizeof *st);
    size_t ns = r->nshown, nv = r->nsteps > r->ncells ? r->nsteps : r->ncells;
    st->child[0] = calloc(ns ? ns : 1, sizeof *st->child[0]);
    st->child[1] = calloc(ns ? ns : 1, sizeof *st->child[1]);
    int64_t *v = malloc((nv ? nv : 1) * sizeof *v); /* a clock's figures, then the shown cells by rank */
    size_t *start = calloc(ns + 1, sizeof *start);  /* rank k's values: v[start[k] .. start[k + 1]) */
    size_t *nhost = calloc(ns ? ns : 1, sizeof *nhost); /* of them, the host steps' (a prefix) */
    size_t *fill = malloc((ns ? ns : 1) * sizeof *fill);
    if (!st->child[0] || !st->child[1] || !v || !start || !nhost || !fill) {
        stint_steps_stats_free(st);
        free(v);
        free(start);
        free(nhost);
        free(fill);
        return -1;
    }
    st->nsteps[0] = r->nhost;
    st->nsteps[1] = r->nsteps - r->nhost;
    for (int dev = 0; dev < 2; dev++) {
        size_t k0 = dev ? r->nhost : 0, k1 = dev ? r->nsteps : r->nhost;
        for (int which = 0; which < 4 && k1 > k0; which++) {
            for (size_t k = k0; k < k1; k++)
                v[k - k0] = stint_step_row_fig(&r->rows[k], (enum stint_step_fig)which);
            st->fig[dev][which] = stats_of(v, k1 - k0, 0);
        }
    }
    /* the shown children's unions grouped by rank; cells are in row order and host rows come
     * first, so each rank's host part is a prefix */
    for (size_t j = 0; j < r->ncells; j++)
        if (r->cells[j].child < ns)
            start[r->cells[j].child + 1]++;
    for (size_t k = 0; k < ns; k++) {
        start[k + 1] += start[k];
        fill[k] = start[k];
    }
    for (size_t j = 0; j < r->ncells; j++) {
        const struct stint_step_cell *c = &r->cells[j];
        if (c->child >= ns)
            continue;
        v[fill[c->child]++] = c->union_ns;
        nhost[c->child] += c->step < r->nhost;
    }
    for (size_t k = 0; k < ns; k++) {
        size_t n[2] = {nhost[k], start[k + 1] - start[k] - nhost[k]};
        int64_t *part[2] = {&v[start[k]], &v[start[k] + nhost[k]]};
        for (int dev = 0; dev < 2; dev++) {
            if (!st->nsteps[dev])
                continue;
            st->child[dev][k] = stats_of(part[dev], n[dev], st->nsteps[dev] - n[dev]);
        }
    }
    free(v);
    free(start);
    free(nhost);
    free(fill);
    return 0;
}

int stint_step_family_glob(const char *name, size_t stem, char *glob, size_t cap)
{
    size_t w = 0, i = 0;
    for (; i < stem && w + 3 < cap; i++) {
        if (strchr("*?[\\", name[i]))
            glob[w++] = '\\';
        glob[w++] = name[i];
    }
    if (i < stem || w + 2 > cap)
        return 0;
    glob[w++] = '*';
    glob[w] = 0;
    return 1;
}

size_t stint_step_stem(const char *name, size_t len)
{
    size_t d = len;
    while (d && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d < 2 || name[d - 1] != '#')
        return 0;
    for (size_t i = 0; i + 4 <= d; i++)
        if (!strncasecmp(name + i, "step", 4))
            return d;
    return 0;
}

struct step_family {
    uint32_t name; /* its first member seen */
    size_t stem;   /* the stem's length in bytes */
    size_t spans;
};

size_t stint_steps_guess(const struct stint_model *m, char *glob, size_t cap)
{
    size_t n = stint_model_nslices(m), nf = 0, fcap = 0;
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_model_slice(m, i)->name > maxname)
            maxname = stint_model_slice(m, i)->name;
    uint32_t *fam = stint_xmalloc(((size_t)maxname + 1) * sizeof *fam); /* name -> family + 1, 0: none, ~0: unseen */
    memset(fam, 0xff, ((size_t)maxname + 1) * sizeof *fam);
    struct step_family *f = NULL;
    uint8_t *gpu = stint_steps_stream_lanes(m);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT) || gpu[t->lane] || s->dur_ns < 0)
            continue;
        if (fam[s->name] == UINT32_MAX) {
            size_t len;
            const char *nm = stint_model_str(m, s->name, &len);
            size_t stem = stint_step_stem(nm, len), k;
            fam[s->name] = 0;
            for (k = 0; stem && k < nf; k++) {
                size_t fl;
                const char *fn = stint_model_str(m, f[k].name, &fl);
                if (f[k].stem == stem && !memcmp(fn, nm, stem))
                    break;
            }
            if (stem && k == nf) {
                f = stint_xgrow(f, &fcap, nf + 1, sizeof *f, 8);
                f[nf++] = (struct step_family){s->name, stem, 0};
            }
            if (stem)
                fam[s->name] = (uint32_t)k + 1;
        }
        if (fam[s->name])
            f[fam[s->name] - 1].spans++;
    }
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < nf; k++)
        if (best == SIZE_MAX || f[k].spans > f[best].spans)
            best = k;
    size_t spans = 0;
    if (best != SIZE_MAX) {
        if (stint_step_family_glob(stint_model_str(m, f[best].name, NULL), f[best].stem, glob, cap))
            spans = f[best].spans;
    }
    free(fam);
    free(f);
    free(gpu);
    return spans;
}
