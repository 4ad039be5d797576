/* SPDX-License-Identifier: MIT */
/*
 * steps_stream.c - the per-step breakdown from the spans a model streams
 * (steps_stream.h), for `stint steps --step NAME` on a lean model.
 *
 * The sink keeps a frame per level of the current track. A span that matches
 * the step glob (and the filters), finished and not an instant, becomes a
 * pending step; a finished, non-instant span whose parent (the frame above
 * it) is a pending step adds its interval, clipped to the step, to that
 * frame's list. When the step's frame ends, the list gives the step's
 * figures (per child name the union, the overlap, the unattributed
 * remainder) as in analysis_steps.c, and only those are kept (plus the list
 * itself when the "other" column may need it). Memory is then per step, per
 * (step, child name) and per open span, never per span of the trace.
 *
 * The finish applies what needs the whole trace, as stint_steps_sparse_compute
 * does: steps are per lane kind (a lane is a GPU stream by its tid text or
 * by one span of a GPU category anywhere on it), rows are host-clock steps
 * first, each clock's in time order then input order, and child names are
 * ranked by their total union over the kept steps, then by name bytes.
 * Input order is known only for spans that are not lean records: two steps
 * of one clock at the same start, one of them lean, make the finish answer 1
 * (the caller reads the whole model), as does a span whose parent is not
 * the frame above it (explicit parents).
 */
#include "analyze/steps_stream.h"
#include "analyze/gpu.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/hmem.h"
#include "base/intervals.h"
#include "base/xalloc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A direct child's interval inside a step, clipped to it. */
struct kid_iv {
    uint32_t name;
    struct stint_interval iv;
};

/* One open span of the current track. */
struct frame {
    int64_t ts_ns, dur_ns;
    uint32_t step; /* its pending step, or STINT_NO_ID */
    struct kid_iv *kids;
    size_t nkids, kcap;
};

/* A step as it ended: its figures and where its cells and intervals are. */
struct pstep {
    int64_t ts_ns, wall_ns, overlap_ns, unattributed_ns;
    uint32_t lane, seq;
    uint8_t seq_known, device;
    size_t cell0, ncells, iv0, niv;
};

struct pcell {
    uint32_t name;
    int64_t union_ns;
};

/* A lean record's input order, as its reader gave it (stint_steps_stream_seq),
 * only for records whose name is a step name, by the hash of its (lane,
 * start, duration, name). Every such record is noted, so one that finds its
 * hash finds its own entry, or one that a second record with the same hash
 * made a twin: the hash is exact for the records looked up. */
struct seq_ent {
    uint64_t h;
    uint32_t seq1; /* 1 + the seq; 0 an empty slot */
    uint32_t twin; /* another record of the same hash came: no order known */
};

struct stint_steps_stream {
    const char *glob;
    const struct stint_filter *filter;
    int keep_ivs, unsure;
    int defer;               /* slices are taken from the model at finish, not from the stream */
    struct seq_ent *seqs;    /* open addressing, a power of two slots (0: none yet) */
    size_t nseq, seqcap;
    uint32_t track;
    uint8_t *gpu;            /* per lane: 1 a GPU stream */
    uint8_t *name_match;     /* per name id: 0 not looked at, 1 no, 2 a step name */
    size_t name_cap;
    uint8_t *cat_gpu;        /* per cat id: 0 not looked at, 1 no, 2 a GPU category */
    size_t cat_cap;
    struct frame *frames;
    size_t sn, fcap;
    struct pstep *steps;
    size_t nsteps, scap;
    struct pcell *cells;
    size_t ncells, ccap;
    struct kid_iv *ivs;      /* keep_ivs: the ended steps' child intervals, by step then name */
    size_t nivs, icap;
    struct stint_interval *tmp;
    size_t tcap;
    uint64_t unfinished;
};

struct stint_steps_stream *stint_steps_stream_new(const char *step_glob, const struct stint_filter *filter,
                                                  int keep_ivs)
{
    struct stint_steps_stream *ss = stint_xcalloc(1, sizeof *ss);
    ss->glob = step_glob;
    ss->filter = filter && stint_filter_active(filter) ? filter : NULL;
    ss->keep_ivs = keep_ivs;
    ss->track = STINT_NO_ID;
    return ss;
}

void stint_steps_stream_free(struct stint_steps_stream *ss)
{
    if (!ss)
        return;
    for (size_t i = 0; i < ss->fcap; i++)
        free(ss->frames[i].kids);
    void *all[] = {ss->gpu, ss->name_match, ss->cat_gpu, ss->frames, ss->tmp};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
    stint_hmem_free(ss->steps, ss->scap * sizeof *ss->steps);
    stint_hmem_free(ss->cells, ss->ccap * sizeof *ss->cells);
    stint_hmem_free(ss->ivs, ss->icap * sizeof *ss->ivs);
    free(ss->seqs);
    free(ss);
}

/* A step's direct child name [ts, ts + dur) clipped at both ends to its step
 * [pts, pts + pdur) (an explicit-parent child may start early). */
static struct kid_iv kid_clipped(uint32_t name, int64_t ts, int64_t dur, int64_t pts, int64_t pdur)
{
    int64_t pend = pts + pdur, end = ts + dur;
    return (struct kid_iv){name, {ts < pts ? pts : ts, end < pend ? end : pend}};
}

static int kid_cmp(const void *pa, const void *pb)
{
    const struct kid_iv *a = pa, *b = pb;
    int c = stint_cmp_u32(a->name, b->name);
    return c ? c : stint_cmp_i64(a->iv.start, b->iv.start);
}

/* The scratch for n intervals. */
static struct stint_interval *tmp_for(struct stint_steps_stream *ss, size_t n)
{
    if (n >= ss->tcap) /* (one at least: never NULL) */
        ss->tmp = stint_xgrow(ss->tmp, &ss->tcap, n + 1, sizeof *ss->tmp, 64);
    return ss->tmp;
}

/* A step's frame ends: its figures from its children's intervals. */
static void step_end(struct stint_steps_stream *ss, struct frame *f)
{
    struct pstep *p = &ss->steps[f->step];
    if (f->nkids) /* (kids is NULL until a first child) */
        stint_xqsort(f->kids, f->nkids, sizeof *f->kids, kid_cmp);
    struct stint_interval *tmp = tmp_for(ss, f->nkids);
    int64_t ov;
    p->cell0 = ss->ncells;
    for (size_t a = 0, b; a < f->nkids; a = b) {
        size_t nt = 0;
        for (b = a; b < f->nkids && f->kids[b].name == f->kids[a].name; b++)
            tmp[nt++] = f->kids[b].iv;
        int64_t u = stint_intervals_union_overlap(tmp, nt, &ov);
        if (ss->ncells == ss->ccap)
            ss->cells = stint_hmem_xgrow(ss->cells, &ss->ccap, ss->ncells + 1, sizeof *ss->cells, 256);
        ss->cells[ss->ncells++] = (struct pcell){f->kids[a].name, u};
    }
    p->ncells = ss->ncells - p->cell0;
    for (size_t j = 0; j < f->nkids; j++)
        tmp[j] = f->kids[j].iv;
    int64_t all = stint_intervals_union_overlap(tmp, f->nkids, &p->overlap_ns);
    p->unattributed_ns = p->wall_ns - all; /* >= 0: every child interval is clipped to the step */
    p->iv0 = ss->nivs;
    p->niv = 0;
    if (ss->keep_ivs && f->nkids) {
        ss->ivs = stint_hmem_xgrow(ss->ivs, &ss->icap, ss->nivs + f->nkids, sizeof *ss->ivs, 256);
        memcpy(&ss->ivs[ss->nivs], f->kids, f->nkids * sizeof *f->kids);
        ss->nivs += f->nkids;
        p->niv = f->nkids;
    }
    f->nkids = 0;
}

static void pop_to(struct stint_steps_stream *ss, size_t level)
{
    while (ss->sn > level) {
        struct frame *f = &ss->frames[--ss->sn];
        if (f->step != STINT_NO_ID)
            step_end(ss, f);
    }
}

/* Whether name id is a step name (glob, any case), looked at once per name. */
static int name_is_step(struct stint_steps_stream *ss, const struct stint_model *m, uint32_t name)
{
    if (name >= ss->name_cap)
        ss->name_match = stint_xgrow_zeroed(ss->name_match, &ss->name_cap, (size_t)name + 1, 1, 1024);
    if (!ss->name_match[name])
        ss->name_match[name] = fnmatch(ss->glob, stint_model_str(m, name, NULL), FNM_CASEFOLD) == 0 ? 2 : 1;
    return ss->name_match[name] == 2;
}

void stint_steps_stream_defer_slices(struct stint_steps_stream *ss)
{
    ss->defer = 1;
}

static uint64_t seq_hash(uint32_t lane, int64_t ts, int64_t dur, uint32_t name)
{
    return stint_hash_pair(stint_hash_pair((uint64_t)ts, (uint64_t)dur), (uint64_t)lane << 32 | name);
}

/* The slot of hash h: its entry's, or the empty one where it goes. */
static size_t seq_slot(const struct stint_steps_stream *ss, uint64_t h)
{
    size_t mask = ss->seqcap - 1, i = (size_t)(h >> 20) & mask;
    while (ss->seqs[i].seq1 && ss->seqs[i].h != h)
        i = (i + 1) & mask;
    return i;
}

void stint_steps_stream_seq(void *ctx, const struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns,
                            uint32_t name, uint32_t seq)
{
    struct stint_steps_stream *ss = ctx;
    if (!name_is_step(ss, m, name))
        return;
    if (4 * (ss->nseq + 1) > 3 * ss->seqcap) { /* (at most three quarters full) */
        struct seq_ent *old = ss->seqs;
        size_t ocap = ss->seqcap;
        ss->seqcap = ocap ? 2 * ocap : 4096;
        ss->seqs = stint_xcalloc(ss->seqcap, sizeof *ss->seqs); /* (made while the read is at its peak:
                                                                 * only the pages it fills) */
        for (size_t k = 0; k < ocap; k++)
            if (old[k].seq1)
                ss->seqs[seq_slot(ss, old[k].h)] = old[k];
        free(old);
    }
    uint64_t h = seq_hash(lane, ts_ns, dur_ns, name);
    struct seq_ent *e = &ss->seqs[seq_slot(ss, h)];
    if (e->seq1) {
        e->twin = 1;
        return;
    }
    *e = (struct seq_ent){h, seq + 1, 0};
    ss->nseq++;
}

/* A lean record's input order into *seq, when its reader gave it: 1, else 0. */
static int seq_of(const struct stint_steps_stream *ss, const struct stint_span_ev *ev, uint32_t *seq)
{
    if (!ss->seqcap)
        return 0;
    const struct seq_ent *e = &ss->seqs[seq_slot(ss, seq_hash(ev->lane, ev->ts_ns, ev->dur_ns, ev->name))];
    if (!e->seq1 || e->twin)
        return 0;
    *seq = e->seq1 - 1;
    return 1;
}

/* Whether the category text (or one of its comma parts) is GPU work or a
 * GPU annotation (as analysis_steps.c reads it), looked at once per id. */
static int cat_is_gpu(struct stint_steps_stream *ss, const struct stint_model *m, uint32_t cat)
{
    if (cat >= ss->cat_cap)
        ss->cat_gpu = stint_xgrow_zeroed(ss->cat_gpu, &ss->cat_cap, (size_t)cat + 1, 1, 256);
    if (!ss->cat_gpu[cat]) {
        int yes = 0;
        for (const char *p = stint_model_str(m, cat, NULL); *p && !yes;) {
            size_t n = strcspn(p, ",");
            enum stint_gpu_cat k = stint_gpu_cat_of(p, n);
            yes = k == STINT_GPU_CAT_KERNEL || k == STINT_GPU_CAT_COPY || k == STINT_GPU_CAT_MTIA ||
                  k == STINT_GPU_CAT_ANNOT;
            p += n + (p[n] == ',');
        }
        ss->cat_gpu[cat] = yes ? 2 : 1;
    }
    return ss->cat_gpu[cat] == 2;
}

static void lanes_init(struct stint_steps_stream *ss, const struct stint_model *m)
{
    ss->gpu = stint_xcalloc(m->lanes.len ? m->lanes.len : 1, 1);
    for (size_t l = 0; l < m->lanes.len; l++) {
        size_t n;
        const char *t = stint_model_str(m, stint_model_lane_at(m, (uint32_t)l)->tid_text, &n);
        ss->gpu[l] = n > 7 && !strncasecmp(t, "stream ", 7);
    }
}

/* A matching span, finished: a pending step; returns its index. */
static uint32_t step_begin(struct stint_steps_stream *ss, const struct stint_model *m, const struct stint_span_ev *ev)
{
    if (ss->nsteps == ss->scap)
        ss->steps = stint_hmem_xgrow(ss->steps, &ss->scap, ss->nsteps + 1, sizeof *ss->steps, 64);
    struct pstep *p = &ss->steps[ss->nsteps];
    memset(p, 0, sizeof *p);
    p->ts_ns = ev->ts_ns;
    p->wall_ns = ev->dur_ns;
    p->lane = ev->lane;
    p->seq = ev->seq;
    p->seq_known = ev->pair1 == 0; /* (a lean record's seq is 0, not its input order) */
    if (!p->seq_known)
        p->seq_known = (uint8_t)seq_of(ss, ev, &p->seq); /* (unless its reader gave it) */
    p->device = (uint8_t)stint_model_track_device(m, stint_model_track_at(m, ev->track));
    return (uint32_t)ss->nsteps++;
}

void stint_steps_stream_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_steps_stream *ss = ctx;
    if (ss->defer && !ev->pair1)
        return; /* (a slice: the finish takes it from the model) */
    if (!ss->gpu)
        lanes_init(ss, m);
    if (ev->track != ss->track) {
        pop_to(ss, 0);
        ss->track = ev->track;
    }
    pop_to(ss, ev->level);
    const struct stint_track *t = stint_model_track_at(m, ev->track);
    if (t->kind != STINT_TRACK_THREAD)
        return; /* (the sink streams thread tracks only) */
    if (!ss->gpu[t->lane] && cat_is_gpu(ss, m, ev->cat))
        ss->gpu[t->lane] = 1;
    if (ev->slice1 || (ev->level && (!ev->parent_on_top || ev->level > ss->sn)))
        ss->unsure = 1; /* a parent elsewhere: the whole model tells */
    int instant = (ev->flags & STINT_SLICE_INSTANT) != 0;
    if (ev->level && ev->level <= ss->sn && !instant && ev->dur_ns >= 0) {
        struct frame *p = &ss->frames[ev->level - 1];
        if (p->step != STINT_NO_ID) { /* a step's direct child */
            if (p->nkids == p->kcap)
                p->kids = stint_xgrow(p->kids, &p->kcap, p->nkids + 1, sizeof *p->kids, 16);
            p->kids[p->nkids++] = kid_clipped(ev->name, ev->ts_ns, ev->dur_ns, p->ts_ns, p->dur_ns);
        }
    }
    uint32_t step = STINT_NO_ID;
    if (!instant && name_is_step(ss, m, ev->name)) {
        struct stint_slice s = {.ts_ns = ev->ts_ns, .dur_ns = ev->dur_ns, .track = ev->track, .cat = ev->cat,
                                .name = ev->name, .flags = ev->flags, .seq = ev->seq};
        if (!ss->filter || stint_filter_slice(ss->filter, m, &s)) {
            if (ev->dur_ns < 0)
                ss->unfinished++;
            else
                step = step_begin(ss, m, ev);
        }
    }
    if (ss->sn == ss->fcap) {
        size_t old = ss->fcap;
        ss->frames = stint_xgrow(ss->frames, &ss->fcap, ss->sn + 1, sizeof *ss->frames, 64);
        memset(&ss->frames[old], 0, (ss->fcap - old) * sizeof *ss->frames);
    }
    struct frame *f = &ss->frames[ss->sn++];
    f->ts_ns = ev->ts_ns;
    f->dur_ns = ev->dur_ns;
    f->step = step;
    f->nkids = 0;
}

/* The pending step of which slice i is a direct child that counts (finished,
 * not an instant), by step_at (slice -> pending step); else STINT_NO_ID. */
static uint32_t kid_step(const struct stint_model *m, const uint32_t *step_at, size_t i)
{
    const struct stint_slice *s = stint_model_slice(m, i);
    if (s->parent == STINT_NO_ID || s->dur_ns < 0 || (s->flags & STINT_SLICE_INSTANT))
        return STINT_NO_ID;
    return step_at[s->parent];
}

/* A deferred stream's slices (the model's, finished), as the stream would
 * take them: each lane's GPU kind from their categories; the steps among
 * them, each with its direct children (slices whose parent it is, clipped
 * to it) and its figures, after the records' steps. */
static void take_slices(struct stint_steps_stream *ss, const struct stint_model *m)
{
    size_t n = stint_model_nslices(m);
    if (!n)
        return;
    uint32_t *step_at = stint_xmalloc(n * sizeof *step_at); /* slice -> pending step */
    size_t nkids = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        step_at[i] = STINT_NO_ID;
        if (t->kind != STINT_TRACK_THREAD)
            continue;
        if (!ss->gpu[t->lane] && cat_is_gpu(ss, m, s->cat))
            ss->gpu[t->lane] = 1;
        if ((s->flags & STINT_SLICE_INSTANT) || !name_is_step(ss, m, s->name))
            continue;
        if (ss->filter && !stint_filter_slice(ss->filter, m, s))
            continue;
        if (s->dur_ns < 0) {
            ss->unfinished++;
            continue;
        }
        struct stint_span_ev ev = {.ts_ns = s->ts_ns, .dur_ns = s->dur_ns, .track = s->track, .lane = t->lane,
                                   .seq = s->seq};
        step_at[i] = step_begin(ss, m, &ev);
    }
    /* the steps' children, grouped by step (counting pass), each step's in slice order */
    size_t base = ss->nsteps ? ss->nsteps : 1;
    size_t *at = stint_xcalloc(base + 1, sizeof *at);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = kid_step(m, step_at, i);
        if (k != STINT_NO_ID) {
            at[k + 1]++;
            nkids++;
        }
    }
    for (size_t k = 0; k < base; k++)
        at[k + 1] += at[k];
    struct kid_iv *kids = stint_xmalloc((nkids ? nkids : 1) * sizeof *kids);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = kid_step(m, step_at, i);
        if (k == STINT_NO_ID)
            continue;
        const struct stint_slice *s = stint_model_slice(m, i), *p = stint_model_slice(m, s->parent);
        kids[at[k]++] = kid_clipped(s->name, s->ts_ns, s->dur_ns, p->ts_ns, p->dur_ns);
    }
    /* (at[k] is now where step k's children end: at[k - 1] where they begin) */
    for (size_t i = 0; i < n; i++) {
        uint32_t k = step_at[i];
        if (k == STINT_NO_ID)
            continue;
        size_t a = k ? at[k - 1] : 0;
        struct frame f = {.step = k, .kids = kids + a, .nkids = at[k] - a};
        step_end(ss, &f);
    }
    free(kids);
    free(at);
    free(step_at);
}

/* The finish's work: kept steps in row order, names by rank. */
struct fin {
    const struct stint_model *m;
    const struct stint_steps_stream *ss;
    uint32_t *order;      /* row -> pending step */
    uint32_t *dense;      /* name id -> 1 + dense index (0: none yet) */
    size_t dcap;
    uint32_t *names;      /* dense -> name id */
    stint_i128 *totals;   /* dense -> total union over the kept steps */
    uint32_t *rank_of;    /* dense -> rank */
    size_t nnames, ncap;
};

/* Rows: host-clock steps first, by start, then input order (seq). */
static int row_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct pstep *st = ctx;
    const struct pstep *a = &st[*(const uint32_t *)pa], *b = &st[*(const uint32_t *)pb];
    if (a->device != b->device)
        return a->device - b->device;
    int c = stint_cmp_i64(a->ts_ns, b->ts_ns);
    return c ? c : stint_cmp_u32(a->seq, b->seq);
}

/* The kept steps in row order (F->order), on_streams and nhost in r; 1 when
 * the order cannot be told (a tie at the same start without input order). */
static int fin_rows(struct fin *F, struct stint_steps_sparse *r)
{
    const struct stint_steps_stream *ss = F->ss;
    size_t on_cpu = 0, n = 0;
    for (size_t k = 0; k < ss->nsteps; k++)
        on_cpu += !ss->gpu[ss->steps[k].lane];
    int drop = on_cpu && on_cpu < ss->nsteps; /* both kinds: the CPU threads' are the steps */
    F->order = stint_xmalloc((ss->nsteps ? ss->nsteps : 1) * sizeof *F->order);
    for (size_t k = 0; k < ss->nsteps; k++) {
        if (drop && ss->gpu[ss->steps[k].lane])
            r->on_streams++;
        else
            F->order[n++] = (uint32_t)k;
    }
    stint_xqsort_r(F->order, n, sizeof *F->order, row_cmp, ss->steps);
    for (size_t k = 0; k < n; k++) {
        const struct pstep *p = &ss->steps[F->order[k]];
        if (k) {
            const struct pstep *q = &ss->steps[F->order[k - 1]];
            if (q->device == p->device && q->ts_ns == p->ts_ns && !(q->seq_known && p->seq_known))
                return 1;
        }
        r->nhost += !p->device;
    }
    r->nsteps = n;
    return 0;
}

/* The child names of the kept steps, dense, with their totals, ranked. */
static void fin_names(struct fin *F, struct stint_steps_sparse *r)
{
    const struct stint_steps_stream *ss = F->ss;
    for (size_t k = 0; k < r->nsteps; k++) {
        const struct pstep *p = &ss->steps[F->order[k]];
        for (size_t j = p->cell0; j < p->cell0 + p->ncells; j++) {
            uint32_t nm = ss->cells[j].name;
            if (nm >= F->dcap)
                F->dense = stint_xgrow_zeroed(F->dense, &F->dcap, (size_t)nm + 1, sizeof *F->dense, 256);
            if (!F->dense[nm]) {
                if (F->nnames == F->ncap) {
                    size_t c = F->ncap;
                    F->names = stint_xgrow(F->names, &c, F->nnames + 1, sizeof *F->names, 64);
                    F->totals = stint_xgrow(F->totals, &F->ncap, F->nnames + 1, sizeof *F->totals, 64);
                }
                F->names[F->nnames] = nm;
                F->totals[F->nnames] = 0;
                F->dense[nm] = (uint32_t)++F->nnames;
            }
            F->totals[F->dense[nm] - 1] += ss->cells[j].union_ns;
            r->ncells++;
        }
    }
    size_t nn = F->nnames ? F->nnames : 1;
    uint32_t *order = stint_xmalloc(nn * sizeof *order);
    F->rank_of = stint_xmalloc(nn * sizeof *F->rank_of);
    r->children = stint_xmalloc(nn * sizeof *r->children);
    for (size_t c = 0; c < F->nnames; c++)
        order[c] = (uint32_t)c;
    struct stint_step_rank rk = {F->m, F->names, F->totals};
    stint_xqsort_r(order, F->nnames, sizeof *order, stint_step_rank_cmp, &rk);
    for (size_t k = 0; k < F->nnames; k++) {
        F->rank_of[order[k]] = (uint32_t)k;
        r->children[k] = F->names[order[k]];
    }
    r->nchildren = F->nnames;
    free(order);
}

/* Rows and cells (by row, then rank); each row's "other" union. */
/* Sorts a row's cells (a few: a step's direct child names) by child rank,
 * as stint_step_cell_cmp orders them (ranks are distinct within a row). */
static void sort_cells(struct stint_step_cell *c, size_t n)
{
    if (n > 16) {
        stint_xqsort(c, n, sizeof *c, stint_step_cell_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        struct stint_step_cell x = c[i];
        size_t j = i;
        for (; j && c[j - 1].child > x.child; j--)
            c[j] = c[j - 1];
        c[j] = x;
    }
}

static void fin_cells(struct fin *F, struct stint_steps_sparse *r, struct stint_steps_stream *ss)
{
    r->rows = stint_xcalloc(r->nsteps ? r->nsteps : 1, sizeof *r->rows);
    r->cells = stint_xmalloc((r->ncells ? r->ncells : 1) * sizeof *r->cells);
    size_t nc = 0;
    int64_t ov;
    for (size_t k = 0; k < r->nsteps; k++) {
        const struct pstep *p = &ss->steps[F->order[k]];
        struct stint_step_row *row = &r->rows[k];
        *row = (struct stint_step_row){.slice = STINT_NO_ID, .lane = p->lane, .ts_ns = p->ts_ns,
                                       .wall_ns = p->wall_ns, .overlap_ns = p->overlap_ns,
                                       .unattributed_ns = p->unattributed_ns, .cell0 = nc, .ncells = p->ncells};
        for (size_t j = p->cell0; j < p->cell0 + p->ncells; j++)
            r->cells[nc++] = (struct stint_step_cell){(uint32_t)k, F->rank_of[F->dense[ss->cells[j].name] - 1],
                                                      ss->cells[j].union_ns};
        sort_cells(&r->cells[row->cell0], row->ncells);
        if (r->nshown < r->nchildren && ss->keep_ivs) {
            struct stint_interval *tmp = tmp_for(ss, p->niv);
            size_t nt = 0;
            for (size_t j = p->iv0; j < p->iv0 + p->niv; j++)
                if (F->rank_of[F->dense[ss->ivs[j].name] - 1] >= r->nshown)
                    tmp[nt++] = ss->ivs[j].iv;
            row->other_ns = stint_intervals_union_overlap(tmp, nt, &ov);
        }
    }
}

int stint_steps_stream_finish(struct stint_steps_stream *ss, const struct stint_model *m, size_t max_shown,
                              struct stint_steps_sparse *r)
{
    memset(r, 0, sizeof *r);
    pop_to(ss, 0);
    if (!ss->gpu)
        lanes_init(ss, m);
    if (ss->defer)
        take_slices(ss, m);
    if (ss->unsure)
        return 1;
    struct fin F = {.m = m, .ss = ss};
    r->unfinished = ss->unfinished;
    int rc = fin_rows(&F, r);
    if (rc == 0) {
        fin_names(&F, r);
        r->nshown = max_shown < r->nchildren ? max_shown : r->nchildren;
        fin_cells(&F, r, ss);
    } else {
        memset(r, 0, sizeof *r);
    }
    free(F.order);
    free(F.dense);
    free(F.names);
    free(F.totals);
    free(F.rank_of);
    return rc;
}
