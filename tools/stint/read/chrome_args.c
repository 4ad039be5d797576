/* SPDX-License-Identifier: MIT */
/*
 * chrome_args.c - the Chrome reader's args: flattening an args object into
 * the model's args, and looking members up in one.
 *
 * Args are walked only after their event parsed, over text the event's parse
 * checked already (so a cursor over [a, b) never meets MORE), and only when
 * something needs them: M and C events, or STINT_MODEL_KEEP_ARGS (all of
 * a slice's args, or with STINT_MODEL_ARGS_CORRELATION only that one). Nested
 * keys flatten to "args.k.sub" and "args.list[0]" (as Perfetto names them)
 * down to ARGS_FLATTEN_DEPTH levels; deeper values are kept as their JSON
 * text. null values are dropped, as Perfetto does. The flat key is built in
 * the reader's key buffer, which only grows.
 */
#include "read/chrome_int.h"

#include "base/tsparse.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <string.h>

#define ARGS_FLATTEN_DEPTH 64

/* Puts s[0..n) at r->key + at, followed by a 0 (the flat key grows). */
static void key_set(struct creader *r, size_t at, const char *s, size_t n)
{
    r->key = stint_xgrow(r->key, &r->key_cap, at + n + 1, 1, 256);
    memcpy(r->key + at, s, n);
    r->key[at + n] = 0;
}

typedef void (*arg_sink)(struct creader *r, void *ctx, const struct stint_arg *a);

/* Whether a JSON number's text has no fraction and no exponent. */
static int is_integer_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            return 0;
    return 1;
}

/* The string at j->p, unescaped (into the scratch buffer when it has
 * escapes): its text in *s, *n. */
static int read_text(struct creader *r, struct stint_json *j, const char **s, size_t *n)
{
    int esc;
    int rc = stint_json_string(j, s, n, &esc);
    if (rc == STINT_JSON_OK)
        *n = chrome_unescaped(r, s, *n, esc);
    return rc;
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
                if (read_text(r, j, &k, &kn) != STINT_JSON_OK)
                    return;
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
        if (read_text(r, j, &s, &n) != STINT_JSON_OK)
            return;
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

/* Walks the args value [a, b) under the flat key prefix into sink. */
static void walk_args(struct creader *r, const char *a, const char *b, const char *prefix, arg_sink sink, void *ctx)
{
    struct stint_json j = chrome_sub_json(a, b);
    size_t pl = strlen(prefix);
    key_set(r, 0, prefix, pl);
    walk_value(r, &j, pl, 0, sink, ctx);
}

static void sink_slice(struct creader *r, void *ctx, const struct stint_arg *a)
{
    stint_model_add_arg(r->m, *(uint32_t *)ctx, a);
}

static void sink_end(struct creader *r, void *ctx, const struct stint_arg *a)
{
    (void)ctx;
    stint_model_end_arg(r->m, a);
}

static void sink_metadata(struct creader *r, void *ctx, const struct stint_arg *a)
{
    (void)ctx;
    struct stint_arg *n = stint_bigarray_push(&r->m->metadata);
    if (n)
        *n = *a;
}

/* STINT_MODEL_ARGS_CORRELATION: walks only the top-level member
 * "correlation" of the args value [a, b) into sink, as walk_args would name
 * and read it ("args.correlation"); the other members are skipped unread. An
 * args value that is no object is walked whole. */
static void walk_correlation(struct creader *r, const char *a, const char *b, arg_sink sink, void *ctx)
{
    struct stint_json j = chrome_sub_json(a, b);
    if (stint_json_ws(&j) != '{') {
        walk_args(r, a, b, "args", sink, ctx);
        return;
    }
    j.p++;
    const char *k, *v;
    size_t kn, vn;
    int kesc;
    char kb[KEY_BUF + 8];
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == ',') {
            j.p++;
            continue;
        }
        if (c != '"')
            return;
        /* (the text parsed once already: the short token paths suffice where they apply) */
        kesc = 0;
        if (!stint_json_string_short(&j, &k, &kn) && stint_json_string(&j, &k, &kn, &kesc) != STINT_JSON_OK)
            return;
        if (stint_json_ws(&j) != ':')
            return;
        j.p++;
        c = stint_json_ws(&j);
        kn = key_text(&k, kn, kesc, kb);
        if (key_is(k, kn, "correlation")) {
            key_set(r, 0, "args.correlation", 16);
            walk_value(r, &j, 16, 1, sink, ctx);
        } else if (c == '"' && stint_json_string_short(&j, &v, &vn)) {
            continue;
        } else if ((c == '-' || (c >= '0' && c <= '9')) && stint_json_number_short(&j, &v, &vn)) {
            continue;
        } else if (stint_json_skip(&j) != STINT_JSON_OK) {
            return;
        }
    }
}

void stint_i_chrome_args_slice(struct creader *r, const char *a, const char *b, uint32_t idx)
{
    if (r->m->flags & STINT_MODEL_ARGS_CORRELATION)
        walk_correlation(r, a, b, sink_slice, &idx);
    else
        walk_args(r, a, b, "args", sink_slice, &idx);
}

void stint_i_chrome_args_end(struct creader *r, const char *a, const char *b)
{
    if (r->m->flags & STINT_MODEL_ARGS_CORRELATION)
        walk_correlation(r, a, b, sink_end, NULL);
    else
        walk_args(r, a, b, "args", sink_end, NULL);
}

int stint_i_chrome_args_corr(struct creader *r, const char *a, const char *b, int64_t *out)
{
    (void)r;
    /* walk_correlation's walk, deciding at the first "correlation" member
     * that walk_value would give under that very key: a number, a string or
     * a bool (null, objects and lists give none: the walk goes on) */
    struct stint_json j = chrome_sub_json(a, b);
    if (stint_json_ws(&j) != '{')
        return 0; /* (walked whole under the key "args") */
    j.p++;
    const char *k, *v;
    size_t kn, vn;
    int kesc;
    char kb[KEY_BUF + 8];
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == ',') {
            j.p++;
            continue;
        }
        if (c != '"')
            return 0;
        kesc = 0;
        if (!stint_json_string_short(&j, &k, &kn) && stint_json_string(&j, &k, &kn, &kesc) != STINT_JSON_OK)
            return 0;
        if (stint_json_ws(&j) != ':')
            return 0;
        j.p++;
        c = stint_json_ws(&j);
        kn = key_text(&k, kn, kesc, kb);
        if (key_is(k, kn, "correlation") && c != 'n' && c != '{' && c != '[') {
            if (c != '-' && (c < '0' || c > '9'))
                return 0; /* a string or a bool: no integer */
            if (stint_json_number(&j, &v, &vn) != STINT_JSON_OK)
                return 0;
            return is_integer_text(v, vn) && stint_parse_i64(v, vn, out) == 0;
        }
        if (c == '"' && stint_json_string_short(&j, &v, &vn))
            continue;
        if ((c == '-' || (c >= '0' && c <= '9')) && stint_json_number_short(&j, &v, &vn))
            continue;
        if (stint_json_skip(&j) != STINT_JSON_OK)
            return 0;
    }
}

void stint_i_chrome_args_metadata(struct creader *r, const char *a, const char *b)
{
    walk_args(r, a, b, "json_metadata", sink_metadata, NULL);
}

int stint_i_chrome_find_arg(const char *a, const char *b, const char *key, struct span *out)
{
    struct stint_json j = chrome_sub_json(a + 1, b);
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
        int kesc;
        char kb[KEY_BUF + 8];
        if (stint_json_string(&j, &k, &kn, &kesc) != STINT_JSON_OK)
            return 0;
        kn = key_text(&k, kn, kesc, kb);
        stint_json_ws(&j);
        j.p++;
        if (key_is(k, kn, key))
            return read_value(&j, out) == STINT_JSON_OK && out->set;
        if (stint_json_skip(&j) != STINT_JSON_OK)
            return 0;
    }
}

int stint_i_chrome_next_member(struct stint_json *j, const char **k0, const char **k, size_t *kn, int *kesc)
{
    for (;;) {
        int c = stint_json_ws(j);
        if (c == ',') {
            j->p++;
            continue;
        }
        if (c != '"')
            return 0;
        *k0 = j->p;
        if (stint_json_string(j, k, kn, kesc) != STINT_JSON_OK || stint_json_ws(j) != ':')
            return 0;
        j->p++;
        stint_json_ws(j);
        return 1;
    }
}
