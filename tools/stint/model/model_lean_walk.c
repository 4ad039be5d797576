/* SPDX-License-Identifier: MIT */
/*
 * model_lean_walk.c - lean mode's finish (model.h): the walk of a thread
 * track that merges its ordinary slices with the lane's lean records in
 * slice order, nests them, streams each to the span sink and frees the
 * records as it goes, so the records' memory goes down while the
 * consumer's grows; and the streaming of a finished model that is not
 * lean.
 *
 * The nesting walk applies the rule of stint_model_finish() (model.h) with
 * every duration already known (B/E pairs were matched before): a slice
 * nests under the innermost open one that has not ended before it, and one
 * that ends after its parent is counted as STINT_REPAIR_OVERLAP with the
 * message finish() uses. Flow events (v1) on the track are bound against the
 * same stack, as finish() binds them against parent chains. A walk touches
 * only its track, its lane's records and its walker: two may run at once.
 */
#include "model/model_lean_int.h"
#include "base/cmp.h"
#include "base/selftrace.h"

#include <stdlib.h>
#include <string.h>

/* ---- the nesting walk ----------------------------------------------------------- */

/* One slice of the merged stream. */
struct item {
    int64_t ts_ns, dur_ns;
    uint32_t cat, name;
    uint32_t pair1; /* a lean record's pair + 1; 0 for a slice */
    uint32_t seq;   /* a slice's input seq (0 for a lean record) */
    uint16_t flags;
};

/* Perfetto's order between a lean record (class 0, known duration) and an
 * ordinary slice: start; then known-duration slices before B-made slices and
 * instants; then longer first (-1 as infinite); an exact tie goes by input
 * order, which the caller knows (rec_came_first). */
static int lean_first(const struct lean_rec *r, const struct stint_slice *s, int rec_came_first)
{
    if (r->ts_ns != s->ts_ns)
        return r->ts_ns < s->ts_ns;
    if (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT))
        return 1;
    uint64_t ds = s->dur_ns < 0 ? UINT64_MAX : (uint64_t)s->dur_ns;
    if ((uint64_t)rec_dur(r) != ds)
        return (uint64_t)rec_dur(r) > ds;
    return rec_came_first;
}

/* A slice tie_counts counts records for: its start and duration, how many
 * records its lane held when it came, its index from a. */
struct want {
    int64_t ts, dur;
    uint64_t before;
    size_t at;
};

static int want_cmp(const void *pa, const void *pb)
{
    const struct want *x = pa, *y = pb;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->dur < y->dur ? -1 : x->dur > y->dur;
}

/* For an exact tie (same start and duration) between the lane's records and
 * its ordinary slices sl[a..b): for each slice, how many records with its
 * start and duration came before it in the input (an array indexed from a;
 * NULL when no slice of the track was noted with records before it). Counted
 * over the records in input order, so before the lane is sorted. */
static uint32_t *tie_counts(const struct stint_lean *L, const struct lean_lane *ll, const struct stint_slice *sl,
                            size_t a, size_t b)
{
    struct want *w = NULL;
    size_t nw = 0, wcap = 0;
    for (size_t i = a; i < b && L->nnotes; i++) {
        if (sl[i].flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT) || sl[i].dur_ns < 0)
            continue;
        size_t lo = 0, hi = L->nnotes; /* the note of this slice, by seq */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (L->notes[mid].seq < sl[i].seq)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == L->nnotes || L->notes[lo].seq != sl[i].seq || !L->notes[lo].before)
            continue;
        w = stint_i_lean_grow(w, &wcap, nw + 1, sizeof *w);
        w[nw++] = (struct want){sl[i].ts_ns, sl[i].dur_ns, L->notes[lo].before, i - a};
    }
    if (!nw)
        return NULL;
    /* by (ts, dur): a record finds its slices by binary search */
    stint_xqsort(w, nw, sizeof *w, want_cmp);
    uint32_t *c = stint_xcalloc(b - a, sizeof *c);
    uint64_t idx = 0;
    struct lean_rec r;
    for (struct rec_iter it = rec_iter_at(ll); rec_next(&it, &r); idx++) {
        int64_t ts = r.ts_ns, dur = rec_dur(&r);
        size_t lo = 0, hi = nw;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (w[mid].ts < ts || (w[mid].ts == ts && w[mid].dur < dur))
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < nw && w[lo].ts == ts && w[lo].dur == dur; lo++)
            if (idx < w[lo].before)
                c[w[lo].at]++;
    }
    free(w);
    return c;
}

/* Binds a v1 flow event against the stack (the last slice that starts at or
 * before it and its ancestors) as finish()'s slice_enclosing / slice_next do. */
static void bind_v1(struct flow_ev *f, const struct lean_frame *st, size_t sn, int have_next, int64_t last_ts,
                    int any_pushed)
{
    if (f->phase == STINT_FLOW_V2)
        return;
    f->bound = STINT_NO_ID;
    if (f->phase == STINT_FLOW_V1_END && !f->enclosing) {
        if (have_next || (any_pushed && last_ts >= f->ts_ns))
            f->bound = STINT_LEAN_SLICE;
        return;
    }
    for (size_t k = sn; k-- > 0;) {
        const struct lean_frame *x = &st[k];
        if (x->dur_ns < 0 || f->ts_ns < x->ts_ns + x->dur_ns || (x->dur_ns == 0 && f->ts_ns == x->ts_ns)) {
            f->bound = STINT_LEAN_SLICE;
            return;
        }
    }
}

void stint_i_walker_free(struct stint_i_walker *w)
{
    free(w->frames);
    free(w->ovl);
    w->frames = NULL;
    w->ovl = NULL;
    w->fcap = w->ocap = w->novl = 0;
}

/* The lean record of start ts and dp as a walk item. */
static inline struct item rec_item(const struct stint_lean *L, int64_t ts, uint64_t dp)
{
    uint32_t pair = (uint32_t)(dp & PAIR_MASK);
    return (struct item){.ts_ns = ts,
                         .dur_ns = (int64_t)(dp >> PAIR_BITS),
                         .cat = L->pcat[pair],
                         .name = L->pname[pair],
                         .pair1 = pair + 1,
                         .flags = L->rec_flags ? L->rec_flags : STINT_SLICE_COMPLETE};
}

/* One step of the track walk for the next slice or record x, with sn
 * frames open: closes the frames that ended before it, counts it if it ends
 * after its parent, streams it and opens its frame. Returns the frames open
 * now. */
static inline __attribute__((always_inline)) size_t walk_item(struct stint_model *m, struct stint_i_walker *w,
                                                              uint32_t t, uint32_t lane, const struct item *x,
                                                              size_t sn, struct devcat *dc)
{
    /* slices with a known end that has passed are closed (a zero-length one
     * at x's ts only when x is not zero-length too: model.h) */
    while (sn) {
        const struct lean_frame *top = &w->frames[sn - 1];
        if (top->dur_ns < 0)
            break;
        int64_t end = top->ts_ns + top->dur_ns;
        if (end < x->ts_ns || (end == x->ts_ns && (top->dur_ns > 0 || x->dur_ns != 0)))
            sn--;
        else
            break;
    }
    /* device work is a queue (model.h): the device work on top is closed
     * first, and one not yet ended is counted, never made x's parent */
    uint8_t dev = x->dur_ns >= 0 && !(x->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)) &&
                  devcat_is(m, dc, x->cat);
    for (; dev && sn; sn--) { /* (what that uncovers is closed when it has ended, as above) */
        const struct lean_frame *top = &w->frames[sn - 1];
        int64_t end = top->ts_ns + top->dur_ns;
        int ended = top->dur_ns >= 0 && (end < x->ts_ns || (end == x->ts_ns && (top->dur_ns > 0 || x->dur_ns != 0)));
        if (!ended && !top->dev)
            break;
        if (!ended && end > x->ts_ns)
            stint_i_stream_overlap(m, x->name, x->ts_ns, x->ts_ns + x->dur_ns, top->name, top->ts_ns, end);
    }
    if (sn) {
        const struct lean_frame *top = &w->frames[sn - 1];
        if (top->dur_ns >= 0 && x->dur_ns >= 0 && x->ts_ns + x->dur_ns > top->ts_ns + top->dur_ns) {
            if (!((top->flags | x->flags) & STINT_SLICE_FROM_B))
                stint_model_repair(m, STINT_REPAIR_OVERLAP,
                                   "'%s' [%lld, %lld) ns starts inside '%s' [%lld, %lld) ns but ends after it",
                                   stint_model_str(m, x->name, NULL), (long long)x->ts_ns,
                                   (long long)(x->ts_ns + x->dur_ns), stint_model_str(m, top->name, NULL),
                                   (long long)top->ts_ns, (long long)(top->ts_ns + top->dur_ns));
            else { /* finish() finds these once the E is matched, after the track */
                w->ovl = stint_i_lean_grow(w->ovl, &w->ocap, w->novl + 1, sizeof *w->ovl);
                w->ovl[w->novl++] = (struct lean_overlap){x->ts_ns, x->ts_ns + x->dur_ns, x->name, top->name};
            }
        }
    }
    if (w->fn) {
        struct stint_span_ev ev = {.ts_ns = x->ts_ns,
                                   .dur_ns = x->dur_ns,
                                   .track = t,
                                   .lane = lane,
                                   .cat = x->cat,
                                   .name = x->name,
                                   .level = (uint32_t)sn,
                                   .flags = x->flags,
                                   .parent_on_top = sn > 0,
                                   .pair1 = x->pair1,
                                   .seq = x->seq};
        w->fn(w->ctx, m, &ev);
    }
    if (sn == w->fcap)
        w->frames = stint_i_lean_grow(w->frames, &w->fcap, sn + 1, sizeof *w->frames);
    w->frames[sn++] = (struct lean_frame){x->ts_ns, x->dur_ns, x->name, x->flags, dev};
    return sn;
}

/* Flow events fetched ahead of the walk */
#define FLOW_AHEAD 4

void stint_i_lean_track(struct stint_model *m, struct stint_i_walker *w, uint32_t t, size_t a, size_t b,
                        struct flow_ev *fe, const uint32_t *idx, size_t nfe)
{
    struct stint_lean *L = m->lean; /* (lean finish runs only when records were kept) */
    const struct stint_track *tr = stint_model_track_at(m, t);
    uint32_t lane = tr->lane;
    struct lean_lane *ll = lane < L->nlanes ? &L->lanes[lane] : NULL;
    SELF_BEGIN(ord, "records in order");
    uint32_t *tie = ll ? tie_counts(L, ll, m->slices.data, a, b) : NULL;
    if (ll)
        stint_i_lean_order(ll);
    SELF_END(ord);
    /* records of the last start and duration taken, for the ties */
    int64_t tie_ts = 0, tie_dur = -1;
    uint32_t tie_taken = 0;
    const struct stint_slice *sl = m->slices.data;
    size_t g = 0, k = 0, i = a, fi = 0, sn = 0, si = 0, nst = ll ? ll->nstrays : 0;
    const struct lean_rec *strays = ll ? ll->strays : NULL;
    int64_t last_ts = 0;
    int any = 0;
    struct devcat dc = {0};
    w->novl = 0;
    for (size_t q = 0; q < nfe && q < FLOW_AHEAD; q++)
        __builtin_prefetch(&fe[idx[q]]);
    int64_t base = ll && ll->nsegs ? ll->segs[0].base : 0; /* the current base in segment g */
    for (;;) {
        /* past walked segments and markers: slot k of segment g is the next record, if any */
        while (ll && g < ll->nsegs) {
            const struct lean_seg *sg = &ll->segs[g];
            if (k >= sg->len) {
                seg_free(&ll->segs[g++]); /* walked: its memory serves the sink's tallies */
                k = 0;
                if (g < ll->nsegs)
                    base = ll->segs[g].base;
            } else if (sg->r[k].toff == BASE_MARK)
                base = (int64_t)sg->r[k++].dp;
            else
                break;
        }
        if (ll && g < ll->nsegs && !tie) {
            /* the common case, records only: those that start before the next
             * slice and stray record, and no later than the next flow event,
             * go first with nothing to merge or bind */
            int64_t lim = i < b ? sl[i].ts_ns : INT64_MAX, flim = fi < nfe ? fe[idx[fi]].ts_ns : INT64_MAX;
            if (si < nst && strays[si].ts_ns < lim)
                lim = strays[si].ts_ns;
            const struct lean_pk *rs = ll->segs[g].r;
            size_t k0 = k, len = ll->segs[g].len;
            for (; k < len; k++) {
                int32_t off = rs[k].toff;
                int64_t ts = base + off;
                if (off == BASE_MARK || ts >= lim || ts > flim)
                    break;
                struct item x = rec_item(L, ts, rs[k].dp);
                sn = walk_item(m, w, t, lane, &x, sn, &dc);
            }
            if (k > k0) {
                last_ts = base + rs[k - 1].toff;
                any = 1;
                continue;
            }
        }
        struct lean_rec cur;
        const struct lean_rec *r = NULL;
        if (ll && g < ll->nsegs) {
            cur = (struct lean_rec){base + ll->segs[g].r[k].toff, ll->segs[g].r[k].dp};
            r = &cur;
        }
        int stray = si < nst && (!r || rec_before(&strays[si], r)); /* (a kept record first on equal keys) */
        if (stray)
            r = &strays[si];
        const struct stint_slice *s = i < b ? &sl[i] : NULL;
        struct item x = {0};
        int have = r || s;
        int rec_first = 0;
        if (r && s && tie) {
            uint32_t taken = r->ts_ns == tie_ts && rec_dur(r) == tie_dur ? tie_taken : 0;
            rec_first = tie[i - a] > taken;
        }
        if (r && (!s || lean_first(r, s, rec_first))) {
            if (tie) { /* (only tracks whose slices may tie keep count) */
                if (r->ts_ns == tie_ts && rec_dur(r) == tie_dur)
                    tie_taken++;
                else {
                    tie_ts = r->ts_ns;
                    tie_dur = rec_dur(r);
                    tie_taken = 1;
                }
            }
            x = rec_item(L, r->ts_ns, r->dp);
            if (stray)
                si++;
            else
                k++;
        } else if (s) {
            x.ts_ns = s->ts_ns;
            x.dur_ns = s->dur_ns;
            x.cat = s->cat;
            x.name = s->name;
            x.flags = s->flags;
            x.seq = s->seq;
            i++;
        }
        /* flow events before this slice's start see the stack as it is now */
        while (fi < nfe && (!have || fe[idx[fi]].ts_ns < x.ts_ns)) {
            bind_v1(&fe[idx[fi]], w->frames, sn, have, last_ts, any);
            fi++;
            if (fi + FLOW_AHEAD < nfe) /* the track's flow events lie apart in fe: fetched early */
                __builtin_prefetch(&fe[idx[fi + FLOW_AHEAD]]);
        }
        if (!have)
            break;
        sn = walk_item(m, w, t, lane, &x, sn, &dc);
        last_ts = x.ts_ns;
        any = 1;
    }
    for (size_t q = 0; q < w->novl; q++)
        stint_model_repair(m, STINT_REPAIR_OVERLAP, "'%s' [%lld, %lld) ns starts inside '%s' but ends after it",
                           stint_model_str(m, w->ovl[q].name, NULL), (long long)w->ovl[q].ts_ns,
                           (long long)w->ovl[q].end_ns, stint_model_str(m, w->ovl[q].parent_name, NULL));
    if (ll) {
        for (size_t q = 0; q < ll->nsegs; q++)
            seg_free(&ll->segs[q]);
        ll->nsegs = 0;
        stint_hmem_free(ll->sorted, ll->sorted_bytes);
        ll->sorted = NULL;
        ll->sorted_bytes = 0;
        stint_hmem_free(ll->strays, ll->nstrays * sizeof *ll->strays);
        ll->strays = NULL;
        ll->nstrays = 0;
    }
    free(tie);
}

/* ---- streaming a finished (not lean) model --------------------------------------- */

/* Whether slice a is on s's parent chain. */
static int is_ancestor(const struct stint_model *m, uint32_t a, const struct stint_slice *s)
{
    uint32_t depth_a = stint_model_slice(m, a)->depth;
    for (uint32_t p = s->parent; p != STINT_NO_ID;) {
        const struct stint_slice *ps = stint_model_slice(m, p);
        if (p == a)
            return 1;
        if (ps->depth <= depth_a)
            return 0;
        p = ps->parent;
    }
    return 0;
}

/* explicit_walk's scratch, one per slice of the track: (ts_ns, seq, i) are
 * the slices sorted in begin order (start, input order), first/next the
 * children lists, todo the walk's stack, order the walk. */
struct walk_slot {
    int64_t ts_ns;
    uint32_t seq, i;
    uint32_t first, next, todo, order;
};

static int begin_cmp(const void *pa, const void *pb)
{
    const struct walk_slot *x = pa, *y = pb;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Puts w[0..k) in begin order (start, then seq; the keys are distinct).
 * They come in model order, starts ascending, so only the runs of one start
 * need their seqs sorted (insertion sort: runs are short; a sort of the
 * whole track was 9.5% of `summary` on a marker log); keys not in start
 * order (not the model's order) take the general sort. */
static void begin_sort(struct walk_slot *w, size_t k)
{
    for (size_t i = 1; i < k; i++)
        if (w[i].ts_ns < w[i - 1].ts_ns) {
            stint_xqsort(w, k, sizeof *w, begin_cmp);
            return;
        }
    for (size_t a = 0, b; a < k; a = b) {
        for (b = a + 1; b < k && w[b].ts_ns == w[a].ts_ns; b++)
            ;
        if (b - a > 32) {
            stint_xqsort(w + a, b - a, sizeof *w, begin_cmp);
            continue;
        }
        for (size_t i = a + 1; i < b; i++) {
            struct walk_slot x = w[i];
            size_t j = i;
            for (; j > a && w[j - 1].seq > x.seq; j--)
                w[j] = w[j - 1];
            w[j] = x;
        }
    }
}

/* The order to stream the track slices [a, b) in: their model order, but
 * for a track whose parents are explicit (JSONL), a walk of its parent tree
 * with siblings in begin order, when that keeps the starts in order. Model
 * order (start, longest first) is a walk of the tree only when the tree is
 * the nesting in time: a zero-length span at the start of a deeper one's
 * sibling sorts after it ([0,0] under the root after [0,9] under its
 * sibling [0,10]), and the stack below would close that sibling too early
 * and leave its later children without their parent. A tree whose walk
 * would put starts out of order (children outside their parent) keeps model
 * order. Returns 1 when w[0..b-a).order holds the walk, else 0. */
static int explicit_walk(const struct stint_model *m, size_t a, size_t b, struct walk_slot *w)
{
    size_t k = b - a;
    for (size_t i = 0; i < k; i++) {
        const struct stint_slice *s = stint_model_slice(m, a + i);
        w[i].ts_ns = s->ts_ns;
        w[i].seq = s->seq;
        w[i].i = (uint32_t)i;
        w[i].first = w[i].next = STINT_NO_ID;
    }
    /* the keys in begin order; first, next, todo and order are written after
     * the sort and indexed by slice or stack position, not by key */
    begin_sort(w, k);
    /* children lists in begin order: link from the back */
    uint32_t roots = STINT_NO_ID;
    for (size_t r = k; r-- > 0;) {
        size_t i = w[r].i;
        uint32_t p = stint_model_slice(m, a + i)->parent;
        uint32_t *head = p != STINT_NO_ID && p >= a && p < b ? &w[p - a].first : &roots;
        w[i].next = *head;
        *head = (uint32_t)i;
    }
    size_t nt = 0, no = 0;
    for (uint32_t r = roots; r != STINT_NO_ID; r = w[r].next) {
        w[nt++].todo = r;
        while (nt) {
            uint32_t x = w[--nt].todo;
            w[no++].order = x;
            /* children pushed last-first so the first comes off next */
            size_t mark = nt;
            for (uint32_t c = w[x].first; c != STINT_NO_ID; c = w[c].next)
                w[nt++].todo = c;
            for (size_t l = mark, h = nt; l + 1 < h; l++, h--) {
                uint32_t t = w[l].todo;
                w[l].todo = w[h - 1].todo;
                w[h - 1].todo = t;
            }
        }
    }
    if (no != k)
        return 0; /* (cannot happen: every slice has a root above it on its track) */
    for (size_t i = 1; i < k; i++)
        if (stint_model_slice(m, a + w[i].order)->ts_ns < stint_model_slice(m, a + w[i - 1].order)->ts_ns)
            return 0;
    return 1;
}

/* Streams the thread track's slices [a, b) to fn (stint_i_stream_finished
 * says in what order); w, stack: scratch kept across tracks. */
static void stream_track(const struct stint_model *m, size_t a, size_t b, struct walk_slot **w, size_t *wcap,
                         uint32_t **stack, size_t *cap, stint_span_sink fn, void *ctx)
{
    uint32_t tr = stint_model_slice(m, a)->track;
    const struct stint_track *t = stint_model_track_at(m, tr);
    if (t->kind != STINT_TRACK_THREAD)
        return;
    int any = 0;
    for (size_t j = a; j < b; j++)
        any |= stint_model_slice(m, j)->flags & STINT_SLICE_EXPLICIT_PARENT;
    /* (time nesting: model order is already its walk) */
    int walk = any && explicit_walk(m, a, b, *w = stint_i_lean_grow(*w, wcap, b - a, sizeof **w));
    size_t sn = 0;
    for (size_t j = a; j < b; j++) {
        size_t i = walk ? a + (*w)[j - a].order : j;
        const struct stint_slice *s = stint_model_slice(m, i);
        while (sn && !is_ancestor(m, (*stack)[sn - 1], s))
            sn--;
        struct stint_span_ev ev = {.ts_ns = s->ts_ns,
                                   .dur_ns = s->dur_ns,
                                   .track = s->track,
                                   .lane = t->lane,
                                   .cat = s->cat,
                                   .name = s->name,
                                   .level = (uint32_t)sn,
                                   .flags = s->flags,
                                   .parent_on_top = sn && (*stack)[sn - 1] == s->parent,
                                   .slice1 = s->flags & STINT_SLICE_EXPLICIT_PARENT ? (uint32_t)i + 1 : 0,
                                   .seq = s->seq};
        fn(ctx, m, &ev);
        *stack = stint_i_lean_grow(*stack, cap, sn + 1, sizeof **stack);
        (*stack)[sn++] = (uint32_t)i;
    }
}

/* The end of the track of slices from a: where the next track's begin. */
static size_t track_end(const struct stint_model *m, size_t a, size_t n)
{
    uint32_t tr = stint_model_slice(m, a)->track;
    size_t b = a + 1;
    while (b < n && stint_model_slice(m, b)->track == tr)
        b++;
    return b;
}

void stint_i_stream_finished(struct stint_model *m)
{
    SELF_SCOPE("stream slices");
    size_t n = stint_model_nslices(m), cap = 0, wcap = 0;
    uint32_t *stack = NULL;
    struct walk_slot *w = NULL;
    for (size_t a = 0, b; a < n; a = b) {
        b = track_end(m, a, n);
        stream_track(m, a, b, &w, &wcap, &stack, &cap, m->span_sink, m->span_sink_ctx);
    }
    free(stack);
    free(w);
}

/* One track's slice events, held back to be merged with its records. */
struct evbuf {
    struct stint_span_ev *v;
    size_t n, k, cap;
};

static void evbuf_put(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct evbuf *x = ctx;
    (void)m;
    x->v = stint_i_lean_grow(x->v, &x->cap, x->n + 1, sizeof *x->v);
    x->v[x->n++] = *ev;
}

/* A record's event: the held slice events that start before it go first. */
static void evbuf_merge(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct evbuf *x = ctx;
    while (x->k < x->n && x->v[x->k].ts_ns < ev->ts_ns)
        m->span_sink(m->span_sink_ctx, m, &x->v[x->k++]);
    m->span_sink(m->span_sink_ctx, m, ev);
}

void stint_i_stream_mixed(struct stint_model *m)
{
    SELF_SCOPE("stream slices and records");
    size_t n = stint_model_nslices(m), cap = 0, wcap = 0, a = 0;
    uint32_t *stack = NULL;
    struct walk_slot *w = NULL;
    struct evbuf x = {0};
    struct stint_i_walker lw = {.fn = evbuf_merge, .ctx = &x};
    for (uint32_t t = 0; t < m->tracks.len; t++) {
        size_t b = a < n && stint_model_slice(m, a)->track == t ? track_end(m, a, n) : a;
        const struct stint_track *tr = stint_model_track_at(m, t);
        if (tr->kind == STINT_TRACK_THREAD) {
            x.n = x.k = 0;
            if (a < b)
                stream_track(m, a, b, &w, &wcap, &stack, &cap, evbuf_put, &x);
            if (stint_i_lean_count(m, tr->lane))
                stint_i_lean_track(m, &lw, t, b, b, NULL, NULL, 0);
            while (x.k < x.n)
                m->span_sink(m->span_sink_ctx, m, &x.v[x.k++]);
        }
        a = b;
    }
    stint_i_walker_free(&lw);
    free(x.v);
    free(stack);
    free(w);
}
