/*
 * model_lean.c - lean mode (model.h): complete spans on host thread tracks
 * kept as 12-byte records per lane instead of 64-byte slices, and the finish
 * pass that nests them together with the ordinary slices and streams every
 * thread-track slice to the span sink.
 *
 * A record is (start ns, duration ns << 24 | pair), where pair indexes a
 * table of (cat, name) string-id pairs; in a lane it is kept in 12 bytes, its
 * start as a signed 32-bit offset from the current base of its segment.
 * A record whose start lies 2^31 ns (2.1 s) or more from that base is
 * preceded by a marker in the segment (12 bytes too) that makes its start
 * the base from there on. Records are appended per lane in input order,
 * into segments of 64 KiB at most; a reader part merged in later (two-thread
 * parse) adds its segments to the same lane, so merging copies nothing.
 * At finish each lane is checked for order (start ascending, longer first at
 * equal start: the model's slice order) and sorted only when needed, walked
 * once, streamed, and freed before the next lane, so the records' memory
 * goes down while the consumer's grows.
 *
 * The nesting walk applies the rule of stint_model_finish() (model.h) with
 * every duration already known (B/E pairs were matched before): a slice
 * nests under the innermost open one that has not ended before it, and one
 * that ends after its parent is counted as STINT_REPAIR_OVERLAP with the
 * message finish() uses. Flow events (v1) on the track are bound against the
 * same stack, as finish() binds them against parent chains.
 */
#include "base/intervals.h"
#include "model/model_int.h"
#include "base/nearsort.h"
#include "base/selftrace.h"
#include "base/umap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_BITS 24
#define PAIR_MASK ((UINT64_C(1) << PAIR_BITS) - 1)
#define DUR_MAX ((int64_t)((UINT64_C(1) << (64 - PAIR_BITS)) - 1))

/* A record as the ordering and the walk see it (16 bytes). */
struct lean_rec {
    int64_t ts_ns;
    uint64_t dp; /* dur_ns << PAIR_BITS | pair */
};

/* A record as a segment keeps it (12 bytes): its start from the current
 * base; or a marker (toff BASE_MARK) whose dp is the new base. */
struct lean_pk {
    int32_t toff;
    uint64_t dp;
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct lean_pk) == 12, "a kept record takes 12 bytes");
#define BASE_MARK INT32_MIN

/* A lane's segment: records and markers (slots) in input order, or, after a
 * full sort, in slice order in the sorted array (which owns the memory: cap
 * 0). Its memory is a block of cap * 12 bytes, caps chosen so that blocks
 * are powers of two (hmem.h's shared blocks are): 256 bytes to 64 KiB. */
struct lean_seg {
    struct lean_pk *r;
    int64_t base;      /* of slot 0 */
    int64_t cur;       /* the base of the next slot appended */
    size_t len;        /* slots */
    size_t nrec;       /* records (slots but markers) */
    uint32_t cap;      /* slots the block holds (0: a view) */
};

#define SEG_MAX_BYTES ((size_t)64 << 10)
#define SEG_FIRST_BYTES ((size_t)256)

struct lean_lane {
    struct lean_seg *segs;
    size_t nsegs, cap;
    /* during its walk (lane_order): the records taken out of the segments
     * to put them in order, sorted (hmem.h), to be merged back as it goes */
    struct lean_rec *strays;
    size_t nstrays;
    /* after a full sort: the sorted array the segments are views of */
    void *sorted;
    size_t sorted_bytes;
};

struct lean_frame {
    int64_t ts_ns, dur_ns;
    uint32_t name;
    uint16_t flags;
};

/* An ordinary slice on a host thread track in lean mode (stint_i_lean_note):
 * which one (seq), and how many records its lane held when it came. */
struct lean_note {
    uint32_t seq, lane;
    uint64_t before;
};

struct lean_overlap { /* a B/E-related overlap, reported after its track (as finish() does) */
    int64_t ts_ns, end_ns;
    uint32_t name, parent_name;
};

struct stint_lean {
    struct lean_lane *lanes;
    size_t nlanes;
    uint32_t *pcat, *pname; /* by pair */
    size_t npairs, pcap;
    struct stint_umap pairs; /* (cat << 32 | name) -> pair */
    struct pcache_ent {     /* a direct-mapped cache in front of the hash */
        uint64_t key;
        uint32_t pair1;     /* pair + 1, 0 = empty */
    } pcache[1024];
    size_t total;
    struct lean_note *notes; /* in seq order */
    size_t nnotes, ncap;
};

static void die_oom(void)
{
    fprintf(stderr, "stint: out of memory\n");
    exit(3);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(p, nc * elem);
    if (!q)
        die_oom();
    *cap = nc;
    return q;
}

static inline int64_t rec_dur(const struct lean_rec *r) { return (int64_t)(r->dp >> PAIR_BITS); }

/* The pair index of (cat, name), made on first use; UINT32_MAX when the
 * table is full (the span then stays an ordinary slice). */
static uint32_t pair_of(struct stint_lean *L, uint32_t cat, uint32_t name)
{
    uint64_t key = (uint64_t)cat << 32 | name;
    struct pcache_ent *ce = &L->pcache[(key * 0x9e3779b97f4a7c15ULL) >> 54];
    if (ce->pair1 && ce->key == key)
        return ce->pair1 - 1;
    if (L->npairs > PAIR_MASK) /* (a lookup could still hit, but the table is done growing) */
        return UINT32_MAX;
    int isnew;
    uint32_t p = stint_umap_get(&L->pairs, key, (uint32_t)L->npairs, &isnew);
    if (isnew) {
        size_t old_cap = L->pcap;
        L->pcat = grow(L->pcat, &L->pcap, L->npairs + 1, sizeof *L->pcat);
        if (L->pcap != old_cap) { /* pname follows pcat's capacity, resized only when it grew */
            L->pname = realloc(L->pname, L->pcap * sizeof *L->pname);
            if (!L->pname)
                die_oom();
        }
        L->npairs++;
        L->pcat[p] = cat;
        L->pname[p] = name;
    }
    ce->key = key;
    ce->pair1 = p + 1;
    return p;
}

/* The bytes of a segment of cap records (its block). */
static inline size_t seg_bytes(uint32_t cap) { return (size_t)cap * sizeof(struct lean_pk); }

static void seg_free(struct lean_seg *sg)
{
    if (sg->cap)
        stint_hmem_free(sg->r, seg_bytes(sg->cap));
    sg->r = NULL;
    sg->len = sg->nrec = 0;
    sg->cap = 0;
}

/* The lane's entry (the table grows when lane is new). */
static inline struct lean_lane *lane_at(struct stint_lean *L, uint32_t lane)
{
    if (lane >= L->nlanes) {
        size_t n = L->nlanes ? L->nlanes : 8;
        while (n <= lane)
            n *= 2;
        struct lean_lane *nl = realloc(L->lanes, n * sizeof *nl);
        if (!nl)
            die_oom();
        memset(nl + L->nlanes, 0, (n - L->nlanes) * sizeof *nl);
        L->lanes = nl;
        L->nlanes = n;
    }
    return &L->lanes[lane];
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
    sg->r = stint_hmem_realloc(sg->r, old, seg_bytes(cap));
    if (!sg->r)
        die_oom();
    sg->cap = cap;
    return 1;
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
        ll->segs = grow(ll->segs, &ll->cap, ll->nsegs + 1, sizeof *ll->segs);
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
    if (!(m->flags & STINT_MODEL_LEAN) || (m->flags & STINT_MODEL_KEEP_ARGS) || s->flags != STINT_SLICE_COMPLETE ||
        s->dur_ns < 0 || s->dur_ns > DUR_MAX)
        return 0;
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD || stint_model_lane_at(m, t->lane)->clock != STINT_CLOCK_HOST)
        return 0;
    if (!m->lean && !(m->lean = calloc(1, sizeof *m->lean)))
        die_oom();
    struct stint_lean *L = m->lean;
    uint32_t pair = pair_of(L, s->cat, s->name);
    if (pair == UINT32_MAX)
        return 0;
    lane_append(lane_at(L, t->lane), s->ts_ns, (uint64_t)s->dur_ns << PAIR_BITS | pair);
    L->total++;
    return 1;
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
    if (!(m->flags & STINT_MODEL_LEAN) || (m->flags & STINT_MODEL_KEEP_ARGS) ||
        (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)))
        return;
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD || stint_model_lane_at(m, t->lane)->clock != STINT_CLOCK_HOST)
        return;
    if (!m->lean && !(m->lean = calloc(1, sizeof *m->lean)))
        die_oom();
    struct stint_lean *L = m->lean;
    L->notes = grow(L->notes, &L->ncap, L->nnotes + 1, sizeof *L->notes);
    L->notes[L->nnotes++] = (struct lean_note){s->seq, t->lane, lane_count(L, t->lane)};
}

int stint_i_lean_active(const struct stint_model *m)
{
    return m->lean && m->lean->total;
}

int stint_i_lean_merge(struct stint_model *dst, struct stint_model *src, const uint32_t *smap, const uint32_t *lmap,
                       uint64_t seq0)
{
    struct stint_lean *S = src->lean;
    if (!S || (!S->total && !S->nnotes))
        return 0;
    if (!dst->lean && !(dst->lean = calloc(1, sizeof *dst->lean)))
        return -1;
    struct stint_lean *D = dst->lean;
    /* src's notes come after dst's (in seq order), counting dst's records of their lane too */
    for (size_t k = 0; k < S->nnotes; k++) {
        const struct lean_note *x = &S->notes[k];
        D->notes = grow(D->notes, &D->ncap, D->nnotes + 1, sizeof *D->notes);
        D->notes[D->nnotes++] =
            (struct lean_note){x->seq + (uint32_t)seq0, lmap[x->lane], x->before + lane_count(D, lmap[x->lane])};
    }
    S->nnotes = 0;
    if (!S->total)
        return 0;
    uint32_t *pmap = malloc((S->npairs ? S->npairs : 1) * sizeof *pmap);
    if (!pmap)
        return -1;
    int widened = 0;
    for (size_t p = 0; p < S->npairs; p++)
        if ((pmap[p] = pair_of(D, smap[S->pcat[p]], smap[S->pname[p]])) == UINT32_MAX)
            widened = 1;
    if (widened) { /* more distinct pairs than 24 bits across both halves: cannot happen below 16M names */
        free(pmap);
        return -1;
    }
    for (size_t i = 0; i < S->nlanes; i++) {
        struct lean_lane *sl = &S->lanes[i];
        if (!sl->nsegs)
            continue;
        struct lean_lane *dl = lane_at(D, lmap[i]);
        for (size_t g = 0; g < sl->nsegs; g++) {
            struct lean_pk *r = sl->segs[g].r;
            for (size_t k = 0; k < sl->segs[g].len; k++)
                if (r[k].toff != BASE_MARK)
                    r[k].dp = (r[k].dp & ~PAIR_MASK) | pmap[r[k].dp & PAIR_MASK];
            dl->segs = grow(dl->segs, &dl->cap, dl->nsegs + 1, sizeof *dl->segs);
            dl->segs[dl->nsegs++] = sl->segs[g]; /* moved, not copied */
        }
        sl->nsegs = 0;
    }
    D->total += S->total;
    S->total = 0;
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
    free(L->pcat);
    free(L->pname);
    stint_umap_free(&L->pairs);
    free(L->notes);
    free(L);
    m->lean = NULL;
}

/* ---- ordering ------------------------------------------------------------------- */

/* The model's slice order among lean records: start, then longer first. */
static inline int rec_before(const struct lean_rec *a, const struct lean_rec *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : rec_dur(a) > rec_dur(b);
}

STINT_DEFINE_NEAR_SORT(rec_near_sort, struct lean_rec, rec_before)

/* The lane's records in input order, markers applied: rec_next gives the
 * next one (1) or says there is none left (0). */
struct rec_iter {
    const struct lean_lane *ll;
    size_t g, k;
    int64_t base;
};

static inline struct rec_iter rec_iter_at(const struct lean_lane *ll)
{
    return (struct rec_iter){ll, 0, 0, ll->nsegs ? ll->segs[0].base : 0};
}

static inline int rec_next(struct rec_iter *it, struct lean_rec *r)
{
    for (;;) {
        if (it->g == it->ll->nsegs)
            return 0;
        const struct lean_seg *sg = &it->ll->segs[it->g];
        if (it->k == sg->len) {
            if (++it->g < it->ll->nsegs)
                it->base = it->ll->segs[it->g].base;
            it->k = 0;
            continue;
        }
        const struct lean_pk *x = &sg->r[it->k++];
        if (x->toff == BASE_MARK) {
            it->base = (int64_t)x->dp;
            continue;
        }
        *r = (struct lean_rec){it->base + x->toff, x->dp};
        return 1;
    }
}

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
    int64_t *v = malloc(cnt * sizeof *v);
    if (!v)
        die_oom();
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
static void lane_order(struct lean_lane *ll)
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
        struct lean_rec *st = stint_hmem_alloc(ns * sizeof *st);
        if (!st)
            die_oom();
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
            sg->len = wk;
        }
        if (!rec_near_sort(st, ns))
            die_oom();
        ll->strays = st;
        ll->nstrays = ns;
        return;
    }
    struct lean_rec *one = stint_hmem_alloc(n * sizeof *one);
    if (!one)
        die_oom();
    size_t j = 0;
    for (struct rec_iter it = rec_iter_at(ll); rec_next(&it, &one[j]);)
        j++;
    for (size_t g = 0; g < ll->nsegs; g++)
        seg_free(&ll->segs[g]);
    if (!rec_near_sort(one, n))
        die_oom();
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
    size_t slots = n + nm, bytes = in_place ? n * sizeof *one : slots * sizeof(struct lean_pk);
    char *out = in_place ? (char *)one : stint_hmem_alloc(bytes);
    if (!out)
        die_oom();
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
                                    .len = p,
                                    .nrec = n};
    ll->nsegs = 1;
    ll->sorted = out;
    ll->sorted_bytes = bytes;
}

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
        w = grow(w, &wcap, nw + 1, sizeof *w);
        w[nw++] = (struct want){sl[i].ts_ns, sl[i].dur_ns, L->notes[lo].before, i - a};
    }
    if (!nw)
        return NULL;
    /* by (ts, dur): a record finds its slices by binary search */
    qsort(w, nw, sizeof *w, want_cmp);
    uint32_t *c = calloc(b - a, sizeof *c);
    if (!c)
        die_oom();
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

size_t stint_i_lean_count(const struct stint_model *m, uint32_t lane)
{
    const struct stint_lean *L = m->lean;
    size_t n = 0;
    if (L && lane < L->nlanes)
        for (size_t g = 0; g < L->lanes[lane].nsegs; g++)
            n += L->lanes[lane].segs[g].nrec;
    return n;
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
                         .flags = STINT_SLICE_COMPLETE};
}

/* One step of the track walk for the next slice or record x, with sn
 * frames open: closes the frames that ended before it, counts it if it ends
 * after its parent, streams it and opens its frame. Returns the frames open
 * now. */
static inline __attribute__((always_inline)) size_t walk_item(struct stint_model *m, struct stint_i_walker *w,
                                                              uint32_t t, uint32_t lane, const struct item *x,
                                                              size_t sn)
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
                w->ovl = grow(w->ovl, &w->ocap, w->novl + 1, sizeof *w->ovl);
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
        w->frames = grow(w->frames, &w->fcap, sn + 1, sizeof *w->frames);
    w->frames[sn++] = (struct lean_frame){x->ts_ns, x->dur_ns, x->name, x->flags};
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
        lane_order(ll);
    SELF_END(ord);
    /* records of the last start and duration taken, for the ties */
    int64_t tie_ts = 0, tie_dur = -1;
    uint32_t tie_taken = 0;
    const struct stint_slice *sl = m->slices.data;
    size_t g = 0, k = 0, i = a, fi = 0, sn = 0, si = 0, nst = ll ? ll->nstrays : 0;
    const struct lean_rec *strays = ll ? ll->strays : NULL;
    int64_t last_ts = 0;
    int any = 0;
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
                sn = walk_item(m, w, t, lane, &x, sn);
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
        sn = walk_item(m, w, t, lane, &x, sn);
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
    qsort(w, k, sizeof *w, begin_cmp);
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

void stint_i_stream_finished(struct stint_model *m)
{
    SELF_SCOPE("stream slices");
    size_t n = stint_model_nslices(m), sn = 0, cap = 0;
    uint32_t *stack = NULL, cur = STINT_NO_ID;
    struct walk_slot *w = NULL;
    size_t wcap = 0, a = 0, b = 0;
    int walk = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = j;
        if (j >= b) { /* a new track: [a, b) */
            a = j;
            uint32_t tr = stint_model_slice(m, j)->track;
            int any = stint_model_slice(m, j)->flags & STINT_SLICE_EXPLICIT_PARENT;
            for (b = j + 1; b < n && stint_model_slice(m, b)->track == tr; b++)
                any |= stint_model_slice(m, b)->flags & STINT_SLICE_EXPLICIT_PARENT;
            /* (time nesting: model order is already its walk) */
            walk = any && stint_model_track_at(m, tr)->kind == STINT_TRACK_THREAD &&
                   explicit_walk(m, a, b, w = grow(w, &wcap, b - a, sizeof *w));
        }
        if (walk)
            i = a + w[j - a].order;
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD)
            continue;
        if (s->track != cur) {
            sn = 0;
            cur = s->track;
        }
        while (sn && !is_ancestor(m, stack[sn - 1], s))
            sn--;
        struct stint_span_ev ev = {.ts_ns = s->ts_ns,
                                   .dur_ns = s->dur_ns,
                                   .track = s->track,
                                   .lane = t->lane,
                                   .cat = s->cat,
                                   .name = s->name,
                                   .level = (uint32_t)sn,
                                   .flags = s->flags,
                                   .parent_on_top = sn && stack[sn - 1] == s->parent,
                                   .slice1 = s->flags & STINT_SLICE_EXPLICIT_PARENT ? (uint32_t)i + 1 : 0,
                                   .seq = s->seq};
        m->span_sink(m->span_sink_ctx, m, &ev);
        stack = grow(stack, &cap, sn + 1, sizeof *stack);
        stack[sn++] = (uint32_t)i;
    }
    free(stack);
    free(w);
}
