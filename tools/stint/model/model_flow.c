/* SPDX-License-Identifier: MIT */
/*
 * model_flow.c - flow events: their identities (stint_model_flow_key), the
 * events themselves as readers record them, and their binding to slices at
 * finish (Perfetto's rules, model.h), with the lean mode's preparation of
 * the events for the track walks.
 *
 * Invariants: flow keys are dense from 0 and live until the binding, which
 * frees them with the events; a key's events are bound in (ts, seq) order,
 * keys independently, so where every key's events already come in that
 * order (flowkeys->unordered never set) nothing is sorted; each arrow goes
 * from the last out-slice of its key to the slice an event binds to. A flow
 * event that binds to nothing is counted once per event (unbound_flow),
 * the earliest one's message kept. stint_model_flow_key and stint_model_flow
 * run per event: their lookups stay in this file.
 */
#include "model/model_int.h"
#include "base/cmp.h"
#include "base/hmem.h"
#include "base/nearsort.h"
#include "base/selftrace.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- flow identities ------------------------------------------------------------------------ */

/* The flow identities' table (struct stint_flowkeys): flow ids are mostly
 * numbers given out in sequence, and an id's s and f events come close
 * together in the file, so the low four bits of a numeric id pick the slot
 * within a group of 16 (one cache line of the table) that the rest of the
 * key hashes to: ids in sequence share lines and keys in insertion order,
 * and a lookup mostly hits the cache (a hashed table, or the string table
 * before this, missed it on nearly every flow event of a large trace). */

/* Where key k's search starts in a table of mask + 1 slots (linear probing from there). */
static size_t flowkey_home(const struct flowkey *k, size_t mask)
{
    uint64_t pair = stint_hash_fmix64(((uint64_t)k->cat << 32) | k->name);
    if (k->id & STINT_FLOW_ID_STR)
        return stint_hash_fmix64(k->id ^ pair) & mask;
    return ((stint_hash_fmix64((k->id >> 4) ^ pair) << 4) | (k->id & 15)) & mask;
}

static size_t flowkey_home_of(const void *ctx, size_t k, size_t mask)
{
    return flowkey_home(&STINT_BA_AT(&((const struct stint_flowkeys *)ctx)->keys, struct flowkey, k), mask);
}

static void flowkeys_rehash(struct stint_flowkeys *f)
{
    stint_i_table_regrow(&f->table, &f->tcap, f->keys.len, flowkey_home_of, f);
}

void stint_i_flowkeys_free(struct stint_flowkeys *f)
{
    if (!f)
        return;
    stint_bigarray_free(&f->keys);
    stint_hmem_free(f->table, f->tcap * sizeof *f->table);
    free(f);
}

uint32_t stint_model_flow_key(struct stint_model *m, uint32_t cat, uint32_t name, uint64_t id)
{
    if (m->flags & STINT_MODEL_FLOWS_COUNTED)
        return 0; /* (no flow is kept: no identity is needed) */
    struct stint_flowkeys *f = m->flowkeys;
    if (!f) {
        f = m->flowkeys = stint_xcalloc(1, sizeof *f);
        stint_bigarray_init(&f->keys, sizeof(struct flowkey));
    }
    if ((f->keys.len + 1) * 2 >= f->tcap)
        flowkeys_rehash(f);
    struct flowkey k = {.cat = cat, .name = name, .id = id, .last_ts = INT64_MIN};
    size_t mask = f->tcap - 1, j = flowkey_home(&k, mask);
    for (uint32_t slot; (slot = f->table[j]) != 0; j = (j + 1) & mask) {
        const struct flowkey *e = &STINT_BA_AT(&f->keys, struct flowkey, slot - 1);
        if (e->id == id && e->cat == cat && e->name == name)
            return slot - 1;
    }
    *(struct flowkey *)stint_i_xpush(&f->keys) = k;
    f->table[j] = (uint32_t)f->keys.len;
    return (uint32_t)(f->keys.len - 1);
}

void stint_model_flow(struct stint_model *m, enum stint_flow_phase phase, uint32_t track, int64_t ts_ns, uint32_t key,
                      int enclosing, uint32_t slice, int flow_in, int flow_out)
{
    if (m->flags & STINT_MODEL_FLOWS_COUNTED) {
        m->flow_events++;
        return;
    }
    if (!stint_i_event_ts_ok(m, "flow event", key, ts_ns))
        return;
    if (m->flowkeys && key < m->flowkeys->keys.len)
        stint_i_flow_seen(m->flowkeys, key, ts_ns);
    else if (m->flowkeys)
        m->flowkeys->unordered = 1; /* (a key that is not one: bound in time order, as before) */
    *(struct flow_ev *)stint_i_xpush(&m->flow_evs) = (struct flow_ev){.ts_ns = ts_ns,
                                                                      .track = track,
                                                                      .key = key,
                                                                      .slice = slice,
                                                                      .seq = (uint32_t)m->seq++,
                                                                      .bound = STINT_NO_ID,
                                                                      .phase = (uint8_t)phase,
                                                                      .enclosing = (uint8_t)(enclosing != 0),
                                                                      .in = (uint8_t)(flow_in != 0),
                                                                      .out = (uint8_t)(flow_out != 0)};
    m->flow_events++;
}

/* ---- flow events in order ---------------------------------------------------------------- */

static inline int flow_ev_less(const struct flow_ev *a, const struct flow_ev *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->seq < b->seq;
}

static int flow_ev_cmp(const void *pa, const void *pb)
{
    return flow_ev_less(pa, pb) ? -1 : flow_ev_less(pb, pa);
}

STINT_DEFINE_NEAR_SORT(flow_near_sort, struct flow_ev, flow_ev_less)

/* Puts the pending flow events in (ts, seq) order: they mostly arrive in
 * order (and a second call finds them sorted), so nearsort.h first. */
static void sort_flow_evs(struct stint_model *m)
{
    struct flow_ev *fe = m->flow_evs.data;
    size_t nf = m->flow_evs.len;
    if (!flow_near_sort(fe, nf))
        stint_xqsort(fe, nf, sizeof *fe, flow_ev_cmp);
}

void stint_model_presort(struct stint_model *m)
{
    sort_flow_evs(m);
}

/* ---- binding -------------------------------------------------------------------------------- */

/* Slices of track t are sl[start[t] .. start[t+1]), sorted by ts. */
static uint32_t slice_enclosing(const struct stint_slice *sl, const size_t *start, uint32_t t, int64_t ts)
{
    size_t lo = start[t], hi = start[t + 1];
    while (lo < hi) { /* first slice with ts > ts */
        size_t mid = lo + (hi - lo) / 2;
        if (sl[mid].ts_ns <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == start[t])
        return STINT_NO_ID;
    for (uint32_t c = (uint32_t)(lo - 1); c != STINT_NO_ID; c = sl[c].parent) {
        const struct stint_slice *x = &sl[c];
        if (x->dur_ns < 0 || ts < x->ts_ns + x->dur_ns || (x->dur_ns == 0 && ts == x->ts_ns))
            return c;
        if (x->flags & STINT_SLICE_EXPLICIT_PARENT)
            break;
    }
    return STINT_NO_ID;
}

static uint32_t slice_next(const struct stint_slice *sl, const size_t *start, uint32_t t, int64_t ts)
{
    size_t lo = start[t], hi = start[t + 1];
    while (lo < hi) { /* first slice with ts >= ts */
        size_t mid = lo + (hi - lo) / 2;
        if (sl[mid].ts_ns < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < start[t + 1] ? (uint32_t)lo : STINT_NO_ID;
}

static void add_flow(struct stint_model *m, uint32_t out, uint32_t in)
{
    struct stint_flow *f = stint_i_xpush(&m->flows);
    f->slice_out = out;
    f->slice_in = in;
}

size_t stint_i_flow_last_bytes(const struct stint_model *m)
{
    size_t nkeys = m->flowkeys ? m->flowkeys->keys.len : 0;
    return 2 * (nkeys ? nkeys : 1) * sizeof(uint32_t);
}

/* The last slice of each flow key for the binding, none yet: v1 and v2 keys
 * apart, keys are dense, so a plain array (slot 2 * key + v2) instead of a
 * hash map. From hmem.h (a megabyte or more for a large trace: fresh 4 KiB
 * pages cost more to touch than filling them); the binding frees it. */
static uint32_t *flow_last_new(const struct stint_model *m)
{
    size_t bytes = stint_i_flow_last_bytes(m);
    uint32_t *last = stint_hmem_xrealloc(NULL, 0, bytes);
    for (size_t k = 0; k < bytes / sizeof *last; k++)
        last[k] = STINT_NO_ID;
    return last;
}

/* A flow event that binds to nothing or continues nothing (stint_i_bind_flows):
 * counted, and the earliest in (ts, seq) order kept for the message, as
 * when the events are taken in that order. */
enum unbound_why {
    UNBOUND_NO_OUT,   /* v2: a flow_in with no flow_out before it */
    UNBOUND_NO_SLICE, /* v1: no slice to bind to */
    UNBOUND_NO_START  /* v1: a step or end that continues no started flow */
};

struct unbound {
    uint64_t n;
    const struct flow_ev *first;
    uint32_t slice; /* UNBOUND_NO_OUT: the slice the first names */
    enum unbound_why why;
};

static void unbound_note(struct unbound *u, const struct flow_ev *e, uint32_t slice, enum unbound_why why)
{
    if (u->n++ == 0 || e->ts_ns < u->first->ts_ns || (e->ts_ns == u->first->ts_ns && e->seq < u->first->seq)) {
        u->first = e;
        u->slice = slice;
        u->why = why;
    }
}

static void unbound_report(struct stint_model *m, const struct unbound *u)
{
    if (!u->n)
        return;
    const struct flow_ev *e = u->first;
    if (u->why == UNBOUND_NO_OUT) {
        const struct stint_slice *s = stint_model_slice(m, u->slice);
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow_in on '%s' at ts %lld ns has no flow_out before it",
                           stint_model_str(m, s->name, NULL), (long long)s->ts_ns);
    } else if (u->why == UNBOUND_NO_SLICE)
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow event '%c' at ts %lld ns has no slice to bind to",
                           e->phase, (long long)e->ts_ns);
    else
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow event '%c' at ts %lld ns continues no started flow",
                           e->phase, (long long)e->ts_ns);
    m->repairs[STINT_REPAIR_UNBOUND_FLOW] += u->n - 1;
}

/* (Keys do not interact, so each key's events in (ts, seq) order is all the
 * binding needs; the arrows, m->flows, come in the order taken.) */
void stint_i_bind_flows(struct stint_model *m, const size_t *start, const uint32_t *ord, int as_is, uint32_t *last)
{
    SELF_SCOPE("bind flows");
    size_t nf = m->flow_evs.len, n = m->slices.len;
    if (!nf) {
        stint_hmem_free(last, stint_i_flow_last_bytes(m));
        return;
    }
    struct flow_ev *fe = m->flow_evs.data;
    struct stint_slice *sl = m->slices.data;
    if (!ord && !as_is)
        sort_flow_evs(m);
    struct unbound ub = {0};
    /* v2 names slices by input index: map those to sorted positions */
    uint32_t *pos = NULL;
    for (size_t i = 0; i < nf && !pos; i++)
        if (fe[i].phase == STINT_FLOW_V2)
            pos = stint_i_input_positions(m);
    if (!last)
        last = flow_last_new(m);
    for (size_t i = 0; i < nf; i++) {
        const struct flow_ev *e = &fe[ord ? ord[i] : i];
        if (e->phase == STINT_FLOW_V2) {
            if (e->slice >= n)
                continue;
            uint32_t s = pos[e->slice];
            uint32_t *k = &last[2 * (size_t)e->key + 1];
            if (e->in) {
                if (*k != STINT_NO_ID)
                    add_flow(m, *k, s);
                else
                    unbound_note(&ub, e, s, UNBOUND_NO_OUT);
            }
            if (e->out)
                *k = s;
            continue;
        }
        uint32_t s = !start ? e->bound /* bound by the lean track walks (or nothing to bind to) */
                     : (e->phase == STINT_FLOW_V1_END && !e->enclosing) ? slice_next(sl, start, e->track, e->ts_ns)
                                                                         : slice_enclosing(sl, start, e->track, e->ts_ns);
        if (s == STINT_NO_ID) {
            unbound_note(&ub, e, 0, UNBOUND_NO_SLICE);
            continue;
        }
        uint32_t *k = &last[2 * (size_t)e->key];
        if (e->phase != STINT_FLOW_V1_START) {
            if (*k != STINT_NO_ID)
                add_flow(m, *k, s);
            else
                unbound_note(&ub, e, 0, UNBOUND_NO_START);
        }
        *k = e->phase == STINT_FLOW_V1_END ? STINT_NO_ID : s;
    }
    unbound_report(m, &ub);
    stint_hmem_free(last, stint_i_flow_last_bytes(m));
    free(pos);
    stint_bigarray_free(&m->flow_evs);
    stint_i_flowkeys_free(m->flowkeys);
    m->flowkeys = NULL;
}

void *stint_i_bind_flows_thread(void *arg)
{
    struct bind_job *b = arg;
    stint_i_self_thread("stint bind");
    stint_i_bind_flows(b->m, NULL, b->ord, b->as_is, b->last);
    return NULL;
}

/* A flow event's place in (ts, seq) order, and its index. */
struct flow_key {
    int64_t ts_ns;
    uint32_t seq, idx;
};

static inline int flow_key_less(const struct flow_key *a, const struct flow_key *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->seq < b->seq;
}

static int flow_key_cmp(const void *pa, const void *pb)
{
    return flow_key_less(pa, pb) ? -1 : flow_key_less(pb, pa);
}

STINT_DEFINE_NEAR_SORT(flow_key_near_sort, struct flow_key, flow_key_less)

/* A track's head in the merge of the tracks' lists (flow_order). */
struct flow_head {
    struct flow_key k;
    uint32_t track;
};

static void flow_heap_down(struct flow_head *h, size_t nh, size_t i)
{
    struct flow_head x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= nh)
            break;
        if (c + 1 < nh && flow_key_less(&h[c + 1].k, &h[c].k))
            c++;
        if (!flow_key_less(&h[c].k, &x.k))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* ---- the lean flow events in order (struct flow_prep) ----------------------------------- */

/* The lean flow events put in order for the track walks and the binding,
 * without moving them (the walks write their bound while the binding's
 * order is found): lidx holds each track's indexes in (ts, seq) order
 * (track t's are [lstart[t], lstart[t + 1])). The binding takes each flow
 * key's events in (ts, seq) order: as they stand (as_is) when every key's
 * come in that order (stint_i_flow_seen: the usual case, an s before its f), else
 * all of them in (ts, seq) order, ord (NULL when the events already are in
 * it). Each track's events mostly arrive in time order even where the
 * tracks' batches interleave, so the tracks are grouped in input order, a
 * track out of order is sorted, and ord merges the tracks' lists. With a
 * thread of its own, the walks start once lidx is ready (ready, under mu)
 * while ord, and the binding's last (flow_last_new), are made; without one
 * the events are sorted in place first unless as_is (one thread does it
 * all: a merge of the array's runs costs less than the binding reading them
 * in a merged order). */

static void flow_lists(struct flow_prep *fp)
{
    const struct flow_ev *fe = fp->m->flow_evs.data;
    /* (lidx and ord from hmem.h: a megabyte or more for a large trace, where
     * each fresh 4 KiB page costs ~10 us at its first touch) */
    fp->lidx = stint_hmem_xrealloc(NULL, 0, (fp->n ? fp->n : 1) * sizeof *fp->lidx);
    fp->lstart = stint_i_track_starts(fe, fp->n, sizeof *fe, offsetof(struct flow_ev, track), fp->ntracks);
    size_t *pos = stint_xreallocarray(NULL, fp->ntracks + 1, sizeof *pos);
    memcpy(pos, fp->lstart, (fp->ntracks + 1) * sizeof *pos);
    for (size_t k = 0; k < fp->n; k++)
        fp->lidx[pos[fe[k].track]++] = (uint32_t)k;
    free(pos);
    for (size_t t = 0; t < fp->ntracks; t++) {
        uint32_t *li = fp->lidx + fp->lstart[t];
        size_t len = fp->lstart[t + 1] - fp->lstart[t], j = 1;
        while (j < len && flow_ev_less(&fe[li[j - 1]], &fe[li[j]]))
            j++;
        if (j >= len)
            continue;
        struct flow_key *k = stint_xreallocarray(NULL, len, sizeof *k);
        for (j = 0; j < len; j++)
            k[j] = (struct flow_key){fe[li[j]].ts_ns, fe[li[j]].seq, li[j]};
        if (!flow_key_near_sort(k, len))
            stint_xqsort(k, len, sizeof *k, flow_key_cmp);
        for (j = 0; j < len; j++)
            li[j] = k[j].idx;
        free(k);
    }
}

static void flow_order(struct flow_prep *fp)
{
    const struct flow_ev *fe = fp->m->flow_evs.data;
    size_t n = fp->n, nh = 0, j = 1;
    while (j < n && flow_ev_less(&fe[j - 1], &fe[j]))
        j++;
    if (j >= n)
        return; /* in order already */
    struct flow_head *h = stint_xreallocarray(NULL, fp->ntracks, sizeof *h);
    size_t *pos = stint_xreallocarray(NULL, fp->ntracks, sizeof *pos);
    for (size_t t = 0; t < fp->ntracks; t++) {
        pos[t] = fp->lstart[t];
        if (pos[t] < fp->lstart[t + 1]) {
            uint32_t i = fp->lidx[pos[t]];
            h[nh++] = (struct flow_head){{fe[i].ts_ns, fe[i].seq, i}, (uint32_t)t};
        }
    }
    for (size_t i = nh / 2; i-- > 0;)
        flow_heap_down(h, nh, i);
    uint32_t *ord = stint_hmem_xrealloc(NULL, 0, n * sizeof *ord);
    for (size_t r = 0; r < n; r++) {
        uint32_t t = h[0].track;
        ord[r] = h[0].k.idx;
        if (++pos[t] < fp->lstart[t + 1]) {
            uint32_t i = fp->lidx[pos[t]];
            h[0].k = (struct flow_key){fe[i].ts_ns, fe[i].seq, i};
        } else
            h[0] = h[--nh];
        if (nh)
            flow_heap_down(h, nh, 0);
    }
    free(h);
    free(pos);
    fp->ord = ord;
}

void stint_i_flow_prep(struct flow_prep *fp)
{
    SELF_SCOPE("flow events in order");
    fp->as_is = fp->m->flowkeys && !fp->m->flowkeys->unordered;
    if (!fp->threaded && !fp->as_is) /* nothing runs meanwhile: in place is cheaper (ord stays NULL) */
        sort_flow_evs(fp->m);
    flow_lists(fp);
    if (fp->threaded) {
        pthread_mutex_lock(&fp->mu);
        fp->ready = 1;
        pthread_cond_signal(&fp->cv);
        pthread_mutex_unlock(&fp->mu);
    }
    if (!fp->as_is)
        flow_order(fp);
    fp->last = flow_last_new(fp->m);
}

void *stint_i_flow_prep_thread(void *arg)
{
    stint_i_self_thread("stint flows");
    stint_i_flow_prep(arg);
    return NULL;
}

