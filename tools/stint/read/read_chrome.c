/* SPDX-License-Identifier: MIT */
/*
 * read_chrome.c - the Chrome Trace Event JSON reader (array and object
 * forms): the container's state machine and the read loop.
 *
 * Streaming: the input window (input.h) is parsed one unit at a time - one
 * event object, or one top-level key with its value - and when a unit runs
 * past the window the reader refills and parses that unit again; the
 * tokenizer's repair counts of a unit parsed again are taken back first, so
 * nothing is counted twice. Events themselves are parsed in chrome_event.c
 * and turned into model calls in chrome_phase.c (or measured, in sizes
 * mode, chrome_sizes.c); args are walked only when something needs them
 * (chrome_args.c). Names, categories and lanes go through small fixed
 * caches in front of the model's hash maps (a hit returns exactly what the
 * model would); their misses are here.
 *
 * Leniencies of the container (never of the tokenizer's strict mode): a
 * missing final ']' (and '}'), trailing commas, and a trailing empty '{}'
 * event. Each is counted as a repair except the '{}' Chrome itself writes.
 * A part of a split read (readers.h) starts inside the event array and ends
 * after the ',' that ends its last event.
 */
#include "read/chrome_int.h"

#include "base/xalloc.h"
#include "read/sizes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The error for a trace object that ends without a traceEvents array. */
#define NO_TRACE_EVENTS                                                                                            \
    "no \"traceEvents\" array in the object (expected a Chrome JSON trace: an array of events, or an object "   \
    "with a \"traceEvents\" array)"

/* ---- the caches' misses and the scratch buffer ---- */

__attribute__((noinline)) uint32_t stint_i_chrome_lane_fill(struct creader *r, struct lcache_ent *c, int64_t pid,
                                                            int64_t tid)
{
    c->lane = stint_model_lane(r->m, pid, tid, STINT_CLOCK_HOST);
    c->pid = pid;
    c->tid = tid;
    c->used = 1;
    return c->lane;
}

__attribute__((noinline)) uint32_t stint_i_chrome_intern_fill(struct creader *r, struct icache_ent *c,
                                                              const struct span *sp, uint64_t a, uint64_t b)
{
    uint32_t id = stint_model_intern(r->m, sp->s, sp->n);
    c->a = a;
    c->b = b;
    c->s = stint_model_str(r->m, id, NULL);
    c->len = sp->n;
    c->id = id;
    return id;
}

char *stint_i_chrome_scratch(struct creader *r, size_t n)
{
    r->scratch = stint_xgrow(r->scratch, &r->scratch_cap, n + 1, 1, 256);
    return r->scratch;
}

/* ---- the container state machine ---------------------------------------------------------- */

/* The error msg at j->p. */
static int fail(struct stint_json *j, const char *msg)
{
    j->err = msg;
    j->err_at = j->p;
    return STINT_JSON_ERR;
}

/* A missing close is a repair where the container may end early; a trace
 * object whose keys held no traceEvents is no trace. */
static int step_at_eof(struct creader *r, struct stint_json *j, int *state)
{
    switch (*state) {
    case S_START:
        return fail(j, "empty input (expected '[' or '{' to start a Chrome JSON trace)");
    case S_EV_FIRST:
    case S_EV_NEXT:
    case S_EV_COMMA:
    case S_OBJ_FIRST:
    case S_OBJ_NEXT:
    case S_OBJ_KEY: {
        int ev = *state == S_EV_FIRST || *state == S_EV_NEXT || *state == S_EV_COMMA;
        if (!ev && !r->saw_events && r->obj_keys)
            return fail(j, NO_TRACE_EVENTS);
        stint_model_repair(r->m, STINT_REPAIR_MISSING_CLOSE, "byte %llu: input ends without the closing %s",
                           (unsigned long long)offset_of(r, j->p),
                           ev ? "']' of the event array" : "'}' of the trace object");
        *state = S_DONE;
        return STINT_JSON_OK;
    }
    default:
        *state = S_DONE;
        return STINT_JSON_OK;
    }
}

/* A top-level key's value other than traceEvents, [v0, j->p), the unit
 * starting at save: measured (sizes mode), kept (metadata), or counted. */
static void top_value(struct creader *r, const char *k, size_t kn, const char *save, const char *v0, const char *v1)
{
    struct stint_model *m = r->m;
    if (m->sizes)
        stint_sizes_top_key(m->sizes, stint_model_intern(m, k, kn), (uint64_t)(v1 - save));
    else if (key_is(k, kn, "metadata") && *v0 == '{')
        stint_i_chrome_args_metadata(r, v0, v1);
    else if (key_is(k, kn, "systemTraceEvents") && !(*v0 == '"' && v1 - v0 == 2))
        /* Perfetto reads this ftrace text (or Fuchsia object) as a trace of its own */
        stint_model_drop(m, "byte %llu: \"systemTraceEvents\" (a system trace beside the events) is not "
                            "read: left out (expected only traceEvents)",
                         (unsigned long long)offset_of(r, v0));
}

/* S_OBJ_FIRST, S_OBJ_KEY at c: one top-level key with its value (a unit). */
static int step_obj_key(struct creader *r, struct stint_json *j, int *state, int c)
{
    if (c == '}') {
        if (*state == S_OBJ_KEY)
            stint_model_repair(r->m, STINT_REPAIR_TRAILING_COMMA, "byte %llu: trailing comma in the trace object",
                               (unsigned long long)offset_of(r, j->p));
        j->p++;
        *state = S_END;
        return STINT_JSON_OK;
    }
    if (c != '"')
        return fail(j, "expected a key in the trace object");
    const char *save = j->p, *k;
    size_t kn;
    int kesc;
    char kb[KEY_BUF + 8];
    int rc = stint_json_string(j, &k, &kn, &kesc);
    if (rc != STINT_JSON_OK)
        return rc;
    kn = key_text(&k, kn, kesc, kb);
    c = stint_json_ws(j);
    if (c != ':') {
        if (c == 0 && !j->at_eof) {
            j->p = save;
            return STINT_JSON_MORE;
        }
        return fail(j, "expected ':' after a key in the trace object");
    }
    j->p++;
    c = stint_json_ws(j);
    if (c == 0 && !j->at_eof) {
        j->p = save;
        return STINT_JSON_MORE;
    }
    r->obj_keys++;
    if (key_is(k, kn, "traceEvents")) {
        if (c != '[')
            return fail(j, "expected an array '[' of events as the value of \"traceEvents\"");
        j->p++;
        r->saw_events = 1;
        *state = S_EV_FIRST;
        return STINT_JSON_OK;
    }
    const char *v0 = j->p;
    rc = stint_json_skip(j);
    if (rc == STINT_JSON_MORE)
        j->p = save;
    if (rc != STINT_JSON_OK)
        return rc;
    top_value(r, k, kn, save, v0, j->p);
    *state = S_OBJ_NEXT;
    return STINT_JSON_OK;
}

/* Moves to state s past the byte at j->p. */
static int advance(struct stint_json *j, int *state, int s)
{
    j->p++;
    *state = s;
    return STINT_JSON_OK;
}

/* One unit of the container at j->p: a bracket, a comma, a top-level key
 * with its value, or a run of events (chrome_event.c). */
static int step(struct creader *r, struct stint_json *j, int *state, int *in_obj)
{
    struct stint_model *m = r->m;
    int c = stint_json_ws(j);
    if (c == 0 && j->p >= j->end)
        return j->at_eof ? step_at_eof(r, j, state) : STINT_JSON_MORE;
    switch (*state) {
    case S_START:
        if (c != '[' && c != '{')
            return fail(j, "expected '[' or '{' at the start of a Chrome JSON trace");
        *in_obj = c == '{';
        return advance(j, state, c == '[' ? S_EV_FIRST : S_OBJ_FIRST);
    case S_OBJ_NEXT:
        if (c == ',')
            return advance(j, state, S_OBJ_KEY);
        if (c != '}')
            return fail(j, "expected ',' or '}' in the trace object");
        if (!r->saw_events && r->obj_keys) /* some other JSON object (a speedscope file, a config): not an empty trace */
            return fail(j, NO_TRACE_EVENTS);
        return advance(j, state, S_END);
    case S_OBJ_FIRST:
    case S_OBJ_KEY:
        return step_obj_key(r, j, state, c);
    case S_EV_FIRST:
    case S_EV_COMMA:
        if (c == ']') {
            if (*state == S_EV_COMMA)
                stint_model_repair(m, STINT_REPAIR_TRAILING_COMMA, "byte %llu: trailing comma before ']'",
                                   (unsigned long long)offset_of(r, j->p));
            return advance(j, state, *in_obj ? S_OBJ_NEXT : S_END);
        }
        /* events back to back without returning to the caller: the state and
         * j->p stay what single steps would leave, so MORE, the window end
         * and the split boundary are seen as before */
        if (c == '{')
            return stint_i_chrome_events(r, j, state);
        return fail(j, "expected an event object '{' in the event array");
    case S_EV_NEXT:
        if (c == ',')
            return advance(j, state, S_EV_COMMA);
        if (c == ']')
            return advance(j, state, *in_obj ? S_OBJ_NEXT : S_END);
        if (c == '}' && *in_obj) { /* array not closed before the object's end */
            stint_model_repair(m, STINT_REPAIR_MISSING_CLOSE, "byte %llu: '}' where ']' was expected",
                               (unsigned long long)offset_of(r, j->p));
            return advance(j, state, S_END);
        }
        return fail(j, "expected ',' or ']' after an event");
    case S_END:
        return fail(j, "unexpected data after the end of the trace");
    default:
        return STINT_JSON_OK;
    }
}

/* Records n repairs of a kind the tokenizer counts (what), the first in the
 * unit at byte first - 1 (0: not known), found at repair_clock seq. */
static void tokenizer_repair(struct stint_model *m, enum stint_repair kind, uint64_t n, uint64_t first, uint64_t seq,
                             const char *what)
{
    if (!n)
        return;
    int had = m->repairs[kind] != 0;
    if (first)
        stint_model_repair(m, kind, "byte %llu: %s",
                           (unsigned long long)(first - 1), what);
    else
        stint_model_repair(m, kind, "%s", what);
    m->repairs[kind] += n - 1;
    if (!had && seq)
        m->repair_seq[kind] = seq;
}

/* Takes the tokenizer's positions of its repairs (while they point into the
 * window): the first of each kind is where its repair is reported. */
static __attribute__((noinline)) void harvest(struct creader *r, struct stint_json *j)
{
    const char **at[3] = {&j->tc_at, &j->cc_at, &j->ls_at};
    uint64_t *first[3] = {&r->first_tc, &r->first_cc, &r->first_ls}, *seq[3] = {&r->seq_tc, &r->seq_cc, &r->seq_ls};
    for (int k = 0; k < 3; k++) {
        if (*at[k] && !*first[k]) {
            *first[k] = offset_of(r, *at[k]) + 1;
            *seq[k] = ++r->m->repair_clock;
        }
        *at[k] = NULL;
    }
    r->harv_tc = j->trailing_commas;
    r->harv_cc = j->control_chars;
    r->harv_ls = j->lone_surrogates;
}

/* step() for the read loop: a unit that returns MORE is parsed again after
 * the refill, so the tokenizer's counts from its first try are taken back
 * (else an event straddling a window boundary would count its trailing
 * commas, control bytes and lone surrogates twice). step() parses events
 * back to back, so each event marks its own start (unit_start); the counts
 * of the events completed before it stay. */
static int step_once(struct creader *r, struct stint_json *j, int *state, int *in_obj)
{
    unit_start(r, j);
    int s = step(r, j, state, in_obj);
    if (s == STINT_JSON_MORE) {
        j->trailing_commas = r->unit_tc;
        j->control_chars = r->unit_cc;
        j->lone_surrogates = r->unit_ls;
        /* a position the taken-back unit set goes with it: then nothing
         * since the last harvest is left */
        if (j->trailing_commas == r->harv_tc)
            j->tc_at = NULL;
        if (j->control_chars == r->harv_cc)
            j->cc_at = NULL;
        if (j->lone_surrogates == r->harv_ls)
            j->ls_at = NULL;
    }
    if (__builtin_expect(j->tc_at || j->cc_at || j->ls_at, 0))
        harvest(r, j);
    return s;
}

int stint_read_chrome(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    return stint_i_read_chrome_part(in, m, o, 0, 0, NULL);
}

int stint_i_read_chrome_part(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o, int part,
                             int part_in_obj, int *boundary_ok)
{
    stint_sizes_attach(m);
    struct creader r = {.m = m, .in = in, .o = o, .saw_events = (part & STINT_PART_FROM_SPLIT) != 0};
    ehints_init(&r.hints);
    ehints_window(&r.hints, in);
    r.hints.shapes = stint_i_jshape_new();
    m->format = "chrome-json";
    int state = part & STINT_PART_FROM_SPLIT ? S_EV_FIRST : S_START;
    int in_obj = part & STINT_PART_FROM_SPLIT ? part_in_obj : 0, rc = 0;
    if (boundary_ok)
        *boundary_ok = 0;
    struct stint_json j = {.flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS};
    uint64_t from = in->base; /* (sizes: the bytes this part goes over) */
    /* skip a UTF-8 BOM */
    if (in->len >= 3 && (unsigned char)in->buf[0] == 0xEF && (unsigned char)in->buf[1] == 0xBB &&
        (unsigned char)in->buf[2] == 0xBF)
        stint_input_consume(in, 3);
    size_t pos = 0;
    while (state != S_DONE) {
        j.p = in->buf + pos;
        j.end = in->buf + in->len;
        j.at_eof = in->eof;
        int s = STINT_JSON_OK;
        if ((part & STINT_PART_TO_SPLIT) && j.at_eof && !in->cut_missed) {
            /* a part that ends at a split ends right after an event's ',': stop there
             * (a gzip part whose stream ended first is the last one: read on) */
            while (state != S_DONE) {
                if (state == S_EV_COMMA && stint_json_ws(&j) == 0 && j.p >= j.end) {
                    if (boundary_ok)
                        *boundary_ok = 1;
                    state = S_DONE;
                    break;
                }
                if ((s = step_once(&r, &j, &state, &in_obj)) != STINT_JSON_OK)
                    break;
            }
        } else
            while (state != S_DONE && (s = step_once(&r, &j, &state, &in_obj)) == STINT_JSON_OK)
                ;
        pos = (size_t)(j.p - in->buf);
        if (state == S_DONE)
            break;
        if (s == STINT_JSON_ERR) {
            stint_model_fail(m, "%s: byte %llu: %s", in->path, (unsigned long long)offset_of(&r, j.err_at), j.err);
            rc = 1;
            break;
        }
        /* MORE: keep the unparsed tail, read on */
        stint_input_consume(in, pos);
        pos = 0;
        stint_i_progress(in, 0);
        if (stint_input_fill(in) < 0) {
            stint_model_fail(m, "%s", in->err);
            rc = stint_input_errcode(in);
            break;
        }
        ehints_window(&r.hints, in);
    }
    if (m->sizes)
        m->sizes->text_bytes += offset_of(&r, in->buf + pos) - from;
    tokenizer_repair(m, STINT_REPAIR_TRAILING_COMMA, j.trailing_commas, r.first_tc, r.seq_tc,
                     "trailing comma before the closing bracket here, inside an event or its args");
    tokenizer_repair(m, STINT_REPAIR_CONTROL_CHAR, j.control_chars, r.first_cc, r.seq_cc,
                     "raw control byte inside the string that starts here (kept as is)");
    tokenizer_repair(m, STINT_REPAIR_LONE_SURROGATE, j.lone_surrogates, r.first_ls, r.seq_ls,
                     "\\u escape with an unpaired surrogate inside the string that starts here (decoded as U+FFFD)");
    stint_i_progress(in, 1);
    if (in->pipe && getenv("STINT_DEBUG_SPLIT")) /* for tests: whether the inflate thread's hints served */
        fprintf(stderr, "stint: %llu args skipped by the inflate thread\n", (unsigned long long)r.hints.hused);
    if (getenv("STINT_DEBUG_SHAPES")) { /* for tests: how the args shapes served */
        struct stint_jshape_stats st;
        stint_i_jshape_stats(r.hints.shapes, &st);
        fprintf(stderr, "stint: args shapes: %llu lookups, %llu hits, %llu added, %llu resets, %llu rests\n",
                (unsigned long long)st.lookups, (unsigned long long)st.hits, (unsigned long long)st.added,
                (unsigned long long)st.resets, (unsigned long long)st.dormant);
    }
    stint_i_jshape_free(r.hints.shapes);
    free(r.scratch);
    free(r.key);
    return rc;
}
