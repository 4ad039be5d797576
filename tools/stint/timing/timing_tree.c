/* SPDX-License-Identifier: MIT */
/*
 * timing_tree.c - the median tree of `stint timing --tree`: per callable,
 * the spans of its last kept invocation drawn as a tree, each node with the
 * median over the kept invocations of its name's first span, an orch and
 * sched pair under one parent folded into one Effective line (the median of
 * their union's window); text as the reference prints it, or JSON.
 *
 * Invariants: a node's children are drawn by ts, ties in input order. In
 * names mode a node is a name (its parent the name minus its last dotted
 * component, drawn once); in depth mode a node is a span, linked by depth
 * and time (host spans per tid, either as written when they end or when
 * they start, whichever links more; device spans parent first). Every
 * linking step sorts or binary-searches: O(n log n) in the invocation's
 * spans.
 */
#include "timing/timing_int.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef stint_i128 i128;

/* Writes s (a name: escaped) padded to `width` code points (left-aligned, or
 * right when `right`). An escape is ASCII and stands for one ASCII byte, so
 * it adds its extra bytes to the code points. */
static void put_pad(FILE *f, const char *s, size_t n, int width, int right)
{
    size_t cps = stint_out_text_len(s, n) - n;
    for (size_t i = 0; i < n; i++)
        cps += ((unsigned char)s[i] & 0xc0) != 0x80;
    size_t pad = cps < (size_t)width ? (size_t)width - cps : 0;
    if (right)
        for (size_t i = 0; i < pad; i++)
            putc(' ', f);
    stint_out_text_str(f, s, n);
    if (!right)
        for (size_t i = 0; i < pad; i++)
            putc(' ', f);
}

struct tree {
    const struct stint_tout_ctx *c;
    const uint32_t *invs;
    uint32_t k;
    double *med_us;        /* per name id: median dur in us (NAN when absent) */
    uint32_t *ref;         /* spans of the reference invocation, input order */
    uint32_t nref;
    uint32_t *key;         /* per ref position: the node key */
    uint32_t *parent;      /* per ref position: parent key or TM_NONE */
    uint32_t *by_parent;   /* ref positions by (parent key, ts, position): each node's children are one run */
    int json_first;
};

/* The reference's median of ints (v is sorted in place): the middle value,
 * or the mean of the two middle ones as a double; 0 for none. */
static double median_i64(int64_t *v, uint32_t n)
{
    if (!n)
        return 0.0;
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: short lists */
        int64_t x = v[i];
        uint32_t j = i;
        while (j && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    uint32_t mid = n / 2;
    if (n % 2)
        return (double)v[mid];
    return (double)((i128)v[mid - 1] + v[mid]) / 2.0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median per name over the kept invocations (first span of each name). */
static double *name_medians(const struct stint_tm_model *m, const uint32_t *invs, uint32_t k)
{
    double *med = stint_xmalloc(((size_t)m->nstr + 1) * sizeof *med);
    uint32_t *cnt = stint_xcalloc((size_t)m->nstr + 1, sizeof *cnt);
    uint32_t *off = stint_xmalloc(((size_t)m->nstr + 2) * sizeof *off);
    uint64_t total = 0;
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        for (uint32_t f = 0; f < iv->fon_len; f++)
            cnt[iv->fon[f].name]++;
        total += iv->fon_len;
    }
    int64_t *v = stint_xmalloc((size_t)(total + 1) * sizeof *v);
    uint32_t acc = 0;
    for (uint32_t i = 0; i < m->nstr; i++) {
        off[i] = acc;
        acc += cnt[i];
        cnt[i] = 0;
    }
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        for (uint32_t f = 0; f < iv->fon_len; f++) {
            uint32_t nm = iv->fon[f].name;
            v[off[nm] + cnt[nm]++] = iv->fon[f].dur_ns;
        }
    }
    for (uint32_t i = 0; i < m->nstr; i++) {
        if (!cnt[i]) {
            med[i] = NAN;
            continue;
        }
        stint_xqsort(v + off[i], cnt[i], sizeof *v, cmp_i64);
        med[i] = median_i64(v + off[i], cnt[i]) / 1000.0;
    }
    free(v);
    free(cnt);
    free(off);
    return med;
}

/* Median over the kept invocations of the orch ∪ sched window. */
static double effective_median_us(const struct tree *t, uint32_t orch_name, uint32_t sched_name)
{
    const struct stint_tm_model *m = t->c->m;
    int64_t *v = stint_xmalloc(((size_t)t->k + 1) * sizeof *v);
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->k; i++) {
        const struct stint_tm_fon *a = stint_tm_fon_find(m, t->invs[i], orch_name), *b = stint_tm_fon_find(m, t->invs[i], sched_name);
        if (!a || !b)
            continue;
        int64_t hi = a->ts_ns + a->dur_ns > b->ts_ns + b->dur_ns ? a->ts_ns + a->dur_ns : b->ts_ns + b->dur_ns;
        int64_t lo = a->ts_ns < b->ts_ns ? a->ts_ns : b->ts_ns;
        v[n++] = hi - lo;
    }
    stint_xqsort(v, n, sizeof *v, cmp_i64);
    double r = median_i64(v, n) / 1000.0;
    free(v);
    return r;
}

/* Ref positions whose parent is `key`, by ts (ties in input order): their
 * run in t->by_parent, found by binary search. *n their count. */
static const uint32_t *kids_of(const struct tree *t, uint32_t key, uint32_t *n)
{
    uint32_t lo = 0, hi = t->nref;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->parent[t->by_parent[mid]] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < t->nref && t->parent[t->by_parent[end]] == key)
        end++;
    *n = end - lo;
    return t->by_parent + lo;
}

static int leaf_is(const struct stint_tm_model *m, uint32_t span, const char *want)
{
    size_t n;
    const char *leaf = stint_tout_leaf_of(m, m->spans[span].name, &n);
    return n == strlen(want) && !memcmp(leaf, want, n);
}

/* Writes the node at reference position pos and, recursively, its children
 * by ts, folding an orch/sched pair into one Effective line (text or JSON). */
static void emit_node(struct tree *t, uint32_t pos, int indent)
{
    const struct stint_tm_model *m = t->c->m;
    FILE *f = t->c->out;
    uint32_t s = t->ref[pos];
    const struct stint_tm_span *sp = &m->spans[s];
    size_t ln;
    const char *leaf = stint_tout_leaf_of(m, sp->name, &ln);
    double med = t->med_us[sp->name];
    if (t->c->json) {
        fputs(t->json_first ? "{\"name\": " : ", {\"name\": ", f);
        t->json_first = 0;
        stint_tout_json_id(f, m, sp->name);
        fputs(", \"leaf\": ", f);
        stint_out_json_ascii(f, leaf, ln);
        fprintf(f, ", \"dev\": %s, \"median_us\": ", sp->dev ? "true" : "false");
        stint_tout_json_num(f, med);
        fputs(", \"children\": [", f);
        t->json_first = 1;
    } else {
        for (int i = 0; i < indent; i++)
            fputs("  ", f);
        put_pad(f, leaf, ln, 22, 0);
        put_pad(f, sp->dev ? " [dev]" : "", sp->dev ? 6 : 0, 6, 1);
        fprintf(f, "  %12.1f us\n", med);
    }
    uint32_t nk;
    const uint32_t *kids = kids_of(t, t->key[pos], &nk);
    int has_orch = 0, has_sched = 0;
    uint32_t sched_pos = TM_NONE;
    for (uint32_t i = 0; i < nk; i++) {
        if (leaf_is(m, t->ref[kids[i]], "orch"))
            has_orch = 1;
        if (leaf_is(m, t->ref[kids[i]], "sched")) {
            if (sched_pos == TM_NONE)
                sched_pos = kids[i];
            has_sched = 1;
        }
    }
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t cs = t->ref[kids[i]];
        if (leaf_is(m, cs, "orch") && has_sched) {
            uint32_t ss = t->ref[sched_pos];
            double eff = effective_median_us(t, m->spans[cs].name, m->spans[ss].name);
            double om = t->med_us[m->spans[cs].name], sm = t->med_us[m->spans[ss].name];
            if (t->c->json) {
                fputs(t->json_first ? "{\"name\": \"Effective\"" : ", {\"name\": \"Effective\"", f);
                t->json_first = 0;
                fputs(", \"dev\": true, \"median_us\": ", f);
                stint_tout_json_num(f, eff);
                fputs(", \"concurrent\": {\"orch_median_us\": ", f);
                stint_tout_json_num(f, om);
                fputs(", \"sched_median_us\": ", f);
                stint_tout_json_num(f, sm);
                fputs("}}", f);
            } else {
                for (int j = 0; j < indent + 1; j++)
                    fputs("  ", f);
                fputs("Effective              [dev]  ", f);
                fprintf(f, "%12.1f us\n", eff);
                for (int j = 0; j < indent + 1; j++)
                    fputs("  ", f);
                fprintf(f, "  orch %.1f  \xe2\x88\xa5  sched %.1f   (concurrent)\n", om, sm);
            }
        } else if (leaf_is(m, cs, "sched") && has_orch) {
            continue;
        } else {
            emit_node(t, kids[i], indent + 1);
        }
    }
    if (t->c->json) {
        fputs("]}", f);
        t->json_first = 0;
    }
}

/* ---- the links of the reference invocation's spans ----------------------------------
 * Every step below sorts or binary-searches: O(n log n) in the invocation's
 * spans (a scan per span was quadratic: 120k spans under one root took 22 s). */

enum { LINK_BY_DEPTH = 1, LINK_BY_NAME = 2 };

/* An order of the tree's positions (the comparators' qsort_r context):
 * (tid, [depth, [name,]] position), by saying which of depth and name count. */
struct link_order {
    const struct tree *t;
    unsigned by; /* LINK_BY_* */
};

static const struct stint_tm_span *ref_span(const struct tree *t, uint32_t pos)
{
    return &t->c->m->spans[t->ref[pos]];
}

/* Positions by (parent key, ts, position): kids_of's runs. */
static int cmp_by_parent(const void *a, const void *b, void *ctx)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct tree *t = ctx;
    if (t->parent[x] != t->parent[y])
        return t->parent[x] < t->parent[y] ? -1 : 1;
    int64_t tx = ref_span(t, x)->ts_ns, ty = ref_span(t, y)->ts_ns;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return (x > y) - (x < y);
}

/* Orders position x before key (tid, depth, name, pos) (< 0), at it (0) or
 * after it (> 0); depth and name count as lo->by says. */
static int pos_vs_key(const struct link_order *lo, uint32_t x, uint64_t tid, uint32_t depth, uint32_t name, uint32_t pos)
{
    const struct stint_tm_span *p = ref_span(lo->t, x);
    if (p->tid != tid)
        return p->tid < tid ? -1 : 1;
    if ((lo->by & LINK_BY_DEPTH) && p->depth != depth)
        return p->depth < depth ? -1 : 1;
    if ((lo->by & LINK_BY_NAME) && p->name != name)
        return p->name < name ? -1 : 1;
    return (x > pos) - (x < pos);
}

/* Positions in the order ctx (a struct link_order) says. */
static int cmp_pos_key(const void *a, const void *b, void *ctx)
{
    const struct link_order *lo = ctx;
    uint32_t y = *(const uint32_t *)b;
    const struct stint_tm_span *q = ref_span(lo->t, y);
    return pos_vs_key(lo, *(const uint32_t *)a, q->tid, q->depth, q->name, y);
}

/* The first index of v[0..n) (sorted in order lo) at or after the key. */
static uint32_t lower_bound(const struct link_order *lo, const uint32_t *v, uint32_t n, uint64_t tid, uint32_t depth,
                            uint32_t name, uint32_t pos)
{
    uint32_t at = 0, hi = n;
    while (at < hi) {
        uint32_t mid = at + (hi - at) / 2;
        if (pos_vs_key(lo, v[mid], tid, depth, name, pos) < 0)
            at = mid + 1;
        else
            hi = mid;
    }
    return at;
}

/* Whether the span at position c lies within [ts, ts + dur] of the one at p. */
static int contains(const struct tree *t, uint32_t p, uint32_t c)
{
    const struct stint_tm_span *a = ref_span(t, p), *b = ref_span(t, c);
    return b->ts_ns >= a->ts_ns && (i128)b->ts_ns + b->dur_ns <= (i128)a->ts_ns + a->dur_ns;
}

/* Names mode: a span's parent is the name minus its last dotted component,
 * when the reference invocation has a span of that name. A node is a name:
 * only the first span of each name is drawn, the others get the parent
 * NAME_DUP, which no key is (a name's children were drawn again under every
 * span of the parent's name, and a repeated name's subtree once per span:
 * output quadratic in the repeats). */
#define NAME_DUP (TM_NONE - 1)
static void name_links(struct tree *t)
{
    const struct stint_tm_model *m = t->c->m;
    /* per name id: bit 0, the reference invocation has a span of it; bit 1, one was drawn */
    unsigned char *seen = stint_xcalloc((size_t)m->nstr + 1, 1);
    for (uint32_t i = 0; i < t->nref; i++)
        seen[ref_span(t, i)->name] = 1;
    for (uint32_t i = 0; i < t->nref; i++) {
        const struct stint_tm_span *s = ref_span(t, i);
        t->key[i] = s->name;
        t->parent[i] = TM_NONE;
        const char *nm = stint_tm_str(m, s->name), *dot = memrchr(nm, '.', stint_tm_str_len(m, s->name));
        uint32_t pid = dot ? stint_tm_str_find(m, nm, (size_t)(dot - nm)) : TM_NONE;
        if (pid != TM_NONE && (seen[pid] & 1))
            t->parent[i] = pid;
        if (seen[s->name] & 2)
            t->parent[i] = NAME_DUP;
        seen[s->name] |= 2;
    }
    free(seen);
}

/* Host spans of one tid, g[0..n) in input order. Read as post-order (spans
 * written when they end): a span adopts the pending deeper spans before it.
 * Read as pre-order (written when they start): a span's parent is the latest
 * span before it still open, exactly one level up. Either way the link is
 * by depth alone, as the analyses rebuild it (read_markers.c): a child out
 * of its parent's time stays its child. The reading whose links a parent
 * contains in time more often wins (a span lost from the log cannot turn a
 * log written at span end into one written parent first); post-order on a
 * tie (the reference's tracer writes spans as they end).
 * post, pre, stk: scratch for n. */
static void host_links(struct tree *t, const uint32_t *g, uint32_t n, uint32_t *post, uint32_t *pre, uint32_t *stk)
{
    uint32_t sp = 0, npost = 0, npre = 0;
    for (uint32_t k = 0; k < n; k++) { /* pending depths never decrease up the stack */
        uint32_t d = ref_span(t, g[k])->depth;
        post[k] = TM_NONE;
        while (sp && ref_span(t, g[stk[sp - 1]])->depth > d) {
            uint32_t j = stk[--sp];
            if (ref_span(t, g[j])->depth == d + 1) { /* (by depth, in or out of its time: as the analyses do) */
                post[j] = g[k];
                npost += (uint32_t)contains(t, g[k], g[j]);
            }
        }
        stk[sp++] = k;
    }
    sp = 0;
    for (uint32_t k = 0; k < n; k++) { /* the open spans, shallowest at the bottom */
        uint32_t d = ref_span(t, g[k])->depth;
        pre[k] = TM_NONE;
        while (sp && ref_span(t, g[stk[sp - 1]])->depth >= d)
            sp--;
        if (sp && d && ref_span(t, g[stk[sp - 1]])->depth == d - 1) {
            pre[k] = g[stk[sp - 1]];
            npre += (uint32_t)contains(t, g[stk[sp - 1]], g[k]);
        }
        stk[sp++] = k;
    }
    const uint32_t *win = npre > npost ? pre : post;
    for (uint32_t k = 0; k < n; k++)
        t->parent[g[k]] = win[k];
}

/* A device span one level below host spans (none of its own tid's device
 * spans before it is its parent): the first host span of its tid one level
 * up whose name prefixes its own (a dotted prefix), else the latest such host
 * span before it; TM_NONE without one. byname, bydepth: the host positions
 * sorted by (tid, depth, name, position) and (tid, depth, position). */
static uint32_t device_host_parent(const struct tree *t, uint32_t i, const uint32_t *byname,
                                   const uint32_t *bydepth, uint32_t nh)
{
    const struct stint_tm_model *m = t->c->m;
    const struct stint_tm_span *s = ref_span(t, i);
    uint32_t up = s->depth - 1, best = TM_NONE;
    const char *nm = stint_tm_str(m, s->name), *end = nm + stint_tm_str_len(m, s->name);
    const struct link_order by_name = {t, LINK_BY_DEPTH | LINK_BY_NAME}, by_depth = {t, LINK_BY_DEPTH};
    for (const char *dot = memchr(nm, '.', (size_t)(end - nm)); dot;
         dot = memchr(dot + 1, '.', (size_t)(end - dot - 1))) {
        uint32_t id = stint_tm_str_find(m, nm, (size_t)(dot - nm));
        if (id == TM_NONE)
            continue;
        uint32_t at = lower_bound(&by_name, byname, nh, s->tid, up, id, 0);
        if (at < nh && pos_vs_key(&by_name, byname[at], s->tid, up, id, UINT32_MAX) < 0 && byname[at] < best)
            best = byname[at];
    }
    if (best != TM_NONE)
        return best;
    uint32_t at = lower_bound(&by_depth, bydepth, nh, s->tid, up, 0, i);
    if (at && pos_vs_key(&by_depth, bydepth[at - 1], s->tid, up, 0, 0) >= 0)
        return bydepth[at - 1];
    return TM_NONE;
}

/* Depth mode: key = ref position. Host spans get their parents per tid
 * (host_links); device spans (clk=dev) are written parent first, so a
 * device span's parent is the latest device span before it on its tid one
 * level up, found as the nearest earlier device span less deep (a stack per
 * tid); a device span without one hangs under a host span
 * (device_host_parent). Device and host clocks differ: no time test there. */
static void depth_links(struct tree *t)
{
    uint32_t n = t->nref, nh = 0, nd = 0;
    uint32_t *host = stint_xmalloc(((size_t)n + 1) * sizeof *host), *dev = stint_xmalloc(((size_t)n + 1) * sizeof *dev);
    uint32_t *a = stint_xmalloc(((size_t)n + 1) * sizeof *a), *b = stint_xmalloc(((size_t)n + 1) * sizeof *b);
    uint32_t *stk = stint_xmalloc(((size_t)n + 1) * sizeof *stk);
    for (uint32_t i = 0; i < n; i++) {
        t->key[i] = i;
        t->parent[i] = TM_NONE;
        if (ref_span(t, i)->dev)
            dev[nd++] = i;
        else
            host[nh++] = i;
    }
    struct link_order by_tid = {t, 0}, by_name = {t, LINK_BY_DEPTH | LINK_BY_NAME}, by_depth = {t, LINK_BY_DEPTH};
    stint_xqsort_r(host, nh, sizeof *host, cmp_pos_key, &by_tid);
    stint_xqsort_r(dev, nd, sizeof *dev, cmp_pos_key, &by_tid);
    for (uint32_t g = 0, e; g < nh; g = e) {
        for (e = g + 1; e < nh && ref_span(t, host[e])->tid == ref_span(t, host[g])->tid; e++)
            ;
        host_links(t, host + g, e - g, a, b, stk);
    }
    /* a: host by (tid, depth, name, position); b: by (tid, depth, position) */
    memcpy(a, host, nh * sizeof *a);
    memcpy(b, host, nh * sizeof *b);
    stint_xqsort_r(a, nh, sizeof *a, cmp_pos_key, &by_name);
    stint_xqsort_r(b, nh, sizeof *b, cmp_pos_key, &by_depth);
    uint32_t sp = 0;
    for (uint32_t k = 0; k < nd; k++) {
        const struct stint_tm_span *s = ref_span(t, dev[k]);
        if (k && ref_span(t, dev[k - 1])->tid != s->tid)
            sp = 0; /* a new tid */
        while (sp && ref_span(t, stk[sp - 1])->depth >= s->depth)
            sp--;
        if (s->depth > 0) {
            if (sp && ref_span(t, stk[sp - 1])->depth == s->depth - 1)
                t->parent[dev[k]] = stk[sp - 1];
            else
                t->parent[dev[k]] = device_host_parent(t, dev[k], a, b, nh);
        }
        stk[sp++] = dev[k];
    }
    free(host);
    free(dev);
    free(a);
    free(b);
    free(stk);
}

/* Node keys and parents of the reference invocation's spans (names or
 * depth mode), then t->by_parent. */
static void tree_links(struct tree *t, int by_depth)
{
    if (by_depth)
        depth_links(t);
    else
        name_links(t);
    for (uint32_t i = 0; i < t->nref; i++)
        t->by_parent[i] = i;
    stint_xqsort_r(t->by_parent, t->nref, sizeof *t->by_parent, cmp_by_parent, t);
}

/* The tree view of bucket b: medians over its kept invocations, drawn in the
 * shape of the last one. In text mode, when warmup left none, says so. */
static void tree_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    struct tree t;
    memset(&t, 0, sizeof t);
    t.c = c;
    t.invs = stint_tout_kept(c, b, &t.k);
    char label[16];
    stint_tm_bucket_label(m, b, label);
    if (c->json) {
        stint_tout_callable_head(c, b, t.k);
        fputs(", \"nodes\": [", f);
    } else {
        if (!t.k) {
            stint_tout_dropped_bucket(c, b);
            return;
        }
        stint_tout_put_hid(f, m, m->buckets[b].hid);
        if (t.k > 1)
            fprintf(f, " (%s) \xe2\x80\x94 median of %u invocation(s)\n", label, t.k);
        else
            fprintf(f, " (%s) \xe2\x80\x94 1 invocation\n", label);
    }
    if (t.k) {
        const struct stint_tm_inv *ref = &m->invs[t.invs[t.k - 1]];
        t.med_us = name_medians(m, t.invs, t.k);
        t.ref = stint_xmalloc(((size_t)ref->nspans + 1) * sizeof *t.ref);
        t.key = stint_xmalloc(((size_t)ref->nspans + 1) * sizeof *t.key);
        t.parent = stint_xmalloc(((size_t)ref->nspans + 1) * sizeof *t.parent);
        t.by_parent = stint_xmalloc(((size_t)ref->nspans + 1) * sizeof *t.by_parent);
        for (uint32_t s = ref->first; s != TM_NONE; s = m->spans[s].next)
            t.ref[t.nref++] = s;
        tree_links(&t, c->tree_depth);
        uint32_t nr;
        const uint32_t *roots = kids_of(&t, TM_NONE, &nr);
        t.json_first = 1;
        for (uint32_t i = 0; i < nr; i++)
            emit_node(&t, roots[i], 0);
        free(t.med_us);
        free(t.ref);
        free(t.key);
        free(t.parent);
        free(t.by_parent);
    }
    if (c->json)
        fputs("]}", f);
    else
        fputc('\n', f);
}

void stint_tout_tree(const struct stint_tout_ctx *c)
{
    if (c->json)
        fprintf(c->out, "\"mode\": \"%s\", ", c->tree_depth ? "depth" : "names");
    stint_tout_each_callable(c, tree_bucket, tree_bucket);
}
