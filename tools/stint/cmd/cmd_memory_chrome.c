/* SPDX-License-Identifier: MIT */
/*
 * cmd_memory_chrome.c - `stint memory TRACE.json`: the memory report of a
 * Chrome trace from PyTorch's profiler (Kineto) with profile_memory on.
 *
 * Kineto writes one instant "[memory]" per allocation or free, with args
 * Device Type, Device Id, Bytes (> 0 an allocation, < 0 a free), Total
 * Allocated and Total Reserved (the allocator's totals after it). The
 * Chrome reader turns them into counter series "[memory] DEVICE KEY"
 * (read/chrome_phase.c); this report reads those series per (process,
 * device): records, allocations and frees with their bytes, the peak of
 * Total Allocated and of Total Reserved and when, and the totals at the
 * end; --timeline lists every record. Totals are the allocator's own
 * figures, taken as written (no replay: Kineto gives no tensor ids).
 *
 * --time-range A:B selects the records with A <= ts < B; the totals at A
 * (what the last record before A left) count as a point at A for the peaks,
 * as the JSONL report carries live bytes in.
 */
#include "cmd/cmd_memory_chrome.h"
#include "base/cmp.h"
#include "base/exitcode.h"
#include "base/xalloc.h"
#include "write/textout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { K_BYTES, K_ALLOC, K_RESERVED, K_KINDS };
static const char *const key_name[K_KINDS] = {"Bytes", "Total Allocated", "Total Reserved"};

/* One sample of one of a device's series, in file order (seq). */
struct msample {
    int64_t ts;
    uint64_t seq;
    double v;
};

/* One (process, device): its three series' samples. */
struct mdev {
    int64_t pid;
    char name[64];
    struct msample *s[K_KINDS];
    size_t n[K_KINDS], cap[K_KINDS];
};

/* What one series says inside the window (see the file comment). */
struct mstat {
    uint64_t records;
    int64_t peak, peak_ts, end, at_start;
    int have, carried;
};

static int ms_cmp(const void *pa, const void *pb)
{
    const struct msample *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The device of (pid, name), added when new. */
static struct mdev *dev_get(struct mdev **v, size_t *n, int64_t pid, const char *name, size_t len)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].pid == pid && strlen((*v)[i].name) == len && !memcmp((*v)[i].name, name, len))
            return &(*v)[i];
    *v = stint_xreallocarray(*v, *n + 1, sizeof **v);
    struct mdev *d = &(*v)[(*n)++];
    memset(d, 0, sizeof *d);
    d->pid = pid;
    memcpy(d->name, name, len < sizeof d->name - 1 ? len : sizeof d->name - 1);
    return d;
}

/* Splits a series name "[memory] DEVICE KEY" into DEVICE (*dn bytes) and
 * the key's index; -1 when it is no memory series. */
static int split_name(const char *nm, size_t len, size_t *dn)
{
    static const char pre[] = "[memory] ";
    if (len < sizeof pre || memcmp(nm, pre, sizeof pre - 1))
        return -1;
    for (int k = 0; k < K_KINDS; k++) {
        size_t kl = strlen(key_name[k]);
        if (len > sizeof pre - 1 + kl + 1 && !memcmp(nm + len - kl, key_name[k], kl) && nm[len - kl - 1] == ' ') {
            *dn = len - kl - 1 - (sizeof pre - 1);
            return k;
        }
    }
    return -1;
}

/* The devices of m's memory series (sorted samples), *n of them. */
static struct mdev *collect(const struct stint_model *m, size_t *n)
{
    struct mdev *v = NULL;
    *n = 0;
    for (size_t i = 0; i < m->samples.len; i++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, i);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        size_t len, dn;
        const char *nm = stint_model_str(m, c->name, &len);
        int k = split_name(nm, len, &dn);
        if (k < 0)
            continue;
        struct mdev *d = dev_get(&v, n, c->pid, nm + 9, dn);
        if (d->n[k] == d->cap[k]) {
            d->cap[k] = d->cap[k] ? d->cap[k] * 2 : 256;
            d->s[k] = stint_xreallocarray(d->s[k], d->cap[k], sizeof *d->s[k]);
        }
        d->s[k][d->n[k]++] = (struct msample){cs->ts_ns, i, cs->value};
    }
    for (size_t i = 0; i < *n; i++)
        for (int k = 0; k < K_KINDS; k++)
            stint_xqsort(v[i].s[k], v[i].n[k], sizeof *v[i].s[k], ms_cmp);
    return v;
}

/* A series' figures inside [wa, wb). */
static void stat_of(const struct msample *s, size_t n, int64_t wa, int64_t wb, struct mstat *st)
{
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < n; i++) {
        int64_t v = (int64_t)s[i].v;
        if (s[i].ts < wa) { /* carried in: the value at A */
            st->at_start = v;
            st->carried = 1;
            continue;
        }
        if (s[i].ts >= wb)
            break;
        if (!st->have && st->carried) {
            st->peak = st->at_start, st->peak_ts = wa, st->have = 1;
        }
        st->records++;
        if (!st->have || v > st->peak)
            st->peak = v, st->peak_ts = s[i].ts;
        st->have = 1;
        st->end = v;
    }
    if (!st->have && st->carried) /* (no record inside: the carried value holds all through) */
        st->peak = st->end = st->at_start, st->peak_ts = wa, st->have = 1;
}

/* Allocations and frees inside [wa, wb): counts and bytes. */
static void flows_of(const struct mdev *d, int64_t wa, int64_t wb, uint64_t *na, uint64_t *nf, int64_t *ba,
                     int64_t *bf)
{
    *na = *nf = 0;
    *ba = *bf = 0;
    for (size_t i = 0; i < d->n[K_BYTES]; i++) {
        const struct msample *x = &d->s[K_BYTES][i];
        if (x->ts < wa || x->ts >= wb)
            continue;
        if (x->v > 0)
            ++*na, *ba += (int64_t)x->v;
        else if (x->v < 0)
            ++*nf, *bf -= (int64_t)x->v;
    }
}

static void put_timeline(FILE *f, const struct mdev *v, size_t n, int json, int64_t wa, int64_t wb)
{
    int first = 1;
    if (!json)
        fprintf(f, "%20s %-16s %14s %16s %16s\n", "ts_ns", "device", "bytes", "total_allocated", "total_reserved");
    for (size_t i = 0; i < n; i++) {
        const struct mdev *d = &v[i];
        /* one row per record: the series are one sample per record, in the same order, when all are written */
        int paired = d->n[K_BYTES] == d->n[K_ALLOC] && d->n[K_ALLOC] == d->n[K_RESERVED];
        for (size_t j = 0; j < d->n[K_ALLOC]; j++) {
            const struct msample *a = &d->s[K_ALLOC][j];
            if (a->ts < wa || a->ts >= wb)
                continue;
            if (json) {
                fprintf(f, "%s{\"ts_ns\":%" PRId64 ",\"device\":", first ? "" : ",\n", a->ts);
                stint_out_json_str(f, d->name, strlen(d->name));
                fprintf(f, ",\"pid\":%" PRId64 ",\"total_allocated\":%" PRId64, d->pid, (int64_t)a->v);
                if (paired)
                    fprintf(f, ",\"bytes\":%" PRId64 ",\"total_reserved\":%" PRId64, (int64_t)d->s[K_BYTES][j].v,
                            (int64_t)d->s[K_RESERVED][j].v);
                putc('}', f);
            } else if (paired) {
                fprintf(f, "%20" PRId64 " %-16s %14" PRId64 " %16" PRId64 " %16" PRId64 "\n", a->ts, d->name,
                        (int64_t)d->s[K_BYTES][j].v, (int64_t)a->v, (int64_t)d->s[K_RESERVED][j].v);
            } else {
                fprintf(f, "%20" PRId64 " %-16s %14s %16" PRId64 " %16s\n", a->ts, d->name, "-", (int64_t)a->v, "-");
            }
            first = 0;
        }
    }
}

static const char scope[] =
    "per process and device, from Kineto [memory] records: Bytes > 0 an allocation, < 0 a free; total_allocated and "
    "total_reserved are the allocator's own totals after each record, taken as written; with a window [start, end) "
    "the records inside it, the totals the last record before it left counting at its start";

int stint_memory_chrome(const struct stint_cmd_opts *o, int timeline)
{
    struct stint_model m;
    int rc = stint_cmd_load(o, &m, STINT_MODEL_KEEP_SAMPLES);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    size_t n;
    struct mdev *v = collect(&m, &n);
    int64_t wa = o->filter.has_range ? o->filter.t0 : INT64_MIN, wb = o->filter.has_range ? o->filter.t1 : INT64_MAX;
    FILE *f = stdout;
    if (!n)
        fprintf(stderr,
                "stint: %s: no [memory] records (Kineto writes them when the profiler runs with "
                "profile_memory=True)\n",
                o->path);
    if (o->json)
        fprintf(f, "{\"schema\":\"stint.memory/1\",\"source\":\"kineto memory records\",\"scope\":\"%s\",\n\"devices\":[",
                scope);
    else
        fprintf(f, "# memory from Kineto [memory] records, per process and device: the allocator's totals as written\n"
                   "%s%-16s %10s %9s %9s %9s %16s %16s %16s %20s %16s %20s %16s\n",
                m.partial ? "# PARTIAL: the input ended in an error; what was read before it is reported\n" : "",
                "device", "pid", "records", "allocs", "frees", "alloc_bytes", "freed_bytes", "peak_allocated", "peak_alloc_ts_ns",
                "peak_reserved", "peak_reserved_ts_ns", "end_allocated");

    for (size_t i = 0; i < n; i++) {
        struct mstat a, r;
        uint64_t na, nf;
        int64_t ba, bf;
        stat_of(v[i].s[K_ALLOC], v[i].n[K_ALLOC], wa, wb, &a);
        stat_of(v[i].s[K_RESERVED], v[i].n[K_RESERVED], wa, wb, &r);
        flows_of(&v[i], wa, wb, &na, &nf, &ba, &bf);
        if (o->json) {
            fprintf(f, "%s\n{\"device\":", i ? "," : "");
            stint_out_json_str(f, v[i].name, strlen(v[i].name));
            fprintf(f,
                    ",\"pid\":%" PRId64 ",\"records\":%" PRIu64 ",\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64
                    ",\"allocated_bytes\":%" PRId64 ",\"freed_bytes\":%" PRId64,
                    v[i].pid, a.records, na, nf, ba, bf);
            if (a.have)
                fprintf(f, ",\"peak_allocated_bytes\":%" PRId64 ",\"peak_allocated_ts_ns\":%" PRId64
                           ",\"end_allocated_bytes\":%" PRId64, a.peak, a.peak_ts, a.end);
            if (r.have)
                fprintf(f, ",\"peak_reserved_bytes\":%" PRId64 ",\"peak_reserved_ts_ns\":%" PRId64
                           ",\"end_reserved_bytes\":%" PRId64, r.peak, r.peak_ts, r.end);
            if (a.carried && o->filter.has_range)
                fprintf(f, ",\"allocated_at_start_bytes\":%" PRId64, a.at_start);
            putc('}', f);
        } else {
            fprintf(f, "%-16s %10" PRId64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %16" PRId64 " %16" PRId64 " %16" PRId64
                       " %20" PRId64 " %16" PRId64 " %20" PRId64 " %16" PRId64 "\n",
                    v[i].name, v[i].pid, a.records, na, nf, ba, bf, a.peak, a.peak_ts, r.peak, r.peak_ts, a.end);
        }
    }
    if (o->json) {
        fputs("]", f);
        if (timeline) {
            fputs(",\n\"timeline\":[", f);
            put_timeline(f, v, n, 1, wa, wb);
            fputs("]", f);
        }
        fprintf(f, ",\n\"partial\":%s}\n", m.partial ? "true" : "false");
    } else if (timeline) {
        putc('\n', f);
        put_timeline(f, v, n, 0, wa, wb);
    }
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < K_KINDS; k++)
            free(v[i].s[k]);
    free(v);
    stint_model_free(&m);
    if (stint_cmd_close_out("memory", f, "stdout") != 0)
        rc = STINT_EXIT_IO;
    return rc;
}
