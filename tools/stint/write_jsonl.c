/*
 * write_jsonl.c - stint/session/1 JSONL sessions and [STRACE] marker logs
 * from the model (writers.h).
 *
 * JSONL: a meta line, then per thread track the spans in start order with
 * their span_end lines written innermost first (a stack per track), so the
 * file reads like the library's own sessions; parent_id follows the model's
 * nesting. Times are ns since the earliest ts. Counter samples become
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

int stint_write_jsonl(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                      struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    int64_t origin = stint_model_origin(m);
    (void)o;
    st->origin_ns = origin;
    size_t n = stint_model_nslices(m);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    if (!stack)
        return -1;
    int64_t pid = m->processes.len ? stint_model_process_at(m, 0)->pid : 0;
    fprintf(out,
            "{\"kind\":\"meta\",\"schema\":\"stint/session/1\",\"run_id\":\"converted\",\"correlation_id\":"
            "\"converted\",\"entrypoint\":\"converted\",\"phase\":\"infer\",\"timestamp\":\"1970-01-01T00:00:00.000Z\","
            "\"capture_step\":1,\"warmup_steps\":0,\"device\":\"cpu\",\"timing_mode\":\"host\","
            "\"measured_region_device_synchronized\":false,\"tags\":{\"converted_from\":\"%s\"},\"pid\":%" PRId64
            ",\"hostname\":\"\",\"stint_version\":\"%s\",\"clock_monotonic_ns\":%" PRId64
            ",\"clock_realtime_ns\":0}\n",
            m->format ? m->format : "unknown", pid, STINT_VERSION_STRING, origin);
    size_t sp = 0;
    uint32_t cur_track = STINT_NO_ID;
    for (size_t i = 0; i <= n; i++) {
        const struct stint_slice *s = i < n ? stint_model_slice(m, i) : NULL;
        /* close what ended before s (or everything at a track change / the end) */
        while (sp) {
            const struct stint_slice *top = stint_model_slice(m, stack[sp - 1]);
            if (s && s->track == cur_track && s->parent != STINT_NO_ID) {
                /* keep open every ancestor of s */
                uint32_t a = s->parent;
                int is_anc = 0;
                for (; a != STINT_NO_ID; a = stint_model_slice(m, a)->parent)
                    if (a == stack[sp - 1]) {
                        is_anc = 1;
                        break;
                    }
                if (is_anc)
                    break;
            }
            fprintf(out, "{\"kind\":\"span_end\",\"id\":\"s%u\",\"duration_ns\":%" PRId64 "}\n", stack[sp - 1] + 1,
                    top->dur_ns);
            sp--;
        }
        if (!s)
            break;
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT)) {
            if (t->kind == STINT_TRACK_THREAD)
                st->skipped_instants++;
            else
                st->skipped_async++;
            st->skipped++;
            continue;
        }
        if (s->dur_ns < 0) {
            st->skipped_unfinished++;
            st->skipped++;
            continue;
        }
        cur_track = s->track;
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        fprintf(out, "{\"kind\":\"span_start\",\"id\":\"s%zu\"", i + 1);
        uint32_t p = s->parent;
        while (p != STINT_NO_ID && stint_model_slice(m, p)->dur_ns < 0)
            p = stint_model_slice(m, p)->parent;
        if (p != STINT_NO_ID)
            fprintf(out, ",\"parent_id\":\"s%u\"", p + 1);
        fputs(",\"name\":", out);
        put_str(out, m, s->name);
        fprintf(out, ",\"start_ns\":%" PRId64 ",\"span_kind\":\"function\",\"measured\":false,\"tid\":%" PRId64 "}\n",
                s->ts_ns - origin, l->tid);
        stack[sp++] = (uint32_t)i;
        st->slices++;
    }
    for (size_t k = 0; k < m->samples.len; k++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        fprintf(out, "{\"kind\":\"counter\",\"timestamp_ns\":%" PRId64 ",\"name\":", cs->ts_ns - origin);
        put_str(out, m, c->name);
        fprintf(out, ",\"value\":%.17g,\"unit\":\"\",\"tid\":0}\n", cs->value);
    }
    free(stack);
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
