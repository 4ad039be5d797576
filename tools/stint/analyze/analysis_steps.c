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
 */
#include "analyze/analysis.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

struct child_iv {
    uint32_t step;  /* row index */
    uint32_t child; /* child name, by first appearance */
    struct stint_iv iv;
};

static int civ_cmp(const void *pa, const void *pb)
{
    const struct child_iv *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->child != b->child)
        return a->child < b->child ? -1 : 1;
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

/* qsort's context for rank_cmp: each child's total and name id, by first appearance. */
static const stint_i128 *rank_totals;
static const uint32_t *rank_names;

/* Orders first-appearance indices by total union time (largest first), then
 * by name bytes (a shorter prefix first): a total order, names being distinct. */
static int rank_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (rank_totals[a] != rank_totals[b])
        return rank_totals[a] > rank_totals[b] ? -1 : 1;
    size_t la, lb;
    const char *sa = stint_model_str(sort_model, rank_names[a], &la);
    const char *sb = stint_model_str(sort_model, rank_names[b], &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c)
        return c;
    return (la > lb) - (la < lb);
}

static int cell_rank_cmp(const void *pa, const void *pb)
{
    const struct stint_step_cell *a = pa, *b = pb;
    return (a->child > b->child) - (a->child < b->child);
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

int stint_steps_sparse_compute(struct stint_steps_sparse *r, const struct stint_model *mm, const char *step_glob,
                               const struct stint_filter *filter, size_t max_shown)
{
    memset(r, 0, sizeof *r);
    size_t n = stint_model_nslices(mm);
    size_t cap = n ? n : 1;
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_model_slice(mm, i)->name > maxname)
            maxname = stint_model_slice(mm, i)->name;
    uint32_t *step_of = malloc(cap * sizeof *step_of);                   /* slice -> row */
    uint32_t *steps = malloc(cap * sizeof *steps);                       /* row -> slice */
    uint32_t *names = malloc(cap * sizeof *names);                       /* first appearance -> name id */
    uint32_t *child_of = malloc(((size_t)maxname + 1) * sizeof *child_of); /* name id -> first appearance */
    struct child_iv *civ = malloc(cap * sizeof *civ);
    struct stint_iv *tmp = malloc(cap * sizeof *tmp);
    stint_i128 *totals = NULL;
    uint32_t *order = NULL, *rank_of = NULL, *children = NULL;
    struct stint_step_row *rows = NULL;
    struct stint_step_cell *cells = NULL;
    int rc = -1; /* 0 once r holds the result */
    if (!step_of || !steps || !names || !child_of || !civ || !tmp)
        goto out;
    memset(child_of, 0xff, ((size_t)maxname + 1) * sizeof *child_of);
    size_t nsteps = 0, nchildren = 0, nciv = 0;
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
    size_t nhost = 0;
    for (size_t k = 0; k < nsteps; k++) {
        step_of[steps[k]] = (uint32_t)k;
        nhost += !stint_model_track_device(mm, stint_model_track_at(mm, stint_model_slice(mm, steps[k])->track));
    }
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
        uint32_t child = child_of[s->name];
        if (child == STINT_NO_ID) {
            child = (uint32_t)nchildren;
            child_of[s->name] = child;
            names[nchildren++] = s->name;
        }
        civ[nciv].step = step_of[s->parent];
        civ[nciv].child = child;
        /* clipped at both ends (an explicit-parent child may start early) */
        civ[nciv].iv.start_ns = s->ts_ns < p->ts_ns ? p->ts_ns : s->ts_ns;
        civ[nciv].iv.end_ns = end;
        nciv++;
    }
    qsort(civ, nciv, sizeof *civ, civ_cmp);
    size_t ccap = nchildren ? nchildren : 1;
    totals = calloc(ccap, sizeof *totals);
    order = malloc(ccap * sizeof *order);
    rank_of = malloc(ccap * sizeof *rank_of);
    children = malloc(ccap * sizeof *children);
    rows = calloc(nsteps ? nsteps : 1, sizeof *rows);
    cells = malloc((nciv ? nciv : 1) * sizeof *cells); /* at most one cell per interval */
    if (!totals || !order || !rank_of || !children || !rows || !cells)
        goto out;
    /* pass 1: per step, one cell per child name (its union), the overlap and the remainder */
    size_t ncells = 0, c0 = 0;
    for (size_t k = 0; k < nsteps; k++) {
        struct stint_step_row *row = &rows[k];
        row->slice = steps[k];
        row->wall_ns = stint_model_slice(mm, steps[k])->dur_ns;
        row->cell0 = ncells;
        size_t c1 = c0;
        while (c1 < nciv && civ[c1].step == k)
            c1++;
        for (size_t a = c0; a < c1;) {
            size_t b = a, nt = 0;
            while (b < c1 && civ[b].child == civ[a].child)
                tmp[nt++] = civ[b++].iv;
            int64_t u = stint_an_union(tmp, nt);
            cells[ncells].step = (uint32_t)k;
            cells[ncells].child = civ[a].child;
            cells[ncells].union_ns = u;
            ncells++;
            totals[civ[a].child] += u;
            a = b;
        }
        row->ncells = ncells - row->cell0;
        size_t nt = 0;
        for (size_t j = c0; j < c1; j++)
            tmp[nt++] = civ[j].iv;
        int64_t all = stint_an_union_overlap(tmp, nt, &row->overlap_ns);
        row->unattributed_ns = row->wall_ns - all; /* >= 0: every child interval is clipped to the step */
        c0 = c1;
    }
    /* rank the names; cells refer to ranks, in rank order within a step */
    for (size_t c = 0; c < nchildren; c++)
        order[c] = (uint32_t)c;
    rank_totals = totals;
    rank_names = names;
    qsort(order, nchildren, sizeof *order, rank_cmp);
    for (size_t k = 0; k < nchildren; k++) {
        rank_of[order[k]] = (uint32_t)k;
        children[k] = names[order[k]];
    }
    for (size_t j = 0; j < ncells; j++)
        cells[j].child = rank_of[cells[j].child];
    for (size_t k = 0; k < nsteps; k++)
        qsort(&cells[rows[k].cell0], rows[k].ncells, sizeof *cells, cell_rank_cmp);
    /* pass 2: per step, the union of the names ranked past the shown ones */
    size_t nshown = max_shown < nchildren ? max_shown : nchildren;
    c0 = 0;
    for (size_t k = 0; k < nsteps && nshown < nchildren; k++) {
        size_t c1 = c0, nt = 0;
        for (; c1 < nciv && civ[c1].step == k; c1++)
            if (rank_of[civ[c1].child] >= nshown)
                tmp[nt++] = civ[c1].iv;
        rows[k].other_ns = stint_an_union(tmp, nt);
        c0 = c1;
    }
    r->nsteps = nsteps;
    r->nhost = nhost;
    r->nchildren = nchildren;
    r->nshown = nshown;
    r->ncells = ncells;
    r->rows = rows;
    r->children = children;
    r->cells = cells;
    r->unfinished = unfinished_steps;
    rows = NULL; /* (now r's) */
    children = NULL;
    cells = NULL;
    rc = 0;
out:
    free(step_of);
    free(steps);
    free(names);
    free(child_of);
    free(civ);
    free(tmp);
    free(totals);
    free(order);
    free(rank_of);
    free(children);
    free(rows);
    free(cells);
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

/* The i-th smallest of sorted v (n values) merged with nzero zeros. */
static int64_t padded_at(const int64_t *v, size_t n, size_t nzero, size_t i)
{
    size_t neg = 0; /* zeros sort after the negative values (none in practice: unions are >= 0) */
    while (neg < n && v[neg] < 0)
        neg++;
    if (i < neg)
        return v[i];
    if (i < neg + nzero)
        return 0;
    return v[i - nzero];
}

/* min, median and max of sorted v (n values) together with nzero zeros
 * (steps in which a child name does not occur); noccur = n. n + nzero > 0. */
static struct stint_step_stats stats_of(const int64_t *v, size_t n, size_t nzero)
{
    size_t total = n + nzero;
    struct stint_step_stats st;
    st.min_ns = padded_at(v, n, nzero, 0);
    st.max_ns = padded_at(v, n, nzero, total - 1);
    if (total % 2) {
        st.median.num = padded_at(v, n, nzero, total / 2);
        st.median.den = 1;
    } else {
        st.median.num = (stint_i128)padded_at(v, n, nzero, total / 2 - 1) + padded_at(v, n, nzero, total / 2);
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
            stint_an_sort_i64(v, k1 - k0);
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
            stint_an_sort_i64(part[dev], n[dev]);
            st->child[dev][k] = stats_of(part[dev], n[dev], st->nsteps[dev] - n[dev]);
        }
    }
    free(v);
    free(start);
    free(nhost);
    free(fill);
    return 0;
}
