/* SPDX-License-Identifier: MIT */
/*
 * gpu_collect.c - the lists of the gpu analysis (gpu_int.h) collected while
 * a file is read, so that `gpu` needs neither the model's slices nor its
 * args: the Chrome reader hands over each kept complete span's
 args.correlation (readers.h, corr_fn: in input order), which keeps the
 * device work known by its category at once and the other correlations per
 * track; the model's finish then streams every thread-track span to the
 * span sink (per track, in slice order, with its nesting level), which
 * keeps the device work known by its lane (XLA streams), the runtime calls
 * with their enclosing cpu_op spans (the frames below it on its track), and
 * the step spans. The order of the device work does not matter (every
 * figure of it is a union, a sum, a sorted quantile or a row sorted by a
 * total order). gpu_model.c takes the same
 * lists from a finished model; the results are the same.
 *
 * Invariants: a track's correlations are sorted by the sink's order
 * (start, then longest first), then (cat, name, correlation); a streamed
 * span takes the first unused one with its start, duration, cat and name
 * (spans that equal in all four are interchangeable: whichever takes which,
 * every figure is the same), or none. A track's correlations are freed once
 * the sink moved past it, and the pages of those it moved past within the
 * track given back as it goes (no later span looks there). Runtime calls and device work written as B/E
 * (whose args the hook does not see) set bad: the caller then reads the
 * file whole (stint_gpu_collect_ok).
 */
#include "analyze/gpu_int.h"
#include "base/cmp.h"
#include "base/xalloc.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

struct corr_ent {
    int64_t ts, dur, corr;
    uint32_t cat, name; /* cat UINT32_MAX: taken */
};

struct corr_track {
    struct corr_ent *e;
    size_t n, cap, cur;
    size_t released; /* bytes of e before cur given back (find_corr) */
    int sorted;
};

/* A span open on the current track, as the sink's levels nest them. */
struct frame {
    int64_t ts, end, dur;
    uint32_t name, opi1; /* opi1: its index in ops + 1, 0 = not in ops yet */
    uint8_t is_op;
};

/* Where one streamed track's entries begin in a context's lists (a walk
 * split over two threads: stint_gpu_collect_split). */
struct seg {
    uint32_t track;
    size_t call0, op0, step0, item0;
};

struct stint_gpu_collect {
    struct gpu_file f;
    const char *glob;
    struct corr_track *ct; /* by track (a forked context borrows its parent's) */
    size_t nct;
    int borrowed;          /* ct is the parent's: not freed here */
    int split;             /* the walk is split: segs are kept */
    struct seg *segs;
    size_t nseg, segcap;
    size_t item_base;      /* items before the walk (the hook's) */
    struct frame *st;
    size_t nst, stcap;
    uint32_t track1; /* the track being streamed + 1 (0: none yet) */
    uint8_t *xla;
    size_t nxla;
    struct gpu_idcache comm;
    int bad;
};

struct stint_gpu_collect *stint_gpu_collect_new(const struct stint_gpu_opts *o)
{
    struct stint_gpu_collect *c = stint_xcalloc(1, sizeof *c);
    c->glob = o->step_glob ? o->step_glob : "ProfilerStep#*";
    return c;
}

struct stint_gpu_collect *stint_gpu_collect_of_model(const struct stint_model *m, const struct stint_gpu_opts *o)
{
    struct stint_gpu_collect *c = stint_gpu_collect_new(o);
    c->f.m = m;
    stint_gpu_collect_model(&c->f, o);
    return c;
}

static void free_track(struct corr_track *t)
{
    stint_hmem_free(t->e, t->cap * sizeof *t->e);
    memset(t, 0, sizeof *t);
}

void stint_gpu_collect_free(struct stint_gpu_collect *c)
{
    if (!c)
        return;
    if (!c->borrowed) {
        for (size_t i = 0; i < c->nct; i++)
            free_track(&c->ct[i]);
        free(c->ct);
    }
    free(c->segs);
    free(c->st);
    free(c->xla);
    free(c->comm.v);
    stint_gpu_file_free(&c->f);
    free(c);
}

int stint_gpu_collect_ok(const struct stint_gpu_collect *c)
{
    return !c->bad;
}

int stint_gpu_collect_want(void *ctx, const struct stint_model *m, uint32_t cat)
{
    struct stint_gpu_collect *c = ctx;
    c->f.m = m;
    return stint_gpu_cat_kind(&c->f, cat) != GK_ANNOT;
}

void stint_gpu_collect_corr(void *ctx, uint32_t track, uint32_t cat, uint32_t name, int64_t ts_ns, int64_t dur_ns,
                            int has, int64_t corr)
{
    struct stint_gpu_collect *c = ctx;
    struct gpu_file *f = &c->f;
    enum gpu_kind k = stint_gpu_cat_kind(f, cat);
    if (k == GK_KERNEL || k == GK_COPY || k == GK_MTIA) { /* device work by its category: taken here */
        const struct stint_model *m = f->m;
        uint32_t lane = stint_model_track_at(m, track)->lane;
        stint_gpu_mark_lane(f, lane);
        uint8_t cls = stint_gpu_item_class(m, k, name, &c->comm);
        f->items = stint_hmem_xgrow(f->items, &f->itemcap, f->nitems + 1, sizeof *f->items, 1024);
        f->items[f->nitems++] = (struct gpu_item){.ts = ts_ns, .dur = dur_ns, .corr = has ? corr : 0,
                                                  .dev = stint_model_lane_at(m, lane)->pid, .lane = lane,
                                                  .name = name, .cls = cls, .kernel = cls != STINT_GPU_MEMORY,
                                                  .has_corr = (uint8_t)has};
        return;
    }
    if (!has)
        return;
    if (track >= c->nct)
        c->ct = stint_xgrow_zeroed(c->ct, &c->nct, (size_t)track + 1, sizeof *c->ct, 16);
    struct corr_track *t = &c->ct[track];
    t->e = stint_hmem_xgrow(t->e, &t->cap, t->n + 1, sizeof *t->e, 256);
    t->e[t->n++] = (struct corr_ent){ts_ns, dur_ns, corr, cat, name};
}

/* ---- a file read in parts on several threads ----------------------------
 * Each part's hook calls go to a collector of its own (part ids); the parts
 * are folded into the first part's in input order as their models merge,
 * and the whole into the command's collector, so the lists come out in the
 * order one thread would have made them. */

void *stint_gpu_collect_part(void *ctx)
{
    const struct stint_gpu_collect *c = ctx;
    struct stint_gpu_collect *p = stint_xcalloc(1, sizeof *p);
    p->glob = c->glob;
    return p;
}

static void part_free(void *part)
{
    stint_gpu_collect_free(part);
}

/* Appends src's correlations of each track to dst's (cat and name through
 * smap, tracks through tmap; NULL: the same ids, arrays moved when dst's
 * track has none). */
static void merge_corr(struct stint_gpu_collect *d, struct stint_gpu_collect *s, const uint32_t *smap,
                       const uint32_t *tmap)
{
    for (size_t t = 0; t < s->nct; t++) {
        struct corr_track *st = &s->ct[t];
        if (!st->n)
            continue;
        size_t dt = tmap ? tmap[t] : t;
        if (dt >= d->nct)
            d->ct = stint_xgrow_zeroed(d->ct, &d->nct, dt + 1, sizeof *d->ct, 16);
        struct corr_track *dk = &d->ct[dt];
        if (!dk->n && !smap) {
            free_track(dk);
            *dk = *st;
            memset(st, 0, sizeof *st);
            continue;
        }
        dk->e = stint_hmem_xgrow(dk->e, &dk->cap, dk->n + st->n, sizeof *dk->e, 256);
        for (size_t j = 0; j < st->n; j++) {
            struct corr_ent e = st->e[j];
            if (smap) {
                e.cat = smap[e.cat];
                e.name = smap[e.name];
            }
            dk->e[dk->n++] = e;
        }
        free_track(st);
    }
}

/* Folds part src_part (of a model merged into dm) into dst_part and frees it. */
static void part_merge(void *dst_part, void *src_part, const struct stint_model *dm, const uint32_t *smap,
                       const uint32_t *lmap, const uint32_t *tmap)
{
    struct stint_gpu_collect *d = dst_part, *s = src_part;
    struct gpu_file *df = &d->f, *sf = &s->f;
    if (!df->nitems && !smap) { /* the whole file's: moved */
        stint_hmem_free(df->items, df->itemcap * sizeof *df->items);
        df->items = sf->items;
        df->nitems = sf->nitems;
        df->itemcap = sf->itemcap;
        sf->items = NULL;
        sf->nitems = sf->itemcap = 0;
    } else if (sf->nitems) {
        df->items = stint_hmem_xgrow(df->items, &df->itemcap, df->nitems + sf->nitems, sizeof *df->items, 1024);
        for (size_t i = 0; i < sf->nitems; i++) {
            struct gpu_item it = sf->items[i];
            if (smap) { /* (a synthetic pid may be another number in dm) */
                it.name = smap[it.name];
                it.lane = lmap[it.lane];
                it.dev = stint_model_lane_at(dm, it.lane)->pid;
            }
            df->items[df->nitems++] = it;
        }
    }
    for (size_t l = 0; l < sf->nlane_work; l++)
        if (sf->lane_work[l])
            stint_gpu_mark_lane(df, lmap ? lmap[l] : (uint32_t)l);
    merge_corr(d, s, smap, tmap);
    stint_gpu_collect_free(s);
}

const struct stint_model_part_ops stint_gpu_collect_part_ops = {part_merge, part_free};

/* The sink's order of two entries, then a total order among equals. */
static int cmp_ent(const void *a, const void *b)
{
    const struct corr_ent *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    if (x->cat != y->cat)
        return x->cat < y->cat ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int ent_before(const void *a, const void *b)
{
    return cmp_ent(a, b) < 0;
}

/* The correlation of the span (ts, dur, cat, name) on track: 1 and *out, or 0. */
static int find_corr(struct stint_gpu_collect *c, uint32_t track, int64_t ts, int64_t dur, uint32_t cat,
                     uint32_t name, int64_t *out)
{
    if (track >= c->nct || !c->ct[track].n)
        return 0;
    struct corr_track *t = &c->ct[track];
    if (!t->sorted) {
        stint_gpu_sort_runs(t->e, t->n, sizeof *t->e, ent_before);
        t->sorted = 1;
    }
    while (t->cur < t->n && (t->e[t->cur].ts < ts || (t->e[t->cur].ts == ts && t->e[t->cur].dur > dur)))
        t->cur++;
    size_t done = t->cur * sizeof *t->e; /* (no later span of the track looks before cur: its pages go) */
    if (done >= t->released + ((size_t)1 << 20)) {
        stint_hmem_release(t->e, t->cap * sizeof *t->e, t->released, done);
        t->released = done & ~(size_t)4095;
    }
    for (size_t j = t->cur; j < t->n && t->e[j].ts == ts && t->e[j].dur == dur; j++)
        if (t->e[j].cat == cat && t->e[j].name == name) {
            *out = t->e[j].corr;
            t->e[j].cat = UINT32_MAX;
            return 1;
        }
    return 0;
}

/* The index in ops of frame fr (added on first use). */
static uint32_t frame_op(struct gpu_file *f, struct frame *fr)
{
    if (!fr->opi1) {
        f->ops = stint_xgrow(f->ops, &f->opcap, f->nops + 1, sizeof *f->ops, 64);
        f->ops[f->nops++] = (struct gpu_opspan){fr->dur, fr->name};
        fr->opi1 = (uint32_t)f->nops;
    }
    return fr->opi1 - 1;
}

/* A runtime call streamed at level (its frames below it: the enclosing ops). */
static void take_call(struct stint_gpu_collect *c, const struct stint_span_ev *ev)
{
    struct gpu_file *f = &c->f;
    struct gpu_call k = {.ts = ev->ts_ns, .dur = ev->dur_ns, .name = ev->name, .op = STINT_NO_ID, .top = STINT_NO_ID};
    k.has_corr = (uint8_t)find_corr(c, ev->track, ev->ts_ns, ev->dur_ns, ev->cat, ev->name, &k.corr);
    int64_t end = ev->ts_ns + ev->dur_ns;
    if (ev->parent_on_top)
        for (size_t i = c->nst; i-- > 0;) {
            struct frame *fr = &c->st[i];
            if (!fr->is_op || fr->ts > ev->ts_ns || fr->end < end)
                continue;
            uint32_t oi = frame_op(f, fr);
            if (k.op == STINT_NO_ID)
                k.op = oi;
            k.top = oi;
        }
    f->calls = stint_hmem_xgrow(f->calls, &f->callcap, f->ncalls + 1, sizeof *f->calls, 1024);
    f->calls[f->ncalls++] = k;
}

/* A device-work span of kind k. */
static void take_work(struct stint_gpu_collect *c, const struct stint_model *m, const struct stint_span_ev *ev,
                      enum gpu_kind k)
{
    struct gpu_file *f = &c->f;
    stint_gpu_mark_lane(f, ev->lane);
    struct gpu_item it = {.ts = ev->ts_ns, .dur = ev->dur_ns, .dev = stint_model_lane_at(m, ev->lane)->pid,
                          .lane = ev->lane, .name = ev->name};
    it.has_corr = (uint8_t)find_corr(c, ev->track, ev->ts_ns, ev->dur_ns, ev->cat, ev->name, &it.corr);
    it.cls = stint_gpu_item_class(m, k, ev->name, &c->comm);
    it.kernel = it.cls != STINT_GPU_MEMORY;
    f->items = stint_hmem_xgrow(f->items, &f->itemcap, f->nitems + 1, sizeof *f->items, 1024);
    f->items[f->nitems++] = it;
}

void stint_gpu_collect_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_gpu_collect *c = ctx;
    struct gpu_file *f = &c->f;
    f->m = m;
    if (!c->xla) {
        c->xla = stint_gpu_xla_lanes(m);
        c->nxla = m->lanes.len;
    }
    if (ev->track + 1 != c->track1) { /* a new track: the last one's correlations are spent */
        if (c->track1 && c->track1 - 1 < c->nct)
            free_track(&c->ct[c->track1 - 1]);
        c->track1 = ev->track + 1;
        c->nst = 0;
        if (c->split) {
            c->segs = stint_xgrow(c->segs, &c->segcap, c->nseg + 1, sizeof *c->segs, 16);
            c->segs[c->nseg++] = (struct seg){ev->track, f->ncalls, f->nops, f->nstepc, f->nitems};
        }
    }
    /* the frames below this span: levels [0, level) */
    c->st = stint_xgrow(c->st, &c->stcap, (size_t)ev->level + 1, sizeof *c->st, 16);
    while (c->nst < ev->level)
        c->st[c->nst++] = (struct frame){0};
    c->nst = ev->level;
    enum gpu_kind k = stint_gpu_cat_kind(f, ev->cat), raw = k;
    uint8_t is_op = k == GK_CPU_OP && ev->dur_ns >= 0;
    if (ev->dur_ns >= 0 && !(ev->flags & STINT_SLICE_INSTANT)) {
        int work = k == GK_KERNEL || k == GK_COPY || k == GK_MTIA;
        if (!work && ev->lane < c->nxla && c->xla[ev->lane] && k != GK_ANNOT) {
            work = 1;
            k = GK_KERNEL;
        }
        if ((work || k == GK_RUNTIME) && (ev->flags & STINT_SLICE_BEGIN_END))
            c->bad = 1; /* its args came with its B or E event: not seen */
        if (work) {
            if (k == GK_KERNEL && raw != GK_KERNEL) /* (an XLA stream's span: by its lane, known only now) */
                take_work(c, m, ev, k);
        } else {
            if (k == GK_RUNTIME)
                take_call(c, ev);
            if (k != GK_ANNOT && stint_gpu_is_step_name(f, ev->name, c->glob)) {
                f->stepc = stint_xgrow(f->stepc, &f->stepcap, f->nstepc + 1, sizeof *f->stepc, 16);
                f->stepc[f->nstepc++] = (struct gpu_stepc){ev->ts_ns, ev->dur_ns, ev->name, ev->lane};
            }
        }
    }
    c->st[c->nst++] = (struct frame){ev->ts_ns, ev->ts_ns + (ev->dur_ns > 0 ? ev->dur_ns : 0), ev->dur_ns, ev->name,
                                     0, is_op};
}

void stint_gpu_compute_collected(struct stint_gpu_result *r, struct stint_gpu_collect *const *cs,
                                 const struct stint_model *const *ms, size_t n, const int64_t *ranks,
                                 const struct stint_gpu_opts *o)
{
    struct gpu_file *fs = stint_xcalloc(n ? n : 1, sizeof *fs);
    for (size_t i = 0; i < n; i++) {
        fs[i] = cs[i]->f;
        memset(&cs[i]->f, 0, sizeof cs[i]->f);
        fs[i].m = ms[i];
        fs[i].rank = ranks ? ranks[i] : (int64_t)i;
    }
    stint_gpu_analyze(r, fs, n, o);
    free(fs);
}

/* ---- the walk split over two threads -------------------------------------
 * Each context takes whole tracks; it notes where each track's calls, ops,
 * steps and (XLA) device work begin, and the join lays them out in track
 * order, as one thread's walk would have made them (an op's index moves
 * with its track's ops). The tracks' correlations are shared: each track's
 * are read and freed by the one context that takes it. */

static void *collect_fork(void *ctx, const struct stint_model *m)
{
    struct stint_gpu_collect *c = ctx, *q = stint_xcalloc(1, sizeof *q);
    q->glob = c->glob;
    q->ct = c->ct;
    q->nct = c->nct;
    q->borrowed = 1;
    q->f.m = m;
    q->split = c->split = 1;
    c->item_base = c->f.nitems;
    return q;
}

/* A segment with its owner and its ends. */
struct segx {
    struct seg s;
    const struct gpu_file *f;
    size_t call1, op1, step1, item1;
};

static int segx_cmp(const void *a, const void *b)
{
    const struct segx *x = a, *y = b;
    return x->s.track < y->s.track ? -1 : x->s.track > y->s.track;
}

static void add_segs(struct segx *v, size_t *n, const struct stint_gpu_collect *c)
{
    for (size_t i = 0; i < c->nseg; i++) {
        const struct seg *nx = i + 1 < c->nseg ? &c->segs[i + 1] : NULL;
        v[(*n)++] = (struct segx){c->segs[i], &c->f, nx ? nx->call0 : c->f.ncalls, nx ? nx->op0 : c->f.nops,
                                  nx ? nx->step0 : c->f.nstepc, nx ? nx->item0 : c->f.nitems};
    }
}

/* The one context whose segments hold every call, op, step and (walked)
 * device work, when those segments come in track order in it (its lists are
 * then the joined ones as they are); NULL when there is none such. */
static const struct gpu_file *sole_owner(const struct segx *v, size_t ns)
{
    const struct gpu_file *own = NULL;
    uint32_t last = 0;
    for (size_t i = 0; i < ns; i++) {
        const struct segx *x = &v[i];
        if (x->call1 == x->s.call0 && x->op1 == x->s.op0 && x->step1 == x->s.step0 && x->item1 == x->s.item0)
            continue;
        if ((own && own != x->f) || (own && x->s.track < last))
            return NULL;
        own = x->f;
        last = x->s.track;
    }
    return own;
}

static void relayout(struct stint_gpu_collect *a, struct stint_gpu_collect *b, const struct segx *v, size_t ns);

static void collect_join(void *ctx, void *forked, const struct stint_model *m)
{
    struct stint_gpu_collect *a = ctx, *b = forked;
    struct gpu_file *fa = &a->f, *fb = &b->f;
    (void)m;
    size_t ns = 0;
    struct segx *v = stint_xmalloc((a->nseg + b->nseg + 1) * sizeof *v);
    add_segs(v, &ns, a);
    add_segs(v, &ns, b);
    const struct gpu_file *own = sole_owner(v, ns); /* (in walk order: segs are in it per context) */
    stint_xqsort(v, ns, sizeof *v, segx_cmp);
    if (own == fa || (own == fb && !fa->ncalls && !fa->nops && !fa->nstepc && fa->nitems == a->item_base)) {
        if (own == fb) { /* the forked context's lists, moved */
            struct gpu_file t = *fa;
            fa->calls = fb->calls, fa->ncalls = fb->ncalls, fa->callcap = fb->callcap;
            fa->ops = fb->ops, fa->nops = fb->nops, fa->opcap = fb->opcap;
            fa->stepc = fb->stepc, fa->nstepc = fb->nstepc, fa->stepcap = fb->stepcap;
            fb->calls = t.calls, fb->ncalls = t.ncalls, fb->callcap = t.callcap;
            fb->ops = t.ops, fb->nops = t.nops, fb->opcap = t.opcap;
            fb->stepc = t.stepc, fb->nstepc = t.nstepc, fb->stepcap = t.stepcap;
            if (fb->nitems) {
                fa->items = stint_hmem_xgrow(fa->items, &fa->itemcap, fa->nitems + fb->nitems, sizeof *fa->items, 1024);
                memcpy(fa->items + fa->nitems, fb->items, fb->nitems * sizeof *fb->items);
                fa->nitems += fb->nitems;
            }
        }
        ns = 0; /* (nothing to lay out again) */
    }
    if (ns)
        relayout(a, b, v, ns);
    for (size_t l = 0; l < fb->nlane_work; l++)
        if (fb->lane_work[l])
            stint_gpu_mark_lane(fa, (uint32_t)l);
    a->bad |= b->bad;
    a->split = 0;
    a->nseg = 0;
    free(v);
    stint_gpu_collect_free(b);
}

/* Lays a's and b's lists out again in the order of segments v[0..ns) (by track). */
static void relayout(struct stint_gpu_collect *a, struct stint_gpu_collect *b, const struct segx *v, size_t ns)
{
    struct gpu_file *fa = &a->f, *fb = &b->f;
    size_t ncalls = fa->ncalls + fb->ncalls, nops = fa->nops + fb->nops, nstep = fa->nstepc + fb->nstepc;
    size_t ntail = fa->nitems - a->item_base + fb->nitems, callcap = 0;
    struct gpu_call *calls = stint_hmem_xgrow(NULL, &callcap, ncalls ? ncalls : 1, sizeof *calls, 1024);
    struct gpu_opspan *ops = stint_xmalloc((nops ? nops : 1) * sizeof *ops);
    struct gpu_stepc *step = stint_xmalloc((nstep ? nstep : 1) * sizeof *step);
    struct gpu_item *tail = stint_xmalloc((ntail ? ntail : 1) * sizeof *tail);
    size_t kc = 0, ko = 0, ks = 0, ki = 0;
    for (size_t i = 0; i < ns; i++) {
        const struct segx *x = &v[i];
        const struct gpu_file *f = x->f;
        uint32_t shift = (uint32_t)ko - (uint32_t)x->s.op0; /* (an op index moves with its track's ops) */
        for (size_t j = x->s.call0; j < x->call1; j++) {
            struct gpu_call k = f->calls[j];
            if (k.op != STINT_NO_ID)
                k.op += shift;
            if (k.top != STINT_NO_ID)
                k.top += shift;
            calls[kc++] = k;
        }
        if (x->op1 > x->s.op0) /* (an empty list may have a NULL base) */
            memcpy(ops + ko, f->ops + x->s.op0, (x->op1 - x->s.op0) * sizeof *ops);
        ko += x->op1 - x->s.op0;
        if (x->step1 > x->s.step0)
            memcpy(step + ks, f->stepc + x->s.step0, (x->step1 - x->s.step0) * sizeof *step);
        ks += x->step1 - x->s.step0;
        if (x->item1 > x->s.item0)
            memcpy(tail + ki, f->items + x->s.item0, (x->item1 - x->s.item0) * sizeof *tail);
        ki += x->item1 - x->s.item0;
    }
    stint_hmem_free(fa->calls, fa->callcap * sizeof *fa->calls);
    fa->calls = calls;
    fa->ncalls = kc;
    fa->callcap = callcap;
    free(fa->ops);
    fa->ops = ops;
    fa->nops = fa->opcap = ko;
    free(fa->stepc);
    fa->stepc = step;
    fa->nstepc = fa->stepcap = ks;
    if (ki) {
        fa->items = stint_hmem_xgrow(fa->items, &fa->itemcap, a->item_base + ki, sizeof *fa->items, 1024);
        memcpy(fa->items + a->item_base, tail, ki * sizeof *tail);
    }
    fa->nitems = a->item_base + ki;
    free(tail);
}

struct stint_span_split stint_gpu_collect_split(void)
{
    const char *fs = getenv("STINT_FINISH_SPLIT_MIN");
    struct stint_span_split sp = {collect_fork, collect_join,
                                  fs && *fs ? (size_t)strtoull(fs, NULL, 10) : (size_t)1 << 16};
    return sp;
}
