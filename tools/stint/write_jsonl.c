/*
 * write_jsonl.c - stint/session/1 JSONL sessions and [STRACE] marker logs
 * from the model (writers.h).
 *
 * JSONL: a meta line, then every span in start order (a parent always
 * before its children, whatever thread they ran on) with its span_end line
 * written as soon as it is over (innermost first at one time), so the file
 * reads like the library's own sessions; parent_id follows the model's
 * parents (explicit ones included); measured and step survive. Times are ns since the earliest ts. Counter samples become
 * counter records. Instants and async slices have no record kind in the
 * format: they are skipped and counted.
 *
 * Markers: one line per finished span on a thread track, in start order,
 * with the model's depth; device-clock lanes keep their own clock (clk=dev).
 */
#include "writers.h"

#include "textout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_str(FILE *f, const struct stint_model *m, uint32_t id)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    stint_out_json_str(f, s, n);
}

/* Eligible spans in start order: ts, longer first, shallower first. */
static const struct stint_model *order_model;
static int start_cmp(const void *pa, const void *pb)
{
    const struct stint_slice *a = stint_model_slice(order_model, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(order_model, *(const uint32_t *)pb);
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    if (a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return (*(const uint32_t *)pa > *(const uint32_t *)pb) - (*(const uint32_t *)pa < *(const uint32_t *)pb);
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

static int eligible(const struct stint_model *m, const struct stint_slice *s)
{
    return stint_model_track_at(m, s->track)->kind == STINT_TRACK_THREAD && !(s->flags & STINT_SLICE_INSTANT) &&
           s->dur_ns >= 0;
}

int stint_write_jsonl(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                      struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    int64_t origin = stint_model_origin(m);
    (void)o;
    st->origin_ns = origin;
    size_t n = stint_model_nslices(m);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    struct pend *heap = malloc((n ? n : 1) * sizeof *heap);
    if (!order || !heap) {
        free(order);
        free(heap);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (eligible(m, s)) {
            order[k++] = (uint32_t)i;
            continue;
        }
        st->skipped++;
        if (stint_model_track_at(m, s->track)->kind != STINT_TRACK_THREAD)
            st->skipped_async++;
        else if (s->flags & STINT_SLICE_INSTANT)
            st->skipped_instants++;
        else
            st->skipped_unfinished++;
    }
    order_model = m;
    if (k > 1)
        qsort(order, k, sizeof *order, start_cmp);
    int64_t pid = m->processes.len ? stint_model_process_at(m, 0)->pid : 0;
    fprintf(out,
            "{\"kind\":\"meta\",\"schema\":\"stint/session/1\",\"run_id\":\"converted\",\"correlation_id\":"
            "\"converted\",\"entrypoint\":\"converted\",\"phase\":\"infer\",\"timestamp\":\"1970-01-01T00:00:00.000Z\","
            "\"capture_step\":1,\"warmup_steps\":0,\"device\":\"cpu\",\"timing_mode\":\"host\","
            "\"measured_region_device_synchronized\":false,\"tags\":{\"converted_from\":\"%s\"},\"pid\":%" PRId64
            ",\"hostname\":\"\",\"stint_version\":\"%s\",\"clock_monotonic_ns\":%" PRId64
            ",\"clock_realtime_ns\":0}\n",
            m->format ? m->format : "unknown", pid, STINT_VERSION_STRING, origin);
    size_t hn = 0;
    for (size_t r = 0; r <= k; r++) {
        const struct stint_slice *s = r < k ? stint_model_slice(m, order[r]) : NULL;
        /* end what is over by s's start (everything at the end) */
        while (hn && (!s || heap[0].end < s->ts_ns ||
                      (heap[0].end == s->ts_ns && stint_model_slice(m, heap[0].idx)->dur_ns > 0))) {
            struct pend e = pend_pop(heap, &hn);
            fprintf(out, "{\"kind\":\"span_end\",\"id\":\"s%u\",\"duration_ns\":%" PRId64 "}\n", e.idx + 1,
                    stint_model_slice(m, e.idx)->dur_ns);
        }
        if (!s)
            break;
        const struct stint_lane *l = stint_model_lane_at(m, stint_model_track_at(m, s->track)->lane);
        fprintf(out, "{\"kind\":\"span_start\",\"id\":\"s%u\"", order[r] + 1);
        uint32_t p = s->parent;
        while (p != STINT_NO_ID && !eligible(m, stint_model_slice(m, p)))
            p = stint_model_slice(m, p)->parent;
        if (p != STINT_NO_ID)
            fprintf(out, ",\"parent_id\":\"s%u\"", p + 1);
        fputs(",\"name\":", out);
        put_str(out, m, s->name);
        /* keep what a JSONL input said about the span (measured region, step) */
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
        fprintf(out, ",\"start_ns\":%" PRId64 ",\"span_kind\":\"function\",\"measured\":%s", s->ts_ns - origin,
                measured ? "true" : "false");
        if (step) {
            fputs(",\"step\":", out);
            put_str(out, m, step);
        }
        fprintf(out, ",\"tid\":%" PRId64 "}\n", l->tid);
        struct pend e = {s->ts_ns + s->dur_ns, s->depth, order[r]};
        pend_push(heap, &hn, e);
        st->slices++;
    }
    for (size_t q = 0; q < m->samples.len; q++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, q);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        fprintf(out, "{\"kind\":\"counter\",\"timestamp_ns\":%" PRId64 ",\"name\":", cs->ts_ns - origin);
        put_str(out, m, c->name);
        fprintf(out, ",\"value\":%.17g,\"unit\":\"\",\"tid\":0}\n", cs->value);
    }
    free(order);
    free(heap);
    return 0;
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
            st->skipped++;
            if (t->kind != STINT_TRACK_THREAD)
                st->skipped_async++;
            else if (s->dur_ns < 0)
                st->skipped_unfinished++;
            else
                st->skipped_instants++;
            continue;
        }
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        int dev = l->clock == STINT_CLOCK_DEVICE;
        fprintf(out, "[STRACE] v=1 pid=%" PRId64 " tid=%" PRId64 " inv=%" PRId64 " hid=0000000000000000 depth=%u name=",
                l->pid, dev ? l->pid : l->tid, dev ? l->tid : (int64_t)1, s->depth);
        size_t nl;
        const char *nm = stint_model_str(m, s->name, &nl);
        int changed = 0;
        for (size_t k = 0; k < nl; k++) {
            char c = nm[k];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '=') {
                c = '_';
                changed = 1;
            }
            putc(c, out);
        }
        if (!nl) {
            putc('_', out);
            changed = 1;
        }
        st->renamed += (uint64_t)changed;
        fprintf(out, " ts=%" PRId64 " dur=%" PRId64 " %s\n", s->ts_ns, s->dur_ns, dev ? "clk=dev" : "");
        st->slices++;
    }
    st->skipped_counters = m->counters.len;
    return 0;
}
