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
 * The event parser has fast paths for the shapes real traces use: a key is
 * matched as one word against the bytes seen at the same position in the
 * previous events, plain strings and numbers are read inline (numbers
 * converted exactly while scanned, never through a double). Each fast path
 * only takes input it can read exactly as the general tokenizer would and
 * leaves anything else (escapes, non-ASCII, control bytes, other number
 * shapes, the window's end) to it, so results, errors, repairs and MORE are
 * the same. They rely on the window's end being followed by a 0 byte
 * (input.h), which no fast path accepts.
 *
 * Leniencies of the container (never of the tokenizer's strict mode): a
 * missing final ']' (and '}'), trailing commas, and a trailing empty '{}'
 * event. Each is counted as a repair except the '{}' Chrome itself writes.
 * Phases follow trace-formats-and-peers.md 1.3-1.5 and Perfetto's import
 * rules (see model.h for B/E matching and nesting).
 */
#include "read/readers.h"

#include "read/json.h"
#include "read/json_shape.h"
#include "model/filters.h"
#include "read/sizes.h"
#include "base/tsparse.h"

#include <stdlib.h>
#include <string.h>

struct span {
    const char *s;
    uint32_t n;
    uint8_t str; /* given as a JSON string */
    uint8_t esc; /* string with escapes */
    uint8_t set;
    uint8_t num; /* SPAN_NUM_*: v already holds the text's value */
    int64_t v;
};

/* What a span's v holds when parse_event's fast paths already converted the
 * text (else the text is parsed when needed, by the general parsers) */
enum { SPAN_NUM_NONE, SPAN_NUM_US_NS, SPAN_NUM_INT };

struct event {
    struct span ph, name, cat, ts, dur, tts, tdur, pid, tid, id, s, bp;
    struct span id2;       /* the id inside id2 */
    struct span bind_id;   /* flow v2 */
    uint8_t flow_in, flow_out;
    int id2_global;        /* id2 key was "global" (or "") */
    const char *args_a, *args_b; /* raw args object, when present */
};

#define ICACHE_BITS 12

/* parse_event's guesses for the n-th key of an event: the bytes from the
 * key's '"' through its ':' as last seen there, two ways (events of one
 * trace write their keys in one or a few orders). A guess is taken only on an
 * exact byte match, so a wrong one costs a compare; it is recorded only from
 * keys the fast paths read (plain ASCII, no escapes), whose tokenizing has no
 * side effect to repeat. An empty slot has w = 1, mask = 0: it never matches. */
#define KPRED_N 16
struct kpred {
    uint64_t w, mask;
    uint32_t len, code;
};

/* parse_event's memory of the last pid and of the last tid: the 8 bytes at
 * the value when they hold the whole number and the byte after it, and the
 * number. Equal bytes read as the same number, so a match skips the scan. */
struct nmemo {
    uint64_t raw; /* 0: empty (a number starts with a digit) */
    int64_t v;
    uint32_t len;
};

/* What parse_event learns from one event for the next, and the args the
 * input's inflate thread already skipped in this window (input.h: hblk is
 * the hints' block start in the window, hcur the next hint to look at). */
struct ehints {
    struct kpred pred[2 * KPRED_N];
    struct nmemo ids[2]; /* pid, tid */
    const char *hblk;
    const uint32_t *hoff, *hlen;
    size_t hn, hcur;
    uint64_t hused; /* args skipped through a hint (for STINT_DEBUG_SPLIT) */
    struct stint_jshape *shapes; /* the args shapes seen (json_shape.h); NULL: none kept */
};

/* Takes the window's skipped args from in (after a fill). */
static void ehints_window(struct ehints *h, const struct stint_input *in)
{
    h->hn = in->hint_n;
    h->hcur = 0;
    if (h->hn) {
        /* the block may start before the window: a fill that found the end
         * leaves the window, and the hints, as they were */
        h->hblk = in->hint_at >= in->base ? in->buf + (in->hint_at - in->base) : in->buf - (in->base - in->hint_at);
        h->hoff = in->hint_off;
        h->hlen = in->hint_len;
    }
}

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

/* Empty hints (no guess matches, no memo). */
static void ehints_init(struct ehints *h)
{
    memset(h, 0, sizeof *h);
    for (size_t i = 0; i < 2 * KPRED_N; i++)
        h->pred[i].w = 1;
}

struct creader {
    struct stint_model *m;
    struct stint_input *in;
    const struct stint_read_opts *o;
    char *scratch;  /* unescape / key buffer, grows */
    size_t scratch_cap;
    char *key;      /* flat-key builder */
    size_t key_cap;
    /* names and categories repeat: a direct-mapped cache of recent interned
     * strings spares hashing them again. An entry keeps the first and last 8
     * bytes (zero-padded) and the length, which identify strings up to 16
     * bytes outright; longer ones compare their middle with the model's copy
     * (model strings never move). */
    struct icache_ent {
        uint64_t a, b;
        const char *s;
        uint32_t len, id;
    } icache[1u << ICACHE_BITS];
    struct ehints hints;
    /* the same for lanes: (pid, tid) -> host-clock lane; lanes are never
     * renumbered while a reader runs */
    struct lcache_ent {
        int64_t pid, tid;
        uint32_t lane, used;
    } lcache[64];
    /* the tokenizer's repair counts at the start of the unit being parsed
     * (see step_once) */
    uint64_t unit_tc, unit_cc, unit_ls;
    /* the counts when the tokenizer's positions were last taken (harvest) */
    uint64_t harv_tc, harv_cc, harv_ls;
    /* the first of each of those repairs: its byte + 1 (0: none yet), and
     * when (the model's repair_clock), for the messages and --strict's order */
    uint64_t first_tc, first_cc, first_ls, seq_tc, seq_cc, seq_ls;
    int obj_keys;    /* keys read in the trace object */
    int saw_events;  /* the trace object's traceEvents array was found (or this part starts inside it) */
};

/* Marks the start of a unit (an event, a top-level key): if it returns MORE
 * it is parsed again after the refill, and step_once takes its counts back. */
static inline void unit_start(struct creader *r, const struct stint_json *j)
{
    r->unit_tc = j->trailing_commas;
    r->unit_cc = j->control_chars;
    r->unit_ls = j->lone_surrogates;
}

/* A lane cache miss: the model's lane, kept in entry c. */
static __attribute__((noinline)) uint32_t lane_fill(struct creader *r, struct lcache_ent *c, int64_t pid, int64_t tid)
{
    c->lane = stint_model_lane(r->m, pid, tid, STINT_CLOCK_HOST);
    c->pid = pid;
    c->tid = tid;
    c->used = 1;
    return c->lane;
}

/* The host-clock lane of (pid, tid), through the cache. */
static inline uint32_t host_lane(struct creader *r, int64_t pid, int64_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)tid * 0xff51afd7ed558ccdULL);
    struct lcache_ent *c = &r->lcache[(h ^ (h >> 29)) & 63];
    if (c->used && c->pid == pid && c->tid == tid)
        return c->lane;
    return lane_fill(r, c, pid, tid);
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


/* A set span's text, unescaped (into the scratch buffer when it has
 * escapes, so valid until the next scratch()); its length in *n. */
static const char *span_text(struct creader *r, const struct span *sp, size_t *n)
{
    if (sp->str && sp->esc) {
        char *b = scratch(r, sp->n);
        *n = stint_json_unescape(sp->s, sp->n, b);
        return b;
    }
    *n = sp->n;
    return sp->s;
}

/* The model's id for a span's text (unescaped), without the cache: for ids,
 * mostly unique (one flow's or async span's few events), which would only
 * crowd the cache. 0 for an absent or empty span. */
static uint32_t intern_id(struct creader *r, const struct span *sp)
{
    if (!sp->set || sp->n == 0)
        return 0;
    size_t n;
    const char *s = span_text(r, sp, &n);
    return stint_model_intern(r->m, s, n);
}

static uint64_t offset_of(const struct creader *r, const char *p)
{
    return r->in->base + (uint64_t)(p - r->in->buf);
}

/* A flow id's identity for stint_model_flow_key: the number itself when
 * its (unescaped) text is a canonical decimal below 2^63, which needs no
 * string (the common case, and a string table of one key per flow missed
 * the cache on most flow events of a large trace), or, for a string, its
 * value as hex (Perfetto's rule: "0x10" and 16 are one id, "16" is 0x16);
 * else the text's string id with STINT_FLOW_ID_STR. The empty or absent id
 * is the empty string. An absent id, or a string that is no hex number, is
 * counted (flow_invalid_id): what names the event is at. */
static uint64_t flow_id(struct creader *r, const struct span *sp, const char *at)
{
    if (!sp->set || sp->n == 0) {
        stint_model_repair(r->m, STINT_REPAIR_FLOW_INVALID_ID,
                           "byte %llu: flow event without an id (Perfetto drops it; kept, keyed by the empty id)",
                           (unsigned long long)offset_of(r, at));
        return STINT_FLOW_ID_STR;
    }
    size_t n;
    const char *s = span_text(r, sp, &n);
    if (sp->str) {
        size_t i = n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x' ? 2 : 0, d = 0;
        uint64_t v = 0;
        for (; i < n; i++, d++) {
            int h = stint_json_hexval((unsigned char)s[i]);
            if (h < 0 || v >> 60)
                break;
            v = v << 4 | (uint64_t)h;
        }
        if (i == n && d && v < STINT_FLOW_ID_STR)
            return v;
        if (i < n || !d)
            stint_model_repair(r->m, STINT_REPAIR_FLOW_INVALID_ID,
                               "byte %llu: flow id \"%.*s\" is no hex number (Perfetto reads string ids as hex and "
                               "drops this event; kept, keyed by its text)",
                               (unsigned long long)offset_of(r, sp->s), (int)(n < 40 ? n : 40), s);
        return STINT_FLOW_ID_STR | stint_model_intern(r->m, s, n);
    }
    if (n <= 19 && (n == 1 || s[0] != '0')) {
        uint64_t v = 0;
        size_t i = 0;
        for (; i < n && (unsigned)(s[i] - '0') < 10; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        if (i == n && v < STINT_FLOW_ID_STR)
            return v;
    }
    return STINT_FLOW_ID_STR | stint_model_intern(r->m, s, n);
}

/* A cache miss: the model's id, kept in entry c. */
static __attribute__((noinline)) uint32_t intern_fill(struct creader *r, struct icache_ent *c, const struct span *sp,
                                                      uint64_t a, uint64_t b)
{
    uint32_t id = stint_model_intern(r->m, sp->s, sp->n);
    c->a = a;
    c->b = b;
    c->s = stint_model_str(r->m, id, NULL);
    c->len = sp->n;
    c->id = id;
    return id;
}

/* Whether bytes [8, n - 8) of x and y (n > 16 bytes each) are equal: whole
 * words, the last one overlapping its neighbour; inline, where a memcmp call
 * costs more than the compare for names of a few words. */
static inline int same_middle(const char *x, const char *y, uint32_t n)
{
    uint32_t i = 8;
    for (; i + 16 <= n; i += 8)
        if (stint_i_load_le64(x + i) != stint_i_load_le64(y + i))
            return 0;
    return stint_i_load_le64(x + n - 16) == stint_i_load_le64(y + n - 16);
}

/* The model's id for a name's or category's text (unescaped), through the
 * cache above (a hit returns what the model would). */
static inline uint32_t intern_span(struct creader *r, const struct span *sp)
{
    if (!sp->set || sp->n == 0 || sp->esc)
        return intern_id(r, sp);
    /* sp->s lies in the padded window, so 8-byte loads at either end are in bounds */
    uint32_t n = sp->n;
    uint64_t a = stint_i_load_le64(sp->s), b = 0;
    if (n < 8)
        a &= (1ULL << (8 * n)) - 1;
    else
        b = stint_i_load_le64(sp->s + n - 8);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL) ^ n) * 0xff51afd7ed558ccdULL;
    struct icache_ent *c = &r->icache[h >> (64 - ICACHE_BITS)];
    if (c->a == a && c->b == b && c->len == n && (n <= 16 || same_middle(c->s, sp->s, n)))
        return c->id;
    return intern_fill(r, c, sp, a, b);
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

/* The bytes a key of kn raw bytes that stint_json_string found escaped (esc)
 * reads as, unescaped into buf (KEY_BUF bytes, 8 more readable for
 * key_code), and their length; a key longer than that, which no key this
 * reader looks for can be even with an escape per letter, reads as "". */
enum { KEY_BUF = 128 };
static size_t key_text(const char **k, size_t kn, int esc, char *buf)
{
    if (!esc)
        return kn;
    if (kn > KEY_BUF) {
        *k = "";
        return 0;
    }
    kn = stint_json_unescape(*k, kn, buf);
    memset(buf + kn, 0, 8);
    *k = buf;
    return kn;
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

/* ---- one event object: the hot path ------------------------------------------------- */

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
    value:;
        struct span *dst = NULL;
        switch (key) {
        case K_PH: {
            const char *v = j->p;
            /* one printable ASCII letter, the common phase */
            if (c == '"' && (unsigned char)v[1] >= 0x20 && (unsigned char)v[1] < 0x80 && v[1] != '"' && v[1] != '\\' &&
                v[2] == '"') {
                e->ph = (struct span){.s = v + 1, .n = 1, .str = 1, .set = 1};
                j->p = v + 3;
                goto next;
            }
            dst = &e->ph;
            break;
        }
        case K_NAME:
            dst = &e->name;
            goto string_field;
        case K_CAT:
            dst = &e->cat;
        string_field:
            if (c == '"' && fast_string(j, dst))
                goto next;
            break;
        case K_PID:
        case K_TID:
            dst = key == K_PID ? &e->pid : &e->tid;
            if ((unsigned)(c - '0') < 10 && fast_int(j, dst, &h->ids[key == K_TID]))
                goto next;
            break;
        case K_TS:
            dst = &e->ts;
            goto number_field;
        case K_DUR:
            dst = &e->dur;
            goto number_field;
        case K_TTS:
            dst = &e->tts;
            goto number_field;
        case K_TDUR:
            dst = &e->tdur;
        number_field:
            if ((unsigned)(c - '0') < 10 && fast_time(j, dst))
                goto next;
            break;
        case K_ID:
            dst = &e->id;
            break;
        case K_S:
            dst = &e->s;
            break;
        case K_BP:
            dst = &e->bp;
            break;
        case K_BIND_ID:
            dst = &e->bind_id;
            break;
        case K_ID2:
            if ((rc = read_id2(j, e)) != STINT_JSON_OK)
                goto out;
            goto next;
        case K_ARGS: {
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
                    goto out;
            }
            if (*a == '{') {
                e->args_a = a;
                e->args_b = j->p;
            }
            goto next;
        }
        case K_FLOW_IN:
        case K_FLOW_OUT: {
            uint8_t on = stint_json_ws(j) == 't';
            if ((rc = stint_json_skip(j)) != STINT_JSON_OK)
                goto out;
            if (key == K_FLOW_IN)
                e->flow_in = on;
            else
                e->flow_out = on;
            goto next;
        }
        case K_OTHER:
            break;
        }
        if (dst) {
            if ((rc = read_value(j, dst)) != STINT_JSON_OK)
                goto out;
        } else if ((rc = stint_json_skip(j)) != STINT_JSON_OK)
            goto out;
    next:
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
    if (sp->num == SPAN_NUM_INT) {
        *out = sp->v;
        return 0;
    }
    if (stint_parse_i64(sp->s, sp->n, out) == 0)
        return 0;
    return -1;
}

/* Whether the JSON number s[0..n) (with a fraction or an exponent) has an
 * integer value within int64, exactly (1e3, 1000.0, -2.50e1 do; 1.5, 1e30
 * do not); the value into *out. */
static int integral_number(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = i < n && s[i] == '-';
    i += (size_t)neg;
    char dig[40];
    size_t nd = 0;
    long scale = 0; /* value = digits x 10^scale */
    int seen = 0;
    for (int frac = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        seen = 1;
        if (nd == 0 && c == '0') { /* leading zeros add nothing */
            scale -= frac;
            continue;
        }
        if (nd == sizeof dig)
            return 0; /* more significant digits than any int64 has */
        dig[nd++] = c;
        scale -= frac;
    }
    if (!seen)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = i < n && s[i] == '-';
        i += i < n && (s[i] == '-' || s[i] == '+');
        long e = 0;
        if (i == n)
            return 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        scale += eneg ? -e : e;
    }
    if (i != n)
        return 0;
    while (scale < 0 && nd) { /* digits after the point must be zeros */
        if (dig[--nd] != '0')
            return 0;
        scale++;
    }
    if (nd == 0) {
        *out = 0;
        return 1;
    }
    uint64_t v = 0;
    for (size_t k = 0; k < nd; k++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(dig[k] - '0'), &v))
            return 0;
    for (; scale > 0; scale--)
        if (__builtin_mul_overflow(v, 10, &v))
            return 0;
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

/* A pid or tid value sp as an integer: 0 when it is one (a plain integer, a
 * string holding one, or a number of integral value in another notation),
 * 1 when it is a string (the caller gives it a synthetic id), 2 when it is a
 * number that is no int64 integer (counted; a synthetic id too). */
static __attribute__((noinline)) int id_value_slow(struct creader *r, const struct span *sp, const char *what,
                                                    int64_t *out)
{
    if (span_i64(r, sp, out) == 0)
        return 0;
    if (sp->str)
        return 1;
    if (integral_number(sp->s, sp->n, out))
        return 0;
    stint_model_repair(r->m, STINT_REPAIR_ID_NOT_INTEGER,
                       "byte %llu: %s %.*s is not an integer (expected an integer id; kept on a lane named by it)",
                       (unsigned long long)offset_of(r, sp->s), what, (int)(sp->n < 40 ? sp->n : 40), sp->s);
    return 2;
}

static inline int id_value(struct creader *r, const struct span *sp, const char *what, int64_t *out)
{
    if (sp->num == SPAN_NUM_INT) { /* (the common case, inline) */
        *out = sp->v;
        return 0;
    }
    return id_value_slow(r, sp, what, out);
}

/* The event's pid: the number, 0 when absent, a synthetic pid for a string
 * (or a number that is no integer). *reserved is set when the number lies
 * where synthetic ids do (at or below STINT_SYNTHETIC_ID0): the caller drops
 * the event rather than let a written id and a string's id meet. */
static int64_t resolve_pid(struct creader *r, const struct event *e, int *reserved)
{
    if (!e->pid.set)
        return 0;
    int64_t v;
    if (id_value(r, &e->pid, "pid", &v) == 0) {
        *reserved |= v <= STINT_SYNTHETIC_ID0;
        return v;
    }
    return stint_model_synthetic_pid(r->m, intern_span(r, &e->pid));
}

/* The event's tid the same way (absent or 0: the pid). */
static int64_t resolve_tid(struct creader *r, const struct event *e, int64_t pid, int *reserved)
{
    if (!e->tid.set)
        return pid;
    int64_t v;
    if (id_value(r, &e->tid, "tid", &v) == 0) {
        *reserved |= v <= STINT_SYNTHETIC_ID0;
        return v == 0 ? pid : v; /* Perfetto: tid 0 means the process's main thread */
    }
    return stint_model_synthetic_tid(r->m, pid, intern_span(r, &e->tid));
}

static int parse_time(struct creader *r, const struct span *sp, int64_t *out)
{
    (void)r;
    if (sp->num == SPAN_NUM_US_NS) {
        *out = sp->v;
        return 0;
    }
    return stint_parse_ts(sp->s, sp->n, 1000, out);
}

/* A tts or tdur that is no time: ignored and counted (Perfetto drops the event). */
static void bad_thread_time(struct creader *r, const char *what, const char *at)
{
    stint_model_repair(r->m, STINT_REPAIR_BAD_THREAD_TIME,
                       "byte %llu: %s is not a time in microseconds (Perfetto drops the event): ignored",
                       (unsigned long long)offset_of(r, at), what);
}

/* A sort_index value: 1 with *x when it is an integer that fits 32 bits;
 * else 0, the M event's index dropped and counted (it was cut to 32 bits,
 * or ignored without a word when not an integer). */
static int sort_index_of(struct creader *r, const struct span *v, int64_t *x)
{
    if (stint_parse_i64(v->s, v->n, x) == 0 && *x >= INT32_MIN && *x <= INT32_MAX)
        return 1;
    stint_model_drop(r->m, "byte %llu: sort_index %.*s is not an integer of 32 bits (expected one): ignored",
                     (unsigned long long)offset_of(r, v->s), (int)(v->n < 40 ? v->n : 40), v->s);
    return 0;
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
        if (sort_index_of(r, &v, &x)) {
            uint32_t pi = stint_model_process(m, pid);
            struct stint_process *p = &STINT_BA_AT(&m->processes, struct stint_process, pi);
            p->sort_index = (int32_t)x;
            p->has_sort_index = 1;
        }
    } else if (key_is(e->name.s, e->name.n, "thread_sort_index") &&
               find_arg(e->args_a, e->args_b, "sort_index", &v)) {
        int64_t x;
        if (sort_index_of(r, &v, &x)) {
            uint32_t li = host_lane(r, pid, tid);
            struct stint_lane *l = &STINT_BA_AT(&m->lanes, struct stint_lane, li);
            l->sort_index = (int32_t)x;
            l->has_sort_index = 1;
        }
    }
}

/* Steps j, inside an object after its '{', to the next member's value: 1
 * with the member's key (*k0 its '"'; k, kn, kesc as stint_json_string
 * gives them) and j->p at the value; 0 at the object's end or on bad
 * syntax. */
static int next_member(struct stint_json *j, const char **k0, const char **k, size_t *kn, int *kesc)
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

static void handle_counter(struct creader *r, const struct event *e, int64_t pid, int64_t ts, const char *at)
{
    struct stint_model *m = r->m;
    if (!e->args_a) {
        stint_model_drop(m, "byte %llu: counter event '%.*s' has no args (expected an object of numeric values)",
                         (unsigned long long)offset_of(r, at), (int)(e->name.n < 60 ? e->name.n : 60),
                         e->name.s ? e->name.s : "");
        return;
    }
    struct stint_json j = {.p = e->args_a + 1, .end = e->args_b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
    size_t nn;
    const char *nm = stint_model_str(m, intern_span(r, &e->name), &nn);
    if (e->id.set) { /* an instance's counters: "<name> id: <id>", as Perfetto names their tracks */
        size_t idn;
        const char *id = stint_model_str(m, intern_span(r, &e->id), &idn);
        char *b = scratch(r, nn + 5 + idn);
        memcpy(b, nm, nn);
        memcpy(b + nn, " id: ", 5);
        memcpy(b + nn + 5, id, idn);
        nm = stint_model_str(m, stint_model_intern(m, b, nn + 5 + idn), &nn);
    }
    const char *k0, *k;
    size_t kn;
    int kesc;
    while (next_member(&j, &k0, &k, &kn, &kesc)) {
        struct span v;
        if (read_value(&j, &v) != STINT_JSON_OK)
            return;
        if (!v.set)
            continue;
        /* the value's text is followed by a delimiter (a JSON number) or a
         * quote (a string), where strtod stops: any length (the CLI runs in
         * the C locale) */
        char *endp;
        double d = v.n ? strtod(v.s, &endp) : 0;
        if (!v.n || endp != v.s + v.n) {
            stint_model_drop(m, "byte %llu: counter '%s' arg '%.*s' is not a number (expected one): that value is dropped",
                             (unsigned long long)offset_of(r, v.s), nm, (int)(kn < 60 ? kn : 60), k);
            continue;
        }
        /* series name "<name> <key>", as Perfetto names counter tracks */
        char *b = scratch(r, nn + 1 + kn);
        memcpy(b, nm, nn);
        b[nn] = ' ';
        if (kesc)
            kn = stint_json_unescape(k, kn, b + nn + 1);
        else
            memcpy(b + nn + 1, k, kn);
        stint_model_counter(m, pid, stint_model_intern(m, b, nn + 1 + kn), ts, d);
    }
}

/* A T event with dur: one thread-state interval on the thread's state track
 * (model.h, STINT_SLICE_THREAD_STATE). Returns the slice index, or
 * STINT_NO_ID when the dur is invalid (dropped and counted, as an X's). */
static uint32_t add_thread_state(struct creader *r, const struct event *e, struct stint_slice *s, int64_t pid,
                                 int64_t tid, const char *at)
{
    struct stint_model *m = r->m;
    int64_t d;
    int rc = parse_time(r, &e->dur, &d);
    if (rc == 0 && d >= 0 && !stint_end_in_range(s->ts_ns, d))
        rc = -2;
    if (rc != 0) {
        stint_model_drop(m, "byte %llu: thread-state event 'T' '%s' has %s dur (expected microseconds)",
                         (unsigned long long)offset_of(r, at), stint_model_str(m, s->name, NULL),
                         rc == -2 ? "an out-of-range" : "an invalid");
        return STINT_NO_ID;
    }
    char key[64];
    int kn = snprintf(key, sizeof key, "thread_state tid %lld", (long long)tid);
    uint32_t id = stint_model_intern(m, key, (size_t)kn);
    s->track = stint_model_track_async(m, STINT_ASYNC_PROCESS, pid, s->cat, id, id);
    s->dur_ns = d;
    s->flags = STINT_SLICE_COMPLETE | STINT_SLICE_ASYNC | STINT_SLICE_THREAD_STATE;
    return stint_model_add_slice(m, s);
}

static void add_event(struct creader *r, const struct event *e, const char *at)
{
    struct stint_model *m = r->m;
    m->events++;
    if (!e->ph.set || e->ph.n == 0) {
        const char *q = at + 1; /* (at: its '{'; the window holds the whole object) */
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q == '}')
            return; /* the empty {} Chrome writes last: no event (an object with keys but no phase is
                     * dropped and counted below, whatever its keys; {"tid": 5, "dur": 10} vanished) */
        stint_model_drop(m, "byte %llu: event without \"ph\" (expected a phase letter)",
                         (unsigned long long)offset_of(r, at));
        return;
    }
    char ph = e->ph.s[0]; /* Perfetto reads the first character only */
    int reserved = 0;
    int64_t pid = resolve_pid(r, e, &reserved);
    int64_t tid = reserved ? 0 : resolve_tid(r, e, pid, &reserved);
    if (reserved) {
        stint_model_drop(m, "byte %llu: event '%.*s' has a pid or tid at or below -4294967296 (-2^32: kept for ids "
                         "written as strings)", (unsigned long long)offset_of(r, at),
                         (int)(e->name.n > 80 ? 80 : e->name.n), e->name.s ? e->name.s : "");
        return;
    }
    if (ph == 'M') {
        handle_metadata(r, e, pid, tid);
        return;
    }
    int64_t ts = 0;
    int ts_rc = e->ts.set ? parse_time(r, &e->ts, &ts) : -1;
    if (ts_rc == 0 && !stint_ts_in_range(ts))
        ts_rc = -2;
    if (ts_rc != 0) {
        stint_model_drop(m, "byte %llu: event '%.*s' has %s ts (expected a number of microseconds%s)",
                         (unsigned long long)offset_of(r, at), (int)(e->name.n > 80 ? 80 : e->name.n),
                         e->name.s ? e->name.s : "", !e->ts.set ? "no" : ts_rc == -2 ? "an out-of-range" : "an invalid",
                         ts_rc == -2 ? " within +-4611686018427387.903, the kept range (|t| < 2^62 ns)" : "");
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
        else
            bad_thread_time(r, "tts", at);
    }
    if (ts < 0 && ph != 'M')
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_TS,
                           "byte %llu: event '%s' has a negative ts (%lld ns; Perfetto drops it): kept",
                           (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL), (long long)ts);
    uint32_t idx = STINT_NO_ID;
    switch (ph) {
    case 'X': {
        int64_t d = 0;
        if (!e->dur.set)
            stint_model_repair(m, STINT_REPAIR_X_WITHOUT_DUR,
                               "byte %llu: X event '%s' has no dur (Perfetto drops it; kept with dur 0)",
                               (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL));
        int dur_rc = e->dur.set ? parse_time(r, &e->dur, &d) : 0;
        if (dur_rc == 0 && d >= 0 && !stint_end_in_range(ts, d))
            dur_rc = -2;
        if (dur_rc != 0) {
            stint_model_drop(m, "byte %llu: X event '%s' has %s dur (expected microseconds%s)",
                             (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL),
                             dur_rc == -2 ? "an out-of-range" : "an invalid",
                             dur_rc == -2 ? " ending within the kept range (|t| < 2^62 ns)" : "");
            return;
        }
        if (d < 0) { /* (here, where its byte is known; and -1 ns is no "unfinished" mark in a dur) */
            stint_model_repair(m, STINT_REPAIR_NEGATIVE_DUR, "byte %llu: X event '%s' has dur %lld ns (kept as 0)",
                               (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL), (long long)d);
            d = 0;
        }
        if (e->tdur.set) {
            int64_t v;
            if (parse_time(r, &e->tdur, &v) == 0)
                s.tdur_ns = v;
            else
                bad_thread_time(r, "tdur", at);
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
        stint_model_end_cat(m, host_lane(r, pid, tid), ts, s.name, s.cat, tts);
        if (e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS)) /* merged into the B it closes (model.h) */
            walk_args(r, e->args_a, e->args_b, "args", sink_end, NULL);
        return;
    }
    case 'P':
        stint_model_repair(m, STINT_REPAIR_SAMPLE_EVENT,
                           "byte %llu: sample event 'P' '%s': kept as a thread instant, its stack (sf or V8 "
                           "cpuProfile) is not modelled",
                           (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL));
        /* a thread instant, whatever its "s" */
        /* fall through */
    case 'i':
    case 'I':
    case 'R': {
        char scope = ph != 'P' && e->s.set && e->s.n ? e->s.s[0] : 't';
        if ((ph == 'i' || ph == 'I') && e->s.set && (e->s.n != 1 || (scope != 'g' && scope != 'p' && scope != 't')))
            stint_model_repair(m, STINT_REPAIR_INSTANT_SCOPE,
                               "byte %llu: instant '%s' has scope \"%.*s\" (expected g, p or t; Perfetto drops it): "
                               "read as %s",
                               (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL),
                               (int)(e->s.n < 20 ? e->s.n : 20), e->s.s,
                               scope == 'g' ? "global" : scope == 'p' ? "process" : "thread");
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
    case 'T':
        if (e->dur.set) { /* Perfetto's thread-state interval (model.h, STINT_SLICE_THREAD_STATE) */
            idx = add_thread_state(r, e, &s, pid, tid, at);
            if (idx == STINT_NO_ID)
                return;
            break;
        }
        /* without dur, T is the legacy async step-into */
        /* fall through */
    case 'p':
        stint_model_repair(m, STINT_REPAIR_ASYNC_STEP,
                           "byte %llu: legacy async step '%c' '%s' (Perfetto ignores it): kept as an instant on its "
                           "async track",
                           (unsigned long long)offset_of(r, at), ph, stint_model_str(m, s.name, NULL));
        /* an instant on the async track of its id, like n */
        /* fall through */
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'F': {
        /* Perfetto's tracks: id2.local is process-scoped; id2.global and a
         * plain id are global (one track per cat + id across processes);
         * with neither (Perfetto drops the event) the process keeps it */
        uint32_t idtext = 0;
        enum stint_async_scope scope = STINT_ASYNC_PROCESS;
        if (e->id.set) { /* id first, then id2.global, then id2.local (Perfetto) */
            idtext = intern_id(r, &e->id);
            scope = STINT_ASYNC_GLOBAL;
        } else if (e->id2.set) {
            idtext = intern_id(r, &e->id2);
            scope = e->id2_global ? STINT_ASYNC_GLOBAL : STINT_ASYNC_PROCESS;
        } else if (ph == 'b' || ph == 'e' || ph == 'n') {
            stint_model_repair(m, STINT_REPAIR_ASYNC_WITHOUT_ID,
                               "byte %llu: async '%c' '%s' has no id or id2 (Perfetto drops it): kept on its "
                               "process's track for its category",
                               (unsigned long long)offset_of(r, at), ph, stint_model_str(m, s.name, NULL));
        }
        uint32_t track = stint_model_track_async(m, scope, pid, s.cat, idtext, s.name);
        if (ph == 'S' || ph == 'F')
            stint_model_repair(m, STINT_REPAIR_LEGACY_ASYNC,
                               "byte %llu: legacy async '%c' '%s' (Perfetto ignores S/F): kept as an async slice",
                               (unsigned long long)offset_of(r, at), ph, stint_model_str(m, s.name, NULL));
        if (ph == 'b' || ph == 'S')
            idx = stint_model_async_begin(m, track, &s);
        else if (ph == 'e' || ph == 'F') {
            stint_model_async_end(m, track, ts, s.name);
            if (e->args_a && (m->flags & STINT_MODEL_KEEP_ARGS))
                walk_args(r, e->args_a, e->args_b, "args", sink_end, NULL);
            return;
        } else {
            s.track = track;
            s.dur_ns = 0;
            s.flags = STINT_SLICE_INSTANT | STINT_SLICE_ASYNC;
            stint_model_instant_stat(m, STINT_TRACK_ASYNC, s.cat, s.name);
            idx = stint_model_add_slice(m, &s);
        }
        if (idx != STINT_NO_ID && scope == STINT_ASYNC_GLOBAL) /* its own process, not the track's */
            stint_model_slice_from_process(m, idx, pid);
        break;
    }
    case 'C':
        handle_counter(r, e, pid, ts, at);
        return;
    case 's':
    case 't':
    case 'f': {
        /* v1 flow identity: cat + name + id */
        uint32_t key = stint_model_flow_key(m, s.cat, s.name, flow_id(r, e->id.set ? &e->id : &e->id2, at));
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
    if (idx != STINT_NO_ID && e->bind_id.set && !e->flow_in && !e->flow_out)
        stint_model_repair(m, STINT_REPAIR_FLOW_NO_DIRECTION,
                           "byte %llu: '%s' has a bind_id but neither flow_in nor flow_out (no arrow)",
                           (unsigned long long)offset_of(r, at), stint_model_str(m, s.name, NULL));
    if (idx != STINT_NO_ID && e->bind_id.set && (e->flow_in || e->flow_out)) {
        /* flow v2: the key is the bind id alone, apart from v1 keys */
        stint_model_flow(m, STINT_FLOW_V2, STINT_BA_AT(&m->slices, struct stint_slice, idx).track, ts,
                         stint_model_flow_key(m, STINT_NO_ID, STINT_NO_ID, flow_id(r, &e->bind_id, at)), 0, idx,
                         e->flow_in, e->flow_out);
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

/* The error for a trace object that ends without a traceEvents array. */
#define NO_TRACE_EVENTS                                                                                            \
    "no \"traceEvents\" array in the object (expected a Chrome JSON trace: an array of events, or an object "   \
    "with a \"traceEvents\" array)"

/* ---- sizes mode (STINT_MODEL_SIZES, sizes.h): events measured, not modelled ---- */

/* The model's id for a key stint_json_string found at k (kn raw bytes,
 * escaped when esc), unescaped. */
static uint32_t key_id(struct creader *r, const char *k, size_t kn, int esc)
{
    if (esc) {
        char *b = scratch(r, kn);
        kn = stint_json_unescape(k, kn, b);
        k = b;
    }
    return stint_model_intern(r->m, k, kn);
}

/* An event's pid or tid as add_event resolves it (resolve_pid/_tid), without
 * counting a repair: add_event never sees a measured event. */
static int64_t peek_id(struct creader *r, const struct span *sp, int is_tid, int64_t pid)
{
    if (!sp->set)
        return is_tid ? pid : 0;
    int64_t v;
    if (span_i64(r, sp, &v) == 0 || (!sp->str && integral_number(sp->s, sp->n, &v)))
        return is_tid && v == 0 ? pid : v;
    uint32_t id = intern_span(r, sp);
    return is_tid ? stint_model_synthetic_tid(r->m, pid, id) : stint_model_synthetic_pid(r->m, id);
}

/* Whether an event passes the filters (filters.h), read as a slice of its
 * own: its pid and tid, cat, name, and [ts, ts + dur) (dur 0 when it has
 * none) overlapping --time-range; an event without a valid ts fails a range.
 * --min-dur is refused before reading (cmd_sizes.c). */
static int size_pass(struct creader *r, const struct event *e, const struct stint_filter *f)
{
    struct stint_model *m = r->m;
    struct stint_filter_rec w = {.has_tid = 1}; /* (the fields the set filters look at) */
    if (f->has_pid || f->has_tid) {
        w.pid = peek_id(r, &e->pid, 0, 0);
        w.tid = f->has_tid ? peek_id(r, &e->tid, 1, w.pid) : 0;
    }
    if (f->cat)
        w.cat = stint_model_str(m, intern_span(r, &e->cat), NULL);
    if (f->name_glob)
        w.name = stint_model_str(m, intern_span(r, &e->name), NULL);
    if (f->has_range) {
        w.has_ts = e->ts.set && parse_time(r, &e->ts, &w.ts) == 0;
        if (e->dur.set && (parse_time(r, &e->dur, &w.dur) != 0 || w.dur < 0))
            w.dur = 0;
    }
    return stint_filter_rec(f, &w);
}

/* Counts each member of the object whose text is [a, b) (parse_event has
 * checked its syntax) by key: into the event keys (args 0) or the args
 * keys (args 1). */
static void size_members(struct creader *r, const char *a, const char *b, int args)
{
    struct stint_sizes *z = r->m->sizes;
    struct stint_json j = {.p = a + 1, .end = b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS,
                           .at_eof = 1};
    const char *k0, *k;
    size_t kn;
    int kesc;
    while (next_member(&j, &k0, &k, &kn, &kesc)) {
        if (stint_json_skip(&j) != STINT_JSON_OK)
            return;
        uint32_t key = key_id(r, k, kn, kesc);
        if (args)
            stint_sizes_arg_key(z, key, (uint64_t)(j.p - k0));
        else
            stint_sizes_event_key(z, key, (uint64_t)(j.p - k0));
    }
}

/* Measures the event whose text is [a, b) into the model's tally. */
static void size_event(struct creader *r, const struct event *e, const char *a, const char *b)
{
    struct stint_sizes *z = r->m->sizes;
    uint64_t bytes = (uint64_t)(b - a), ab = e->args_a ? (uint64_t)(e->args_b - e->args_a) : 0;
    if (r->o && r->o->event_filter && !size_pass(r, e, r->o->event_filter)) {
        z->filtered_events++;
        z->filtered_bytes += bytes;
        return;
    }
    stint_sizes_event(z, intern_span(r, &e->ph), intern_span(r, &e->cat), intern_span(r, &e->name), bytes, ab);
    size_members(r, a, b, 0);
    if (e->args_a)
        size_members(r, e->args_a, e->args_b, 1);
}

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
        case S_OBJ_FIRST:
        case S_OBJ_NEXT:
        case S_OBJ_KEY: {
            int ev = *state == S_EV_FIRST || *state == S_EV_NEXT || *state == S_EV_COMMA;
            if (!ev && !r->saw_events && r->obj_keys) {
                j->err = NO_TRACE_EVENTS;
                j->err_at = j->p;
                return STINT_JSON_ERR;
            }
            stint_model_repair(m, STINT_REPAIR_MISSING_CLOSE, "byte %llu: input ends without the closing %s",
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
            if (!r->saw_events && r->obj_keys) {
                /* some other JSON object (a speedscope file, a config): not an empty trace */
                j->err = NO_TRACE_EVENTS;
                j->err_at = j->p;
                return STINT_JSON_ERR;
            }
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
        r->obj_keys++;
        if (key_is(k, kn, "traceEvents")) {
            if (c != '[') {
                j->err = "expected an array '[' of events as the value of \"traceEvents\"";
                j->err_at = j->p;
                return STINT_JSON_ERR;
            }
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
        if (m->sizes)
            stint_sizes_top_key(m->sizes, stint_model_intern(m, k, kn), (uint64_t)(j->p - save));
        else if (key_is(k, kn, "metadata") && *v0 == '{')
            walk_args(r, v0, j->p, "json_metadata", sink_metadata, NULL);
        else if (key_is(k, kn, "systemTraceEvents") && !(*v0 == '"' && j->p - v0 == 2))
            /* Perfetto reads this ftrace text (or Fuchsia object) as a trace of its own */
            stint_model_drop(m, "byte %llu: \"systemTraceEvents\" (a system trace beside the events) is not "
                                "read: left out (expected only traceEvents)",
                             (unsigned long long)offset_of(r, v0));
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
            /* events back to back without returning to the caller: the
             * state and j->p stay what single steps would leave, so MORE,
             * the window end and the split boundary are seen as before */
            for (;;) {
                struct event e;
                const char *at = j->p;
                unit_start(r, j);
                int rc = parse_event(j, &e, &r->hints);
                if (rc != STINT_JSON_OK)
                    return rc;
                if (m->sizes)
                    size_event(r, &e, at, j->p);
                else
                    add_event(r, &e, at);
                *state = S_EV_NEXT;
                if (ws_fast(j) != ',')
                    return STINT_JSON_OK;
                j->p++;
                *state = S_EV_COMMA;
                if (ws_fast(j) != '{')
                    return STINT_JSON_OK;
            }
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
