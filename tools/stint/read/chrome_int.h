/* SPDX-License-Identifier: MIT */
/*
 * chrome_int.h - what the Chrome JSON reader's files share (read/ internal).
 *
 * The reader is one pipeline split by job: read_chrome.c walks the
 * container (array or object form) and runs the read loop, chrome_event.c
 * parses one event object into a struct event (the hot path),
 * chrome_phase.c turns an event into model calls (one function per phase),
 * chrome_args.c walks args objects, chrome_sizes.c measures events instead
 * (sizes mode). Per-field helpers that the hot path calls are static inline
 * here, so each file keeps them inlined; what crosses files is at most one
 * call per event (stint_i_chrome_add_event or stint_i_chrome_size_event)
 * and the cache misses.
 */
#ifndef STINT_CLI_CHROME_INT_H
#define STINT_CLI_CHROME_INT_H

#include "read/readers.h"

#include "base/hash.h"
#include "base/tsparse.h"
#include "read/json.h"
#include "read/json_shape.h"

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
static inline void ehints_window(struct ehints *h, const struct stint_input *in)
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

/* Empty hints (no guess matches, no memo). */
static inline void ehints_init(struct ehints *h)
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
uint32_t stint_i_chrome_lane_fill(struct creader *r, struct lcache_ent *c, int64_t pid, int64_t tid);

/* A name cache miss: the model's id for sp (a, b: its first and last 8
 * bytes as intern_span read them), kept in entry c. */
uint32_t stint_i_chrome_intern_fill(struct creader *r, struct icache_ent *c, const struct span *sp, uint64_t a,
                                    uint64_t b);

/* The reader's unescape buffer with room for n bytes and a 0 (grown as
 * needed, out of memory ends the process); valid until the next call. */
char *stint_i_chrome_scratch(struct creader *r, size_t n);

/* The host-clock lane of (pid, tid), through the cache. */
static inline uint32_t host_lane(struct creader *r, int64_t pid, int64_t tid)
{
    struct lcache_ent *c = &r->lcache[stint_hash_slot((uint64_t)pid * STINT_HASH_GOLDEN ^ (uint64_t)tid, 6)];
    if (c->used && c->pid == pid && c->tid == tid)
        return c->lane;
    return stint_i_chrome_lane_fill(r, c, pid, tid);
}

/* The byte offset in the input of p, a place in the window. */
static inline uint64_t offset_of(const struct creader *r, const char *p)
{
    return r->in->base + (uint64_t)(p - r->in->buf);
}

/* A set span's text, unescaped (into the scratch buffer when it has
 * escapes, so valid until the next scratch()); its length in *n. */
static inline const char *span_text(struct creader *r, const struct span *sp, size_t *n)
{
    if (sp->str && sp->esc) {
        char *b = stint_i_chrome_scratch(r, sp->n);
        *n = stint_json_unescape(sp->s, sp->n, b);
        return b;
    }
    *n = sp->n;
    return sp->s;
}

/* The text s[0..n) that stint_json_string gave (escaped when esc),
 * unescaped into the scratch buffer when it has escapes: *s moves there;
 * returns the length. */
static inline size_t chrome_unescaped(struct creader *r, const char **s, size_t n, int esc)
{
    if (!esc)
        return n;
    char *b = stint_i_chrome_scratch(r, n);
    n = stint_json_unescape(*s, n, b);
    *s = b;
    return n;
}

/* The model's id for a span's text (unescaped), without the cache: for ids,
 * mostly unique (one flow's or async span's few events), which would only
 * crowd the cache. 0 for an absent or empty span. */
static inline uint32_t intern_id(struct creader *r, const struct span *sp)
{
    if (!sp->set || sp->n == 0)
        return 0;
    size_t n;
    const char *s = span_text(r, sp, &n);
    return stint_model_intern(r->m, s, n);
}

/* Whether bytes [8, n - 8) of x and y (n > 16 bytes each) are equal: whole
 * words, the last one overlapping its neighbour; inline, where a memcmp call
 * costs more than the compare for names of a few words. */
static inline __attribute__((always_inline)) int same_middle(const char *x, const char *y, uint32_t n)
{
    uint32_t i = 8;
    for (; i + 16 <= n; i += 8)
        if (stint_i_load_le64(x + i) != stint_i_load_le64(y + i))
            return 0;
    return stint_i_load_le64(x + n - 16) == stint_i_load_le64(y + n - 16);
}

/* The model's id for a name's or category's text (unescaped), through the
 * cache above (a hit returns what the model would). */
static inline __attribute__((always_inline)) uint32_t intern_span(struct creader *r, const struct span *sp)
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
    struct icache_ent *c = &r->icache[stint_hash_slot(a ^ (b * STINT_HASH_GOLDEN) ^ n, ICACHE_BITS)];
    if (c->a == a && c->b == b && c->len == n && (n <= 16 || same_middle(c->s, sp->s, n)))
        return c->id;
    return stint_i_chrome_intern_fill(r, c, sp, a, b);
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

static inline int key_is(const char *k, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && memcmp(k, lit, l) == 0;
}

/* The bytes a key of kn raw bytes that stint_json_string found escaped (esc)
 * reads as, unescaped into buf (KEY_BUF bytes, 8 more readable for
 * key_code), and their length; a key longer than that, which no key this
 * reader looks for can be even with an escape per letter, reads as "". */
enum { KEY_BUF = 128 };
static inline size_t key_text(const char **k, size_t kn, int esc, char *buf)
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

/* A span's integer value (converted already, or parsed now): 0, or -1 when it is none. */
static inline int span_i64(struct creader *r, const struct span *sp, int64_t *out)
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

/* A span's time in ns (converted already, or parsed now as microseconds): 0, else stint_parse_ts's error. */
static inline int parse_time(struct creader *r, const struct span *sp, int64_t *out)
{
    (void)r;
    if (sp->num == SPAN_NUM_US_NS) {
        *out = sp->v;
        return 0;
    }
    return stint_parse_ts(sp->s, sp->n, 1000, out);
}

/* The container's states (read_chrome.c; chrome_event.c's run of events
 * leaves S_EV_NEXT or S_EV_COMMA). */
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

/* ---- across the reader's files ---- */

/* Parses events back to back from j->p (at an event's '{', *state S_EV_FIRST
 * or S_EV_COMMA) and hands each to the model (or the sizes tally): returns
 * at the first byte that is no ',' followed by '{', with *state and j->p as
 * single steps would leave them; MORE or ERR from the event that needs them
 * (j->p back at its '{'). chrome_event.c. */
int stint_i_chrome_events(struct creader *r, struct stint_json *j, int *state);

/* One parsed event into the model; at: its '{' in the window, which holds
 * the whole object. chrome_phase.c. */
void stint_i_chrome_add_event(struct creader *r, const struct event *e, const char *at);

/* One parsed event, text [a, b), measured into the sizes tally instead.
 * chrome_sizes.c. */
void stint_i_chrome_size_event(struct creader *r, const struct event *e, const char *a, const char *b);

/* Whether the JSON number s[0..n) (with a fraction or an exponent) has an
 * integer value within int64, exactly (1e3, 1000.0, -2.50e1 do; 1.5, 1e30
 * do not); the value into *out. chrome_phase.c. */
int stint_i_chrome_integral_number(const char *s, size_t n, int64_t *out);

/* ---- args (chrome_args.c) ---- */

/* The args object [a, b) flattened ("args.k.sub", "args.list[0]") onto
 * slice idx / onto the slice the last E closed (model.h) / into the trace's
 * json_metadata (the object form's "metadata" value, prefix json_metadata). */
void stint_i_chrome_args_slice(struct creader *r, const char *a, const char *b, uint32_t idx);
void stint_i_chrome_args_end(struct creader *r, const char *a, const char *b);
void stint_i_chrome_args_metadata(struct creader *r, const char *a, const char *b);
/* args.correlation of the args object [a, b) as STINT_MODEL_ARGS_CORRELATION
 * reads it (readers.h, corr_fn): 1 and *out when the first one is an integer. */
int stint_i_chrome_args_corr(struct creader *r, const char *a, const char *b, int64_t *out);

/* A slice's args as the Chrome writer writes them: the `"key":value`
 * members of its "args" object, comma-separated, without the braces
 * (stint_i_chrome_args_render; write/write_chrome_args.c writes the same
 * bytes from the model's args). */
struct args_text {
    char *p; /* grows; owned by the caller */
    size_t len, cap;
    uint32_t nargs;    /* members written (at most 65535, as the model keeps) */
    uint64_t dropped;  /* args past those: left out, as the model drops them */
    uint64_t bad_utf8; /* bytes written as U+FFFD (the writers' count, write/textout.h) */
};

/* The args object [a, b) flattened as stint_i_chrome_args_slice flattens
 * it, but written into t as text (t emptied first), nothing interned: the
 * key less its "args." prefix as a JSON string, the value by its kind (an
 * integer in decimal, a real or deep JSON as its text, a string escaped as
 * the writers escape it, a bool). */
void stint_i_chrome_args_render(struct creader *r, const char *a, const char *b, struct args_text *t);

/* Finds a top-level arg by key in a raw args object [a, b): 1 with its
 * value span in *out, 0 when absent or not a string or number. */
int stint_i_chrome_find_arg(const char *a, const char *b, const char *key, struct span *out);

/* Steps j, inside an object after its '{', to the next member's value: 1
 * with the member's key (*k0 its '"'; k, kn, kesc as stint_json_string
 * gives them) and j->p at the value; 0 at the object's end or on bad
 * syntax. */
int stint_i_chrome_next_member(struct stint_json *j, const char **k0, const char **k, size_t *kn, int *kesc);

/* A cursor over a raw object or value [a, b) that an event's parse has
 * checked already, with the reader's leniencies. */
static inline struct stint_json chrome_sub_json(const char *a, const char *b)
{
    struct stint_json j = {.p = a, .end = b, .flags = STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, .at_eof = 1};
    return j;
}

#endif
