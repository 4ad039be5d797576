/* SPDX-License-Identifier: MIT */
/*
 * jsonl_scan.c - JSON-lines iteration and dotted-path lookup (jsonl_scan.h).
 *
 * Lines are copied into one reused, zero-padded buffer before fn sees them,
 * so a line never depends on the input window and the JSON tokenizer can
 * read past its end safely. Memory is bounded by the longest line.
 */
#include "read/jsonl_scan.h"

#include "read/input.h"
#include "read/json.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stint_jl_schema_known(const char *s, size_t n)
{
    return (n == 15 && !memcmp(s, "stint/session/1", 15)) || (n == 20 && !memcmp(s, "candle-graph/trace/6", 20));
}

int stint_jl_each(const char *path, int (*fn)(void *ctx, const char *line, size_t len, uint64_t lineno), void *ctx,
                  uint64_t *unterminated, char *err, size_t errcap)
{
    if (unterminated)
        *unterminated = 0;
    struct stint_input in;
    int rc = stint_input_open(&in, path);
    if (rc != 0) {
        snprintf(err, errcap, "%s", in.err);
        stint_input_close(&in);
        return rc;
    }
    char *line = NULL;
    size_t cap = 0;
    uint64_t lineno = 0;
    rc = 0;
    for (;;) {
        char *nl = memchr(in.buf, '\n', in.len);
        if (!nl && !in.eof) {
            int r = stint_input_fill(&in);
            if (r < 0) {
                snprintf(err, errcap, "%s", in.err);
                rc = stint_input_errcode(&in);
                break;
            }
            continue;
        }
        size_t n = nl ? (size_t)(nl - in.buf) : in.len;
        if (!nl && n == 0)
            break;
        lineno++;
        if (n + STINT_JSON_PAD > cap) {
            cap = (n + STINT_JSON_PAD) * 2;
            line = stint_xreallocarray(line, cap, 1);
        }
        memcpy(line, in.buf, n);
        size_t len = n;
        if (len && line[len - 1] == '\r')
            len--;
        memset(line + len, 0, STINT_JSON_PAD);
        stint_input_consume(&in, nl ? n + 1 : n);
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t'))
            k++;
        if (k < len && !nl && unterminated) {
            *unterminated = lineno;
            break;
        }
        if (k < len) {
            rc = fn(ctx, line, len, lineno);
            if (rc)
                break;
        }
        if (!nl)
            break;
    }
    free(line);
    stint_input_close(&in);
    return rc;
}

static void init_cursor(struct stint_json *j, const char *line, size_t len)
{
    memset(j, 0, sizeof *j);
    j->p = line;
    j->end = line + len;
    j->at_eof = 1;
    j->flags = STINT_JSON_CONTROL_CHARS;
}

/* Reads the value at j->p into v (and moves past it). 0 or -1. */
static int read_value(struct stint_json *j, struct stint_jl_val *v)
{
    int c = stint_json_ws(j);
    const char *start = j->p;
    memset(v, 0, sizeof *v);
    if (c == '"') {
        v->type = STINT_JL_STRING;
        return stint_json_string(j, &v->p, &v->len, &v->escaped) == STINT_JSON_OK ? 0 : -1;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = STINT_JL_NUMBER;
        return stint_json_number(j, &v->p, &v->len) == STINT_JSON_OK ? 0 : -1;
    }
    v->type = c == '{' ? STINT_JL_OBJECT : c == '[' ? STINT_JL_ARRAY : c == 't' ? STINT_JL_TRUE : c == 'f' ? STINT_JL_FALSE
              : c == 'n' ? STINT_JL_NULL : STINT_JL_NONE;
    if (v->type == STINT_JL_NONE || stint_json_skip(j) != STINT_JSON_OK)
        return -1;
    v->p = start;
    v->len = (size_t)(j->p - start);
    return 0;
}

/* Walks the object at j->p calling fn per key (decoded when written with
 * escapes: "\u0069d" is "id"); fn decides whether to read or skip the value
 * (it must consume it). */
typedef int (*key_fn)(void *ctx, struct stint_json *j, const char *key, size_t klen);

/* Objects nested deeper than this are refused (-1, as bad JSON): the walk
 * recurses per level (a line nested 15,000 deep overflowed the stack; the
 * readers take args nested 10,000 deep). */
#define WALK_MAX_DEPTH 10000

static int walk_object_in(struct stint_json *j, key_fn fn, void *ctx);

static _Thread_local int walk_depth;

static int walk_object(struct stint_json *j, key_fn fn, void *ctx)
{
    if (walk_depth >= WALK_MAX_DEPTH)
        return -1;
    walk_depth++;
    int r = walk_object_in(j, fn, ctx);
    walk_depth--;
    return r;
}

/* A decoded key, shared by every level: each callback is done with its key
 * before it walks a nested object (get_key compares it, leaf_key copies it). */
static _Thread_local char walk_key[512];

static int walk_object_in(struct stint_json *j, key_fn fn, void *ctx)
{
    if (stint_json_ws(j) != '{')
        return -1;
    j->p++;
    if (stint_json_ws(j) == '}') {
        j->p++;
        return 0;
    }
    for (;;) {
        if (stint_json_ws(j) != '"')
            return -1;
        const char *k;
        size_t kl;
        int esc;
        if (stint_json_string(j, &k, &kl, &esc) != STINT_JSON_OK)
            return -1;
        if (esc && kl <= sizeof walk_key) { /* (a longer key is no path part and too long for a leaf: raw) */
            kl = stint_json_unescape(k, kl, walk_key);
            k = walk_key;
        }
        if (stint_json_ws(j) != ':')
            return -1;
        j->p++;
        int r = fn(ctx, j, k, kl);
        if (r)
            return r;
        int c = stint_json_ws(j);
        j->p++;
        if (c == '}')
            return 0;
        if (c != ',')
            return -1;
    }
}

struct get_ctx {
    const char *path;
    struct stint_jl_val *v;
    int found;
};

static int get_key(void *vctx, struct stint_json *j, const char *key, size_t klen)
{
    struct get_ctx *g = vctx;
    const char *dot = strchr(g->path, '.');
    size_t plen = dot ? (size_t)(dot - g->path) : strlen(g->path);
    if (g->found || klen != plen || memcmp(key, g->path, plen) != 0)
        return stint_json_skip(j) == STINT_JSON_OK ? 0 : -1;
    if (!dot) {
        g->found = 1;
        return read_value(j, g->v);
    }
    if (stint_json_ws(j) != '{')
        return stint_json_skip(j) == STINT_JSON_OK ? 0 : -1;
    struct get_ctx sub = {dot + 1, g->v, 0};
    int r = walk_object(j, get_key, &sub);
    g->found = sub.found;
    return r;
}

int stint_jl_get(const char *line, size_t len, const char *path, struct stint_jl_val *v)
{
    struct stint_json j;
    init_cursor(&j, line, len);
    memset(v, 0, sizeof *v);
    struct get_ctx g = {path, v, 0};
    if (walk_object(&j, get_key, &g) != 0)
        return -1;
    if (!g.found)
        memset(v, 0, sizeof *v);
    return 0;
}

struct leaf_ctx {
    char key[512];
    size_t klen;
    void (*fn)(void *ctx, const char *key, size_t klen, double value);
    void *ctx;
};

static int leaf_key(void *vctx, struct stint_json *j, const char *key, size_t klen)
{
    struct leaf_ctx *l = vctx;
    size_t save = l->klen;
    if (l->klen + klen + 2 < sizeof l->key) {
        if (l->klen)
            l->key[l->klen++] = '.';
        memcpy(l->key + l->klen, key, klen);
        l->klen += klen;
    }
    int c = stint_json_ws(j);
    int r = 0;
    if (c == '{')
        r = walk_object(j, leaf_key, l);
    else {
        struct stint_jl_val v;
        r = read_value(j, &v);
        double d;
        if (r == 0 && v.type == STINT_JL_NUMBER && stint_jl_double(&v, &d) == 0)
            l->fn(l->ctx, l->key, l->klen, d);
    }
    l->klen = save;
    return r;
}

int stint_jl_leaves(const char *line, size_t len, void (*fn)(void *ctx, const char *key, size_t klen, double value),
                    void *ctx)
{
    struct stint_json j;
    init_cursor(&j, line, len);
    struct leaf_ctx l;
    l.klen = 0;
    l.fn = fn;
    l.ctx = ctx;
    return walk_object(&j, leaf_key, &l);
}

int stint_jl_double(const struct stint_jl_val *v, double *out)
{
    if (v->type != STINT_JL_NUMBER && v->type != STINT_JL_STRING)
        return -1;
    char buf[64];
    size_t a = 0, b = v->len;
    while (a < b && (v->p[a] == ' ' || v->p[a] == '\t'))
        a++;
    while (b > a && (v->p[b - 1] == ' ' || v->p[b - 1] == '\t'))
        b--;
    if (b == a || b - a >= sizeof buf)
        return -1;
    memcpy(buf, v->p + a, b - a);
    buf[b - a] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (*end)
        return -1;
    *out = d;
    return 0;
}
