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

/* Where the walk hands each flattened arg a, its key and texts interned in
 * the model (every key met is interned, as it always was, so the ids stay
 * those of before). */
typedef void (*arg_sink)(struct creader *r, void *ctx, const struct stint_arg *a);

/* One walk's sink and its context. */
struct walk {
    arg_sink sink;
    void *ctx;
};

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

/* One step of a container's walk (walk_value's and render_value's), j
 * inside it: past commas to the next member's value. 1 with the member's
 * name (unescaped) in *k, *kn for an object, its "[i]" made in ib for an
 * array (*idx counts them); 0 at the container's end (j past it), at the
 * window's, or when a name does not read. */
static int member_next(struct creader *r, struct stint_json *j, int obj, size_t *idx, char ib[32], const char **k,
                       size_t *kn)
{
    for (;;) {
        int c = stint_json_ws(j);
        if (c == ',') {
            j->p++;
            continue;
        }
        if (c == '}' || c == ']' || c == 0) {
            j->p++;
            return 0;
        }
        break;
    }
    if (obj) {
        if (!stint_json_string_short(j, k, kn) && read_text(r, j, k, kn) != STINT_JSON_OK)
            return 0;
        stint_json_ws(j);
        j->p++; /* ':' */
        return 1;
    }
    char *e = ib + 32, *q = e;
    size_t v = (*idx)++;
    *--q = ']';
    do
        *--q = (char)('0' + v % 10);
    while (v /= 10);
    *--q = '[';
    *k = q;
    *kn = (size_t)(e - q);
    return 1;
}

/* Walks one value (validated already) under flat key r->key[0..klen). */
static void walk_value(struct creader *r, struct stint_json *j, size_t klen, int depth, const struct walk *w)
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
            w->sink(r, w->ctx, &a);
            return;
        }
        int obj = c == '{';
        j->p++;
        size_t idx = 0;
        char ib[32];
        const char *k;
        size_t kn;
        while (member_next(r, j, obj, &idx, ib, &k, &kn)) {
            if (obj)
                key_set(r, klen, ".", 1);
            key_set(r, klen + (size_t)obj, k, kn);
            walk_value(r, j, klen + (size_t)obj + kn, depth + 1, w);
        }
        return;
    }
    if (c == '"') {
        const char *s;
        size_t n;
        if (read_text(r, j, &s, &n) != STINT_JSON_OK)
            return;
        a.kind = STINT_ARG_STRING;
        a.sval = stint_model_intern(r->m, s, n);
        w->sink(r, w->ctx, &a);
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
        w->sink(r, w->ctx, &a);
        return;
    }
    if (c == 't' || c == 'f') {
        a.kind = STINT_ARG_BOOL;
        a.ival = c == 't';
        stint_json_skip(j);
        w->sink(r, w->ctx, &a);
        return;
    }
    /* null: dropped, as Perfetto does */
    stint_json_skip(j);
}

/* Walks the args value [a, b) under the flat key prefix into w. */
static void walk_args(struct creader *r, const char *a, const char *b, const char *prefix, const struct walk *w)
{
    struct stint_json j = chrome_sub_json(a, b);
    size_t pl = strlen(prefix);
    key_set(r, 0, prefix, pl);
    walk_value(r, &j, pl, 0, w);
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
    struct stint_arg *n2 = stint_bigarray_push(&r->m->metadata);
    if (n2)
        *n2 = *a;
}

/* Steps j, inside an object (past its '{' or one of its members), over the
 * members to the next one named key: returns the first byte of that
 * member's value, j at it; 0 when the object ends first or its text is bad.
 * The members passed are skipped unread (the text was parsed once already:
 * the short token paths serve where they apply). */
static int member_named(struct stint_json *j, const char *key)
{
    const char *k0, *k, *v;
    size_t kn, vn;
    int kesc;
    char kb[KEY_BUF + 8];
    while (stint_i_chrome_next_member(j, &k0, &k, &kn, &kesc)) {
        int c = stint_json_ws(j);
        kn = key_text(&k, kn, kesc, kb);
        if (key_is(k, kn, key))
            return c;
        if (c == '"' && stint_json_string_short(j, &v, &vn))
            continue;
        if ((c == '-' || (c >= '0' && c <= '9')) && stint_json_number_short(j, &v, &vn))
            continue;
        if (stint_json_skip(j) != STINT_JSON_OK)
            return 0;
    }
    return 0;
}

/* STINT_MODEL_ARGS_CORRELATION: walks only the top-level member
 * "correlation" of the args value [a, b) into sink, as walk_args would name
 * and read it ("args.correlation"); the other members are skipped unread. An
 * args value that is no object is walked whole. */
static void walk_correlation(struct creader *r, const char *a, const char *b, const struct walk *w)
{
    struct stint_json j = chrome_sub_json(a, b);
    if (stint_json_ws(&j) != '{') {
        walk_args(r, a, b, "args", w);
        return;
    }
    j.p++;
    while (member_named(&j, "correlation")) {
        key_set(r, 0, "args.correlation", 16);
        walk_value(r, &j, 16, 1, w);
    }
}

void stint_i_chrome_args_slice(struct creader *r, const char *a, const char *b, uint32_t idx)
{
    const struct walk w = {sink_slice, &idx};
    if (r->m->flags & STINT_MODEL_ARGS_CORRELATION)
        walk_correlation(r, a, b, &w);
    else
        walk_args(r, a, b, "args", &w);
}

void stint_i_chrome_args_end(struct creader *r, const char *a, const char *b)
{
    const struct walk w = {sink_end, NULL};
    if (r->m->flags & STINT_MODEL_ARGS_CORRELATION)
        walk_correlation(r, a, b, &w);
    else
        walk_args(r, a, b, "args", &w);
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
    int c;
    while ((c = member_named(&j, "correlation")) != 0) {
        if (c == 'n' || c == '{' || c == '[') {
            if (stint_json_skip(&j) != STINT_JSON_OK)
                return 0;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9'))
            return 0; /* a string or a bool: no integer */
        const char *v;
        size_t vn;
        if (stint_json_number(&j, &v, &vn) != STINT_JSON_OK)
            return 0;
        return is_integer_text(v, vn) && stint_parse_i64(v, vn, out) == 0;
    }
    return 0;
}

void stint_i_chrome_args_metadata(struct creader *r, const char *a, const char *b)
{
    const struct walk w = {sink_metadata, NULL};
    walk_args(r, a, b, "json_metadata", &w);
}

int stint_i_chrome_find_arg(const char *a, const char *b, const char *key, struct span *out)
{
    struct stint_json j = chrome_sub_json(a + 1, b);
    return member_named(&j, key) && read_value(&j, out) == STINT_JSON_OK && out->set;
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
        *kesc = 0; /* (the text was parsed once already: the short path serves where it applies) */
        if ((!stint_json_string_short(j, k, kn) && stint_json_string(j, k, kn, kesc) != STINT_JSON_OK) ||
            stint_json_ws(j) != ':')
            return 0;
        j->p++;
        stint_json_ws(j);
        return 1;
    }
}

/* ---- the args as the Chrome writer writes them (convert's spill) ---- */

/* Room for n more bytes in t. */
static inline char *text_room(struct args_text *t, size_t n)
{
    if (t->cap - t->len < n)
        t->p = stint_xgrow(t->p, &t->cap, t->len + n, 1, 1024);
    return t->p + t->len;
}

/* The render's walk (stint_i_chrome_args_render): walk_value's, step for
 * step, with the sink's text made in place. The flat key is kept escaped
 * as it grows (key[0, klen): "args" and each member's ".name" or "[i]"),
 * with the bytes its escaping wrote as U+FFFD (kbad), so that each arg
 * copies its key, where escaping the whole key again for each arg cost
 * as much as the rest. */
struct render {
    struct creader *r;
    struct args_text *t;
    char *key;
    size_t key_cap;
};

/* One arg, as the Chrome writer writes the model's: `"key":value`, after
 * a comma unless first (the flat key less its "args." prefix; the key's
 * U+FFFD bytes counted again for each arg, as the writer counts them);
 * past the 65535th only counted. s[0, n): a string's text (unescaped), a
 * number's (STINT_ARG_INT: any number) or deep JSON's; ival: a bool's. */
static void render_arg(struct render *rd, size_t klen, uint64_t kbad, int kind, int64_t ival, const char *s, size_t n)
{
    struct args_text *t = rd->t;
    if (t->nargs == UINT16_MAX) {
        t->dropped++;
        return;
    }
    const char *key = rd->key;
    if (klen > 5 && !memcmp(key, "args.", 5)) {
        key += 5;
        klen -= 5;
    }
    char *o = text_room(t, klen + 4 + 24 + 6 * n + 2);
    if (t->nargs++)
        *o++ = ',';
    *o++ = '"';
    memcpy(o, key, klen);
    o += klen;
    t->bad_utf8 += kbad;
    *o++ = '"';
    *o++ = ':';
    if (kind == STINT_ARG_INT) { /* (a number: its text) */
        memcpy(o, s, n);
        o += n;
    } else if (kind == STINT_ARG_BOOL) {
        memcpy(o, ival ? "true" : "false", ival ? 4 : 5);
        o += ival ? 4 : 5;
    } else if (kind == STINT_ARG_STRING) {
        *o++ = '"';
        o = stint_json_escape_to(o, s, n, &t->bad_utf8);
        *o++ = '"';
    } else { /* a real or deep JSON: its text, up to a NUL as the writer's fputs of the model's copy */
        const char *z = n ? memchr(s, 0, n) : NULL;
        size_t k = z ? (size_t)(z - s) : n;
        memcpy(o, s, k);
        o += k;
    }
    t->len = (size_t)(o - t->p);
}

/* Appends to the escaped key at klen the n bytes at s, escaped when esc
 * (a member's name; else "[i]"). Returns the key's new length; *kbad
 * counts the U+FFFD bytes. */
static size_t render_key(struct render *rd, size_t klen, const char *s, size_t n, int esc, uint64_t *kbad)
{
    rd->key = stint_xgrow(rd->key, &rd->key_cap, klen + 1 + 6 * n, 1, 256);
    char *o = rd->key + klen;
    if (!esc) {
        memcpy(o, s, n);
        return klen + n;
    }
    *o++ = '.';
    return (size_t)(stint_json_escape_to(o, s, n, kbad) - rd->key);
}

/* Renders one value (validated already) under the escaped flat key
 * rd->key[0, klen), as walk_value walks it. */
static void render_value(struct render *rd, struct stint_json *j, size_t klen, uint64_t kbad, int depth)
{
    struct creader *r = rd->r;
    int c = stint_json_ws(j);
    if (c == '{' || c == '[') {
        if (depth >= ARGS_FLATTEN_DEPTH) {
            const char *v0 = j->p;
            if (stint_json_skip(j) != STINT_JSON_OK)
                return;
            render_arg(rd, klen, kbad, STINT_ARG_JSON, 0, v0, (size_t)(j->p - v0));
            return;
        }
        int obj = c == '{';
        j->p++;
        size_t idx = 0;
        char ib[32];
        const char *k;
        size_t kn;
        while (member_next(r, j, obj, &idx, ib, &k, &kn)) {
            uint64_t nbad = kbad;
            size_t nk = render_key(rd, klen, k, kn, obj, &nbad);
            render_value(rd, j, nk, nbad, depth + 1);
        }
        return;
    }
    if (c == '"') {
        const char *s;
        size_t n;
        if (!stint_json_string_short(j, &s, &n) && read_text(r, j, &s, &n) != STINT_JSON_OK)
            return;
        render_arg(rd, klen, kbad, STINT_ARG_STRING, 0, s, n);
        return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s;
        size_t n;
        if (!stint_json_number_short(j, &s, &n) && stint_json_number(j, &s, &n) != STINT_JSON_OK)
            return;
        /* The model keeps an integer that fits 64 bits as its value, any other
         * number as its text, and the writer writes either as that text: the
         * JSON grammar leaves one integer whose value prints otherwise, -0 */
        if (n == 2 && s[0] == '-' && s[1] == '0') {
            s = "0";
            n = 1;
        }
        render_arg(rd, klen, kbad, STINT_ARG_INT, 0, s, n);
        return;
    }
    if (c == 't' || c == 'f') {
        stint_json_skip(j);
        render_arg(rd, klen, kbad, STINT_ARG_BOOL, c == 't', NULL, 0);
        return;
    }
    /* null: dropped, as Perfetto does */
    stint_json_skip(j);
}

void stint_i_chrome_args_render(struct creader *r, const char *a, const char *b, struct args_text *t)
{
    t->len = 0;
    t->nargs = 0;
    t->dropped = 0;
    t->bad_utf8 = 0;
    struct render rd = {r, t, r->key, r->key_cap};
    struct stint_json j = chrome_sub_json(a, b);
    rd.key = stint_xgrow(rd.key, &rd.key_cap, 4, 1, 256);
    memcpy(rd.key, "args", 4);
    render_value(&rd, &j, 4, 0, 0);
    r->key = rd.key; /* (the reader's key buffer, grown) */
    r->key_cap = rd.key_cap;
}
