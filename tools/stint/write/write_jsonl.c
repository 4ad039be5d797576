/* SPDX-License-Identifier: MIT */
/*
 * write_jsonl.c - stint/session/1 JSONL sessions and [STRACE] marker logs
 * from the model (writers.h).
 *
 * JSONL: a meta line, then every span on a thread track, finished or not,
 * in start order, except that a span_start never comes before its parent's
 * (a child may start before its parent, or last longer on another thread:
 * it is written right after the parent then), so every parent_id names an
 * earlier span. Each span_end is written as soon as its span is over
 * (innermost first at one time); an unfinished span gets no span_end, as
 * in a session cut short. parent_id follows the model's parents (explicit
 * ones included); measured, step and span_kind (the category, when it is
 * function, op or module) survive, and a JSONL input's span ids too. Times
 * are ns since the earliest ts (or as they are, without rebase). The meta
 * line carries what the input's metadata says (run id, host, clock anchors
 * moved by the rebase, ...), its other keys too. What the format cannot
 * hold is counted in the stats: one pid per session (other processes'
 * threads join it, with a fresh tid where theirs is taken), no clock
 * domain (device lanes become threads with a fresh tid), no instants,
 * async slices, categories beyond the three kinds, args, thread times or
 * names.
 *
 * Markers: one line per finished span on a thread track, in start order,
 * with the model's depth; device-clock lanes keep their own clock (clk=dev).
 * Names are made one token the way the library's marker sink does.
 */
#include "write/writers.h"

#include "read/json.h"
#include "write/textout.h"
#include "base/cmp.h"
#include "base/tsparse.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void stint_write_count_left_out(const struct stint_model *m, const struct stint_slice *s,
                                struct stint_write_stats *st)
{
    st->skipped++;
    if (s->flags & STINT_SLICE_INSTANT)
        st->skipped_instants++;
    else if (stint_model_track_at(m, s->track)->kind != STINT_TRACK_THREAD)
        st->skipped_async++;
    else
        st->skipped_unfinished++;
}

/* Counts what neither JSONL nor markers hold of slice s: its args (but
 * those in keep, NULL-terminated) and its thread time. */
static void count_lost(const struct stint_model *m, const struct stint_slice *s, const char *const *keep,
                       struct stint_write_stats *st)
{
    int lost = 0;
    for (uint32_t a = 0; a < s->nargs && !lost; a++) {
        const char *key = stint_model_str(m, stint_model_arg_at(m, s->args + a)->key, NULL);
        lost = 1;
        for (size_t k = 0; keep && keep[k] && lost; k++)
            lost = strcmp(key, keep[k]) != 0;
    }
    st->lost_args += (uint64_t)lost;
    st->lost_thread_times += (s->flags & STINT_SLICE_THREAD_TIME) != 0;
}

/* Thread and process names (neither JSONL nor markers have a record for them). */
static uint64_t count_names(const struct stint_model *m)
{
    uint64_t n = 0;
    for (size_t i = 0; i < m->lanes.len; i++)
        n += stint_model_lane_at(m, (uint32_t)i)->name != 0;
    for (size_t i = 0; i < m->processes.len; i++)
        n += stint_model_process_at(m, (uint32_t)i)->name != 0;
    return n;
}

/* ---- JSONL ------------------------------------------------------------------ */

/* Spans JSONL writes: every non-instant slice on a thread track. */
static int eligible(const struct stint_model *m, const struct stint_slice *s)
{
    return stint_model_track_at(m, s->track)->kind == STINT_TRACK_THREAD && !(s->flags & STINT_SLICE_INSTANT);
}

/* The nearest written ancestor of slice i (the parent_id), or STINT_NO_ID. */
static uint32_t written_parent(const struct stint_model *m, size_t i)
{
    uint32_t p = stint_model_slice(m, i)->parent;
    for (size_t steps = 0; p != STINT_NO_ID && steps < stint_model_nslices(m); steps++) {
        if (eligible(m, stint_model_slice(m, p)))
            return p;
        p = stint_model_slice(m, p)->parent;
    }
    return STINT_NO_ID;
}

/* A span's place in the file: by eff (its start, or its written parent's
 * place when later), then shallower first, then longer first. */
struct skey {
    int64_t eff, dur;
    uint32_t depth, idx;
};

static int skey_cmp(const void *pa, const void *pb)
{
    const struct skey *a = pa, *b = pb;
    int c = stint_cmp_i64(a->eff, b->eff);
    if (!c)
        c = stint_cmp_u32(a->depth, b->depth);
    if (!c && a->dur != b->dur) /* -1 (unfinished) as +infinity */
        c = a->dur < 0 ? -1 : b->dur < 0 ? 1 : a->dur > b->dur ? -1 : 1;
    return c ? c : stint_cmp_u32(a->idx, b->idx);
}

/* Fills eff (INT64_MIN for slices not written) so that eff[i] >= eff of
 * i's written parent: resolved upward to the first settled ancestor, then
 * assigned down (a parent may come after its child in slice order). chain:
 * scratch of n. */
static void compute_eff(const struct stint_model *m, int64_t *eff, uint32_t *chain)
{
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++)
        eff[i] = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (eff[i] != INT64_MIN || !eligible(m, stint_model_slice(m, i)))
            continue;
        size_t d = 0;
        uint32_t c = (uint32_t)i;
        while (c != STINT_NO_ID && eff[c] == INT64_MIN && d < n) {
            chain[d++] = c;
            c = written_parent(m, c);
        }
        int64_t base = c != STINT_NO_ID && d < n ? eff[c] : INT64_MIN;
        while (d) {
            uint32_t k = chain[--d];
            int64_t ts = stint_model_slice(m, k)->ts_ns;
            eff[k] = ts > base ? ts : base;
            base = eff[k];
        }
    }
}

static int tid_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The tid each lane is written with: its own on a host lane of pid0 or
 * where no other lane has it, else a fresh one above every tid (counted in
 * st->renumbered). NULL when out of memory. */
static int64_t *lane_tids(const struct stint_model *m, int64_t pid0, struct stint_write_stats *st)
{
    size_t nl = m->lanes.len;
    int64_t *out = malloc((nl ? nl : 1) * sizeof *out), *sorted = malloc((nl ? nl : 1) * sizeof *sorted);
    if (!out || !sorted) {
        free(out);
        free(sorted);
        return NULL;
    }
    int64_t spare = stint_write_spare_tid(m, (int64_t)nl);
    for (size_t i = 0; i < nl; i++)
        sorted[i] = stint_model_lane_at(m, (uint32_t)i)->tid;
    stint_xqsort(sorted, nl, sizeof *sorted, tid_cmp);
    for (size_t i = 0; i < nl; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        out[i] = l->tid;
        if (l->clock == STINT_CLOCK_HOST && l->pid == pid0)
            continue;
        int64_t *hit = bsearch(&l->tid, sorted, nl, sizeof *sorted, tid_cmp);
        int shared = (hit > sorted && hit[-1] == l->tid) || (hit + 1 < sorted + nl && hit[1] == l->tid);
        if (!shared)
            continue;
        if (!st->renumbered)
            st->renumber_from = spare;
        out[i] = spare++;
        st->renumbered++;
    }
    free(sorted);
    return out;
}

/* The span id written for slice i: a JSONL input's own id, else s<i+1>. */
static void put_span_id(FILE *out, const struct stint_model *m, size_t i)
{
    const struct stint_slice *s = stint_model_slice(m, i);
    if (m->format && !strcmp(m->format, "jsonl"))
        for (uint32_t a = 0; a < s->nargs; a++) {
            const struct stint_arg *g = stint_model_arg_at(m, s->args + a);
            if (g->kind == STINT_ARG_STRING && !strcmp(stint_model_str(m, g->key, NULL), "args.id")) {
                stint_out_json_model_str(out, m, g->sval);
                return;
            }
        }
    fprintf(out, "\"s%zu\"", i + 1);
}

/* A key of the meta line: the input's value when its metadata has the key
 * (recorded in taken), else dflt (JSON text). */
static void put_meta_key(FILE *out, const struct stint_model *m, const char *key, const char *dflt,
                         const struct stint_arg **taken, size_t *ntaken)
{
    const struct stint_arg *a = stint_meta_find(m, key);
    fprintf(out, ",\"%s\":", key);
    if (!a) {
        fputs(dflt, out);
        return;
    }
    stint_put_arg_json(out, m, a);
    taken[(*ntaken)++] = a;
}

/* The meta line: the input's values of the session's keys where it has
 * them (a Chrome input's origin_*_ns anchors become clock_*_ns), the
 * anchors moved by the rebase (clock_realtime_ns left out when the input
 * has none), then the input's other metadata. */
static void put_meta(FILE *out, const struct stint_model *m, int64_t pid, const struct stint_origins *org,
                     int has_dev)
{
    int64_t origin = org->host;
    static const char *const keys[][2] = {
        {"run_id", "\"converted\""}, {"correlation_id", "\"converted\""}, {"entrypoint", "\"converted\""},
        {"phase", "\"infer\""}, {"timestamp", "\"1970-01-01T00:00:00.000Z\""}, {"capture_step", "1"},
        {"warmup_steps", "0"}, {"device", "\"cpu\""}, {"timing_mode", "\"host\""},
        {"measured_region_device_synchronized", "false"}};
    const struct stint_arg *taken[16];
    size_t nt = 0;
    const char *fmt = m->format ? m->format : "unknown";
    fputs("{\"kind\":\"meta\",\"schema\":\"stint/session/1\"", out);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        put_meta_key(out, m, keys[k][0], keys[k][1], taken, &nt);
    const struct stint_arg *tags = stint_meta_find(m, "tags");
    if (tags && tags->kind == STINT_ARG_JSON) {
        fputs(",\"tags\":", out);
        stint_put_arg_json(out, m, tags);
        taken[nt++] = tags;
    } else
        fprintf(out, ",\"tags\":{\"converted_from\":\"%s\"}", fmt);
    fprintf(out, ",\"pid\":%" PRId64, pid);
    put_meta_key(out, m, "hostname", "\"\"", taken, &nt);
    fputs(",\"stint_version\":\"" STINT_VERSION_STRING "\"", out);
    int64_t mono = 0, real = 0;
    const struct stint_arg *am = stint_meta_find(m, "clock_monotonic_ns");
    if (!stint_meta_int(m, am, &mono))
        am = stint_meta_find(m, "origin_monotonic_ns");
    if (stint_meta_int(m, am, &mono))
        taken[nt++] = am;
    const struct stint_arg *ar = stint_meta_find(m, "clock_realtime_ns");
    if (!stint_meta_int(m, ar, &real))
        ar = stint_meta_find(m, "origin_realtime_ns");
    int has_real = stint_meta_int(m, ar, &real);
    if (has_real)
        taken[nt++] = ar;
    fprintf(out, ",\"clock_monotonic_ns\":%" PRId64, stint_sum_add(mono, origin));
    if (has_real)
        fprintf(out, ",\"clock_realtime_ns\":%" PRId64, stint_sum_add(real, origin));
    if (has_dev) /* (what device-clock times were rebased by: they have their own origin) */
        fprintf(out, ",\"device_origin_ns\":%" PRId64, org->device);
    const struct stint_meta_own own[] = {{"device_origin_ns", has_dev ? NULL : "", org->device},
                                         {"schema", "stint/session/1", 0},
                                         {"pid", NULL, pid},
                                         {"stint_version", STINT_VERSION_STRING, 0},
                                         {"tags", "", 0},
                                         {"clock_monotonic_ns", NULL, stint_sum_add(mono, origin)},
                                         {"clock_realtime_ns", has_real ? NULL : "", stint_sum_add(real, origin)}};
    const struct stint_meta_rest r = {own, sizeof own / sizeof own[0], taken, nt, origin};
    stint_put_meta_rest(out, m, &r);
    fputs("}\n", out);
}

/* The span_start line of slice i (its span_kind from the category, the
 * args a JSONL input gave it), counting what it cannot carry. */
static void put_span_start(FILE *out, const struct stint_model *m, size_t i, int64_t origin, int64_t tid,
                           struct stint_write_stats *st)
{
    static const char *const keep_jsonl[] = {"args.id", "args.measured", "args.step", NULL};
    static const char *const keep[] = {"args.measured", "args.step", NULL};
    const struct stint_slice *s = stint_model_slice(m, i);
    fputs("{\"kind\":\"span_start\",\"id\":", out);
    put_span_id(out, m, i);
    uint32_t p = written_parent(m, i);
    if (p != STINT_NO_ID) {
        fputs(",\"parent_id\":", out);
        put_span_id(out, m, p);
    }
    fputs(",\"name\":", out);
    stint_out_json_model_str(out, m, s->name);
    int measured = 0;
    uint32_t step = 0;
    for (uint32_t a = 0; a < s->nargs; a++) {
        const struct stint_arg *g = stint_model_arg_at(m, s->args + a);
        const char *key = stint_model_str(m, g->key, NULL);
        if (!strcmp(key, "args.measured") && g->kind == STINT_ARG_BOOL)
            measured = g->ival != 0;
        else if (!strcmp(key, "args.step") && g->kind == STINT_ARG_STRING)
            step = g->sval;
    }
    count_lost(m, s, m->format && !strcmp(m->format, "jsonl") ? keep_jsonl : keep, st);
    const char *kind = stint_model_str(m, s->cat, NULL);
    if (strcmp(kind, "function") && strcmp(kind, "op") && strcmp(kind, "module")) {
        kind = "function";
        st->kind_changed++;
    }
    fprintf(out, ",\"start_ns\":%" PRId64 ",\"span_kind\":\"%s\",\"measured\":%s", s->ts_ns - origin, kind,
            measured ? "true" : "false");
    if (step) {
        fputs(",\"step\":", out);
        stint_out_json_model_str(out, m, step);
    }
    fprintf(out, ",\"tid\":%" PRId64 "}\n", tid);
}

/* Pending span ends: a min-heap by end time, inner (deeper) spans first. */
struct pend {
    int64_t end;
    uint32_t depth, idx;
};

static int pend_less(const struct pend *a, const struct pend *b)
{
    if (a->end != b->end)
        return a->end < b->end;
    if (a->depth != b->depth)
        return a->depth > b->depth;
    return a->idx > b->idx;
}

static void pend_push(struct pend *h, size_t *n, struct pend v)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i && pend_less(&h[i], &h[(i - 1) / 2])) {
        struct pend t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static struct pend pend_pop(struct pend *h, size_t *n)
{
    struct pend top = h[0];
    h[0] = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && pend_less(&h[l], &h[m]))
            m = l;
        if (r < *n && pend_less(&h[r], &h[m]))
            m = r;
        if (m == i)
            break;
        struct pend t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

/* Counter records, counting the series of other processes (they join pid0's). */
static void put_counters(FILE *out, const struct stint_model *m, int64_t pid0, int64_t origin,
                         struct stint_write_stats *st)
{
    for (size_t q = 0; q < m->counters.len; q++)
        st->merged_counters += STINT_BA_AT(&m->counters, struct stint_counter_series, q).pid != pid0;
    if (m->counters.len && !m->samples.len)
        st->skipped_counters = m->counters.len; /* model kept aggregates only */
    for (size_t q = 0; q < m->samples.len; q++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, q);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        fprintf(out, "{\"kind\":\"counter\",\"timestamp_ns\":%" PRId64 ",\"name\":", cs->ts_ns - origin);
        stint_out_json_model_str(out, m, c->name);
        fprintf(out, ",\"value\":%.17g,\"unit\":\"\",\"tid\":0}\n", cs->value);
    }
}

/* The writer's losses (struct stint_loss) as `dropped` records, times
 * rebased as the spans' are: those of pid0's threads and of threads not
 * known; another process's tid would name a thread of pid0 (left out). */
static void put_losses(FILE *out, const struct stint_model *m, int64_t pid0, int64_t origin,
                       struct stint_write_stats *st)
{
    const struct stint_loss *l = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++) {
        int thread = (l[i].flags & STINT_LOSS_THREAD) != 0;
        if (thread && l[i].pid != pid0)
            continue;
        int range = (l[i].flags & STINT_LOSS_RANGE) != 0;
        fprintf(out, "{\"kind\":\"dropped\",\"timestamp_ns\":%" PRId64, range ? l[i].last_ns - origin : 0);
        if (thread)
            fprintf(out, ",\"tid\":%" PRId64, l[i].tid);
        fprintf(out, ",\"count\":%" PRIu64 ",\"first_ns\":%" PRId64 ",\"last_ns\":%" PRId64 "}\n", l[i].count,
                range ? l[i].first_ns - origin : 0, range ? l[i].last_ns - origin : 0);
        st->losses_written += l[i].count;
    }
}

/* What the span loop needs besides the model. */
struct jw {
    FILE *out;
    const int64_t *tids; /* per lane (lane_tids) */
    int64_t pid0;
    struct stint_origins org;
    uint8_t *seen;       /* per process: a span of it was written */
    struct pend *heap;
    struct stint_write_stats *st;
};

/* Counts what the one pid and the missing clock domain make of span s. */
static void count_merged(const struct stint_model *m, const struct stint_slice *s, struct jw *w)
{
    const struct stint_lane *l = stint_model_lane_at(m, stint_model_track_at(m, s->track)->lane);
    if (l->pid != w->pid0) {
        w->st->merged_spans++;
        w->st->merged_procs += !w->seen[l->process];
        w->seen[l->process] = 1;
    }
    w->st->device_spans += l->clock == STINT_CLOCK_DEVICE;
}

/* The spans in file order (keys, k of them), each span_end as soon as its
 * span is over by the next span's place. */
static void put_spans(const struct stint_model *m, const struct skey *keys, size_t k, struct jw *w)
{
    size_t hn = 0;
    for (size_t r = 0; r <= k; r++) {
        const struct stint_slice *s = r < k ? stint_model_slice(m, keys[r].idx) : NULL;
        while (hn && (!s || w->heap[0].end < keys[r].eff ||
                      (w->heap[0].end == keys[r].eff && stint_model_slice(m, w->heap[0].idx)->dur_ns > 0))) {
            struct pend e = pend_pop(w->heap, &hn);
            fputs("{\"kind\":\"span_end\",\"id\":", w->out);
            put_span_id(w->out, m, e.idx);
            fprintf(w->out, ",\"duration_ns\":%" PRId64 "}\n", stint_model_slice(m, e.idx)->dur_ns);
        }
        if (!s)
            break;
        put_span_start(w->out, m, keys[r].idx, stint_slice_origin(m, s, &w->org),
                       w->tids[stint_model_track_at(m, s->track)->lane], w->st);
        count_merged(m, s, w);
        if (s->dur_ns >= 0)
            pend_push(w->heap, &hn, (struct pend){s->ts_ns + s->dur_ns, s->depth, keys[r].idx});
        else
            w->st->unfinished_written++;
        w->st->slices++;
    }
}

int stint_write_jsonl(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                      struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    const struct stint_origins org = o && o->rebase ? stint_model_origins(m) : (struct stint_origins){0, 0};
    int64_t origin = org.host;
    st->origin_ns = origin;
    st->device_origin_ns = org.device;
    size_t n = stint_model_nslices(m);
    int64_t pid0 = m->processes.len ? stint_model_process_at(m, 0)->pid : 0;
    st->pid = pid0;
    struct skey *keys = malloc((n ? n : 1) * sizeof *keys);
    struct pend *heap = malloc((n ? n : 1) * sizeof *heap);
    int64_t *eff = malloc((n ? n : 1) * sizeof *eff);
    uint32_t *chain = malloc((n ? n : 1) * sizeof *chain);
    uint8_t *seen = calloc(m->processes.len ? m->processes.len : 1, 1);
    int64_t *tids = lane_tids(m, pid0, st);
    if (!keys || !heap || !eff || !chain || !seen || !tids) {
        free(keys), free(heap), free(eff), free(chain), free(seen), free(tids);
        return -1;
    }
    compute_eff(m, eff, chain);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (eligible(m, s))
            keys[k++] = (struct skey){eff[i], s->dur_ns, s->depth, (uint32_t)i};
        else
            stint_write_count_left_out(m, s, st);
    }
    stint_xqsort(keys, k, sizeof *keys, skey_cmp);
    int has_dev = 0;
    for (size_t i = 0; i < m->lanes.len; i++)
        has_dev |= stint_model_lane_at(m, (uint32_t)i)->clock == STINT_CLOCK_DEVICE;
    put_meta(out, m, pid0, &org, has_dev);
    struct jw w = {out, tids, pid0, org, seen, heap, st};
    put_spans(m, keys, k, &w);
    put_counters(out, m, pid0, origin, st);
    put_losses(out, m, pid0, origin, st);
    st->lost_names = count_names(m);
    free(keys), free(heap), free(eff), free(chain), free(seen), free(tids);
    return 0;
}

/* ---- markers ------------------------------------------------------------------ */

/* Writes a name (or, with key, an attribute key) as one marker token, as
 * the library's marker sink does: every byte <= 0x20 and 0x7f, a key's '=',
 * and the '[' of a "[STRACE]" inside it (which a reader takes for the start
 * of another record), become '_'; an empty token becomes "_". Returns
 * whether it changed. */
static int put_marker_token(FILE *out, const char *nm, size_t nl, int key)
{
    int changed = !nl;
    size_t run = 0;
    for (size_t k = 0; k < nl; k++) {
        unsigned char c = (unsigned char)nm[k];
        if (c > 0x20 && c != 0x7f && !(key && c == '=') &&
            !(c == '[' && nl - k >= 8 && !memcmp(nm + k, "[STRACE]", 8)))
            continue;
        fwrite(nm + run, 1, k - run, out);
        putc('_', out);
        run = k + 1;
        changed = 1;
    }
    fwrite(nm + run, 1, nl - run, out);
    if (!nl)
        putc('_', out);
    return changed;
}

static int put_marker_name(FILE *out, const char *nm, size_t nl)
{
    return put_marker_token(out, nm, nl, 0);
}

/* The arg of s whose flat key is key, or NULL. */
static const struct stint_arg *arg_named(const struct stint_model *m, const struct stint_slice *s, const char *key)
{
    for (uint32_t a = 0; a < s->nargs; a++) {
        const struct stint_arg *g = stint_model_arg_at(m, s->args + a);
        if (!strcmp(stint_model_str(m, g->key, NULL), key))
            return g;
    }
    return NULL;
}

/* Writes an integer arg's value (INT, UINT) in decimal; 0 when the arg is absent or not an integer. */
static void put_int_arg(FILE *out, const struct stint_arg *g)
{
    if (g && g->kind == STINT_ARG_UINT)
        fprintf(out, "%" PRIu64, (uint64_t)g->ival);
    else
        fprintf(out, "%" PRId64, g && g->kind == STINT_ARG_INT ? g->ival : 0);
}

/* The span's scalar args as k=v attributes (sep: one space before the
 * first), their flat keys without "args.", but for the grammar's own fields
 * (inv, hid, depth, tid: written there) and clk (written for device spans).
 * Keys and values become one token each as names do ('=' in a key too).
 * Returns whether an arg was left out (an object or array, or a key outside
 * "args."). */
static int put_marker_attrs(FILE *out, const struct stint_model *m, const struct stint_slice *s, int sep,
                            uint64_t *renamed)
{
    static const char *const own[] = {"args.inv", "args.hid", "args.depth", "args.tid", "args.clk"};
    int lost = 0;
    for (uint32_t a = 0; a < s->nargs; a++) {
        const struct stint_arg *g = stint_model_arg_at(m, s->args + a);
        size_t kl;
        const char *k = stint_model_str(m, g->key, &kl);
        int skip = 0;
        for (size_t i = 0; i < sizeof own / sizeof own[0] && !skip; i++)
            skip = !strcmp(k, own[i]);
        if (skip)
            continue;
        if (g->kind == STINT_ARG_JSON || kl <= 5 || memcmp(k, "args.", 5) != 0) {
            lost = 1;
            continue;
        }
        if (sep)
            putc(' ', out);
        sep = 1;
        *renamed += (uint64_t)put_marker_token(out, k + 5, kl - 5, 1);
        putc('=', out);
        switch (g->kind) {
        case STINT_ARG_INT: fprintf(out, "%" PRId64, g->ival); break;
        case STINT_ARG_UINT: fprintf(out, "%" PRIu64, (uint64_t)g->ival); break;
        case STINT_ARG_BOOL: fputs(g->ival ? "true" : "false", out); break;
        default: { /* STRING, REAL: their text */
            size_t vl;
            const char *v = stint_model_str(m, g->sval, &vl);
            if (vl)
                put_marker_name(out, v, vl); /* (a value's blanks: not a renamed name) */
            break;
        }
        }
    }
    return lost;
}

int stint_write_markers(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                        struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    (void)o;
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT) || s->dur_ns < 0) {
            stint_write_count_left_out(m, s, st);
            continue;
        }
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        int dev = l->clock == STINT_CLOCK_DEVICE;
        /* inv, hid and a device span's host tid come from the input's args
         * (a marker log's); without them: 0, the grammar's "none" */
        fprintf(out, "[STRACE] v=1 pid=%" PRId64 " tid=", l->pid);
        if (dev)
            put_int_arg(out, arg_named(m, s, "args.tid"));
        else
            fprintf(out, "%" PRId64, l->tid);
        fputs(" inv=", out);
        if (dev)
            fprintf(out, "%" PRId64, l->tid); /* a device lane is keyed by its invocation */
        else
            put_int_arg(out, arg_named(m, s, "args.inv"));
        fputs(" hid=", out);
        const struct stint_arg *h = arg_named(m, s, "args.hid");
        size_t hl = 0;
        const char *hv = h && h->kind == STINT_ARG_STRING ? stint_model_str(m, h->sval, &hl) : NULL;
        size_t hx = 0;
        while (hx < hl && stint_json_hexval((unsigned char)hv[hx]) >= 0)
            hx++;
        if (hv && hl && hx == hl)
            fwrite(hv, 1, hl, out);
        else
            putc('0', out);
        fprintf(out, " depth=%u name=", s->depth);
        size_t nl;
        const char *nm = stint_model_str(m, s->name, &nl);
        st->renamed += (uint64_t)put_marker_name(out, nm, nl);
        fprintf(out, " ts=%" PRId64 " dur=%" PRId64 " %s", s->ts_ns, s->dur_ns, dev ? "clk=dev" : "");
        st->lost_args += (uint64_t)put_marker_attrs(out, m, s, dev, &st->renamed);
        putc('\n', out);
        st->lost_thread_times += (s->flags & STINT_SLICE_THREAD_TIME) != 0;
        st->slices++;
    }
    /* the writer's losses as libstint's loss lines, on the records' clock (a
     * thread not known cannot be written: left out) */
    const struct stint_loss *ls = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++) {
        if (!(ls[i].flags & STINT_LOSS_THREAD))
            continue;
        int range = (ls[i].flags & STINT_LOSS_RANGE) != 0;
        fprintf(out, "[STINT] v=1 dropped pid=%" PRId64 " tid=%" PRId64 " count=%" PRIu64 " first_ts=%" PRId64
                     " last_ts=%" PRId64 "\n",
                ls[i].pid, ls[i].tid, ls[i].count, range ? ls[i].first_ns : 0, range ? ls[i].last_ns : 0);
        st->losses_written += ls[i].count;
    }
    st->skipped_counters = m->counters.len;
    st->lost_names = count_names(m);
    return 0;
}
