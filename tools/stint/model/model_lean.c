/* SPDX-License-Identifier: MIT */
/*
 * model_lean.c - lean mode's records (model.h): complete spans on host
 * thread tracks kept as 12-byte records per lane instead of 64-byte
 * slices, and their ordering before the walk (model_lean_walk.c).
 *
 * Records are appended per lane in input order, into segments of 64 KiB at
 * most (model_lean_int.h has the layout); a reader part merged in later
 * (two-thread parse) adds its segments to the same lane, so merging copies
 * nothing. (cat, name) pairs are interned in a table of at most 2^24; a
 * span that does not fit (duration >= 2^40 ns, the table full) stays an
 * ordinary slice. An ordinary slice that may tie with records is noted
 * with how many records its lane held when it came, which settles exact
 * ties in input order (records keep no sequence number). At finish each
 * lane is checked for order (start ascending, longer first at equal
 * start: the model's slice order) and sorted only when needed. With
 * STINT_MODEL_LEAN_INSTANTS, thread instants are records of their own lane
 * table (a seq in place of the duration) until finish begins, which makes
 * slices of those on a track with flow events and forgets the others.
 * stint_i_lean_add runs per span: its steps stay in this file.
 */
#include "model/model_lean_int.h"
#include "base/intervals.h"
#include "base/nearsort.h"

#include <stdlib.h>
#include <string.h>

/* The pair index of (cat, name), made on first use; UINT32_MAX when the
 * table is full (the span then stays an ordinary slice). */
static uint32_t pair_of(struct stint_lean *L, uint32_t cat, uint32_t name)
{
    uint64_t key = (uint64_t)cat << 32 | name;
    struct pcache_ent *ce = &L->pcache[stint_hash_slot(key, 10)]; /* (1024 entries) */
    if (ce->pair1 && ce->key == key)
        return ce->pair1 - 1;
    if (L->npairs > PAIR_MASK) /* (a lookup could still hit, but the table is done growing) */
        return UINT32_MAX;
    int isnew;
    uint32_t p = stint_umap_get(&L->pairs, key, (uint32_t)L->npairs, &isnew);
    if (isnew) {
        size_t old_cap = L->pcap;
        L->pcat = stint_i_lean_grow(L->pcat, &L->pcap, L->npairs + 1, sizeof *L->pcat);
        if (L->pcap != old_cap) { /* pname follows pcat's capacity, resized only when it grew */
            L->pname = stint_xreallocarray(L->pname, L->pcap, sizeof *L->pname);
        }
        L->npairs++;
        L->pcat[p] = cat;
        L->pname[p] = name;
    }
    ce->key = key;
    ce->pair1 = p + 1;
    return p;
}

/* The lane's entry in table *lanes of *n (the table grows when lane is new). */
static inline struct lean_lane *lane_in(struct lean_lane **lanes, size_t *n, uint32_t lane)
{
    if (lane >= *n) {
        size_t nn = *n ? *n : 8;
        while (nn <= lane)
            nn *= 2;
        struct lean_lane *nl = stint_xreallocarray(*lanes, nn, sizeof *nl);
        memset(nl + *n, 0, (nn - *n) * sizeof *nl);
        *lanes = nl;
        *n = nn;
    }
    return &(*lanes)[lane];
}

/* The lane's entry for its span records. */
static inline struct lean_lane *lane_at(struct stint_lean *L, uint32_t lane)
{
    return lane_in(&L->lanes, &L->nlanes, lane);
}

/* Makes room in segment sg for need more slots (1 or 2), a block twice
 * the size of its last when full; whether it could (not beyond 64 KiB). */
static int seg_room(struct lean_seg *sg, uint32_t need)
{
    if (sg->len + need <= sg->cap)
        return 1;
    size_t old = seg_bytes(sg->cap), nb = SEG_FIRST_BYTES;
    if (sg->cap) /* twice the block the old size rounds up to */
        nb = (size_t)2 << (64 - __builtin_clzll((unsigned long long)old - 1));
    if (nb > SEG_MAX_BYTES)
        return 0;
    uint32_t cap = (uint32_t)(nb / sizeof(struct lean_pk));
    sg->r = stint_xcheck(stint_hmem_realloc(sg->r, old, seg_bytes(cap)));
    sg->cap = cap;
    return 1;
}

/* Makes room in the lane's list of segments for one more: the list doubles
 * from one entry (a lane of a many-thread trace mostly holds one segment:
 * starting at sixteen took 640 bytes per lane for nothing). */
static inline void segs_room(struct lean_lane *ll)
{
    if (ll->nsegs < ll->cap)
        return;
    size_t nc = ll->cap ? ll->cap * 2 : 1;
    ll->segs = stint_xreallocarray(ll->segs, nc, sizeof *ll->segs);
    ll->cap = nc;
}

/* Appends a record of start ts and dp to the lane's last segment, after a
 * marker when ts lies 2^31 ns or more from its current base; a new segment
 * (of base ts) when the lane has none or the last is full. */
static inline void lane_append(struct lean_lane *ll, int64_t ts, uint64_t dp)
{
    struct lean_seg *sg = ll->nsegs ? &ll->segs[ll->nsegs - 1] : NULL;
    int64_t off = sg ? ts - sg->cur : 0; /* (both within 2^62 of 0: no overflow) */
    int mark = sg && (off <= INT32_MIN || off > INT32_MAX);
    if (!sg || !seg_room(sg, 1 + (uint32_t)mark)) {
        segs_room(ll);
        sg = &ll->segs[ll->nsegs++];
        *sg = (struct lean_seg){.base = ts, .cur = ts};
        seg_room(sg, 1);
        off = 0;
        mark = 0;
    }
    if (mark) {
        sg->r[sg->len++] = (struct lean_pk){BASE_MARK, (uint64_t)ts};
        sg->cur = ts;
        off = 0;
    }
    sg->r[sg->len++] = (struct lean_pk){(int32_t)off, dp};
    sg->nrec++;
}

int stint_i_lean_add(struct stint_model *m, const struct stint_slice *s)
{
    if (!(m->flags & STINT_MODEL_LEAN) || (m->flags & STINT_MODEL_KEEP_ARGS) || s->dur_ns < 0 || s->dur_ns > DUR_MAX)
        return 0;
    int inst = s->flags == STINT_SLICE_INSTANT && (m->flags & STINT_MODEL_LEAN_INSTANTS);
    if (s->flags != STINT_SLICE_COMPLETE && !inst)
        return 0;
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD || stint_model_lane_at(m, t->lane)->clock != STINT_CLOCK_HOST)
        return 0;
    if (!m->lean)
        m->lean = stint_xcalloc(1, sizeof *m->lean);
    struct stint_lean *L = m->lean;
    uint32_t pair = pair_of(L, s->cat, s->name);
    if (pair == UINT32_MAX)
        return 0;
    if (inst) { /* (the seq this slice would take: the caller counts it) */
        lane_append(lane_in(&L->ilanes, &L->nilanes, t->lane), s->ts_ns,
                    (uint64_t)(uint32_t)m->seq << PAIR_BITS | pair);
        L->ninst++;
        return 1;
    }
    lane_append(lane_at(L, t->lane), s->ts_ns, (uint64_t)s->dur_ns << PAIR_BITS | pair);
    L->total++;
    return 1;
}

uint32_t stint_model_lean_pair(struct stint_model *m, uint32_t cat, uint32_t name)
{
    if (!(m->flags & STINT_MODEL_LEAN) || (m->flags & STINT_MODEL_KEEP_ARGS))
        return UINT32_MAX;
    if (!m->lean)
        m->lean = stint_xcalloc(1, sizeof *m->lean);
    return pair_of(m->lean, cat, name);
}

void stint_model_lean_put(struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns, uint32_t pair,
                          uint16_t flags)
{
    struct stint_lean *L = m->lean; /* (made by stint_model_lean_pair, which gave pair) */
    L->rec_flags = flags;
    lane_append(lane_at(L, lane), ts_ns, (uint64_t)dur_ns << PAIR_BITS | pair);
    L->total++;
}

/* Records the lane holds so far (all segments). */
static uint64_t lane_count(const struct stint_lean *L, uint32_t lane)
{
    uint64_t n = 0;
    if (lane < L->nlanes)
        for (size_t g = 0; g < L->lanes[lane].nsegs; g++)
            n += L->lanes[lane].segs[g].nrec;
    return n;
}

void stint_i_lean_note(struct stint_model *m, const struct stint_slice *s)
{
    /* (a B/E-less span, STINT_SLICE_BEGIN_END without FROM_B, comes from a
     * marker log or JSONL, whose readers add no complete span and so no
     * record: nothing can tie with it; 16 bytes a span saved) */
    if (!(m->flags & STINT_MODEL_LEAN) || (m->flags & STINT_MODEL_KEEP_ARGS) ||
        (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT | STINT_SLICE_BEGIN_END)))
        return;
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD || stint_model_lane_at(m, t->lane)->clock != STINT_CLOCK_HOST)
        return;
    if (!m->lean)
        m->lean = stint_xcalloc(1, sizeof *m->lean);
    struct stint_lean *L = m->lean;
    L->notes = stint_i_lean_grow(L->notes, &L->ncap, L->nnotes + 1, sizeof *L->notes);
    L->notes[L->nnotes++] = (struct lean_note){s->seq, t->lane, lane_count(L, t->lane)};
}

int stint_i_lean_active(const struct stint_model *m)
{
    return m->lean && m->lean->total;
}

/* Moves the segments of src's lanes sl[0..n) to the lanes lmap names in
 * table *dl of *dn, each record's pair mapped through pmap and, when
 * seq0 is not 0 (instant records: dp holds a seq), its seq moved by seq0. */
static void move_lanes(struct lean_lane **dl, size_t *dn, struct lean_lane *sl, size_t n, const uint32_t *lmap,
                       const uint32_t *pmap, uint32_t seq0)
{
    for (size_t i = 0; i < n; i++) {
        struct lean_lane *s = &sl[i];
        if (!s->nsegs)
            continue;
        struct lean_lane *d = lane_in(dl, dn, lmap[i]);
        for (size_t g = 0; g < s->nsegs; g++) {
            struct lean_pk *r = s->segs[g].r;
            for (size_t k = 0; k < s->segs[g].len; k++)
                if (r[k].toff != BASE_MARK) {
                    uint64_t hi = r[k].dp >> PAIR_BITS;
                    if (seq0)
                        hi = (uint32_t)(hi + seq0);
                    r[k].dp = hi << PAIR_BITS | pmap[r[k].dp & PAIR_MASK];
                }
            segs_room(d);
            d->segs[d->nsegs++] = s->segs[g]; /* moved, not copied */
        }
        s->nsegs = 0;
    }
}

int stint_i_lean_merge(struct stint_model *dst, struct stint_model *src, const uint32_t *smap, const uint32_t *lmap,
                       uint64_t seq0)
{
    struct stint_lean *S = src->lean;
    if (!S || (!S->total && !S->nnotes && !S->ninst))
        return 0;
    if (!dst->lean)
        dst->lean = stint_xcalloc(1, sizeof *dst->lean);
    struct stint_lean *D = dst->lean;
    /* src's notes come after dst's (in seq order), counting dst's records of their lane too */
    for (size_t k = 0; k < S->nnotes; k++) {
        const struct lean_note *x = &S->notes[k];
        D->notes = stint_i_lean_grow(D->notes, &D->ncap, D->nnotes + 1, sizeof *D->notes);
        D->notes[D->nnotes++] =
            (struct lean_note){x->seq + (uint32_t)seq0, lmap[x->lane], x->before + lane_count(D, lmap[x->lane])};
    }
    S->nnotes = 0;
    if (!S->total && !S->ninst)
        return 0;
    uint32_t *pmap = stint_xreallocarray(NULL, S->npairs ? S->npairs : 1, sizeof *pmap);
    int widened = 0;
    for (size_t p = 0; p < S->npairs; p++)
        if ((pmap[p] = pair_of(D, smap[S->pcat[p]], smap[S->pname[p]])) == UINT32_MAX)
            widened = 1;
    if (widened) { /* more distinct pairs than 24 bits across both halves: cannot happen below 16M names */
        free(pmap);
        return -1;
    }
    move_lanes(&D->lanes, &D->nlanes, S->lanes, S->nlanes, lmap, pmap, 0);
    move_lanes(&D->ilanes, &D->nilanes, S->ilanes, S->nilanes, lmap, pmap, (uint32_t)seq0);
    D->total += S->total;
    S->total = 0;
    D->ninst += S->ninst;
    S->ninst = 0;
    free(pmap);
    return 0;
}

void stint_i_lean_free(struct stint_model *m)
{
    struct stint_lean *L = m->lean;
    if (!L)
        return;
    for (size_t i = 0; i < L->nlanes; i++) {
        for (size_t g = 0; g < L->lanes[i].nsegs; g++)
            seg_free(&L->lanes[i].segs[g]);
        free(L->lanes[i].segs);
        stint_hmem_free(L->lanes[i].sorted, L->lanes[i].sorted_bytes);
        stint_hmem_free(L->lanes[i].strays, L->lanes[i].nstrays * sizeof *L->lanes[i].strays);
    }
    free(L->lanes);
    for (size_t i = 0; i < L->nilanes; i++) {
        for (size_t g = 0; g < L->ilanes[i].nsegs; g++)
            seg_free(&L->ilanes[i].segs[g]);
        free(L->ilanes[i].segs);
    }
    free(L->ilanes);
    free(L->pcat);
    free(L->pname);
    stint_umap_free(&L->pairs);
    free(L->notes);
    free(L);
    m->lean = NULL;
}

/* Slices n0.. were added at finish, out of input order: a v2 flow event
 * names its slice by input index (the rank of its seq among the slices,
 * finish's stint_i_input_positions), so each one moves up by the added
 * slices that came before it. */
static void renumber_v2(struct stint_model *m, size_t n0)
{
    size_t na = m->slices.len - n0;
    int64_t *seqs = NULL;
    for (size_t k = 0; k < m->flow_evs.len; k++) {
        struct flow_ev *e = &STINT_BA_AT(&m->flow_evs, struct flow_ev, k);
        if (e->slice >= n0)
            continue;
        if (!seqs) {
            seqs = stint_xreallocarray(NULL, na, sizeof *seqs);
            for (size_t j = 0; j < na; j++)
                seqs[j] = STINT_BA_AT(&m->slices, struct stint_slice, n0 + j).seq;
            stint_sort_i64(seqs, na);
        }
        int64_t s = STINT_BA_AT(&m->slices, struct stint_slice, e->slice).seq;
        size_t lo = 0, hi = na; /* added slices with a smaller seq */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (seqs[mid] < s)
                lo = mid + 1;
            else
                hi = mid;
        }
        e->slice += (uint32_t)lo;
    }
    free(seqs);
}

/* Track t, or nt when t is not below nt. */
static inline size_t track_or(uint32_t t, size_t nt)
{
    return t < nt ? t : nt;
}

void stint_i_lean_finish_begin(struct stint_model *m)
{
    struct stint_lean *L = m->lean;
    if (!L)
        return;
    stint_umap_free(&L->pairs); /* (a million names: 24 MB the walk's tallies can use) */
    memset(L->pcache, 0, sizeof L->pcache);
    if (!L->ilanes)
        return;
    /* by track: whether its instants can matter to anything but their count:
     * a flow event may bind to one; an instant after the end of a B slice
     * cuts the slices still open above it (Perfetto's misplaced end rule),
     * so a track with ordinary slices or E events keeps them too */
    size_t nt = m->tracks.len;
    uint8_t *keep = stint_xcalloc(nt + 1, 1); /* (slot nt: a track out of range) */
    for (size_t k = 0; k < m->flow_evs.len; k++)
        keep[track_or(STINT_BA_AT(&m->flow_evs, struct flow_ev, k).track, nt)] = 1;
    for (size_t k = 0; k < m->ends.len; k++)
        keep[track_or(STINT_BA_AT(&m->ends, struct end_ev, k).track, nt)] = 1;
    for (size_t k = 0; k < m->slices.len; k++)
        keep[track_or(STINT_BA_AT(&m->slices, struct stint_slice, k).track, nt)] = 1;
    size_t n0 = m->slices.len;
    for (size_t i = 0; i < L->nilanes; i++) {
        struct lean_lane *il = &L->ilanes[i];
        uint32_t t = il->nsegs ? stint_model_lane_at(m, (uint32_t)i)->track : STINT_NO_ID;
        if (t < m->tracks.len && keep[t]) {
            struct rec_iter it = rec_iter_at(il);
            struct lean_rec r;
            while (rec_next(&it, &r)) {
                uint32_t p = (uint32_t)(r.dp & PAIR_MASK);
                *(struct stint_slice *)stint_i_xpush(&m->slices) =
                    (struct stint_slice){.ts_ns = r.ts_ns,
                                         .track = t,
                                         .name = L->pname[p],
                                         .cat = L->pcat[p],
                                         .args = STINT_NO_ID,
                                         .parent = STINT_NO_ID,
                                         .seq = (uint32_t)(r.dp >> PAIR_BITS),
                                         .flags = STINT_SLICE_INSTANT};
            }
        }
        for (size_t g = 0; g < il->nsegs; g++)
            seg_free(&il->segs[g]);
        free(il->segs);
    }
    free(L->ilanes);
    L->ilanes = NULL;
    L->nilanes = 0;
    L->ninst = 0;
    free(keep);
    if (m->slices.len > n0)
        renumber_v2(m, n0);
}

/* ---- device work ----------------------------------------------------------------- */

int stint_i_cat_is_device_work(const struct stint_model *m, uint32_t cat)
{
    static const char *const kinds[] = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_ccp_events"};
    size_t n;
    const char *s = cat ? stint_model_str(m, cat, &n) : NULL;
    for (size_t k = 0; s && k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t j = 0, kn = strlen(kinds[k]);
        while (j < n && j < kn && (s[j] >= 'A' && s[j] <= 'Z' ? s[j] + ('a' - 'A') : s[j]) == kinds[k][j])
            j++;
        if (j == n && j == kn)
            return 1;
    }
    return 0;
}

void stint_i_stream_overlap(struct stint_model *m, uint32_t name, int64_t ts, int64_t end, uint32_t prev,
                            int64_t pts, int64_t pend)
{
    stint_model_repair(m, STINT_REPAIR_STREAM_OVERLAP,
                       "device work '%s' [%lld, %lld) ns starts before '%s' [%lld, %lld) ns on its stream ends: "
                       "kept beside it (a queue), not nested",
                       stint_model_str(m, name, NULL), (long long)ts, (long long)end, stint_model_str(m, prev, NULL),
                       (long long)pts, (long long)pend);
}

/* ---- ordering ------------------------------------------------------------------- */

STINT_DEFINE_NEAR_SORT(rec_near_sort, struct lean_rec, rec_before)

int64_t *stint_i_lean_starts(const struct stint_model *m, uint32_t lane, size_t *n)
{
    const struct stint_lean *L = m->lean;
    *n = 0;
    if (!L || lane >= L->nlanes)
        return NULL;
    const struct lean_lane *ll = &L->lanes[lane];
    size_t cnt = ll->nstrays;
    for (size_t g = 0; g < ll->nsegs; g++)
        cnt += ll->segs[g].nrec;
    if (!cnt)
        return NULL;
    int64_t *v = stint_xreallocarray(NULL, cnt, sizeof *v);
    struct rec_iter it = rec_iter_at(ll);
    struct lean_rec r;
    size_t k = 0;
    while (k < cnt && rec_next(&it, &r))
        v[k++] = r.ts_ns;
    for (size_t j = 0; j < ll->nstrays && k < cnt; j++)
        v[k++] = ll->strays[j].ts_ns;
    stint_sort_i64(v, k);
    *n = k;
    return v;
}

/* Puts the lane's records in slice order for its walk: usually they already
 * are. Else, when few are out of place (an eighth at most, by nearsort.h's
 * rule: those below the running maximum of the ones kept), the kept ones
 * are packed forward, each within its segment (with the markers), and the
 * strays taken out into ll->strays and sorted, stably; the walk merges the
 * two, a kept record first on equal keys, which is the stable sort of the
 * input (nearsort.h). No copy of the lane, so two walkers at once need no
 * more memory than one. Otherwise the records are joined into one array of
 * 16 bytes each (the segments freed as they are copied), sorted, and packed
 * back into it in place, 12 bytes each, as one segment that views it
 * (ll->sorted; a new array in the rare case that markers leave no room). */
void stint_i_lean_order(struct lean_lane *ll)
{
    size_t n = 0, ns = 0;
    struct lean_rec mx = {0}, rx;
    int have = 0;
    for (struct rec_iter it = rec_iter_at(ll); rec_next(&it, &rx); n++) {
        if (have && rec_before(&rx, &mx))
            ns++;
        else {
            mx = rx;
            have = 1;
        }
    }
    if (!ns)
        return;
    if (ns <= n / 8) {
        struct lean_rec *st = stint_xcheck(stint_hmem_alloc(ns * sizeof *st));
        struct lean_rec top = {0};
        size_t si = 0;
        have = 0;
        for (size_t g = 0; g < ll->nsegs; g++) {
            struct lean_seg *sg = &ll->segs[g];
            int64_t base = sg->base;
            size_t wk = 0;
            for (size_t k = 0; k < sg->len; k++) {
                if (sg->r[k].toff == BASE_MARK) { /* kept: what follows is kept relative to it */
                    base = (int64_t)sg->r[k].dp;
                    sg->r[wk++] = sg->r[k];
                    continue;
                }
                struct lean_rec r = {base + sg->r[k].toff, sg->r[k].dp};
                if (have && rec_before(&r, &top)) {
                    st[si++] = r;
                    sg->nrec--;
                    continue;
                }
                top = r;
                have = 1;
                sg->r[wk++] = sg->r[k]; /* (wk <= k) */
            }
            sg->len = (uint32_t)wk;
        }
        if (!rec_near_sort(st, ns))
            stint_die_nomem();
        ll->strays = st;
        ll->nstrays = ns;
        return;
    }
    struct lean_rec *one = stint_xcheck(stint_hmem_alloc(n * sizeof *one));
    size_t j = 0;
    for (struct rec_iter it = rec_iter_at(ll); rec_next(&it, &one[j]);)
        j++;
    for (size_t g = 0; g < ll->nsegs; g++)
        seg_free(&ll->segs[g]);
    if (!rec_near_sort(one, n))
        stint_die_nomem();
    /* the slots: a marker before each start 2^31 ns or more after the base
     * (ascending starts); in place when every slot's 12 bytes end before the
     * 16 bytes of the records still to read (the slots of record j, read
     * first, end at 12 (j + markers so far + 1), its own 16 bytes at 16 (j + 1)) */
    size_t nm = 0;
    int in_place = 1;
    const int64_t first = one[0].ts_ns; /* (n >= 2: some record is out of place) */
    int64_t base = first;
    for (j = 0; j < n; j++) {
        if (one[j].ts_ns - base > INT32_MAX) {
            base = one[j].ts_ns;
            nm++;
        }
        if (12 * (j + nm + 1) > 16 * (j + 1))
            in_place = 0;
    }
    size_t slots = n + nm;
    if (slots > UINT32_MAX) /* (a lane of 4G records, 48 GB of them: a view's count is 32-bit) */
        stint_die_nomem();
    size_t bytes = in_place ? n * sizeof *one : slots * sizeof(struct lean_pk);
    char *out = in_place ? (char *)one : stint_xcheck(stint_hmem_alloc(bytes));
    base = first;
    size_t p = 0;
    for (j = 0; j < n; j++) {
        struct lean_rec r;
        memcpy(&r, (const char *)one + j * sizeof r, sizeof r); /* (as bytes: the two views overlap) */
        struct lean_pk x = {BASE_MARK, (uint64_t)r.ts_ns};
        if (r.ts_ns - base > INT32_MAX) {
            memcpy(out + p++ * sizeof x, &x, sizeof x);
            base = r.ts_ns;
        }
        x = (struct lean_pk){(int32_t)(r.ts_ns - base), r.dp};
        memcpy(out + p++ * sizeof x, &x, sizeof x);
    }
    if (!in_place)
        stint_hmem_free(one, n * sizeof *one);
    ll->segs[0] = (struct lean_seg){.r = (struct lean_pk *)(void *)out,
                                    .base = first,
                                    .cur = base,
                                    .len = (uint32_t)p,
                                    .nrec = (uint32_t)n};
    ll->nsegs = 1;
    ll->sorted = out;
    ll->sorted_bytes = bytes;
}

size_t stint_i_lean_count(const struct stint_model *m, uint32_t lane)
{
    return m->lean ? (size_t)lane_count(m->lean, lane) : 0;
}
