/*
 * analysis.c - interval unions, quantiles and the aggregated call tree (see
 * analysis.h). Everything is exact int64 ns except the interpolated
 * quantiles and means of stint_an_quantile/stint_an_mean, which are doubles
 * only at the very end; the call tree's mean stays an exact rational up to
 * the printed decimal, and its quantiles are nearest-rank values.
 *
 * The call tree follows each slice's parent, which may be on another track
 * (JSONL sessions give explicit parent ids): paths are resolved up the parent
 * chain, and a parent's self time subtracts the union of all its direct
 * children, clipped to the parent, wherever they ran.
 */
#include "analyze/analysis.h"
#include "base/intervals.h"
#include "base/tsparse.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int iv_cmp(const void *pa, const void *pb)
{
    const struct stint_iv *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

int64_t stint_an_union(struct stint_iv *iv, size_t n)
{
    int64_t ov;
    return stint_an_union_overlap(iv, n, &ov);
}

/* Sweep over starts in order with a small min-heap of the ends of the
 * intervals that cover the current point: covered-by-one when the heap is
 * non-empty, covered-by-two when it holds two or more. */
static void heap_push(int64_t *h, size_t *n, int64_t v)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i) {
        size_t p = (i - 1) / 2;
        if (h[p] <= h[i])
            break;
        int64_t t = h[p];
        h[p] = h[i];
        h[i] = t;
        i = p;
    }
}

static void heap_pop(int64_t *h, size_t *n)
{
    h[0] = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l] < h[m])
            m = l;
        if (r < *n && h[r] < h[m])
            m = r;
        if (m == i)
            break;
        int64_t t = h[m];
        h[m] = h[i];
        h[i] = t;
        i = m;
    }
}

int64_t stint_an_union_overlap(struct stint_iv *iv, size_t n, int64_t *overlap_ns)
{
    *overlap_ns = 0;
    if (n == 0)
        return 0;
    qsort(iv, n, sizeof *iv, iv_cmp);
    int64_t *h = malloc(n * sizeof *h);
    if (!h) {
        /* Without the heap, fall back to the plain union (overlap unknown: 0). */
        int64_t total = 0, l = 0, r = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            if (iv[i].end_ns <= iv[i].start_ns)
                continue;
            if (iv[i].start_ns > r) {
                if (r > l)
                    total = stint_sum_add(total, r - l);
                l = iv[i].start_ns;
                r = iv[i].end_ns;
            } else if (iv[i].end_ns > r)
                r = iv[i].end_ns;
        }
        return stint_sum_add(total, r > l ? r - l : 0);
    }
    size_t hn = 0;
    int64_t uni = 0, ov = 0, t = INT64_MIN;
    size_t i = 0;
    for (;;) {
        /* next event: the earliest pending end, or the next start */
        int64_t next_start = INT64_MAX;
        while (i < n && iv[i].end_ns <= iv[i].start_ns)
            i++;
        if (i < n)
            next_start = iv[i].start_ns;
        if (hn == 0 && i >= n)
            break;
        int64_t next = hn && h[0] <= next_start ? h[0] : next_start;
        if (hn >= 1 && t != INT64_MIN)
            uni = stint_sum_add(uni, next - t);
        if (hn >= 2 && t != INT64_MIN)
            ov = stint_sum_add(ov, next - t);
        t = next;
        if (hn && h[0] <= next_start)
            heap_pop(h, &hn);
        else {
            heap_push(h, &hn, iv[i].end_ns);
            i++;
        }
    }
    free(h);
    *overlap_ns = ov;
    return uni;
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

static int f64_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* (qsort must not see a NULL array, even for n == 0) */
void stint_an_sort_i64(int64_t *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, i64_cmp);
}

void stint_an_sort_f64(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, f64_cmp);
}

double stint_an_quantile(const int64_t *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo >= n - 1)
        return (double)v[n - 1];
    double frac = pos - (double)lo;
    return (double)v[lo] + frac * (double)(v[lo + 1] - v[lo]);
}

double stint_an_quantile_f64(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo >= n - 1)
        return v[n - 1];
    double frac = pos - (double)lo, d = v[lo + 1] - v[lo];
    if (frac == 0 || v[lo] == v[lo + 1])
        return v[lo];
    if (isinf(v[lo]) || isinf(v[lo + 1])) /* an infinite end is the value anywhere between (inf - inf is NaN) */
        return isinf(v[lo]) ? v[lo] : v[lo + 1];
    if (isinf(d)) /* values near +-DBL_MAX: weigh instead */
        return v[lo] * (1 - frac) + v[lo + 1] * frac;
    return v[lo] + frac * d;
}

const char *stint_an_us(char *buf, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, 32, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
    return buf;
}

const char *stint_an_us_f(char *buf, double ns)
{
    if (isnan(ns)) {
        snprintf(buf, 32, "-");
        return buf;
    }
    /* llround is undefined past the int64 range: clamp (only sums of centuries get there) */
    if (ns >= 9223372036854775807.0)
        return stint_an_us(buf, INT64_MAX);
    if (ns <= -9223372036854775808.0)
        return stint_an_us(buf, INT64_MIN);
    return stint_an_us(buf, (int64_t)llround(ns));
}

double stint_an_mean(const int64_t *v, size_t n)
{
    if (n == 0)
        return NAN;
    stint_i128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return (double)((long double)sum / (long double)n);
}

struct stint_an_ratio stint_an_mean_exact(const int64_t *v, size_t n)
{
    struct stint_an_ratio r = {0, 0};
    if (n == 0)
        return r;
    for (size_t i = 0; i < n; i++)
        r.num += v[i];
    r.den = (stint_i128)n;
    return r;
}

struct stint_an_ratio stint_an_quantile_rank(const int64_t *v, size_t n, unsigned pct)
{
    struct stint_an_ratio r = {0, 0};
    if (n == 0)
        return r;
    if (pct > 100)
        pct = 100;
    /* rank ceil(pct * n / 100), 1-based; 128-bit so that no n overflows */
    stint_i128 rank = ((stint_i128)pct * (stint_i128)n + 99) / 100;
    size_t at = rank > 0 ? (size_t)(rank - 1) : 0;
    r.num = v[at];
    r.den = 1;
    return r;
}

/* floor(a / b) for b > 0 */
static stint_i128 floor_div(stint_i128 a, stint_i128 b)
{
    stint_i128 q = a / b;
    if (a % b != 0 && a < 0)
        q--;
    return q;
}

const char *stint_an_fmt_ratio(char *buf, struct stint_an_ratio r, unsigned shift, unsigned decimals)
{
    if (r.den <= 0) {
        snprintf(buf, 64, "-");
        return buf;
    }
    if (shift > 6)
        shift = 6;
    if (decimals > 6)
        decimals = 6;
    stint_i128 pd = 1, ps = 1;
    for (unsigned k = 0; k < decimals; k++)
        pd *= 10;
    for (unsigned k = 0; k < shift; k++)
        ps *= 10;
    /* round half up: floor((2 * num * 10^decimals + D) / (2 * D)), D = den * 10^shift */
    stint_i128 d = r.den * ps;
    stint_i128 q = floor_div(2 * r.num * pd + d, 2 * d);
    int neg = q < 0;
    __extension__ typedef unsigned __int128 u128;
    u128 a = neg ? (u128)0 - (u128)q : (u128)q;
    char dig[48];
    size_t nd = 0;
    do {
        dig[nd++] = (char)('0' + (int)(a % 10));
        a /= 10;
    } while (a);
    while (nd <= decimals) /* at least one digit before the point */
        dig[nd++] = '0';
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    while (nd > decimals)
        buf[o++] = dig[--nd];
    if (decimals) {
        buf[o++] = '.';
        while (nd)
            buf[o++] = dig[--nd];
    }
    buf[o] = 0;
    return buf;
}

/* ---- call tree ---------------------------------------------------------- */

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static int tab_grow(struct stint_calltree *t)
{
    size_t cap = t->tabcap ? t->tabcap * 2 : 1024;
    uint32_t *tab = malloc(cap * sizeof *tab);
    if (!tab)
        return -1;
    memset(tab, 0xff, cap * sizeof *tab);
    for (size_t i = 0; i < t->n; i++) {
        size_t h = (size_t)mix(t->nodes[i].parent, t->nodes[i].name) & (cap - 1);
        while (tab[h] != STINT_NO_ID)
            h = (h + 1) & (cap - 1);
        tab[h] = (uint32_t)i;
    }
    free(t->tab);
    t->tab = tab;
    t->tabcap = cap;
    return 0;
}

static uint32_t node_get(struct stint_calltree *t, uint32_t parent, uint32_t name)
{
    if ((t->n + 1) * 2 > t->tabcap && tab_grow(t) != 0)
        return STINT_NO_ID;
    size_t h = (size_t)mix(parent, name) & (t->tabcap - 1);
    while (t->tab[h] != STINT_NO_ID) {
        const struct stint_tnode *nd = &t->nodes[t->tab[h]];
        if (nd->parent == parent && nd->name == name)
            return t->tab[h];
        h = (h + 1) & (t->tabcap - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        struct stint_tnode *nn = realloc(t->nodes, cap * sizeof *nn);
        if (!nn)
            return STINT_NO_ID;
        t->nodes = nn;
        t->cap = cap;
    }
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
    size_t *dcap;            /* per node: durs' capacity */
    size_t dcap_n;
    struct stint_flat_row *rows; /* per (name, clock): 2 * name + device */
    uint32_t *open;          /* per row: aggregated spans of it open (for outer calls) */
    size_t nrows;
    int explicit_parent;     /* a span whose parent is not on top of its track came */
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

/* Appends dur to node k's durations. */
static int tnode_dur(struct stint_tree_sink *s, uint32_t k, int64_t dur)
{
    if (k >= s->dcap_n) {
        size_t n = s->t->cap;
        size_t *d = realloc(s->dcap, n * sizeof *d);
        if (!d)
            return -1;
        memset(d + s->dcap_n, 0, (n - s->dcap_n) * sizeof *d);
        s->dcap = d;
        s->dcap_n = n;
    }
    struct stint_tnode *nd = &s->t->nodes[k];
    if (nd->ndurs == s->dcap[k]) {
        size_t c = s->dcap[k] ? s->dcap[k] * 2 : 4;
        int64_t *v = realloc(nd->durs, c * sizeof *v);
        if (!v)
            return -1;
        nd->durs = v;
        s->dcap[k] = c;
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
    if (s->oom || s->explicit_parent)
        return;
    if (ev->track != s->track) {
        while (s->sn)
            tframe_end(s);
        s->track = ev->track;
    }
    while (s->sn > ev->level)
        tframe_end(s);
    if (ev->slice1 || (ev->level && !ev->parent_on_top) || s->sn != ev->level) {
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
        size_t c = s->fcap ? s->fcap * 2 : 64;
        struct tframe *f = realloc(s->fr, c * sizeof *f);
        if (!f) {
            s->oom = 1;
            return;
        }
        s->fr = f;
        s->fcap = c;
    }
    struct tframe *fr = &s->fr[s->sn++];
    fr->node = node;
    fr->row = row;
    fr->ts_ns = ev->ts_ns;
    fr->dur_ns = ev->dur_ns;
    stint_union_acc_init(&fr->kids);
}

int stint_tree_sink_finish(struct stint_tree_sink *s, const struct stint_model *m)
{
    struct stint_calltree *t = s->t;
    while (s->sn)
        tframe_end(s);
    int rc = s->oom ? -1 : s->explicit_parent ? 1 : 0;
    if (rc == 0) {
        tree_lanes(t, m);
        size_t n = stint_model_nslices(m); /* (what the lean finish left: the slices off thread tracks) */
        for (size_t i = 0; i < n; i++)
            if (stint_model_track_at(m, stint_model_slice(m, i)->track)->kind != STINT_TRACK_THREAD)
                t->async++;
        for (size_t k = 0; k < t->n; k++)
            stint_an_sort_i64(t->nodes[k].durs, t->nodes[k].ndurs);
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
    free(s->dcap);
    free(s);
    return rc;
}

struct kid {
    uint32_t parent;
    struct stint_iv iv;
};

static int kid_cmp(const void *pa, const void *pb)
{
    const struct kid *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    return (a->iv.start_ns > b->iv.start_ns) - (a->iv.start_ns < b->iv.start_ns);
}

int stint_calltree_build(struct stint_calltree *t, const struct stint_model *m, const struct stint_filter *f)
{
    memset(t, 0, sizeof *t);
    size_t n = stint_model_nslices(m);
    t->slice_node = malloc((n ? n : 1) * sizeof *t->slice_node);
    t->slice_self = calloc(n ? n : 1, sizeof *t->slice_self);
    uint32_t *chain = malloc((n ? n : 1) * sizeof *chain);
    struct kid *kids = malloc((n ? n : 1) * sizeof *kids);
    int64_t *child_cov = calloc(n ? n : 1, sizeof *child_cov);
    if (!t->slice_node || !t->slice_self || !chain || !kids || !child_cov || tree_roots(t) != 0)
        goto oom;
    tree_lanes(t, m);
    /* pass 1: node per slice. A parent may sit on another track and after
     * its child in index order (JSONL explicit parents), so each chain is
     * resolved upward to the first slice with a node, then assigned down.
     * Instants on thread tracks get no node (marked `instant` until pass 2
     * counts them) and are stepped over in the chains: a slice nested in an
     * instant hangs under the instant's own parent. */
    const uint32_t unset = STINT_NO_ID - 1, instant = STINT_NO_ID - 2;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        t->slice_node[i] = stint_model_track_at(m, s->track)->kind != STINT_TRACK_THREAD ? STINT_NO_ID
                           : (s->flags & STINT_SLICE_INSTANT)                            ? instant
                                                                                          : unset;
    }
    for (size_t i = 0; i < n; i++) {
        if (t->slice_node[i] == STINT_NO_ID) {
            t->async++;
            continue;
        }
        if (t->slice_node[i] != unset)
            continue;
        size_t depth = 0, steps = 0;
        uint32_t c = (uint32_t)i;
        while (c != STINT_NO_ID && steps++ <= n) {
            if (t->slice_node[c] == instant) {
                c = stint_model_slice(m, c)->parent;
                continue;
            }
            if (t->slice_node[c] != unset || depth >= n)
                break;
            chain[depth++] = c;
            c = stint_model_slice(m, c)->parent;
        }
        uint32_t base;
        if (c != STINT_NO_ID && t->slice_node[c] != unset && t->slice_node[c] != STINT_NO_ID &&
            t->slice_node[c] != instant)
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
                goto oom;
            t->slice_node[k] = base;
        }
    }
    /* children's covered time per parent: union of the children clipped to
     * the parent (children may come from several tracks and overlap) */
    size_t nc = 0;
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
        kids[nc].parent = s->parent;
        kids[nc].iv.start_ns = cstart;
        kids[nc].iv.end_ns = cend;
        nc++;
    }
    qsort(kids, nc, sizeof *kids, kid_cmp);
    for (size_t a = 0; a < nc;) {
        size_t b = a;
        int64_t l = kids[a].iv.start_ns, r = kids[a].iv.end_ns, cov = 0;
        while (b < nc && kids[b].parent == kids[a].parent) {
            if (kids[b].iv.start_ns > r) {
                cov = stint_sum_add(cov, r - l);
                l = kids[b].iv.start_ns;
                r = kids[b].iv.end_ns;
            } else if (kids[b].iv.end_ns > r)
                r = kids[b].iv.end_ns;
            b++;
        }
        child_cov[kids[a].parent] = stint_sum_add(cov, r - l);
        a = b;
    }
    /* pass 2: aggregate the spans that pass the filter */
    for (size_t i = 0; i < n; i++) {
        uint32_t node = t->slice_node[i];
        if (node == STINT_NO_ID)
            continue;
        const struct stint_slice *s = stint_model_slice(m, i);
        /* a slice left out keeps no node (pass 1 needed it for its
         * descendants' paths): every later pass sees only aggregated slices */
        if (f && !stint_filter_slice(f, m, s)) {
            t->filtered_out++;
            t->slice_node[i] = STINT_NO_ID;
            continue;
        }
        if (node == instant) {
            t->instants++;
            t->slice_node[i] = STINT_NO_ID;
            continue;
        }
        if (s->dur_ns < 0) {
            t->unfinished++;
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
    /* durations per node for quantiles */
    for (size_t k = 0; k < t->n; k++) {
        if (!t->nodes[k].calls)
            continue;
        t->nodes[k].durs = malloc(t->nodes[k].calls * sizeof(int64_t));
        if (!t->nodes[k].durs)
            goto oom;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t node = t->slice_node[i];
        if (node == STINT_NO_ID)
            continue;
        struct stint_tnode *nd = &t->nodes[node];
        nd->durs[nd->ndurs++] = stint_model_slice(m, i)->dur_ns;
    }
    for (size_t k = 0; k < t->n; k++)
        stint_an_sort_i64(t->nodes[k].durs, t->nodes[k].ndurs);
    free(chain);
    free(kids);
    free(child_cov);
    return 0;
oom:
    free(chain);
    free(kids);
    free(child_cov);
    stint_calltree_free(t);
    return -1;
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
        r->calls++;
        r->self_ns = stint_sum_add(r->self_ns, t->slice_self[i]);
        if (s->dur_ns > r->max_ns)
            r->max_ns = s->dur_ns;
        /* outermost among the aggregated calls: an ancestor of the same name
         * that is filtered out, unfinished or an instant (no node) does not
         * count, or the call would be in no total at all */
        int outer = 1;
        for (uint32_t p = s->parent; p != STINT_NO_ID; p = stint_model_slice(m, p)->parent)
            if (stint_model_slice(m, p)->name == s->name && t->slice_node[p] != STINT_NO_ID) {
                outer = 0;
                break;
            }
        if (outer) {
            r->outer_calls++;
            r->total_ns = stint_sum_add(r->total_ns, s->dur_ns);
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < 2 * nstr; i++)
        if (rows[i].calls)
            rows[k++] = rows[i];
    *count = k;
    return rows;
}

static const struct stint_model *sort_model;
static enum stint_tree_sort sort_key;
static const struct stint_calltree *sort_tree;

static int child_cmp(const void *pa, const void *pb)
{
    const struct stint_tnode *a = &sort_tree->nodes[*(const uint32_t *)pa];
    const struct stint_tnode *b = &sort_tree->nodes[*(const uint32_t *)pb];
    int64_t ka, kb;
    switch (sort_key) {
    case STINT_TREE_SORT_SELF: ka = a->self_ns; kb = b->self_ns; break;
    case STINT_TREE_SORT_CALLS: ka = (int64_t)a->calls; kb = (int64_t)b->calls; break;
    default: ka = a->total_ns; kb = b->total_ns; break;
    }
    if (ka != kb)
        return ka > kb ? -1 : 1;
    return strcmp(stint_model_str(sort_model, a->name, NULL), stint_model_str(sort_model, b->name, NULL));
}

void stint_calltree_sort(struct stint_calltree *t, const struct stint_model *m, enum stint_tree_sort key)
{
    uint32_t *buf = malloc((t->n ? t->n : 1) * sizeof *buf);
    if (!buf)
        return; /* keeps first-seen order */
    sort_model = m;
    sort_key = key;
    sort_tree = t;
    for (size_t p = 0; p < t->n; p++) {
        size_t k = 0;
        for (uint32_t c = t->nodes[p].first_child; c != STINT_NO_ID; c = t->nodes[c].next_sibling)
            buf[k++] = c;
        if (k < 2)
            continue;
        qsort(buf, k, sizeof *buf, child_cmp);
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
