/* SPDX-License-Identifier: MIT */
/*
 * report_steps_stream.c - the report's step table from the spans a lean
 * model streams (report_steps_stream.h), equal to stint_steps_sparse_compute
 * over the whole model (analysis_steps.c), and the report's two step-name
 * guesses made from the same stream.
 *
 * Without --step the name is known only at the end, so every span that
 * could be a step is kept as a candidate: a finished, non-instant span
 * whose name holds "step" in any case (each guess yields such a name; with
 * --step, the spans that match it). A candidate keeps 32 bytes and each of
 * its direct children (the span one level below it, the sink's frame
 * below being the candidate) 24 bytes: start, end clipped to it and name.
 * At the end the candidates that match the chosen glob are the steps and
 * the others are dropped; the rest is analysis_steps.c's computation
 * (cells per (step, name), rank by total union then name bytes, the
 * "other" union).
 *
 * Invariants: the stream is one walker, track after track in track order,
 * each track in the model's slice order (model.h), so "first seen" here is
 * the model's slice order. Lean records carry no input seq, which orders
 * steps of one clock that start at the same ns: with such a tie the table
 * is not made here (the caller reads the whole model).
 */
#include "write/report_steps_stream.h"

#include "analyze/analysis.h"
#include "analyze/gpu.h"
#include "base/cmp.h"
#include "base/intervals.h"
#include "base/xalloc.h"
#include "write/report_steps.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cand {
    int64_t ts, dur;
    uint32_t name, lane, track, ord; /* ord: its place in the stream */
};

struct civ {
    uint32_t step, name; /* candidate (then row), child name */
    int64_t start, end;
};

struct fam_ent {       /* spans of one step-family name on one lane */
    uint32_t name, lane;
    uint64_t spans;
};

struct stint_report_steps_stream {
    const char *glob;     /* --step, or NULL: guessed at the end */
    uint8_t *ncache;      /* per name id: 0 unknown, 1 candidate, 2 not; | 4 holds "step" (case kept),
                           * | 8 a step-family member (stem), | 16 looked at for those */
    size_t nncache;
    uint8_t *catgpu;      /* per cat id: 0 unknown, 1 GPU, 2 not */
    size_t ncatgpu;
    uint8_t *lanegpu;     /* per lane: a GPU stream (analysis_steps.c's rule) */
    size_t nlanes;
    uint32_t track;
    uint32_t *fr;         /* per level of the current track: its candidate or STINT_NO_ID */
    size_t frcap;
    uint32_t ord;
    struct cand *c;
    size_t nc, ccap;
    struct civ *iv;
    size_t niv, ivcap;
    uint32_t *unfin;      /* names of the unfinished candidates */
    size_t nunfin, unfincap;
    uint32_t *rootcnt;    /* per name id: root spans of a name holding "step" (the second guess) */
    size_t nroot;
    uint32_t best;
    uint64_t best_n;
    struct fam_ent *fe;   /* in first-seen order */
    size_t nfe, fecap;
    uint32_t *last_fe;    /* per name id: its latest entry + 1 */
    size_t nlast;
};

struct stint_report_steps_stream *stint_report_steps_stream_new(const char *step_glob)
{
    struct stint_report_steps_stream *s = stint_xcalloc(1, sizeof *s);
    s->glob = step_glob;
    s->track = STINT_NO_ID;
    return s;
}

/* Whether the category text (or a comma part of it) is GPU work or a GPU
 * annotation (analysis_steps.c's gpu_cat: the same rule). */
static int gpu_cat(const char *cat)
{
    for (const char *p = cat; *p;) {
        size_t n = strcspn(p, ",");
        enum stint_gpu_cat k = stint_gpu_cat_of(p, n);
        if (k == STINT_GPU_CAT_KERNEL || k == STINT_GPU_CAT_COPY || k == STINT_GPU_CAT_MTIA ||
            k == STINT_GPU_CAT_ANNOT)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Name id k's flags (ncache), looked up once. */
static uint8_t name_flags(struct stint_report_steps_stream *s, const struct stint_model *m, uint32_t k)
{
    if (k >= s->nncache)
        s->ncache = stint_xgrow_zeroed(s->ncache, &s->nncache, (size_t)k + 1, 1, 1024);
    if (s->ncache[k] & 16)
        return s->ncache[k];
    size_t len;
    const char *nm = stint_model_str(m, k, &len);
    int cand = s->glob ? fnmatch(s->glob, nm, FNM_CASEFOLD) == 0 : strcasestr(nm, "step") != NULL;
    s->ncache[k] = (uint8_t)(16 | (cand ? 1 : 2) | (strstr(nm, "step") ? 4 : 0) | (stint_step_stem(nm, len) ? 8 : 0));
    return s->ncache[k];
}

/* Marks ev's lane a GPU stream when its tid says so or ev's category is GPU work. */
static void lane_gpu(struct stint_report_steps_stream *s, const struct stint_model *m, const struct stint_span_ev *ev)
{
    if (!s->lanegpu) {
        s->nlanes = m->lanes.len;
        s->lanegpu = stint_xcalloc(s->nlanes ? s->nlanes : 1, 1);
        for (size_t l = 0; l < s->nlanes; l++) {
            size_t n;
            const char *t = stint_model_str(m, stint_model_lane_at(m, (uint32_t)l)->tid_text, &n);
            s->lanegpu[l] = n > 7 && !strncasecmp(t, "stream ", 7);
        }
    }
    if (ev->lane >= s->nlanes || s->lanegpu[ev->lane])
        return;
    if (ev->cat >= s->ncatgpu)
        s->catgpu = stint_xgrow_zeroed(s->catgpu, &s->ncatgpu, (size_t)ev->cat + 1, 1, 256);
    if (!s->catgpu[ev->cat])
        s->catgpu[ev->cat] = gpu_cat(stint_model_str(m, ev->cat, NULL)) ? 1 : 2;
    if (s->catgpu[ev->cat] == 1)
        s->lanegpu[ev->lane] = 1;
}

/* The guesses' counts: root spans of names holding "step", family members per lane. */
static void count_guess(struct stint_report_steps_stream *s, const struct stint_span_ev *ev, uint8_t nf)
{
    if ((nf & 4) && ev->level == 0) { /* (guess_step: unfinished ones too, any thread lane) */
        if (ev->name >= s->nroot)
            s->rootcnt = stint_xgrow_zeroed(s->rootcnt, &s->nroot, (size_t)ev->name + 1, sizeof *s->rootcnt, 64);
        if (s->rootcnt[ev->name] < UINT32_MAX && ++s->rootcnt[ev->name] > s->best_n) {
            s->best_n = s->rootcnt[ev->name];
            s->best = ev->name;
        }
    }
    if ((nf & 8) && ev->dur_ns >= 0) {
        if (ev->name >= s->nlast)
            s->last_fe = stint_xgrow_zeroed(s->last_fe, &s->nlast, (size_t)ev->name + 1, sizeof *s->last_fe, 64);
        uint32_t e1 = s->last_fe[ev->name];
        if (!e1 || s->fe[e1 - 1].lane != ev->lane) {
            s->fe = stint_xgrow(s->fe, &s->fecap, s->nfe + 1, sizeof *s->fe, 16);
            s->fe[s->nfe++] = (struct fam_ent){ev->name, ev->lane, 0};
            e1 = (uint32_t)s->nfe;
            s->last_fe[ev->name] = e1;
        }
        s->fe[e1 - 1].spans++;
    }
}

void stint_report_steps_stream_span(struct stint_report_steps_stream *s, const struct stint_model *m,
                                    const struct stint_span_ev *ev)
{
    if (ev->track != s->track)
        s->track = ev->track;
    s->fr = stint_xgrow(s->fr, &s->frcap, (size_t)ev->level + 1, sizeof *s->fr, 64);
    uint32_t parent = ev->level && ev->parent_on_top ? s->fr[ev->level - 1] : STINT_NO_ID;
    s->fr[ev->level] = STINT_NO_ID;
    uint32_t ord = s->ord++;
    lane_gpu(s, m, ev);
    if (ev->flags & STINT_SLICE_INSTANT)
        return; /* (no step, no column; what it nests takes its level) */
    uint8_t nf = name_flags(s, m, ev->name);
    if (!s->glob)
        count_guess(s, ev, nf);
    if (parent != STINT_NO_ID && ev->dur_ns >= 0) {
        const struct cand *p = &s->c[parent];
        int64_t start = ev->ts_ns < p->ts ? p->ts : ev->ts_ns, end = ev->ts_ns + ev->dur_ns;
        if (end > p->ts + p->dur)
            end = p->ts + p->dur;
        s->iv = stint_xgrow(s->iv, &s->ivcap, s->niv + 1, sizeof *s->iv, 1024);
        s->iv[s->niv++] = (struct civ){parent, ev->name, start, end};
    }
    if ((nf & 3) != 1)
        return;
    if (ev->dur_ns < 0) {
        s->unfin = stint_xgrow(s->unfin, &s->unfincap, s->nunfin + 1, sizeof *s->unfin, 16);
        s->unfin[s->nunfin++] = ev->name;
        return;
    }
    s->c = stint_xgrow(s->c, &s->ccap, s->nc + 1, sizeof *s->c, 256);
    s->c[s->nc] = (struct cand){ev->ts_ns, ev->dur_ns, ev->name, ev->lane, ev->track, ord};
    s->fr[ev->level] = (uint32_t)s->nc++;
}

/* The step family glob (stint_steps_guess's choice) into glob (cap bytes):
 * the family with the most spans on non-GPU lanes, ties the first seen;
 * 0 when there is none or it does not fit, else its span count. */
static size_t family_glob(const struct stint_report_steps_stream *s, const struct stint_model *m, char *glob,
                          size_t cap)
{
    struct fam {
        uint32_t name;
        size_t stem, spans;
    } *f = NULL;
    size_t nf = 0, fcap = 0;
    uint32_t *fam = stint_xcalloc(s->nlast ? s->nlast : 1, sizeof *fam); /* name -> family + 1 */
    for (size_t e = 0; e < s->nfe; e++) {
        const struct fam_ent *x = &s->fe[e];
        if (x->lane < s->nlanes && s->lanegpu[x->lane])
            continue;
        if (!fam[x->name]) {
            size_t len, k;
            const char *nm = stint_model_str(m, x->name, &len);
            size_t stem = stint_step_stem(nm, len);
            for (k = 0; k < nf; k++) {
                size_t fl;
                const char *fn = stint_model_str(m, f[k].name, &fl);
                if (f[k].stem == stem && !memcmp(fn, nm, stem))
                    break;
            }
            if (k == nf) {
                f = stint_xgrow(f, &fcap, nf + 1, sizeof *f, 8);
                f[nf++] = (struct fam){x->name, stem, 0};
            }
            fam[x->name] = (uint32_t)k + 1;
        }
        f[fam[x->name] - 1].spans += x->spans;
    }
    size_t best = SIZE_MAX, spans = 0;
    for (size_t k = 0; k < nf; k++)
        if (best == SIZE_MAX || f[k].spans > f[best].spans)
            best = k;
    if (best != SIZE_MAX) {
        if (stint_step_family_glob(stint_model_str(m, f[best].name, NULL), f[best].stem, glob, cap))
            spans = f[best].spans;
    }
    free(fam);
    free(f);
    return spans;
}

/* Steps in row order (qsort_r, ctx the model): host clock first, by start,
 * then by place in the stream. */
static int step_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_model *m = ctx;
    const struct cand *a = pa, *b = pb;
    int da = stint_model_lane_at(m, a->lane)->clock == STINT_CLOCK_DEVICE;
    int db = stint_model_lane_at(m, b->lane)->clock == STINT_CLOCK_DEVICE;
    if (da != db)
        return da - db;
    int c = stint_cmp_i64(a->ts, b->ts);
    return c ? c : stint_cmp_u32(a->ord, b->ord);
}

static int civ_cmp(const void *pa, const void *pb)
{
    const struct civ *a = pa, *b = pb;
    int c = stint_cmp_u32(a->step, b->step);
    if (!c)
        c = stint_cmp_u32(a->name, b->name);
    return c ? c : stint_cmp_i64(a->start, b->start);
}

/* The steps of glob among the candidates, in row order, into s->c[0, n)
 * (the children's step fields then name rows; the others STINT_NO_ID);
 * *nhost, *unfinished as stint_steps_sparse_compute counts them. */
static size_t pick_steps(struct stint_report_steps_stream *s, const struct stint_model *m, const char *glob,
                         size_t *nhost, uint64_t *unfinished)
{
    uint8_t *match = stint_xcalloc(s->nncache ? s->nncache : 1, 1); /* 0 unknown, 1 yes, 2 no */
#define MATCHES(k) (match[k] ? match[k] == 1 : (match[k] = fnmatch(glob, stint_model_str(m, k, NULL), FNM_CASEFOLD) ? 2 : 1) == 1)
    for (size_t i = 0; i < s->nunfin; i++)
        *unfinished += MATCHES(s->unfin[i]);
    uint32_t *row = stint_xmalloc((s->nc ? s->nc : 1) * sizeof *row);
    size_t n = 0, on_cpu = 0;
    for (size_t i = 0; i < s->nc; i++) {
        row[i] = STINT_NO_ID;
        if (MATCHES(s->c[i].name)) {
            row[i] = 0;
            on_cpu += !(s->c[i].lane < s->nlanes && s->lanegpu[s->c[i].lane]);
            n++;
        }
    }
#undef MATCHES
    int cpu_only = on_cpu && on_cpu < n; /* both kinds: the CPU threads' are the steps */
    size_t k = 0;
    for (size_t i = 0; i < s->nc; i++) {
        if (row[i] == STINT_NO_ID || (cpu_only && s->c[i].lane < s->nlanes && s->lanegpu[s->c[i].lane])) {
            row[i] = STINT_NO_ID;
            continue;
        }
        row[i] = (uint32_t)k;
        s->c[k] = s->c[i];
        s->c[k].track = (uint32_t)i; /* (its candidate index, for the children below) */
        k++;
    }
    stint_xqsort_r(s->c, k, sizeof *s->c, step_cmp, (void *)m);
    for (size_t r = 0; r < k; r++) {
        row[s->c[r].track] = (uint32_t)r;
        *nhost += stint_model_lane_at(m, s->c[r].lane)->clock != STINT_CLOCK_DEVICE;
    }
    size_t w = 0; /* the children of steps, their step as its row */
    for (size_t i = 0; i < s->niv; i++)
        if (row[s->iv[i].step] != STINT_NO_ID) {
            s->iv[w] = s->iv[i];
            s->iv[w++].step = row[s->iv[i].step];
        }
    s->niv = w;
    free(row);
    free(match);
    return k;
}

/* The table of the nsteps rows in s->c (their children in s->iv, step =
 * row) into r, as stint_steps_sparse_compute makes it. */
static void table(struct stint_report_steps_stream *s, const struct stint_model *m, size_t nsteps, size_t max_shown,
                  struct stint_steps_sparse *r)
{
    stint_xqsort(s->iv, s->niv, sizeof *s->iv, civ_cmp);
    uint32_t maxname = 0;
    for (size_t i = 0; i < s->niv; i++)
        if (s->iv[i].name > maxname)
            maxname = s->iv[i].name;
    uint32_t *child_of = stint_xmalloc(((size_t)maxname + 1) * sizeof *child_of);
    memset(child_of, 0xff, ((size_t)maxname + 1) * sizeof *child_of);
    size_t nch = 0, cap = s->niv ? s->niv : 1;
    uint32_t *names = stint_xmalloc(cap * sizeof *names); /* child index -> name id */
    for (size_t i = 0; i < s->niv; i++)
        if (child_of[s->iv[i].name] == STINT_NO_ID) {
            child_of[s->iv[i].name] = (uint32_t)nch;
            names[nch++] = s->iv[i].name;
        }
    stint_i128 *totals = stint_xcalloc(nch ? nch : 1, sizeof *totals); /* per child index */
    r->rows = stint_xcalloc(nsteps ? nsteps : 1, sizeof *r->rows);
    r->cells = stint_xmalloc(cap * sizeof *r->cells);
    struct stint_interval *tmp = stint_xmalloc(cap * sizeof *tmp);
    int64_t ov;
    size_t c0 = 0;
    for (size_t k = 0; k < nsteps; k++) {
        struct stint_step_row *row = &r->rows[k];
        row->slice = STINT_NO_ID; /* (no model slice: a streamed span) */
        row->wall_ns = s->c[k].dur;
        row->cell0 = r->ncells;
        size_t c1 = c0;
        while (c1 < s->niv && s->iv[c1].step == k)
            c1++;
        for (size_t a = c0, b; a < c1; a = b) {
            size_t nt = 0;
            for (b = a; b < c1 && s->iv[b].name == s->iv[a].name; b++)
                tmp[nt++] = (struct stint_interval){s->iv[b].start, s->iv[b].end};
            int64_t u = stint_intervals_union_overlap(tmp, nt, &ov);
            uint32_t ch = child_of[s->iv[a].name];
            r->cells[r->ncells++] = (struct stint_step_cell){(uint32_t)k, ch, u};
            totals[ch] += u;
        }
        row->ncells = r->ncells - row->cell0;
        size_t nt = 0;
        for (size_t j = c0; j < c1; j++)
            tmp[nt++] = (struct stint_interval){s->iv[j].start, s->iv[j].end};
        int64_t all = stint_intervals_union_overlap(tmp, nt, &row->overlap_ns);
        row->unattributed_ns = row->wall_ns - all;
        c0 = c1;
    }
    uint32_t *order = stint_xmalloc((nch ? nch : 1) * sizeof *order), *rank_of = stint_xmalloc((nch ? nch : 1) * sizeof *rank_of);
    for (size_t c = 0; c < nch; c++)
        order[c] = (uint32_t)c;
    struct stint_step_rank w = {m, names, totals};
    stint_xqsort_r(order, nch, sizeof *order, stint_step_rank_cmp, &w);
    r->children = stint_xmalloc((nch ? nch : 1) * sizeof *r->children);
    for (size_t k = 0; k < nch; k++) {
        rank_of[order[k]] = (uint32_t)k;
        r->children[k] = names[order[k]];
    }
    for (size_t j = 0; j < r->ncells; j++)
        r->cells[j].child = rank_of[r->cells[j].child];
    for (size_t k = 0; k < nsteps; k++)
        stint_xqsort(&r->cells[r->rows[k].cell0], r->rows[k].ncells, sizeof *r->cells, stint_step_cell_cmp);
    size_t nshown = max_shown < nch ? max_shown : nch;
    for (size_t k = 0, a = 0; k < nsteps && nshown < nch; k++) { /* the union of the names past the shown */
        size_t b = a, nt = 0;
        for (; b < s->niv && s->iv[b].step == k; b++)
            if (rank_of[child_of[s->iv[b].name]] >= nshown)
                tmp[nt++] = (struct stint_interval){s->iv[b].start, s->iv[b].end};
        r->rows[k].other_ns = stint_intervals_union_overlap(tmp, nt, &ov);
        a = b;
    }
    r->nsteps = nsteps;
    r->nchildren = nch;
    r->nshown = nshown;
    free(order);
    free(rank_of);
    free(tmp);
    free(child_of);
    free(names);
    free(totals);
}

void stint_report_steps_stream_free(struct stint_report_steps_stream *s)
{
    if (!s)
        return;
    void *all[] = {s->ncache, s->catgpu, s->lanegpu, s->fr, s->c, s->iv, s->unfin, s->rootcnt, s->fe, s->last_fe};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
    free(s);
}

int stint_report_steps_stream_write(struct stint_report_steps_stream *s, const struct stint_model *m, FILE *f,
                                    size_t columns)
{
    char family[256];
    const char *step = s->glob, *glob = s->glob;
    char *literal = NULL;
    if (!step && family_glob(s, m, family, sizeof family))
        step = glob = family; /* (said as if given, as `report` always did) */
    else if (!step && s->best_n) {
        step = stint_model_str(m, s->best, NULL);
        glob = literal = stint_report_glob_literal(step);
    }
    int rc = 0;
    if (!step) {
        rc = stint_report_steps_write(f, m, NULL, 0, NULL);
    } else {
        struct stint_steps_sparse r = {0};
        size_t nsteps = pick_steps(s, m, glob, &r.nhost, &r.unfinished);
        for (size_t k = 1; k < nsteps && rc == 0; k++) /* (two at one start: their order is the input's) */
            if (s->c[k].ts == s->c[k - 1].ts && (k < r.nhost || k - 1 >= r.nhost))
                rc = 1;
        if (rc) {
            free(literal);
            stint_report_steps_stream_free(s);
            return 1;
        }
        table(s, m, nsteps, columns ? columns : STINT_REPORT_STEP_COLUMNS, &r);
        rc = stint_report_steps_write(f, m, step, literal != NULL, &r);
        stint_steps_sparse_free(&r);
    }
    free(literal);
    stint_report_steps_stream_free(s);
    return rc;
}
