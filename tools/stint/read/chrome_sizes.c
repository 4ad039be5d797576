/* SPDX-License-Identifier: MIT */
/*
 * chrome_sizes.c - the Chrome reader's sizes mode (STINT_MODEL_SIZES,
 * sizes.h): events measured, not modelled.
 *
 * Each event's bytes go to the tally by phase, category and name, and each
 * of its members (and of its args) by key. An event is read only as far as
 * the filters need (filters.h), the way add_event would read it, but
 * without counting a repair: no measured event reaches the model. The
 * reader's caches serve as in the normal mode (a hit is what the model
 * would give).
 */
#include "read/chrome_int.h"

#include "model/filters.h"
#include "read/sizes.h"

static uint32_t key_id(struct creader *r, const char *k, size_t kn, int esc)
{
    kn = chrome_unescaped(r, &k, kn, esc);
    return stint_model_intern(r->m, k, kn);
}

/* An event's pid or tid as add_event resolves it (resolve_pid/_tid), without
 * counting a repair: add_event never sees a measured event. */
static int64_t peek_id(struct creader *r, const struct span *sp, int is_tid, int64_t pid)
{
    if (!sp->set)
        return is_tid ? pid : 0;
    int64_t v;
    if (span_i64(r, sp, &v) == 0 || (!sp->str && stint_i_chrome_integral_number(sp->s, sp->n, &v)))
        return is_tid && v == 0 ? pid : v;
    uint32_t id = intern_span(r, sp);
    return is_tid ? stint_model_synthetic_tid(r->m, pid, id) : stint_model_synthetic_pid(r->m, id);
}

/* Whether an event passes the filters (filters.h), read as a slice of its
 * own: its pid and tid, cat, name, and [ts, ts + dur) (dur 0 when it has
 * none) overlapping --time-range; an event without a valid ts fails a range.
 * --min-dur is refused before reading (cmd_sizes.c). */
static int size_pass(struct creader *r, const struct event *e, const struct stint_filter *f)
{
    struct stint_model *m = r->m;
    struct stint_filter_rec w = {.has_tid = 1}; /* (the fields the set filters look at) */
    if (f->has_pid || f->has_tid) {
        w.pid = peek_id(r, &e->pid, 0, 0);
        w.tid = f->has_tid ? peek_id(r, &e->tid, 1, w.pid) : 0;
    }
    if (f->cat || f->xcat) /* (--exclude-cat / --exclude-name look at them too) */
        w.cat = stint_model_str(m, intern_span(r, &e->cat), NULL);
    if (f->name_glob || f->xname)
        w.name = stint_model_str(m, intern_span(r, &e->name), NULL);
    if (f->has_range) {
        w.has_ts = e->ts.set && parse_time(r, &e->ts, &w.ts) == 0;
        if (e->dur.set && (parse_time(r, &e->dur, &w.dur) != 0 || w.dur < 0))
            w.dur = 0;
    }
    return stint_filter_rec(f, &w);
}

/* Counts each member of the object whose text is [a, b) (parse_event has
 * checked its syntax) by key: into the event keys (args 0) or the args
 * keys (args 1). */
static void size_members(struct creader *r, const char *a, const char *b, int args)
{
    struct stint_sizes *z = r->m->sizes;
    struct stint_json j = chrome_sub_json(a + 1, b);
    const char *k0, *k;
    size_t kn;
    int kesc;
    while (stint_i_chrome_next_member(&j, &k0, &k, &kn, &kesc)) {
        if (stint_json_skip(&j) != STINT_JSON_OK)
            return;
        uint32_t key = key_id(r, k, kn, kesc);
        if (args)
            stint_sizes_arg_key(z, key, (uint64_t)(j.p - k0));
        else
            stint_sizes_event_key(z, key, (uint64_t)(j.p - k0));
    }
}

void stint_i_chrome_size_event(struct creader *r, const struct event *e, const char *a, const char *b)
{
    struct stint_sizes *z = r->m->sizes;
    uint64_t bytes = (uint64_t)(b - a), ab = e->args_a ? (uint64_t)(e->args_b - e->args_a) : 0;
    if (r->o && r->o->event_filter && !size_pass(r, e, r->o->event_filter)) {
        z->filtered_events++;
        z->filtered_bytes += bytes;
        return;
    }
    stint_sizes_event(z, intern_span(r, &e->ph), intern_span(r, &e->cat), intern_span(r, &e->name), bytes, ab);
    size_members(r, a, b, 0);
    if (e->args_a)
        size_members(r, e->args_a, e->args_b, 1);
}
