/* SPDX-License-Identifier: MIT */
/*
 * device_window.c - the per-invocation device window of a marker log and
 * its hid buckets (device_window.h).
 *
 * Invariants: one entry per device-clock lane that has a finished root
 * span; its figures come from that lane's slices only (device clock), but
 * for the host wall, which the marker reader recorded on the lane (host
 * clock); phases are the roots' direct children by the model's parents,
 * whatever overlaps whatever; buckets and their invocations come out in a
 * fixed order (most invocations first, then first seen; within a bucket
 * by pid, then inv), never the hash's or the input's interleaving.
 */
#include "analyze/device_window.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void stint_devwin_phases(struct stint_interval *iv, size_t n, int64_t *union_ns, int64_t *concurrent_ns,
                         uint32_t *nconc)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) /* (an empty interval overlaps nothing and covers nothing) */
        if (iv[i].end > iv[i].start)
            iv[k++] = iv[i];
    n = k;
    stint_intervals_sort(iv, n);
    int64_t uni = 0, conc = 0, ue = INT64_MIN, ce = INT64_MIN;
    int64_t reach = INT64_MIN; /* the furthest end of iv[0..k) */
    uint32_t nc = 0;
    for (k = 0; k < n; k++) {
        int64_t a = iv[k].start, b = iv[k].end;
        /* sorted by start: iv[k] overlaps another when one before it ends after
         * its start, or the next one starts before its end */
        int over = reach > a || (k + 1 < n && iv[k + 1].start < b);
        if (b > reach)
            reach = b;
        uni += b > ue ? b - (a > ue ? a : ue) : 0;
        ue = b > ue ? b : ue;
        if (!over)
            continue;
        nc++;
        conc += b > ce ? b - (a > ce ? a : ce) : 0;
        ce = b > ce ? b : ce;
    }
    *union_ns = uni;
    *concurrent_ns = conc;
    *nconc = nc;
}

double stint_devwin_mean(const struct stint_devwin_stat *s)
{
    return s->n ? (double)(s->sum_ns / s->n) : 0.0;
}

/* Whether name's last dotted part is leaf. */
static int leaf_is(const struct stint_model *m, uint32_t name, const char *leaf)
{
    size_t n, l = strlen(leaf);
    const char *s = stint_model_str(m, name, &n);
    return n >= l && !memcmp(s + n - l, leaf, l) && (n == l || s[n - l - 1] == '.');
}

static void stat_add(struct stint_devwin_stat *s, int64_t v)
{
    if (v < 0)
        return;
    if (!s->n || v < s->min_ns)
        s->min_ns = v;
    if (!s->n || v > s->max_ns)
        s->max_ns = v;
    s->n++;
    s->sum_ns += v;
}

/* The window of the device lane whose slices are sl[a..b) (one track):
 * 1 and *d filled, or 0 when it has no finished root (or f leaves its
 * first root out). iv: scratch for b - a intervals. */
static int lane_window(const struct stint_model *m, size_t a, size_t b, const struct stint_filter *f,
                       struct stint_interval *iv, struct stint_devwin *d)
{
    size_t nr = 0, np = 0;
    int64_t o_lo = 0, o_hi = 0, s_lo = 0, s_hi = 0;
    int orch = 0, sched = 0;
    for (size_t i = a; i < b; i++) { /* roots first, at the front of iv */
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->parent != STINT_NO_ID || s->dur_ns < 0 || (s->flags & STINT_SLICE_INSTANT))
            continue;
        if (!nr && f && !stint_filter_slice(f, m, s))
            return 0;
        iv[nr++] = (struct stint_interval){s->ts_ns, s->ts_ns + s->dur_ns};
    }
    if (!nr)
        return 0;
    d->device_wall_ns = stint_intervals_union(iv, nr);
    for (size_t i = a; i < b; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->parent == STINT_NO_ID || s->dur_ns < 0 || (s->flags & STINT_SLICE_INSTANT) ||
            stint_model_slice(m, s->parent)->parent != STINT_NO_ID)
            continue;
        int64_t lo = s->ts_ns, hi = s->ts_ns + s->dur_ns;
        iv[np++] = (struct stint_interval){lo, hi};
        if (leaf_is(m, s->name, "orch") && !orch++)
            o_lo = lo, o_hi = hi;
        else if (leaf_is(m, s->name, "sched") && !sched++)
            s_lo = lo, s_hi = hi;
    }
    d->phases = (uint32_t)np;
    stint_devwin_phases(iv, np, &d->phases_ns, &d->concurrent_ns, &d->concurrent);
    d->orch_sched_ns = -1;
    if (orch && sched) { /* (the first of each, as `timing --tree` takes them) */
        struct stint_interval two[2] = {{o_lo, o_hi}, {s_lo, s_hi}};
        d->orch_sched_ns = stint_intervals_union(two, 2);
    }
    return 1;
}

/* qsort_r's context for inv_cmp: each invocation's bucket rank. */
static int inv_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_devwin *x = pa, *y = pb;
    const uint32_t *rank = ctx;
    if (rank[x->lane] != rank[y->lane])
        return rank[x->lane] < rank[y->lane] ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->inv > y->inv) - (x->inv < y->inv);
}

static int bucket_cmp(const void *pa, const void *pb)
{
    const struct stint_devwin_bucket *x = pa, *y = pb;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first); /* (first: the first seen's index, for now) */
}

/* Groups w's invocations (in lane order) into hid buckets and orders both. */
static void make_buckets(struct stint_devwins *w, size_t nlanes)
{
    struct stint_devwin_bucket *bk = stint_xcalloc(w->n ? w->n : 1, sizeof *bk);
    size_t nb = 0;
    for (size_t k = 0; k < w->n; k++) { /* (few buckets: a scan) */
        size_t b = 0;
        while (b < nb && bk[b].hid != w->inv[k].hid)
            b++;
        if (b == nb)
            bk[nb++] = (struct stint_devwin_bucket){.hid = w->inv[k].hid, .first = (uint32_t)k};
        bk[b].n++;
    }
    if (nb > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(bk, nb, sizeof *bk, bucket_cmp);
    uint32_t *rank = stint_xcalloc(nlanes ? nlanes : 1, sizeof *rank);
    for (size_t k = 0; k < w->n; k++) {
        size_t b = 0;
        while (bk[b].hid != w->inv[k].hid)
            b++;
        rank[w->inv[k].lane] = (uint32_t)b;
    }
    if (w->n > 1) /* (an empty array may have a NULL base) */
        stint_xqsort_r(w->inv, w->n, sizeof *w->inv, inv_cmp, rank);
    for (size_t k = 0, b = 0; k < w->n; k++) {
        const struct stint_devwin *d = &w->inv[k];
        if (k && rank[d->lane] != rank[w->inv[k - 1].lane])
            b++;
        struct stint_devwin_bucket *B = &bk[b];
        if (k == 0 || rank[d->lane] != rank[w->inv[k - 1].lane])
            B->first = (uint32_t)k;
        stat_add(&B->host_wall, d->host_wall_ns);
        stat_add(&B->device_wall, d->device_wall_ns);
        stat_add(&B->phases, d->phases_ns);
        stat_add(&B->concurrent, d->concurrent_ns);
        stat_add(&B->orch_sched, d->orch_sched_ns);
        if (d->host_wall_ns > 0) {
            B->share_sum += (double)d->device_wall_ns / (double)d->host_wall_ns;
            B->share_n++;
        }
    }
    free(rank);
    w->bk = bk;
    w->nbk = nb;
}

void stint_devwins_build(struct stint_devwins *w, const struct stint_model *m, const struct stint_filter *f)
{
    memset(w, 0, sizeof *w);
    if (f && !stint_filter_active(f))
        f = NULL;
    size_t n = stint_model_nslices(m), ndev = 0;
    for (size_t l = 0; l < m->lanes.len; l++)
        ndev += stint_model_lane_at(m, (uint32_t)l)->clock == STINT_CLOCK_DEVICE;
    if (!ndev || !n)
        return;
    w->inv = stint_xcalloc(ndev, sizeof *w->inv);
    struct stint_interval *iv = stint_xmalloc(n * sizeof *iv);
    for (size_t a = 0, b; a < n; a = b) { /* (slices are grouped by track after finish) */
        uint32_t t = stint_model_slice(m, a)->track;
        for (b = a + 1; b < n && stint_model_slice(m, b)->track == t; b++)
            ;
        const struct stint_track *tr = stint_model_track_at(m, t);
        if (!stint_model_track_device(m, tr) || w->n == ndev)
            continue;
        const struct stint_lane *ln = stint_model_lane_at(m, tr->lane);
        struct stint_devwin d = {.pid = ln->pid, .inv = ln->tid, .lane = tr->lane, .hid = ln->hid,
                                 .host_wall_ns = ln->host_wall_ns ? ln->host_wall_ns : -1};
        if (lane_window(m, a, b, f, iv, &d))
            w->inv[w->n++] = d;
    }
    free(iv);
    make_buckets(w, m->lanes.len);
}

void stint_devwins_free(struct stint_devwins *w)
{
    free(w->inv);
    free(w->bk);
    memset(w, 0, sizeof *w);
}

/* ---- output --------------------------------------------------------------------------------- */

/* The hid as written: hex digits (a marker log's hid is hex; anything else
 * is shown as '?', so the text needs no escaping). */
static void put_hid(FILE *f, const struct stint_model *m, uint32_t hid)
{
    size_t n;
    const char *s = stint_model_str(m, hid, &n);
    if (!n)
        fputs("-", f);
    for (size_t i = 0; i < n && i < 64; i++)
        putc((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F') ? s[i] : '?',
             f);
}

static void put_us(FILE *f, int64_t ns)
{
    if (ns < 0)
        fprintf(f, " %13s", "-");
    else
        fprintf(f, " %10lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* (what: ASCII, but for one 3-byte sign in "orch ∪ sched", which takes one column) */
static void put_stat_row(FILE *f, const char *what, const struct stint_devwin_stat *s)
{
    fprintf(f, "      %-*s", strstr(what, "\xe2") ? 28 : 26, what);
    if (!s->n) {
        fprintf(f, " %13s %13s %13s\n", "-", "-", "-");
        return;
    }
    double mean = stint_devwin_mean(s);
    fprintf(f, " %14.3f", mean / 1000.0);
    put_us(f, s->min_ns);
    put_us(f, s->max_ns);
    putc('\n', f);
}

/* Per-invocation rows are printed up to this many invocations (--json lists all). */
#define DEVWIN_TEXT_ROWS 32

/* Whether some invocation has a phase: the section is for logs with device
 * phases (a device lane of one span says nothing the names table does not). */
static int any_phase(const struct stint_devwins *w)
{
    for (size_t k = 0; k < w->n; k++)
        if (w->inv[k].phases)
            return 1;
    return 0;
}

void stint_devwins_put_text(FILE *f, const struct stint_devwins *w, const struct stint_model *m)
{
    if (!any_phase(w))
        return;
    fputs("\ndevice window  (per invocation: device wall = union of the device lane's root spans; phases = union "
          "of their\n        direct children; concurrent = union of the phases that overlap another phase; orch "
          "\xe2\x88\xaa sched = union\n        of those two phases; all on the device clock. host wall = the "
          "invocation's outermost host span,\n        host clock; device share = device wall / host wall. "
          "Durations compare across clocks, timestamps do not)\n", f);
    for (size_t b = 0; b < w->nbk; b++) {
        const struct stint_devwin_bucket *B = &w->bk[b];
        fputs("  hid ", f);
        put_hid(f, m, B->hid);
        fprintf(f, ": %u invocation(s); in us over them:        mean           min           max\n", B->n);
        put_stat_row(f, "host wall [host clock]", &B->host_wall);
        put_stat_row(f, "device wall", &B->device_wall);
        put_stat_row(f, "phases (union)", &B->phases);
        put_stat_row(f, "concurrent window (union)", &B->concurrent);
        put_stat_row(f, "orch \xe2\x88\xaa sched", &B->orch_sched);
        if (B->share_n)
            fprintf(f, "      %-26s %13.1f%%  (mean over %u invocation(s))\n", "device share of host wall",
                    100.0 * B->share_sum / B->share_n, B->share_n);
    }
    if (w->n > DEVWIN_TEXT_ROWS) {
        fprintf(f, "  (%zu invocations: --json lists each)\n", w->n);
        return;
    }
    fprintf(f, "  %8s %8s  %-16s %14s %14s %14s %14s %14s %7s\n", "pid", "inv", "hid", "host_wall_us", "device_wall_us",
            "phases_us", "concurrent_us", "orch|sched_us", "share");
    for (size_t k = 0; k < w->n; k++) {
        const struct stint_devwin *d = &w->inv[k];
        fprintf(f, "  %8lld %8lld  ", (long long)d->pid, (long long)d->inv);
        size_t hn;
        stint_model_str(m, d->hid, &hn);
        put_hid(f, m, d->hid);
        fprintf(f, "%*s", hn < 16 ? (int)(16 - (hn ? hn : 1)) : 0, "");
        put_us(f, d->host_wall_ns);
        put_us(f, d->device_wall_ns);
        put_us(f, d->phases_ns);
        put_us(f, d->concurrent_ns);
        put_us(f, d->orch_sched_ns);
        if (d->host_wall_ns > 0)
            fprintf(f, " %6.1f%%\n", 100.0 * (double)d->device_wall_ns / (double)d->host_wall_ns);
        else
            fprintf(f, " %7s\n", "-");
    }
}

static void put_stat_json(FILE *f, const char *key, const struct stint_devwin_stat *s)
{
    fprintf(f, ",\"%s\":", key);
    if (!s->n) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"invocations\":%u,\"mean\":%.3f,\"min\":%lld,\"max\":%lld}", s->n, stint_devwin_mean(s),
            (long long)s->min_ns, (long long)s->max_ns);
}

static void put_ns_json(FILE *f, const char *key, int64_t ns)
{
    if (ns < 0)
        fprintf(f, ",\"%s\":null", key);
    else
        fprintf(f, ",\"%s\":%lld", key, (long long)ns);
}

void stint_devwins_put_json(FILE *f, const struct stint_devwins *w, const struct stint_model *m)
{
    if (!any_phase(w))
        return;
    fputs(",\n\"device_windows\":{\"scope\":{\"clock\":\"device, per invocation (one device lane per pid and inv)"
          "\",\"device_wall_ns\":\"union of the lane's root spans\",\"phases_ns\":\"union of the roots' direct "
          "children\",\"concurrent_ns\":\"union of the phases that overlap another phase\",\"orch_sched_ns\":"
          "\"union of the orch and sched phases (null unless both ran)\",\"host_wall_ns\":\"the invocation's "
          "outermost host span, host clock (null: none)\",\"buckets\":\"mean, min and max over the invocations of "
          "one hid that have the figure; device_share_mean: mean of device_wall / host_wall\"},\n\"buckets\":[",
          f);
    for (size_t b = 0; b < w->nbk; b++) {
        const struct stint_devwin_bucket *B = &w->bk[b];
        fputs(b ? ",\n{\"hid\":\"" : "\n{\"hid\":\"", f);
        put_hid(f, m, B->hid);
        fprintf(f, "\",\"invocations\":%u", B->n);
        put_stat_json(f, "host_wall_ns", &B->host_wall);
        put_stat_json(f, "device_wall_ns", &B->device_wall);
        put_stat_json(f, "phases_ns", &B->phases);
        put_stat_json(f, "concurrent_ns", &B->concurrent);
        put_stat_json(f, "orch_sched_ns", &B->orch_sched);
        if (B->share_n)
            fprintf(f, ",\"device_share_mean\":%.6f}", B->share_sum / B->share_n);
        else
            fputs(",\"device_share_mean\":null}", f);
    }
    fputs("],\n\"invocations\":[", f);
    for (size_t k = 0; k < w->n; k++) {
        const struct stint_devwin *d = &w->inv[k];
        fprintf(f, "%s\n{\"pid\":%lld,\"inv\":%lld,\"hid\":\"", k ? "," : "", (long long)d->pid, (long long)d->inv);
        put_hid(f, m, d->hid);
        fputc('"', f);
        put_ns_json(f, "host_wall_ns", d->host_wall_ns);
        put_ns_json(f, "device_wall_ns", d->device_wall_ns);
        put_ns_json(f, "phases_ns", d->phases_ns);
        put_ns_json(f, "concurrent_ns", d->concurrent_ns);
        put_ns_json(f, "orch_sched_ns", d->orch_sched_ns);
        fprintf(f, ",\"phases\":%u,\"concurrent_siblings\":%u}", d->phases, d->concurrent);
    }
    fputs("]}", f);
}
