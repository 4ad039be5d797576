/* SPDX-License-Identifier: MIT */
/*
 * read_markers_depth.c - the marker reader's call tree from the written
 * depth (read_markers.c's head states the rule): the groups of records, one
 * per (pid, tid, inv, clock), and the links within each.
 *
 * Groups are numbered as they first come (a hash table keyed by the four
 * fields, with the previous record's group tried first: a thread writes an
 * invocation's records together). At the end the groups are put in key
 * order and the records placed group by group, each group's in input order,
 * by a counting pass: no sort over the records, and scratch for the largest
 * group only. The records keep no times: a record's ts and dur are its
 * slice's (m->slices, by input index, before finish), or in a lean read
 * its pending record's (struct stint_mpend).
 *
 * A lean read (summary) then decides per group: one whose depth tree is
 * its nesting in time, as the lean walk would nest it (group_nests), and
 * whose range [first start, last end] meets no other group's on its thread
 * (groups_apart) becomes lean records (12 bytes each, streamed in order at
 * finish: the same events its explicit-parent slices gave); every other
 * group (a torn parent, a child outside its parent, a 0 ns child at its
 * parent's end, invocations that overlap or touch, device records) becomes
 * slices with explicit parents, in input order, linked as before. On a
 * generated log with 0.05% torn records 99.6% of the groups go lean.
 * Memory: a pending record's pages go back as the records are made (and
 * the second half's as it is appended to the first's), and the group
 * order keeps only the slices' groups once the groups are decided, so the
 * peak is the links' 24 bytes a record (record 12, pending 8, group order
 * 4), not that plus the records made (record 12, lean record 12).
 */
#include "read/read_markers_int.h"

#include "base/cmp.h"
#include "base/hash.h"
#include "base/hmem.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t group_hash(uint64_t pid, uint64_t tid, uint64_t inv, uint32_t dev)
{
    return stint_hash_pair(stint_hash_pair(pid, tid), inv * 2 + dev);
}

static int group_is(const struct stint_mgroup *g, uint64_t pid, uint64_t tid, uint64_t inv, uint32_t dev)
{
    return g->pid == pid && g->tid == tid && g->inv == inv && g->dev == dev;
}

/* Doubles the slot table (or makes it) and places every group again. */
static void gslots_grow(struct stint_mctx *c)
{
    size_t n = c->gslots ? c->gslots * 2 : 1024;
    free(c->gslot);
    c->gslot = stint_xcalloc(n, sizeof *c->gslot);
    c->gslots = n;
    for (size_t g = 0; g < c->ngroups; g++) {
        const struct stint_mgroup *x = &c->groups[g];
        size_t s = (size_t)group_hash(x->pid, x->tid, x->inv, x->dev) & (n - 1);
        while (c->gslot[s])
            s = (s + 1) & (n - 1);
        c->gslot[s] = (uint32_t)g + 1;
    }
}

uint32_t stint_i_mgroup(struct stint_mctx *c, uint64_t pid, uint64_t tid, uint64_t inv, uint32_t dev)
{
    if (c->last_gid != UINT32_MAX && group_is(&c->groups[c->last_gid], pid, tid, inv, dev))
        return c->last_gid;
    if (2 * (c->ngroups + 1) > c->gslots)
        gslots_grow(c);
    size_t mask = c->gslots - 1, s = (size_t)group_hash(pid, tid, inv, dev) & mask;
    for (; c->gslot[s]; s = (s + 1) & mask)
        if (group_is(&c->groups[c->gslot[s] - 1], pid, tid, inv, dev))
            return c->last_gid = c->gslot[s] - 1;
    if (c->ngroups == c->gcap)
        c->groups = stint_xgrow(c->groups, &c->gcap, c->ngroups + 1, sizeof *c->groups, 256);
    c->groups[c->ngroups] = (struct stint_mgroup){.pid = pid, .tid = tid, .inv = inv, .dev = dev};
    c->gslot[s] = (uint32_t)c->ngroups + 1;
    return c->last_gid = (uint32_t)c->ngroups++;
}

void stint_i_mctx_append(struct stint_mctx *dst, struct stint_mctx *src, uint32_t slice0)
{
    uint32_t *gmap = stint_xmalloc((src->ngroups ? src->ngroups : 1) * sizeof *gmap);
    for (size_t g = 0; g < src->ngroups; g++) {
        const struct stint_mgroup *x = &src->groups[g];
        gmap[g] = stint_i_mgroup(dst, x->pid, x->tid, x->inv, x->dev);
    }
    stint_i_mrecs_room(dst, dst->nrecs + src->nrecs);
    const size_t step = (size_t)2 << 20; /* (src's pages go back as they are copied: no second copy resident) */
    for (size_t k = 0; k < src->nrecs; k++) {
        struct stint_mrec r = src->recs[k];
        r.idx = dst->lean ? r.idx : r.idx + slice0; /* (a lean read's: a name) */
        r.gid = gmap[r.gid];
        if (dst->lean) /* (dst's pages have their own bases) */
            stint_i_mpend_put(dst, dst->nrecs, stint_i_mpend_ts(src, k), stint_i_mpend_dur(src, k));
        dst->recs[dst->nrecs++] = r;
        if ((k + 1) % (step / sizeof *src->pend) == 0) {
            stint_hmem_release(src->recs, src->rcap * sizeof *src->recs, 0, (k + 1) * sizeof *src->recs);
            if (src->lean)
                stint_hmem_release(src->pend, src->rcap * sizeof *src->pend, 0, (k + 1) * sizeof *src->pend);
        }
    }
    dst->saw_dev |= src->saw_dev;
    dst->last_gid = UINT32_MAX;
    free(gmap);
    stint_i_mctx_free(src);
}

void stint_i_mrecs_room(struct stint_mctx *c, size_t need)
{
    if (need <= c->rcap)
        return;
    size_t nc = c->rcap ? c->rcap : 1024;
    while (nc < need)
        nc *= 2;
    c->recs = stint_xcheck(stint_hmem_realloc(c->recs, c->rcap * sizeof *c->recs, nc * sizeof *c->recs));
    if (c->lean)
        c->pend = stint_xcheck(stint_hmem_realloc(c->pend, c->rcap * sizeof *c->pend, nc * sizeof *c->pend));
    c->rcap = nc;
}

void stint_i_mctx_free(struct stint_mctx *c)
{
    stint_hmem_free(c->recs, c->rcap * sizeof *c->recs);
    if (c->pend)
        stint_hmem_free(c->pend, c->rcap * sizeof *c->pend);
    c->pend = NULL;
    free(c->pbase);
    c->pbase = NULL;
    c->pcap = 0;
    free(c->wts.v);
    free(c->wdur.v);
    c->wts = c->wdur = (struct stint_mwides){0};
    free(c->groups);
    free(c->gslot);
    c->recs = NULL;
    c->groups = NULL;
    c->gslot = NULL;
    c->nrecs = c->rcap = c->ngroups = c->gcap = c->gslots = 0;
}

/* ---- the links ------------------------------------------------------------------------------- */

/* One record of the group being linked, with its slice's times. */
struct lrec {
    int64_t ts, end;
    uint32_t idx, depth;
};

/* Groups by (pid, tid, inv, clock): the order the links are made in (so
 * the first depth_outside_parent named is the same whatever the input's
 * interleaving), a device group right after its host group. */
static int group_cmp(const void *pa, const void *pb)
{
    const struct stint_mgroup *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->inv != b->inv)
        return a->inv < b->inv ? -1 : 1;
    return (a->dev > b->dev) - (a->dev < b->dev);
}

/* The name of the slice at input index idx (before finish). */
static const char *slice_name(const struct stint_model *m, uint32_t idx)
{
    return stint_model_str(m, STINT_BA_AT(&m->slices, struct stint_slice, idx).name, NULL);
}

/* Whether record c lies within record p's [ts, end]. */
static int within(const struct lrec *p, const struct lrec *c)
{
    return c->ts >= p->ts && c->end <= p->end;
}

/* Links one group g[0..n) (one pid, tid, inv and clock, in log order) by
 * depth, each reading into its own array (group positions, UINT32_MAX for
 * none). Post-order (spans written as they end): a record adopts the
 * pending records one level deeper written before it. Parent first: a
 * record's parent is the latest record before it one level up, with no
 * shallower record between. Returns the reading whose links agree with
 * time more often (a parent containing its child), prefer_pre breaking a
 * tie: so a record lost from the log (torn) does not turn a post-order log
 * into a parent-first one; the links it returns are by depth alone, in or
 * out of time. stk: scratch for n. */
static const uint32_t *link_group(const struct lrec *g, uint32_t n, uint32_t *post, uint32_t *pre, uint32_t *stk,
                                  int prefer_pre)
{
    uint32_t sp = 0, npost = 0, npre = 0;
    for (uint32_t k = 0; k < n; k++) {
        post[k] = UINT32_MAX;
        while (sp && g[stk[sp - 1]].depth > g[k].depth) {
            uint32_t j = stk[--sp];
            if (g[j].depth == g[k].depth + 1) {
                post[j] = k;
                npost += (uint32_t)within(&g[k], &g[j]);
            }
        }
        stk[sp++] = k;
    }
    sp = 0;
    for (uint32_t k = 0; k < n; k++) {
        pre[k] = UINT32_MAX;
        while (sp && g[stk[sp - 1]].depth >= g[k].depth)
            sp--;
        if (sp && g[k].depth && g[stk[sp - 1]].depth == g[k].depth - 1) {
            pre[k] = stk[sp - 1];
            npre += (uint32_t)within(&g[pre[k]], &g[k]);
        }
        stk[sp++] = k;
    }
    return npre > npost || (npre == npost && prefer_pre) ? pre : post;
}

int64_t stint_i_mwide(const struct stint_mwides *w, size_t k)
{
    size_t lo = 0, hi = w->n; /* (in record order) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->v[mid].k < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return w->v[lo].v; /* (every MPEND_WIDE has its entry) */
}

/* Appends (k, v) to w (k after every k in it). */
static void mwide_add(struct stint_mwides *w, size_t k, int64_t v)
{
    if (w->n == w->cap)
        w->v = stint_xgrow(w->v, &w->cap, w->n + 1, sizeof *w->v, 16);
    w->v[w->n++] = (struct stint_mwide){k, v};
}

void stint_i_mpend_put(struct stint_mctx *c, size_t k, int64_t ts, int64_t dur)
{
    size_t page = k >> MPEND_PAGE_BITS;
    if (!(k & (MPEND_PAGE - 1))) { /* a page's first record: its base */
        if (page == c->pcap)
            c->pbase = stint_xgrow(c->pbase, &c->pcap, page + 1, sizeof *c->pbase, 16);
        c->pbase[page] = ts;
    }
    int64_t off;
    if (__builtin_sub_overflow(ts, c->pbase[page], &off) || off <= INT32_MIN || off > INT32_MAX) {
        c->pend[k].ts = MPEND_WIDE_TS;
        mwide_add(&c->wts, k, ts);
    } else
        c->pend[k].ts = (int32_t)off;
    if (dur >= 0 && dur < MPEND_WIDE)
        c->pend[k].dur = (uint32_t)dur;
    else {
        c->pend[k].dur = MPEND_WIDE;
        mwide_add(&c->wdur, k, dur);
    }
}

/* The times of record k: its pending record's (a lean read, before the
 * slices are made) or its slice's (m->slices by input index, before
 * finish). */
static inline void rec_times(const struct stint_mctx *c, size_t k, int64_t *ts, int64_t *end)
{
    if (c->pend) {
        *ts = stint_i_mpend_ts(c, k);
        *end = *ts + stint_i_mpend_dur(c, k);
    } else {
        const struct stint_slice *s = &STINT_BA_AT(&c->m->slices, struct stint_slice, c->recs[k].idx);
        *ts = s->ts_ns;
        *end = s->ts_ns + s->dur_ns;
    }
}

/* Sets the host wall of device group d's lane: the longest depth-0 record
 * of host group h (the same pid, thread and inv; its records' input
 * positions hrec[0..hn)). */
static void host_wall(struct stint_model *m, const struct stint_mctx *c, const uint32_t *hrec, size_t hn,
                      const struct stint_mgroup *d)
{
    int64_t wall = 0;
    for (size_t k = 0; k < hn; k++) {
        int64_t ts, end;
        rec_times(c, hrec[k], &ts, &end);
        if (c->recs[hrec[k]].depth == 0 && end - ts > wall)
            wall = end - ts;
    }
    uint32_t lane = stint_model_lane(m, (int64_t)d->pid, (int64_t)d->inv, STINT_CLOCK_DEVICE); /* (it exists) */
    struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, lane);
    if (wall > ln->host_wall_ns)
        ln->host_wall_ns = wall;
}

/* Gives group g's records (lrec g[0..n), in log order) their depth parents
 * and counts the ones outside their parent. */
static void set_links(struct stint_model *m, const struct stint_mgroup *grp, const struct lrec *g, uint32_t n,
                      const uint32_t *up)
{
    for (uint32_t k = 0; k < n; k++) {
        if (up[k] == UINT32_MAX) {
            if (g[k].depth == 0) /* a root, whatever it lies in */
                stint_model_set_parent(m, g[k].idx, STINT_NO_ID);
            continue;
        }
        const struct lrec *p = &g[up[k]];
        stint_model_set_parent(m, g[k].idx, p->idx);
        if (g[k].ts < p->ts || g[k].end > p->end)
            stint_model_repair(m, STINT_REPAIR_DEPTH_OUTSIDE_PARENT,
                               "'%s' (depth %u) [%lld, %lld) ns lies outside its depth parent '%s' [%lld, %lld) ns "
                               "(pid %llu tid %llu inv %llu, %s clock): kept under it, as its depth says",
                               slice_name(m, g[k].idx), (unsigned)g[k].depth, (long long)g[k].ts,
                               (long long)g[k].end, slice_name(m, p->idx), (long long)p->ts, (long long)p->end,
                               (unsigned long long)grp->pid, (unsigned long long)grp->tid,
                               (unsigned long long)grp->inv, grp->dev ? "device" : "host");
    }
}

/* ---- lean records: the groups whose depth tree is their nesting in time ----------------------- */

/* A record of a group in the model's slice order: start, then longer first,
 * then log order (k: its place in the group). */
struct nrec {
    int64_t ts, end;
    uint32_t k;
};

static int nrec_before(const struct nrec *a, const struct nrec *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->end != b->end)
        return a->end > b->end;
    return a->k < b->k;
}

static int nrec_cmp(const void *pa, const void *pb)
{
    const struct nrec *a = pa, *b = pb;
    return nrec_before(a, b) ? -1 : nrec_before(b, a);
}

/* Whether group g[0..n), linked by up, can be lean records: every record is
 * a root (depth 0) or lies within its depth parent, lasts under 2^40 ns (a
 * lean record's limit), and the nesting in time that the lean walk makes
 * (model_lean_walk.c: in slice order, a record under the innermost one not
 * yet ended; one ending where a record starts has ended, unless both last
 * 0 ns) gives every record its depth parent. Then streaming the group as
 * records gives what its slices with explicit parents gave: the same order
 * (a walk of the tree with siblings by start is the slice order when the
 * tree is the nesting), levels and parents. o, stk: scratch for n. */
static int group_nests(const struct lrec *g, uint32_t n, const uint32_t *up, struct nrec *o, uint32_t *stk)
{
    for (uint32_t k = 0; k < n; k++) {
        if (g[k].end - g[k].ts >= ((int64_t)1 << 40))
            return 0;
        if (g[k].depth == 0 ? up[k] != UINT32_MAX : up[k] == UINT32_MAX || !within(&g[up[k]], &g[k]))
            return 0;
        o[k] = (struct nrec){g[k].ts, g[k].end, k};
    }
    if (n <= 32) {
        for (uint32_t i = 1; i < n; i++) {
            struct nrec x = o[i];
            uint32_t j = i;
            for (; j && nrec_before(&x, &o[j - 1]); j--)
                o[j] = o[j - 1];
            o[j] = x;
        }
    } else
        stint_xqsort(o, n, sizeof *o, nrec_cmp);
    uint32_t sn = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct nrec *x = &o[i];
        while (sn) {
            const struct lrec *top = &g[stk[sn - 1]];
            if (top->end < x->ts || (top->end == x->ts && (top->end > top->ts || x->end != x->ts)))
                sn--;
            else
                break;
        }
        if ((sn ? stk[sn - 1] : UINT32_MAX) != up[x->k])
            return 0;
        stk[sn++] = x->k;
    }
    return 1;
}

/* A group's place on its lane: [lo, hi] from its first start to its last end. */
struct gspan {
    int64_t lo, hi;
    uint32_t lane, r;
};

static int gspan_cmp(const void *pa, const void *pb)
{
    const struct gspan *a = pa, *b = pb;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return (a->r > b->r) - (a->r < b->r);
}

/* Clears lean[r] of every group whose span meets another group's on its
 * lane (touching included): there the lean walk, which nests by time, could
 * nest one group in the other, where their slices stayed apart. sp[0..ng):
 * sorted here. */
static void groups_apart(struct gspan *sp, size_t ng, uint8_t *lean)
{
    stint_xqsort(sp, ng, sizeof *sp, gspan_cmp);
    for (size_t a = 0, b; a < ng; a = b) {
        for (b = a + 1; b < ng && sp[b].lane == sp[a].lane; b++)
            ;
        int64_t hi = INT64_MIN;
        for (size_t i = a; i < b; i++) { /* one that meets an earlier one */
            if (i > a && sp[i].lo <= hi)
                lean[sp[i].r] = 0;
            hi = sp[i].hi > hi ? sp[i].hi : hi;
        }
        for (size_t i = a; i + 1 < b; i++) /* one that meets a later one (the next starts first) */
            if (sp[i].hi >= sp[i + 1].lo)
                lean[sp[i].r] = 0;
    }
}

/* Fills g[0..gn) with the group's records (input positions gp), their
 * times and their idx. */
static void group_fill(const struct stint_mctx *c, const uint32_t *gp, uint32_t gn, size_t left, struct lrec *g)
{
    const struct stint_model *m = c->m;
    for (uint32_t k = 0; k < gn; k++) {
        /* the group's records lie apart in the log (its thread's lines
         * between other threads'): records fetched 16 ahead, their
         * times 8 ahead */
        if (k + 16 < left)
            __builtin_prefetch(&c->recs[gp[k + 16]]);
        if (k + 8 < left) {
            if (c->pend)
                __builtin_prefetch(&c->pend[gp[k + 8]]);
            else
                __builtin_prefetch(&STINT_BA_AT(&m->slices, struct stint_slice, c->recs[gp[k + 8]].idx));
        }
        const struct stint_mrec *x = &c->recs[gp[k]];
        int64_t ts, end;
        rec_times(c, gp[k], &ts, &end);
        g[k] = (struct lrec){.ts = ts, .end = end, .idx = x->idx, .depth = x->depth};
    }
}

/* A lean read's end: the groups that nest (group_nests) and lie apart from
 * the others on their lane (groups_apart) become lean records, the others
 * slices, both in input order; then those slices are linked as
 * stint_i_markers_link_depth says. lean[r]: whether the group of rank r
 * nests (cleared here where it does not lie apart); the rest as there;
 * start and pos come back holding the slices' groups only. */
static void lean_end(struct stint_mctx *c, const struct stint_mgroup *ord, size_t *start, uint32_t *pos,
                     const uint32_t *rank, uint8_t *lean, struct lrec *g, uint32_t *post, uint32_t *pre,
                     uint32_t *stk)
{
    struct stint_model *m = c->m;
    size_t n = c->nrecs, ng = c->ngroups;
    struct gspan *sp = stint_xmalloc(ng * sizeof *sp);
    uint32_t *lane = stint_xmalloc(ng * sizeof *lane); /* by rank: a host thread's, or a device invocation's */
    for (size_t r = 0; r < ng; r++) {
        const uint32_t *gp = pos + start[r];
        const struct stint_mgroup *x = &ord[r];
        lane[r] = stint_model_lane(m, (int64_t)x->pid, (int64_t)(x->dev ? x->inv : x->tid),
                                   x->dev ? STINT_CLOCK_DEVICE : STINT_CLOCK_HOST); /* (it exists) */
        sp[r] = (struct gspan){INT64_MAX, INT64_MIN, lane[r], (uint32_t)r};
        for (size_t k = 0; k < start[r + 1] - start[r]; k++) {
            int64_t ts, end;
            rec_times(c, gp[k], &ts, &end);
            sp[r].lo = ts < sp[r].lo ? ts : sp[r].lo;
            sp[r].hi = end > sp[r].hi ? end : sp[r].hi;
        }
    }
    groups_apart(sp, ng, lean);
    free(sp);
    /* only the slices' groups keep their positions (moved to the front,
     * start[r] to start[r + 1] - 1 now theirs): the rest of pos goes back
     * before the lean records are made, so the peak stays the links' */
    size_t kept = 0;
    for (size_t r = 0; r < ng; r++) {
        size_t a = start[r], b = start[r + 1];
        start[r] = kept;
        if (!lean[r]) {
            memmove(pos + kept, pos + a, (b - a) * sizeof *pos);
            kept += b - a;
        }
    }
    start[ng] = kept;
    stint_hmem_release(pos, n * sizeof *pos, kept * sizeof *pos, n * sizeof *pos);
    if (getenv("STINT_DEBUG_LEAN")) { /* for tests: what the groups became */
        size_t nl = 0;
        for (size_t r = 0; r < ng; r++)
            nl += lean[r];
        fprintf(stderr, "stint: markers: %zu of %zu groups as lean records\n", nl, ng);
    }
    const uint16_t flags = STINT_SLICE_BEGIN_END | STINT_SLICE_EXPLICIT_PARENT; /* (as their slices would be) */
    const size_t step = ((size_t)2 << 20) / sizeof *c->pend; /* (their pages go back as they are read) */
    /* a slice takes its record's input order as its seq, and a lean record's goes to
     * seq_fn: the two stay comparable (seqs need only be distinct and in input order) */
    uint64_t seq0 = m->seq;
    for (size_t k = 0; k < n; k++) {
        uint32_t r = rank[c->recs[k].gid];
        if (lean[r]) {
            int64_t ts = stint_i_mpend_ts(c, k), dur = stint_i_mpend_dur(c, k);
            stint_model_lean_put(m, lane[r], ts, dur, stint_model_lean_pair(m, 0, c->recs[k].idx), flags);
            if (c->seq_fn)
                c->seq_fn(c->seq_ctx, m, lane[r], ts, dur, c->recs[k].idx, (uint32_t)(seq0 + k));
        } else {
            m->seq = seq0 + k;
            c->recs[k].idx = stint_i_markers_slice(c, k, lane[r]);
        }
        if ((k + 1) % step == 0)
            stint_hmem_release(c->pend, c->rcap * sizeof *c->pend, 0, (k + 1) * sizeof *c->pend);
    }
    m->seq = seq0 + n;
    free(lane);
    stint_hmem_free(c->pend, c->rcap * sizeof *c->pend); /* (the slices' times are theirs now) */
    c->pend = NULL;
    for (size_t r = 0; r < ng; r++) {
        if (lean[r])
            continue;
        uint32_t gn = (uint32_t)(start[r + 1] - start[r]);
        group_fill(c, pos + start[r], gn, kept - start[r], g);
        set_links(m, &ord[r], g, gn, link_group(g, gn, post, pre, stk, (int)ord[r].dev));
    }
}

void stint_i_markers_link_depth(struct stint_mctx *c)
{
    struct stint_model *m = c->m;
    size_t n = c->nrecs, ng = c->ngroups;
    if (!n)
        return;
    /* the groups in key order (sorted copies, each carrying its gid in n) */
    struct stint_mgroup *ord = stint_xmalloc(ng * sizeof *ord);
    for (size_t g = 0; g < ng; g++) {
        ord[g] = c->groups[g];
        ord[g].n = (uint32_t)g;
    }
    stint_xqsort(ord, ng, sizeof *ord, group_cmp);
    /* start[rank]: where the group's records begin in pos (counting pass) */
    uint32_t *rank = stint_xmalloc(ng * sizeof *rank);
    size_t *start = stint_xcalloc(ng + 1, sizeof *start);
    for (size_t r = 0; r < ng; r++)
        rank[ord[r].n] = (uint32_t)r;
    for (size_t k = 0; k < n; k++)
        start[rank[c->recs[k].gid] + 1]++;
    size_t most = 0;
    for (size_t r = 0; r < ng; r++) {
        most = start[r + 1] > most ? start[r + 1] : most;
        start[r + 1] += start[r];
    }
    uint32_t *pos = stint_xcheck(stint_hmem_alloc(n * sizeof *pos)); /* (hmem: as recs) */
    {
        size_t *at = stint_xmalloc((ng ? ng : 1) * sizeof *at);
        memcpy(at, start, ng * sizeof *at);
        for (size_t k = 0; k < n; k++)
            pos[at[rank[c->recs[k].gid]]++] = (uint32_t)k;
        free(at);
    }
    struct lrec *g = stint_xmalloc(most * sizeof *g);
    uint32_t *post = stint_xmalloc(most * sizeof *post), *pre = stint_xmalloc(most * sizeof *pre);
    uint32_t *stk = stint_xmalloc(most * sizeof *stk);
    uint8_t *lean = c->lean ? stint_xcalloc(ng, 1) : NULL;
    struct nrec *o = c->lean ? stint_xmalloc(most * sizeof *o) : NULL;
    for (size_t r = 0; r < ng; r++) {
        const struct stint_mgroup *grp = &ord[r];
        uint32_t gn = (uint32_t)(start[r + 1] - start[r]);
        group_fill(c, pos + start[r], gn, n - start[r], g);
        if (grp->dev && r && !ord[r - 1].dev && ord[r - 1].pid == grp->pid && ord[r - 1].tid == grp->tid &&
            ord[r - 1].inv == grp->inv) /* the host side of the invocation */
            host_wall(m, c, pos + start[r - 1], start[r] - start[r - 1], grp);
        const uint32_t *up = link_group(g, gn, post, pre, stk, (int)grp->dev);
        if (!lean)
            set_links(m, grp, g, gn, up);
        else if (!grp->dev && group_nests(g, gn, up, o, stk)) {
            lean[r] = 1; /* (when every name has its record pair) */
            for (uint32_t k = 0; k < gn && lean[r]; k++)
                lean[r] = stint_model_lean_pair(m, 0, c->recs[pos[start[r] + k]].idx) != UINT32_MAX;
        }
    }
    if (lean)
        lean_end(c, ord, start, pos, rank, lean, g, post, pre, stk);
    free(lean);
    free(o);
    free(rank);
    free(g);
    free(post);
    free(pre);
    free(stk);
    stint_hmem_free(pos, n * sizeof *pos);
    free(start);
    free(ord);
}
