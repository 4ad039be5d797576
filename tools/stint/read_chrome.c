/*
 * read_chrome.c - the Chrome Trace Event JSON reader (array and object forms).
 *
 * Streaming: the input window (input.h) is parsed one unit at a time - one
 * event object, or one top-level key with its value - and when a unit runs
 * past the window the reader refills and parses that unit again. Nothing is
 * allocated per event: fields are kept as pointers into the window until the
 * event is complete, then turned into model calls. Args are only walked when
 * something needs them (M and C events, or STINT_MODEL_KEEP_ARGS). Names,
 * categories and lanes go through small fixed caches in front of the
 * model's hash maps (a hit returns exactly what the model would).
 *
 * Leniencies of the container (never of the tokenizer's strict mode): a
 * missing final ']' (and '}'), trailing commas, and a trailing empty '{}'
 * event. Each is counted as a repair except the '{}' Chrome itself writes.
 * Phases follow trace-formats-and-peers.md 1.3-1.5 and Perfetto's import
 * rules (see model.h for B/E matching and nesting).
 */
#include "readers.h"

#include "json.h"
#include "tsparse.h"

#include <stdlib.h>
#include <string.h>

struct span {
    const char *s;
    uint32_t n;
    uint8_t str; /* given as a JSON string */
    uint8_t esc; /* string with escapes */
    uint8_t set;
};

struct event {
    struct span ph, name, cat, ts, dur, tts, tdur, pid, tid, id, s, bp;
    struct span id2;       /* the id inside id2 */
    struct span bind_id;   /* flow v2 */
    uint8_t flow_in, flow_out;
    int id2_global;        /* id2 key was "global" (or "") */
    const char *args_a, *args_b; /* raw args object, when present */
};

struct creader {
    struct stint_model *m;
    struct stint_input *in;
    const struct stint_read_opts *o;
    char *scratch;  /* unescape / key buffer, grows */
    size_t scratch_cap;
    char *key;      /* flat-key builder */
    size_t key_cap;
    /* names and categories repeat: a direct-mapped cache of recent interned
     * strings spares hashing them again (entries point at the model's
     * strings, which never move) */
    struct icache_ent {
        const char *s;
        uint32_t len, id;
    } icache[256];
    /* the same for lanes: (pid, tid) -> host-clock lane; lanes are never
     * renumbered while a reader runs */
    struct lcache_ent {
        int64_t pid, tid;
        uint32_t lane, used;
    } lcache[64];
};

static uint32_t host_lane(struct creader *r, int64_t pid, int64_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)tid * 0xff51afd7ed558ccdULL);
    struct lcache_ent *c = &r->lcache[(h ^ (h >> 29)) & 63];
    if (c->used && c->pid == pid && c->tid == tid)
        return c->lane;
    c->lane = stint_model_lane(r->m, pid, tid, STINT_CLOCK_HOST);
    c->pid = pid;
    c->tid = tid;
    c->used = 1;
    return c->lane;
}

static char *scratch(struct creader *r, size_t n)
{
    if (n + 1 > r->scratch_cap) {
        size_t c = r->scratch_cap ? r->scratch_cap : 256;
        while (c < n + 1)
            c *= 2;
        char *p = realloc(r->scratch, c);
        if (!p) {
            fprintf(stderr, "stint: out of memory\n");
            exit(3);
        }
        r->scratch = p;
        r->scratch_cap = c;
    }
    return r->scratch;
}

static uint32_t intern_span(struct creader *r, const struct span *sp)
{
    if (!sp->set || sp->n == 0)
        return 0;
    if (sp->str && sp->esc) {
        char *b = scratch(r, sp->n);
        size_t n = stint_json_unescape(sp->s, sp->n, b);
        return stint_model_intern(r->m, b, n);
    }
    /* sp->s lies in the padded window, so 8-byte loads at either end are in bounds */
    uint64_t a, b = 0;
    memcpy(&a, sp->s, 8);
    if (sp->n < 8)
        a &= (1ULL << (8 * sp->n)) - 1;
    else
        memcpy(&b, sp->s + sp->n - 8, 8);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL) ^ sp->n) * 0xff51afd7ed558ccdULL;
    struct icache_ent *c = &r->icache[h >> 56];
    if (c->s && c->len == sp->n && memcmp(c->s, sp->s, sp->n) == 0)
        return c->id;
    uint32_t id = stint_model_intern(r->m, sp->s, sp->n);
    c->s = stint_model_str(r->m, id, NULL);
    c->len = sp->n;
    c->id = id;
    return id;
}

static uint64_t offset_of(const struct creader *r, const char *p)
{
    return r->in->base + (uint64_t)(p - r->in->buf);
}

/* Reads one value into sp (strings and numbers keep their text; others skipped). */
static inline __attribute__((always_inline)) int read_value(struct stint_json *j, struct span *sp)
{
    int c = stint_json_ws(j);
    memset(sp, 0, sizeof *sp);
    size_t n = 0;
    if (c == '"') {
        if (stint_json_string_short(j, &sp->s, &n)) {
            sp->str = 1;
            sp->set = 1;
            sp->n = (uint32_t)n;
            return STINT_JSON_OK;
        }
        int esc = 0;
        int rc = stint_json_string(j, &sp->s, &n, &esc);
        sp->esc = (uint8_t)esc;
        sp->str = 1;
        sp->set = rc == STINT_JSON_OK && n <= UINT32_MAX;
        sp->n = (uint32_t)n;
        return rc;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (stint_json_number_short(j, &sp->s, &n)) {
            sp->set = 1;
            sp->n = (uint32_t)n;
            return STINT_JSON_OK;
        }
        int rc = stint_json_number(j, &sp->s, &n);
        sp->set = rc == STINT_JSON_OK;
        sp->n = (uint32_t)n;
        return rc;
    }
    return stint_json_skip(j);
}

static int key_is(const char *k, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(k, lit, l) == 0;
}

/* id2: {"global": x} or {"local": x} or {"": x} */
static int read_id2(struct stint_json *j, struct event *e)
{
    const char *save = j->p;
    int rc;
    if (stint_json_ws(j) != '{')
        return stint_json_skip(j);
    j->p++;
    for (;;) {
        int c = stint_json_ws(j);
        if (c == '}') {
            j->p++;
            return STINT_JSON_OK;
        }
        if (c == ',') {
            j->p++;
            continue;
        }
        if (c != '"') {
            if (c == 0 && !j->at_eof) {
                j->p = save;
                return STINT_JSON_MORE;
            }
            j->err = "expected a key in id2";
            j->err_at = j->p;
            return STINT_JSON_ERR;
        }
        const char *k;
        size_t kn;
        if ((rc = stint_json_string(j, &k, &kn, NULL)) != STINT_JSON_OK)
            goto out;
        if (stint_json_ws(j) != ':') {
            rc = (j->p >= j->end && !j->at_eof) ? STINT_JSON_MORE : STINT_JSON_ERR;
            j->err = "expected ':' in id2";
            j->err_at = j->p;
            goto out;
        }
        j->p++;
        struct span v;
        if ((rc = read_value(j, &v)) != STINT_JSON_OK)
            goto out;
        e->id2 = v;
        e->id2_global = !key_is(k, kn, "local");
    }
out:
    if (rc == STINT_JSON_MORE)
        j->p = save;
    return rc;
}

/* Parses one event object at '{'. Fields point into the window. */
static int parse_event(struct stint_json *j, struct event *e)
{
    const char *save = j->p;
    int rc = STINT_JSON_OK;
    memset(e, 0, sizeof *e);
    j->p++; /* '{' */
    int first = 1;
    for (;;) {
        int c = stint_json_ws(j);
        if (c == '}') { /* (a '}' after a ',' is handled below, as a trailing comma) */
            j->p++;
            return STINT_JSON_OK;
        }
        if (!first) {
            if (c != ',') {
                if (c == 0 && j->p >= j->end)
                    goto more_or_eof;
                j->err = "expected ',' or '}' in event object";
                j->err_at = j->p;
                rc = STINT_JSON_ERR;
                goto out;
            }
            j->p++;
            c = stint_json_ws(j);
            if (c == '}') {
                if (!(j->flags & STINT_JSON_TRAILING_COMMA)) {
                    j->err = "trailing comma in event object";
                    j->err_at = j->p;
                    rc = STINT_JSON_ERR;
                    goto out;
                }
                j->trailing_commas++;
                j->p++;
                return STINT_JSON_OK;
            }
        }
        first = 0;
        if (c != '"') {
            if (c == 0 && j->p >= j->end)
                goto more_or_eof;
            j->err = "expected a string key in event object";
            j->err_at = j->p;
            rc = STINT_JSON_ERR;
            goto out;
        }
        const char *k;
        size_t kn;
        int kesc;
        if (!stint_json_string_short(j, &k, &kn) && (rc = stint_json_string(j, &k, &kn, &kesc)) != STINT_JSON_OK)
            goto out;
        c = *j->p == ':' ? ':' : stint_json_ws(j);
        if (c != ':') {
            if (c == 0 && j->p >= j->end)
                goto more_or_eof;
            j->err = "expected ':' after key in event object";
            j->err_at = j->p;
            rc = STINT_JSON_ERR;
            goto out;
        }
        j->p++;
        struct span *dst = NULL;
        switch (kn) {
        case 1:
            if (k[0] == 's')
                dst = &e->s;
            break;
        case 2:
            if (k[0] == 'p' && k[1] == 'h')
                dst = &e->ph;
            else if (k[0] == 't' && k[1] == 's')
                dst = &e->ts;
            else if (k[0] == 'i' && k[1] == 'd')
                dst = &e->id;
            else if (k[0] == 'b' && k[1] == 'p')
                dst = &e->bp;
            break;
        case 3:
            if (!memcmp(k, "dur", 3))
                dst = &e->dur;
            else if (!memcmp(k, "pid", 3))
                dst = &e->pid;
            else if (!memcmp(k, "tid", 3))
                dst = &e->tid;
            else if (!memcmp(k, "cat", 3))
                dst = &e->cat;
            else if (!memcmp(k, "tts", 3))
                dst = &e->tts;
            else if (!memcmp(k, "id2", 3)) {
                if ((rc = read_id2(j, e)) != STINT_JSON_OK)
                    goto out;
                continue;
            }
            break;
        case 4:
            if (!memcmp(k, "name", 4))
                dst = &e->name;
            else if (!memcmp(k, "tdur", 4))
                dst = &e->tdur;
            else if (!memcmp(k, "args", 4)) {
                stint_json_ws(j);
                const char *a = j->p;
                if ((rc = stint_json_skip(j)) != STINT_JSON_OK)
                    goto out;
                if (*a == '{') {
                    e->args_a = a;
                    e->args_b = j->p;
                }
                continue;
            }
            break;
        case 7:
        case 8:
            if (kn == 7 && !memcmp(k, "bind_id", 7))
                dst = &e->bind_id;
            else if ((kn == 7 && !memcmp(k, "flow_in", 7)) || (kn == 8 && !memcmp(k, "flow_out", 8))) {
                uint8_t on = stint_json_ws(j) == 't';
                if ((rc = stint_json_skip(j)) != STINT_JSON_OK)
                    goto out;
                if (kn == 7)
                    e->flow_in = on;
                else
                    e->flow_out = on;
                continue;
            }
            break;
        default:
            break;
        }
        if (dst) {
            if ((rc = read_value(j, dst)) != STINT_JSON_OK)
                goto out;
        } else if ((rc = stint_json_skip(j)) != STINT_JSON_OK)
            goto out;
    }
more_or_eof:
    if (!j->at_eof) {
        rc = STINT_JSON_MORE;
    } else {
        j->err = "input ends inside an event object";
        j->err_at = save;
        rc = STINT_JSON_ERR;
    }
out:
    if (rc == STINT_JSON_MORE)
        j->p = save;
    return rc;
}

/* ---- args ------------------------------------------------------------------------ */

#define ARGS_FLATTEN_DEPTH 64

static void key_set(struct creader *r, size_t at, const char *s, size_t n)
{
    if (at + n + 1 > r->key_cap) {
        size_t c = r->key_cap ? r->key_cap : 256;
        while (c < at + n + 1)
            c *= 2;
        char *p = realloc(r->key, c);
        if (!p) {
            fprintf(stderr, "stint: out of memory\n");
            exit(3);
        }
        r->key = p;
        r->key_cap = c;
    }
    memcpy(r->key + at, s, n);
    r->key[at + n] = 0;
}

typedef void (*arg_sink)(struct creader *r, void *ctx, const struct stint_arg *a);

static int is_integer_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            return 0;
    return 1;
}

/* Walks one value (validated already) under flat key r->key[0..klen). */
static void walk_value(struct creader *r, struct stint_json *j, size_t klen, int depth, arg_sink sink, void *ctx)
{
    int c = stint_json_ws(j);
    struct stint_arg a = {0};
    a.key = stint_model_intern(r->m, r->key, klen);
    if (c == '{' || c == '[') {
        if (depth >= ARGS_FLATTEN_DEPTH) {
            const char *v0 = j->p;
            if (stint_json_skip(j) != STINT_JSON_OK)
                return;
            a.kind = STINT_ARG_JSON;
            a.sval = stint_model_intern(r->m, v0, (size_t)(j->p - v0));
            sink(r, ctx, &a);
            return;
        }
        int obj = c == '{';
        j->p++;
        size_t idx = 0;
        for (;;) {
            c = stint_json_ws(j);
            if (c == ',') {
                j->p++;
                continue;
            }
            if (c == '}' || c == ']' || c == 0) {
                j->p++;
                return;
            }
            size_t nk = klen;
            if (obj) {
                const char *k;
                size_t kn;
                int kesc;
                if (stint_json_string(j, &k, &kn, &kesc) != STINT_JSON_OK)
                    return;
                if (kesc) {
                    char *b = scratch(r, kn);
                    kn = stint_json_unescape(k, kn, b);
                    k = b;
                }
                key_set(r, klen, ".", 1);
                key_set(r, klen + 1, k, kn);
                nk = klen + 1 + kn;
                stint_json_ws(j);
                j->p++; /* ':' */
            } else {
                char ib[32];
                int n = snprintf(ib, sizeof ib, "[%zu]", idx++);
                key_set(r, klen, ib, (size_t)n);
                nk = klen + (size_t)n;
            }
            walk_value(r, j, nk, depth + 1, sink, ctx);
        }
    }
    if (c == '"') {
        const char *s;
        size_t n;
        int esc;
        if (stint_json_string(j, &s, &n, &esc) != STINT_JSON_OK)
            return;
        if (esc) {
            char *b = scratch(r, n);
            n = stint_json_unescape(s, n, b);
            s = b;
        }
        a.kind = STINT_ARG_STRING;
        a.sval = stint_model_intern(r->m, s, n);
        sink(r, ctx, &a);
        return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s;
        size_t n;
        if (stint_json_number(j, &s, &n) != STINT_JSON_OK)
            return;
        int64_t v;
        if (is_integer_text(s, n) && stint_parse_i64(s, n, &v) == 0) {
            a.kind = STINT_ARG_INT;
            a.ival = v;
        } else {
            a.kind = STINT_ARG_REAL;
            a.sval = stint_model_intern(r->m, s, n);
        }
        sink(r, ctx, &a);
        return;
    }
    if (c == 't' || c == 'f') {
        a.kind = STINT_ARG_BOOL;
        a.ival = c == 't';
        stint_json_skip(j);
        sink(r, ctx, &a);
        return;
    }
    /* null: dropped, as Perfetto does */
    stint_json_skip(j);
}

static void walk_args(struct creader *r, const char *a, const char *b, const char *prefix, arg_sink sink, void *ctx)
{
    struct stint_json j = {.p = a, .end = b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
    size_t pl = strlen(prefix);
    key_set(r, 0, prefix, pl);
    walk_value(r, &j, pl, 0, sink, ctx);
}

static void sink_slice(struct creader *r, void *ctx, const struct stint_arg *a)
{
    stint_model_add_arg(r->m, *(uint32_t *)ctx, a);
}

static void sink_metadata(struct creader *r, void *ctx, const struct stint_arg *a)
{
    (void)ctx;
    struct stint_arg *n = stint_bigarray_push(&r->m->metadata);
    if (n)
        *n = *a;
}

/* Finds a top-level arg by key in a raw args object: its value span. */
static int find_arg(const char *a, const char *b, const char *key, struct span *out)
{
    struct stint_json j = {.p = a + 1, .end = b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == ',') {
            j.p++;
            continue;
        }
        if (c != '"')
            return 0;
        const char *k;
        size_t kn;
        if (stint_json_string(&j, &k, &kn, NULL) != STINT_JSON_OK)
            return 0;
        stint_json_ws(&j);
        j.p++;
        if (key_is(k, kn, key))
            return read_value(&j, out) == STINT_JSON_OK && out->set;
        if (stint_json_skip(&j) != STINT_JSON_OK)
            return 0;
    }
}

struct counter_ctx {
    int64_t pid;
    int64_t ts;
    uint32_t name;
    size_t prefix_len;
};

/* ---- one event into the model --------------------------------------------------------- */

static int span_i64(struct creader *r, const struct span *sp, int64_t *out)
{
    (void)r;
    if (stint_parse_i64(sp->s, sp->n, out) == 0)
        return 0;
    return -1;
}

static int64_t resolve_pid(struct creader *r, const struct event *e)
{
    if (!e->pid.set)
        return 0;
    int64_t v;
    if (span_i64(r, &e->pid, &v) == 0)
        return v;
    return stint_model_synthetic_pid(r->m, intern_span(r, &e->pid));
}

static int64_t resolve_tid(struct creader *r, const struct event *e, int64_t pid)
{
    if (!e->tid.set)
        return pid;
    int64_t v;
    if (span_i64(r, &e->tid, &v) == 0)
        return v == 0 ? pid : v; /* Perfetto: tid 0 means the process's main thread */
    return stint_model_synthetic_tid(r->m, pid, intern_span(r, &e->tid));
}

static int parse_time(struct creader *r, const struct span *sp, int64_t *out)
{
    (void)r;
    return stint_parse_ts(sp->s, sp->n, 1000, out);
}

static void handle_metadata(struct creader *r, const struct event *e, int64_t pid, int64_t tid)
{
    struct stint_model *m = r->m;
    struct span v;
    if (!e->args_a)
        return;
    if (key_is(e->name.s, e->name.n, "process_name") && find_arg(e->args_a, e->args_b, "name", &v)) {
        uint32_t p = stint_model_process(m, pid);
        STINT_BA_AT(&m->processes, struct stint_process, p).name = intern_span(r, &v);
    } else if (key_is(e->name.s, e->name.n, "thread_name") && find_arg(e->args_a, e->args_b, "name", &v)) {
        uint32_t l = host_lane(r, pid, tid);
        STINT_BA_AT(&m->lanes, struct stint_lane, l).name = intern_span(r, &v);
    } else if (key_is(e->name.s, e->name.n, "process_sort_index") &&
               find_arg(e->args_a, e->args_b, "sort_index", &v)) {
        int64_t x;
        if (stint_parse_i64(v.s, v.n, &x) == 0) {
            uint32_t pi = stint_model_process(m, pid);
            struct stint_process *p = &STINT_BA_AT(&m->processes, struct stint_process, pi);
            p->sort_index = (int32_t)x;
            p->has_sort_index = 1;
        }
    } else if (key_is(e->name.s, e->name.n, "thread_sort_index") &&
               find_arg(e->args_a, e->args_b, "sort_index", &v)) {
        int64_t x;
        if (stint_parse_i64(v.s, v.n, &x) == 0) {
            uint32_t li = host_lane(r, pid, tid);
            struct stint_lane *l = &STINT_BA_AT(&m->lanes, struct stint_lane, li);
            l->sort_index = (int32_t)x;
            l->has_sort_index = 1;
        }
    }
}

static void handle_counter(struct creader *r, const struct event *e, int64_t pid, int64_t ts)
{
    struct stint_model *m = r->m;
    if (!e->args_a)
        return;
    struct stint_json j = {.p = e->args_a + 1, .end = e->args_b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
    size_t nn;
    const char *nm = stint_model_str(m, intern_span(r, &e->name), &nn);
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == ',') {
            j.p++;
            continue;
        }
        if (c != '"')
            return;
        const char *k;
        size_t kn;
        int kesc;
        if (stint_json_string(&j, &k, &kn, &kesc) != STINT_JSON_OK)
            return;
        stint_json_ws(&j);
        j.p++;
        struct span v;
        if (read_value(&j, &v) != STINT_JSON_OK)
            return;
        if (!v.set)
            continue;
        char num[64];
        if (v.n >= sizeof num)
            continue;
        memcpy(num, v.s, v.n);
        num[v.n] = 0;
        char *endp;
        double d = strtod(num, &endp);
        if (endp == num || *endp) {
            stint_model_drop(m, "counter '%s' arg has a non-numeric value", nm);
            continue;
        }
        /* series name "<name> <key>", as Perfetto names counter tracks */
        char *b = scratch(r, nn + 1 + kn);
        memcpy(b, nm, nn);
        b[nn] = ' ';
        memcpy(b + nn + 1, k, kn);
        stint_model_counter(m, pid, stint_model_intern(m, b, nn + 1 + kn), ts, d);
    }
}

static void add_event(struct creader *r, const struct event *e, const char *at)
{
    struct stint_model *m = r->m;
    m->events++;
    if (!e->ph.set || e->ph.n == 0) {
        if (!e->name.set && !e->ts.set && !e->pid.set)
            return; /* the empty {} Chrome writes last, or an object with nothing to keep */
        stint_model_drop(m, "byte %llu: event without \"ph\" (expected a phase letter)",
                         (unsigned long long)offset_of(r, at));
        return;
    }
    char ph = e->ph.s[0]; /* Perfetto reads the first character only */
    int64_t pid = resolve_pid(r, e);
    int64_t tid = resolve_tid(r, e, pid);
    if (ph == 'M') {
        handle_metadata(r, e, pid, tid);
        return;
    }
    int64_t ts = 0;
    int ts_rc = e->ts.set ? parse_time(r, &e->ts, &ts) : -1;
    if (ts_rc != 0) {
        stint_model_drop(m, "byte %llu: event '%.*s' has %s ts (expected a number of microseconds%s)",
                         (unsigned long long)offset_of(r, at), (int)(e->name.n > 80 ? 80 : e->name.n),
                         e->name.s ? e->name.s : "", !e->ts.set ? "no" : ts_rc == -2 ? "an out-of-range" : "an invalid",
                         ts_rc == -2 ? " within +-9223372036854775.807, the int64 ns range" : "");
        return;
    }
    if (e->ts.str)
        stint_model_repair(m, STINT_REPAIR_STRING_NUMBER, "byte %llu: ts given as a string",
                           (unsigned long long)offset_of(r, at));
    struct stint_slice s = {.ts_ns = ts, .tts_ns = STINT_TS_NONE, .tdur_ns = STINT_TS_NONE};
    s.name = intern_span(r, &e->name);
    s.cat = intern_span(r, &e->cat);
    if (e->tts.set) {
        int64_t v;
        if (parse_time(r, &e->tts, &v) == 0)
            s.tts_ns = v;
    }
    uint32_t idx = STINT_NO_ID;
    switch (ph) {
    case 'X': {
        int64_t d = 0;
        if (!e->dur.set)
            stint_model_repair(m, STINT_REPAIR_X_WITHOUT_DUR,
                               "byte %llu: X event '%s' has no dur (Perfetto drops it; kept with dur 0)",
                               (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL));
        int dur_rc = e->dur.set ? parse_time(r, &e->dur, &d) : 0;
        if (dur_rc != 0) {
            stint_model_drop(m, "byte %llu: X event '%s' has %s dur (expected microseconds%s)",
                             (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL),
                             dur_rc == -2 ? "an out-of-range" : "an invalid",
                             dur_rc == -2 ? " within the int64 ns range" : "");
            return;
        }
        if (e->tdur.set) {
            int64_t v;
            if (parse_time(r, &e->tdur, &v) == 0)
                s.tdur_ns = v;
        }
        uint32_t lane = host_lane(r, pid, tid);
        s.track = STINT_BA_AT(&m->lanes, struct stint_lane, lane).track;
        s.dur_ns = d;
        s.flags = STINT_SLICE_COMPLETE;
        if (e->bind_id.set) /* a v2 flow needs the slice's index */
            s.flags |= STINT_SLICE_NEEDS_INDEX;
        idx = stint_model_add_slice(m, &s);
        break;
    }
    case 'B':
        idx = stint_model_begin(m, host_lane(r, pid, tid), &s);
        break;
    case 'E': {
        int64_t tts = s.tts_ns;
        stint_model_end(m, host_lane(r, pid, tid), ts, s.name, tts);
        return; /* E args are not merged into the B slice (noted in the docs) */
    }
    case 'i':
    case 'I':
    case 'R': {
        char scope = e->s.set && e->s.n ? e->s.s[0] : 't';
        enum stint_track_kind kind = STINT_TRACK_THREAD;
        if (scope == 'g') {
            s.track = stint_model_track_global(m);
            kind = STINT_TRACK_GLOBAL;
        } else if (scope == 'p') {
            s.track = stint_model_track_process(m, pid);
            kind = STINT_TRACK_PROCESS;
        } else {
            uint32_t lane = host_lane(r, pid, tid);
            s.track = STINT_BA_AT(&m->lanes, struct stint_lane, lane).track;
        }
        s.dur_ns = 0;
        s.flags = STINT_SLICE_INSTANT;
        stint_model_instant_stat(m, kind, s.cat, s.name);
        idx = stint_model_add_slice(m, &s);
        break;
    }
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'F': {
        uint32_t idtext = 0;
        enum stint_async_scope scope = STINT_ASYNC_PROCESS;
        if (e->id2.set) {
            idtext = intern_span(r, &e->id2);
            scope = e->id2_global ? STINT_ASYNC_GLOBAL : STINT_ASYNC_PROCESS;
        } else if (e->id.set)
            idtext = intern_span(r, &e->id);
        uint32_t track = stint_model_track_async(m, scope, pid, s.cat, idtext, s.name);
        if (ph == 'b' || ph == 'S')
            idx = stint_model_async_begin(m, track, &s);
        else if (ph == 'e' || ph == 'F') {
            stint_model_async_end(m, track, ts, s.name);
            return;
        } else {
            s.track = track;
            s.dur_ns = 0;
            s.flags = STINT_SLICE_INSTANT | STINT_SLICE_ASYNC;
            stint_model_instant_stat(m, STINT_TRACK_ASYNC, s.cat, s.name);
            idx = stint_model_add_slice(m, &s);
        }
        break;
    }
    case 'C':
        handle_counter(r, e, pid, ts);
        return;
    case 's':
    case 't':
    case 'f': {
        /* v1 flow identity: cat + name + id */
        size_t cn, nn, in_ = 0;
        const char *cs = stint_model_str(m, s.cat, &cn), *ns = stint_model_str(m, s.name, &nn);
        uint32_t idv = e->id.set ? intern_span(r, &e->id) : (e->id2.set ? intern_span(r, &e->id2) : 0);
        const char *is = stint_model_str(m, idv, &in_);
        char *b = scratch(r, cn + nn + in_ + 2);
        memcpy(b, cs, cn);
        b[cn] = '\x1f';
        memcpy(b + cn + 1, ns, nn);
        b[cn + 1 + nn] = '\x1f';
        memcpy(b + cn + nn + 2, is, in_);
        uint32_t key = stint_model_intern(m, b, cn + nn + in_ + 2);
        uint32_t lane = host_lane(r, pid, tid);
        int enclosing = ph != 'f' || (e->bp.set && e->bp.n && e->bp.s[0] == 'e');
        stint_model_flow(m, (enum stint_flow_phase)ph, stint_model_lane_at(m, lane)->track, ts, key, enclosing,
                         STINT_NO_ID, 0, 0);
        return;
    }
    default:
        stint_model_repair(m, STINT_REPAIR_UNKNOWN_PHASE, "byte %llu: phase '%c' is not modelled (event kept out)",
                           (unsigned long long)offset_of(r, at), ph);
        return;
    }
    if (idx != STINT_NO_ID && e->bind_id.set && (e->flow_in || e->flow_out)) {
        /* flow v2: the key is the bind id alone, apart from v1 keys */
        uint32_t bid = intern_span(r, &e->bind_id);
        size_t bn;
        const char *bs = stint_model_str(m, bid, &bn);
        char *b = scratch(r, bn + 1);
        b[0] = '\x1e';
        memcpy(b + 1, bs, bn);
        stint_model_flow(m, STINT_FLOW_V2, STINT_BA_AT(&m->slices, struct stint_slice, idx).track, ts,
                         stint_model_intern(m, b, bn + 1), 0, idx, e->flow_in, e->flow_out);
    }
    if (idx != STINT_NO_ID && e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS))
        walk_args(r, e->args_a, e->args_b, "args", sink_slice, &idx);
}

/* ---- the container state machine ---------------------------------------------------------- */

enum {
    S_START,
    S_OBJ_FIRST, /* after '{' */
    S_OBJ_NEXT,  /* after a key's value */
    S_OBJ_KEY,   /* after ',' */
    S_EV_FIRST,  /* after '[' */
    S_EV_NEXT,   /* after an event */
    S_EV_COMMA,  /* after ',' */
    S_END,
    S_DONE
};

static int step(struct creader *r, struct stint_json *j, int *state, int *in_obj)
{
    struct stint_model *m = r->m;
    int c = stint_json_ws(j);
    if (c == 0 && j->p >= j->end) {
        if (!j->at_eof)
            return STINT_JSON_MORE;
        switch (*state) {
        case S_START:
            j->err = "empty input (expected '[' or '{' to start a Chrome JSON trace)";
            j->err_at = j->p;
            return STINT_JSON_ERR;
        case S_EV_FIRST:
        case S_EV_NEXT:
        case S_EV_COMMA:
            stint_model_repair(m, STINT_REPAIR_MISSING_CLOSE,
                               "byte %llu: input ends without the closing ']' of the event array",
                               (unsigned long long)offset_of(r, j->p));
            *state = S_DONE;
            return STINT_JSON_OK;
        case S_OBJ_FIRST:
        case S_OBJ_NEXT:
        case S_OBJ_KEY:
            stint_model_repair(m, STINT_REPAIR_MISSING_CLOSE,
                               "byte %llu: input ends without the closing '}' of the trace object",
                               (unsigned long long)offset_of(r, j->p));
            *state = S_DONE;
            return STINT_JSON_OK;
        default:
            *state = S_DONE;
            return STINT_JSON_OK;
        }
    }
    switch (*state) {
    case S_START:
        if (c == '[') {
            j->p++;
            *state = S_EV_FIRST;
            *in_obj = 0;
            return STINT_JSON_OK;
        }
        if (c == '{') {
            j->p++;
            *state = S_OBJ_FIRST;
            *in_obj = 1;
            return STINT_JSON_OK;
        }
        j->err = "expected '[' or '{' at the start of a Chrome JSON trace";
        j->err_at = j->p;
        return STINT_JSON_ERR;
    case S_OBJ_NEXT:
        if (c == ',') {
            j->p++;
            *state = S_OBJ_KEY;
            return STINT_JSON_OK;
        }
        if (c == '}') {
            j->p++;
            *state = S_END;
            return STINT_JSON_OK;
        }
        j->err = "expected ',' or '}' in the trace object";
        j->err_at = j->p;
        return STINT_JSON_ERR;
    case S_OBJ_FIRST:
    case S_OBJ_KEY: {
        if (c == '}') {
            if (*state == S_OBJ_KEY)
                stint_model_repair(m, STINT_REPAIR_TRAILING_COMMA, "byte %llu: trailing comma in the trace object",
                                   (unsigned long long)offset_of(r, j->p));
            j->p++;
            *state = S_END;
            return STINT_JSON_OK;
        }
        if (c != '"') {
            j->err = "expected a key in the trace object";
            j->err_at = j->p;
            return STINT_JSON_ERR;
        }
        const char *save = j->p, *k;
        size_t kn;
        int rc = stint_json_string(j, &k, &kn, NULL);
        if (rc != STINT_JSON_OK)
            return rc;
        c = stint_json_ws(j);
        if (c != ':') {
            if (c == 0 && !j->at_eof) {
                j->p = save;
                return STINT_JSON_MORE;
            }
            j->err = "expected ':' after a key in the trace object";
            j->err_at = j->p;
            return STINT_JSON_ERR;
        }
        j->p++;
        c = stint_json_ws(j);
        if (c == 0 && !j->at_eof) {
            j->p = save;
            return STINT_JSON_MORE;
        }
        if (key_is(k, kn, "traceEvents") && c == '[') {
            j->p++;
            *state = S_EV_FIRST;
            return STINT_JSON_OK;
        }
        const char *v0 = j->p;
        rc = stint_json_skip(j);
        if (rc == STINT_JSON_MORE)
            j->p = save;
        if (rc != STINT_JSON_OK)
            return rc;
        if (key_is(k, kn, "metadata") && *v0 == '{')
            walk_args(r, v0, j->p, "json_metadata", sink_metadata, NULL);
        *state = S_OBJ_NEXT;
        return STINT_JSON_OK;
    }
    case S_EV_FIRST:
    case S_EV_COMMA:
        if (c == ']') {
            if (*state == S_EV_COMMA)
                stint_model_repair(m, STINT_REPAIR_TRAILING_COMMA, "byte %llu: trailing comma before ']'",
                                   (unsigned long long)offset_of(r, j->p));
            j->p++;
            *state = *in_obj ? S_OBJ_NEXT : S_END;
            return STINT_JSON_OK;
        }
        if (c == '{') {
            struct event e;
            const char *at = j->p;
            int rc = parse_event(j, &e);
            if (rc != STINT_JSON_OK)
                return rc;
            add_event(r, &e, at);
            *state = S_EV_NEXT;
            return STINT_JSON_OK;
        }
        j->err = "expected an event object '{' in the event array";
        j->err_at = j->p;
        return STINT_JSON_ERR;
    case S_EV_NEXT:
        if (c == ',') {
            j->p++;
            *state = S_EV_COMMA;
            return STINT_JSON_OK;
        }
        if (c == ']') {
            j->p++;
            *state = *in_obj ? S_OBJ_NEXT : S_END;
            return STINT_JSON_OK;
        }
        if (c == '}' && *in_obj) { /* array not closed before the object's end */
            stint_model_repair(m, STINT_REPAIR_MISSING_CLOSE, "byte %llu: '}' where ']' was expected",
                               (unsigned long long)offset_of(r, j->p));
            j->p++;
            *state = S_END;
            return STINT_JSON_OK;
        }
        j->err = "expected ',' or ']' after an event";
        j->err_at = j->p;
        return STINT_JSON_ERR;
    case S_END:
        j->err = "unexpected data after the end of the trace";
        j->err_at = j->p;
        return STINT_JSON_ERR;
    default:
        return STINT_JSON_OK;
    }
}

int stint_read_chrome(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    return stint_i_read_chrome_part(in, m, o, 0, 0, NULL);
}

int stint_i_read_chrome_part(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o, int part,
                             int part_in_obj, int *boundary_ok)
{
    struct creader r = {.m = m, .in = in, .o = o};
    m->format = "chrome-json";
    int state = part == 2 ? S_EV_FIRST : S_START, in_obj = part == 2 ? part_in_obj : 0, rc = 0;
    if (boundary_ok)
        *boundary_ok = 0;
    struct stint_json j = {.flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS};
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
        if (part == 1 && j.at_eof) {
            /* the first half ends right after an event's ',': stop there */
            while (state != S_DONE) {
                if (state == S_EV_COMMA && stint_json_ws(&j) == 0 && j.p >= j.end) {
                    if (boundary_ok)
                        *boundary_ok = 1;
                    state = S_DONE;
                    break;
                }
                if ((s = step(&r, &j, &state, &in_obj)) != STINT_JSON_OK)
                    break;
            }
        } else
            while (state != S_DONE && (s = step(&r, &j, &state, &in_obj)) == STINT_JSON_OK)
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
        if (part != 2)
            stint_i_progress(in, 0);
        if (stint_input_fill(in) < 0) {
            stint_model_fail(m, "%s", in->err);
            rc = stint_input_errcode(in);
            break;
        }
    }
    if (j.trailing_commas) {
        stint_model_repair(m, STINT_REPAIR_TRAILING_COMMA, "trailing comma inside an event or its args");
        m->repairs[STINT_REPAIR_TRAILING_COMMA] += j.trailing_commas - 1;
    }
    if (j.control_chars) {
        stint_model_repair(m, STINT_REPAIR_CONTROL_CHAR, "raw control byte inside a string (kept as is)");
        m->repairs[STINT_REPAIR_CONTROL_CHAR] += j.control_chars - 1;
    }
    if (part != 2)
        stint_i_progress(in, 1);
    free(r.scratch);
    free(r.key);
    return rc;
}
