/* SPDX-License-Identifier: MIT */
/*
 * json.c - the strict JSON tokenizer (see json.h for the contract).
 *
 * Strings are scanned eight bytes at a time (SWAR) until a quote, a
 * backslash, a control byte or a non-ASCII byte; non-ASCII sequences are
 * validated as UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
 * Nothing allocates: skip() keeps its container stack as a bit stack.
 * Every function either consumes a complete token or leaves j->p unchanged.
 * skip() first tries a fast walk (json_skip.c) that accepts a strict subset
 * of valid values and otherwise starts over in the general skip here, so
 * errors and repair counts have one source.
 */
#include "read/json.h"
#include "read/json_int.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define ERR(j, at, msg) ((j)->err = (msg), (j)->err_at = (at), STINT_JSON_ERR)

static int read_u4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = stint_json_hexval((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return 0;
}

int stint_json_string(struct stint_json *j, const char **s, size_t *len, int *escaped)
{
    const char *start = j->p;
    const char *p = start + 1;
    const char *end = j->end;
    int esc = 0;
    /* counted here and added on success only, so a string retried after
     * MORE is not counted twice */
    uint64_t ctl = 0, lone = 0;
    for (;;) {
        while (p + 8 <= end) {
            uint64_t sp = special_bytes(load64(p));
            if (sp) {
                /* the lowest flagged byte is exact (borrows only run upward) */
                p += __builtin_ctzll(sp) >> 3;
                break;
            }
            p += 8;
        }
        if (p >= end)
            goto more;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            esc = 1;
            if (p + 1 >= end)
                goto more;
            char e = p[1];
            if (e == 'u') {
                if (p + 6 > end)
                    goto more;
                unsigned u;
                if (read_u4(p + 2, &u) != 0)
                    return ERR(j, p, "invalid \\u escape in string (expected 4 hex digits)");
                p += 6;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    /* a high surrogate wants a low one; a lone one is accepted (decoded as U+FFFD) */
                    if (p + 6 > end && !j->at_eof)
                        goto more;
                    unsigned lo;
                    if (p + 6 <= end && p[0] == '\\' && p[1] == 'u' && read_u4(p + 2, &lo) == 0 && lo >= 0xDC00 &&
                        lo <= 0xDFFF)
                        p += 6;
                    else
                        lone++;
                } else if (u >= 0xDC00 && u <= 0xDFFF)
                    lone++;
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                p += 2;
                continue;
            }
            return ERR(j, p, "invalid escape in string (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
        if (c < 0x20) {
            if (!(j->flags & STINT_JSON_CONTROL_CHARS))
                return ERR(j, p, "control character in string (must be escaped)");
            if (p >= end)
                goto more;
            ctl++;
            p++;
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        int n = stint_json_utf8_seq((const unsigned char *)p, (const unsigned char *)end);
        if (n == 0)
            goto more;
        if (n < 0)
            return ERR(j, p, "invalid UTF-8 in string");
        p += n;
    }
    *s = start + 1;
    *len = (size_t)(p - start - 1);
    if (escaped)
        *escaped = esc;
    j->control_chars += ctl;
    j->lone_surrogates += lone;
    if (ctl && !j->cc_at)
        j->cc_at = start;
    if (lone && !j->ls_at)
        j->ls_at = start;
    j->p = p + 1;
    return STINT_JSON_OK;
more:
    if (j->at_eof)
        return ERR(j, start, "unterminated string (input ends inside it)");
    return STINT_JSON_MORE;
}

static int is_delim(int c)
{
    return c == 0 || c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ':';
}

/* Skips the digits at *p, one at least wanted: NULL with *p past them;
 * when there are none, "" if the window ends there (more input decides),
 * else msg. */
static const char *digit_run(const char **p, const char *end, const char *msg)
{
    const char *q = *p, *d = q;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    *p = q;
    return q != d ? NULL : q >= end ? "" : msg;
}

int stint_json_number(struct stint_json *j, const char **s, size_t *len)
{
    const char *p = j->p, *end = j->end;
    const char *start = p;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        goto more;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    } else
        return ERR(j, p, "invalid number (expected a digit)");
    const char *why = NULL; /* a fraction or exponent without digits */
    if (p < end && *p == '.') {
        p++;
        why = digit_run(&p, end, "invalid number (expected a digit after '.')");
    }
    if (!why && p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        why = digit_run(&p, end, "invalid number (expected exponent digits)");
    }
    if (why && !*why)
        goto more;
    if (why)
        return ERR(j, p, why);
    if (p >= end && !j->at_eof)
        goto more;
    if (p < end && !is_delim((unsigned char)*p))
        return ERR(j, p, "invalid number (unexpected character after it)");
    *s = start;
    *len = (size_t)(p - start);
    j->p = p;
    return STINT_JSON_OK;
more:
    if (j->at_eof)
        return ERR(j, start, "input ends inside a number");
    return STINT_JSON_MORE;
}

static int literal(struct stint_json *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n) {
        if (memcmp(j->p, word, (size_t)(j->end - j->p)) == 0)
            return j->at_eof ? ERR(j, j->p, "input ends inside a literal") : STINT_JSON_MORE;
        return ERR(j, j->p, "invalid literal (expected true, false or null)");
    }
    if (memcmp(j->p, word, n) != 0)
        return ERR(j, j->p, "invalid value (expected a string, number, object, array, true, false or null)");
    if (j->p + n < j->end && !is_delim((unsigned char)j->p[n]))
        return ERR(j, j->p + n, "invalid literal (unexpected character after it)");
    j->p += n;
    return STINT_JSON_OK;
}

static int skip_general(struct stint_json *j)
{
    const char *save = j->p;
    uint64_t *stack = NULL; /* 1 bit per level: 1 = object */
    uint64_t small[16];
    size_t depth = 0, cap_bits = sizeof small * 8;
    stack = small;
    int rc = STINT_JSON_OK;
    /* expect: 0 value, 1 key-or-close (just after '{'), 2 comma-or-close, 3 key (after ',') in object,
     * 4 value-or-close (just after '['), 5 value after ',' in array */
    int state = 0;
    for (;;) {
        int c = stint_json_ws(j);
        if (c == 0 && j->p >= j->end) {
            rc = j->at_eof ? ERR(j, j->p, "input ends inside a value") : STINT_JSON_MORE;
            break;
        }
        int in_obj = depth ? (int)((stack[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1) : 0;
        if (state == 1 || state == 3) { /* object: key or '}' */
            if (c == '}' && (state == 1 || (j->flags & STINT_JSON_TRAILING_COMMA))) {
                if (state == 3)
                    stint_json_trailing_comma(j);
                j->p++;
                depth--;
                state = 2;
                goto closed;
            }
            if (c != '"') {
                rc = ERR(j, j->p, "expected a string key in object");
                break;
            }
            const char *s;
            size_t n;
            if ((rc = stint_json_string(j, &s, &n, NULL)) != STINT_JSON_OK)
                break;
            c = stint_json_ws(j);
            if (c != ':') {
                rc = (c == 0 && !j->at_eof) ? STINT_JSON_MORE : ERR(j, j->p, "expected ':' after object key");
                break;
            }
            j->p++;
            state = 0;
            continue;
        }
        if (state == 2) {
            if (c == ',') {
                j->p++;
                state = in_obj ? 3 : 5;
                continue;
            }
            if (c == (in_obj ? '}' : ']')) {
                j->p++;
                depth--;
                goto closed;
            }
            rc = ERR(j, j->p, in_obj ? "expected ',' or '}' in object" : "expected ',' or ']' in array");
            break;
        }
        if ((state == 4 || state == 5) && c == ']') {
            if (state == 5) {
                if (!(j->flags & STINT_JSON_TRAILING_COMMA)) {
                    rc = ERR(j, j->p, "trailing comma before ']'");
                    break;
                }
                stint_json_trailing_comma(j);
            }
            j->p++;
            depth--;
            goto closed;
        }
        /* a value */
        if (c == '{' || c == '[') {
            if (depth >= STINT_JSON_MAX_DEPTH) {
                rc = ERR(j, j->p, "nesting too deep");
                break;
            }
            if (depth + 1 > cap_bits) {
                size_t nb = cap_bits * 2;
                uint64_t *ns = stint_xcalloc(nb / 64, sizeof *ns);
                memcpy(ns, stack, cap_bits / 8);
                if (stack != small)
                    free(stack);
                stack = ns;
                cap_bits = nb;
            }
            uint64_t bit = 1ULL << (depth % 64);
            if (c == '{')
                stack[depth / 64] |= bit;
            else
                stack[depth / 64] &= ~bit;
            depth++;
            j->p++;
            state = c == '{' ? 1 : 4;
            continue;
        }
        if (c == '"') {
            const char *s;
            size_t n;
            rc = stint_json_string(j, &s, &n, NULL);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const char *s;
            size_t n;
            rc = stint_json_number(j, &s, &n);
        } else if (c == 't')
            rc = literal(j, "true", 4);
        else if (c == 'f')
            rc = literal(j, "false", 5);
        else if (c == 'n')
            rc = literal(j, "null", 4);
        else if (state == 1 || state == 3 || c == '}' || c == ']' || c == ',')
            rc = ERR(j, j->p, "expected a value");
        else
            rc = ERR(j, j->p, "invalid value (expected a string, number, object, array, true, false or null)");
        if (rc != STINT_JSON_OK)
            break;
        state = 2;
    closed:
        if (depth == 0)
            break;
        state = 2;
    }
    if (stack != small)
        free(stack);
    if (rc == STINT_JSON_MORE)
        j->p = save;
    return rc;
}

int stint_i_json_skip_general(struct stint_json *j)
{
    return skip_general(j);
}


static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t stint_json_unescape(const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] != '\\') {
            out[o++] = s[i++];
            continue;
        }
        char e = s[i + 1];
        if (e != 'u') {
            char r = e;
            switch (e) {
            case 'b': r = '\b'; break;
            case 'f': r = '\f'; break;
            case 'n': r = '\n'; break;
            case 'r': r = '\r'; break;
            case 't': r = '\t'; break;
            default: break;
            }
            out[o++] = r;
            i += 2;
            continue;
        }
        unsigned u = 0, lo = 0;
        if (i + 6 > len || read_u4(s + i + 2, &u) != 0) { /* validated input never gets here */
            out[o++] = '?';
            i += 2;
            continue;
        }
        i += 6;
        if (u >= 0xD800 && u <= 0xDBFF && i + 6 <= len && s[i] == '\\' && s[i + 1] == 'u' &&
            read_u4(s + i + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        } else if (u >= 0xD800 && u <= 0xDFFF)
            u = 0xFFFD;
        /* \u escapes always decode to at most 6 input bytes' worth of output */
        o += put_utf8(out + o, u);
    }
    return o;
}

int stint_json_validate(const char *buf, size_t len, unsigned flags, size_t *err_off, const char **err_msg)
{
    char *copy = malloc(len + STINT_JSON_PAD);
    if (!copy) {
        if (err_off)
            *err_off = 0;
        if (err_msg)
            *err_msg = "out of memory";
        return -1;
    }
    memcpy(copy, buf, len);
    memset(copy + len, 0, STINT_JSON_PAD);
    struct stint_json j = {.p = copy, .end = copy + len, .flags = flags, .at_eof = 1};
    int rc;
    if (stint_json_ws(&j) == 0 && j.p >= j.end)
        rc = ERR(&j, j.p, "empty input (expected a JSON value)");
    else {
        rc = stint_json_skip(&j);
        if (rc == STINT_JSON_OK && (stint_json_ws(&j) != 0 || j.p < j.end))
            rc = ERR(&j, j.p, "unexpected data after the JSON value");
    }
    if (rc != STINT_JSON_OK) {
        if (err_off)
            *err_off = (size_t)(j.err_at - copy);
        if (err_msg)
            *err_msg = j.err ? j.err : "invalid JSON";
    }
    free(copy);
    return rc == STINT_JSON_OK ? 0 : -1;
}

/* The length of the run of plain bytes at u (printable ASCII but '"' and
 * '\\': written as they are), of at most e - u. */
static inline size_t plain_run(const unsigned char *u, const unsigned char *e)
{
    const unsigned char *p = u;
#ifdef __SSE2__
    /* signed bytes below 0x20 include every byte >= 0x80 */
    for (; e - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                 _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask)
            return (size_t)(p - u) + (size_t)__builtin_ctz(mask);
    }
#endif
    while (p < e && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
        p++;
    return (size_t)(p - u);
}

char *stint_json_escape_to(char *o, const char *s, size_t n, uint64_t *bad)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s, *e = u + n;
    while (u < e) {
        size_t k = plain_run(u, e);
        memcpy(o, u, k);
        o += k;
        u += k;
        if (u == e)
            break;
        unsigned char c = *u;
        int l = c >= 0x80 ? stint_json_utf8_seq(u, e) : 0;
        if (l > 0) {
            memcpy(o, u, (size_t)l);
            o += l;
            u += l;
            continue;
        }
        u++;
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            if (c < 0x20) {
                memcpy(o, "u00", 3);
                o[3] = hex[c >> 4];
                o[4] = hex[c & 15];
                o += 5;
            } else { /* (the '\\' taken back) */
                memcpy(o - 1, "\xEF\xBF\xBD", 3);
                o += 2;
                (*bad)++;
            }
            break;
        }
    }
    return o;
}
