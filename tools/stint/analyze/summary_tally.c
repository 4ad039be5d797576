/* SPDX-License-Identifier: MIT */
/*
 * summary_tally.c - the walk of `stint summary` and the report's tables
 * (summary_tally.h): the span sink that tallies each track's spans as the
 * model streams them, its split over two walkers, and the storage of the
 * names' durations (the tail, summary_tail.c, turns them into figures).
 *
 * Invariants: each track's spans arrive in start order with their nesting
 * level, so one stack of frames gives every self time (duration minus the
 * union of its direct children, clipped to it; a filtered-out child still
 * covers its parent) and every per-lane union; a name row is found once
 * per (cat, name, clock) whatever the walker, so joining two walkers is
 * counts, sums, minima and maxima plus moved block lists; durations stay
 * 32-bit per name until one needs 64. Out of memory ends the process
 * (xalloc.h).
 */
#include "analyze/summary_tally.h"
#include "analyze/summary_tally_int.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/hmem.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* a name's durations (struct stint_tally_dblk, struct stint_tally_slab) */
#define DUR_FIRST 4u /* (a name of one span takes 16 bytes) */
#define DUR_BLOCK ((uint32_t)16384)
#define DUR_SLAB ((size_t)64 << 10)
_Static_assert(DUR_SLAB == DUR_BLOCK * sizeof(uint32_t), "a full block takes a slab's size");

struct stint_tally_frame {
    uint32_t row;    /* name row of a counted span, STINT_NO_ID for anything else */
    int64_t ts_ns, dur_ns;
    struct stint_union_acc kids;
    uint32_t xa, xb; /* an explicit parent's children: summary.xk[xa, xb) */
    uint8_t xlist;   /* xa, xb were set: its explicit children are counted from there */
};

/* A child of an explicit parent (JSONL parent ids), clipped to the parent. */
struct stint_tally_xkid {
    uint32_t parent; /* the parent's slice index */
    int64_t start, end;
};

/* Appends slot v to the category's runs. */
static void cat_slot_push(struct stint_tally_cat *c, uint64_t v)
{
    size_t b = c->niv >> STINT_TALLY_RUN_SHIFT, at = c->niv & STINT_TALLY_RUN_MASK;
    if (b == 0 && at == c->iv0cap) { /* block 0 grows */
        size_t old = c->iv0cap;
        c->iv0cap = c->iv0cap ? c->iv0cap * 2 : 16;
        if (!c->ivb) {
            c->ivb = stint_xmalloc(sizeof *c->ivb);
            c->ivb[0] = NULL;
            c->nivb = 1;
        }
        c->ivb[0] = stint_hmem_xrealloc(c->ivb[0], old * sizeof **c->ivb, c->iv0cap * sizeof **c->ivb);
    } else if (b > 0 && at == 0) { /* a new block */
        c->ivb = stint_xreallocarray(c->ivb, b + 1, sizeof *c->ivb);
        c->ivb[b] = stint_hmem_xrealloc(NULL, 0, STINT_TALLY_RUN_BLOCK * sizeof **c->ivb);
        c->nivb = b + 1;
    }
    c->ivb[b][at] = v;
    c->niv++;
}

/* The category's intervals of the current track are folded into one run as
 * they come (start order); a run ends when a later span starts after it and
 * is kept, packed, for the union across lanes at the end. */
static void cat_run_flush(struct stint_tally_cat *c)
{
    if (!c->run_open)
        return;
    uint64_t slot[3];
    unsigned k = stint_pack_interval(slot, !c->run_cont, c->run_prev, c->run_start, c->run_end);
    for (unsigned i = 0; i < k; i++)
        cat_slot_push(c, slot[i]);
    c->run_cont = 1;
    c->run_prev = c->run_start;
    c->run_open = 0;
}

/* Appends end to the category's list of track ends (seg). */
static void cat_seg_push(struct stint_tally_cat *c, size_t end)
{
    if (c->nseg == c->segcap) {
        size_t old = c->segcap;
        c->segcap = c->segcap ? c->segcap * 2 : 16;
        c->seg = stint_hmem_xrealloc(c->seg, old * sizeof *c->seg, c->segcap * sizeof *c->seg);
    }
    c->seg[c->nseg++] = end;
}

static void cat_runs_free(struct stint_tally_cat *c)
{
    for (size_t b = 0; b < c->nivb; b++)
        stint_hmem_free(c->ivb[b], (b ? STINT_TALLY_RUN_BLOCK : c->iv0cap) * sizeof **c->ivb);
    free(c->ivb);
    c->ivb = NULL;
    c->nivb = 0;
}

/* Frees a category's runs and track ends (after cat_finish, or once joined). */
void stint_tally_cat_free(struct stint_tally_cat *cr)
{
    cat_runs_free(cr);
    stint_hmem_free(cr->seg, cr->segcap * sizeof *cr->seg);
    cr->seg = NULL;
}

static void frame_end(struct stint_tally *S, struct stint_tally_frame *fr)
{
    if (fr->row == STINT_NO_ID)
        return;
    for (uint32_t k = fr->xa; k < fr->xb; k++) /* (in start order, as the union takes them) */
        stint_union_acc_add(&fr->kids, S->xk[k].start, S->xk[k].end);
    S->names[fr->row].self_ns = stint_sum_add(S->names[fr->row].self_ns, fr->dur_ns - stint_union_acc_total(&fr->kids));
}

static int xkid_cmp(const void *pa, const void *pb)
{
    const struct stint_tally_xkid *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

/* Collects the finished spans whose explicit parent is a finished span
 * (JSONL sessions: the span tree comes from parent ids, and a step's workers
 * may run on other threads), each clipped to its parent, by parent and
 * start: their union is what counts against the parent's self time, as in
 * `tree`, whatever the track and whatever order the walk streams them in.
 * Built once, by the walk that streams the first slice with an explicit
 * parent (those are streamed on one thread). */
static void xkids_build(struct stint_tally *S, const struct stint_model *m)
{
    size_t n = stint_model_nslices(m), cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *c = stint_model_slice(m, i);
        if (!(c->flags & STINT_SLICE_EXPLICIT_PARENT) || c->parent >= n || c->dur_ns < 0 ||
            (c->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC)))
            continue;
        const struct stint_slice *p = stint_model_slice(m, c->parent);
        if (p->dur_ns < 0)
            continue;
        int64_t start = c->ts_ns > p->ts_ns ? c->ts_ns : p->ts_ns;
        int64_t end = c->ts_ns + c->dur_ns, pend = p->ts_ns + p->dur_ns;
        if (end > pend)
            end = pend;
        if (end <= start)
            continue;
        if (S->nxk == cap)
            S->xk = stint_xgrow(S->xk, &cap, S->nxk + 1, sizeof *S->xk, 64);
        S->xk[S->nxk++] = (struct stint_tally_xkid){c->parent, start, end};
    }
    /* grouped by parent (a counting sort), each parent's in start order */
    S->xfirst = stint_xcalloc(n + 1, sizeof *S->xfirst);
    for (size_t k = 0; k < S->nxk; k++)
        S->xfirst[S->xk[k].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        S->xfirst[i + 1] += S->xfirst[i];
    struct stint_tally_xkid *by = stint_xmalloc(S->nxk * sizeof *by);
    for (size_t k = 0; k < S->nxk; k++)
        by[S->xfirst[S->xk[k].parent]++] = S->xk[k];
    for (size_t i = n; i > 0; i--) /* each entry moved to its parent's end: back to the starts */
        S->xfirst[i] = S->xfirst[i - 1];
    S->xfirst[0] = 0;
    free(S->xk);
    S->xk = by;
    for (size_t i = 0; i < n; i++)
        if (S->xfirst[i + 1] - S->xfirst[i] > 1)
            stint_xqsort(S->xk + S->xfirst[i], S->xfirst[i + 1] - S->xfirst[i], sizeof *S->xk, xkid_cmp);
}

/* Points the frame of explicit-parent slice idx at its children. */
static void frame_xkids(struct stint_tally *S, const struct stint_model *m, struct stint_tally_frame *fr, uint32_t idx)
{
    if (!S->xfirst)
        xkids_build(S, m);
    fr->xa = S->xfirst[idx];
    fr->xb = S->xfirst[idx + 1];
}

/* The end of a track's stream: its open frames and category runs end. */
void stint_tally_track_end(struct stint_tally *S)
{
    while (S->sn)
        frame_end(S, &S->frames[--S->sn]);
    for (size_t c = 0; c < S->ncats; c++) {
        struct stint_tally_cat *cr = &S->cats[c];
        cat_run_flush(cr);
        size_t mark = cr->nseg ? cr->seg[cr->nseg - 1] : 0;
        if (cr->niv > mark)
            cat_seg_push(cr, cr->niv); /* where this track's runs end */
        cr->run_cont = 0;              /* (the next track's first run takes three slots) */
    }
}

static uint32_t cat_row_of(struct stint_tally *S, uint32_t cat, uint8_t clk)
{
    int isnew;
    uint32_t c = stint_umap_get(&S->cmap, ((uint64_t)clk << 32) | cat, (uint32_t)S->ncats, &isnew);
    if (isnew) {
        if (S->ncats == S->ccap)
            S->cats = stint_xgrow(S->cats, &S->ccap, S->ncats + 1, sizeof *S->cats, 64);
        memset(&S->cats[c], 0, sizeof S->cats[c]);
        S->cats[c].cat = cat;
        S->cats[c].clock = clk;
        S->ncats++;
    }
    return c;
}

static uint32_t name_row_of(struct stint_tally *S, uint32_t cat, uint32_t name, uint8_t clk)
{
    int isnew;
    /* (cat, name, clock) key: cat and name ids are < 2^31 in practice; fold the clock in */
    uint64_t nk = ((uint64_t)cat << 32) ^ name ^ ((uint64_t)clk << 63);
    /* names repeat: a direct-mapped cache in front of the map */
    struct stint_tally_rcache *ce = &S->rcache[stint_hash_slot(nk, 10)]; /* (STINT_TALLY_RCACHE is 2^10) */
    if (ce->row1 && ce->key == nk)
        return ce->row1 - 1;
    uint32_t r = stint_umap_get(&S->nmap, nk, (uint32_t)S->nnames, &isnew);
    ce->key = nk;
    ce->row1 = r + 1;
    if (isnew) {
        if (S->nnames == S->ncap) { /* (hmem.h: a walker's rows can take half a megabyte) */
            size_t old = S->ncap; /* x1.5: past 1 MiB hmem.h moves pages, copies nothing; a row is 160 bytes */
            S->ncap = S->ncap ? S->ncap + S->ncap / 2 : 256;
            S->names = stint_hmem_xrealloc(S->names, old * sizeof *S->names, S->ncap * sizeof *S->names);
        }
        struct stint_tally_name *nr = &S->names[r];
        memset(nr, 0, sizeof *nr);
        nr->cat = cat;
        nr->name = name;
        nr->clock = clk;
        nr->crow = cat_row_of(S, cat, clk);
        nr->min_ns = INT64_MAX;
        nr->stamp = STINT_NO_ID;
        S->nnames++;
    }
    return r;
}

/* The name row of a span: by its lean pair when it has one (the pair's row,
 * found once by name_row_of), else name_row_of. */
static uint32_t span_row_of(struct stint_tally *S, const struct stint_model *m, const struct stint_span_ev *ev)
{
    size_t pair = (size_t)ev->pair1 - 1;
    if (ev->pair1 && pair < S->nprow && S->prow[pair])
        return S->prow[pair] - 1;
    uint32_t row = name_row_of(S, ev->cat, ev->name, stint_model_lane_at(m, ev->lane)->clock);
    if (ev->pair1) {
        if (pair >= S->nprow) {
            size_t old = S->nprow;
            S->prow = stint_xgrow(S->prow, &S->nprow, pair + 1, sizeof *S->prow, 256);
            memset(S->prow + old, 0, (S->nprow - old) * sizeof *S->prow);
        }
        S->prow[pair] = row + 1;
    }
    return row;
}

/* Puts block (v, n, cap) on the name's list of earlier blocks. */
static void dur_keep(struct stint_tally_name *nr, uint32_t *v, uint32_t n, uint32_t cap)
{
    if (nr->ndblk == nr->dblk_cap) {
        size_t lcap = nr->dblk_cap; /* (one block per 16384 durations: 32 bits are plenty) */
        nr->dblk = stint_xgrow(nr->dblk, &lcap, (size_t)nr->ndblk + 1, sizeof *nr->dblk, 4);
        nr->dblk_cap = (uint32_t)lcap;
    }
    nr->dblk[nr->ndblk++] = (struct stint_tally_dblk){v, n, cap};
}

/* Adds slab p to sl's list. */
static void slab_add(struct stint_tally_slab *sl, char *p)
{
    if (sl->n == sl->cap)
        sl->all = stint_xgrow(sl->all, &sl->cap, sl->n + 1, sizeof *sl->all, 16);
    sl->all[sl->n++] = p;
}

/* bytes (at most DUR_SLAB, a multiple of 8) from the current slab, or from a new one. */
static void *slab_take(struct stint_tally_slab *sl, size_t bytes)
{
    if (bytes > sl->left) {
        sl->at = stint_hmem_xrealloc(NULL, 0, DUR_SLAB);
        slab_add(sl, sl->at);
        sl->left = DUR_SLAB;
    }
    void *p = sl->at;
    sl->at += bytes;
    sl->left -= bytes;
    return p;
}

/* Moves from's slabs to to (whose rows now hold blocks cut from them). */
static void slab_move(struct stint_tally_slab *to, struct stint_tally_slab *from)
{
    for (size_t k = 0; k < from->n; k++)
        slab_add(to, from->all[k]);
    free(from->all);
    memset(from, 0, sizeof *from);
}

/* Frees every slab (once no row holds a block cut from one). */
void stint_tally_slab_free(struct stint_tally_slab *sl)
{
    for (size_t k = 0; k < sl->n; k++)
        stint_hmem_free(sl->all[k], DUR_SLAB);
    free(sl->all);
    memset(sl, 0, sizeof *sl);
}

/* The name's last block is full (or there is none): a new one, twice as
 * large up to DUR_BLOCK values, takes its place (cut from sl while smaller). */
static void dur_block(struct stint_tally_slab *sl, struct stint_tally_name *nr)
{
    uint32_t cap = nr->dt_cap ? (nr->dt_cap < DUR_BLOCK ? nr->dt_cap * 2 : DUR_BLOCK) : DUR_FIRST;
    if (nr->dt)
        dur_keep(nr, nr->dt, nr->dt_n, nr->dt_cap);
    nr->dt = cap < DUR_BLOCK ? slab_take(sl, cap * sizeof *nr->dt) : stint_hmem_xrealloc(NULL, 0, DUR_SLAB);
    nr->dt_n = 0;
    nr->dt_cap = cap;
}

/* Frees the name's narrow blocks but those cut from slabs (its list is then empty). */
static void dur_blocks_free(struct stint_tally_name *nr)
{
    for (size_t k = 0; k < nr->ndblk; k++)
        if (nr->dblk[k].cap == DUR_BLOCK)
            stint_hmem_free(nr->dblk[k].v, DUR_SLAB);
    if (nr->dt_cap == DUR_BLOCK)
        stint_hmem_free(nr->dt, DUR_SLAB);
    free(nr->dblk);
    nr->dblk = NULL;
    nr->ndblk = nr->dblk_cap = 0;
    nr->dt = NULL;
    nr->dt_n = nr->dt_cap = 0;
}

/* Makes room for cap wide durations (no less than now) in the name's array. */
static void dur_reserve(struct stint_tally_name *nr, size_t cap)
{
    if (cap <= nr->d_cap)
        return;
    nr->d = stint_hmem_xrealloc(nr->d, nr->d_cap * sizeof *nr->d, cap * sizeof *nr->d);
    nr->d_cap = cap;
}

/* Writes the values of r's narrow blocks (all r holds while not wide) to at. */
static void dur_narrow_copy(const struct stint_tally_name *r, int64_t *at)
{
    for (size_t k = 0; k < r->ndblk; k++)
        for (uint32_t i = 0; i < r->dblk[k].n; i++)
            *at++ = r->dblk[k].v[i];
    for (uint32_t i = 0; i < r->dt_n; i++)
        *at++ = r->dt[i];
}

/* Turns the name's narrow blocks into one wide array with room for extra
 * more (once a duration needs 64 bits). */
static void dur_widen(struct stint_tally_name *nr, size_t extra)
{
    dur_reserve(nr, nr->d_len + extra);
    dur_narrow_copy(nr, nr->d);
    dur_blocks_free(nr);
}

/* Frees a name row's durations (after name_finish, or once appended elsewhere). */
void stint_tally_name_free(struct stint_tally_name *nr)
{
    dur_blocks_free(nr);
    stint_hmem_free(nr->d, nr->d_cap * sizeof *nr->d);
    nr->d = NULL;
    nr->d_len = nr->d_cap = 0;
}

/* Appends one duration to the name's list (narrow while every value fits). */
static void dur_push(struct stint_tally_slab *sl, struct stint_tally_name *nr, int64_t dur)
{
    if (!nr->d && (uint64_t)dur <= UINT32_MAX) {
        if (nr->dt_n == nr->dt_cap)
            dur_block(sl, nr);
        nr->dt[nr->dt_n++] = (uint32_t)dur;
    } else {
        if (!nr->d)
            dur_widen(nr, 16);
        else if (nr->d_len == nr->d_cap)
            dur_reserve(nr, nr->d_cap + nr->d_cap / 2);
        nr->d[nr->d_len] = dur;
    }
    nr->d_len++;
}

/* With filters: indexes the model's instant tallies for stint_tally_instant_pass(). */
void stint_tally_instants_index(struct stint_tally *S, const struct stint_model *m)
{
    if (S->icount || !S->filtering)
        return;
    S->icount = stint_xcalloc(m->instants.len + 1, sizeof *S->icount);
    for (size_t k = 0; k < m->instants.len; k++) {
        const struct stint_instant_stat *st = &STINT_BA_AT(&m->instants, struct stint_instant_stat, k);
        int isnew;
        stint_umap_get(&S->imap[st->kind & 3], ((uint64_t)st->cat << 32) | st->name, (uint32_t)k, &isnew);
    }
}

int stint_tally_is_annotation(const struct stint_model *m, uint32_t cat)
{
    size_t n;
    const char *s = stint_model_str(m, cat, &n);
    return n == 19 && !memcmp(s, "gpu_user_annotation", 19);
}

/* The span sink (model.h): one thread-track slice at a time, per track in
 * start order with its nesting level. Instants, unfinished and filtered-out
 * slices take a frame too (so levels line up) but count for nothing, except
 * that a filtered-out span still covers its parent: self time is a property
 * of the call tree, the same whatever the filters select (as in `tree`). */
void stint_tally_on_slice(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_tally *S = ctx;
    if (!S->lanes) {
        S->lanes = stint_xcalloc(m->lanes.len, sizeof *S->lanes);
        for (size_t i = 0; i < m->lanes.len; i++) {
            stint_union_acc_init(&S->lanes[i].busy);
            stint_union_acc_init(&S->lanes[i].annot);
        }
        S->track = STINT_NO_ID;
        stint_tally_instants_index(S, m);
    }
    if (ev->track != S->track) {
        stint_tally_track_end(S);
        S->track = ev->track;
    }
    while (S->sn > ev->level)
        frame_end(S, &S->frames[--S->sn]);
    uint32_t row = STINT_NO_ID;
    int pass = 1;
    if (S->filtering) {
        struct stint_slice s = {.ts_ns = ev->ts_ns, .dur_ns = ev->dur_ns, .track = ev->track, .cat = ev->cat,
                                .name = ev->name, .flags = ev->flags, .seq = ev->seq};
        pass = stint_filter_slice(S->f, m, &s);
    }
    if (S->icount && pass && (ev->flags & STINT_SLICE_INSTANT) && !(ev->flags & STINT_SLICE_ASYNC))
        stint_tally_instant_pass(S, m, STINT_TRACK_THREAD, ev->cat, ev->name);
    if (pass && !(ev->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC))) {
        if (ev->dur_ns < 0)
            S->unfinished++;
        else
            row = span_row_of(S, m, ev);
    }
    if (ev->level && ev->parent_on_top && ev->level <= S->sn && S->frames[ev->level - 1].row != STINT_NO_ID &&
        (!ev->slice1 || !S->frames[ev->level - 1].xlist) &&
        !(ev->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC)) && ev->dur_ns >= 0) {
        /* a direct child, counted or filtered out: clipped into the parent's child union
         * (explicit parents take their explicit children from S->xk at frame_end; a
         * parent nested by time under its explicit children, as a marker record whose
         * depth names no parent, takes them here) */
        struct stint_tally_frame *p = &S->frames[ev->level - 1];
        int64_t end = ev->ts_ns + ev->dur_ns, pend = p->ts_ns + p->dur_ns;
        stint_union_acc_add(&p->kids, ev->ts_ns, end < pend ? end : pend);
    }
    if (row != STINT_NO_ID) {
        int64_t ts = ev->ts_ns, dur = ev->dur_ns, end = ts + dur;
        struct stint_tally_lane *lr = &S->lanes[ev->lane];
        if (ev->cat + 1 != S->acat) { /* (spans of one category come in runs) */
            S->acat = ev->cat + 1;
            S->acat_is = stint_tally_is_annotation(m, ev->cat);
        }
        if (S->acat_is) {
            lr->annot_spans++;
            lr->annot_sum_ns = stint_sum_add(lr->annot_sum_ns, dur);
            stint_union_acc_add(&lr->annot, ts, end);
        } else {
            lr->spans++;
            lr->sum_ns = stint_sum_add(lr->sum_ns, dur);
            stint_union_acc_add(&lr->busy, ts, end);
        }
        struct stint_tally_name *nr = &S->names[row];
        nr->spans++;
        nr->sum_ns = stint_sum_add(nr->sum_ns, dur);
        if (dur < nr->min_ns)
            nr->min_ns = dur;
        if (dur > nr->max_ns)
            nr->max_ns = dur;
        if (nr->stamp != ev->lane) {
            if (nr->stamp != STINT_NO_ID)
                nr->total_ns = stint_sum_add(nr->total_ns, stint_union_acc_total(&nr->acc));
            stint_union_acc_init(&nr->acc);
            nr->stamp = ev->lane;
        }
        stint_union_acc_add(&nr->acc, ts, end);
        dur_push(&S->slab, nr, dur);
        struct stint_tally_cat *cr = &S->cats[nr->crow];
        cr->spans++;
        cr->sum_ns = stint_sum_add(cr->sum_ns, dur);
        if (cr->run_open && ts <= cr->run_end) {
            if (end > cr->run_end)
                cr->run_end = end;
        } else {
            cat_run_flush(cr);
            cr->run_start = ts;
            cr->run_end = end;
            cr->run_open = 1;
        }
        S->spans++;
        S->sum_ns = stint_sum_add(S->sum_ns, dur);
    }
    if (S->sn == S->fcap)
        S->frames = stint_xgrow(S->frames, &S->fcap, S->sn + 1, sizeof *S->frames, 64);
    struct stint_tally_frame *fr = &S->frames[S->sn++];
    fr->row = row;
    fr->ts_ns = ev->ts_ns;
    fr->dur_ns = ev->dur_ns;
    stint_union_acc_init(&fr->kids);
    fr->xa = fr->xb = 0;
    fr->xlist = ev->slice1 && row != STINT_NO_ID;
    if (fr->xlist)
        frame_xkids(S, m, fr, ev->slice1 - 1);
}

/* ---- the walk on two threads (struct stint_span_split) ---------------------------------
 * The second walker tallies its tracks into a summary of its own; join folds
 * it into the first. Every tally is per lane (lanes, the per-lane name
 * unions), per track (self time, category runs) or a plain count, sum,
 * minimum or maximum, and the durations are only selected from, so the
 * result is the one a single walker gives. */

static void *summary_fork(void *ctx, const struct stint_model *m)
{
    const struct stint_tally *S = ctx;
    struct stint_tally *T = stint_xcalloc(1, sizeof *T);
    (void)m;
    T->f = S->f;
    T->filtering = S->filtering;
    return T;
}

/* Appends from's durations to nr's (widening nr when either is wide) and
 * frees from's: narrow, from's blocks join nr's list as they are. */
static void dur_append(struct stint_tally_name *nr, struct stint_tally_name *from)
{
    if (!nr->d && !from->d) {
        for (size_t k = 0; k < from->ndblk; k++)
            dur_keep(nr, from->dblk[k].v, from->dblk[k].n, from->dblk[k].cap);
        if (from->dt)
            dur_keep(nr, from->dt, from->dt_n, from->dt_cap);
        nr->d_len += from->d_len;
        from->ndblk = 0; /* (the blocks are nr's now: stint_tally_name_free frees only the list) */
        from->dt = NULL;
        from->dt_n = from->dt_cap = 0;
        stint_tally_name_free(from);
        return;
    }
    if (!nr->d)
        dur_widen(nr, from->d_len);
    dur_reserve(nr, nr->d_len + from->d_len);
    int64_t *at = nr->d + nr->d_len;
    if (from->d)
        memcpy(at, from->d, from->d_len * sizeof *at);
    else
        dur_narrow_copy(from, at);
    nr->d_len += from->d_len;
    stint_tally_name_free(from);
}

static void summary_join(void *ctx, void *forked, const struct stint_model *m)
{
    struct stint_tally *S = ctx, *T = forked;
    stint_tally_track_end(S);
    stint_tally_track_end(T);
    if (T->lanes) {
        if (!S->lanes) {
            S->lanes = T->lanes;
            T->lanes = NULL;
        } else /* a lane has one thread track: T's lanes are not S's */
            for (size_t i = 0; i < m->lanes.len; i++)
                if (T->lanes[i].spans || T->lanes[i].annot_spans)
                    S->lanes[i] = T->lanes[i];
    }
    for (size_t r = 0; r < T->nnames; r++) {
        struct stint_tally_name *tr = &T->names[r];
        if (tr->stamp != STINT_NO_ID)
            tr->total_ns = stint_sum_add(tr->total_ns, stint_union_acc_total(&tr->acc));
        uint32_t q = name_row_of(S, tr->cat, tr->name, tr->clock); /* (may move S->names) */
        struct stint_tally_name *nr = &S->names[q];
        nr->spans += tr->spans;
        nr->sum_ns = stint_sum_add(nr->sum_ns, tr->sum_ns);
        nr->total_ns = stint_sum_add(nr->total_ns, tr->total_ns);
        nr->self_ns = stint_sum_add(nr->self_ns, tr->self_ns);
        if (tr->min_ns < nr->min_ns)
            nr->min_ns = tr->min_ns;
        if (tr->max_ns > nr->max_ns)
            nr->max_ns = tr->max_ns;
        dur_append(nr, tr);
    }
    for (size_t c = 0; c < T->ncats; c++) {
        struct stint_tally_cat *tc = &T->cats[c];
        uint32_t q = cat_row_of(S, tc->cat, tc->clock); /* (may move S->cats) */
        struct stint_tally_cat *sc = &S->cats[q];
        sc->spans += tc->spans;
        sc->sum_ns = stint_sum_add(sc->sum_ns, tc->sum_ns);
        /* T's runs after S's, each of T's tracks still a sorted segment */
        size_t base = sc->niv;
        for (size_t i = 0; i < tc->niv; i++) /* (each track's slots begin with a three-slot run) */
            cat_slot_push(sc, tc->ivb[i >> STINT_TALLY_RUN_SHIFT][i & STINT_TALLY_RUN_MASK]);
        for (size_t k = 0; k < tc->nseg; k++)
            cat_seg_push(sc, base + tc->seg[k]);
        stint_tally_cat_free(tc);
    }
    slab_move(&S->slab, &T->slab); /* (T's durations are S's now) */
    S->spans += T->spans;
    S->unfinished += T->unfinished;
    S->sum_ns = stint_sum_add(S->sum_ns, T->sum_ns);
    if (T->icount) {
        stint_tally_instants_index(S, m);
        for (size_t k = 0; k < m->instants.len; k++)
            S->icount[k] += T->icount[k];
    }
    for (int k = 0; k < 4; k++)
        stint_umap_free(&T->imap[k]);
    stint_umap_free(&T->cmap);
    stint_umap_free(&T->nmap);
    free(T->icount);
    free(T->lanes);
    free(T->cats);
    stint_hmem_free(T->names, T->ncap * sizeof *T->names);
    free(T->frames);
    free(T->prow);
    free(T);
}


void stint_tally_init(struct stint_tally *T, const struct stint_filter *f)
{
    static const struct stint_filter none;
    memset(T, 0, sizeof *T);
    T->f = f ? f : &none;
    T->filtering = stint_filter_active(T->f);
}

struct stint_span_split stint_tally_split(void)
{
    const char *fs = getenv("STINT_FINISH_SPLIT_MIN");
    struct stint_span_split sp = {summary_fork, summary_join,
                                  fs && *fs ? (size_t)strtoull(fs, NULL, 10) : (size_t)1 << 16};
    return sp;
}

void stint_tally_free(struct stint_tally *T)
{
    free(T->lanes);
    free(T->cats);
    stint_hmem_free(T->names, T->ncap * sizeof *T->names);
    free(T->asyncs);
    free(T->prow);
    free(T->icount);
    free(T->ctally);
    memset(T, 0, sizeof *T);
}
