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
#include "read/json.h"
#include "read/jsonl_scan.h"
#include "write/textout.h"
#include "base/tsparse.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
    "usage: stint memory SESSION.jsonl [--json] [--timeline] [--strict] [--format jsonl] [--time-range A:B]\n"
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
    uint32_t *hash;
    size_t hcap;
};

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint32_t str_id(struct strtab *t, const char *s, size_t n)
{
    if ((t->n + 1) * 2 > t->hcap) {
        size_t hcap = t->hcap ? t->hcap * 2 : 256;
        uint32_t *h = malloc(hcap * sizeof *h);
        if (!h)
            return UINT32_MAX;
        memset(h, 0xff, hcap * sizeof *h);
        for (size_t i = 0; i < t->n; i++) {
            size_t k = (size_t)fnv(t->v[i], strlen(t->v[i])) & (hcap - 1);
            while (h[k] != UINT32_MAX)
                k = (k + 1) & (hcap - 1);
            h[k] = (uint32_t)i;
        }
        free(t->hash);
        t->hash = h;
        t->hcap = hcap;
    }
    size_t k = (size_t)fnv(s, n) & (t->hcap - 1);
    while (t->hash[k] != UINT32_MAX) {
        const char *e = t->v[t->hash[k]];
        if (strlen(e) == n && !memcmp(e, s, n))
            return t->hash[k];
        k = (k + 1) & (t->hcap - 1);
    }
    t->hash[k] = (uint32_t)t->n;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **nv = realloc(t->v, cap * sizeof *nv);
        if (!nv)
            return UINT32_MAX;
        t->v = nv;
        t->cap = cap;
    }
    t->v[t->n] = strndup(s, n);
    if (!t->v[t->n])
        return UINT32_MAX;
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
    int oom;
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

/* The id of prefix + the n bytes at s in t (the whole name, however long);
 * UINT32_MAX when out of memory. */
static uint32_t key_id(struct strtab *t, const char *prefix, const char *s, size_t n)
{
    size_t pl = strlen(prefix);
    char small[256], *key = n + pl <= sizeof small ? small : malloc(n + pl);
    if (!key)
        return UINT32_MAX;
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
 * caller frees it). Returns 0, or -1 out of memory (nothing owned). */
static int decode_str(struct stint_jl_val *v)
{
    if (v->type != STINT_JL_STRING || !v->escaped)
        return 0;
    char *b = malloc(v->len ? v->len : 1);
    if (!b) {
        v->escaped = 0;
        return -1;
    }
    v->len = stint_json_unescape(v->p, v->len, b);
    v->p = b;
    return 0;
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
        if (stint_jl_get(line, len, "schema", &sc) != 0 || decode_str(&sc)) {
            c->oom = 1;
            return 3;
        }
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
        struct rec *nr = realloc(c->r, cap * sizeof *nr);
        if (!nr) {
            c->oom = 1;
            return 3;
        }
        c->r = nr;
        c->cap = cap;
    }
    struct rec *r = &c->r[c->n];
    r->ts = t;
    r->bytes = nbytes;
    r->seq = c->n;
    r->is_free = (uint8_t)is_free;
    if (decode_str(&tensor) || decode_str(&cat) || decode_str(&dev)) {
        free(tensor.escaped ? (void *)tensor.p : NULL);
        free(cat.escaped ? (void *)cat.p : NULL);
        c->oom = 1;
        return 3;
    }
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
    if (r->tensor == UINT32_MAX || r->category == UINT32_MAX || r->device == UINT32_MAX) {
        c->oom = 1;
        return 3;
    }
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

int stint_cmd_memory(int argc, char **argv)
{
    int timeline = 0;
    const struct stint_cmd_extra ex[] = {{"--timeline", NULL, NULL, &timeline, 1}};
    if (stint_cmd_take_extras("memory", &argc, argv, ex, 1) == 2)
        return 2;
    struct stint_cmd_opts o;
    const struct stint_cmd_spec spec = {
        "memory", STINT_FILT_RANGE | STINT_TAKES_JSON,
        "memory records replay one session's allocations (the filter here is --time-range)",
        "memory prints a text report, or JSON with --json", "jsonl",
        "memory records exist only in JSONL sessions"};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    struct mctx c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    c.path = o.path;
    uint64_t torn = 0; /* a last line without '\n', dropped as the session reader drops it */
    rc = stint_jl_each(o.path, mem_line, &c, &torn, err, sizeof err);
    int cut = 0;
    if (!rc && !c.have_meta && !c.oom && c.lines > c.bad) /* (no line at all: said below as for the reader) */
        rc = session_error(&c, c.lines, "no meta record (expected a meta record first)");
    if (!rc && !c.lines) { /* (a lone torn line is no record either, as for the session reader) */
        snprintf(c.fatal, sizeof c.fatal, "%s: no records (expected a meta record first)", o.path);
        rc = 1;
    }
    if (rc) {
        fprintf(stderr, "stint: error: %s\n", c.oom ? "out of memory" : c.fatal[0] ? c.fatal : err);
        if (c.oom || !c.lines) {
            stint_report_end(stderr, o.path, 1, 0);
            goto out;
        }
        /* what was read before the error is reported, PARTIAL, with the error's exit code */
        cut = 1;
        stint_report_end(stderr, o.path, 0, 1);
    }
    if (c.bad)
        fprintf(stderr, "stint: %s: %" PRIu64 " line(s) not usable (first: %s)\n", o.path, c.bad, c.first_bad);
    if (c.lines && c.bad == c.lines) {
        fprintf(stderr, "stint: %s: no line is a JSON object: not a JSONL session\n", o.path);
        rc = rc ? rc : 1;
    }
    char torn_what[96] = "";
    if (torn) {
        snprintf(torn_what, sizeof torn_what, "line %llu: last line has no newline (a writer cut mid-line): dropped",
                 (unsigned long long)torn);
        fprintf(stderr, "stint: %s: repaired 1 x torn_record (first: %s)\n", o.path, torn_what);
    }
    if (o.strict && !rc && (c.bad || c.unknown_alloc || torn)) {
        /* --strict: a line left out, an alloc's size taken as 0 or a torn last line is an error; the
         * report is still printed */
        fprintf(stderr, "stint: error: %s: --strict: %s\n", o.path,
                c.bad ? c.first_bad : torn ? torn_what : c.first_unknown);
        rc = 1;
    }
    if (c.n > 1) {
        qsort(c.r, c.n, sizeof *c.r, rec_cmp);
        uint32_t *stamp = calloc(c.tensors.n + 1, sizeof *stamp);
        struct rec *tmp = malloc(c.n * sizeof *tmp);
        if (!stamp || !tmp) {
            free(stamp);
            free(tmp);
            fprintf(stderr, "stint memory: out of memory\n");
            rc = 3;
            goto out;
        }
        order_instants(c.r, c.n, stamp, tmp);
        free(stamp);
        free(tmp);
    }
    /* live bytes per tensor (index = tensor id), per category and device;
     * whether a tensor is live is its own flag: a live tensor can hold 0
     * bytes (an empty shape, or an unknown dtype) */
    size_t nt = c.tensors.n + 1, nn = c.names.n + 1;
    uint64_t *live_t = calloc(nt, sizeof *live_t);
    uint8_t *on_t = calloc(nt, sizeof *on_t);
    uint32_t *cat_t = calloc(nt, sizeof *cat_t), *dev_t = calloc(nt, sizeof *dev_t);
    uint64_t *by_name = calloc(nn, sizeof *by_name), *peak_by_name = calloc(nn, sizeof *peak_by_name);
    if (!live_t || !on_t || !cat_t || !dev_t || !by_name || !peak_by_name) {
        fprintf(stderr, "stint memory: out of memory\n");
        rc = 3;
        goto out2;
    }
    /* The replay always covers the whole input in time order: a window
     * [A, B) (--time-range) only selects the span that is reported. Records
     * before A are applied silently (what they leave live is carried in);
     * counts, the peak and the timeline are the window's; records at or
     * after B are not needed. */
    const int win = o.filter.has_range;
    const int64_t wa = win ? o.filter.t0 : INT64_MIN, wb = win ? o.filter.t1 : INT64_MAX;
    uint64_t live = 0, peak = 0, allocs = 0, frees = 0, unmatched = 0, realloc_live = 0;
    uint64_t live_at_start = 0, win_records = 0;
    int64_t peak_ts = 0;
    int have_peak = 0, opened = 0, overflow_ts_set = 0;
    int64_t overflow_ts = 0;
    FILE *f = stdout;
    if (o.json)
        fputs("{\"schema\":\"stint.memory/1\",", f);
    if (timeline) {
        if (o.json)
            fputs("\"timeline\":[", f);
        else
            fprintf(f, "%20s %16s\n", "ts_ns", "live_bytes");
    }
    size_t emitted = 0;
    for (size_t i = 0; i <= c.n; i++) {
        const struct rec *r = i < c.n ? &c.r[i] : NULL;
        if (r && win && r->ts >= wb)
            r = NULL; /* sorted: the rest is after the window */
        if (!opened && (!r || r->ts >= wa)) {
            /* the window opens: what is live now was carried in */
            opened = 1;
            live_at_start = live;
            if (wa != INT64_MIN) {
                if (live) {
                    peak = live;
                    peak_ts = wa;
                    have_peak = 1;
                    memcpy(peak_by_name, by_name, nn * sizeof *by_name);
                }
                if (timeline) {
                    if (o.json)
                        fprintf(f, "[%" PRId64 ",%" PRIu64 "]", wa, live);
                    else
                        fprintf(f, "%20" PRId64 " %16" PRIu64 "\n", wa, live);
                    emitted++;
                }
            }
        }
        if (!r)
            break;
        const int inside = opened;
        if (inside)
            win_records++;
        uint32_t tid = r->tensor == UINT32_MAX - 1 ? UINT32_MAX : r->tensor;
        if (!r->is_free) {
            if (inside)
                allocs++;
            if (tid != UINT32_MAX && on_t[tid]) {
                /* alloc of a live tensor: the old one is replaced (counted) */
                if (inside)
                    realloc_live++;
                live -= live_t[tid];
                by_name[cat_t[tid]] -= live_t[tid];
                by_name[dev_t[tid]] -= live_t[tid];
            }
            /* (2^64 bytes live is no real session: said, and the file is bad data) */
            if (__builtin_add_overflow(live, r->bytes, &live) && !overflow_ts_set) {
                overflow_ts = r->ts;
                overflow_ts_set = 1;
            }
            by_name[r->category] += r->bytes;
            by_name[r->device] += r->bytes;
            if (tid != UINT32_MAX) {
                live_t[tid] = r->bytes;
                on_t[tid] = 1;
                cat_t[tid] = r->category;
                dev_t[tid] = r->device;
            }
            if (inside && (live > peak || !have_peak)) {
                peak = live;
                peak_ts = r->ts;
                have_peak = 1;
                memcpy(peak_by_name, by_name, nn * sizeof *by_name);
            }
        } else {
            if (inside)
                frees++;
            if (tid == UINT32_MAX || !on_t[tid]) {
                if (inside)
                    unmatched++;
                continue;
            }
            live -= live_t[tid];
            by_name[cat_t[tid]] -= live_t[tid];
            by_name[dev_t[tid]] -= live_t[tid];
            live_t[tid] = 0;
            on_t[tid] = 0;
        }
        if (timeline && inside) {
            if (o.json)
                fprintf(f, "%s[%" PRId64 ",%" PRIu64 "]", emitted ? "," : "", r->ts, live);
            else
                fprintf(f, "%20" PRId64 " %16" PRIu64 "\n", r->ts, live);
            emitted++;
        }
    }
    /* which names are categories and which devices */
    uint8_t *is_cat = calloc(nn, 1), *is_dev = calloc(nn, 1);
    if (!is_cat || !is_dev) {
        free(is_cat);
        free(is_dev);
        rc = 3;
        goto out2;
    }
    for (size_t i = 0; i < c.n; i++) /* (a free's category and device are its alloc's, not its own) */
        if (!c.r[i].is_free) {
            is_cat[c.r[i].category] = 1;
            is_dev[c.r[i].device] = 1;
        }
    if (overflow_ts_set) {
        fprintf(stderr,
                "stint: error: %s: live bytes pass 2^64-1 at ts %" PRId64
                " ns: the byte counts from there on are not exact\n",
                o.path, overflow_ts);
        if (!rc)
            rc = 1;
    }
    const char *scope =
        win ? "live bytes = sum of allocations not yet freed, from explicit memory records only (not "
              "device_memory checkpoints); at equal timestamps allocs come before frees, but for one that follows the free of its own tensor; the replay covers the "
              "whole file in time order and the window [start, end) only selects what is reported: live bytes "
              "at start = what records before the window left live (carried in), allocs, frees, frees without "
              "alloc, allocs of a live tensor, the peak and the timeline are the window's, live bytes at end = at "
              "the window's end; records (also given for the window), sizes unknown and device_memory records "
              "count the whole file"
            : "live bytes = sum of allocations not yet freed, from explicit memory records only (not "
              "device_memory checkpoints); at equal timestamps allocs come before frees, but for one that follows the free of its own tensor";
    /* the window's bounds in words, for the text output */
    char wtext[96] = "";
    if (win) {
        if (wa != INT64_MIN && wb != INT64_MAX)
            snprintf(wtext, sizeof wtext, "%" PRId64 " <= ts < %" PRId64 " ns", wa, wb);
        else if (wa != INT64_MIN)
            snprintf(wtext, sizeof wtext, "ts >= %" PRId64 " ns", wa);
        else if (wb != INT64_MAX)
            snprintf(wtext, sizeof wtext, "ts < %" PRId64 " ns", wb);
        else
            snprintf(wtext, sizeof wtext, "every timestamp");
    }
    if (o.json) {
        if (timeline)
            fputs("],", f);
        fputs("\"scope\":", f);
        stint_out_json_str(f, scope, strlen(scope));
        if (win) {
            fputs(",\"window\":{\"start_ns\":", f);
            if (wa == INT64_MIN)
                fputs("null", f);
            else
                fprintf(f, "%" PRId64, wa);
            fputs(",\"end_ns\":", f);
            if (wb == INT64_MAX)
                fputs("null", f);
            else
                fprintf(f, "%" PRId64, wb);
            fprintf(f, ",\"records\":%" PRIu64 ",\"live_bytes_at_start\":%" PRIu64 "}", win_records, live_at_start);
        }
        fprintf(f,
                ",\"records\":%zu,\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"frees_without_alloc\":%" PRIu64
                ",\"allocs_of_live_tensor\":%" PRIu64 ",\"sizes_unknown\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
                ",\"peak_ts_ns\":",
                c.n, allocs, frees, unmatched, realloc_live, c.unknown_size, peak);
        if (have_peak)
            fprintf(f, "%" PRId64, peak_ts);
        else
            fputs("null", f);
        fprintf(f, ",\"live_bytes_at_end\":%" PRIu64 ",\"device_memory_records\":%" PRIu64 ",\"peak_by_category\":{",
                live, c.device_records);
        int first = 1;
        for (size_t k = 0; k < c.names.n; k++)
            if (is_cat[k]) {
                if (!first)
                    putc(',', f);
                stint_out_json_str(f, c.names.v[k] + 2, strlen(c.names.v[k] + 2));
                fprintf(f, ":%" PRIu64, peak_by_name[k]);
                first = 0;
            }
        fputs("},\"peak_by_device\":{", f);
        first = 1;
        for (size_t k = 0; k < c.names.n; k++)
            if (is_dev[k]) {
                if (!first)
                    putc(',', f);
                stint_out_json_str(f, c.names.v[k] + 2, strlen(c.names.v[k] + 2));
                fprintf(f, ":%" PRIu64, peak_by_name[k]);
                first = 0;
            }
        fprintf(f, "},\"unusable_lines\":%" PRIu64 ",\"repairs\":{%s},\"partial\":%s}\n", c.bad,
                torn ? "\"torn_record\":1" : "", rc == 1 || cut ? "true" : "false");
    } else {
        /* without a window every number is the file's; with one, each line says whose it is */
        const char *in_win = win ? " in the window" : "";
        fprintf(f, "# %s\n", scope);
        if (rc == 1 || cut)
            fprintf(f, "# PARTIAL: the input ended in an error; what was read before it is reported\n");
        if (win) {
            fprintf(f, "window              %s\n", wtext);
            fprintf(f,
                    "memory records      %zu in the file; in the window %" PRIu64 " (%" PRIu64 " allocs, %" PRIu64
                    " frees)\n",
                    c.n, win_records, allocs, frees);
        } else {
            fprintf(f, "memory records      %zu (%" PRIu64 " allocs, %" PRIu64 " frees)\n", c.n, allocs, frees);
        }
        fprintf(f, "frees without alloc %" PRIu64 "%s%s\n", unmatched, in_win, unmatched ? " (counted, ignored)" : "");
        if (realloc_live)
            fprintf(f, "allocs of a live tensor %" PRIu64 "%s (the earlier size is replaced)\n", realloc_live, in_win);
        if (c.unknown_size)
            fprintf(f, "sizes unknown       %" PRIu64 "%s (no bytes and no known dtype: counted as 0)\n",
                    c.unknown_size, win ? " in the file" : "");
        if (win) {
            if (wa != INT64_MIN)
                fprintf(f, "live bytes at start %" PRIu64 " (carried in: live at ts %" PRId64 " ns)\n", live_at_start,
                        wa);
            else
                fprintf(f, "live bytes at start 0 (the window has no start)\n");
        }
        if (have_peak)
            fprintf(f, "peak live bytes     %" PRIu64 " at ts %" PRId64 " ns%s\n", peak, peak_ts, in_win);
        else
            fprintf(f, "peak live bytes     - (no allocation%s)\n", in_win);
        if (win && wb != INT64_MAX)
            fprintf(f, "live bytes at end   %" PRIu64 " (at the window's end, ts %" PRId64 " ns)\n", live, wb);
        else if (win)
            fprintf(f, "live bytes at end   %" PRIu64 " (the window has no end: at the end of the file)\n", live);
        else
            fprintf(f, "live bytes at end   %" PRIu64 "\n", live);
        if (have_peak) {
            fprintf(f, "at the peak%s, by category:\n", in_win);
            for (size_t k = 0; k < c.names.n; k++)
                if (is_cat[k])
                    put_name_row(f, c.names.v[k] + 2, peak_by_name[k]);
            fprintf(f, "at the peak%s, by device:\n", in_win);
            for (size_t k = 0; k < c.names.n; k++)
                if (is_dev[k])
                    put_name_row(f, c.names.v[k][2] ? c.names.v[k] + 2 : "(none)", peak_by_name[k]);
        }
    }
    free(is_cat);
    free(is_dev);
    if (fflush(f) != 0) {
        fprintf(stderr, "stint memory: write error on stdout\n");
        rc = 3;
    }
out2:
    free(live_t);
    free(on_t);
    free(cat_t);
    free(dev_t);
    free(by_name);
    free(peak_by_name);
out:
    free(c.r);
    for (size_t k = 0; k < c.tensors.n; k++)
        free(c.tensors.v[k]);
    free(c.tensors.v);
    free(c.tensors.hash);
    free(c.names.hash);
    for (size_t k = 0; k < c.names.n; k++)
        free(c.names.v[k]);
    free(c.names.v);
    return rc;
}
