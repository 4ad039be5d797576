/* SPDX-License-Identifier: MIT */
/*
 * textout.c - JSON string escaping, CSV quoting and text escaping for the
 * writers. JSON strings are always valid UTF-8, whatever the bytes given:
 * marker logs carry names as raw bytes, so a byte that starts no valid
 * UTF-8 sequence becomes U+FFFD (as the library's own JSON writer does,
 * src/jsonbuf.c) and is counted; only '"', '\\' and control bytes are
 * escaped: the rule of read/json.c's stint_json_escape_to, which the
 * Chrome writer's args use too. The timing views' ASCII-only form
 * (json.dumps' ensure_ascii) has an escaper of its own. Text outputs go through the terminal
 * escaper (base/term.h); CSV quotes any cell holding a comma, a quote or a
 * control byte, and neutralises cells a spreadsheet would run as formulas.
 */
#include "write/textout.h"

#include "model/model.h"
#include "read/json.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/term.h"
#include "base/umap.h"
#include "base/xalloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static atomic_ullong bad_utf8;

unsigned long long stint_out_bad_utf8(void) { return atomic_load_explicit(&bad_utf8, memory_order_relaxed); }

void stint_out_bad_utf8_add(unsigned long long n) { atomic_fetch_add_explicit(&bad_utf8, n, memory_order_relaxed); }

/* The code point of the valid UTF-8 sequence p[0, l) as \uXXXX, or as a
 * surrogate pair above U+FFFF (ensure_ascii). */
static void put_cp_escape(FILE *f, const unsigned char *p, int l)
{
    unsigned cp = p[0] & (l == 2 ? 0x1fu : l == 3 ? 0x0fu : 0x07u);
    for (int k = 1; k < l; k++)
        cp = cp << 6 | (p[k] & 0x3fu);
    if (cp >= 0x10000) {
        cp -= 0x10000;
        fprintf(f, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else
        fprintf(f, "\\u%04x", cp);
}

/* A string body in json.dumps' ensure_ascii form (the timing views'):
 * printable ASCII as it is, a valid UTF-8 sequence as \uXXXX (a surrogate
 * pair above U+FFFF), '"' '\\' \b \f \n \r \t escaped, other control bytes
 * and DEL as \u00XX, a byte that starts no valid sequence as \ufffd
 * (counted). Runs of bytes that need no escape are written with one fwrite. */
static void json_body_ascii(FILE *f, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0, i = 0;
    while (i < len) {
        unsigned char c = u[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            i++;
            continue;
        }
        fwrite(s + run, 1, i - run, f);
        int l = c >= 0x80 ? stint_json_utf8_seq(u + i, u + len) : 0;
        if (l > 0) {
            put_cp_escape(f, u + i, l);
            i += (size_t)l;
            run = i;
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else {
                fputs("\\ufffd", f);
                atomic_fetch_add_explicit(&bad_utf8, 1, memory_order_relaxed);
            }
            break;
        }
        run = ++i;
    }
    fwrite(s + run, 1, len - run, f);
}

#define PIECE 1024 /* bytes of a string escaped at a time (6 times that of room on the stack) */

/* A string body in the UTF-8 form: the one rule of stint_json_escape_to
 * (read/json.h), applied to pieces of up to PIECE bytes, each cut where it
 * splits no UTF-8 sequence (so the pieces escape exactly as the whole
 * string would) and written with one fwrite. */
static void json_body(FILE *f, const char *s, size_t len)
{
    char buf[6 * PIECE];
    uint64_t bad = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (len) {
        size_t k = len;
        if (k > PIECE) {
            k = PIECE;
            /* u[k] continuing a sequence: cut before its lead byte, 1-3 bytes back; with no lead
             * there u[k] belongs to no valid sequence, and the cut stays */
            if ((u[k] & 0xC0) == 0x80)
                for (size_t j = k - 1; j + 3 >= PIECE; j--)
                    if ((u[j] & 0xC0) != 0x80) {
                        k = j;
                        break;
                    }
        }
        char *o = stint_json_escape_to(buf, (const char *)u, k, &bad);
        fwrite(buf, 1, (size_t)(o - buf), f);
        u += k;
        len -= k;
    }
    if (bad)
        atomic_fetch_add_explicit(&bad_utf8, bad, memory_order_relaxed);
}

void stint_out_json_body(FILE *f, const char *s, size_t len)
{
    json_body(f, s, len);
}

void stint_out_u64(FILE *f, uint64_t v)
{
    char b[24], *e = b + sizeof b, *p = e;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    fwrite(p, 1, (size_t)(e - p), f);
}

void stint_out_i64(FILE *f, int64_t v)
{
    if (v < 0) {
        putc('-', f);
        stint_out_u64(f, (uint64_t)0 - (uint64_t)v);
    } else
        stint_out_u64(f, (uint64_t)v);
}

void stint_out_json_str(FILE *f, const char *s, size_t len)
{
    putc('"', f);
    json_body(f, s, len);
    putc('"', f);
}

void stint_out_json_ascii(FILE *f, const char *s, size_t len)
{
    putc('"', f);
    json_body_ascii(f, s, len);
    putc('"', f);
}

void stint_out_json_model_str(FILE *f, const struct stint_model *m, uint32_t id)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    stint_out_json_str(f, s, n);
}

/* 1 when s is a plain decimal number (-12, 3.5, -1e-9): a spreadsheet reads
 * it as a number, never as a formula, so it is written as it is. */
static int csv_number(const char *s, size_t n)
{
    size_t i = 0, d = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        d++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            d++;
    if (d && i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            e++;
        if (!e)
            return 0;
    }
    return d && i == n;
}

/* One CSV field; neutral: a cell a spreadsheet would run as a formula gets a
 * leading apostrophe (stint_out_csv_str). */
static void csv_field(FILE *f, const char *s, size_t len, int neutral)
{
    int quote = 0, lead = 0;
    if (neutral && len && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
                           s[0] == '\r') && !csv_number(s, len))
        lead = quote = 1;
    for (size_t i = 0; i < len && !quote; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ',' || c == '"' || c < 0x20 || c == 0x7f)
            quote = 1;
    }
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    putc('"', f);
    if (lead)
        putc('\'', f);
    size_t run = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '"') {
            fwrite(s + run, 1, i + 1 - run, f);
            run = i; /* (the quote is written twice) */
        }
    fwrite(s + run, 1, len - run, f);
    putc('"', f);
}

void stint_out_csv_str(FILE *f, const char *s, size_t len) { csv_field(f, s, len, 1); }

void stint_out_csv_raw(FILE *f, const char *s, size_t len) { csv_field(f, s, len, 0); }

void stint_out_text_str(FILE *f, const char *s, size_t len) { stint_term_fputs(f, s, len); }

size_t stint_out_text_esc(char *buf, size_t cap, const char *s, size_t len)
{
    return stint_term_escape(buf, cap, s, len);
}

size_t stint_out_text_len(const char *s, size_t len) { return stint_term_escape(NULL, 0, s, len); }

size_t stint_out_text_width(const char *s, size_t len) { return stint_term_width(s, len); }

/* The printed text of name i of a column (escaped, cut to cols unless it
 * fits) into buf (cap bytes); its length. */
static size_t cell_text(char *buf, size_t cap, const char *s, size_t n, size_t cols)
{
    return stint_term_fit(buf, cap, s, n, cols, NULL);
}

/* Hashes of the cut texts (at width w, or whole) of rows idx[0..k): 1 when two
 * rows with different names print alike. */
static int group_clashes(const size_t *idx, size_t k, size_t w, stint_out_name_fn get, void *ctx, char *buf,
                         size_t cap, const uint64_t *name_h)
{
    struct stint_umap seen = {0};
    int isnew, clash = 0;
    for (size_t j = 0; j < k && !clash; j++) {
        size_t len;
        const char *s = get(ctx, idx[j], &len);
        size_t tl = cell_text(buf, cap, s, len, w);
        uint32_t at = stint_umap_get(&seen, stint_hash_bytes(buf, tl), (uint32_t)j, &isnew);
        clash = !isnew && name_h[idx[at]] != name_h[idx[j]];
    }
    stint_umap_free(&seen);
    return clash;
}

/* Row indexes by their text's hash (ctx: the hashes), then by index. */
static int by_text_hash(const void *pa, const void *pb, void *ctx)
{
    const uint64_t *h = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (h[a] != h[b])
        return h[a] < h[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

size_t *stint_out_cut_plan(size_t n, size_t cols, stint_out_name_fn get, void *ctx)
{
    size_t *wid = NULL;
    if (cols == 0 || n < 2)
        return NULL;
    size_t cap = cols * 4 + 16; /* (a cut text: cols columns, at most 4 bytes each, and the ellipsis) */
    char *buf = stint_xmalloc(cap);
    struct stint_umap first = {0}, clash = {0};
    uint64_t *name_h = stint_xreallocarray(NULL, n, sizeof *name_h);
    uint64_t *text_h = stint_xreallocarray(NULL, n, sizeof *text_h);
    int isnew;
    /* pass 1: the first row of each printed text; a text that two different names print clashes */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *s = get(ctx, i, &len);
        name_h[i] = stint_hash_bytes(s, len);
        text_h[i] = stint_hash_bytes(buf, cell_text(buf, cap, s, len, cols));
        uint32_t at = stint_umap_get(&first, text_h[i], (uint32_t)i, &isnew);
        if (!isnew && name_h[at] != name_h[i]) /* (equal hashes of different names: widened, never merged) */
            stint_umap_get(&clash, text_h[i], 1, &isnew);
    }
    /* pass 2: the rows of each clashing text widen together, doubling, until their cuts differ (a
     * cut at a wider width never equals another text's: its head and tail extend the narrower
     * cut's); at their full width they are whole, and different names differ */
    size_t *idx = NULL, nidx = 0, icap = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_umap_find(&clash, text_h[i]) != STINT_UMAP_NONE) {
            idx = stint_xgrow(idx, &icap, nidx + 1, sizeof *idx, 16);
            idx[nidx++] = i;
        }
    if (nidx > 1)
        stint_xqsort_r(idx, nidx, sizeof *idx, by_text_hash, text_h);
    for (size_t g = 0, e; g < nidx; g = e) { /* one run of rows printing one text */
        size_t maxw = 0;
        for (e = g; e < nidx && text_h[idx[e]] == text_h[idx[g]]; e++) {
            size_t len;
            const char *s = get(ctx, idx[e], &len);
            size_t w = stint_term_width(s, len);
            maxw = w > maxw ? w : maxw;
        }
        size_t w = cols;
        do {
            w = w * 2 < maxw ? w * 2 : maxw;
            if (w * 4 + 16 > cap) {
                cap = w * 4 + 16;
                buf = stint_xreallocarray(buf, cap, 1);
            }
        } while (w < maxw && group_clashes(idx + g, e - g, w, get, ctx, buf, cap, name_h));
        if (!wid)
            wid = stint_xcalloc(n, sizeof *wid);
        for (size_t j = g; j < e; j++)
            wid[idx[j]] = w >= maxw ? SIZE_MAX : w;
    }
    free(idx);
    free(name_h);
    free(text_h);
    free(buf);
    stint_umap_free(&first);
    stint_umap_free(&clash);
    return wid;
}

void stint_out_col_init(struct stint_out_col *c, size_t rows, size_t cols, int wide)
{
    memset(c, 0, sizeof *c);
    c->n = rows;
    c->cols = cols;
    c->wide = wide;
    c->s = stint_xcalloc(rows ? rows : 1, sizeof *c->s);
    c->len = stint_xcalloc(rows ? rows : 1, sizeof *c->len);
}

void stint_out_col_set(struct stint_out_col *c, size_t i, const char *s, size_t len, const char *suffix)
{
    if (i >= c->n)
        return;
    if (suffix && *suffix) {
        size_t sl = strlen(suffix);
        char *t = stint_xmalloc(len + sl + 1);
        memcpy(t, s, len);
        memcpy(t + len, suffix, sl + 1);
        if (!c->own)
            c->own = stint_xcalloc(c->n, sizeof *c->own);
        free(c->own[i]);
        c->own[i] = t;
        s = t;
        len += sl;
    }
    c->s[i] = s;
    c->len[i] = len;
}

static const char *col_get(void *ctx, size_t i, size_t *len)
{
    const struct stint_out_col *c = ctx;
    *len = c->len[i];
    return c->s[i] ? c->s[i] : "";
}

size_t stint_out_col_plan(struct stint_out_col *c, int fit)
{
    if (fit || c->wide) {
        size_t w = 0;
        for (size_t i = 0; i < c->n; i++) {
            size_t x = c->s[i] ? stint_term_width(c->s[i], c->len[i]) : 0;
            w = x > w ? x : w;
        }
        if (c->wide || w < c->cols)
            c->cols = w;
    }
    free(c->wid);
    c->wid = c->wide ? NULL : stint_out_cut_plan(c->n, c->cols, col_get, c);
    return c->cols;
}

size_t stint_out_col_width(const struct stint_out_col *c, size_t i)
{
    if (c->wide)
        return SIZE_MAX;
    return c->wid && i < c->n && c->wid[i] ? c->wid[i] : c->cols;
}

void stint_out_col_put(FILE *f, const struct stint_out_col *c, size_t i, unsigned flags)
{
    size_t len = 0;
    const char *s = i < c->n ? col_get((void *)c, i, &len) : "";
    size_t w = stint_out_col_width(c, i);
    flags |= STINT_TERM_PAD;
    if (w == SIZE_MAX)
        flags |= STINT_TERM_WHOLE;
    stint_term_cell(f, s, len, w == SIZE_MAX || w < c->cols ? c->cols : w, flags);
}

void stint_out_col_free(struct stint_out_col *c)
{
    if (c->own)
        for (size_t i = 0; i < c->n; i++)
            free(c->own[i]);
    free(c->own);
    free(c->s);
    free(c->len);
    free(c->wid);
    memset(c, 0, sizeof *c);
}
