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
 * slice's (m->slices, by input index, before finish).
 */
#include "read/read_markers_int.h"

#include "base/cmp.h"
#include "base/hash.h"
#include "base/hmem.h"
#include "base/xalloc.h"

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
    for (size_t k = 0; k < src->nrecs; k++) {
        struct stint_mrec r = src->recs[k];
        r.idx += slice0;
        r.gid = gmap[r.gid];
        dst->recs[dst->nrecs++] = r;
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
    c->rcap = nc;
}

void stint_i_mctx_free(struct stint_mctx *c)
{
    stint_hmem_free(c->recs, c->rcap * sizeof *c->recs);
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

/* Sets the host wall of device group d's lane: the longest depth-0 record
 * of host group h (the same pid, thread and inv; its records' input
 * positions hrec[0..hn)). */
static void host_wall(struct stint_model *m, const struct stint_mctx *c, const uint32_t *hrec, size_t hn,
                      const struct stint_mgroup *d)
{
    int64_t wall = 0;
    for (size_t k = 0; k < hn; k++) {
        const struct stint_mrec *r = &c->recs[hrec[k]];
        const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, r->idx);
        if (r->depth == 0 && s->dur_ns > wall)
            wall = s->dur_ns;
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
    free(rank);
    struct lrec *g = stint_xmalloc(most * sizeof *g);
    uint32_t *post = stint_xmalloc(most * sizeof *post), *pre = stint_xmalloc(most * sizeof *pre);
    uint32_t *stk = stint_xmalloc(most * sizeof *stk);
    for (size_t r = 0; r < ng; r++) {
        const struct stint_mgroup *grp = &ord[r];
        uint32_t gn = (uint32_t)(start[r + 1] - start[r]);
        const uint32_t *gp = pos + start[r];
        for (uint32_t k = 0; k < gn; k++) {
            /* the group's records lie apart in the log (its thread's lines
             * between other threads'): records fetched 16 ahead, their
             * slices 8 ahead */
            if (start[r] + k + 16 < n)
                __builtin_prefetch(&c->recs[gp[k + 16]]);
            if (start[r] + k + 8 < n)
                __builtin_prefetch(&STINT_BA_AT(&m->slices, struct stint_slice, c->recs[gp[k + 8]].idx));
            const struct stint_mrec *x = &c->recs[gp[k]];
            const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, x->idx);
            g[k] = (struct lrec){.ts = s->ts_ns, .end = s->ts_ns + s->dur_ns, .idx = x->idx, .depth = x->depth};
        }
        if (grp->dev && r && !ord[r - 1].dev && ord[r - 1].pid == grp->pid && ord[r - 1].tid == grp->tid &&
            ord[r - 1].inv == grp->inv) /* the host side of the invocation */
            host_wall(m, c, pos + start[r - 1], start[r] - start[r - 1], grp);
        const uint32_t *up = link_group(g, gn, post, pre, stk, (int)grp->dev);
        set_links(m, grp, g, gn, up);
    }
    free(g);
    free(post);
    free(pre);
    free(stk);
    stint_hmem_free(pos, n * sizeof *pos);
    free(start);
    free(ord);
}
