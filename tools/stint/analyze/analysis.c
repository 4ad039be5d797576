/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - the aggregated call tree of analysis.h: built from the whole
 * model (stint_calltree_build) or from the spans a lean model streams
 * (stint_tree_sink_*), then sorted, flattened and printed by path.
 *
 * Invariants: node 0 and node 1 are the invisible host and device roots and
 * never merge; a node is keyed by (parent node, name) and its id is its
 * first-seen order, never the hash table's layout, so no output depends on
 * the hash; a span's self time is its duration minus the union of its
 * direct children clipped to it, so it is >= 0 by construction; all sums
 * saturate (tsparse.h, stint_sum_add).
 *
 * The call tree follows each slice's parent, which may be on another track
 * (JSONL sessions give explicit parent ids): paths are resolved up the parent
 * chain, and a parent's self time subtracts the union of all its direct
 * children, clipped to the parent, wherever they ran.
 */
#include "analyze/analysis.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/intervals.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- call tree ---------------------------------------------------------- */

/* The slot of (parent, name) in tab (cap slots, a power of two): where it
 * is, or the empty slot where it goes (linear probing). */
static size_t tab_slot(const struct stint_calltree *t, const uint32_t *tab, size_t cap, uint32_t parent,
                       uint32_t name)
{
    size_t h = (size_t)stint_hash_pair(parent, name) & (cap - 1);
    for (; tab[h] != STINT_NO_ID; h = (h + 1) & (cap - 1)) {
        const struct stint_tnode *nd = &t->nodes[tab[h]];
        if (nd->parent == parent && nd->name == name)
            break;
    }
    return h;
}

static int tab_grow(struct stint_calltree *t)
{
    size_t cap = t->tabcap ? t->tabcap * 2 : 1024;
    uint32_t *tab = malloc(cap * sizeof *tab);
    if (!tab)
        return -1;
    memset(tab, 0xff, cap * sizeof *tab);
    for (size_t i = 0; i < t->n; i++) /* (every key is distinct: each lands on an empty slot) */
        tab[tab_slot(t, tab, cap, t->nodes[i].parent, t->nodes[i].name)] = (uint32_t)i;
    free(t->tab);
    t->tab = tab;
    t->tabcap = cap;
    return 0;
}

static uint32_t node_get(struct stint_calltree *t, uint32_t parent, uint32_t name)
{
    if ((t->n + 1) * 2 > t->tabcap && tab_grow(t) != 0)
        return STINT_NO_ID;
    size_t h = tab_slot(t, t->tab, t->tabcap, parent, name);
    if (t->tab[h] != STINT_NO_ID)
        return t->tab[h];
    struct stint_tnode *nodes = stint_grow(t->nodes, &t->cap, t->n + 1, sizeof *nodes, 256);
    if (!nodes)
        return STINT_NO_ID;
    t->nodes = nodes;
    uint32_t id = (uint32_t)t->n++;
    struct stint_tnode *nd = &t->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->parent = parent;
    nd->name = name;
    nd->first_child = STINT_NO_ID;
    nd->next_sibling = STINT_NO_ID;
    nd->depth = t->nodes[parent].depth + 1;
    nd->clock = t->nodes[parent].clock;
    /* append as the last child (first-seen order) */
    nd->last_child = STINT_NO_ID;
    struct stint_tnode *p = &t->nodes[parent];
    if (p->first_child == STINT_NO_ID)
        p->first_child = id;
    else
        t->nodes[p->last_child].next_sibling = id;
    p->last_child = id;
    t->tab[h] = id;
    return id;
}

void stint_calltree_free(struct stint_calltree *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->nodes[i].durs);
    free(t->nodes);
    free(t->slice_node);
    free(t->slice_self);
    free(t->tab);
    free(t->flat);
    memset(t, 0, sizeof *t);
}

/* ---- the tree from the span sink -------------------------------------- */

struct tframe {
    uint32_t node;  /* the path node its descendants hang under (an instant's: its parent's) */
    uint32_t row;   /* its --flat row when aggregated, else STINT_NO_ID */
    int64_t ts_ns, dur_ns;
    struct stint_union_acc kids; /* its direct children, clipped to it */
};

struct stint_tree_sink {
    struct stint_calltree *t;
    const struct stint_filter *f;
    struct tframe *fr;
    size_t sn, fcap;
    uint32_t track;
    struct stint_flat_row *rows; /* per (name, clock): 2 * name + device */
    uint32_t *open;          /* per row: aggregated spans of it open (for outer calls) */
    size_t nrows;
    int explicit_parent;     /* a span whose parent is not on top of its track came */
    int defer;               /* slices are placed at finish, from their parents */
    int oom;
};

/* Counts m's lanes by clock into t. */
static void tree_lanes(struct stint_calltree *t, const struct stint_model *m)
{
    for (size_t i = 0; i < m->lanes.len; i++) {
        if (stint_model_lane_at(m, (uint32_t)i)->clock == STINT_CLOCK_DEVICE)
            t->lanes_device++;
        else
            t->lanes_host++;
    }
}

/* Makes t's node array and hash table, with the two invisible roots
 * (host 0, device 1). Returns 0, or -1 when out of memory. */
static int tree_roots(struct stint_calltree *t)
{
    t->cap = 256;
    t->nodes = calloc(t->cap, sizeof *t->nodes);
    if (!t->nodes || tab_grow(t) != 0)
        return -1;
    for (int r = 0; r < 2; r++) {
        struct stint_tnode *nd = &t->nodes[t->n++];
        memset(nd, 0, sizeof *nd);
        nd->parent = STINT_NO_ID;
        nd->first_child = nd->next_sibling = nd->last_child = STINT_NO_ID;
        nd->clock = (uint8_t)r;
    }
    return 0;
}

struct stint_tree_sink *stint_tree_sink_new(struct stint_calltree *t, const struct stint_filter *f)
{
    memset(t, 0, sizeof *t);
    struct stint_tree_sink *s = calloc(1, sizeof *s);
    if (!s || tree_roots(t) != 0) {
        free(s);
        stint_calltree_free(t);
        return NULL;
    }
    s->t = t;
    s->f = f && stint_filter_active(f) ? f : NULL;
    s->track = STINT_NO_ID;
    return s;
}

void stint_tree_sink_defer_slices(struct stint_tree_sink *s)
{
    s->defer = 1;
}

/* Closes the top frame: an aggregated span's self time goes to its node and row. */
static void tframe_end(struct stint_tree_sink *s)
{
    struct tframe *fr = &s->fr[--s->sn];
    if (fr->row == STINT_NO_ID)
        return;
    int64_t self = fr->dur_ns - stint_union_acc_total(&fr->kids);
    if (self < 0)
        self = 0; /* impossible: children are clipped to the span */
    struct stint_tnode *nd = &s->t->nodes[fr->node];
    nd->self_ns = stint_sum_add(nd->self_ns, self);
    s->rows[fr->row].self_ns = stint_sum_add(s->rows[fr->row].self_ns, self);
    s->open[fr->row]--;
}

/* Appends dur to node k's durations. Their capacity is implied by their
 * count, never stored: 3, then doubling (3 * 2^j), so a node's first array
 * is 24 bytes, malloc's smallest block (most paths have few calls). */
static int tnode_dur(struct stint_tree_sink *s, uint32_t k, int64_t dur)
{
    struct stint_tnode *nd = &s->t->nodes[k];
    size_t n = nd->ndurs, q = n / 3;
    if (n == 0 || (n % 3 == 0 && (q & (q - 1)) == 0)) { /* full: 0, 3, 6, 12, ... */
        size_t cap = n ? 2 * n : 3;
        int64_t *v = realloc(nd->durs, cap * sizeof *v);
        if (!v)
            return -1;
        nd->durs = v;
    }
    nd->durs[nd->ndurs++] = dur;
    return 0;
}

/* The --flat row of (name, dev), made on first use; STINT_NO_ID when out of memory. */
static uint32_t tflat_row(struct stint_tree_sink *s, uint32_t name, int dev)
{
    size_t r = 2 * (size_t)name + (size_t)dev;
    if (r >= s->nrows) {
        size_t n = s->nrows ? s->nrows : 64;
        while (n <= r)
            n *= 2;
        struct stint_flat_row *rows = realloc(s->rows, n * sizeof *rows);
        uint32_t *open = rows ? realloc(s->open, n * sizeof *open) : NULL;
        if (rows)
            s->rows = rows;
        if (!open)
            return STINT_NO_ID;
        s->open = open;
        memset(s->rows + s->nrows, 0, (n - s->nrows) * sizeof *s->rows);
        memset(s->open + s->nrows, 0, (n - s->nrows) * sizeof *s->open);
        s->nrows = n;
    }
    s->rows[r].name = name;
    s->rows[r].device = dev;
    return (uint32_t)r;
}

void stint_tree_sink_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_tree_sink *s = ctx;
    struct stint_calltree *t = s->t;
    if (s->oom || s->explicit_parent || (s->defer && !ev->pair1))
        return;
    if (ev->track != s->track) {
        while (s->sn)
            tframe_end(s);
        s->track = ev->track;
    }
    while (s->sn > ev->level)
        tframe_end(s);
    /* an explicit parent on top of the track's stack (a marker log's depth tree) is the
     * parent the frames give; one elsewhere (a JSONL parent on another thread) is not */
    if ((ev->level && !ev->parent_on_top) || s->sn != ev->level ||
        (ev->slice1 && !ev->parent_on_top && stint_model_slice(m, ev->slice1 - 1)->parent != STINT_NO_ID)) {
        s->explicit_parent = 1; /* (its path and its parent's self time need the whole model) */
        return;
    }
    int dev = stint_model_lane_at(m, ev->lane)->clock == STINT_CLOCK_DEVICE;
    uint32_t parent = s->sn ? s->fr[s->sn - 1].node : (uint32_t)dev;
    int instant = (ev->flags & STINT_SLICE_INSTANT) != 0;
    /* a finished child covers its parent's time, filtered out or not, clipped to the parent
     * (an unfinished parent: to the range's end) */
    if (s->sn && ev->dur_ns >= 0) {
        struct tframe *p = &s->fr[s->sn - 1];
        int64_t pend = p->dur_ns < 0 ? STINT_TS_LIMIT : p->ts_ns + p->dur_ns;
        int64_t a = ev->ts_ns > p->ts_ns ? ev->ts_ns : p->ts_ns, b = ev->ts_ns + ev->dur_ns;
        if (b > pend)
            b = pend;
        if (b > a)
            stint_union_acc_add(&p->kids, a, b);
    }
    uint32_t node = instant ? parent : node_get(t, parent, ev->name), row = STINT_NO_ID;
    if (node == STINT_NO_ID) {
        s->oom = 1;
        return;
    }
    int pass = 1;
    if (s->f) {
        struct stint_slice sl = {.ts_ns = ev->ts_ns, .dur_ns = ev->dur_ns, .track = ev->track, .cat = ev->cat,
                                 .name = ev->name, .flags = ev->flags, .seq = ev->seq};
        pass = stint_filter_slice(s->f, m, &sl);
    }
    if (!pass)
        t->filtered_out++;
    else if (instant)
        t->instants++;
    else if (ev->dur_ns < 0)
        t->unfinished++;
    else {
        struct stint_tnode *nd = &t->nodes[node];
        nd->calls++;
        nd->total_ns = stint_sum_add(nd->total_ns, ev->dur_ns);
        if (ev->dur_ns > nd->max_ns)
            nd->max_ns = ev->dur_ns;
        t->spans++;
        row = tflat_row(s, ev->name, dev);
        if (row == STINT_NO_ID || tnode_dur(s, node, ev->dur_ns) != 0) {
            s->oom = 1;
            return;
        }
        struct stint_flat_row *r = &s->rows[row];
        r->calls++;
        if (ev->dur_ns > r->max_ns)
            r->max_ns = ev->dur_ns;
        if (!s->open[row]) { /* outermost: no aggregated span of its name is open above it */
            r->outer_calls++;
            r->total_ns = stint_sum_add(r->total_ns, ev->dur_ns);
        }
        s->open[row]++;
    }
    if (s->sn == s->fcap) {
        struct tframe *frames = stint_grow(s->fr, &s->fcap, s->sn + 1, sizeof *frames, 64);
        if (!frames) {
            s->oom = 1;
            return;
        }
        s->fr = frames;
    }
    struct tframe *fr = &s->fr[s->sn++];
    fr->node = node;
    fr->row = row;
    fr->ts_ns = ev->ts_ns;
    fr->dur_ns = ev->dur_ns;
    stint_union_acc_init(&fr->kids);
}

static int tree_place(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f,
                      int roots);
static void flat_row_add(struct stint_flat_row *r, const struct stint_calltree *t, const struct stint_model *m,
                         uint32_t i);

/* A deferred sink's slices (the model's, finished): placed by their parents
 * into s's tree as stint_calltree_build places them, their durations,
 * self times and --flat rows added to what the records gave (no slice
 * nests in a record nor a record in a slice, so the two add up). Returns
 * 0, or -1 when out of memory. */
static int tree_sink_slices(struct stint_tree_sink *s, const struct stint_model *m)
{
    struct stint_calltree *t = s->t;
    size_t n = stint_model_nslices(m);
    int rc = tree_place(t, m, s->f, 0);
    if (rc == 0) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            uint32_t node = t->slice_node[i];
            if (node == STINT_NO_ID)
                continue;
            const struct stint_slice *sl = stint_model_slice(m, i);
            int dev = stint_model_track_device(m, stint_model_track_at(m, sl->track));
            uint32_t row = tflat_row(s, sl->name, dev);
            if (row == STINT_NO_ID || tnode_dur(s, node, sl->dur_ns) != 0) {
                rc = -1;
                break;
            }
            flat_row_add(&s->rows[row], t, m, (uint32_t)i);
        }
    }
    free(t->slice_node);
    free(t->slice_self);
    t->slice_node = NULL;
    t->slice_self = NULL;
    return rc;
}

int stint_tree_sink_finish(struct stint_tree_sink *s, const struct stint_model *m)
{
    struct stint_calltree *t = s->t;
    while (s->sn)
        tframe_end(s);
    int rc = s->oom ? -1 : s->explicit_parent ? 1 : 0;
    if (rc == 0 && s->defer)
        rc = tree_sink_slices(s, m);
    if (rc == 0) {
        tree_lanes(t, m);
        size_t n = s->defer ? 0 : stint_model_nslices(m); /* (what the lean finish left: the slices off
                                                           * thread tracks; deferred, tree_nodes counted them) */
        for (size_t i = 0; i < n; i++)
            if (stint_model_track_at(m, stint_model_slice(m, i)->track)->kind != STINT_TRACK_THREAD)
                t->async++;
        for (size_t k = 0; k < t->n; k++)
            stint_an_quantiles_ready(t->nodes[k].durs, t->nodes[k].ndurs);
        size_t k = 0; /* the rows in (name, clock) order, as stint_calltree_flat gives them */
        for (size_t r = 0; r < s->nrows; r++)
            if (s->rows[r].calls)
                s->rows[k++] = s->rows[r];
        t->flat = s->rows;
        t->nflat = k;
        s->rows = NULL;
    }
    free(s->rows);
    free(s->open);
    free(s->fr);
    free(s);
    return rc;
}

/* slice_node's marks while stint_calltree_build runs: a thread-track slice
 * whose node is not known yet, and an instant (no node of its own). */
#define TREE_UNSET (STINT_NO_ID - 1)
#define TREE_INSTANT (STINT_NO_ID - 2)

/* Pass 1 of stint_calltree_build: a node per slice. A parent may sit on
 * another track and after its child in index order (JSONL explicit
 * parents), so each chain is resolved upward to the first slice with a
 * node, then assigned down (chain: n entries of scratch). Instants on
 * thread tracks get no node (marked TREE_INSTANT until pass 2 counts them)
 * and are stepped over in the chains: a slice nested in an instant hangs
 * under the instant's own parent. 0, or -1 when out of memory. */
static int tree_nodes(struct stint_calltree *t, const struct stint_model *m, uint32_t *chain)
{
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        t->slice_node[i] = stint_model_track_at(m, s->track)->kind != STINT_TRACK_THREAD ? STINT_NO_ID
                           : (s->flags & STINT_SLICE_INSTANT)                            ? TREE_INSTANT
                                                                                          : TREE_UNSET;
    }
    for (size_t i = 0; i < n; i++) {
        if (t->slice_node[i] == STINT_NO_ID) {
            t->async++;
            continue;
        }
        if (t->slice_node[i] != TREE_UNSET)
            continue;
        size_t depth = 0, steps = 0;
        uint32_t c = (uint32_t)i;
        while (c != STINT_NO_ID && steps++ <= n) {
            if (t->slice_node[c] == TREE_INSTANT) {
                c = stint_model_slice(m, c)->parent;
                continue;
            }
            if (t->slice_node[c] != TREE_UNSET || depth >= n)
                break;
            chain[depth++] = c;
            c = stint_model_slice(m, c)->parent;
        }
        uint32_t base;
        if (c != STINT_NO_ID && t->slice_node[c] != TREE_UNSET && t->slice_node[c] != STINT_NO_ID &&
            t->slice_node[c] != TREE_INSTANT)
            base = t->slice_node[c];
        else {
            const struct stint_slice *top = stint_model_slice(m, chain[depth - 1]);
            const struct stint_track *tr = stint_model_track_at(m, top->track);
            base = stint_model_lane_at(m, tr->lane)->clock == STINT_CLOCK_DEVICE ? 1 : 0;
        }
        while (depth) {
            uint32_t k = chain[--depth];
            base = node_get(t, base, stint_model_slice(m, k)->name);
            if (base == STINT_NO_ID)
                return -1;
            t->slice_node[k] = base;
        }
    }
    return 0;
}

/* A finished child's interval, clipped to its parent. */
struct kid {
    uint32_t parent;
    struct stint_interval iv;
};

static int kid_cmp(const void *pa, const void *pb)
{
    const struct kid *a = pa, *b = pb;
    int c = stint_cmp_u32(a->parent, b->parent);
    return c ? c : stint_cmp_i64(a->iv.start, b->iv.start);
}

/* Sets child_cov[i] to the time slice i's children cover: the union of the
 * children clipped to the parent (children may come from several tracks and
 * overlap). kids: n entries of scratch. */
static void tree_child_cover(const struct stint_model *m, struct kid *kids, int64_t *child_cov)
{
    size_t n = stint_model_nslices(m), nc = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->parent == STINT_NO_ID || s->parent >= n)
            continue;
        /* an unfinished child has no end to cover anything with (summary
         * leaves it out of every time too: no made-up end) */
        if (s->dur_ns < 0)
            continue;
        const struct stint_slice *p = stint_model_slice(m, s->parent);
        int64_t pend = p->dur_ns < 0 ? STINT_TS_LIMIT : p->ts_ns + p->dur_ns; /* open: to the range's end */
        int64_t cend = s->ts_ns + s->dur_ns;
        int64_t cstart = s->ts_ns < p->ts_ns ? p->ts_ns : s->ts_ns;
        if (cend > pend)
            cend = pend;
        if (cend <= cstart)
            continue;
        kids[nc++] = (struct kid){s->parent, {cstart, cend}};
    }
    stint_xqsort(kids, nc, sizeof *kids, kid_cmp);
    for (size_t a = 0, b; a < nc; a = b) {
        struct stint_union_acc cov;
        stint_union_acc_init(&cov);
        for (b = a; b < nc && kids[b].parent == kids[a].parent; b++)
            stint_union_acc_add(&cov, kids[b].iv.start, kids[b].iv.end);
        child_cov[kids[a].parent] = stint_union_acc_total(&cov);
    }
}

/* Pass 2 of stint_calltree_build: aggregates the spans that pass f into
 * their nodes. A slice left out keeps no node (pass 1 needed it for its
 * descendants' paths): every later pass sees only aggregated slices. */
static void tree_aggregate(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f,
                           const int64_t *child_cov)
{
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        uint32_t node = t->slice_node[i];
        if (node == STINT_NO_ID)
            continue;
        const struct stint_slice *s = stint_model_slice(m, i);
        uint64_t *left_out = f && !stint_filter_slice(f, m, s) ? &t->filtered_out
                             : node == TREE_INSTANT             ? &t->instants
                             : s->dur_ns < 0                    ? &t->unfinished
                                                                : NULL;
        if (left_out) {
            (*left_out)++;
            t->slice_node[i] = STINT_NO_ID;
            continue;
        }
        struct stint_tnode *nd = &t->nodes[node];
        int64_t self = s->dur_ns - child_cov[i];
        if (self < 0)
            self = 0; /* impossible: children are clipped to the span */
        t->slice_self[i] = self;
        nd->calls++;
        nd->total_ns = stint_sum_add(nd->total_ns, s->dur_ns);
        nd->self_ns = stint_sum_add(nd->self_ns, self);
        if (s->dur_ns > nd->max_ns)
            nd->max_ns = s->dur_ns;
        t->spans++;
    }
}

/* Each node's durations, sorted (for the quantiles). 0, or -1 when out of memory. */
static int tree_durs(struct stint_calltree *t, const struct stint_model *m)
{
    for (size_t k = 0; k < t->n; k++) {
        if (!t->nodes[k].calls)
            continue;
        t->nodes[k].durs = malloc(t->nodes[k].calls * sizeof(int64_t));
        if (!t->nodes[k].durs)
            return -1;
    }
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        uint32_t node = t->slice_node[i];
        if (node == STINT_NO_ID)
            continue;
        struct stint_tnode *nd = &t->nodes[node];
        nd->durs[nd->ndurs++] = stint_model_slice(m, i)->dur_ns;
    }
    for (size_t k = 0; k < t->n; k++)
        stint_an_quantiles_ready(t->nodes[k].durs, t->nodes[k].ndurs);
    return 0;
}

/* Places m's slices into t (slice_node and slice_self made, sized by the
 * slices; with roots, t's roots and lane counts made first): their nodes,
 * the aggregated ones' calls, totals and self times. 0, or -1 when out of
 * memory (what was made stays in t). */
static int tree_place(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f,
                      int roots)
{
    size_t n = stint_model_nslices(m), cap = n ? n : 1;
    t->slice_node = malloc(cap * sizeof *t->slice_node);
    t->slice_self = calloc(cap, sizeof *t->slice_self);
    uint32_t *chain = malloc(cap * sizeof *chain);
    struct kid *kids = malloc(cap * sizeof *kids);
    int64_t *child_cov = calloc(cap, sizeof *child_cov);
    int rc = -1;
    if (t->slice_node && t->slice_self && chain && kids && child_cov && (!roots || tree_roots(t) == 0)) {
        if (roots)
            tree_lanes(t, m);
        if (tree_nodes(t, m, chain) == 0) {
            tree_child_cover(m, kids, child_cov);
            tree_aggregate(t, m, f, child_cov);
            rc = 0;
        }
    }
    free(chain);
    free(kids);
    free(child_cov);
    return rc;
}

static int calltree_build(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f,
                          int durs)
{
    memset(t, 0, sizeof *t);
    int rc = tree_place(t, m, f, 1);
    if (rc == 0 && durs)
        rc = tree_durs(t, m);
    if (rc != 0)
        stint_calltree_free(t);
    return rc;
}

int stint_calltree_build(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f)
{
    return calltree_build(t, m, f, 1);
}

int stint_calltree_build_sums(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f)
{
    return calltree_build(t, m, f, 0);
}

/* Adds aggregated slice i (t->slice_node and slice_self made) to its --flat
 * row r: a call, its self time, its duration as max and, when it is the
 * outermost of its name among the aggregated calls, to the outer calls and
 * total (an ancestor of the same name that is filtered out, unfinished or
 * an instant, no node, does not count, or the call would be in no total). */
static void flat_row_add(struct stint_flat_row *r, const struct stint_calltree *t, const struct stint_model *m,
                         uint32_t i)
{
    const struct stint_slice *s = stint_model_slice(m, i);
    r->calls++;
    r->self_ns = stint_sum_add(r->self_ns, t->slice_self[i]);
    if (s->dur_ns > r->max_ns)
        r->max_ns = s->dur_ns;
    for (uint32_t p = s->parent; p != STINT_NO_ID; p = stint_model_slice(m, p)->parent)
        if (stint_model_slice(m, p)->name == s->name && t->slice_node[p] != STINT_NO_ID)
            return;
    r->outer_calls++;
    r->total_ns = stint_sum_add(r->total_ns, s->dur_ns);
}

struct stint_flat_row *stint_calltree_flat(const struct stint_calltree *t, const struct stint_model *m, size_t *count)
{
    if (!t->slice_node) { /* (made by the span sink: t->flat, maybe empty) */
        struct stint_flat_row *rows = malloc((t->nflat ? t->nflat : 1) * sizeof *rows);
        if (rows && t->nflat)
            memcpy(rows, t->flat, t->nflat * sizeof *rows);
        *count = t->nflat;
        return rows;
    }
    size_t nstr = 1;
    for (size_t k = 0; k < t->n; k++)
        if (t->nodes[k].name + 1u > nstr)
            nstr = t->nodes[k].name + 1u;
    struct stint_flat_row *rows = calloc(2 * nstr, sizeof *rows); /* per name: host, device */
    if (!rows)
        return NULL;
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        if (t->slice_node[i] == STINT_NO_ID)
            continue;
        const struct stint_slice *s = stint_model_slice(m, i);
        int dev = stint_model_track_device(m, stint_model_track_at(m, s->track));
        struct stint_flat_row *r = &rows[2 * (size_t)s->name + (size_t)dev];
        r->name = s->name;
        r->device = dev;
        flat_row_add(r, t, m, (uint32_t)i);
    }
    size_t k = 0;
    for (size_t i = 0; i < 2 * nstr; i++)
        if (rows[i].calls)
            rows[k++] = rows[i];
    *count = k;
    return rows;
}

/* qsort_r's context for child_cmp. */
struct child_order {
    const struct stint_calltree *t;
    const struct stint_model *m;
    enum stint_tree_sort key;
};

static int child_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct child_order *o = ctx;
    const struct stint_tnode *a = &o->t->nodes[*(const uint32_t *)pa];
    const struct stint_tnode *b = &o->t->nodes[*(const uint32_t *)pb];
    int64_t ka, kb;
    switch (o->key) {
    case STINT_TREE_SORT_SELF: ka = a->self_ns; kb = b->self_ns; break;
    case STINT_TREE_SORT_CALLS: ka = (int64_t)a->calls; kb = (int64_t)b->calls; break;
    default: ka = a->total_ns; kb = b->total_ns; break;
    }
    if (ka != kb)
        return ka > kb ? -1 : 1;
    return strcmp(stint_model_str(o->m, a->name, NULL), stint_model_str(o->m, b->name, NULL));
}

void stint_calltree_sort(struct stint_calltree *t, const struct stint_model *m, enum stint_tree_sort key)
{
    uint32_t *buf = malloc((t->n ? t->n : 1) * sizeof *buf);
    if (!buf)
        return; /* keeps first-seen order */
    struct child_order order = {t, m, key};
    for (size_t p = 0; p < t->n; p++) {
        size_t k = 0;
        for (uint32_t c = t->nodes[p].first_child; c != STINT_NO_ID; c = t->nodes[c].next_sibling)
            buf[k++] = c;
        if (k < 2)
            continue;
        stint_xqsort_r(buf, k, sizeof *buf, child_cmp, &order);
        t->nodes[p].first_child = buf[0];
        for (size_t j = 0; j + 1 < k; j++)
            t->nodes[buf[j]].next_sibling = buf[j + 1];
        t->nodes[buf[k - 1]].next_sibling = STINT_NO_ID;
        t->nodes[p].last_child = buf[k - 1];
    }
    free(buf);
}

char *stint_calltree_path(const struct stint_calltree *t, const struct stint_model *m, uint32_t node, char sep)
{
    size_t len = 0;
    for (uint32_t k = node; k > 1 && k != STINT_NO_ID; k = t->nodes[k].parent) {
        size_t l;
        stint_model_str(m, t->nodes[k].name, &l);
        len += l + 1;
    }
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    out[len] = 0;
    size_t pos = len;
    int last = 1;
    for (uint32_t k = node; k > 1 && k != STINT_NO_ID; k = t->nodes[k].parent) {
        size_t l;
        const char *s = stint_model_str(m, t->nodes[k].name, &l);
        if (!last)
            out[--pos] = sep;
        pos -= l;
        memcpy(out + pos, s, l);
        last = 0;
    }
    /* pos is 1 when at least one name was written (one separator budget unused) */
    if (pos)
        memmove(out, out + pos, len - pos + 1);
    return out;
}
