/* SPDX-License-Identifier: MIT */
/*
 * report_tree.c - the report's call tree from a lean model's span stream,
 * kept compact (report_tree.h): per distinct call path 32 bytes (parent,
 * name, calls, total, self) and a hash slot, where the analysis's tree
 * (stint_tree_sink) keeps ~80 bytes a node plus every span's duration,
 * which the flame graph never reads. At the end only the flame graph's
 * widest paths become a stint_calltree.
 *
 * Invariants: the nodes, their ids (first-seen order), calls, totals and
 * self times are stint_tree_sink's on the same stream (the same rules:
 * instants make no node, unfinished spans lend their names, a child covers
 * its parent's time clipped to it, sums saturate); the kept set is
 * report_html.c's: the keep widest by (total, shallower, first made), which
 * holds every kept node's parent (a parent is never narrower).
 */
#include "write/report_tree.h"

#include "base/hash.h"
#include "base/intervals.h"
#include "base/tsparse.h"
#include "base/xalloc.h"
#include "write/report_trim.h"

#include <stdlib.h>
#include <string.h>

struct rnode {
    uint32_t parent, name;
    uint64_t calls;
    int64_t total_ns, self_ns;
};

struct rframe {
    uint32_t node;
    int agg; /* an aggregated span: its self time goes to node */
    int64_t ts_ns, dur_ns;
    struct stint_union_acc kids;
};

/* A recent (parent, name) -> node lookup: siblings recur, and the table's
 * slots and nodes are cache misses at a million paths. */
struct rcache {
    uint32_t parent, name, node;
};
enum { RCACHE_BITS = 14 };

struct stint_report_tree {
    struct rcache cache[1u << RCACHE_BITS];
    struct rnode *n;
    size_t nn, ncap;
    uint32_t *tab; /* (parent, name) -> node, linear probing */
    size_t tabcap;
    struct rframe *fr;
    size_t sn, fcap;
    uint32_t track;
    uint64_t spans, instants, unfinished;
    int explicit_parent;
};

static size_t slot(const struct stint_report_tree *t, uint32_t parent, uint32_t name)
{
    size_t h = (size_t)stint_hash_pair(parent, name) & (t->tabcap - 1);
    for (; t->tab[h] != STINT_NO_ID; h = (h + 1) & (t->tabcap - 1))
        if (t->n[t->tab[h]].parent == parent && t->n[t->tab[h]].name == name)
            break;
    return h;
}

static void tab_grow(struct stint_report_tree *t)
{
    free(t->tab);
    t->tabcap = t->tabcap ? t->tabcap * 2 : 1024;
    t->tab = stint_xmalloc(t->tabcap * sizeof *t->tab);
    memset(t->tab, 0xff, t->tabcap * sizeof *t->tab);
    for (size_t i = 2; i < t->nn; i++)
        t->tab[slot(t, t->n[i].parent, t->n[i].name)] = (uint32_t)i;
}

/* The node of (parent, name), made on first use. */
static uint32_t node_get(struct stint_report_tree *t, uint32_t parent, uint32_t name)
{
    struct rcache *c = &t->cache[(stint_hash_pair(parent, name) >> 7) & ((1u << RCACHE_BITS) - 1)];
    if (c->parent == parent && c->name == name)
        return c->node;
    if ((t->nn + 1) * 4 > t->tabcap * 3) /* (load up to 3/4) */
        tab_grow(t);
    size_t h = slot(t, parent, name);
    *c = (struct rcache){parent, name, t->tab[h]};
    if (t->tab[h] != STINT_NO_ID)
        return t->tab[h];
    c->node = (uint32_t)t->nn;
    t->n = stint_xgrow(t->n, &t->ncap, t->nn + 1, sizeof *t->n, 1024);
    t->n[t->nn] = (struct rnode){parent, name, 0, 0, 0};
    t->tab[h] = (uint32_t)t->nn;
    return (uint32_t)t->nn++;
}

struct stint_report_tree *stint_report_tree_new(void)
{
    struct stint_report_tree *t = stint_xcalloc(1, sizeof *t);
    memset(t->cache, 0xff, sizeof t->cache); /* (no lookup has parent STINT_NO_ID) */
    t->n = stint_xgrow(NULL, &t->ncap, 2, sizeof *t->n, 1024);
    t->n[0] = t->n[1] = (struct rnode){STINT_NO_ID, 0, 0, 0, 0}; /* the host and device roots */
    t->nn = 2;
    tab_grow(t);
    t->track = STINT_NO_ID;
    return t;
}

static void frame_end(struct stint_report_tree *t)
{
    struct rframe *fr = &t->fr[--t->sn];
    if (!fr->agg)
        return;
    int64_t self = fr->dur_ns - stint_union_acc_total(&fr->kids);
    t->n[fr->node].self_ns = stint_sum_add(t->n[fr->node].self_ns, self < 0 ? 0 : self);
}

void stint_report_tree_span(struct stint_report_tree *t, const struct stint_model *m, const struct stint_span_ev *ev)
{
    if (t->explicit_parent)
        return;
    if (ev->track != t->track) {
        while (t->sn)
            frame_end(t);
        t->track = ev->track;
    }
    while (t->sn > ev->level)
        frame_end(t);
    if ((ev->level && !ev->parent_on_top) || t->sn != ev->level ||
        (ev->slice1 && !ev->parent_on_top && stint_model_slice(m, ev->slice1 - 1)->parent != STINT_NO_ID)) {
        t->explicit_parent = 1; /* (stint_tree_sink's rule: the whole model is needed) */
        return;
    }
    uint32_t dev = stint_model_lane_at(m, ev->lane)->clock == STINT_CLOCK_DEVICE;
    uint32_t parent = t->sn ? t->fr[t->sn - 1].node : dev;
    int instant = (ev->flags & STINT_SLICE_INSTANT) != 0;
    if (t->sn && ev->dur_ns >= 0) { /* a finished child covers its parent's time, clipped to it */
        struct rframe *p = &t->fr[t->sn - 1];
        int64_t pend = p->dur_ns < 0 ? STINT_TS_LIMIT : p->ts_ns + p->dur_ns;
        int64_t a = ev->ts_ns > p->ts_ns ? ev->ts_ns : p->ts_ns, b = ev->ts_ns + ev->dur_ns;
        if (b > pend)
            b = pend;
        if (b > a)
            stint_union_acc_add(&p->kids, a, b);
    }
    uint32_t node = instant ? parent : node_get(t, parent, ev->name);
    int agg = 0;
    if (instant)
        t->instants++;
    else if (ev->dur_ns < 0)
        t->unfinished++;
    else {
        struct rnode *nd = &t->n[node];
        nd->calls++;
        nd->total_ns = stint_sum_add(nd->total_ns, ev->dur_ns);
        t->spans++;
        agg = 1;
    }
    t->fr = stint_xgrow(t->fr, &t->fcap, t->sn + 1, sizeof *t->fr, 64);
    struct rframe *fr = &t->fr[t->sn++];
    *fr = (struct rframe){node, agg, ev->ts_ns, ev->dur_ns, {0, 0, 0, 0}};
    stint_union_acc_init(&fr->kids);
}

/* Node ids by width (report_html.c's node_wider): total, then shallower, then id. */
struct wider_ctx {
    const struct rnode *n;
    const uint32_t *depth;
};

static int node_wider(const void *pa, const void *pb, void *ctx)
{
    const struct wider_ctx *w = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (w->n[a].total_ns != w->n[b].total_ns)
        return w->n[a].total_ns > w->n[b].total_ns ? -1 : 1;
    if (w->depth[a] != w->depth[b])
        return w->depth[a] < w->depth[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static void free_tree(struct stint_report_tree *t)
{
    free(t->n);
    free(t->tab);
    free(t->fr);
    free(t);
}

int stint_report_tree_finish(struct stint_report_tree *t, size_t keep, struct stint_report_tree_out *out)
{
    memset(out, 0, sizeof *out);
    while (t->sn)
        frame_end(t);
    if (t->explicit_parent) {
        free_tree(t);
        return 1;
    }
    free(t->tab);
    t->tab = NULL;
    uint32_t *depth = stint_xmalloc(t->nn * sizeof *depth); /* (a parent's id is below its child's) */
    depth[0] = depth[1] = 0;
    for (size_t i = 2; i < t->nn; i++)
        depth[i] = depth[t->n[i].parent] + 1;
    for (size_t i = 2; i < t->nn; i++)
        if (t->n[i].parent == 0)
            out->root_total = stint_sum_add(out->root_total, t->n[i].total_ns);
    out->paths = t->nn - 1;
    /* the kept ids: all, or the keep widest */
    uint32_t *ids = stint_xmalloc(t->nn * sizeof *ids);
    size_t nk = t->nn - 1;
    for (size_t i = 1; i < t->nn; i++)
        ids[i - 1] = (uint32_t)i;
    if (nk > keep) {
        struct wider_ctx w = {t->n, depth};
        stint_report_select(ids, nk, keep, node_wider, &w);
        out->left_out = nk - keep;
        nk = keep;
    }
    uint8_t *kept = stint_xcalloc(t->nn, 1);
    kept[0] = 1;
    for (size_t k = 0; k < nk; k++)
        kept[ids[k]] = 1;
    free(ids);
    /* the kept nodes, in id order, as a stint_calltree (remap: old id -> new) */
    uint32_t *remap = stint_xmalloc(t->nn * sizeof *remap);
    struct stint_calltree *c = &out->tree;
    c->nodes = stint_xcalloc(nk + 1, sizeof *c->nodes);
    c->cap = nk + 1;
    for (size_t i = 0; i < t->nn; i++) {
        remap[i] = STINT_NO_ID;
        if (!kept[i])
            continue;
        uint32_t id = (uint32_t)c->n++;
        remap[i] = id;
        struct stint_tnode *nd = &c->nodes[id];
        nd->parent = t->n[i].parent == STINT_NO_ID ? STINT_NO_ID : remap[t->n[i].parent];
        nd->name = t->n[i].name;
        nd->first_child = nd->next_sibling = nd->last_child = STINT_NO_ID;
        nd->depth = depth[i];
        nd->clock = i == 1 || (nd->parent != STINT_NO_ID && c->nodes[nd->parent].clock);
        nd->calls = t->n[i].calls;
        nd->total_ns = t->n[i].total_ns;
        nd->self_ns = t->n[i].self_ns;
        if (nd->parent != STINT_NO_ID) { /* (a parent left out: unreachable, as it was) */
            struct stint_tnode *p = &c->nodes[nd->parent];
            if (p->first_child == STINT_NO_ID)
                p->first_child = id;
            else
                c->nodes[p->last_child].next_sibling = id;
            p->last_child = id;
        }
    }
    c->spans = t->spans;
    c->instants = t->instants;
    c->unfinished = t->unfinished;
    free(remap);
    free(kept);
    free(depth);
    free_tree(t);
    return 0;
}

void stint_report_tree_free(struct stint_report_tree *t)
{
    if (t)
        free_tree(t);
}
