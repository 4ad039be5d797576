/* SPDX-License-Identifier: MIT */
/*
 * model_walk.c - the finish's walk over the tracks: each track's slices put
 * in Perfetto's order, nested (depth, parent), its E events matched to the
 * B slices they close, and (lean mode) the track handed to the lean walk.
 *
 * Invariants: a track is walked by one walker, which touches only that
 * track's slices, E events and flow events, its own scratch and the repair
 * counts (its own log when two walkers run), so two walkers may take
 * tracks at once; the only shared write is the model's args, when an E
 * with args closes a B with args, which is why such a trace is walked on
 * one thread (stint_i_walk_split_order). Slice order within a track is
 * total (seq breaks every tie), so sorting gives one answer. Every step
 * per slice or per E event is in this file, for the compiler to inline.
 */
#include "model/model_lean_int.h"
#include "base/intervals.h"
#include "base/selftrace.h"

#include <stdlib.h>
#include <string.h>

/* ---- slice order ---------------------------------------------------------------------- */

/* Perfetto's order within a track (model.h): ts; then slices with a known
 * duration, longest first; then B events and instants in input order. */
static int slice_class(const struct stint_slice *s)
{
    return (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)) ? 1 : 0;
}

static int slice_cmp(const void *pa, const void *pb)
{
    const struct stint_slice *a = pa, *b = pb;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    int ca = slice_class(a), cb = slice_class(b);
    if (ca != cb)
        return ca - cb;
    if (ca == 0) {
        uint64_t da = a->dur_ns < 0 ? UINT64_MAX : (uint64_t)a->dur_ns;
        uint64_t db = b->dur_ns < 0 ? UINT64_MAX : (uint64_t)b->dur_ns;
        if (da != db)
            return da > db ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorting one track's slices: a merge sort of 16-byte (ts, index) keys,
 * ties broken by slice_cmp, then one in-place permutation of the 64-byte
 * records along its cycles. Cheaper than qsort on the records (which
 * moves or indirects 64 bytes per step through a comparator call) and it
 * needs 32 bytes of scratch per slice instead of a copy of the records.
 * slice_cmp is a total order (seq breaks every tie), so the result is the
 * one qsort gives. */
struct skey {
    int64_t ts;
    size_t idx;
};

static inline int skey_less(const struct stint_slice *sl, const struct skey *a, const struct skey *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return slice_cmp(&sl[a->idx], &sl[b->idx]) < 0;
}

static void sort_slices(struct stint_slice *sl, size_t n)
{
    struct skey *k = stint_xreallocarray(NULL, n, sizeof *k), *t = stint_xreallocarray(NULL, n, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        k[i].ts = sl[i].ts_ns;
        k[i].idx = i;
    }
    /* insertion sort on runs of 16, then bottom-up merges */
    const size_t run = 16;
    for (size_t a = 0; a < n; a += run) {
        size_t b = a + run < n ? a + run : n;
        for (size_t i = a + 1; i < b; i++) {
            struct skey x = k[i];
            size_t j = i;
            while (j > a && skey_less(sl, &x, &k[j - 1])) {
                k[j] = k[j - 1];
                j--;
            }
            k[j] = x;
        }
    }
    for (size_t w = run; w < n; w *= 2) {
        for (size_t a = 0; a < n; a += 2 * w) {
            size_t mid = a + w < n ? a + w : n, b = a + 2 * w < n ? a + 2 * w : n;
            size_t i = a, j = mid, o = a;
            while (i < mid && j < b)
                t[o++] = skey_less(sl, &k[j], &k[i]) ? k[j++] : k[i++];
            while (i < mid)
                t[o++] = k[i++];
            while (j < b)
                t[o++] = k[j++];
        }
        struct skey *x = k;
        k = t;
        t = x;
    }
    /* new[j] = old[k[j].idx], cycle by cycle; a visited key points at itself */
    for (size_t i = 0; i < n; i++) {
        if (k[i].idx == i)
            continue;
        struct stint_slice saved = sl[i];
        size_t j = i;
        for (;;) {
            size_t src = k[j].idx;
            k[j].idx = j;
            if (src == i) {
                sl[j] = saved;
                break;
            }
            sl[j] = sl[src];
            j = src;
        }
    }
    free(k);
    free(t);
}

/* ---- E events and nesting -------------------------------------------------------------- */

/* Merges the args of end event ev into slice c, which it closes (model.h:
 * the end's value wins on a key both have). Without begin args the slice
 * takes the end's run as it is; otherwise a fresh run is written at the end
 * of m->args (the old one stays unused: only pairs whose E has args pay). */
static void merge_end_args(struct stint_model *m, struct stint_slice *c, const struct end_ev *ev)
{
    if (ev->args == STINT_NO_ID)
        return;
    const struct stint_arg *h = &STINT_BA_AT(&m->args, struct stint_arg, ev->args);
    size_t ne = (size_t)h->ival;
    if (c->args == STINT_NO_ID || c->nargs == 0) {
        c->args = ev->args + 1;
        c->nargs = (uint16_t)ne;
        return;
    }
    size_t nb = c->nargs, at = m->args.len;
    if (stint_bigarray_reserve(&m->args, nb + ne) != 0)
        stint_die_nomem();
    for (size_t i = 0; i < nb; i++)
        *(struct stint_arg *)stint_i_xpush(&m->args) = STINT_BA_AT(&m->args, struct stint_arg, c->args + i);
    for (size_t k = 0; k < ne; k++) {
        const struct stint_arg *ea = &STINT_BA_AT(&m->args, struct stint_arg, ev->args + 1 + k);
        size_t i = at;
        while (i < m->args.len && STINT_BA_AT(&m->args, struct stint_arg, i).key != ea->key)
            i++;
        if (i < m->args.len)
            STINT_BA_AT(&m->args, struct stint_arg, i) = *ea;
        else if (m->args.len - at < UINT16_MAX)
            *(struct stint_arg *)stint_i_xpush(&m->args) = *ea;
        else
            stint_model_drop(m, "slice '%s' at ts %lld ns has more than %u args with its end's: the rest are dropped",
                             stint_model_str(m, c->name, NULL), (long long)c->ts_ns, (unsigned)UINT16_MAX);
    }
    c->args = (uint32_t)at;
    c->nargs = (uint16_t)(m->args.len - at);
}

/* Whether the slice is still open at the nesting pass: a B not yet ended. */
static int is_open(const struct stint_slice *s) { return s->dur_ns < 0; }

/* A stack of slice indexes. */
struct ustack {
    uint32_t *v;
    size_t n, cap;
};

static void ustack_push(struct ustack *s, uint32_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = stint_xreallocarray(s->v, s->cap, sizeof *s->v);
    }
    s->v[s->n++] = v;
}

void stint_i_end_unmatched(struct stint_model *m, const struct end_ev *ev)
{
    const struct stint_track *tr = &STINT_BA_AT(&m->tracks, struct stint_track, ev->track);
    if (tr->kind == STINT_TRACK_THREAD) {
        const struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, tr->lane);
        stint_model_repair(m, STINT_REPAIR_E_UNMATCHED, "E '%s' at ts %lld ns on pid %lld tid %lld closes no open B",
                           stint_model_str(m, ev->name, NULL), (long long)ev->ts_ns, (long long)ln->pid,
                           (long long)ln->tid);
    } else
        stint_model_repair(m, STINT_REPAIR_ASYNC_UNMATCHED, "async end '%s' at ts %lld ns matches no begin",
                           stint_model_str(m, ev->name, NULL), (long long)ev->ts_ns);
}

/* Perfetto's rule for slices still open above a B that has ended (its E
 * closed it below the stack's top): once an event comes after that end (now
 * past it; or at it, but for an E: E events come first at one ts, so ends
 * written out of order at one ts still match), those of them that started
 * while it ran are cut to it, and one misplaced_end_event is counted. (Perfetto does the same above an ended X;
 * stint keeps those B slices' own ends and counts them overlapping, see
 * docs/speedscope-differences.md, bex-interaction.) Scans the stack from its top; returns
 * whether such an ended slice is left (with open slices above it). */
static int cut_open_above(struct stint_model *m, struct stint_slice *sl, struct ustack *st, int64_t now, int at_end,
                          uint32_t *openb)
{
    int left = 0;
    int64_t first_open = INT64_MAX; /* the earliest start of the open slices above (not cut) */
    const struct stint_slice *inner = NULL; /* the innermost open slice above */
    for (size_t j = st->n; j-- > 0;) {
        struct stint_slice *o = &sl[st->v[j]];
        if (is_open(o)) {
            if (!inner)
                inner = o;
            if (o->ts_ns < first_open)
                first_open = o->ts_ns;
            continue;
        }
        int64_t end = o->ts_ns + o->dur_ns;
        /* only slices opened while it ran are its (an X above it that outlived
         * it can carry later ones: Perfetto would have spilled that X) */
        if (!(o->flags & STINT_SLICE_FROM_B) || first_open >= end) /* (under an X: bex-interaction) */
            continue;
        if (now < end || (now == end && at_end)) {
            left = 1;
            continue;
        }
        stint_model_repair(m, STINT_REPAIR_MISPLACED_END,
                           "'%s' [%lld, %lld) ns ended below slices still open (the innermost: '%s' from %lld ns): "
                           "they are cut at its end",
                           stint_model_str(m, o->name, NULL), (long long)o->ts_ns, (long long)end,
                           stint_model_str(m, inner->name, NULL), (long long)inner->ts_ns);
        first_open = INT64_MAX;
        inner = NULL;
        for (size_t u = st->n; u-- > j + 1;) {
            struct stint_slice *c = &sl[st->v[u]];
            if (!is_open(c))
                continue;
            if (c->ts_ns < end) {
                c->dur_ns = end - c->ts_ns;
                if (openb && (c->flags & STINT_SLICE_FROM_B))
                    openb[c->name]--;
                continue;
            }
            if (!inner)
                inner = c;
            if (c->ts_ns < first_open)
                first_open = c->ts_ns;
        }
        /* (they leave the stack as ended slices do, from its top: closed X
         * above them may still run, as in the lean walk) */
    }
    return left;
}

/* One walker on the track it walks (walk_track): the track, its open
 * slices and what the lean records add. */
struct track_walk {
    struct stint_model *m;
    struct stint_slice *sl;
    struct ustack st;   /* the open slices, innermost last: indexes into sl */
    /* open B slices on the stack per name: an E whose name has none closes
     * nothing without a look through the stack (120k unmatched E events over
     * 120k open B slices took 15 s); NULL when it could not be had */
    uint32_t *openb;
    size_t t, a, b;     /* the track; its slices are sl[a..b) */
    uint32_t lane;      /* a thread track's lane */
    int lean_track;     /* lean mode's thread track: its complete spans are records */
    int cut_pending;    /* an ended slice on the stack has open ones above it */
    int64_t *rts;       /* lean: the track's record starts, sorted, once cut_pending was set */
    size_t nrts;
    int rts_made;
    struct devcat dc, dctop; /* device work: the slice nested, the stack's top */
};

/* In lean mode the track's complete spans are records, not in this pass:
 * one that starts before now (at or after an ended B's end: an X at that
 * ts comes after its E events) cuts first. */
static void cut_before_records(struct track_walk *tw, int64_t now)
{
    if (!tw->rts_made) {
        tw->rts = stint_i_lean_starts(tw->m, tw->lane, &tw->nrts);
        tw->rts_made = 1;
    }
    size_t lo = 0, hi = tw->nrts; /* the records before now: rts[0..lo) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tw->rts[mid] < now)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo)
        tw->cut_pending = cut_open_above(tw->m, tw->sl, &tw->st, tw->rts[lo - 1], 0, tw->openb);
}

/* Closes the slice E event ev closes (E events come first at equal ts):
 * the innermost open B of its name and category, else a zero-length B at
 * its ts not yet taken (from sl[i]), else nothing (counted). */
static void match_end(struct track_walk *tw, const struct end_ev *ev, size_t i)
{
    struct stint_model *m = tw->m;
    struct stint_slice *sl = tw->sl;
    struct ustack *st = &tw->st;
    size_t k = st->n;
    if (tw->openb && ev->name && !tw->openb[ev->name])
        k = 0; /* none of its name is open */
    while (k-- > 0) {
        const struct stint_slice *c = &sl[st->v[k]];
        if ((c->flags & STINT_SLICE_FROM_B) && is_open(c) && (ev->name == 0 || c->name == ev->name) &&
            (ev->cat == 0 || c->cat == ev->cat))
            break;
    }
    if (k == (size_t)-1) {
        /* A zero-length pair written B then E at one ts: Perfetto takes the E first
         * and leaves both unmatched; stint pairs them (dur 0), see
         * docs/speedscope-differences.md. */
        size_t q = i;
        for (; q < tw->b && sl[q].ts_ns == ev->ts_ns; q++)
            if ((sl[q].flags & STINT_SLICE_FROM_B) && is_open(&sl[q]) && sl[q].seq < ev->seq &&
                (ev->name == 0 || sl[q].name == ev->name) && (ev->cat == 0 || sl[q].cat == ev->cat))
                break;
        if (q < tw->b && sl[q].ts_ns == ev->ts_ns) {
            sl[q].dur_ns = 0;
            stint_i_tt_end(m, &sl[q], ev->tts_ns);
            merge_end_args(m, &sl[q], ev);
            return;
        }
        stint_i_end_unmatched(m, ev);
        return;
    }
    struct stint_slice *c = &sl[st->v[k]];
    c->dur_ns = ev->ts_ns - c->ts_ns;
    if (tw->openb)
        tw->openb[c->name]--;
    stint_i_tt_end(m, c, ev->tts_ns);
    merge_end_args(m, c, ev);
    /* with slices still open above it, the match stays on the stack
     * (Perfetto pops a slice only from the top) and they are cut to its
     * end once an event comes after that end (cut_open_above) */
    int open_above = 0; /* (slices open above it started while it ran: E first at equal ts) */
    for (size_t u = k + 1; u < st->n && !open_above; u++)
        open_above = is_open(&sl[st->v[u]]);
    if (open_above) {
        tw->cut_pending = 1;
    } else { /* only closed slices above it (X that overlap it): it is done */
        memmove(&st->v[k], &st->v[k + 1], (st->n - k - 1) * sizeof *st->v);
        st->n--;
    }
}

/* Whether s is device work with a known duration (model.h: a queue). */
static int is_queued(const struct stint_slice *s, struct stint_model *m, struct devcat *dc)
{
    return !(s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)) && s->dur_ns >= 0 && devcat_is(m, dc, s->cat);
}

/* Device work s comes: the device work on top of the stack is closed, as
 * a queue's earlier entry, not a caller; one that had not ended is counted
 * (not on a lean track: its walk counts those, with the same message).
 * What that uncovers is closed by walk_track's rule when it has ended
 * (device work below it in turn as a queue's). */
static void close_queued(struct track_walk *tw, const struct stint_slice *s)
{
    struct ustack *st = &tw->st;
    while (st->n) {
        const struct stint_slice *top = &tw->sl[st->v[st->n - 1]];
        int64_t end = top->ts_ns + top->dur_ns;
        if (!is_open(top) && (end < s->ts_ns || (end == s->ts_ns && (top->dur_ns > 0 || s->dur_ns != 0)))) {
            st->n--; /* (ended: uncovered by the device work taken off) */
            continue;
        }
        if (!is_queued(top, tw->m, &tw->dctop))
            break;
        if (!tw->lean_track && top->ts_ns + top->dur_ns > s->ts_ns)
            stint_i_stream_overlap(tw->m, s->name, s->ts_ns, s->ts_ns + s->dur_ns, top->name, top->ts_ns,
                                   top->ts_ns + top->dur_ns);
        st->n--;
    }
}

/* Nests slice sl[i] under the innermost open slice (Perfetto's rule,
 * model.h; device work never under device work) and opens it; one that
 * ends after its parent is counted. */
static void nest_slice(struct track_walk *tw, size_t i, int *any_explicit)
{
    struct stint_slice *sl = tw->sl, *s = &sl[i];
    struct ustack *st = &tw->st;
    if (!(s->flags & STINT_SLICE_EXPLICIT_PARENT) && st->n && is_queued(s, tw->m, &tw->dc))
        close_queued(tw, s);
    if (s->flags & STINT_SLICE_EXPLICIT_PARENT) {
        *any_explicit = 1;
    } else if (st->n) {
        struct stint_slice *top = &sl[st->v[st->n - 1]];
        s->parent = st->v[st->n - 1];
        s->depth = top->depth + 1;
        if (!tw->lean_track && !is_open(top) && !is_open(s) && s->ts_ns + s->dur_ns > top->ts_ns + top->dur_ns) {
            s->flags |= STINT_SLICE_OVERLAP;
            stint_model_repair(tw->m, STINT_REPAIR_OVERLAP,
                               "'%s' [%lld, %lld) ns starts inside '%s' [%lld, %lld) ns but ends after it",
                               stint_model_str(tw->m, s->name, NULL), (long long)s->ts_ns,
                               (long long)(s->ts_ns + s->dur_ns), stint_model_str(tw->m, top->name, NULL),
                               (long long)top->ts_ns, (long long)(top->ts_ns + top->dur_ns));
        }
    } else {
        s->parent = STINT_NO_ID;
        s->depth = 0;
    }
    ustack_push(st, (uint32_t)i);
    if (tw->openb && (s->flags & STINT_SLICE_FROM_B) && is_open(s))
        tw->openb[s->name]++;
}

/* What is known only once the track's E events are matched: a B/E child
 * that outlived its parent (not on a lean track: its walk counts those)
 * and B slices never ended. */
static void track_checks(struct track_walk *tw)
{
    struct stint_model *m = tw->m;
    struct stint_slice *sl = tw->sl;
    for (size_t q = tw->a; q < tw->b && !tw->lean_track; q++) {
        struct stint_slice *c = &sl[q];
        if (c->parent == STINT_NO_ID || (c->flags & (STINT_SLICE_OVERLAP | STINT_SLICE_EXPLICIT_PARENT)) || is_open(c))
            continue;
        const struct stint_slice *p = &sl[c->parent];
        if (!is_open(p) && c->ts_ns + c->dur_ns > p->ts_ns + p->dur_ns) {
            c->flags |= STINT_SLICE_OVERLAP;
            stint_model_repair(m, STINT_REPAIR_OVERLAP, "'%s' [%lld, %lld) ns starts inside '%s' but ends after it",
                               stint_model_str(m, c->name, NULL), (long long)c->ts_ns,
                               (long long)(c->ts_ns + c->dur_ns), stint_model_str(m, p->name, NULL));
        }
    }
    for (size_t q = tw->a; q < tw->b; q++)
        if ((sl[q].flags & STINT_SLICE_FROM_B) && sl[q].dur_ns < 0)
            stint_model_repair(m, STINT_REPAIR_UNFINISHED, "%s '%s' at ts %lld ns never ended (dur -1)",
                               (sl[q].flags & STINT_SLICE_ASYNC) ? "async begin" : "B",
                               stint_model_str(m, sl[q].name, NULL), (long long)sl[q].ts_ns);
}

/* Walks track tw->t: its slices (sorted) and its E events ends[ei..nends)
 * in Perfetto's order (model.h), nesting the slices and matching the ends. */
static void walk_track(struct track_walk *tw, const struct end_ev *ends, size_t ei, size_t nends, int *any_explicit)
{
    struct stint_slice *sl = tw->sl;
    size_t i = tw->a, b = tw->b;
    tw->st.n = 0;
    tw->cut_pending = 0;
    tw->rts = NULL;
    tw->nrts = 0;
    tw->rts_made = 0;
    for (;;) {
        int have_end = ei < nends && ends[ei].track == tw->t;
        if (i >= b && !have_end)
            break;
        int64_t now = (have_end && (i >= b || ends[ei].ts_ns <= sl[i].ts_ns)) ? ends[ei].ts_ns : sl[i].ts_ns;
        /* slices with a known end that has passed are closed (half-open: one
         * ending at now is closed, but for a zero-length one when what comes
         * at now is zero-length too, or an E: two dur-0 slices at one ts nest) */
        int at_end = have_end && ends[ei].ts_ns == now;
        int zero_next = at_end || sl[i].dur_ns == 0;
        if (tw->cut_pending && tw->lean_track)
            cut_before_records(tw, now);
        if (tw->cut_pending)
            tw->cut_pending = cut_open_above(tw->m, sl, &tw->st, now, at_end, tw->openb);
        while (tw->st.n) {
            const struct stint_slice *top = &sl[tw->st.v[tw->st.n - 1]];
            if (is_open(top))
                break;
            int64_t end = top->ts_ns + top->dur_ns;
            if (end < now || (end == now && (top->dur_ns > 0 || !zero_next)))
                tw->st.n--;
            else
                break;
        }
        if (at_end) {
            match_end(tw, &ends[ei++], i);
            continue;
        }
        nest_slice(tw, i, any_explicit);
        i++;
    }
    if (tw->cut_pending && tw->lean_track) { /* records after the last event */
        if (!tw->rts_made)
            tw->rts = stint_i_lean_starts(tw->m, tw->lane, &tw->nrts);
        if (tw->nrts)
            cut_open_above(tw->m, sl, &tw->st, tw->rts[tw->nrts - 1], 0, tw->openb);
    }
    free(tw->rts);
    for (size_t u = 0; tw->openb && u < tw->st.n; u++) /* B slices never closed: the counts start at 0 again */
        tw->openb[sl[tw->st.v[u]].name] = 0;
    track_checks(tw);
}

void stint_i_walk_tracks(struct finish_walker *W)
{
    struct finish_share *sh = W->sh;
    struct stint_model *m = sh->m;
    struct track_walk tw = {.m = m, .sl = m->slices.data};
    /* (optional: without it, every E looks through the stack) */
    tw.openb = m->ends.len && m->strings ? calloc(stint_i_nstrings(m) + 1, sizeof *tw.openb) : NULL;
    SELF_SCOPE_CPU("walk tracks");
    if (W->logged)
        stint_i_repair_log_to(&W->log);
    for (size_t x; (x = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->n;) {
        size_t t = sh->order ? sh->order[x] : x;
        SELF_SCOPE("walk track");
        stint_i_self_attr("track", (int64_t)t);
        size_t a = sh->start[t], b = sh->start[t + 1];
        size_t ei = sh->estart[t], nends = sh->estart[t + 1]; /* (ends past the track's are never looked at) */
        stint_i_repair_log_track(t);
        const struct stint_track *trk = &STINT_BA_AT(&m->tracks, struct stint_track, t);
        int lean_track = sh->lean && trk->kind == STINT_TRACK_THREAD;
        if (a == b && !lean_track) { /* E events of a track without slices close nothing */
            while (ei < nends)
                stint_i_end_unmatched(m, &sh->ends[ei++]);
            continue;
        }
        /* most tracks arrive in order: one linear check, sort only when needed */
        for (size_t i = a + 1; i < b; i++)
            if (slice_cmp(&tw.sl[i - 1], &tw.sl[i]) > 0) {
                sort_slices(tw.sl + a, b - a);
                break;
            }
        tw.t = t;
        tw.a = a;
        tw.b = b;
        tw.lane = trk->lane;
        tw.lean_track = lean_track;
        walk_track(&tw, sh->ends, ei, nends, &W->any_explicit);
        if (lean_track) {
            if (sh->lfe)
                stint_i_lean_track(m, &W->w, (uint32_t)t, a, b, sh->lfe, sh->lidx + sh->lstart[t],
                                   sh->lstart[t + 1] - sh->lstart[t]);
            else
                stint_i_lean_track(m, &W->w, (uint32_t)t, a, b, NULL, NULL, 0);
        }
    }
    stint_i_repair_log_to(NULL);
    free(tw.st.v);
    free(tw.openb);
}

void *stint_i_walk_tracks_thread(void *arg)
{
    stint_i_self_thread("stint walk");
    stint_i_walk_tracks(arg);
    return NULL;
}

uint32_t *stint_i_walk_split_order(const struct stint_model *m, const size_t *start, const struct end_ev *ends,
                                   size_t nends)
{
    size_t ntracks = m->tracks.len, total = 0;
    const struct stint_span_split *sp = m->span_split;
    if (!sp || !m->span_sink || (m->flags & STINT_MODEL_KEEP_ARGS) || ntracks < 2)
        return NULL;
    for (size_t k = 0; k < nends; k++)
        if (ends[k].args != STINT_NO_ID)
            return NULL;
    size_t *wt = malloc(ntracks * sizeof *wt);
    uint32_t *order = malloc(ntracks * sizeof *order);
    if (!wt || !order) {
        free(wt);
        free(order);
        return NULL;
    }
    for (size_t t = 0; t < ntracks; t++) {
        const struct stint_track *trk = &STINT_BA_AT(&m->tracks, struct stint_track, t);
        wt[t] = start[t + 1] - start[t] + (trk->kind == STINT_TRACK_THREAD ? stint_i_lean_count(m, trk->lane) : 0);
        total += wt[t];
    }
    if (total < sp->min_spans || total < 2 || stint_order_heaviest(wt, ntracks, order) != 0) {
        free(wt);
        free(order);
        return NULL;
    }
    free(wt);
    return order;
}

