/* SPDX-License-Identifier: MIT */
/*
 * model.c - the trace model's lifecycle and what is read from it: the big
 * arrays, init and free, where slices came from (host thread, process),
 * names of kinds, and the repair, drop and error records.
 *
 * The rest of the model lives beside it, one job a file (model_int.h lists
 * them). Invariants kept here: a repair kind's first message is the first
 * one recorded, and repair_seq orders the kinds' first messages (the read's
 * in input order, then the finish's); while two finish walkers run, each
 * thread's repairs go to its own log (stint_i_repair_log_to), which the
 * finish adds to the model afterwards in track order, so that counts and
 * messages come out as on one thread. The model owns every message string.
 */
#include "model/model_int.h"
#include "base/hmem.h"
#include "base/umap.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- big arrays ------------------------------------------------------------- */

void stint_bigarray_init(struct stint_bigarray *a, size_t elem_size)
{
    memset(a, 0, sizeof *a);
    a->elem = elem_size;
}

int stint_bigarray_reserve(struct stint_bigarray *a, size_t n)
{
    if (a->len + n <= a->cap)
        return 0;
    size_t cap = a->cap ? a->cap : 16;
    while (cap < a->len + n)
        cap *= 2;
    void *p = stint_hmem_realloc(a->data, a->cap * a->elem, cap * a->elem);
    if (!p)
        return -1;
    a->data = p;
    a->cap = cap;
    return 0;
}

void *stint_bigarray_push(struct stint_bigarray *a)
{
    if (a->len == a->cap && stint_bigarray_reserve(a, 1) != 0)
        return NULL;
    char *p = (char *)a->data + a->len * a->elem;
    memset(p, 0, a->elem);
    a->len++;
    return p;
}

void stint_bigarray_free(struct stint_bigarray *a)
{
    stint_hmem_free(a->data, a->cap * a->elem);
    a->data = NULL;
    a->len = a->cap = 0; /* (the array may be used again) */
}

/* ---- lifecycle ------------------------------------------------------------------- */

/* The model's big arrays and their element types: init and free take them all. */
#define MODEL_ARRAYS(X)                                                                                             \
    X(processes, struct stint_process) X(lanes, struct stint_lane) X(tracks, struct stint_track)                    \
    X(slices, struct stint_slice) X(tts, struct stint_thread_time) X(args, struct stint_arg) X(counters, struct stint_counter_series)                \
    X(samples, struct stint_counter_sample) X(instants, struct stint_instant_stat) X(metadata, struct stint_arg)    \
    X(losses, struct stint_loss) X(ends, struct end_ev) X(flows, struct stint_flow) X(flow_evs, struct flow_ev)
#define ARRAY_INIT(field, type) stint_bigarray_init(&m->field, sizeof(type));
#define ARRAY_FREE(field, type) stint_bigarray_free(&m->field);

int stint_model_init(struct stint_model *m, unsigned flags)
{
    memset(m, 0, sizeof *m);
    m->flags = flags;
    m->strings = stint_i_intern_new();
    m->open = stint_xcalloc(1, sizeof *m->open);
    MODEL_ARRAYS(ARRAY_INIT)
    m->open->global_track = STINT_NO_ID;
    m->open->next_synthetic = 0;
    return 0;
}

static void open_free(struct stint_open *o)
{
    free(o->procs.slots);
    free(o->lanes.slots);
    free(o->tracks.slots);
    free(o->counters.slots);
    free(o->instants.slots);
    free(o->synth.slots);
    free(o);
}


/* A value for some slices, by the slice's seq, made on first use: where
 * some slices came from (m->origins: the host thread of a device-lane slice
 * whose thread is not its lane's first one, stint_model_slice_from_thread;
 * the process of a slice on a global async track begun by another process
 * than the track's first, stint_model_slice_from_process), and the thread
 * durations that do not fit a side-table entry's 32 bits (m->tt_big:
 * negative, or 4.29 s and more). seq -> index into v; each entry keeps its
 * seq, so that a merge can move it under a new one. */
struct stint_seqmap {
    struct stint_umap by_seq;
    struct seqmap_ent {
        uint32_t seq;
        int64_t v;
    } *v;
    size_t n, cap;
};

static void seqmap_free(struct stint_seqmap *s)
{
    if (!s)
        return;
    stint_umap_free(&s->by_seq);
    free(s->v);
    free(s);
}

/* Remembers v for seq in *ps (made when NULL). */
static void seqmap_put(struct stint_seqmap **ps, uint32_t seq, int64_t v)
{
    struct stint_seqmap *s = *ps;
    if (!s)
        s = *ps = stint_xcalloc(1, sizeof *s);
    int isnew;
    uint32_t k = stint_umap_get(&s->by_seq, seq, (uint32_t)s->n, &isnew);
    if (isnew) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->v = stint_xreallocarray(s->v, s->cap, sizeof *s->v);
        }
        s->n++;
    }
    s->v[k] = (struct seqmap_ent){.seq = seq, .v = v};
}

/* What seqmap_put remembered for seq in s (NULL: nothing): 1 and *v, or 0. */
static int seqmap_get(const struct stint_seqmap *s, uint32_t seq, int64_t *v)
{
    uint32_t k = s ? stint_umap_find(&s->by_seq, seq) : STINT_UMAP_NONE;
    if (k == STINT_UMAP_NONE)
        return 0;
    *v = s->v[k].v;
    return 1;
}

void stint_model_slice_from_thread(struct stint_model *m, uint32_t idx, int64_t tid)
{
    const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, idx);
    struct stint_lane *l = &STINT_BA_AT(&m->lanes, struct stint_lane,
                                        stint_model_track_at(m, s->track)->lane);
    if (!l->host_tids) {
        l->host_tid = tid;
        l->host_tids = 1;
        return;
    }
    if (tid == l->host_tid)
        return;
    l->host_tids = 2;
    seqmap_put(&m->origins, s->seq, tid);
}

int stint_model_slice_thread(const struct stint_model *m, const struct stint_slice *s, int64_t *tid)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD)
        return 0;
    const struct stint_lane *l = stint_model_lane_at(m, t->lane);
    if (l->clock != STINT_CLOCK_DEVICE || !l->host_tids)
        return 0;
    *tid = l->host_tid;
    if (l->host_tids == 2)
        seqmap_get(m->origins, s->seq, tid);
    return 1;
}

/* ---- thread times (the side table, ascending seq) ------------------------------------- */

/* Sets entry e's thread duration to tdur_ns (STINT_TS_NONE: none). */
static void tt_set_dur(struct stint_model *m, struct stint_thread_time *e, int64_t tdur_ns)
{
    if (tdur_ns == STINT_TS_NONE || (tdur_ns >= 0 && tdur_ns < (int64_t)STINT_TDUR_BIG)) {
        e->tdur = tdur_ns == STINT_TS_NONE ? STINT_TDUR_NONE : (uint32_t)tdur_ns;
        return;
    }
    seqmap_put(&m->tt_big, e->seq, tdur_ns);
    e->tdur = STINT_TDUR_BIG;
}

/* The side-table entry of the slice of sequence number seq, or NULL. A
 * writer asks in track order, where seqs mostly rise: the entry after the
 * last one found (per thread) is tried before the binary search. */
static struct stint_thread_time *tt_find(const struct stint_model *m, uint32_t seq)
{
    static _Thread_local size_t next_hint;
    struct stint_thread_time *v = m->tts.data;
    if (next_hint < m->tts.len && v[next_hint].seq == seq)
        return &v[next_hint++];
    size_t lo = 0, hi = m->tts.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->tts.len && v[lo].seq == seq) {
        next_hint = lo + 1;
        return &v[lo];
    }
    return NULL;
}

void stint_i_tt_put(struct stint_model *m, struct stint_slice *s, int64_t tts_ns, int64_t tdur_ns)
{
    struct stint_thread_time *e = stint_i_xpush(&m->tts);
    *e = (struct stint_thread_time){.seq = s->seq, .tts_ns = tts_ns};
    tt_set_dur(m, e, tdur_ns);
    s->flags |= STINT_SLICE_THREAD_TIME;
}

void stint_i_tt_end(struct stint_model *m, const struct stint_slice *s, int64_t end_tts_ns)
{
    if (!(s->flags & STINT_SLICE_THREAD_TIME) || end_tts_ns == STINT_TS_NONE)
        return;
    struct stint_thread_time *e = tt_find(m, s->seq);
    if (e)
        tt_set_dur(m, e, end_tts_ns - e->tts_ns);
}

void stint_i_tt_merge(struct stint_model *dst, struct stint_model *src, uint64_t seq0)
{
    const struct stint_thread_time *v = src->tts.data;
    if (src->tts.len && stint_bigarray_reserve(&dst->tts, src->tts.len) != 0)
        stint_die_nomem();
    for (size_t i = 0; i < src->tts.len; i++) {
        struct stint_thread_time *e = stint_i_xpush(&dst->tts);
        *e = v[i];
        e->seq += (uint32_t)seq0;
        int64_t big;
        if (v[i].tdur == STINT_TDUR_BIG && seqmap_get(src->tt_big, v[i].seq, &big))
            tt_set_dur(dst, e, big); /* (its place in dst's map, by the new seq) */
    }
    stint_bigarray_free(&src->tts);
    seqmap_free(src->tt_big);
    src->tt_big = NULL;
}

int stint_model_slice_tt(const struct stint_model *m, const struct stint_slice *s, int64_t *tts_ns, int64_t *tdur_ns)
{
    *tts_ns = *tdur_ns = STINT_TS_NONE;
    if (!(s->flags & STINT_SLICE_THREAD_TIME))
        return 0;
    const struct stint_thread_time *e = tt_find(m, s->seq);
    if (!e)
        return 0;
    *tts_ns = e->tts_ns;
    if (e->tdur == STINT_TDUR_BIG)
        seqmap_get(m->tt_big, e->seq, tdur_ns);
    else if (e->tdur != STINT_TDUR_NONE)
        *tdur_ns = e->tdur;
    return 1;
}

/* Whether track t is a global async track (its pid is its first event's). */
static int global_async(const struct stint_track *t)
{
    return t->kind == STINT_TRACK_ASYNC && t->scope == STINT_ASYNC_GLOBAL;
}

void stint_model_slice_from_process(struct stint_model *m, uint32_t idx, int64_t pid)
{
    const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, idx);
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (global_async(t) && pid != t->pid)
        seqmap_put(&m->origins, s->seq, pid);
}

int64_t stint_model_slice_pid(const struct stint_model *m, const struct stint_slice *s)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    int64_t pid = t->kind == STINT_TRACK_GLOBAL ? 0 : t->pid;
    if (global_async(t))
        seqmap_get(m->origins, s->seq, &pid);
    return pid;
}

void stint_model_free(struct stint_model *m)
{
    if (m->sizes && m->sizes_ops)
        m->sizes_ops->free(m->sizes);
    m->sizes = NULL;
    if (m->part_ctx && m->part_ops)
        m->part_ops->free(m->part_ctx);
    m->part_ctx = NULL;
    stint_i_intern_free(m->strings);
    if (m->open)
        open_free(m->open);
    MODEL_ARRAYS(ARRAY_FREE)
    stint_i_flowkeys_free(m->flowkeys);
    stint_i_lean_free(m);
    seqmap_free(m->origins);
    seqmap_free(m->tt_big);
    for (int i = 0; i < STINT_REPAIR_COUNT; i++)
        free(m->repair_first[i]);
    free(m->dropped_first);
    free(m->error);
    memset(m, 0, sizeof *m);
}

/* ---- names ------------------------------------------------------------------------- */

const char *stint_track_kind_name(enum stint_track_kind k)
{
    switch (k) {
    case STINT_TRACK_THREAD: return "thread";
    case STINT_TRACK_ASYNC: return "async";
    case STINT_TRACK_PROCESS: return "process";
    case STINT_TRACK_GLOBAL: return "global";
    }
    return "?";
}

const char *stint_repair_name(enum stint_repair r)
{
    static const char *const names[STINT_REPAIR_COUNT] = {
        "unfinished_span", "unmatched_end", "overlapping_complete", "negative_dur",
        "trailing_comma", "missing_close", "unknown_phase", "string_number",
        "unmatched_async_end", "torn_record", "unknown_version", "control_char_in_string", "x_without_dur", "unbound_flow",
        "async_step", "sample_event", "lone_surrogate", "legacy_async", "id_not_integer", "misplaced_end_event",
        "instant_scope", "async_without_id", "bad_thread_time", "negative_ts", "flow_invalid_id",
        "flow_without_direction", "bad_loss_record", "subns_ts",
        "depth_outside_parent", "stream_overlap",
    };
    return (unsigned)r < STINT_REPAIR_COUNT ? names[r] : "?";
}

/* The kinds that count what was not kept (see stint_repair_is_drop). */
#define DROP_KINDS                                                                                                   \
    (1ull << STINT_REPAIR_E_UNMATCHED | 1ull << STINT_REPAIR_UNKNOWN_PHASE | 1ull << STINT_REPAIR_ASYNC_UNMATCHED | \
     1ull << STINT_REPAIR_TORN_RECORD | 1ull << STINT_REPAIR_UNBOUND_FLOW | 1ull << STINT_REPAIR_FLOW_NO_DIRECTION | \
     1ull << STINT_REPAIR_BAD_LOSS_RECORD)
_Static_assert(STINT_REPAIR_COUNT <= 64, "kinds are bits of a uint64_t mask");

int stint_repair_is_drop(enum stint_repair r)
{
    return (unsigned)r < STINT_REPAIR_COUNT && (DROP_KINDS >> r & 1);
}

uint64_t stint_repair_mask_drops(void) { return DROP_KINDS; }

uint64_t stint_repair_mask_repairs(void) { return (((uint64_t)1 << STINT_REPAIR_COUNT) - 1) & ~(uint64_t)DROP_KINDS; }

int stint_counter_from_memory_record(const char *name, size_t len)
{
    static const char pre[] = "[memory] ";
    static const char *const keys[] = {" Bytes", " Total Allocated", " Total Reserved"};
    if (len < sizeof pre || memcmp(name, pre, sizeof pre - 1))
        return 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t kl = strlen(keys[k]);
        if (len > sizeof pre - 1 + kl && !memcmp(name + len - kl, keys[k], kl))
            return 1;
    }
    return 0;
}

int stint_repair_by_name(const char *name)
{
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (!strcmp(name, stint_repair_name((enum stint_repair)k)))
            return k;
    return -1;
}

int stint_repair_allowable(enum stint_repair r)
{
    return r == STINT_REPAIR_UNBOUND_FLOW || r == STINT_REPAIR_SUBNS_TS;
}

void stint_model_put_kinds_json(FILE *f, const struct stint_model *m)
{
    for (int drops = 0; drops < 2; drops++) {
        fputs(drops ? ",\"drops\":{" : "\"repairs\":{", f);
        int first = 1;
        for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
            if (!m->repairs[k] || stint_repair_is_drop((enum stint_repair)k) != drops)
                continue;
            fprintf(f, "%s\"%s\":%llu", first ? "" : ",", stint_repair_name((enum stint_repair)k),
                    (unsigned long long)m->repairs[k]);
            first = 0;
        }
        putc('}', f);
    }
}

const char *stint_unmodelled_name(enum stint_unmodelled u)
{
    static const char *const names[STINT_UNMODELLED_KINDS] = {"op", "tensor", "memory", "gradient", "fork", "edge"};
    return (unsigned)u < STINT_UNMODELLED_KINDS ? names[u] : "?";
}

void stint_model_put_unmodelled(FILE *f, const struct stint_model *m)
{
    const char *sep = "";
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
        if (m->unmodelled[k]) {
            fprintf(f, "%s%" PRIu64 " %s", sep, m->unmodelled[k], stint_unmodelled_name((enum stint_unmodelled)k));
            sep = ", ";
        }
}

uint64_t stint_model_unmodelled(const struct stint_model *m)
{
    uint64_t n = 0;
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
        n += m->unmodelled[k];
    return n;
}

void stint_model_set_span_split(struct stint_model *m, const struct stint_span_split *sp) { m->span_split = sp; }

void stint_model_set_span_sink(struct stint_model *m, stint_span_sink fn, void *ctx)
{
    m->span_sink = fn;
    m->span_sink_ctx = ctx;
}

/* ---- repairs and errors ------------------------------------------------------------------ */

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return stint_xstrdup(buf);
}

/* Where the calling thread's repairs go while two walkers run (struct
 * repair_log), and the track its walker is on. */
static _Thread_local struct repair_log *repair_redirect;
static _Thread_local size_t repair_track; /* the track the walker is on */

void stint_model_repair(struct stint_model *m, enum stint_repair kind, const char *fmt, ...)
{
    if ((unsigned)kind >= STINT_REPAIR_COUNT)
        return;
    if (repair_redirect) { /* (a walker takes tracks in any order: keep the lowest track's first) */
        struct repair_log *l = repair_redirect;
        if (l->n[kind]++ == 0 || repair_track < l->first_track[kind]) {
            va_list ap;
            va_start(ap, fmt);
            free(l->first[kind]);
            l->first[kind] = vformat(fmt, ap);
            va_end(ap);
            l->first_track[kind] = repair_track;
        }
        return;
    }
    if (m->repairs[kind]++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        m->repair_first[kind] = vformat(fmt, ap);
        va_end(ap);
        m->repair_seq[kind] = ++m->repair_clock;
    }
}

int stint_model_first_repair(const struct stint_model *m)
{
    return stint_model_first_kind(m, ~(uint64_t)0);
}

int stint_model_first_kind(const struct stint_model *m, uint64_t mask)
{
    int best = -1;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if ((mask >> k & 1) && m->repairs[k] && (best < 0 || m->repair_seq[k] < m->repair_seq[best]))
            best = k;
    return best;
}

void stint_model_drop(struct stint_model *m, const char *fmt, ...)
{
    if (m->dropped++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        m->dropped_first = vformat(fmt, ap);
        va_end(ap);
    }
}

void stint_model_fail(struct stint_model *m, const char *fmt, ...)
{
    m->partial = 1;
    if (!m->error) {
        va_list ap;
        va_start(ap, fmt);
        m->error = vformat(fmt, ap);
        va_end(ap);
    }
}

void stint_i_repair_log_to(struct repair_log *l) { repair_redirect = l; }

void stint_i_repair_log_track(size_t track) { repair_track = track; }

void stint_i_repair_logs_join(struct stint_model *m, struct repair_log *a, struct repair_log *b)
{
    for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
        struct repair_log *x = a, *y = b;
        if (y->n[k] && (!x->n[k] || y->first_track[k] < x->first_track[k])) {
            x = b;
            y = a;
        }
        /* x has the first message now: the lower track's */
        if (x->n[k] && m->repairs[k] == 0) {
            m->repair_first[k] = x->first[k];
            x->first[k] = NULL;
            m->repair_seq[k] = ++m->repair_clock;
        }
        m->repairs[k] += x->n[k] + y->n[k];
        free(x->first[k]);
        free(y->first[k]);
        x->first[k] = y->first[k] = NULL;
    }
}
