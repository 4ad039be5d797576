/* SPDX-License-Identifier: MIT */
/*
 * cmd_memory.c - `stint memory SESSION.jsonl`: live bytes over time from a
 * JSONL session's `memory` records (stint/session/1, candle-graph/trace/6).
 *
 * Records are ordered by timestamp; at equal timestamps allocations come
 * before frees (so a tensor allocated and freed "at once" still counts at
 * its size, and the peak is never understated), then file order. A free
 * subtracts what its tensor's alloc added; a free whose tensor has no live
 * alloc is counted and changes nothing (never fatal). A record without
 * bytes (or bytes 0) takes its size from shape x dtype (the session format's
 * dtype table); unknown dtypes give 0 and are counted. Reported: allocs,
 * frees, unmatched frees, peak live bytes and when, the breakdown by
 * category (and device) at the peak, live bytes at the end, and with
 * --timeline the series itself.
 *
 * --time-range A:B never changes what is live: the whole input is replayed
 * in time order and [A, B) only selects what is reported (live bytes at A,
 * carried in from earlier records; the peak inside the window, where the
 * carried-in bytes count at A; the window's allocs, frees and timeline; live
 * bytes at B). Record counts are given for the file and for the window.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "cmd/cmd_memory_chrome.h"
#include "cmd/slots.h"
#include "read/json.h"
#include "read/jsonl_scan.h"
#include "write/textout.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/tsparse.h"
#include "base/xalloc.h"
#include "base/term.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
    "usage: stint memory SESSION.jsonl|TRACE.json [--json] [--timeline] [--strict] [--format jsonl|chrome]\n"
    "                    [--time-range A:B]\n"
    "  a Chrome trace: Kineto [memory] records per process and device (allocs, frees, peaks\n"
    "  of the allocator's Total Allocated and Total Reserved and when, totals at the end)\n"
    "  live bytes over time from memory records: peak (and when), breakdown by category\n"
    "  and device at the peak, allocations, frees, frees without an alloc (counted, not\n"
    "  fatal); at equal timestamps allocs come before frees (but\n"
    "  for one that follows the free of its own tensor)\n"
    "  --time-range A:B reports the window A <= t < B of the whole replay: what was\n"
    "  allocated before A and is not yet freed stays live (carried in); the report gives\n"
    "  live bytes at A, the peak inside the window and when, the window's allocs and\n"
    "  frees, live bytes at B, and memory records for the file and for the window\n";

struct rec {
    int64_t ts;
    uint64_t bytes;
    uint64_t seq;
    uint32_t tensor, category, device; /* ids in the string table below */
    uint8_t is_free;
};

/* Interned strings with an open-addressing hash (tensor ids can be many). */
struct strtab {
    char **v;
    size_t n, cap;
    struct stint_slots idx;
};

static uint32_t str_id(struct strtab *t, const char *s, size_t n)
{
    if (stint_slots_full(&t->idx, t->n)) {
        stint_slots_reset(&t->idx, t->idx.cap ? t->idx.cap * 2 : 256);
        for (size_t i = 0; i < t->n; i++)
            stint_slots_put(&t->idx, stint_hash_bytes(t->v[i], strlen(t->v[i])), (uint32_t)i);
    }
    uint32_t *slot = t->idx.slot;
    size_t k = stint_slots_home(&t->idx, stint_hash_bytes(s, n));
    for (; slot[k] != STINT_SLOT_EMPTY; k = stint_slots_next(&t->idx, k)) {
        const char *e = t->v[slot[k]];
        if (strlen(e) == n && !memcmp(e, s, n))
            return slot[k];
    }
    slot[k] = (uint32_t)t->n;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        t->v = stint_xreallocarray(t->v, cap, sizeof *t->v);
        t->cap = cap;
    }
    t->v[t->n] = stint_xstrndup(s, n);
    return (uint32_t)t->n++;
}

struct mctx {
    struct rec *r;
    size_t n, cap;
    struct strtab tensors, names; /* names: "c:<category>" and "d:<device>" */
    uint64_t lines, bad, unknown_size, device_records;
    char first_bad[200];
    uint64_t unknown_alloc;  /* allocs among unknown_size */
    char first_unknown[200]; /* the first of them */
    const char *path;
    uint64_t objects; /* lines that are JSON objects */
    int have_meta;
    char fatal[320]; /* the session error that stopped the read ("" when none) */
};

static uint64_t dtype_size(const char *s, size_t n)
{
    static const struct {
        const char *name;
        unsigned size;
    } tab[] = {{"u8", 1},  {"i8", 1},  {"bool", 1}, {"f8", 1},  {"u16", 2}, {"i16", 2}, {"f16", 2},
               {"bf16", 2}, {"u32", 4}, {"i32", 4},  {"f32", 4}, {"u64", 8}, {"i64", 8}, {"f64", 8}};
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
        if (strlen(tab[k].name) == n && !strncasecmp(tab[k].name, s, n))
            return tab[k].size;
    return 0;
}

/* Elements of a shape array text "[a,b,...]" times the dtype size, into
 * *out. Returns 0 when that size is known (0 for a shape with a 0 in it),
 * -1 when it is not (no shape, an unknown dtype, a bad dimension, overflow;
 * *out is then 0). */
static int shape_bytes(const struct stint_jl_val *shape, const struct stint_jl_val *dtype, uint64_t *out)
{
    *out = 0;
    if (shape->type != STINT_JL_ARRAY || dtype->type != STINT_JL_STRING)
        return -1;
    uint64_t size = dtype_size(dtype->p, dtype->len);
    if (!size)
        return -1;
    uint64_t elems = 1;
    const char *p = shape->p + 1, *end = shape->p + shape->len - 1;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        if (p >= end)
            break;
        const char *q = p;
        while (q < end && *q != ',' && *q != ' ')
            q++;
        int64_t d;
        if (stint_parse_i64(p, (size_t)(q - p), &d) != 0 || d < 0)
            return -1;
        if (d && elems > UINT64_MAX / (uint64_t)d)
            return -1;
        elems *= (uint64_t)d;
        p = q;
    }
    if (elems > UINT64_MAX / size)
        return -1;
    *out = elems * size;
    return 0;
}

/* The id of prefix + the n bytes at s in t (the whole name, however long). */
static uint32_t key_id(struct strtab *t, const char *prefix, const char *s, size_t n)
{
    size_t pl = strlen(prefix);
    char small[256], *key = n + pl <= sizeof small ? small : stint_xmalloc(n + pl);
    memcpy(key, prefix, pl);
    memcpy(key + pl, s, n);
    uint32_t id = str_id(t, key, n + pl);
    if (key != small)
        free(key);
    return id;
}

/* A tensor id, category or device name is keyed and shown decoded (a "\t" in the JSON
 * is a tab, shown as \t in text and JSON alike, not as \\t): a string with
 * escapes is decoded into a new buffer (v->escaped then marks it owned; the
 * caller frees it). */
static void decode_str(struct stint_jl_val *v)
{
    if (v->type != STINT_JL_STRING || !v->escaped)
        return;
    char *b = stint_xmalloc(v->len ? v->len : 1);
    v->len = stint_json_unescape(v->p, v->len, b);
    v->p = b;
}

/* Stops the read at line lineno with a session error (exit 1; what was read
 * before it is reported, PARTIAL). */
static int session_error(struct mctx *c, uint64_t lineno, const char *what)
{
    snprintf(c->fatal, sizeof c->fatal, "%s: line %llu: %s", c->path, (unsigned long long)lineno, what);
    return 1;
}

static int mem_line(void *vctx, const char *line, size_t len, uint64_t lineno)
{
    struct mctx *c = vctx;
    struct stint_jl_val kind;
    c->lines++;
    if (stint_jl_get(line, len, "kind", &kind) != 0) {
        if (!c->bad++)
            snprintf(c->first_bad, sizeof c->first_bad, "line %llu: not a JSON object", (unsigned long long)lineno);
        return 0;
    }
    /* kind, decoded ("\u006demory" is memory); longer than any kind read here
     * once decoded (13 bytes; an escape takes up to 6 per byte): "" */
    char kb[16 * 6];
    size_t kl = 0;
    if (kind.type == STINT_JL_STRING && kind.len <= sizeof kb) {
        if (kind.escaped)
            kl = stint_json_unescape(kind.p, kind.len, kb);
        else
            memcpy(kb, kind.p, kl = kind.len);
    }
#define KIND_IS(lit) (kl == sizeof lit - 1 && !memcmp(kb, lit, kl))
    /* the session's own rules, as the session reader checks them: one meta
     * record of a known schema, the first JSON object */
    c->objects++;
    if (KIND_IS("meta")) {
        struct stint_jl_val sc;
        if (c->have_meta)
            return session_error(c, lineno, "a second meta record (expected exactly one, the first record)");
        if (c->objects != 1)
            return session_error(c, lineno, "meta is not the first record (expected it before every other record)");
        if (stint_jl_get(line, len, "schema", &sc) != 0)
            stint_die_nomem(); /* (the line was read as an object just above: only memory can fail) */
        decode_str(&sc);
        int known = sc.type == STINT_JL_STRING && stint_jl_schema_known(sc.p, sc.len);
        free(sc.escaped ? (void *)sc.p : NULL);
        if (!known)
            return session_error(c, lineno,
                                 "unknown schema (expected \"stint/session/1\" or \"candle-graph/trace/6\")");
        c->have_meta = 1;
        return 0;
    }
    if (!c->have_meta)
        return session_error(c, lineno, "no meta record before this one (expected a meta record first)");
    if (KIND_IS("device_memory")) {
        c->device_records++;
        return 0;
    }
    if (!KIND_IS("memory"))
        return 0;
#undef KIND_IS
    struct stint_jl_val ts, bytes, action, tensor, cat, dev, shape, dtype;
    if (stint_jl_get(line, len, "timestamp_ns", &ts) || stint_jl_get(line, len, "bytes", &bytes) ||
        stint_jl_get(line, len, "action", &action) || stint_jl_get(line, len, "tensor_id", &tensor) ||
        stint_jl_get(line, len, "category", &cat) || stint_jl_get(line, len, "device", &dev) ||
        stint_jl_get(line, len, "shape", &shape) || stint_jl_get(line, len, "dtype", &dtype))
        return 0;
    int64_t t, b = 0;
    int is_free = action.type == STINT_JL_STRING && action.len == 4 && !memcmp(action.p, "free", 4);
    int is_alloc = action.type == STINT_JL_STRING && action.len == 5 && !memcmp(action.p, "alloc", 5);
    int tensor_ok = tensor.type == STINT_JL_NONE || tensor.type == STINT_JL_STRING || tensor.type == STINT_JL_NUMBER;
    if (ts.type != STINT_JL_NUMBER || stint_parse_i64(ts.p, ts.len, &t) != 0 || (!is_free && !is_alloc) || !tensor_ok ||
        (bytes.type == STINT_JL_NUMBER && (stint_parse_i64(bytes.p, bytes.len, &b) != 0 || b < 0))) {
        if (!c->bad++)
            snprintf(c->first_bad, sizeof c->first_bad,
                     "line %llu: memory record needs integer timestamp_ns, bytes >= 0, action alloc|free and a "
                     "string or number tensor_id",
                     (unsigned long long)lineno);
        return 0;
    }
    uint64_t nbytes = (uint64_t)b;
    if (!nbytes) {
        /* a shape with a 0 in it of a known dtype is a known size, 0 */
        if (shape_bytes(&shape, &dtype, &nbytes) != 0 && bytes.type != STINT_JL_NUMBER) {
            /* a free's size is its alloc's: only an alloc's size can be unknown */
            if (is_alloc)
                c->unknown_size++;
            if (is_alloc && !c->unknown_alloc++)
                snprintf(c->first_unknown, sizeof c->first_unknown,
                         "line %llu: alloc record has no bytes and no shape of a known dtype (counted as 0 bytes)",
                         (unsigned long long)lineno);
        }
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        c->r = stint_xreallocarray(c->r, cap, sizeof *c->r);
        c->cap = cap;
    }
    struct rec *r = &c->r[c->n];
    r->ts = t;
    r->bytes = nbytes;
    r->seq = c->n;
    r->is_free = (uint8_t)is_free;
    decode_str(&tensor);
    decode_str(&cat);
    decode_str(&dev);
    /* a tensor id is its decoded text: a string's, or a number's (which no
     * string id meets: "s:" and "n:" keep them apart) */
    r->tensor = UINT32_MAX - 1;
    if (tensor.type == STINT_JL_STRING || tensor.type == STINT_JL_NUMBER)
        r->tensor = key_id(&c->tensors, tensor.type == STINT_JL_STRING ? "s:" : "n:", tensor.p, tensor.len);
    free(tensor.escaped ? (void *)tensor.p : NULL);
    r->category = cat.type == STINT_JL_STRING ? key_id(&c->names, "c:", cat.p, cat.len) : key_id(&c->names, "c:", "other", 5);
    r->device = dev.type == STINT_JL_STRING ? key_id(&c->names, "d:", dev.p, dev.len) : key_id(&c->names, "d:", "", 0);
    free(cat.escaped ? (void *)cat.p : NULL);
    free(dev.escaped ? (void *)dev.p : NULL);
    c->n++;
    return 0;
}

/* One "  NAME  BYTES" line of the by-category / by-device lists: the name
 * escaped for text (one row stays one line), padded to 16 by its escaped length. */
static void put_name_row(FILE *f, const char *name, uint64_t bytes)
{
    size_t n = strlen(name), w = stint_out_text_len(name, n);
    fputs("  ", f);
    stint_out_text_str(f, name, n);
    fprintf(f, "%*s %16" PRIu64 "\n", w < 16 ? (int)(16 - w) : 0, "", bytes);
}

static int rec_cmp(const void *pa, const void *pb)
{
    const struct rec *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Orders the records of each timestamp (r[] sorted by ts, then input
 * order): allocs before frees, so that what is live together at one instant
 * counts in the peak, but for the alloc of a tensor whose free comes before
 * it at that timestamp (freed and allocated again), which stays after that
 * free. A stable partition in one pass: the front records move down in
 * place, the rest wait in tmp. stamp has one slot per tensor id, zeroed;
 * tmp holds n records. */
static void order_instants(struct rec *r, size_t n, uint32_t *stamp, struct rec *tmp)
{
    uint32_t gid = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].ts == r[i].ts)
            j++;
        if (j - i > 1) {
            gid++;
            size_t front = i, rest = 0;
            for (size_t k = i; k < j; k++) {
                uint32_t t = r[k].tensor;
                int known = t < UINT32_MAX - 1;
                if (r[k].is_free && known)
                    stamp[t] = gid;
                if (r[k].is_free || (known && stamp[t] == gid))
                    tmp[rest++] = r[k];
                else
                    r[front++] = r[k];
            }
            memcpy(&r[front], tmp, rest * sizeof *r);
        }
        i = j;
    }
}

/* Reads o->path into c and says on stderr what was wrong with it. Returns
 * the exit code so far; *torn is the line number of a torn last line (0:
 * none), torn_what its words; *cut is set when the read ended in an error
 * after some lines (the report is PARTIAL); *no_report when nothing can be
 * reported. */
static int mem_read(const struct stint_cmd_opts *o, struct mctx *c, uint64_t *torn, char *torn_what, size_t tw_cap,
                    int *cut, int *no_report)
{
    char err[600] = "";
    c->path = o->path;
    /* torn: a last line without '\n', dropped as the session reader drops it */
    int rc = stint_jl_each(o->path, mem_line, c, torn, err, sizeof err);
    if (!rc && !c->have_meta && c->lines > c->bad) /* (no line at all: said below as for the reader) */
        rc = session_error(c, c->lines, "no meta record (expected a meta record first)");
    if (!rc && !c->lines) { /* (a lone torn line is no record either, as for the session reader) */
        snprintf(c->fatal, sizeof c->fatal, "%s: no records (expected a meta record first)", o->path);
        rc = STINT_EXIT_DATA;
    }
    if (rc) {
        fputs("stint: error: ", stderr);
        stint_term_msg(stderr, c->fatal[0] ? c->fatal : err); /* (quotes the input: escaped) */
        fputc('\n', stderr);
        if (!c->lines) {
            stint_report_end(stderr, o->path, 1, 0);
            *no_report = 1;
            return rc;
        }
        /* what was read before the error is reported, PARTIAL, with the error's exit code */
        *cut = 1;
        stint_report_end(stderr, o->path, 0, 1);
    }
    if (c->bad)
        fprintf(stderr, "stint: %s: %" PRIu64 " line(s) not usable (first: %s)\n", o->path, c->bad, c->first_bad);
    if (c->lines && c->bad == c->lines) {
        fprintf(stderr, "stint: %s: no line is a JSON object: not a JSONL session\n", o->path);
        rc = rc ? rc : STINT_EXIT_DATA;
    }
    if (*torn) {
        snprintf(torn_what, tw_cap, "line %llu: last line has no newline (a writer cut mid-line): dropped",
                 (unsigned long long)*torn);
        fprintf(stderr, "stint: %s: dropped 1 x torn_record (first: %s)\n", o->path, torn_what);
    }
    /* (a line left out and a torn line are drops; an alloc's size taken as 0 is a repair) */
    if (!rc && (((o->strict & STINT_STRICT_DROPS) && (c->bad || *torn)) ||
                ((o->strict & STINT_STRICT_REPAIRS) && c->unknown_alloc))) {
        /* --strict: a line left out, an alloc's size taken as 0 or a torn last line is an error; the
         * report is still printed */
        int drops = (o->strict & STINT_STRICT_DROPS) != 0;
        fprintf(stderr, "stint: error: %s: --strict: %s\n", o->path,
                drops && c->bad ? c->first_bad : drops && *torn ? torn_what : c->first_unknown);
        rc = STINT_EXIT_DATA;
    }
    return rc;
}

/* The replay's state and what it found. Live bytes per tensor (index =
 * tensor id), per category and device; whether a tensor is live is its own
 * flag: a live tensor can hold 0 bytes (an empty shape, or an unknown dtype). */
struct replay {
    size_t nt, nn;
    uint64_t *live_t;
    uint8_t *on_t;
    uint32_t *cat_t, *dev_t;
    uint64_t *by_name, *peak_by_name;
    int win, json, timeline;
    int64_t wa, wb; /* the window [wa, wb) */
    uint64_t live, peak, allocs, frees, unmatched, realloc_live, live_at_start, win_records;
    int64_t peak_ts;
    int have_peak, opened, overflow_ts_set;
    int64_t overflow_ts;
    size_t emitted; /* timeline points written */
};

/* One timeline point. */
static void put_point(FILE *f, struct replay *p, int64_t ts)
{
    if (p->json)
        fprintf(f, "%s[%" PRId64 ",%" PRIu64 "]", p->emitted ? "," : "", ts, p->live);
    else
        fprintf(f, "%20" PRId64 " %16" PRIu64 "\n", ts, p->live);
    p->emitted++;
}

/* The peak is now, at ts. */
static void take_peak(struct replay *p, int64_t ts)
{
    p->peak = p->live;
    p->peak_ts = ts;
    p->have_peak = 1;
    memcpy(p->peak_by_name, p->by_name, p->nn * sizeof *p->by_name);
}

/* Takes tensor tid's bytes out of what is live. */
static void unlive(struct replay *p, uint32_t tid)
{
    p->live -= p->live_t[tid];
    p->by_name[p->cat_t[tid]] -= p->live_t[tid];
    p->by_name[p->dev_t[tid]] -= p->live_t[tid];
}

/* Applies one record (inside: in the window, counted). */
static void apply(struct replay *p, const struct rec *r, int inside)
{
    uint32_t tid = r->tensor == UINT32_MAX - 1 ? UINT32_MAX : r->tensor;
    if (r->is_free) {
        p->frees += (uint64_t)inside;
        if (tid == UINT32_MAX || !p->on_t[tid]) {
            p->unmatched += (uint64_t)inside;
            return;
        }
        unlive(p, tid);
        p->live_t[tid] = 0;
        p->on_t[tid] = 0;
        return;
    }
    p->allocs += (uint64_t)inside;
    if (tid != UINT32_MAX && p->on_t[tid]) {
        /* alloc of a live tensor: the old one is replaced (counted) */
        p->realloc_live += (uint64_t)inside;
        unlive(p, tid);
    }
    /* (2^64 bytes live is no real session: said, and the file is bad data) */
    if (__builtin_add_overflow(p->live, r->bytes, &p->live) && !p->overflow_ts_set) {
        p->overflow_ts = r->ts;
        p->overflow_ts_set = 1;
    }
    p->by_name[r->category] += r->bytes;
    p->by_name[r->device] += r->bytes;
    if (tid != UINT32_MAX) {
        p->live_t[tid] = r->bytes;
        p->on_t[tid] = 1;
        p->cat_t[tid] = r->category;
        p->dev_t[tid] = r->device;
    }
    if (inside && (p->live > p->peak || !p->have_peak))
        take_peak(p, r->ts);
}

/* The replay always covers the whole input in time order: a window [A, B)
 * (--time-range) only selects the span that is reported. Records before A
 * are applied silently (what they leave live is carried in); counts, the
 * peak and the timeline are the window's; records at or after B are not
 * needed. Timeline points go to f as they come. */
static void replay_all(FILE *f, struct replay *p, const struct rec *recs, size_t n)
{
    for (size_t i = 0; i <= n; i++) {
        const struct rec *r = i < n ? &recs[i] : NULL;
        if (r && p->win && r->ts >= p->wb)
            r = NULL; /* sorted: the rest is after the window */
        if (!p->opened && (!r || r->ts >= p->wa)) {
            /* the window opens: what is live now was carried in */
            p->opened = 1;
            p->live_at_start = p->live;
            if (p->wa != INT64_MIN) {
                if (p->live)
                    take_peak(p, p->wa);
                if (p->timeline)
                    put_point(f, p, p->wa);
            }
        }
        if (!r)
            break;
        const int inside = p->opened;
        p->win_records += (uint64_t)inside;
        uint64_t unmatched = p->unmatched;
        apply(p, r, inside);
        if (p->timeline && inside && p->unmatched == unmatched)
            put_point(f, p, r->ts);
    }
}

/* The names that are categories (is_dev 0) or devices (1) at the peak, as
 * JSON members "NAME":BYTES. */
static void put_names_json(FILE *f, const struct mctx *c, const uint8_t *is, const uint64_t *peak_by_name)
{
    int first = 1;
    for (size_t k = 0; k < c->names.n; k++)
        if (is[k]) {
            if (!first)
                putc(',', f);
            stint_out_json_str(f, c->names.v[k] + 2, strlen(c->names.v[k] + 2));
            fprintf(f, ":%" PRIu64, peak_by_name[k]);
            first = 0;
        }
}

/* What the report prints besides the replay. */
struct mem_report {
    const struct mctx *c;
    const struct replay *p;
    const uint8_t *is_cat, *is_dev;
    const char *scope;
    uint64_t torn;
    int partial;
};

static void put_json(FILE *f, const struct mem_report *m)
{
    const struct mctx *c = m->c;
    const struct replay *p = m->p;
    if (p->timeline)
        fputs("],", f);
    fputs("\"scope\":", f);
    stint_out_json_str(f, m->scope, strlen(m->scope));
    if (p->win) {
        fputs(",\"window\":{\"start_ns\":", f);
        if (p->wa == INT64_MIN)
            fputs("null", f);
        else
            fprintf(f, "%" PRId64, p->wa);
        fputs(",\"end_ns\":", f);
        if (p->wb == INT64_MAX)
            fputs("null", f);
        else
            fprintf(f, "%" PRId64, p->wb);
        fprintf(f, ",\"records\":%" PRIu64 ",\"live_bytes_at_start\":%" PRIu64 "}", p->win_records,
                p->live_at_start);
    }
    fprintf(f,
            ",\"records\":%zu,\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"frees_without_alloc\":%" PRIu64
            ",\"allocs_of_live_tensor\":%" PRIu64 ",\"sizes_unknown\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
            ",\"peak_ts_ns\":",
            c->n, p->allocs, p->frees, p->unmatched, p->realloc_live, c->unknown_size, p->peak);
    if (p->have_peak)
        fprintf(f, "%" PRId64, p->peak_ts);
    else
        fputs("null", f);
    fprintf(f, ",\"live_bytes_at_end\":%" PRIu64 ",\"device_memory_records\":%" PRIu64 ",\"peak_by_category\":{",
            p->live, c->device_records);
    put_names_json(f, c, m->is_cat, p->peak_by_name);
    fputs("},\"peak_by_device\":{", f);
    put_names_json(f, c, m->is_dev, p->peak_by_name);
    fprintf(f, "},\"unusable_lines\":%" PRIu64 ",\"repairs\":{%s},\"partial\":%s}\n", c->bad,
            m->torn ? "\"torn_record\":1" : "", m->partial ? "true" : "false");
}

/* The window's bounds in words, for the text output. */
static void window_words(char *w, size_t cap, int64_t wa, int64_t wb)
{
    if (wa != INT64_MIN && wb != INT64_MAX)
        snprintf(w, cap, "%" PRId64 " <= ts < %" PRId64 " ns", wa, wb);
    else if (wa != INT64_MIN)
        snprintf(w, cap, "ts >= %" PRId64 " ns", wa);
    else if (wb != INT64_MAX)
        snprintf(w, cap, "ts < %" PRId64 " ns", wb);
    else
        snprintf(w, cap, "every timestamp");
}

static void put_text(FILE *f, const struct mem_report *m)
{
    const struct mctx *c = m->c;
    const struct replay *p = m->p;
    const int win = p->win;
    /* without a window every number is the file's; with one, each line says whose it is */
    const char *in_win = win ? " in the window" : "";
    fprintf(f, "# %s\n", m->scope);
    if (m->partial)
        fprintf(f, "# PARTIAL: the input ended in an error; what was read before it is reported\n");
    if (win) {
        char wtext[96];
        window_words(wtext, sizeof wtext, p->wa, p->wb);
        fprintf(f, "window              %s\n", wtext);
        fprintf(f,
                "memory records      %zu in the file; in the window %" PRIu64 " (%" PRIu64 " allocs, %" PRIu64
                " frees)\n",
                c->n, p->win_records, p->allocs, p->frees);
    } else {
        fprintf(f, "memory records      %zu (%" PRIu64 " allocs, %" PRIu64 " frees)\n", c->n, p->allocs, p->frees);
    }
    fprintf(f, "frees without alloc %" PRIu64 "%s%s\n", p->unmatched, in_win,
            p->unmatched ? " (counted, ignored)" : "");
    if (p->realloc_live)
        fprintf(f, "allocs of a live tensor %" PRIu64 "%s (the earlier size is replaced)\n", p->realloc_live, in_win);
    if (c->unknown_size)
        fprintf(f, "sizes unknown       %" PRIu64 "%s (no bytes and no known dtype: counted as 0)\n",
                c->unknown_size, win ? " in the file" : "");
    if (win) {
        if (p->wa != INT64_MIN)
            fprintf(f, "live bytes at start %" PRIu64 " (carried in: live at ts %" PRId64 " ns)\n", p->live_at_start,
                    p->wa);
        else
            fprintf(f, "live bytes at start 0 (the window has no start)\n");
    }
    if (p->have_peak)
        fprintf(f, "peak live bytes     %" PRIu64 " at ts %" PRId64 " ns%s\n", p->peak, p->peak_ts, in_win);
    else
        fprintf(f, "peak live bytes     - (no allocation%s)\n", in_win);
    if (win && p->wb != INT64_MAX)
        fprintf(f, "live bytes at end   %" PRIu64 " (at the window's end, ts %" PRId64 " ns)\n", p->live, p->wb);
    else if (win)
        fprintf(f, "live bytes at end   %" PRIu64 " (the window has no end: at the end of the file)\n", p->live);
    else
        fprintf(f, "live bytes at end   %" PRIu64 "\n", p->live);
    if (p->have_peak) {
        fprintf(f, "at the peak%s, by category:\n", in_win);
        for (size_t k = 0; k < c->names.n; k++)
            if (m->is_cat[k])
                put_name_row(f, c->names.v[k] + 2, p->peak_by_name[k]);
        fprintf(f, "at the peak%s, by device:\n", in_win);
        for (size_t k = 0; k < c->names.n; k++)
            if (m->is_dev[k])
                put_name_row(f, c->names.v[k][2] ? c->names.v[k] + 2 : "(none)", p->peak_by_name[k]);
    }
}

static const char scope_file[] =
    "live bytes = sum of allocations not yet freed, from explicit memory records only (not "
    "device_memory checkpoints); at equal timestamps allocs come before frees, but for one that follows the free of "
    "its own tensor";
static const char scope_window[] =
    "live bytes = sum of allocations not yet freed, from explicit memory records only (not "
    "device_memory checkpoints); at equal timestamps allocs come before frees, but for one that follows the free of "
    "its own tensor; the replay covers the "
    "whole file in time order and the window [start, end) only selects what is reported: live bytes "
    "at start = what records before the window left live (carried in), allocs, frees, frees without "
    "alloc, allocs of a live tensor, the peak and the timeline are the window's, live bytes at end = at "
    "the window's end; records (also given for the window), sizes unknown and device_memory records "
    "count the whole file";

/* Replays c's records (sorted) and prints the report. Returns rc, or the
 * exit code it becomes (bad data on an overflow, I/O on a write error). */
static int report(const struct stint_cmd_opts *o, struct mctx *c, int timeline, uint64_t torn, int cut, int rc)
{
    struct replay p;
    memset(&p, 0, sizeof p);
    p.nt = c->tensors.n + 1;
    p.nn = c->names.n + 1;
    p.live_t = stint_xcalloc(p.nt, sizeof *p.live_t);
    p.on_t = stint_xcalloc(p.nt, sizeof *p.on_t);
    p.cat_t = stint_xcalloc(p.nt, sizeof *p.cat_t);
    p.dev_t = stint_xcalloc(p.nt, sizeof *p.dev_t);
    p.by_name = stint_xcalloc(p.nn, sizeof *p.by_name);
    p.peak_by_name = stint_xcalloc(p.nn, sizeof *p.peak_by_name);
    p.win = o->filter.has_range;
    p.json = o->json;
    p.timeline = timeline;
    p.wa = p.win ? o->filter.t0 : INT64_MIN;
    p.wb = p.win ? o->filter.t1 : INT64_MAX;
    FILE *f = stdout;
    if (o->json)
        fputs("{\"schema\":\"stint.memory/1\",", f);
    if (timeline) {
        if (o->json)
            fputs("\"timeline\":[", f);
        else
            fprintf(f, "%20s %16s\n", "ts_ns", "live_bytes");
    }
    replay_all(f, &p, c->r, c->n);
    /* which names are categories and which devices */
    uint8_t *is_cat = stint_xcalloc(p.nn, 1), *is_dev = stint_xcalloc(p.nn, 1);
    for (size_t i = 0; i < c->n; i++) /* (a free's category and device are its alloc's, not its own) */
        if (!c->r[i].is_free) {
            is_cat[c->r[i].category] = 1;
            is_dev[c->r[i].device] = 1;
        }
    if (p.overflow_ts_set) {
        fprintf(stderr,
                "stint: error: %s: live bytes pass 2^64-1 at ts %" PRId64
                " ns: the byte counts from there on are not exact\n",
                o->path, p.overflow_ts);
        if (!rc)
            rc = STINT_EXIT_DATA;
    }
    const struct mem_report m = {c, &p, is_cat, is_dev, p.win ? scope_window : scope_file, torn,
                                 rc == STINT_EXIT_DATA || cut};
    if (o->json)
        put_json(f, &m);
    else
        put_text(f, &m);
    free(is_cat);
    free(is_dev);
    if (stint_cmd_close_out("memory", f, "stdout") != 0)
        rc = STINT_EXIT_IO;
    free(p.live_t);
    free(p.on_t);
    free(p.cat_t);
    free(p.dev_t);
    free(p.by_name);
    free(p.peak_by_name);
    return rc;
}

/* Frees a string table. */
static void strtab_free(struct strtab *t)
{
    for (size_t k = 0; k < t->n; k++)
        free(t->v[k]);
    free(t->v);
    free(t->idx.slot);
}

int stint_cmd_memory(int argc, char **argv)
{
    int timeline = 0;
    const struct stint_cmd_extra ex[] = {{"--timeline", NULL, NULL, &timeline, 1}};
    if (stint_cmd_take_extras("memory", &argc, argv, ex, 1) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    struct stint_cmd_opts o;
    const struct stint_cmd_spec spec = {
        "memory", STINT_FILT_RANGE | STINT_TAKES_JSON,
        "memory records replay one session's allocations (the filter here is --time-range)",
        "memory prints a text report, or JSON with --json", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    /* the formats with memory records: a JSONL session's, a Chrome trace's Kineto [memory] events */
    const char *fmt = o.format ? o.format : strcmp(o.path, "-") ? stint_detect_format(o.path) : "jsonl";
    if (fmt && !strcmp(fmt, "chrome"))
        return stint_memory_chrome(&o, timeline);
    if (fmt && strcmp(fmt, "jsonl") != 0) { /* (a marker log or a capture: named as what it is, not as lines not usable) */
        if (o.format)
            fprintf(stderr, "stint memory: --format: '%s': expected jsonl or chrome (memory reads JSONL sessions' "
                            "memory records and Chrome traces' Kineto [memory] events)\n", o.format);
        else
            fprintf(stderr, "stint memory: %s is %s: memory reads JSONL sessions (memory records) and "
                            "Chrome traces (Kineto [memory] events)\n", o.path,
                    !strcmp(fmt, "capture") ? "a binary capture (spans only)" : "a marker log");
        return STINT_EXIT_USAGE;
    }
    struct mctx c;
    memset(&c, 0, sizeof c);
    uint64_t torn = 0;
    char torn_what[96] = "";
    int cut = 0, no_report = 0;
    if ((rc = stint_cmd_no_relative_range("memory", &o)) >= 0)
        return rc;
    rc = mem_read(&o, &c, &torn, torn_what, sizeof torn_what, &cut, &no_report);
    if (!no_report) {
        if (c.n > 1) {
            stint_xqsort(c.r, c.n, sizeof *c.r, rec_cmp);
            uint32_t *stamp = stint_xcalloc(c.tensors.n + 1, sizeof *stamp);
            struct rec *tmp = stint_xreallocarray(NULL, c.n, sizeof *tmp);
            order_instants(c.r, c.n, stamp, tmp);
            free(stamp);
            free(tmp);
        }
        rc = report(&o, &c, timeline, torn, cut, rc);
    }
    free(c.r);
    strtab_free(&c.tensors);
    strtab_free(&c.names);
    return rc;
}
