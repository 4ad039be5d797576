/* SPDX-License-Identifier: MIT */
/*
 * mini_json.h - a strict little JSON checker for the session tests: is a
 * text exactly one JSON value (RFC 8259 grammar, UTF-8 not re-validated)?
 * Plus lookups of a top-level key of an object and iteration over an array,
 * enough to read back what the session writers produce without python.
 */
#ifndef STINT_TEST_MINI_JSON_H
#define STINT_TEST_MINI_JSON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct mj {
    const char *p, *end;
    int depth;
} mj;

static inline void mj_ws(mj *m)
{
    while (m->p < m->end && (*m->p == ' ' || *m->p == '\t' || *m->p == '\n' || *m->p == '\r'))
        m->p++;
}

static inline int mj_value(mj *m);

static inline int mj_string(mj *m)
{
    if (m->p >= m->end || *m->p != '"')
        return 0;
    m->p++;
    while (m->p < m->end) {
        unsigned char c = (unsigned char)*m->p++;
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (m->p >= m->end)
                return 0;
            char e = *m->p++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++, m->p++)
                    if (m->p >= m->end || !strchr("0123456789abcdefABCDEF", *m->p))
                        return 0;
            } else if (!strchr("\"\\/bfnrt", e)) {
                return 0;
            }
        }
    }
    return 0;
}

static inline int mj_digits(mj *m)
{
    const char *s = m->p;
    while (m->p < m->end && *m->p >= '0' && *m->p <= '9')
        m->p++;
    return m->p > s;
}

static inline int mj_number(mj *m)
{
    if (m->p < m->end && *m->p == '-')
        m->p++;
    if (m->p < m->end && *m->p == '0')
        m->p++;
    else if (!mj_digits(m))
        return 0;
    if (m->p < m->end && *m->p == '.') {
        m->p++;
        if (!mj_digits(m))
            return 0;
    }
    if (m->p < m->end && (*m->p == 'e' || *m->p == 'E')) {
        m->p++;
        if (m->p < m->end && (*m->p == '+' || *m->p == '-'))
            m->p++;
        if (!mj_digits(m))
            return 0;
    }
    return 1;
}

static inline int mj_lit(mj *m, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(m->end - m->p) < n || memcmp(m->p, w, n) != 0)
        return 0;
    m->p += n;
    return 1;
}

static inline int mj_value(mj *m)
{
    mj_ws(m);
    if (m->p >= m->end || ++m->depth > 200)
        return 0;
    int ok;
    char c = *m->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        m->p++;
        mj_ws(m);
        if (m->p < m->end && *m->p == close) {
            m->p++;
            ok = 1;
        } else {
            ok = 0;
            for (;;) {
                mj_ws(m);
                if (c == '{') {
                    if (!mj_string(m))
                        break;
                    mj_ws(m);
                    if (m->p >= m->end || *m->p++ != ':')
                        break;
                }
                if (!mj_value(m))
                    break;
                mj_ws(m);
                if (m->p < m->end && *m->p == ',') {
                    m->p++;
                    continue;
                }
                if (m->p < m->end && *m->p == close) {
                    m->p++;
                    ok = 1;
                }
                break;
            }
        }
    } else if (c == '"') {
        ok = mj_string(m);
    } else if (c == 't') {
        ok = mj_lit(m, "true");
    } else if (c == 'f') {
        ok = mj_lit(m, "false");
    } else if (c == 'n') {
        ok = mj_lit(m, "null");
    } else {
        ok = mj_number(m);
    }
    m->depth--;
    return ok;
}

/* 1 when s[0..n) is exactly one JSON value (surrounding white space allowed). */
static inline int mj_valid(const char *s, size_t n)
{
    mj m = {s, s + n, 0};
    if (!mj_value(&m))
        return 0;
    mj_ws(&m);
    return m.p == m.end;
}

/* Finds top-level key k of the object in s[0..n); v and vn get the raw value
 * text. Returns 1 when found. The object must be valid. */
static inline int mj_find(const char *s, size_t n, const char *k, const char **v, size_t *vn)
{
    mj m = {s, s + n, 0};
    mj_ws(&m);
    if (m.p >= m.end || *m.p != '{')
        return 0;
    m.p++;
    size_t kl = strlen(k);
    for (;;) {
        mj_ws(&m);
        const char *ks = m.p;
        if (!mj_string(&m))
            return 0;
        int match = (size_t)(m.p - ks) == kl + 2 && memcmp(ks + 1, k, kl) == 0;
        mj_ws(&m);
        m.p++; /* ':' */
        mj_ws(&m);
        const char *vs = m.p;
        if (!mj_value(&m))
            return 0;
        if (match) {
            *v = vs;
            *vn = (size_t)(m.p - vs);
            return 1;
        }
        mj_ws(&m);
        if (m.p >= m.end || *m.p != ',')
            return 0;
        m.p++;
    }
}

/* The string value of key k (raw, escapes kept) into out; 1 when found. */
static inline int mj_str(const char *s, size_t n, const char *k, char *out, size_t cap)
{
    const char *v;
    size_t vn;
    if (!mj_find(s, n, k, &v, &vn) || vn < 2 || v[0] != '"')
        return 0;
    size_t len = vn - 2 < cap - 1 ? vn - 2 : cap - 1;
    memcpy(out, v + 1, len);
    out[len] = '\0';
    return 1;
}

/* The integer value of key k; 1 when found and an integer. */
static inline int mj_i64(const char *s, size_t n, const char *k, long long *out)
{
    const char *v;
    size_t vn;
    if (!mj_find(s, n, k, &v, &vn) || vn == 0 || vn > 30)
        return 0;
    char tmp[32];
    memcpy(tmp, v, vn);
    tmp[vn] = '\0';
    char *e;
    *out = strtoll(tmp, &e, 10);
    return *e == '\0';
}

/* Microseconds text with up to 3 decimals ("12.345") as integer ns, parsed
 * lexically; 1 when found. */
static inline int mj_us_ns(const char *s, size_t n, const char *k, long long *ns)
{
    const char *v;
    size_t vn;
    if (!mj_find(s, n, k, &v, &vn))
        return 0;
    long long ip = 0, frac = 0;
    int neg = 0, fd = 0;
    size_t i = 0;
    if (i < vn && v[i] == '-') {
        neg = 1;
        i++;
    }
    for (; i < vn && v[i] >= '0' && v[i] <= '9'; i++)
        ip = ip * 10 + (v[i] - '0');
    if (i < vn && v[i] == '.')
        for (i++; i < vn && v[i] >= '0' && v[i] <= '9'; i++)
            if (fd < 3) {
                frac = frac * 10 + (v[i] - '0');
                fd++;
            }
    while (fd < 3) {
        frac *= 10;
        fd++;
    }
    *ns = (ip * 1000 + frac) * (neg ? -1 : 1);
    return 1;
}

/* Iterates the elements of the array value at [v, v+vn): call with *it = v
 * first; returns 1 and the element span while there is one. */
static inline int mj_next(const char *v, size_t vn, const char **it, const char **el, size_t *eln)
{
    mj m = {*it, v + vn, 0};
    if (m.p == v) {
        mj_ws(&m);
        if (m.p >= m.end || *m.p != '[')
            return 0;
        m.p++;
    }
    mj_ws(&m);
    if (m.p < m.end && *m.p == ',')
        m.p++;
    mj_ws(&m);
    if (m.p >= m.end || *m.p == ']')
        return 0;
    const char *s = m.p;
    if (!mj_value(&m))
        return 0;
    *el = s;
    *eln = (size_t)(m.p - s);
    *it = m.p;
    return 1;
}

/* Reads a whole file into a malloc'd NUL-terminated buffer; NULL on error. */
static inline char *mj_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

#endif
