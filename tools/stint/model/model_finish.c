/* SPDX-License-Identifier: MIT */
/*
 * model_finish.c - stint_model_finish: closes the reading phase. It sorts
 * the E events and groups the slices by track, has the track walk
 * (model_walk.c) nest every track and match its E events, binds the flow
 * events (model_flow.c), resolves explicit parents and streams the
 * thread-track slices to the span sink.
 *
 * Invariants: after it, slices[] is grouped by track and each track in
 * the model's order (model.h), parent and depth set; E events and flow
 * events are gone (matched, bound or counted); the model is read-only. The
 * grouping is stable (a counting sort), so input order survives within a
 * track. Where the walk runs on two threads (lean mode with a split span
 * sink), results are the same as on one: repairs come out through
 * per-walker logs joined in track order, and the flow binding waits for
 * both walkers.
 */
#include "model/model_int.h"
#include "base/cmp.h"
#include "base/hmem.h"
#include "base/nearsort.h"
#include "base/selftrace.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- order and grouping ------------------------------------------------------------------ */

size_t *stint_i_track_starts(const void *items, size_t n, size_t size, size_t off, size_t ntracks)
{
    size_t *st = stint_xcalloc(ntracks + 1, sizeof *st);
    for (size_t k = 0; k < n; k++) {
        uint32_t t;
        memcpy(&t, (const char *)items + k * size + off, sizeof t);
        st[t + 1]++;
    }
    for (size_t t = 0; t < ntracks; t++)
        st[t + 1] += st[t];
    return st;
}

static inline int end_less(const struct end_ev *a, const struct end_ev *b)
{
    if (a->track != b->track)
        return a->track < b->track;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns;
    return a->seq < b->seq;
}

static int end_cmp(const void *pa, const void *pb)
{
    return end_less(pa, pb) ? -1 : end_less(pb, pa);
}

STINT_DEFINE_NEAR_SORT(end_near_sort, struct end_ev, end_less)

/* Puts m's pending E events in (track, ts, seq) order, stably; returns
 * where each track's start (track t's are [st[t], st[t + 1]) of
 * m->ends). A trace interleaves its threads' batches, so the events are
 * first grouped by track (a counting sort into a second array, which then
 * replaces the first), each track's mostly arriving in time order, then
 * each track put in order (nearsort.h); a general sort of the whole array
 * merged its many runs in as many passes as log2 of their number. */
static size_t *sort_ends(struct stint_model *m, size_t ntracks)
{
    struct end_ev *ends = m->ends.data;
    size_t n = m->ends.len;
    int grouped = 1;
    size_t *st = stint_i_track_starts(ends, n, sizeof *ends, offsetof(struct end_ev, track), ntracks);
    for (size_t i = 1; i < n && grouped; i++)
        grouped = ends[i - 1].track <= ends[i].track;
    struct end_ev *by = grouped ? NULL : stint_hmem_alloc(n * sizeof *by);
    size_t *pos = by ? malloc((ntracks + 1) * sizeof *pos) : NULL;
    if (!grouped && (!by || !pos)) { /* (out of memory for the copy: in place) */
        stint_hmem_free(by, n * sizeof *by);
        free(pos);
        if (!end_near_sort(ends, n))
            stint_xqsort(ends, n, sizeof *ends, end_cmp);
        return st;
    }
    if (by) {
        memcpy(pos, st, (ntracks + 1) * sizeof *pos);
        for (size_t i = 0; i < n; i++)
            by[pos[ends[i].track]++] = ends[i];
        free(pos);
        stint_bigarray_free(&m->ends);
        m->ends.data = ends = by;
        m->ends.len = m->ends.cap = n;
    }
    for (size_t t = 0; t < ntracks; t++)
        if (st[t + 1] - st[t] > 1 && !end_near_sort(ends + st[t], st[t + 1] - st[t]))
            stint_xqsort(ends + st[t], st[t + 1] - st[t], sizeof *ends, end_cmp);
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t *stint_i_input_positions(const struct stint_model *m)
{
    size_t n = m->slices.len;
    const struct stint_slice *sl = m->slices.data;
    uint32_t *pos = stint_xreallocarray(NULL, n ? n : 1, sizeof *pos);
    /* slices were appended in seq order, so a slice's input index is the rank
     * of its seq among the slices (E events use seq numbers too). Seqs are
     * distinct; when they span little more than the slices (a marker or JSONL
     * model: one seq per slice), the ranks come from a table by seq, one pass
     * each way, instead of a sort of n keys (10% of `summary` on a marker
     * log) */
    uint32_t hi = 0;
    for (size_t i = 0; i < n; i++)
        hi = sl[i].seq > hi ? sl[i].seq : hi;
    if (n && (size_t)hi < 2 * n) {
        uint32_t *by = stint_xreallocarray(NULL, (size_t)hi + 1, sizeof *by);
        memset(by, 0xff, ((size_t)hi + 1) * sizeof *by);
        for (size_t i = 0; i < n; i++)
            by[sl[i].seq] = (uint32_t)i;
        size_t r = 0;
        for (size_t q = 0; q <= hi; q++)
            if (by[q] != UINT32_MAX)
                pos[r++] = by[q];
        free(by);
        if (r == n)
            return pos;
        /* (two slices of one seq: the sort below keeps both) */
    }
    uint64_t *key = stint_xreallocarray(NULL, n ? n : 1, sizeof *key);
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)sl[i].seq << 32) | (uint32_t)i;
    stint_xqsort(key, n, sizeof *key, cmp_u64);
    for (size_t r = 0; r < n; r++)
        pos[r] = (uint32_t)key[r];
    free(key);
    return pos;
}

/* Explicit parents name input indexes (== seq); map them to sorted indexes and
 * derive depth along the parent chain: every slice's, as a slice nested by
 * time may sit under one whose parent is explicit (marker logs: a record
 * whose depth names no parent nests by time). Each chain is walked up to the
 * first slice whose depth is known, then assigned down (chain: scratch). */
static void resolve_explicit_parents(struct stint_model *m)
{
    SELF_SCOPE("explicit parents");
    size_t n = m->slices.len;
    struct stint_slice *sl = m->slices.data;
    uint32_t *pos = stint_i_input_positions(m);
    for (size_t i = 0; i < n; i++)
        if ((sl[i].flags & STINT_SLICE_EXPLICIT_PARENT) && sl[i].parent != STINT_NO_ID)
            sl[i].parent = sl[i].parent < n ? pos[sl[i].parent] : STINT_NO_ID;
    uint8_t *known = stint_xcalloc(n ? n : 1, 1);
    uint32_t *chain = pos; /* (reused: the positions are no longer needed) */
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        uint32_t p = (uint32_t)i;
        while (p != STINT_NO_ID && !known[p] && k < n) {
            chain[k++] = p;
            known[p] = 2; /* on the chain: a cycle stops here */
            p = sl[p].parent;
        }
        if (p != STINT_NO_ID && known[p] == 2) {
            /* a cycle: a slice nested by time under its own explicit descendant (a
             * marker record that links to nothing, whose start and length put it
             * inside a record that links to it). The link made by time goes (the
             * written ones stay), and the walk starts again */
            size_t j = 0, x = k - 1;
            while (chain[j] != p)
                j++;
            for (size_t q = j; q < k; q++)
                if (!(sl[chain[q]].flags & STINT_SLICE_EXPLICIT_PARENT)) {
                    x = q;
                    break;
                }
            sl[chain[x]].parent = STINT_NO_ID;
            for (size_t q = 0; q < k; q++)
                known[chain[q]] = 0;
            i--; /* (unsigned: i++ brings it back) */
            continue;
        }
        uint32_t d = p != STINT_NO_ID && known[p] == 1 ? sl[p].depth + 1 : 0;
        while (k) {
            uint32_t c = chain[--k];
            sl[c].depth = d++;
            known[c] = 1;
        }
    }
    free(known);
    free(pos);
}

/* ---- the finish ---------------------------------------------------------------------------- */

/* The finish's threads besides the caller's: the lean flow events' prep,
 * the second walker and the binding (each only when it pays). */
struct finish_threads {
    struct flow_prep fp;
    pthread_t fpt, second, bt;
    int fp_thread, two, bind_thread;
    struct bind_job bj;
};

/* Lean mode: v1 flow events grouped per track, bound by the track walks;
 * put in order on a second thread while this one sorts the E events and
 * groups the slices (and their order for the binding found while the
 * tracks are walked), when the walk may take two threads and there is
 * enough to sort (flow and E events, a quarter of the spans that split the
 * walk); else here, now. */
static void flow_prep_start(struct finish_threads *ft, size_t nends)
{
    struct flow_prep *fp = &ft->fp;
    const struct stint_span_split *sp = fp->m->span_split;
    if (fp->n && sp && fp->n + nends >= sp->min_spans / 4) {
        fp->threaded = pthread_mutex_init(&fp->mu, NULL) == 0;
        if (fp->threaded && pthread_cond_init(&fp->cv, NULL) != 0) {
            pthread_mutex_destroy(&fp->mu);
            fp->threaded = 0;
        }
        ft->fp_thread = fp->threaded && pthread_create(&ft->fpt, NULL, stint_i_flow_prep_thread, fp) == 0;
        if (fp->threaded && !ft->fp_thread) {
            pthread_cond_destroy(&fp->cv);
            pthread_mutex_destroy(&fp->mu);
            fp->threaded = 0;
        }
    }
    if (fp->n && !ft->fp_thread)
        stint_i_flow_prep(fp);
}

/* From this many slices on, group_slices moves them in rounds
 * (STINT_GROUP_ROUNDS_MIN overrides it: tests compare the two ways). */
#define GROUP_ROUNDS_MIN ((size_t)1 << 16)

/* Groups src's n slices by track, in place and stably (track t's slices go
 * to [start[t], start[t + 1]), ntracks tracks), in rounds through a buffer
 * of a sixteenth of the slices (32 MiB at most): each round gathers the
 * slices of the next buffer's worth of final places (a pass in input order,
 * the writes in as many runs as tracks meet there), packs the others toward
 * the end, in order (a pass from the back: a slice never moves down past
 * one not yet read), and copies the buffer into place. A slice's final
 * place is its track's next one, counted per track in either pass (the
 * slices not yet placed keep their order), so no per-slice array is made.
 * Every access runs in order: following the cycles through the slices
 * (below) waits for one far slice at a time, 17% of `summary` on a 1 GB
 * marker log. Returns 0 when the buffer cannot be had (nothing moved). */
static int group_in_rounds(struct stint_slice *src, const size_t *start, size_t ntracks, size_t n)
{
    size_t b = (n + 15) / 16, most = ((size_t)32 << 20) / sizeof *src;
    b = b < most ? b : most;
    struct stint_slice *buf = stint_hmem_alloc(b * sizeof *buf);
    if (!buf)
        return 0;
    size_t *next = stint_xreallocarray(NULL, ntracks, sizeof *next);
    for (size_t lo = 0; lo < n;) {
        size_t hi = n - lo < b ? n : lo + b;
        for (size_t t = 0; t < ntracks; t++) /* (places below lo are taken) */
            next[t] = lo < start[t] ? start[t] : lo > start[t + 1] ? start[t + 1] : lo;
        for (size_t i = lo; i < n; i++) {
            size_t d = next[src[i].track]++;
            if (d < hi)
                buf[d - lo] = src[i];
        }
        for (size_t t = 0; t < ntracks; t++)
            next[t] = start[t + 1];
        size_t w = n;
        for (size_t i = n; i-- > lo;)
            if (--next[src[i].track] >= hi && --w != i)
                src[w] = src[i];
        memcpy(src + lo, buf, (hi - lo) * sizeof *src);
        lo = hi;
    }
    free(next);
    stint_hmem_free(buf, b * sizeof *buf);
    return 1;
}

/* Groups the slices by track: a stable counting sort, applied in place in
 * rounds (group_in_rounds) or, for fewer slices, by following the
 * permutation's cycles (4 bytes per slice, not a second 48-byte copy).
 * Returns where each track's slices start (ntracks + 1 offsets, malloc'd). */
static size_t *group_slices(struct stint_model *m, size_t ntracks)
{
    size_t n = m->slices.len;
    struct stint_slice *src = m->slices.data;
    size_t *start = stint_xcalloc(ntracks + 1, sizeof *start);
    int grouped = 1;
    for (size_t i = 0; i < n; i++) {
        start[src[i].track + 1]++;
        if (i && src[i].track < src[i - 1].track)
            grouped = 0;
    }
    for (size_t t = 0; t < ntracks; t++)
        start[t + 1] += start[t];
    if (grouped)
        return start;
    const char *e = getenv("STINT_GROUP_ROUNDS_MIN"); /* (tests: either way on any input) */
    size_t least = e && *e ? (size_t)strtoull(e, NULL, 10) : GROUP_ROUNDS_MIN;
    if (n >= least && group_in_rounds(src, start, ntracks, n))
        return start;
    struct stint_bigarray destv;
    stint_bigarray_init(&destv, sizeof(uint32_t));
    if (stint_bigarray_reserve(&destv, n) != 0)
        stint_die_nomem();
    size_t *pos = stint_xreallocarray(NULL, ntracks + 1, sizeof *pos);
    uint32_t *dest = destv.data;
    memcpy(pos, start, (ntracks + 1) * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        dest[i] = (uint32_t)pos[src[i].track]++;
    free(pos);
    for (size_t i = 0; i < n; i++) {
        while (dest[i] != i) {
            uint32_t d = dest[i];
            struct stint_slice tmp = src[d];
            src[d] = src[i];
            src[i] = tmp;
            dest[i] = dest[d];
            dest[d] = d;
        }
    }
    stint_bigarray_free(&destv);
    return start;
}

/* After the second walker: its repairs and findings joined to the first's,
 * the flows bound on a thread of their own (model only) while the split
 * sink joins its halves (sink only). */
static void join_second(struct finish_threads *ft, struct finish_walker *W, struct finish_walker *W2, void *forked)
{
    struct stint_model *m = W->sh->m;
    pthread_join(ft->second, NULL);
    stint_i_repair_logs_join(m, &W->log, &W2->log);
    W->any_explicit |= W2->any_explicit;
    stint_i_walker_free(&W2->w);
    if (ft->fp_thread) {
        pthread_join(ft->fpt, NULL);
        ft->fp_thread = 0;
    }
    ft->bj.ord = ft->fp.ord;
    ft->bj.as_is = ft->fp.as_is;
    ft->bj.last = ft->fp.last;
    ft->bind_thread = pthread_create(&ft->bt, NULL, stint_i_bind_flows_thread, &ft->bj) == 0;
    if (ft->bind_thread)
        ft->fp.last = NULL; /* the bind thread's now */
    SELF_SCOPE("join tallies");
    m->span_split->join(m->span_sink_ctx, forked, m);
}

/* Walks every track: on two threads when the sink splits and the tracks
 * are worth it (stint_i_walk_split_order), else on this one in track
 * order. Returns whether some slice has an explicit parent. */
static int walk_all(struct finish_share *sh, struct finish_threads *ft, size_t nends)
{
    struct stint_model *m = sh->m;
    struct finish_walker W = {.sh = sh, .w = {.fn = m->span_sink, .ctx = m->span_sink_ctx}}, W2 = W;
    uint32_t *order = sh->lean ? stint_i_walk_split_order(m, sh->start, sh->ends, nends) : NULL;
    void *forked = order ? m->span_split->fork(m->span_sink_ctx, m) : NULL;
    if (forked) {
        sh->order = order;
        W.logged = W2.logged = 1;
        W2.w.ctx = forked;
        ft->two = pthread_create(&ft->second, NULL, stint_i_walk_tracks_thread, &W2) == 0;
        if (ft->two && getenv("STINT_DEBUG_SPLIT")) /* for tests: the walk was split */
            fprintf(stderr, "stint: finish walk: %zu tracks on two threads\n", sh->n);
        if (!ft->two) /* one walker after all, in track order */
            m->span_split->join(m->span_sink_ctx, forked, m);
    }
    if (!ft->two) {
        sh->order = NULL;
        W.logged = 0;
    }
    stint_i_walk_tracks(&W);
    if (ft->two)
        join_second(ft, &W, &W2, forked);
    free(order);
    stint_i_walker_free(&W.w);
    return W.any_explicit;
}

/* A model without slices (nor lean records): its E events close nothing. */
static void finish_empty(struct stint_model *m, size_t *estart)
{
    free(estart);
    for (size_t k = 0; k < m->ends.len; k++)
        stint_i_end_unmatched(m, &STINT_BA_AT(&m->ends, struct end_ev, k));
    stint_bigarray_free(&m->ends);
    stint_i_bind_flows(m, NULL, NULL, 0, NULL);
    if (m->span_sink)
        stint_i_stream_finished(m);
}

void stint_model_finish(struct stint_model *m)
{
    if (m->finished)
        return;
    m->finished = 1;
    stint_i_losses_finish(m);
    stint_i_lean_finish_begin(m);
    size_t ntracks = m->tracks.len, nends = m->ends.len;
    int lean = stint_i_lean_active(m);
    /* lean records beside slices with explicit parents (a marker log's
     * groups whose depth tree is not their nesting in time): the slices are
     * walked and resolved as without lean mode, then streamed with the
     * records merged in (stint_i_stream_mixed) */
    int mixed = 0;
    for (size_t i = 0; lean && !mixed && i < m->slices.len; i++)
        mixed = (STINT_BA_AT(&m->slices, struct stint_slice, i).flags & STINT_SLICE_EXPLICIT_PARENT) != 0;
    if (mixed)
        lean = 0;
    struct finish_threads ft = {.fp = {.m = m, .n = lean ? m->flow_evs.len : 0, .ntracks = ntracks}, .bj = {.m = m}};
    flow_prep_start(&ft, nends);
    SELF_BEGIN(grp, "E events sorted, slices grouped");
    size_t *estart = sort_ends(m, ntracks);
    if (m->slices.len == 0 && !lean) {
        finish_empty(m, estart);
        SELF_END(grp);
        return;
    }
    size_t *start = group_slices(m, ntracks);
    SELF_END(grp);
    struct flow_prep *fp = &ft.fp;
    if (ft.fp_thread) { /* each track's flow events in order: the walks may start */
        SELF_SCOPE("wait: flow events");
        pthread_mutex_lock(&fp->mu);
        while (!fp->ready)
            pthread_cond_wait(&fp->cv, &fp->mu);
        pthread_mutex_unlock(&fp->mu);
    }
    /* (lidx: flow events by track, each track's in (ts, seq) order) */
    struct finish_share sh = {.m = m, .ends = m->ends.data, .estart = estart, .start = start, .lean = lean,
                              .lfe = fp->n ? m->flow_evs.data : NULL, .lidx = fp->lidx, .lstart = fp->lstart,
                              .n = ntracks};
    int any_explicit = walk_all(&sh, &ft, nends);
    free(estart);
    if (ft.fp_thread) /* (it reads lidx) */
        pthread_join(ft.fpt, NULL);
    stint_hmem_free(fp->lidx, (fp->n ? fp->n : 1) * sizeof *fp->lidx);
    free(fp->lstart);
    if (ft.bind_thread)
        pthread_join(ft.bt, NULL);
    else
        stint_i_bind_flows(m, lean ? NULL : start, fp->ord, fp->as_is, fp->last);
    if (fp->threaded) {
        pthread_cond_destroy(&fp->cv);
        pthread_mutex_destroy(&fp->mu);
    }
    stint_hmem_free(fp->ord, fp->n * sizeof *fp->ord);
    free(start);
    stint_bigarray_free(&m->ends);
    if (any_explicit)
        resolve_explicit_parents(m);
    if (m->span_sink && mixed)
        stint_i_stream_mixed(m);
    else if (m->span_sink && !lean)
        stint_i_stream_finished(m);
}
