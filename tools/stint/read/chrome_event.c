/* SPDX-License-Identifier: MIT */
/*
 * chrome_event.c - one Chrome event object parsed into a struct event: the
 * reader's hot path, and the run of events that the container hands it.
 *
 * Nothing is allocated per event: fields are kept as spans into the window
 * until the event is complete. The parser has fast paths for the shapes
 * real traces use: a key is matched as one word against the bytes seen at
 * the same position in the previous events (struct kpred), plain strings
 * and numbers are read inline (numbers converted exactly while scanned,
 * never through a double), pid and tid through a memo of the last ones.
 * Each fast path only takes input it can read exactly as the general
 * tokenizer would and leaves anything else (escapes, non-ASCII, control
 * bytes, other number shapes, the window's end) to it, so results, errors,
 * repairs and MORE are the same. They rely on the window's end being
 * followed by a 0 byte (input.h), which no fast path accepts. An event that
 * runs past the window returns MORE with the cursor back at its '{'.
 */
#include "read/chrome_int.h"

#include "base/tsparse.h"

#include <stddef.h>
#include <string.h>

/* Skips the value at j->p (an args object) when the inflate thread already
 * did: 1, else 0. Args come in ascending order within a window. */
static inline int hinted_skip(struct ehints *h, struct stint_json *j)
{
    if (j->p < h->hblk)
        return 0;
    uint64_t at = (uint64_t)(j->p - h->hblk);
    while (h->hcur < h->hn && h->hoff[h->hcur] < at)
        h->hcur++;
    if (h->hcur == h->hn || h->hoff[h->hcur] != at)
        return 0;
    j->p += h->hlen[h->hcur++];
    h->hused++;
    return 1;
}

/* id2: {"global": x} or {"local": x} or {"": x}; with both, global is the
 * id (Perfetto reads local only when there is no other) */
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
        int kesc;
        char kb[KEY_BUF + 8];
        if ((rc = stint_json_string(j, &k, &kn, &kesc)) != STINT_JSON_OK)
            goto out;
        kn = key_text(&k, kn, kesc, kb);
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
        int global = !key_is(k, kn, "local");
        if (global || !(e->id2.set && e->id2_global)) { /* global wins over local (Perfetto) */
            e->id2 = v;
            e->id2_global = global;
        }
    }
out:
    if (rc == STINT_JSON_MORE)
        j->p = save;
    return rc;
}



/* The event keys the reader keeps; every other key's value is skipped. */
enum ekey {
    K_OTHER,
    K_PH,
    K_TS,
    K_ID,
    K_BP,
    K_S,
    K_DUR,
    K_PID,
    K_TID,
    K_CAT,
    K_TTS,
    K_ID2,
    K_NAME,
    K_TDUR,
    K_ARGS,
    K_BIND_ID,
    K_FLOW_IN,
    K_FLOW_OUT
};

/* A key of up to 8 bytes as one word, first byte lowest (load_le64 order). */
#define KW(a, b, c, d, e, f, g, h)                                                                    \
    ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | (uint64_t)(e) << 32 | \
     (uint64_t)(f) << 40 | (uint64_t)(g) << 48 | (uint64_t)(h) << 56)
/* A perfect hash of the 17 key words into 32 slots (the multiplier was found
 * by search; two keys in one slot would be a duplicate initializer below,
 * which -Woverride-init reports, and the unit test checks every key). */
#define KSLOT(w) ((size_t)(((uint64_t)(w) * 0xabd0d7fb12926185ULL) >> 59))
#define KENT(code, len, a, b, c, d, e, f, g, h)                                                       \
    [KSLOT(KW(a, b, c, d, e, f, g, h))] = {KW(a, b, c, d, e, f, g, h), len, code}

static const struct kent {
    uint64_t w; /* the key's bytes, zero-padded */
    uint32_t len;
    uint32_t code; /* enum ekey */
} ktab[32] = {
    KENT(K_S, 1, 's', 0, 0, 0, 0, 0, 0, 0),
    KENT(K_PH, 2, 'p', 'h', 0, 0, 0, 0, 0, 0),
    KENT(K_TS, 2, 't', 's', 0, 0, 0, 0, 0, 0),
    KENT(K_ID, 2, 'i', 'd', 0, 0, 0, 0, 0, 0),
    KENT(K_BP, 2, 'b', 'p', 0, 0, 0, 0, 0, 0),
    KENT(K_DUR, 3, 'd', 'u', 'r', 0, 0, 0, 0, 0),
    KENT(K_PID, 3, 'p', 'i', 'd', 0, 0, 0, 0, 0),
    KENT(K_TID, 3, 't', 'i', 'd', 0, 0, 0, 0, 0),
    KENT(K_CAT, 3, 'c', 'a', 't', 0, 0, 0, 0, 0),
    KENT(K_TTS, 3, 't', 't', 's', 0, 0, 0, 0, 0),
    KENT(K_ID2, 3, 'i', 'd', '2', 0, 0, 0, 0, 0),
    KENT(K_NAME, 4, 'n', 'a', 'm', 'e', 0, 0, 0, 0),
    KENT(K_TDUR, 4, 't', 'd', 'u', 'r', 0, 0, 0, 0),
    KENT(K_ARGS, 4, 'a', 'r', 'g', 's', 0, 0, 0, 0),
    KENT(K_BIND_ID, 7, 'b', 'i', 'n', 'd', '_', 'i', 'd', 0),
    KENT(K_FLOW_IN, 7, 'f', 'l', 'o', 'w', '_', 'i', 'n', 0),
    KENT(K_FLOW_OUT, 8, 'f', 'l', 'o', 'w', '_', 'o', 'u', 't'),
};

/* Which field the key word w (a key's first kn <= 8 bytes, zero-padded) names. */
static inline enum ekey key_lookup(uint64_t w, size_t kn)
{
    const struct kent *t = &ktab[KSLOT(w)];
    return t->w == w && t->len == kn ? (enum ekey)t->code : K_OTHER;
}

/* Which field a raw key (as written, escapes not decoded, as the byte
 * comparison it replaces did) names. k must be followed by 8 readable bytes
 * (the window's padding covers a key at its end). */
static inline enum ekey key_code(const char *k, size_t kn)
{
    if (kn > 8)
        return K_OTHER;
    return key_lookup(kn ? stint_i_load_le64(k) & (~0ULL >> (64 - 8 * kn)) : 0, kn);
}

/* The closing quote of a string at p == '"' whose body is plain printable
 * ASCII (no escape, no control byte, nothing >= 0x80) and ends inside the
 * window; NULL for any other string, which the general tokenizer then reads
 * (validating UTF-8, counting control bytes, reporting MORE or errors).
 * Reads whole 16-byte blocks, never starting one at or past end: the
 * window's padding covers the rest. */
static inline const char *plain_string_end(const char *p, const char *end)
{
    const char *q = p + 1;
#ifdef __SSE2__
    /* signed bytes below 0x20 include every byte >= 0x80 */
    for (;; q += 16) {
        if (q >= end)
            return NULL;
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                   _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) {
            q += __builtin_ctz(mask);
            break;
        }
    }
#else
    while (q < end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' && *q != '\\')
        q++;
#endif
    return q < end && *q == '"' ? q : NULL;
}

/* A byte that may end a number inside an event object. */
static inline int ends_number(int c)
{
    return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* stint_json_ws for the main window (whose end is followed by a 0, which
 * ends any run of blanks): 16 bytes per step, for the indented layouts. */
static inline int ws_run(struct stint_json *j)
{
#ifdef __SSE2__
    const char *p = j->p;
    while (p < j->end) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
        unsigned other = ~(unsigned)_mm_movemask_epi8(b) & 0xFFFFu;
        if (other) {
            p += __builtin_ctz(other);
            break;
        }
        p += 16;
    }
    j->p = p < j->end ? p : j->end;
    return (unsigned char)*j->p; /* the 0 at end when the window ends in blanks */
#else
    return stint_json_ws(j);
#endif
}

/* Skips blanks between tokens: none or one inline, else ws_run. */
static inline int ws_fast(struct stint_json *j)
{
    int c = (unsigned char)*j->p;
    if (c > ' ')
        return c;
    if (stint_json_is_blank(c) && (unsigned char)j->p[1] > ' ')
        return (unsigned char)*++j->p;
    return ws_run(j);
}

/* A plain string value at j->p ('"' checked by the caller) into sp, or 0. */
static inline int fast_string(struct stint_json *j, struct span *sp)
{
    const char *q = plain_string_end(j->p, j->end);
    if (!q)
        return 0;
    /* field by field: the event was cleared, and a compound literal would
     * be built on the stack and copied */
    sp->s = j->p + 1;
    sp->n = (uint32_t)(q - j->p - 1);
    sp->str = 1;
    sp->esc = 0;
    sp->set = 1;
    sp->num = SPAN_NUM_NONE;
    j->p = q + 1;
    return 1;
}

/* Sets sp to the number text [j->p, q) of value v (a SPAN_NUM_* kind) and moves on. */
static inline void set_number(struct stint_json *j, struct span *sp, const char *q, uint8_t num, int64_t v)
{
    sp->s = j->p;
    sp->n = (uint32_t)(q - j->p);
    sp->str = 0;
    sp->esc = 0;
    sp->set = 1;
    sp->num = num;
    sp->v = v;
    j->p = q;
}

/* A plain number of microseconds (see stint_scan_num) into sp with its ns, or 0. */
static inline __attribute__((always_inline)) int fast_time(struct stint_json *j, struct span *sp)
{
    int64_t v;
    const char *q = stint_scan_num(j->p, 1000, &v);
    if (!q || !ends_number((unsigned char)*q))
        return 0; /* (the window's 0 at end is no number end: MORE comes from the general path) */
    set_number(j, sp, q, SPAN_NUM_US_NS, v);
    return 1;
}

/* A plain integer into sp with its value, or 0; through the memo mm. A memo
 * match needs all the remembered bytes, number and the (non-0) byte after
 * it, so they lie inside the window. */
static inline __attribute__((always_inline)) int fast_int(struct stint_json *j, struct span *sp, struct nmemo *mm)
{
    uint64_t raw = stint_i_load_le64(j->p);
    if (raw == mm->raw) {
        set_number(j, sp, j->p + mm->len, SPAN_NUM_INT, mm->v);
        return 1;
    }
    int64_t v;
    const char *q = stint_scan_num(j->p, 1, &v);
    if (!q || !ends_number((unsigned char)*q))
        return 0;
    if (q - j->p < 8) {
        mm->raw = raw;
        mm->v = v;
        mm->len = (uint32_t)(q - j->p);
    }
    set_number(j, sp, q, SPAN_NUM_INT, v);
    return 1;
}

/* Zeroes an event. Explicit 16-byte stores: for a struct this size the
 * compiler's memset is a rep stos, dearer per event. */
static inline void event_clear(struct event *e)
{
#ifdef __SSE2__
    char *p = (char *)e;
    __m128i z = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 64 <= sizeof *e; i += 64) {
        _mm_storeu_si128((__m128i *)(void *)(p + i), z);
        _mm_storeu_si128((__m128i *)(void *)(p + i + 16), z);
        _mm_storeu_si128((__m128i *)(void *)(p + i + 32), z);
        _mm_storeu_si128((__m128i *)(void *)(p + i + 48), z);
    }
    for (; i + 16 <= sizeof *e; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(p + i), z);
    if (i < sizeof *e)
        memset(p + i, 0, sizeof *e - i);
#else
    memset(e, 0, sizeof *e);
#endif
}

/* The args object at j->p: skipped (through the inflate thread's hints,
 * the known shapes, or the general skip), its text kept in e. */
static inline __attribute__((always_inline)) int read_args(struct stint_json *j, struct event *e, struct ehints *h)
{
    int rc = STINT_JSON_OK;
    stint_json_ws(j);
    const char *a = j->p;
    if (!(h->hn && hinted_skip(h, j))) {
        const char *ae;
        if (*a != '{')
            rc = stint_json_skip(j);
        else if ((ae = stint_i_jshape_skip(h->shapes, a, j->end)) != NULL)
            j->p = ae;
        else /* the fast skip behind the shapes gave up: the general one decides */
            rc = stint_i_json_skip_general(j);
        if (rc != STINT_JSON_OK)
            return rc;
    }
    if (*a == '{') {
        e->args_a = a;
        e->args_b = j->p;
    }
    return STINT_JSON_OK;
}

/* Where in struct event each key's span goes. */
static const unsigned short span_at[K_FLOW_OUT + 1] = {
    [K_PH] = offsetof(struct event, ph),     [K_PID] = offsetof(struct event, pid),
    [K_TID] = offsetof(struct event, tid),   [K_NAME] = offsetof(struct event, name),
    [K_CAT] = offsetof(struct event, cat),   [K_TS] = offsetof(struct event, ts),
    [K_DUR] = offsetof(struct event, dur),   [K_TTS] = offsetof(struct event, tts),
    [K_TDUR] = offsetof(struct event, tdur), [K_ID] = offsetof(struct event, id),
    [K_S] = offsetof(struct event, s),       [K_BP] = offsetof(struct event, bp),
    [K_BIND_ID] = offsetof(struct event, bind_id)};

/* The span of e that field key (one with a span_at entry) fills. */
static inline struct span *span_of(struct event *e, enum ekey key)
{
    return (struct span *)(void *)((char *)e + span_at[key]);
}

/* The value of field key at j->p (c: its first byte) into e, through the
 * fast paths where they apply; other keys' values are skipped. Every case
 * that does not return reads a span field through read_value. */
static inline __attribute__((always_inline)) int read_field(struct stint_json *j, struct event *e, struct ehints *h,
                                                            enum ekey key, int c)
{
    switch (key) {
    case K_PH: {
        const char *v = j->p;
        /* one printable ASCII letter, the common phase */
        if (c == '"' && (unsigned char)v[1] >= 0x20 && (unsigned char)v[1] < 0x80 && v[1] != '"' && v[1] != '\\' &&
            v[2] == '"') {
            e->ph = (struct span){.s = v + 1, .n = 1, .str = 1, .set = 1};
            j->p = v + 3;
            return STINT_JSON_OK;
        }
        break;
    }
    case K_NAME:
    case K_CAT:
        if (c == '"' && fast_string(j, span_of(e, key)))
            return STINT_JSON_OK;
        break;
    case K_PID:
    case K_TID:
        if ((unsigned)(c - '0') < 10 && fast_int(j, span_of(e, key), &h->ids[key == K_TID]))
            return STINT_JSON_OK;
        break;
    case K_TS:
    case K_DUR:
    case K_TTS:
    case K_TDUR:
        if ((unsigned)(c - '0') < 10 && fast_time(j, span_of(e, key)))
            return STINT_JSON_OK;
        break;
    case K_ID:
    case K_S:
    case K_BP:
    case K_BIND_ID:
        break;
    case K_ID2:
        return read_id2(j, e);
    case K_ARGS:
        return read_args(j, e, h);
    case K_FLOW_IN:
    case K_FLOW_OUT: {
        uint8_t on = stint_json_ws(j) == 't';
        int rc = stint_json_skip(j);
        if (rc != STINT_JSON_OK)
            return rc;
        if (key == K_FLOW_IN)
            e->flow_in = on;
        else
            e->flow_out = on;
        return STINT_JSON_OK;
    }
    case K_OTHER:
        return stint_json_skip(j);
    }
    return read_value(j, span_of(e, key));
}

/* Parses one event object at '{'. Fields point into the window, whose end
 * must be followed by a 0 (the input layer's padding): the fast paths test
 * bytes for the characters they expect without checking j->end first, and
 * the 0 fails every such test. Anything out of the common shapes goes to
 * the general tokenizer, which reports errors and MORE exactly as before. */

static int parse_event(struct stint_json *j, struct event *e, struct ehints *h)
{
    const char *save = j->p, *want = NULL; /* want: what `unexpected` reports */
    int rc = STINT_JSON_OK;
    event_clear(e);
    j->p++; /* '{' */
    int c = ws_fast(j);
    if (c == '}') {
        j->p++;
        return STINT_JSON_OK;
    }
    /* slot: this key's two guesses (the n-th key's, wrapping after KPRED_N) */
    struct kpred *pred = h->pred;
    for (struct kpred *slot = pred;; slot = slot + 2 == pred + 2 * KPRED_N ? pred : slot + 2) {
        /* at a key: c is the byte at j->p */
        const char *kq = j->p;
        struct kpred *kp = slot;
        enum ekey key;
        uint64_t head = stint_i_load_le64(kq);
        if ((head & kp[0].mask) == kp[0].w || ((head & kp[1].mask) == kp[1].w && kp++)) {
            /* a guess: these bytes are the key, its '"' and ':' */
            key = (enum ekey)kp->code;
            j->p = kq + kp->len;
            c = ws_fast(j);
            goto value;
        }
        if (c != '"') {
            want = "expected a string key in event object";
            goto unexpected;
        }
        const char *k = j->p + 1;
        size_t kn;
        int plain = 1;
        /* the common case: a known key of up to 7 bytes. Find the first '"'
         * in the next 8 bytes (the usual zero-byte test, exact for the first
         * hit); a table match means the bytes before it are that key's
         * letters, none of them the window's closing 0, so the '"' lies
         * inside the window too. */
        uint64_t w = stint_i_load_le64(k), z = w ^ 0x2222222222222222ULL;
        uint64_t quotes = (z - 0x0101010101010101ULL) & ~z & 0x8080808080808080ULL;
        if (quotes && (kn = (size_t)__builtin_ctzll(quotes) >> 3,
                       key = key_lookup(w & ((1ULL << (8 * kn)) - 1), kn)) != K_OTHER) {
            j->p = k + kn + 1;
        } else {
            const char *q = plain_string_end(j->p, j->end);
            if (q) {
                kn = (size_t)(q - k);
                j->p = q + 1;
                key = key_code(k, kn);
            } else {
                int kesc;
                char kb[KEY_BUF + 8];
                if ((rc = stint_json_string(j, &k, &kn, &kesc)) != STINT_JSON_OK)
                    goto out;
                plain = 0;
                kn = key_text(&k, kn, kesc, kb); /* "\u0070h" is "ph" */
                key = key_code(k, kn);
            }
        }
        c = (unsigned char)*j->p;
        if (c != ':' && (c = stint_json_ws(j)) != ':') {
            want = "expected ':' after key in event object";
            goto unexpected;
        }
        const char *colon = j->p++;
        c = ws_fast(j);
        if (plain && colon - kq < 8) {
            /* the guess takes the blanks after ':' too when they fit */
            size_t len = j->p - kq <= 8 ? (size_t)(j->p - kq) : (size_t)(colon + 1 - kq);
            kp[1] = kp[0];
            kp->mask = ~0ULL >> (64 - 8 * len);
            kp->w = stint_i_load_le64(kq) & kp->mask;
            kp->len = (uint32_t)len;
            kp->code = key;
        }
    value:
        if ((rc = read_field(j, e, h, key, c)) != STINT_JSON_OK)
            goto out;
        /* after a value: ',' and the next key, or '}' */
        c = (unsigned char)*j->p;
        if (c != ',') {
            if (c != '}')
                c = ws_fast(j);
            if (c == '}') {
                j->p++;
                return STINT_JSON_OK;
            }
            if (c != ',') {
                want = "expected ',' or '}' in event object";
                goto unexpected;
            }
        }
        c = (unsigned char)*++j->p;
        if (c == '"')
            continue;
        if (c == ' ' && j->p[1] == '"') {
            c = (unsigned char)*++j->p;
            continue;
        }
        c = ws_run(j);
        if (c == '}') { /* a trailing comma */
            if (!(j->flags & STINT_JSON_TRAILING_COMMA)) {
                j->err = "trailing comma in event object";
                j->err_at = j->p;
                rc = STINT_JSON_ERR;
                goto out;
            }
            stint_json_trailing_comma(j);
            j->p++;
            return STINT_JSON_OK;
        }
    }
unexpected:
    /* c at j->p is not what the grammar wants (want), or the window ended there */
    if (!(c == 0 && j->p >= j->end)) {
        j->err = want;
        j->err_at = j->p;
        rc = STINT_JSON_ERR;
        goto out;
    }
    /* the window ends inside the event: more input, or a cut-off trace */
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

int stint_i_chrome_events(struct creader *r, struct stint_json *j, int *state)
{
    struct stint_model *m = r->m;
    for (;;) {
        struct event e;
        const char *at = j->p;
        unit_start(r, j);
        int rc = parse_event(j, &e, &r->hints);
        if (rc != STINT_JSON_OK)
            return rc;
        if (m->sizes)
            stint_i_chrome_size_event(r, &e, at, j->p);
        else
            stint_i_chrome_add_event(r, &e, at);
        *state = S_EV_NEXT;
        if (ws_fast(j) != ',')
            return STINT_JSON_OK;
        j->p++;
        *state = S_EV_COMMA;
        if (ws_fast(j) != '{')
            return STINT_JSON_OK;
    }
}
