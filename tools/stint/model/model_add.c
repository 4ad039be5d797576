/* SPDX-License-Identifier: MIT */
/*
 * model_add.c - what readers add while they stream: slices (X, instants,
 * JSONL and marker spans), their args, B and async b opens, E and async e
 * ends (kept until finish matches them), counter samples and instant
 * tallies.
 *
 * Invariants: every event that is kept takes the next sequence number
 * (m->seq), so seq is input order across slices, ends and flow events;
 * slices are appended in that order (their index before finish is their
 * input index) with parent STINT_NO_ID unless the reader gave one. A
 * timestamp outside the kept range (tsparse.h) drops the event and counts
 * it; a negative duration becomes 0 and is counted. Nothing here sorts or
 * nests: finish does. This is the per-event path: what it calls per event
 * is in this file or static inline in model_int.h.
 */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>

/* A duration below -1 (the "unfinished" mark) is kept as 0 and counted. */
static void fix_negative_dur(struct stint_model *m, struct stint_slice *s)
{
    if (s->dur_ns < -1) {
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_DUR, "slice '%s' at ts %lld ns has dur %lld ns",
                           stint_model_str(m, s->name, NULL), (long long)s->ts_ns, (long long)s->dur_ns);
        s->dur_ns = 0;
    }
}

/* Thread times outside the kept range (tsparse.h) are forgotten: they only
 * feed tdur, never an order or a nesting. */
static int64_t tts_kept(int64_t tts)
{
    return stint_ts_in_range(tts) ? tts : STINT_TS_NONE;
}

/* add_slice's rare path: counts a slice outside the kept range as dropped. */
__attribute__((cold, noinline)) static uint32_t drop_out_of_range(struct stint_model *m, const struct stint_slice *c)
{
    stint_model_drop(m, "slice '%s' at ts %lld ns with dur %lld ns lies outside the kept time range "
                     "(|t| < 2^62 ns, about 146 years)",
                     stint_model_str(m, c->name, NULL), (long long)c->ts_ns, (long long)c->dur_ns);
    return STINT_NO_ID;
}

uint32_t stint_model_add_slice(struct stint_model *m, const struct stint_slice *s)
{
    return stint_model_add_slice_tt(m, s, STINT_TS_NONE, STINT_TS_NONE);
}

uint32_t stint_model_add_slice_tt(struct stint_model *m, const struct stint_slice *s, int64_t tts_ns, int64_t tdur_ns)
{
    struct stint_slice c = *s;
    c.flags &= (uint16_t)~STINT_SLICE_THREAD_TIME;
    fix_negative_dur(m, &c);
    if (__builtin_expect(!stint_ts_in_range(c.ts_ns) || (c.dur_ns >= 0 && !stint_end_in_range(c.ts_ns, c.dur_ns)),
                         0))
        return drop_out_of_range(m, &c);
    if (tts_ns != STINT_TS_NONE) {
        tts_ns = tts_kept(tts_ns);
        if (tdur_ns != STINT_TS_NONE && (tts_ns == STINT_TS_NONE || !stint_ts_in_range(tdur_ns)))
            tdur_ns = STINT_TS_NONE;
    } else
        tdur_ns = STINT_TS_NONE; /* no thread time: no thread duration either */
    if (stint_i_lean_add(m, &c)) {
        m->seq++;
        return STINT_NO_ID;
    }
    struct stint_slice *n = stint_i_xpush(&m->slices);
    *n = c;
    n->args = STINT_NO_ID;
    n->nargs = 0;
    if (!(n->flags & STINT_SLICE_EXPLICIT_PARENT))
        n->parent = STINT_NO_ID;
    n->depth = 0;
    n->seq = (uint32_t)m->seq++;
    n->flags &= (uint16_t)~STINT_SLICE_NEEDS_INDEX;
    if (tts_ns != STINT_TS_NONE)
        stint_i_tt_put(m, n, tts_ns, tdur_ns);
    if (m->flags & STINT_MODEL_LEAN)
        stint_i_lean_note(m, n);
    return (uint32_t)(m->slices.len - 1);
}

void stint_model_set_parent(struct stint_model *m, uint32_t child, uint32_t parent)
{
    if (child >= m->slices.len || m->finished)
        return;
    struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, child);
    s->parent = parent < m->slices.len && parent != child ? parent : STINT_NO_ID;
    s->flags |= STINT_SLICE_EXPLICIT_PARENT;
}

void stint_model_add_arg(struct stint_model *m, uint32_t slice, const struct stint_arg *a)
{
    if (!(m->flags & STINT_MODEL_KEEP_ARGS) || slice == STINT_NO_ID)
        return;
    struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, slice);
    if (s->nargs == UINT16_MAX) {
        stint_model_drop(m, "slice '%s' at ts %lld ns has more than %u args: the rest are dropped",
                         stint_model_str(m, s->name, NULL), (long long)s->ts_ns, (unsigned)UINT16_MAX);
        return;
    }
    struct stint_arg *n = stint_i_xpush(&m->args);
    *n = *a;
    if (s->args == STINT_NO_ID)
        s->args = (uint32_t)(m->args.len - 1);
    s->nargs++;
}

uint32_t stint_model_begin(struct stint_model *m, uint32_t lane, const struct stint_slice *s)
{
    return stint_model_begin_tt(m, lane, s, STINT_TS_NONE);
}

uint32_t stint_model_begin_tt(struct stint_model *m, uint32_t lane, const struct stint_slice *s, int64_t tts_ns)
{
    struct stint_slice c = *s;
    c.track = STINT_BA_AT(&m->lanes, struct stint_lane, lane).track;
    c.dur_ns = -1;
    c.flags |= STINT_SLICE_BEGIN_END | STINT_SLICE_FROM_B;
    return stint_model_add_slice_tt(m, &c, tts_ns, STINT_TS_NONE);
}

__attribute__((cold, noinline)) int stint_i_event_ts_drop(struct stint_model *m, const char *what, uint32_t name,
                                                        int64_t ts_ns)
{
    stint_model_drop(m, "%s '%s' at ts %lld ns lies outside the kept time range (|t| < 2^62 ns, about 146 years)", what,
                     stint_model_str(m, name, NULL), (long long)ts_ns);
    return 0;
}

uint32_t stint_model_end(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name, int64_t tts_ns)
{
    return stint_model_end_cat(m, lane, ts_ns, name, 0, tts_ns);
}

/* Records an end event (E, or an async e: what) on track, unless its ts
 * lies outside the kept range (then the args that follow it are dropped
 * too). Returns STINT_NO_ID: what it closes is known after finish. */
static uint32_t push_end(struct stint_model *m, const char *what, uint32_t track, int64_t ts_ns, int64_t tts_ns,
                         uint32_t name, uint32_t cat)
{
    m->end_dropped = !stint_i_event_ts_ok(m, what, name, ts_ns);
    if (m->end_dropped)
        return STINT_NO_ID;
    *(struct end_ev *)stint_i_xpush(&m->ends) = (struct end_ev){
        .ts_ns = ts_ns, .tts_ns = tts_ns, .seq = (uint32_t)m->seq++, .track = track, .name = name,
        .args = STINT_NO_ID, .cat = cat};
    return STINT_NO_ID;
}

uint32_t stint_model_end_cat(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name, uint32_t cat,
                             int64_t tts_ns)
{
    return push_end(m, "end event", STINT_BA_AT(&m->lanes, struct stint_lane, lane).track, ts_ns, tts_kept(tts_ns),
                    name, cat);
}

void stint_model_end_arg(struct stint_model *m, const struct stint_arg *a)
{
    if (!(m->flags & STINT_MODEL_KEEP_ARGS) || m->ends.len == 0 || m->end_dropped)
        return;
    struct end_ev *e = &STINT_BA_AT(&m->ends, struct end_ev, m->ends.len - 1);
    if (e->args == STINT_NO_ID) {
        struct stint_arg *h = stint_i_xpush(&m->args);
        h->kind = STINT_ARG_INT; /* key 0, ival 0: the count record */
        e->args = (uint32_t)(m->args.len - 1);
    }
    struct stint_arg *h = &STINT_BA_AT(&m->args, struct stint_arg, e->args);
    if (h->ival == UINT16_MAX) {
        stint_model_drop(m, "end event '%s' at ts %lld ns has more than %u args: the rest are dropped",
                         stint_model_str(m, e->name, NULL), (long long)e->ts_ns, (unsigned)UINT16_MAX);
        return;
    }
    h->ival++;
    *(struct stint_arg *)stint_i_xpush(&m->args) = *a;
}

uint32_t stint_model_async_begin(struct stint_model *m, uint32_t track, const struct stint_slice *s)
{
    return stint_model_async_begin_tt(m, track, s, STINT_TS_NONE);
}

uint32_t stint_model_async_begin_tt(struct stint_model *m, uint32_t track, const struct stint_slice *s, int64_t tts_ns)
{
    struct stint_slice c = *s;
    c.track = track;
    c.dur_ns = -1;
    c.flags |= STINT_SLICE_ASYNC | STINT_SLICE_FROM_B;
    return stint_model_add_slice_tt(m, &c, tts_ns, STINT_TS_NONE);
}

uint32_t stint_model_async_end(struct stint_model *m, uint32_t track, int64_t ts_ns, uint32_t name)
{
    return push_end(m, "async end", track, ts_ns, STINT_TS_NONE, name, 0); /* (the track is the category's and id's) */
}

/* ---- counters and instants ------------------------------------------------------------ */

void stint_model_counter(struct stint_model *m, int64_t pid, uint32_t series_name, int64_t ts_ns, double value)
{
    if (!stint_i_event_ts_ok(m, "counter sample", series_name, ts_ns))
        return;
    if (!isfinite(value)) { /* (nan, inf, or 1e999 and the like, which overflow a double) */
        stint_model_drop(m, "counter sample '%s' at ts %lld ns is not a finite number", stint_model_str(m, series_name, NULL),
                         (long long)ts_ns);
        return;
    }
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->counters, (uint64_t)pid, series_name, 0, &found);
    if (!found) {
        *(struct stint_counter_series *)stint_i_xpush(&m->counters) = (struct stint_counter_series){
            .pid = pid, .name = series_name, .min = value, .max = value, .first_sample = STINT_NO_ID};
        s->v = (uint32_t)(m->counters.len - 1);
    }
    struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, s->v);
    c->samples++;
    if (value < c->min)
        c->min = value;
    if (value > c->max)
        c->max = value;
    c->sum += value;
    if (m->flags & STINT_MODEL_KEEP_SAMPLES) {
        struct stint_counter_sample *smp = stint_i_xpush(&m->samples);
        smp->ts_ns = ts_ns;
        smp->value = value;
        smp->series = s->v;
    }
}

void stint_model_instant_stat(struct stint_model *m, enum stint_track_kind kind, uint32_t cat, uint32_t name)
{
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->instants, (uint64_t)kind, cat, name, &found);
    if (!found) {
        struct stint_instant_stat *st = stint_i_xpush(&m->instants);
        st->name = name;
        st->cat = cat;
        st->kind = (uint8_t)kind;
        s->v = (uint32_t)(m->instants.len - 1);
    }
    STINT_BA_AT(&m->instants, struct stint_instant_stat, s->v).count++;
}

