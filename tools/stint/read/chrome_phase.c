/* SPDX-License-Identifier: MIT */
/*
 * chrome_phase.c - one parsed Chrome event into the model: its ids and time
 * resolved, then one function per phase (add_phase dispatches on the
 * letter).
 *
 * Phases follow trace-formats-and-peers.md 1.3-1.5 and Perfetto's import
 * rules (see model.h for B/E matching and nesting). Every event the reader
 * keeps out or keeps in another form is counted, as a drop or as a repair,
 * with the byte offset of its '{'. Names and categories go through the
 * reader's cache (chrome_int.h), ids of async spans and flows do not (they
 * are mostly unique). Nothing here allocates per event except what the
 * model keeps.
 */
#include "read/chrome_int.h"

#include "base/tsparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flow id's identity for stint_model_flow_key: the number itself when
 * its (unescaped) text is a canonical decimal below 2^63, which needs no
 * string (the common case, and a string table of one key per flow missed
 * the cache on most flow events of a large trace), or, for a string, its
 * value as hex (Perfetto's rule: "0x10" and 16 are one id, "16" is 0x16);
 * else the text's string id with STINT_FLOW_ID_STR. The empty or absent id
 * is the empty string. An absent id, or a string that is no hex number, is
 * counted (flow_invalid_id): what names the event is at. */
static uint64_t flow_id(struct creader *r, const struct span *sp, const char *at)
{
    if (!sp->set || sp->n == 0) {
        stint_model_repair(r->m, STINT_REPAIR_FLOW_INVALID_ID,
                           "byte %llu: flow event without an id (Perfetto drops it; kept, keyed by the empty id)",
                           (unsigned long long)offset_of(r, at));
        return STINT_FLOW_ID_STR;
    }
    size_t n;
    const char *s = span_text(r, sp, &n);
    if (sp->str) {
        size_t i = n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x' ? 2 : 0, d = 0;
        uint64_t v = 0;
        for (; i < n; i++, d++) {
            int h = stint_json_hexval((unsigned char)s[i]);
            if (h < 0 || v >> 60)
                break;
            v = v << 4 | (uint64_t)h;
        }
        if (i == n && d && v < STINT_FLOW_ID_STR)
            return v;
        if (i < n || !d)
            stint_model_repair(r->m, STINT_REPAIR_FLOW_INVALID_ID,
                               "byte %llu: flow id \"%.*s\" is no hex number (Perfetto reads string ids as hex and "
                               "drops this event; kept, keyed by its text)",
                               (unsigned long long)offset_of(r, sp->s), (int)(n < 40 ? n : 40), s);
        return STINT_FLOW_ID_STR | stint_model_intern(r->m, s, n);
    }
    if (n <= 19 && (n == 1 || s[0] != '0')) {
        uint64_t v = 0;
        size_t i = 0;
        for (; i < n && (unsigned)(s[i] - '0') < 10; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (i == n && v < STINT_FLOW_ID_STR)
            return v;
    }
    return STINT_FLOW_ID_STR | stint_model_intern(r->m, s, n);
}


int stint_i_chrome_integral_number(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = i < n && s[i] == '-';
    i += (size_t)neg;
    char dig[40];
    size_t nd = 0;
    long scale = 0; /* value = digits x 10^scale */
    int seen = 0;
    for (int frac = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        seen = 1;
        if (nd == 0 && c == '0') { /* leading zeros add nothing */
            scale -= frac;
            continue;
        }
        if (nd == sizeof dig)
            return 0; /* more significant digits than any int64 has */
        dig[nd++] = c;
        scale -= frac;
    }
    if (!seen)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = i < n && s[i] == '-';
        i += i < n && (s[i] == '-' || s[i] == '+');
        long e = 0;
        if (i == n)
            return 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        scale += eneg ? -e : e;
    }
    if (i != n)
        return 0;
    while (scale < 0 && nd) { /* digits after the point must be zeros */
        if (dig[--nd] != '0')
            return 0;
        scale++;
    }
    if (nd == 0) {
        *out = 0;
        return 1;
    }
    uint64_t v = 0;
    for (size_t k = 0; k < nd; k++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(dig[k] - '0'), &v))
            return 0;
    for (; scale > 0; scale--)
        if (__builtin_mul_overflow(v, 10, &v))
            return 0;
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

/* A pid or tid value sp as an integer: 0 when it is one (a plain integer, a
 * string holding one, or a number of integral value in another notation),
 * 1 when it is a string (the caller gives it a synthetic id), 2 when it is a
 * number that is no int64 integer (counted; a synthetic id too). */
static __attribute__((noinline)) int id_value_slow(struct creader *r, const struct span *sp, const char *what,
                                                    int64_t *out)
{
    if (span_i64(r, sp, out) == 0)
        return 0;
    if (sp->str)
        return 1;
    if (stint_i_chrome_integral_number(sp->s, sp->n, out))
        return 0;
    stint_model_repair(r->m, STINT_REPAIR_ID_NOT_INTEGER,
                       "byte %llu: %s %.*s is not an integer (expected an integer id; kept on a lane named by it)",
                       (unsigned long long)offset_of(r, sp->s), what, (int)(sp->n < 40 ? sp->n : 40), sp->s);
    return 2;
}

static inline int id_value(struct creader *r, const struct span *sp, const char *what, int64_t *out)
{
    if (sp->num == SPAN_NUM_INT) { /* (the common case, inline) */
        *out = sp->v;
        return 0;
    }
    return id_value_slow(r, sp, what, out);
}

/* The event's pid: the number, 0 when absent, a synthetic pid for a string
 * (or a number that is no integer). *reserved is set when the number lies
 * where synthetic ids do (at or below STINT_SYNTHETIC_ID0): the caller drops
 * the event rather than let a written id and a string's id meet. */
static int64_t resolve_pid(struct creader *r, const struct event *e, int *reserved)
{
    if (!e->pid.set)
        return 0;
    int64_t v;
    if (id_value(r, &e->pid, "pid", &v) == 0) {
        *reserved |= v <= STINT_SYNTHETIC_ID0;
        return v;
    }
    return stint_model_synthetic_pid(r->m, intern_span(r, &e->pid));
}

/* The event's tid the same way (absent or 0: the pid). */
static int64_t resolve_tid(struct creader *r, const struct event *e, int64_t pid, int *reserved)
{
    if (!e->tid.set)
        return pid;
    int64_t v;
    if (id_value(r, &e->tid, "tid", &v) == 0) {
        *reserved |= v <= STINT_SYNTHETIC_ID0;
        return v == 0 ? pid : v; /* Perfetto: tid 0 means the process's main thread */
    }
    return stint_model_synthetic_tid(r->m, pid, intern_span(r, &e->tid));
}

/* A tts or tdur that is no time: ignored and counted (Perfetto drops the event). */
static void bad_thread_time(struct creader *r, const char *what, const char *at)
{
    stint_model_repair(r->m, STINT_REPAIR_BAD_THREAD_TIME,
                       "byte %llu: %s is not a time in microseconds (Perfetto drops the event): ignored",
                       (unsigned long long)offset_of(r, at), what);
}

/* A sort_index value: 1 with *x when it is an integer that fits 32 bits;
 * else 0, the M event's index dropped and counted (it was cut to 32 bits,
 * or ignored without a word when not an integer). */
static int sort_index_of(struct creader *r, const struct span *v, int64_t *x)
{
    if (stint_parse_i64(v->s, v->n, x) == 0 && *x >= INT32_MIN && *x <= INT32_MAX)
        return 1;
    stint_model_drop(r->m, "byte %llu: sort_index %.*s is not an integer of 32 bits (expected one): ignored",
                     (unsigned long long)offset_of(r, v->s), (int)(v->n < 40 ? v->n : 40), v->s);
    return 0;
}

/* M: process and thread names and sort indexes (other M events are not modelled). */
static void handle_metadata(struct creader *r, const struct event *e, int64_t pid, int64_t tid)
{
    struct stint_model *m = r->m;
    struct span v;
    if (!e->args_a)
        return;
    if (key_is(e->name.s, e->name.n, "process_name") && stint_i_chrome_find_arg(e->args_a, e->args_b, "name", &v)) {
        uint32_t p = stint_model_process(m, pid);
        STINT_BA_AT(&m->processes, struct stint_process, p).name = intern_span(r, &v);
    } else if (key_is(e->name.s, e->name.n, "thread_name") && stint_i_chrome_find_arg(e->args_a, e->args_b, "name", &v)) {
        uint32_t l = host_lane(r, pid, tid);
        STINT_BA_AT(&m->lanes, struct stint_lane, l).name = intern_span(r, &v);
    } else if (key_is(e->name.s, e->name.n, "process_sort_index") &&
               stint_i_chrome_find_arg(e->args_a, e->args_b, "sort_index", &v)) {
        int64_t x;
        if (sort_index_of(r, &v, &x)) {
            uint32_t pi = stint_model_process(m, pid);
            struct stint_process *p = &STINT_BA_AT(&m->processes, struct stint_process, pi);
            p->sort_index = (int32_t)x;
            p->has_sort_index = 1;
        }
    } else if (key_is(e->name.s, e->name.n, "thread_sort_index") &&
               stint_i_chrome_find_arg(e->args_a, e->args_b, "sort_index", &v)) {
        int64_t x;
        if (sort_index_of(r, &v, &x)) {
            uint32_t li = host_lane(r, pid, tid);
            struct stint_lane *l = &STINT_BA_AT(&m->lanes, struct stint_lane, li);
            l->sort_index = (int32_t)x;
            l->has_sort_index = 1;
        }
    }
}

/* A Kineto memory record (instant "[memory]" with args Device Type, Device
 * Id, Bytes, Total Allocated, Total Reserved): its numbers also become
 * counter samples of series "[memory] DEVICE KEY" (DEVICE as PyTorch names
 * it: "cpu", "cuda:1"), so that counters and memory read them. The instant
 * itself is kept as any other. An arg that is absent or no integer adds no
 * sample (the instant is kept: nothing is dropped). */
static void memory_instant(struct creader *r, const struct event *e, int64_t pid, int64_t ts)
{
    static const char *const keys[] = {"Bytes", "Total Allocated", "Total Reserved"};
    struct span v;
    int64_t type = -1, dev = -1;
    if (stint_i_chrome_find_arg(e->args_a, e->args_b, "Device Type", &v) && stint_parse_i64(v.s, v.n, &type) != 0)
        type = -1;
    if (stint_i_chrome_find_arg(e->args_a, e->args_b, "Device Id", &v) && stint_parse_i64(v.s, v.n, &dev) != 0)
        dev = -1;
    /* c10::DeviceType's numbers, for the names PyTorch prints */
    const char *tn = type == 0 ? "cpu" : type == 1 ? "cuda" : type == 6 ? "hip" : type == 12 ? "xpu"
                     : type == 13 ? "mps" : type == 19 ? "mtia" : NULL;
    char devname[48];
    if (!tn)
        snprintf(devname, sizeof devname, "device_type_%lld:%lld", (long long)type, (long long)dev);
    else if (dev < 0)
        snprintf(devname, sizeof devname, "%s", tn);
    else
        snprintf(devname, sizeof devname, "%s:%lld", tn, (long long)dev);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int64_t x;
        if (!stint_i_chrome_find_arg(e->args_a, e->args_b, keys[k], &v) || v.str || stint_parse_i64(v.s, v.n, &x) != 0)
            continue;
        char name[96];
        int n = snprintf(name, sizeof name, "[memory] %s %s", devname, keys[k]);
        stint_model_counter(r->m, pid, stint_model_intern(r->m, name, (size_t)n), ts, (double)x);
    }
}

/* A C event's args as counter series "<name> <key>" (Perfetto's names),
 * one sample each at ts; a value that is no number is dropped and counted. */
static void handle_counter(struct creader *r, const struct event *e, int64_t pid, int64_t ts, const char *at)
{
    struct stint_model *m = r->m;
    if (!e->args_a) {
        stint_model_drop(m, "byte %llu: counter event '%.*s' has no args (expected an object of numeric values)",
                         (unsigned long long)offset_of(r, at), (int)(e->name.n < 60 ? e->name.n : 60),
                         e->name.s ? e->name.s : "");
        return;
    }
    struct stint_json j = chrome_sub_json(e->args_a + 1, e->args_b);
    size_t nn;
    const char *nm = stint_model_str(m, intern_span(r, &e->name), &nn);
    if (e->id.set) { /* an instance's counters: "<name> id: <id>", as Perfetto names their tracks */
        size_t idn;
        const char *id = stint_model_str(m, intern_span(r, &e->id), &idn);
        char *b = stint_i_chrome_scratch(r, nn + 5 + idn);
        memcpy(b, nm, nn);
        memcpy(b + nn, " id: ", 5);
        memcpy(b + nn + 5, id, idn);
        nm = stint_model_str(m, stint_model_intern(m, b, nn + 5 + idn), &nn);
    }
    const char *k0, *k;
    size_t kn;
    int kesc;
    while (stint_i_chrome_next_member(&j, &k0, &k, &kn, &kesc)) {
        struct span v;
        if (read_value(&j, &v) != STINT_JSON_OK)
            return;
        if (!v.set)
            continue;
        /* the value's text is followed by a delimiter (a JSON number) or a
         * quote (a string), where strtod stops: any length (the CLI runs in
         * the C locale) */
        char *endp;
        double d = v.n ? strtod(v.s, &endp) : 0;
        if (!v.n || endp != v.s + v.n) {
            stint_model_drop(m, "byte %llu: counter '%s' arg '%.*s' is not a number (expected one): that value is dropped",
                             (unsigned long long)offset_of(r, v.s), nm, (int)(kn < 60 ? kn : 60), k);
            continue;
        }
        /* series name "<name> <key>", as Perfetto names counter tracks */
        char *b = stint_i_chrome_scratch(r, nn + 1 + kn);
        memcpy(b, nm, nn);
        b[nn] = ' ';
        if (kesc)
            kn = stint_json_unescape(k, kn, b + nn + 1);
        else
            memcpy(b + nn + 1, k, kn);
        stint_model_counter(m, pid, stint_model_intern(m, b, nn + 1 + kn), ts, d);
    }
}

/* A T event with dur: one thread-state interval on the thread's state track
 * (model.h, STINT_SLICE_THREAD_STATE). Returns the slice index, or
 * STINT_NO_ID when the dur is invalid (dropped and counted, as an X's). tts: the
 * event's thread time (STINT_TS_NONE: none). */
static uint32_t add_thread_state(struct creader *r, const struct event *e, struct stint_slice *s, int64_t tts,
                                 int64_t pid, int64_t tid, const char *at)
{
    struct stint_model *m = r->m;
    int64_t d;
    int rc = parse_time(r, &e->dur, &d);
    if (rc == 0 && d >= 0 && !stint_end_in_range(s->ts_ns, d))
        rc = -2;
    if (rc != 0) {
        stint_model_drop(m, "byte %llu: thread-state event 'T' '%s' has %s dur (expected microseconds)",
                         (unsigned long long)offset_of(r, at), stint_model_str(m, s->name, NULL),
                         rc == -2 ? "an out-of-range" : "an invalid");
        return STINT_NO_ID;
    }
    char key[64];
    int kn = snprintf(key, sizeof key, "thread_state tid %lld", (long long)tid);
    uint32_t id = stint_model_intern(m, key, (size_t)kn);
    s->track = stint_model_track_async(m, STINT_ASYNC_PROCESS, pid, s->cat, id, id);
    s->dur_ns = d;
    s->flags = STINT_SLICE_COMPLETE | STINT_SLICE_ASYNC | STINT_SLICE_THREAD_STATE;
    return stint_model_add_slice_tt(m, s, tts, STINT_TS_NONE);
}

/* ---- one event into the model: one function per phase ---------------------------------------- */

/* What each phase's function gets: the event, its '{' (at), its ids and ts
 * resolved, its phase letter, and its slice as far as every phase fills it
 * (ts, tts, name, cat). A phase function returns the slice it added, or
 * STINT_NO_ID when there is nothing more to do for the event. */
struct ev {
    struct creader *r;
    const struct event *e;
    const char *at;
    int64_t pid, tid, ts;
    char ph;
    struct stint_slice s;
    int64_t tts, tdur; /* its thread time and duration (STINT_TS_NONE: none) */
};

/* The event's byte offset, for messages. */
static inline unsigned long long ev_byte(const struct ev *v)
{
    return (unsigned long long)offset_of(v->r, v->at);
}

/* The slice's name, for messages. */
static inline const char *ev_name(const struct ev *v)
{
    return stint_model_str(v->r->m, v->s.name, NULL);
}

/* The track of the event's thread (host clock). */
static inline uint32_t ev_thread_track(const struct ev *v)
{
    uint32_t lane = host_lane(v->r, v->pid, v->tid);
    return STINT_BA_AT(&v->r->m->lanes, struct stint_lane, lane).track;
}

/* X: a complete slice on the thread's track. */
static uint32_t phase_complete(struct ev *v)
{
    struct stint_model *m = v->r->m;
    const struct event *e = v->e;
    int64_t d = 0;
    if (!e->dur.set)
        stint_model_repair(m, STINT_REPAIR_X_WITHOUT_DUR,
                           "byte %llu: X event '%s' has no dur (Perfetto drops it; kept with dur 0)", ev_byte(v),
                           ev_name(v));
    int dur_rc = e->dur.set ? parse_time(v->r, &e->dur, &d) : 0;
    if (dur_rc == 0 && d >= 0 && !stint_end_in_range(v->ts, d))
        dur_rc = -2;
    if (dur_rc != 0) {
        stint_model_drop(m, "byte %llu: X event '%s' has %s dur (expected microseconds%s)", ev_byte(v), ev_name(v),
                         dur_rc == -2 ? "an out-of-range" : "an invalid",
                         dur_rc == -2 ? " ending within the kept range (|t| < 2^62 ns)" : "");
        return STINT_NO_ID;
    }
    if (d < 0) { /* (here, where its byte is known; and -1 ns is no "unfinished" mark in a dur) */
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_DUR, "byte %llu: X event '%s' has dur %lld ns (kept as 0)",
                           ev_byte(v), ev_name(v), (long long)d);
        d = 0;
    }
    if (e->tdur.set) {
        int64_t t;
        if (parse_time(v->r, &e->tdur, &t) == 0)
            v->tdur = t;
        else
            bad_thread_time(v->r, "tdur", v->at);
    }
    v->s.track = ev_thread_track(v);
    v->s.dur_ns = d;
    v->s.flags = STINT_SLICE_COMPLETE;
    if (e->bind_id.set) /* a v2 flow needs the slice's index */
        v->s.flags |= STINT_SLICE_NEEDS_INDEX;
    const struct stint_read_opts *o = v->r->o;
    if (!o || !o->corr_fn)
        return stint_model_add_slice_tt(m, &v->s, v->tts, v->tdur);
    uint64_t seq0 = m->seq; /* (a kept slice takes a seq; a dropped one does not) */
    uint32_t idx = stint_model_add_slice_tt(m, &v->s, v->tts, v->tdur);
    void *cx = m->part_ctx ? m->part_ctx : o->corr_ctx; /* (a part of a split read: its own) */
    if (m->seq != seq0 && o->corr_want(cx, m, v->s.cat)) {
        int64_t corr = 0;
        int has = e->args_a ? stint_i_chrome_args_corr(v->r, e->args_a, e->args_b, &corr) : 0;
        o->corr_fn(cx, v->s.track, v->s.cat, v->s.name, v->s.ts_ns, v->s.dur_ns, has, corr);
    }
    return idx;
}

/* B: opens a slice on the thread's lane. */
static uint32_t phase_begin(struct ev *v)
{
    return stint_model_begin_tt(v->r->m, host_lane(v->r, v->pid, v->tid), &v->s, v->tts);
}

/* E: closes the lane's open slice; its args merge into that slice (model.h). */
static uint32_t phase_end(struct ev *v)
{
    struct stint_model *m = v->r->m;
    stint_model_end_cat(m, host_lane(v->r, v->pid, v->tid), v->ts, v->s.name, v->s.cat, v->tts);
    if (v->e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS))
        stint_i_chrome_args_end(v->r, v->e->args_a, v->e->args_b);
    return STINT_NO_ID;
}

/* i, I, R, and P (a sample, kept as a thread instant whatever its "s"): an
 * instant on the track its scope names. */
static uint32_t phase_instant(struct ev *v)
{
    struct stint_model *m = v->r->m;
    const struct event *e = v->e;
    char ph = v->ph;
    if (ph == 'P')
        stint_model_repair(m, STINT_REPAIR_SAMPLE_EVENT,
                           "byte %llu: sample event 'P' '%s': kept as a thread instant, its stack (sf or V8 "
                           "cpuProfile) is not modelled",
                           ev_byte(v), ev_name(v));
    char scope = ph != 'P' && e->s.set && e->s.n ? e->s.s[0] : 't';
    if ((ph == 'i' || ph == 'I') && e->s.set && (e->s.n != 1 || (scope != 'g' && scope != 'p' && scope != 't')))
        stint_model_repair(m, STINT_REPAIR_INSTANT_SCOPE,
                           "byte %llu: instant '%s' has scope \"%.*s\" (expected g, p or t; Perfetto drops it): "
                           "read as %s",
                           ev_byte(v), ev_name(v), (int)(e->s.n < 20 ? e->s.n : 20), e->s.s,
                           scope == 'g' ? "global" : scope == 'p' ? "process" : "thread");
    enum stint_track_kind kind = STINT_TRACK_THREAD;
    if (scope == 'g') {
        v->s.track = stint_model_track_global(m);
        kind = STINT_TRACK_GLOBAL;
    } else if (scope == 'p') {
        v->s.track = stint_model_track_process(m, v->pid);
        kind = STINT_TRACK_PROCESS;
    } else {
        v->s.track = ev_thread_track(v);
    }
    v->s.dur_ns = 0;
    v->s.flags = STINT_SLICE_INSTANT;
    if (e->bind_id.set) /* a v2 flow needs the slice's index (not a counted lean instant) */
        v->s.flags |= STINT_SLICE_NEEDS_INDEX;
    if (ph == 'i' && e->args_a && key_is(e->name.s, e->name.n, "[memory]"))
        memory_instant(v->r, e, v->pid, v->s.ts_ns);
    stint_model_instant_stat(m, kind, v->s.cat, v->s.name);
    return stint_model_add_slice_tt(m, &v->s, v->tts, v->tdur);
}

/* b, e, n, S, F: async slices and instants on the track of their id.
 * Perfetto's tracks: id2.local is process-scoped; id2.global and a plain id
 * are global (one track per cat + id across processes); with neither
 * (Perfetto drops the event) the process keeps it. */
static uint32_t phase_async(struct ev *v)
{
    struct stint_model *m = v->r->m;
    const struct event *e = v->e;
    char ph = v->ph;
    uint32_t idtext = 0, idx;
    enum stint_async_scope scope = STINT_ASYNC_PROCESS;
    if (e->id.set) { /* id first, then id2.global, then id2.local (Perfetto) */
        idtext = intern_id(v->r, &e->id);
        scope = STINT_ASYNC_GLOBAL;
    } else if (e->id2.set) {
        idtext = intern_id(v->r, &e->id2);
        scope = e->id2_global ? STINT_ASYNC_GLOBAL : STINT_ASYNC_PROCESS;
    } else if (ph == 'b' || ph == 'e' || ph == 'n') {
        stint_model_repair(m, STINT_REPAIR_ASYNC_WITHOUT_ID,
                           "byte %llu: async '%c' '%s' has no id or id2 (Perfetto drops it): kept on its "
                           "process's track for its category",
                           ev_byte(v), ph, ev_name(v));
    }
    uint32_t track = stint_model_track_async(m, scope, v->pid, v->s.cat, idtext, v->s.name);
    if (ph == 'S' || ph == 'F')
        stint_model_repair(m, STINT_REPAIR_LEGACY_ASYNC,
                           "byte %llu: legacy async '%c' '%s' (Perfetto ignores S/F): kept as an async slice",
                           ev_byte(v), ph, ev_name(v));
    if (ph == 'b' || ph == 'S')
        idx = stint_model_async_begin_tt(m, track, &v->s, v->tts);
    else if (ph == 'e' || ph == 'F') {
        stint_model_async_end(m, track, v->ts, v->s.name);
        if (e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS))
            stint_i_chrome_args_end(v->r, e->args_a, e->args_b);
        return STINT_NO_ID;
    } else {
        v->s.track = track;
        v->s.dur_ns = 0;
        v->s.flags = STINT_SLICE_INSTANT | STINT_SLICE_ASYNC;
        stint_model_instant_stat(m, STINT_TRACK_ASYNC, v->s.cat, v->s.name);
        idx = stint_model_add_slice_tt(m, &v->s, v->tts, v->tdur);
    }
    if (idx != STINT_NO_ID && scope == STINT_ASYNC_GLOBAL) /* its own process, not the track's */
        stint_model_slice_from_process(m, idx, v->pid);
    return idx;
}

/* p, and T without dur: a legacy async step, an instant on the async track
 * of its id (like n). */
static uint32_t phase_async_step(struct ev *v)
{
    stint_model_repair(v->r->m, STINT_REPAIR_ASYNC_STEP,
                       "byte %llu: legacy async step '%c' '%s' (Perfetto ignores it): kept as an instant on its "
                       "async track",
                       ev_byte(v), v->ph, ev_name(v));
    return phase_async(v);
}

/* T: with dur, Perfetto's thread-state interval (model.h,
 * STINT_SLICE_THREAD_STATE); without, the legacy async step-into. */
static uint32_t phase_thread_state(struct ev *v)
{
    if (v->e->dur.set)
        return add_thread_state(v->r, v->e, &v->s, v->tts, v->pid, v->tid, v->at);
    return phase_async_step(v);
}

/* C: the args' numbers as counter series. */
static uint32_t phase_counter(struct ev *v)
{
    handle_counter(v->r, v->e, v->pid, v->ts, v->at);
    return STINT_NO_ID;
}

/* s, t, f: a v1 flow step, its identity cat + name + id. */
static uint32_t phase_flow(struct ev *v)
{
    struct stint_model *m = v->r->m;
    const struct event *e = v->e;
    uint32_t key = stint_model_flow_key(m, v->s.cat, v->s.name, flow_id(v->r, e->id.set ? &e->id : &e->id2, v->at));
    uint32_t lane = host_lane(v->r, v->pid, v->tid);
    int enclosing = v->ph != 'f' || (e->bp.set && e->bp.n && e->bp.s[0] == 'e');
    stint_model_flow(m, (enum stint_flow_phase)v->ph, stint_model_lane_at(m, lane)->track, v->ts, key, enclosing,
                     STINT_NO_ID, 0, 0);
    return STINT_NO_ID;
}

/* Any other letter: counted, the event kept out. */
static uint32_t phase_unknown(struct ev *v)
{
    stint_model_repair(v->r->m, STINT_REPAIR_UNKNOWN_PHASE, "byte %llu: phase '%c' is not modelled (event kept out)",
                       ev_byte(v), v->ph);
    return STINT_NO_ID;
}

/* Each phase letter's function (phase_unknown for the others). */
static uint32_t (*const phases[128])(struct ev *v) = {
    ['X'] = phase_complete, ['B'] = phase_begin,        ['E'] = phase_end,     ['P'] = phase_instant,
    ['i'] = phase_instant,  ['I'] = phase_instant,      ['R'] = phase_instant, ['T'] = phase_thread_state,
    ['p'] = phase_async_step, ['b'] = phase_async,      ['e'] = phase_async,   ['n'] = phase_async,
    ['S'] = phase_async,    ['F'] = phase_async,        ['C'] = phase_counter, ['s'] = phase_flow,
    ['t'] = phase_flow,     ['f'] = phase_flow,
};

/* The phase letter's function, run. */
static inline uint32_t add_phase(struct ev *v)
{
    unsigned char ph = (unsigned char)v->ph;
    uint32_t (*fn)(struct ev *) = ph < 128 && phases[ph] ? phases[ph] : phase_unknown;
    return fn(v);
}

/* After a phase added slice idx: its v2 flow (bind_id) and its args. */
static void finish_slice(struct ev *v, uint32_t idx)
{
    struct stint_model *m = v->r->m;
    const struct event *e = v->e;
    if (e->bind_id.set && !e->flow_in && !e->flow_out)
        stint_model_repair(m, STINT_REPAIR_FLOW_NO_DIRECTION,
                           "byte %llu: '%s' has a bind_id but neither flow_in nor flow_out (no arrow)", ev_byte(v),
                           ev_name(v));
    if (e->bind_id.set && (e->flow_in || e->flow_out)) {
        /* flow v2: the key is the bind id alone, apart from v1 keys */
        stint_model_flow(m, STINT_FLOW_V2, STINT_BA_AT(&m->slices, struct stint_slice, idx).track, v->ts,
                         stint_model_flow_key(m, STINT_NO_ID, STINT_NO_ID, flow_id(v->r, &e->bind_id, v->at)), 0, idx,
                         e->flow_in, e->flow_out);
    }
    const struct stint_read_opts *o = v->r->o;
    if (e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS) && o && o->args_fn) {
        if (idx != STINT_NO_ID) /* (a part of a split read: its own context) */
            o->args_fn(m->part_ctx ? m->part_ctx : o->args_ctx, m, idx, e->args_a, e->args_b);
    } else if (e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS))
        stint_i_chrome_args_slice(v->r, e->args_a, e->args_b, idx);
}

/* An event without a phase: Chrome's closing {} is no event; any other is
 * dropped and counted, whatever its keys ({"tid": 5, "dur": 10} vanished). */
static void no_phase(struct creader *r, const char *at)
{
    const char *q = at + 1; /* (at: its '{'; the window holds the whole object) */
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
        q++;
    if (*q == '}')
        return;
    stint_model_drop(r->m, "byte %llu: event without \"ph\" (expected a phase letter)",
                     (unsigned long long)offset_of(r, at));
}

void stint_i_chrome_add_event(struct creader *r, const struct event *e, const char *at)
{
    struct stint_model *m = r->m;
    m->events++;
    if (!e->ph.set || e->ph.n == 0) {
        no_phase(r, at);
        return;
    }
    struct ev v = {.r = r, .e = e, .at = at, .ph = e->ph.s[0]}; /* Perfetto reads the first character only */
    int reserved = 0;
    v.pid = resolve_pid(r, e, &reserved);
    v.tid = reserved ? 0 : resolve_tid(r, e, v.pid, &reserved);
    if (reserved) {
        stint_model_drop(m, "byte %llu: event '%.*s' has a pid or tid at or below -4294967296 (-2^32: kept for ids "
                         "written as strings)", ev_byte(&v),
                         (int)(e->name.n > 80 ? 80 : e->name.n), e->name.s ? e->name.s : "");
        return;
    }
    if (v.ph == 'M') {
        handle_metadata(r, e, v.pid, v.tid);
        return;
    }
    int ts_rc = e->ts.set ? parse_time(r, &e->ts, &v.ts) : -1;
    if (ts_rc == 0 && !stint_ts_in_range(v.ts))
        ts_rc = -2;
    if (ts_rc != 0) {
        stint_model_drop(m, "byte %llu: event '%.*s' has %s ts (expected a number of microseconds%s)", ev_byte(&v),
                         (int)(e->name.n > 80 ? 80 : e->name.n),
                         e->name.s ? e->name.s : "", !e->ts.set ? "no" : ts_rc == -2 ? "an out-of-range" : "an invalid",
                         ts_rc == -2 ? " within +-4611686018427387.903, the kept range (|t| < 2^62 ns)" : "");
        return;
    }
    if (e->ts.str)
        stint_model_repair(m, STINT_REPAIR_STRING_NUMBER, "byte %llu: ts given as a string", ev_byte(&v));
    v.s = (struct stint_slice){.ts_ns = v.ts};
    v.tts = v.tdur = STINT_TS_NONE;
    v.s.name = intern_span(r, &e->name);
    v.s.cat = intern_span(r, &e->cat);
    if (e->tts.set) {
        int64_t t;
        if (parse_time(r, &e->tts, &t) == 0)
            v.tts = t;
        else
            bad_thread_time(r, "tts", at);
    }
    if (v.ts < 0)
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_TS,
                           "byte %llu: event '%s' has a negative ts (%lld ns; Perfetto drops it): kept", ev_byte(&v),
                           ev_name(&v), (long long)v.ts);
    uint32_t idx = add_phase(&v);
    if (idx != STINT_NO_ID)
        finish_slice(&v, idx);
}
