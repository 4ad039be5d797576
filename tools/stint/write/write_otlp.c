/* SPDX-License-Identifier: MIT */
/*
 * write_otlp.c - OTLP/JSON export of a finished model (see write_otlp.h for
 * the mapping).
 *
 * Invariants kept by the output, which tests/unit/test_otlp.c checks against
 * the protobuf JSON mapping: field names are lowerCamelCase; 64-bit integers
 * (times, intValue) are JSON strings; traceId/spanId/parentSpanId are
 * lowercase hex of 16/8 bytes and never all zero; enums (kind) are integers;
 * doubleValue is a JSON number, or a string for NaN/Infinity.
 *
 * Memory: two uint32 per slice (the resource bucket order and the root
 * ancestor), nothing in proportion to the text.
 */
#include "write/write_otlp.h"

#include "write/textout.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/xalloc.h"
#include "base/tsparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- stable ids ----------------------------------------------------------- */

/* FNV-1a, continued from h (the library's stint_fnv1a64 starts afresh;
 * the ids chain several fields through one running hash). */
static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i)); /* little-endian: same ids on every host */
    return fnv_bytes(h, b, 8);
}

struct slice_key {
    int64_t pid, tid;
};

/* Hash of (pid, tid, ts, name, index) under a salt; never 0 (an all-zero id
 * is invalid in OTLP). */
static uint64_t slice_hash(const struct stint_model *m, size_t i, struct slice_key k, uint64_t salt)
{
    const struct stint_slice *s = stint_model_slice(m, i);
    size_t nlen;
    const char *name = stint_model_str(m, s->name, &nlen);
    uint64_t h = fnv_u64(0xcbf29ce484222325ULL, salt);
    h = fnv_u64(h, (uint64_t)k.pid);
    h = fnv_u64(h, (uint64_t)k.tid);
    h = fnv_u64(h, (uint64_t)s->ts_ns);
    h = fnv_bytes(h, name, nlen);
    h = fnv_u64(h, (uint64_t)i);
    h = stint_hash_splitmix64(h); /* spreads FNV's weak low bits over all 64 */
    return h ? h : 1;
}

/* ---- where a slice lives ------------------------------------------------------ */

static struct slice_key key_of(const struct stint_model *m, const struct stint_slice *s)
{
    struct slice_key k = {0, 0};
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind == STINT_TRACK_THREAD && t->lane != STINT_NO_ID) {
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        k.pid = l->pid;
        k.tid = l->tid;
    } else if (t->kind != STINT_TRACK_GLOBAL) {
        k.pid = t->pid;
    }
    return k;
}

static int slice_is_device(const struct stint_model *m, const struct stint_slice *s)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    return t->kind == STINT_TRACK_THREAD && t->lane != STINT_NO_ID &&
           stint_model_lane_at(m, t->lane)->clock == STINT_CLOCK_DEVICE;
}

/* ---- metadata lookups ------------------------------------------------------------ */

/* The metadata arg whose key is `name` or ends in ".name" (readers prefix
 * keys with their object path), or NULL. */
static const struct stint_arg *meta_find(const struct stint_model *m, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        size_t kl;
        const char *k = stint_model_str(m, a->key, &kl);
        if (kl == nl ? !memcmp(k, name, nl) : (kl > nl && k[kl - nl - 1] == '.' && !memcmp(k + kl - nl, name, nl)))
            return a;
    }
    return NULL;
}

/* An integer metadata value (an integer, or a string of decimal digits). */
static int meta_i64(const struct stint_model *m, const char *name, int64_t *out)
{
    const struct stint_arg *a = meta_find(m, name);
    if (!a)
        return 0;
    if (a->kind == STINT_ARG_INT || a->kind == STINT_ARG_UINT) {
        *out = a->ival;
        return 1;
    }
    if (a->kind != STINT_ARG_STRING && a->kind != STINT_ARG_REAL)
        return 0;
    const char *s = stint_model_str(m, a->sval, NULL);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return 0;
    *out = v;
    return 1;
}

static const char *meta_str(const struct stint_model *m, const char *name, size_t *len)
{
    const struct stint_arg *a = meta_find(m, name);
    if (!a || a->kind != STINT_ARG_STRING)
        return NULL;
    const char *s = stint_model_str(m, a->sval, len);
    return *len ? s : NULL;
}

/* ---- JSON pieces ------------------------------------------------------------------ */

static void put_key_str(FILE *f, const char *key, const char *v, size_t vlen, int *first)
{
    fputs(*first ? "" : ",", f);
    *first = 0;
    fputs("{\"key\":", f);
    stint_out_json_str(f, key, strlen(key));
    fputs(",\"value\":{\"stringValue\":", f);
    stint_out_json_str(f, v, vlen);
    fputs("}}", f);
}

static void put_key_int(FILE *f, const char *key, int64_t v, int *first)
{
    fputs(*first ? "" : ",", f);
    *first = 0;
    fprintf(f, "{\"key\":\"%s\",\"value\":{\"intValue\":\"%" PRId64 "\"}}", key, v);
}

static void put_key_bool(FILE *f, const char *key, int v, int *first)
{
    fputs(*first ? "" : ",", f);
    *first = 0;
    fprintf(f, "{\"key\":\"%s\",\"value\":{\"boolValue\":%s}}", key, v ? "true" : "false");
}

/* Is s exactly a JSON number (RFC 8259)? */
static int is_json_number(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return 0;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return 0;
    if (i < n && s[i] == '.') {
        size_t d = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

/* One model arg as an OTLP KeyValue. The "args." prefix of Chrome args is
 * dropped (OTLP attributes are already the span's args). */
static void put_arg(FILE *f, const struct stint_model *m, const struct stint_arg *a, int *first)
{
    size_t kl, vl;
    const char *k = stint_model_str(m, a->key, &kl);
    if (kl > 5 && !memcmp(k, "args.", 5)) {
        k += 5;
        kl -= 5;
    }
    fputs(*first ? "" : ",", f);
    *first = 0;
    fputs("{\"key\":", f);
    stint_out_json_str(f, k, kl);
    fputs(",\"value\":{", f);
    switch (a->kind) {
    case STINT_ARG_INT:
        fprintf(f, "\"intValue\":\"%" PRId64 "\"", a->ival);
        break;
    case STINT_ARG_UINT:
        if (a->ival >= 0)
            fprintf(f, "\"intValue\":\"%" PRId64 "\"", a->ival);
        else /* above INT64_MAX: an OTLP int is signed, so keep the digits as text */
            fprintf(f, "\"stringValue\":\"%" PRIu64 "\"", (uint64_t)a->ival);
        break;
    case STINT_ARG_BOOL:
        fprintf(f, "\"boolValue\":%s", a->ival ? "true" : "false");
        break;
    case STINT_ARG_REAL: {
        const char *v = stint_model_str(m, a->sval, &vl);
        if (is_json_number(v, vl)) {
            fputs("\"doubleValue\":", f);
            fwrite(v, 1, vl, f);
        } else if (!strcmp(v, "nan") || !strcmp(v, "NaN") || !strcmp(v, "-nan")) {
            fputs("\"doubleValue\":\"NaN\"", f);
        } else if (!strcmp(v, "inf") || !strcmp(v, "Infinity")) {
            fputs("\"doubleValue\":\"Infinity\"", f);
        } else if (!strcmp(v, "-inf") || !strcmp(v, "-Infinity")) {
            fputs("\"doubleValue\":\"-Infinity\"", f);
        } else {
            fputs("\"stringValue\":", f);
            stint_out_json_str(f, v, vl);
        }
        break;
    }
    default: /* STRING, and JSON (nested values, kept as their JSON text) */
        fputs("\"stringValue\":", f);
        {
            const char *v = stint_model_str(m, a->sval, &vl);
            stint_out_json_str(f, v, vl);
        }
        break;
    }
    fputs("}}", f);
}

/* ---- the writer ------------------------------------------------------------------------ */

struct otlp {
    const struct stint_model *m;
    FILE *f;
    int unix_time;     /* anchor found: times are unix ns */
    int64_t base_ns;   /* added to every ts (the anchor, or -min ts) */
    uint32_t *root;    /* root ancestor per slice */
};

static void put_time(FILE *f, const char *key, int64_t t)
{
    /* fixed64: never negative after the rebase; clamp what an odd anchor
     * could still push below 0 */
    fprintf(f, ",\"%s\":\"%" PRIu64 "\"", key, t < 0 ? (uint64_t)0 : (uint64_t)t);
}

static void put_span(struct otlp *o, size_t i)
{
    const struct stint_model *m = o->m;
    FILE *f = o->f;
    const struct stint_slice *s = stint_model_slice(m, i);
    struct slice_key k = key_of(m, s);
    uint32_t r = o->root[i];
    struct slice_key rk = key_of(m, stint_model_slice(m, r));
    int device = slice_is_device(m, s);
    fprintf(f, "{\"traceId\":\"%016" PRIx64 "%016" PRIx64 "\",\"spanId\":\"%016" PRIx64 "\"",
            slice_hash(m, r, rk, 0x7472616365ULL), slice_hash(m, r, rk, 0x74726163652d32ULL),
            slice_hash(m, i, k, 0x7370616eULL));
    if (s->parent != STINT_NO_ID && s->parent < stint_model_nslices(m))
        fprintf(f, ",\"parentSpanId\":\"%016" PRIx64 "\"",
                slice_hash(m, s->parent, key_of(m, stint_model_slice(m, s->parent)), 0x7370616eULL));
    size_t nl;
    const char *name = stint_model_str(m, s->name, &nl);
    fputs(",\"name\":", f);
    stint_out_json_str(f, name, nl);
    fputs(",\"kind\":1", f);
    int64_t base = device ? 0 : o->base_ns;
    /* saturated (tsparse.h): a realtime anchor near INT64_MAX plus a late ts */
    int64_t start = stint_sum_add(s->ts_ns, base);
    int64_t end = s->dur_ns > 0 ? stint_sum_add(start, s->dur_ns) : start;
    put_time(f, "startTimeUnixNano", start);
    put_time(f, "endTimeUnixNano", end);
    fputs(",\"attributes\":[", f);
    int first = 1;
    if (s->args != STINT_NO_ID)
        for (uint32_t a = 0; a < s->nargs; a++)
            put_arg(f, m, stint_model_arg_at(m, s->args + a), &first);
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind == STINT_TRACK_THREAD) {
        put_key_int(f, "thread.id", k.tid, &first);
        if (t->lane != STINT_NO_ID && stint_model_lane_at(m, t->lane)->name) {
            size_t tl;
            const char *tn = stint_model_str(m, stint_model_lane_at(m, t->lane)->name, &tl);
            put_key_str(f, "thread.name", tn, tl, &first);
        }
    }
    if (s->cat) {
        size_t cl;
        const char *c = stint_model_str(m, s->cat, &cl);
        put_key_str(f, "stint.category", c, cl, &first);
    }
    if (s->flags & STINT_SLICE_INSTANT)
        put_key_bool(f, "stint.instant", 1, &first);
    if (s->dur_ns < 0)
        put_key_bool(f, "stint.unfinished", 1, &first);
    if (device)
        put_key_str(f, "stint.clock", "device", 6, &first);
    fputs("],\"status\":{}}", f);
}

static void put_resource(struct otlp *o, int64_t pid, int has_pid, const char *pname, size_t pnl,
                         const uint32_t *idx, size_t n)
{
    const struct stint_model *m = o->m;
    FILE *f = o->f;
    fputs("{\"resource\":{\"attributes\":[", f);
    int first = 1;
    size_t el = 0, hl = 0;
    const char *entry = meta_str(m, "entrypoint", &el);
    if (!entry)
        entry = meta_str(m, "service.name", &el);
    if (pname && pnl)
        put_key_str(f, "service.name", pname, pnl, &first);
    else if (entry)
        put_key_str(f, "service.name", entry, el, &first);
    else
        put_key_str(f, "service.name", "stint", 5, &first);
    const char *host = meta_str(m, "hostname", &hl);
    if (!host)
        host = meta_str(m, "host.name", &hl);
    if (host)
        put_key_str(f, "host.name", host, hl, &first);
    if (has_pid)
        put_key_int(f, "process.pid", pid, &first);
    if (o->unix_time)
        put_key_str(f, "stint.time_base", "unix", 4, &first);
    else
        put_key_str(f, "stint.time_base", "relative", 8, &first);
    if (m->format)
        put_key_str(f, "stint.source_format", m->format, strlen(m->format), &first);
    fprintf(f, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"stint\",\"version\":\"%s\"},\"spans\":[",
            STINT_VERSION_STRING);
    for (size_t j = 0; j < n; j++) {
        if (j)
            putc(',', f);
        put_span(o, idx[j]);
    }
    fputs("]}]}", f);
}

struct pid_ix {
    int64_t pid;
    uint32_t process; /* index into m->processes */
};

static int cmp_pid(const void *a, const void *b)
{
    int64_t x = ((const struct pid_ix *)a)->pid, y = ((const struct pid_ix *)b)->pid;
    return (x > y) - (x < y);
}

static int set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
    return -1;
}

int stint_write_otlp(const struct stint_model *m, FILE *out, char *err, size_t errcap)
{
    size_t n = stint_model_nslices(m);
    size_t np = m->processes.len;
    struct otlp o = {m, out, 0, 0, NULL};
    uint32_t *bucket = stint_xmalloc((n ? n : 1) * sizeof *bucket);
    uint32_t *order = stint_xmalloc((n ? n : 1) * sizeof *order);
    struct pid_ix *pids = stint_xmalloc((np ? np : 1) * sizeof *pids);
    size_t *start = stint_xcalloc(np + 2, sizeof *start);
    o.root = stint_xmalloc((n ? n : 1) * sizeof *o.root);

    /* Time base: the recorded realtime anchor, else rebase to the earliest
     * host slice so relative times are never negative. */
    int64_t anchor;
    if (meta_i64(m, "clock_realtime_ns", &anchor) || meta_i64(m, "origin_realtime_ns", &anchor)) {
        o.unix_time = 1;
        o.base_ns = anchor;
    } else {
        int64_t min = INT64_MAX; /* the earliest host slice start (none: 0) */
        for (size_t i = 0; i < n; i++) {
            const struct stint_slice *s = stint_model_slice(m, i);
            if (!slice_is_device(m, s) && s->ts_ns < min)
                min = s->ts_ns;
        }
        o.base_ns = min == INT64_MAX ? 0 : -min; /* (|ts| < 2^62: no overflow) */
    }

    /* Root ancestors. Parents sort before their children, so one forward
     * pass usually settles each; the walk covers any other order. */
    for (size_t i = 0; i < n; i++) {
        uint32_t r = (uint32_t)i;
        for (size_t hops = 0; hops <= n; hops++) {
            uint32_t p = stint_model_slice(m, r)->parent;
            if (p == STINT_NO_ID || p >= n)
                break;
            if (p < i) {
                r = o.root[p];
                break;
            }
            r = p;
        }
        o.root[i] = r;
    }

    /* One resource per process, in pid order; slices whose pid is not a
     * known process (global tracks) go into a last resource without a pid. */
    for (size_t p = 0; p < np; p++)
        pids[p] = (struct pid_ix){stint_model_process_at(m, (uint32_t)p)->pid, (uint32_t)p};
    stint_xqsort(pids, np, sizeof *pids, cmp_pid);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        int64_t pid = key_of(m, s).pid;
        const struct stint_track *t = stint_model_track_at(m, s->track);
        size_t lo = 0, hi = np;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pids[mid].pid < pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        bucket[i] = (uint32_t)(t->kind != STINT_TRACK_GLOBAL && lo < np && pids[lo].pid == pid ? lo : np);
        start[bucket[i] + 1]++;
    }
    for (size_t b = 0; b <= np; b++)
        start[b + 1] += start[b];
    for (size_t i = 0; i < n; i++)
        order[start[bucket[i]]++] = (uint32_t)i;
    /* start[b] is now the end of bucket b; bucket b begins at start[b-1]. */

    fputs("{\"resourceSpans\":[", out);
    int first = 1;
    for (size_t b = 0; b <= np; b++) {
        size_t lo = b ? start[b - 1] : 0, hi = start[b];
        if (lo == hi)
            continue;
        const char *pname = NULL;
        size_t pnl = 0;
        if (b < np && stint_model_process_at(m, pids[b].process)->name)
            pname = stint_model_str(m, stint_model_process_at(m, pids[b].process)->name, &pnl);
        if (!first)
            putc(',', out);
        first = 0;
        put_resource(&o, b < np ? pids[b].pid : 0, b < np, pname, pnl, order + lo, hi - lo);
    }
    fputs("]}\n", out);
    free(bucket), free(order), free(pids), free(start), free(o.root);
    if (fflush(out) != 0 || ferror(out)) {
        char msg[160];
        snprintf(msg, sizeof msg, "otlp: write failed: %s", strerror(errno));
        return set_err(err, errcap, msg);
    }
    return 0;
}
