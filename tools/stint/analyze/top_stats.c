/* SPDX-License-Identifier: MIT */
/*
 * top_stats.c - the windowed, grouped figures of `stint top` (top_stats.h).
 *
 * Invariants: each grouping's table holds at most its cap of groups, in an
 * array that is never reallocated (pointers to groups stay valid during one
 * add) and an open-addressing index of twice the cap (slot = group index + 1,
 * rebuilt whole after a sweep retires groups). A lane's stack holds its most
 * recent outermost spans, innermost-last; every busy ns added to a slice is
 * taken back from the same slice when its span is absorbed (unless the slice
 * has left the window meanwhile). now only grows.
 */
#include "analyze/top_stats.h"

#include "analyze/sketch.h"
#include "base/hash.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_ROOTS STINT_TOP_BY_COUNT /* the hidden table of depth-0 spans by hid (TPOT) */
#define T_TABLES (STINT_TOP_BY_COUNT + 1)
#define LANE_STACK 32

static const uint32_t table_cap[T_TABLES] = {1024, 256, 256, 256, 256};

struct iv {
    int64_t s, e;
};

struct group {
    char *key;
    size_t key_len;
    uint64_t hash;
    int64_t last_k;             /* the newest slice a span of this group ended in */
    struct stint_sketch_window win;
    struct stint_sketch all;
    int64_t *busy_ns, *busy_k;  /* lanes: per ring slice, busy ns and the slice it holds */
    int64_t busy_all;
    struct iv *stack;           /* lanes: recent outermost spans */
    unsigned stack_n;
    uint64_t lost;
};

struct table {
    struct group *g;
    uint32_t n, cap;
    uint32_t *slot;
    uint32_t mask;
    struct group other;
    int has_other;
    int64_t swept_k;
};

struct stint_top {
    int64_t window_ns, slice_ns;
    unsigned slices;
    struct table tab[T_TABLES];
    int64_t now, first, last_end;
    uint64_t spans, late, other, retired, lost;
    struct stint_sketch tmp;
};

struct stint_top *stint_top_new(int64_t window_ns, unsigned slices)
{
    struct stint_top *t = stint_xcalloc(1, sizeof *t);
    t->slices = slices ? slices : 1;
    t->slice_ns = window_ns / (int64_t)t->slices;
    if (t->slice_ns < 1)
        t->slice_ns = 1;
    t->window_ns = t->slice_ns * (int64_t)t->slices;
    t->now = INT64_MIN;
    t->last_end = INT64_MIN;
    t->first = INT64_MAX;
    for (int i = 0; i < T_TABLES; i++) {
        struct table *tb = &t->tab[i];
        tb->cap = table_cap[i];
        tb->g = stint_xcalloc(tb->cap, sizeof *tb->g);
        tb->mask = 2 * tb->cap - 1; /* caps are powers of two */
        tb->slot = stint_xcalloc(2 * tb->cap, sizeof *tb->slot);
        tb->swept_k = INT64_MIN;
    }
    return t;
}

/* Frees one group's memory. */
static void group_free(struct group *g)
{
    free(g->key);
    stint_sketch_window_free(&g->win);
    stint_sketch_free(&g->all);
    free(g->busy_ns);
    free(g->busy_k);
    free(g->stack);
    memset(g, 0, sizeof *g);
}

void stint_top_free(struct stint_top *t)
{
    if (!t)
        return;
    for (int i = 0; i < T_TABLES; i++) {
        struct table *tb = &t->tab[i];
        for (uint32_t j = 0; j < tb->n; j++)
            group_free(&tb->g[j]);
        if (tb->has_other)
            group_free(&tb->other);
        free(tb->g);
        free(tb->slot);
    }
    stint_sketch_free(&t->tmp);
    free(t);
}

/* Sets up group g for key. */
static void group_init(struct stint_top *t, struct group *g, const char *key, size_t len, uint64_t h, int lane)
{
    memset(g, 0, sizeof *g);
    g->key = stint_xstrndup(key, len);
    g->key_len = len;
    g->hash = h;
    g->last_k = INT64_MIN;
    stint_sketch_window_init(&g->win, t->slices, t->slice_ns);
    if (lane) {
        g->busy_ns = stint_xcalloc(t->slices, sizeof *g->busy_ns);
        g->busy_k = stint_xmalloc(t->slices * sizeof *g->busy_k);
        for (unsigned i = 0; i < t->slices; i++)
            g->busy_k[i] = INT64_MIN;
        g->stack = stint_xmalloc(LANE_STACK * sizeof *g->stack);
    }
}

/* Rebuilds a table's index from its array. */
static void reindex(struct table *tb)
{
    memset(tb->slot, 0, (tb->mask + 1) * sizeof *tb->slot);
    for (uint32_t j = 0; j < tb->n; j++) {
        uint32_t s = (uint32_t)tb->g[j].hash & tb->mask;
        while (tb->slot[s])
            s = (s + 1) & tb->mask;
        tb->slot[s] = j + 1;
    }
}

/* Retires the groups with no span ending inside the window at now_k. */
static void sweep(struct stint_top *t, struct table *tb, int64_t now_k)
{
    uint32_t w = 0;
    for (uint32_t j = 0; j < tb->n; j++) {
        if (tb->g[j].last_k <= now_k - (int64_t)t->slices) {
            group_free(&tb->g[j]);
            t->retired++;
        } else {
            if (w != j)
                tb->g[w] = tb->g[j];
            w++;
        }
    }
    if (w != tb->n) {
        memset(&tb->g[w], 0, (tb->n - w) * sizeof *tb->g);
        tb->n = w;
        reindex(tb);
    }
    tb->swept_k = now_k;
}

/* The group of key in table `which`: found, made, or "(other)". */
static struct group *group_of(struct stint_top *t, int which, const char *key, size_t len, int64_t now_k)
{
    struct table *tb = &t->tab[which];
    uint64_t h = stint_hash_bytes(key, len);
    uint32_t s = (uint32_t)h & tb->mask;
    for (; tb->slot[s]; s = (s + 1) & tb->mask) {
        struct group *g = &tb->g[tb->slot[s] - 1];
        if (g->hash == h && g->key_len == len && memcmp(g->key, key, len) == 0)
            return g;
    }
    if (tb->n == tb->cap && tb->swept_k != now_k) {
        sweep(t, tb, now_k);
        return group_of(t, which, key, len, now_k);
    }
    int lane = which == STINT_TOP_BY_LANE;
    if (tb->n == tb->cap) {
        t->other++;
        if (!tb->has_other) {
            group_init(t, &tb->other, "(other)", 7, 0, lane);
            tb->has_other = 1;
        }
        return &tb->other;
    }
    struct group *g = &tb->g[tb->n];
    group_init(t, g, key, len, h, lane);
    tb->slot[s] = ++tb->n;
    return g;
}

/* The slice number of time x (floor division, as the sketch window's). */
static int64_t slice_k(const struct stint_top *t, int64_t x)
{
    int64_t k = x / t->slice_ns;
    return x % t->slice_ns < 0 ? k - 1 : k;
}

/* The ring entry of slice k. */
static unsigned ring_of(const struct stint_top *t, int64_t k)
{
    int64_t r = k % (int64_t)t->slices;
    return (unsigned)(r < 0 ? r + t->slices : r);
}

/* Adds (sign 1) or takes back (sign -1) the part of [s, e) inside each
 * window slice to the lane's busy ring. */
static void spread(struct stint_top *t, struct group *g, int64_t s, int64_t e, int sign, int64_t now_k)
{
    if (e <= s)
        return;
    int64_t k = slice_k(t, s), k1 = slice_k(t, e - 1);
    if (k < now_k - (int64_t)t->slices + 1)
        k = now_k - (int64_t)t->slices + 1;
    for (; k <= k1 && k <= now_k; k++) {
        int64_t lo = k * t->slice_ns, hi = lo + t->slice_ns;
        int64_t part = (e < hi ? e : hi) - (s > lo ? s : lo);
        unsigned i = ring_of(t, k);
        if (g->busy_k[i] != k) {
            if (sign < 0)
                continue;
            g->busy_k[i] = k;
            g->busy_ns[i] = 0;
        }
        g->busy_ns[i] += sign * part;
    }
}

/* A lane's new span [s, e): absorbs the spans it contains, then counts. */
static void lane_busy(struct stint_top *t, struct group *g, int64_t s, int64_t e, int64_t now_k)
{
    while (g->stack_n && g->stack[g->stack_n - 1].s >= s && g->stack[g->stack_n - 1].e <= e) {
        struct iv in = g->stack[--g->stack_n];
        spread(t, g, in.s, in.e, -1, now_k);
        g->busy_all -= in.e - in.s;
    }
    spread(t, g, s, e, 1, now_k);
    g->busy_all += e - s;
    if (g->stack_n == LANE_STACK) {
        memmove(g->stack, g->stack + 1, (LANE_STACK - 1) * sizeof *g->stack);
        g->stack_n--;
    }
    g->stack[g->stack_n++] = (struct iv){s, e};
}

/* Counts one span in group g. */
static void count_in(struct group *g, int64_t now_k, int64_t end, int64_t end_k, int64_t dur, int32_t bucket)
{
    if (end_k > g->last_k)
        g->last_k = end_k;
    stint_sketch_window_add_at(&g->win, now_k, end, dur, bucket);
    stint_sketch_add_at(&g->all, dur, bucket);
}

int stint_top_add(struct stint_top *t, const struct stint_top_span *sp)
{
    if (sp->dur_ns < 0 || !stint_ts_in_range(sp->ts_ns) || !stint_end_in_range(sp->ts_ns, sp->dur_ns))
        return 0;
    int64_t end = sp->ts_ns + sp->dur_ns;
    if (end > t->now)
        t->now = end;
    if (end > t->last_end)
        t->last_end = end;
    if (sp->ts_ns < t->first)
        t->first = sp->ts_ns;
    t->spans++;
    int64_t now_k = slice_k(t, t->now), end_k = slice_k(t, end);
    if (end_k <= now_k - (int64_t)t->slices)
        t->late++;
    int32_t bucket = stint_sketch_bucket(sp->dur_ns);
    char kb[64];
    int n;
    count_in(group_of(t, STINT_TOP_BY_NAME, sp->name, sp->name_len, now_k), now_k, end, end_k, sp->dur_ns, bucket);
    n = sp->has_hid ? snprintf(kb, sizeof kb, "0x%016llx", (unsigned long long)sp->hid) : snprintf(kb, sizeof kb, "-");
    count_in(group_of(t, STINT_TOP_BY_HID, kb, (size_t)n, now_k), now_k, end, end_k, sp->dur_ns, bucket);
    if (sp->depth == 0 && sp->has_hid)
        count_in(group_of(t, T_ROOTS, kb, (size_t)n, now_k), now_k, end, end_k, sp->dur_ns, bucket);
    n = sp->has_inv ? snprintf(kb, sizeof kb, "%llu/%llu", (unsigned long long)sp->pid, (unsigned long long)sp->inv)
                    : snprintf(kb, sizeof kb, "%llu/-", (unsigned long long)sp->pid);
    count_in(group_of(t, STINT_TOP_BY_INV, kb, (size_t)n, now_k), now_k, end, end_k, sp->dur_ns, bucket);
    n = snprintf(kb, sizeof kb, "%llu/%llu", (unsigned long long)sp->pid, (unsigned long long)sp->tid);
    struct group *lane = group_of(t, STINT_TOP_BY_LANE, kb, (size_t)n, now_k);
    count_in(lane, now_k, end, end_k, sp->dur_ns, bucket);
    if (sp->depth != STINT_TOP_SESSION_ROOT)
        lane_busy(t, lane, sp->ts_ns, end, now_k);
    return 1;
}

void stint_top_loss(struct stint_top *t, uint64_t pid, uint64_t tid, uint64_t count)
{
    char kb[64];
    int n = snprintf(kb, sizeof kb, "%llu/%llu", (unsigned long long)pid, (unsigned long long)tid);
    int64_t now_k = t->now == INT64_MIN ? INT64_MIN / 2 : slice_k(t, t->now);
    struct group *g = group_of(t, STINT_TOP_BY_LANE, kb, (size_t)n, now_k);
    if (now_k > g->last_k)
        g->last_k = now_k;
    g->lost = stint_count_add(g->lost, count);
    t->lost = stint_count_add(t->lost, count);
}

void stint_top_set_now(struct stint_top *t, int64_t now_ns)
{
    if (now_ns > t->now)
        t->now = now_ns;
}

int64_t stint_top_last_end(const struct stint_top *t)
{
    return t->last_end;
}

/* The window's slice number now, and its covered span and since-start span. */
static int64_t spans_now(const struct stint_top *t, int64_t *covered, int64_t *since)
{
    *covered = *since = 0;
    if (t->now == INT64_MIN || t->first == INT64_MAX)
        return INT64_MIN / 2;
    int64_t now_k = slice_k(t, t->now);
    int64_t start = (now_k - (int64_t)t->slices + 1) * t->slice_ns;
    if (start < t->first)
        start = t->first;
    *covered = t->now - start;
    *since = t->now - t->first;
    return now_k;
}

/* The figures of sketch s over a span of span_ns. */
static void fig_of(const struct stint_sketch *s, int64_t span_ns, struct stint_top_fig *f)
{
    memset(f, 0, sizeof *f);
    f->calls = s->count;
    if (!s->count)
        return;
    f->rate = span_ns > 0 ? (double)s->count * 1e9 / (double)span_ns : 0;
    f->mean = s->sum / (int64_t)s->count;
    f->p50 = stint_sketch_quantile(s, 0.50);
    f->p90 = stint_sketch_quantile(s, 0.90);
    f->p99 = stint_sketch_quantile(s, 0.99);
    f->max = s->max;
}

/* A share of span_ns in percent, 0..100. */
static double pct(int64_t busy, int64_t span_ns)
{
    if (span_ns <= 0 || busy <= 0)
        return 0;
    double p = 100.0 * (double)busy / (double)span_ns;
    return p > 100 ? 100 : p;
}

/* One group's row at now_k. */
static void row_of(struct stint_top *t, struct group *g, int64_t now_k, int64_t covered, int64_t since,
                   struct stint_top_row *r)
{
    r->key = g->key;
    r->lost = g->lost;
    stint_sketch_clear(&t->tmp);
    stint_sketch_window_merge(&g->win, now_k, &t->tmp);
    fig_of(&t->tmp, covered, &r->win);
    fig_of(&g->all, since, &r->all);
    if (g->busy_ns) {
        int64_t b = 0;
        for (unsigned i = 0; i < t->slices; i++)
            if (g->busy_k[i] != INT64_MIN && g->busy_k[i] <= now_k && g->busy_k[i] > now_k - (int64_t)t->slices)
                b += g->busy_ns[i];
        r->win.busy_pct = pct(b, covered);
        r->all.busy_pct = pct(g->busy_all, since);
    }
}

void stint_top_rows(struct stint_top *t, enum stint_top_by by, struct stint_top_row **rows, size_t *cap, size_t *n)
{
    int64_t covered, since;
    int64_t now_k = spans_now(t, &covered, &since);
    struct table *tb = &t->tab[by];
    *n = 0;
    *rows = stint_xgrow(*rows, cap, (size_t)tb->n + 1, sizeof **rows, 64);
    for (uint32_t j = 0; j < tb->n; j++)
        row_of(t, &tb->g[j], now_k, covered, since, &(*rows)[(*n)++]);
    if (tb->has_other)
        row_of(t, &tb->other, now_k, covered, since, &(*rows)[(*n)++]);
}

void stint_top_get_tpot(struct stint_top *t, struct stint_top_tpot *out)
{
    memset(out, 0, sizeof *out);
    struct table *tb = &t->tab[T_ROOTS];
    struct group *best = NULL;
    for (uint32_t j = 0; j < tb->n; j++) {
        struct group *g = &tb->g[j];
        if (!best || g->all.count > best->all.count || (g->all.count == best->all.count && strcmp(g->key, best->key) < 0))
            best = g;
    }
    out->buckets = tb->n;
    if (!best)
        return;
    int64_t covered, since;
    int64_t now_k = spans_now(t, &covered, &since);
    struct stint_top_row r;
    row_of(t, best, now_k, covered, since, &r);
    out->have = 1;
    out->hid = strtoull(best->key, NULL, 16);
    out->win = r.win;
    out->all = r.all;
}

void stint_top_get_counts(const struct stint_top *t, struct stint_top_counts *out)
{
    memset(out, 0, sizeof *out);
    out->spans = t->spans;
    out->late = t->late;
    out->other = t->other;
    out->retired = t->retired;
    out->lost = t->lost;
    out->first_ns = t->first;
    out->now_ns = t->now;
    spans_now(t, &out->covered_ns, &out->since_ns);
    size_t b = 0;
    for (int i = 0; i < T_TABLES; i++) {
        const struct table *tb = &t->tab[i];
        b += tb->cap * sizeof *tb->g + (tb->mask + 1) * sizeof *tb->slot;
        for (uint32_t j = 0; j < tb->n; j++) {
            const struct group *g = &tb->g[j];
            b += g->key_len + 1 + stint_sketch_window_bytes(&g->win) + stint_sketch_bytes(&g->all);
            if (g->busy_ns)
                b += t->slices * 2 * sizeof(int64_t) + LANE_STACK * sizeof(struct iv);
        }
    }
    out->bytes = b;
}

static const char *const by_names[STINT_TOP_BY_COUNT] = {"name", "hid", "inv", "lane"};
static const char *const by_headings[STINT_TOP_BY_COUNT] = {"name", "hid", "pid/inv", "pid/tid"};

const char *stint_top_by_name(enum stint_top_by by)
{
    return by_names[by];
}

const char *stint_top_by_heading(enum stint_top_by by)
{
    return by_headings[by];
}

int stint_top_by_parse(const char *s)
{
    for (int i = 0; i < STINT_TOP_BY_COUNT; i++)
        if (strcmp(s, by_names[i]) == 0)
            return i;
    return -1;
}
