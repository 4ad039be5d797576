/* SPDX-License-Identifier: MIT */
/*
 * report_stream.c - the report's parts from a lean model's span stream
 * (report_stream.h): the sink hands each thread-track span to the lane and
 * name tallies, the call tree (without durations), the GPU collector and
 * the steps collector, and keeps the timeline's max_slices longest slices
 * (gathered up to twice max_slices, then cut back by a quickselect; from
 * then on a slice not longer than the last cut's shortest is passed by with
 * one comparison), the host span and each device lane's origin and end.
 * The slices of other tracks (async, process and global instants), which
 * the lean model keeps, join the kept ones at the end.
 *
 * Invariants: what it keeps is bounded by 2 x max_slices (32 bytes each), the
 * tree's distinct paths, the steps' candidates and their direct children
 * (report_steps_stream.c), the GPU collector's device work and the lanes;
 * nothing per slice. The kept slices' order is the whole model's: duration
 * (unfinished first), then the slice's index, which is (track, place in
 * its track) as the model groups its slices by track in the order the
 * stream gives them; so the kept set, and the page, are the same.
 */
#include "write/report_stream.h"

#include "analyze/analysis.h"
#include "base/cmp.h"
#include "base/xalloc.h"
#include "write/report_gpu.h"
#include "write/report_steps.h"
#include "write/report_steps_stream.h"
#include "write/report_tree.h"

#include <stdlib.h>
#include <string.h>

/* A timeline slice and its place in the model's order. */
struct hslice {
    int64_t ts, dur;
    uint32_t track, name, pos; /* pos: its place in its track */
};

struct stint_report_stream {
    struct stint_tally *T;
    const struct stint_report_opts *o;
    struct stint_report_tree *tree;
    struct stint_gpu_collect *gpu;
    struct stint_report_steps_stream *steps;
    struct hslice *heap; /* the kept slices (up to 2 x cap; then cut to cap) */
    size_t nheap, hcap, cap; /* cap: max_slices */
    struct hslice floor; /* the cap-th kept at the last cut: a slice must go before it */
    int has_floor;
    size_t nslices;
    uint32_t track, pos;
    int64_t h0, h1;
    int64_t *dev_origin, *dev_end; /* per lane (device lanes) */
    size_t nlanes;
};

struct stint_report_stream *stint_report_stream_new(struct stint_tally *T, const struct stint_report_opts *o)
{
    struct stint_report_stream *s = stint_xcalloc(1, sizeof *s);
    s->T = T;
    s->o = o;
    s->tree = stint_report_tree_new();
    struct stint_gpu_opts go = {NULL, 10, 0, 0, 0, 0};
    s->gpu = stint_gpu_collect_new(&go);
    s->steps = stint_report_steps_stream_new(o->step);
    s->cap = o->max_slices ? o->max_slices : 200000;
    s->track = STINT_NO_ID;
    s->h0 = INT64_MAX;
    s->h1 = INT64_MIN;
    return s;
}

struct stint_gpu_collect *stint_report_stream_gpu(struct stint_report_stream *s) { return s->gpu; }

/* Whether a goes before b in the model's order of the timeline (longest,
 * unfinished first, then by index). */
static int hs_before(const struct hslice *a, const struct hslice *b)
{
    int64_t da = a->dur < 0 ? INT64_MAX : a->dur, db = b->dur < 0 ? INT64_MAX : b->dur;
    if (da != db)
        return da > db;
    if (a->track != b->track)
        return a->track < b->track;
    return a->pos < b->pos;
}

static int hs_order(const void *pa, const void *pb)
{
    return hs_before(pa, pb) ? -1 : hs_before(pb, pa) ? 1 : 0;
}

static void hs_swap(struct hslice *a, struct hslice *b)
{
    struct hslice t = *a;
    *a = *b;
    *b = t;
}

/* Puts the k first of v[0, n) by hs_before in v[0, k) (0 < k < n), the
 * k-th of them at v[k - 1]: a quickselect (median of three; a sort after
 * too many rounds, so never quadratic). */
static void hs_select(struct hslice *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1, rounds = 0, limit = 2;
    for (size_t x = n; x > 1; x >>= 1)
        limit += 2;
    while (lo < hi) {
        if (++rounds > limit) {
            stint_xqsort(v + lo, hi - lo + 1, sizeof *v, hs_order);
            return;
        }
        size_t mid = lo + (hi - lo) / 2;
        if (hs_before(&v[mid], &v[lo]))
            hs_swap(&v[mid], &v[lo]);
        if (hs_before(&v[hi], &v[lo]))
            hs_swap(&v[hi], &v[lo]);
        if (hs_before(&v[hi], &v[mid]))
            hs_swap(&v[hi], &v[mid]);
        hs_swap(&v[mid], &v[hi]); /* the median as the pivot, at hi */
        size_t p = lo;
        for (size_t i = lo; i < hi; i++)
            if (hs_before(&v[i], &v[hi]))
                hs_swap(&v[i], &v[p++]);
        hs_swap(&v[p], &v[hi]);
        if (p == k - 1)
            return;
        if (p < k - 1)
            lo = p + 1;
        else
            hi = p - 1;
    }
}

/* Keeps the cap first of the kept slices; the k-th becomes the floor, which
 * a slice must beat to be kept from now on. */
static void heap_trim(struct stint_report_stream *s)
{
    if (s->nheap <= s->cap)
        return;
    hs_select(s->heap, s->nheap, s->cap);
    s->nheap = s->cap;
    s->floor = s->heap[s->cap - 1];
    s->has_floor = 1;
}

/* Offers x to the timeline's kept slices: gathered up to twice max_slices,
 * then cut to max_slices (linear in the slices offered). */
static void heap_offer(struct stint_report_stream *s, const struct hslice *x)
{
    if (s->has_floor && !hs_before(x, &s->floor))
        return;
    if (s->nheap == s->hcap)
        s->heap = stint_xgrow(s->heap, &s->hcap, s->nheap + 1, sizeof *s->heap, 1024);
    s->heap[s->nheap++] = *x;
    if (s->nheap >= 2 * s->cap)
        heap_trim(s);
}

/* The host span and the device origins and ends, as report_html.c's time_span finds them. */
static void span_take(struct stint_report_stream *s, const struct stint_model *m, uint32_t track, int64_t ts,
                      int64_t dur)
{
    const struct stint_track *tr = stint_model_track_at(m, track);
    int64_t e = ts + (dur > 0 ? dur : 0);
    if (stint_model_track_device(m, tr)) {
        if (!s->dev_origin) {
            s->nlanes = m->lanes.len;
            s->dev_origin = stint_xmalloc((s->nlanes + 1) * sizeof *s->dev_origin);
            s->dev_end = stint_xmalloc((s->nlanes + 1) * sizeof *s->dev_end);
            for (size_t l = 0; l <= s->nlanes; l++) {
                s->dev_origin[l] = INT64_MAX;
                s->dev_end[l] = INT64_MIN;
            }
        }
        if (ts < s->dev_origin[tr->lane])
            s->dev_origin[tr->lane] = ts;
        if (e > s->dev_end[tr->lane])
            s->dev_end[tr->lane] = e;
        return;
    }
    if (ts < s->h0)
        s->h0 = ts;
    if (e > s->h1)
        s->h1 = e;
}

void stint_report_stream_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_report_stream *s = ctx;
    stint_tally_on_slice(s->T, m, ev);
    stint_report_tree_span(s->tree, m, ev);
    struct stint_span_ev gev = *ev;
    if ((ev->flags & STINT_SLICE_BEGIN_END) && ev->dur_ns >= 0 && !(ev->flags & STINT_SLICE_INSTANT)) {
        /* a B/E span: the reader's correlation hook saw no args of it, and the GPU
         * collector would take it for a stream it cannot describe. The page draws no
         * launch link (no figure of it reads a correlation), so device work is taken
         * without one, as the hook takes X spans', and a runtime call goes on without */
        if (stint_gpu_collect_want(s->gpu, m, ev->cat))
            stint_gpu_collect_corr(s->gpu, ev->track, ev->cat, ev->name, ev->ts_ns, ev->dur_ns, 0, 0);
        gev.flags &= (uint16_t)~STINT_SLICE_BEGIN_END;
    }
    stint_gpu_collect_span(s->gpu, m, &gev);
    stint_report_steps_stream_span(s->steps, m, ev);
    if (ev->track != s->track) {
        s->track = ev->track;
        s->pos = 0;
    }
    struct hslice x = {ev->ts_ns, ev->dur_ns, ev->track, ev->name, s->pos++};
    heap_offer(s, &x);
    span_take(s, m, ev->track, ev->ts_ns, ev->dur_ns);
    s->nslices++;
}

/* The model's slices on other tracks than threads' (the stream had the
 * threads'): counted, offered to the timeline, in the span. */
static void other_tracks(struct stint_report_stream *s, const struct stint_model *m)
{
    size_t n = stint_model_nslices(m);
    uint32_t track = STINT_NO_ID, pos = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *sl = stint_model_slice(m, i);
        if (stint_model_track_at(m, sl->track)->kind == STINT_TRACK_THREAD)
            continue;
        if (sl->track != track) {
            track = sl->track;
            pos = 0;
        }
        struct hslice x = {sl->ts_ns, sl->dur_ns, sl->track, sl->name, pos++};
        heap_offer(s, &x);
        span_take(s, m, sl->track, sl->ts_ns, sl->dur_ns);
        s->nslices++;
    }
}

static int hs_index_cmp(const void *pa, const void *pb)
{
    const struct hslice *a = pa, *b = pb;
    int c = stint_cmp_u32(a->track, b->track);
    return c ? c : stint_cmp_u32(a->pos, b->pos);
}

/* The timeline's parts of p: the kept slices in index order, the span. */
static void timeline_parts(struct stint_report_stream *s, const struct stint_model *m, struct stint_report_parts *p)
{
    heap_trim(s);
    stint_xqsort(s->heap, s->nheap, sizeof *s->heap, hs_index_cmp);
    p->pick = stint_xmalloc((s->nheap ? s->nheap : 1) * sizeof *p->pick);
    for (size_t k = 0; k < s->nheap; k++)
        p->pick[k] = (struct stint_report_slice){s->heap[k].ts, s->heap[k].dur, s->heap[k].track, s->heap[k].name};
    p->npick = s->nheap;
    p->nslices = s->nslices;
    p->left_out = s->nslices - s->nheap;
    if (s->h0 == INT64_MAX)
        s->h0 = s->h1 = 0;
    p->h0 = s->h0;
    p->h1 = s->h1;
    p->span = s->h1 - s->h0;
    p->dev_origin = stint_xmalloc((m->lanes.len + 1) * sizeof *p->dev_origin);
    for (size_t l = 0; l < m->lanes.len; l++) {
        p->dev_origin[l] = l < s->nlanes && s->dev_origin ? s->dev_origin[l] : INT64_MAX;
        if (p->dev_origin[l] != INT64_MAX && s->dev_end[l] - p->dev_origin[l] > p->span)
            p->span = s->dev_end[l] - p->dev_origin[l];
    }
}

void stint_report_stream_free(struct stint_report_stream *s, const struct stint_model *m)
{
    (void)m;
    stint_report_tree_free(s->tree);
    stint_report_steps_stream_free(s->steps);
    stint_gpu_collect_free(s->gpu);
    free(s->heap);
    free(s->dev_origin);
    free(s->dev_end);
    free(s);
}

int stint_report_stream_finish(struct stint_report_stream *s, const struct stint_model *m,
                               struct stint_report_parts *p)
{
    memset(p, 0, sizeof *p);
    int rc = stint_report_tree_finish(s->tree, STINT_REPORT_FLAME_NODES, &p->tree);
    s->tree = NULL; /* (the finish took it) */
    if (rc == 0 && !stint_gpu_collect_ok(s->gpu))
        rc = 1;
    if (rc == 0) {
        /* the steps and GPU sections, into memory (a few tables) */
        FILE *mf = open_memstream(&p->late, &p->nlate);
        if (!mf)
            stint_die_nomem();
        int src = stint_report_steps_stream_write(s->steps, m, mf, s->o->step_columns);
        s->steps = NULL;
        p->late_rc = src < 0 ? -1 : 0;
        if (src != 1)
            stint_report_gpu_collected(mf, s->gpu, m); /* (nothing without device work) */
        if (fclose(mf) != 0)
            rc = -1;
        if (src == 1 && rc == 0) { /* (steps at one start: the whole model orders them) */
            rc = 1;
            free(p->late);
            p->late = NULL;
        }
    }
    if (rc == 0) {
        other_tracks(s, m);
        timeline_parts(s, m, p);
    } else {
        stint_calltree_free(&p->tree.tree);
    }
    stint_report_stream_free(s, m);
    return rc;
}
