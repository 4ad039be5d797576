/* SPDX-License-Identifier: MIT */
/*
 * write_meta.c - the input's trace metadata for the writers (writers.h):
 * keys without their reader's prefix, lookups, integer values, and the
 * metadata carried over after a writer's own keys. Invariants: a key the
 * writer owns is written once (the input's differing value under
 * "source_<key>"), and clock anchors move by the writer's rebase so that
 * unix times computed from the output stay the same.
 */
#include "write/writers.h"

#include "write/textout.h"
#include "base/tsparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- trace metadata ------------------------------------------------------ */

const char *stint_meta_key(const struct stint_model *m, const struct stint_arg *a, size_t *len)
{
    static const char *const prefix[] = {"meta.", "json_metadata."};
    size_t kl;
    const char *k = stint_model_str(m, a->key, &kl);
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++) {
        size_t pl = strlen(prefix[i]);
        if (kl > pl && !memcmp(k, prefix[i], pl)) {
            k += pl;
            kl -= pl;
            break;
        }
    }
    *len = kl;
    return k;
}

static int key_eq(const char *k, size_t kl, const char *want)
{
    return kl == strlen(want) && !memcmp(k, want, kl);
}

const struct stint_arg *stint_meta_find(const struct stint_model *m, const char *key)
{
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        size_t kl;
        const char *k = stint_meta_key(m, a, &kl);
        if (key_eq(k, kl, key))
            return a;
    }
    return NULL;
}

int stint_meta_int(const struct stint_model *m, const struct stint_arg *a, int64_t *v)
{
    if (!a)
        return 0;
    if (a->kind == STINT_ARG_INT || (a->kind == STINT_ARG_UINT && a->ival >= 0)) {
        *v = a->ival;
        return 1;
    }
    if (a->kind != STINT_ARG_STRING)
        return 0;
    const char *s = stint_model_str(m, a->sval, NULL);
    const char *d = s + (s[0] == '-');
    if (*d < '0' || *d > '9')
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

int stint_meta_is_anchor(const char *key, size_t len)
{
    return key_eq(key, len, "clock_monotonic_ns") || key_eq(key, len, "clock_realtime_ns") ||
           key_eq(key, len, "origin_monotonic_ns") || key_eq(key, len, "origin_realtime_ns");
}

void stint_put_arg_json(FILE *f, const struct stint_model *m, const struct stint_arg *a)
{
    switch (a->kind) {
    case STINT_ARG_INT: stint_out_i64(f, a->ival); break;
    case STINT_ARG_UINT: stint_out_u64(f, (uint64_t)a->ival); break;
    case STINT_ARG_BOOL: fputs(a->ival ? "true" : "false", f); break;
    case STINT_ARG_REAL:
    case STINT_ARG_JSON: fputs(stint_model_str(m, a->sval, NULL), f); break;
    default: stint_out_json_model_str(f, m, a->sval); break;
    }
}

/* Whether a's value is the writer's own value of that key. */
static int own_same(const struct stint_model *m, const struct stint_arg *a, const struct stint_meta_own *o)
{
    int64_t v;
    if (o->sval)
        return a->kind == STINT_ARG_STRING && !strcmp(stint_model_str(m, a->sval, NULL), o->sval);
    return stint_meta_int(m, a, &v) && v == o->ival;
}

void stint_put_meta_rest(FILE *f, const struct stint_model *m, const struct stint_meta_rest *r)
{
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        size_t kl;
        const char *k = stint_meta_key(m, a, &kl);
        int skip = 0, rename = 0;
        for (size_t t = 0; t < r->ntaken && !skip; t++)
            skip = r->taken[t] == a;
        for (size_t o = 0; o < r->nown && !skip && !rename; o++)
            if (key_eq(k, kl, r->own[o].key)) {
                skip = own_same(m, a, &r->own[o]);
                rename = !skip;
            }
        if (skip)
            continue;
        fputs(",\"", f);
        if (rename)
            fputs("source_", f);
        stint_out_json_body(f, k, kl);
        fputs("\":", f);
        int64_t v;
        if (stint_meta_is_anchor(k, kl) && stint_meta_int(m, a, &v))
            fprintf(f, "%" PRId64, stint_sum_add(v, r->shift_ns));
        else
            stint_put_arg_json(f, m, a);
    }
}

