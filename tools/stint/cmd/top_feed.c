/* SPDX-License-Identifier: MIT */
/*
 * top_feed.c - lines of a followed file -> spans for `stint top`
 * (top_feed.h).
 *
 * Invariants: the marker parser only ever gets whole lines (the follower
 * holds an unended one; a cut line gets its '\n' here, so the parser judges
 * it complete or torn at once and holds nothing between polls); a JSONL
 * session's open spans live in one open-addressing index by span number,
 * at most OPEN_CAP of them, removed at their end (backward-shift delete, no
 * tombstones); a Chrome lane's B events wait on its stack (at most
 * BE_DEPTH deep, BE_LANES lanes) for their E; every line is copied into a buffer with STINT_JSON_PAD zero
 * bytes after it before the JSON lookups read it.
 */
#include "cmd/top_feed.h"

#include "base/hash.h"
#include "base/tsparse.h"
#include "base/xalloc.h"
#include "read/json.h"
#include "read/jsonl_scan.h"
#include "read/follow.h"
#include "read/markers_parse.h"
#include "read/read_capture.h"

#include <stdlib.h>
#include <string.h>

#define OPEN_CAP ((uint32_t)1 << 16)
#define OPEN_SLOTS (OPEN_CAP * 2)

struct open_span {
    uint64_t id;      /* span number N of "sN"; 0: free slot */
    char *name;
    int64_t start_ns;
    uint64_t tid;
    int depth;
};

#define BE_LANES 256u /* Chrome B/E: lanes with open spans tracked, */
#define BE_DEPTH 64u  /* and open spans per lane */

struct be_open {
    char *name;
    int64_t ts;
    struct stint_top_span sp; /* the B's hid and inv */
};

struct be_lane {
    uint64_t pid, tid;
    struct be_open st[BE_DEPTH];
    unsigned n;
};

struct stint_top_feed {
    struct stint_top *t;
    enum stint_top_fmt fmt;
    struct stint_mparse *mp;
    struct stint_top_feed_counts c;
    char *line;          /* the padded copy of one JSON line */
    size_t line_cap;
    struct open_span *open; /* JSONL: OPEN_SLOTS slots */
    uint32_t open_n;
    uint64_t pid;        /* JSONL: the meta's pid */
    int64_t base_ns;     /* JSONL: the meta's clock_monotonic_ns (start_ns counts from it) */
    struct be_lane *be;  /* Chrome: BE_LANES lanes' open B events */
    unsigned be_n;
    struct stint_cap_dec *cap; /* capture: the decoder of the current file */
    char *win;                 /* capture: bytes read and not yet decoded (a block not yet whole) */
    size_t win_len, win_cap;
    uint64_t win_base;         /* capture: the file offset of win[0] */
    int cap_refused;           /* capture: its header is not one this reader reads (the rest is skipped) */
    char *cap_line;            /* capture: the marker record of the current span */
    size_t cap_line_cap;
};

/* ---- markers -------------------------------------------------------------- */

static int on_record(void *ctx, const struct stint_mparse_record *r)
{
    struct stint_top_feed *f = ctx;
    if (r->v != 1)
        f->c.unknown_version++;
    struct stint_top_span sp = {r->name.ptr, r->name.len, r->pid, r->tid, r->hid, r->inv, 1, 1,
                                r->depth > 1000000 ? 1000000 : (int)r->depth, r->ts_ns, r->dur_ns};
    if (stint_mparse_is_device(r)) {
        /* the device clock is not the host's: the span counts when it arrives */
        int64_t at = stint_top_last_end(f->t);
        sp.ts_ns = (at == INT64_MIN ? 0 : at) - r->dur_ns;
        f->c.device++;
    }
    stint_top_add(f->t, &sp);
    return 0;
}

static int on_loss(void *ctx, const struct stint_mparse_loss *l)
{
    struct stint_top_feed *f = ctx;
    if (l->ok)
        stint_top_loss(f->t, l->pid, l->tid, l->count);
    else
        f->c.bad_losses++;
    return 0;
}

static void on_torn(void *ctx, uint64_t off, uint64_t line, const char *why)
{
    struct stint_top_feed *f = ctx;
    (void)off;
    (void)line;
    (void)why;
    f->c.torn++;
}

/* ---- JSON helpers ----------------------------------------------------------- */

/* Copies the line into the padded buffer; returns it. */
static const char *padded(struct stint_top_feed *f, const char *p, size_t n)
{
    f->line = stint_xgrow(f->line, &f->line_cap, n + STINT_JSON_PAD + 1, 1, 4096);
    memcpy(f->line, p, n);
    memset(f->line + n, 0, STINT_JSON_PAD + 1);
    return f->line;
}

/* An integer value (a JSON number or a string of one); 0 when absent. */
static int get_i64(const char *line, size_t len, const char *path, int64_t *out)
{
    struct stint_jl_val v;
    if (stint_jl_get(line, len, path, &v) != 0 || (v.type != STINT_JL_NUMBER && v.type != STINT_JL_STRING))
        return 0;
    return stint_parse_i64(v.p, v.len, out) == 0;
}

/* The string at path, unescaped for the common escapes into dst (cap bytes,
 * NUL-terminated, cut to fit); returns its length, or -1 when absent. */
static long get_str(const char *line, size_t len, const char *path, char *dst, size_t cap)
{
    struct stint_jl_val v;
    if (stint_jl_get(line, len, path, &v) != 0 || v.type != STINT_JL_STRING)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < v.len && o + 1 < cap; i++) {
        char ch = v.p[i];
        if (ch == '\\' && i + 1 < v.len) {
            char e = v.p[++i];
            ch = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        dst[o++] = ch;
    }
    dst[o] = 0;
    return (long)o;
}

/* ---- JSONL sessions ---------------------------------------------------------- */

/* The slot of span number id (found, or the free slot where it goes). */
static uint32_t open_slot(const struct stint_top_feed *f, uint64_t id)
{
    uint32_t s = (uint32_t)stint_hash_splitmix64(id) & (OPEN_SLOTS - 1);
    while (f->open[s].id && f->open[s].id != id)
        s = (s + 1) & (OPEN_SLOTS - 1);
    return s;
}

/* Removes the span in slot s (backward-shift delete). */
static void open_remove(struct stint_top_feed *f, uint32_t s)
{
    free(f->open[s].name);
    f->open[s].id = 0;
    f->open_n--;
    for (uint32_t j = (s + 1) & (OPEN_SLOTS - 1); f->open[j].id; j = (j + 1) & (OPEN_SLOTS - 1)) {
        uint32_t home = (uint32_t)stint_hash_splitmix64(f->open[j].id) & (OPEN_SLOTS - 1);
        /* j's entry may move to s when its home is not in (s, j] cyclically */
        if (((j - home) & (OPEN_SLOTS - 1)) >= ((j - s) & (OPEN_SLOTS - 1))) {
            f->open[s] = f->open[j];
            f->open[j].id = 0;
            f->open[j].name = NULL;
            s = j;
        }
    }
}

/* "sN" -> N (0 when the id is not of that shape). */
static uint64_t span_number(const char *s)
{
    if (s[0] != 's' || !s[1])
        return 0;
    char *end;
    unsigned long long n = strtoull(s + 1, &end, 10);
    return *end ? 0 : (uint64_t)n;
}

static void jsonl_start(struct stint_top_feed *f, const char *l, size_t n)
{
    char id[64], parent[64], name[512];
    int64_t start = 0, tid = 0;
    if (get_str(l, n, "id", id, sizeof id) < 0 || get_str(l, n, "name", name, sizeof name) < 0 ||
        !get_i64(l, n, "start_ns", &start)) {
        f->c.bad_lines++;
        return;
    }
    get_i64(l, n, "tid", &tid);
    uint64_t num = span_number(id);
    if (!num || f->open_n >= OPEN_CAP) {
        f->c.unmatched++;
        return;
    }
    int depth = STINT_TOP_SESSION_ROOT; /* the root span: its children are depth 0 */
    if (get_str(l, n, "parent_id", parent, sizeof parent) >= 0) {
        uint32_t ps = open_slot(f, span_number(parent));
        depth = !f->open[ps].id || f->open[ps].depth < 0 ? 0 : f->open[ps].depth + 1;
    }
    uint32_t s = open_slot(f, num);
    if (f->open[s].id)
        open_remove(f, s), s = open_slot(f, num);
    f->open[s] = (struct open_span){num, stint_xstrdup(name), stint_sum_add(f->base_ns, start), (uint64_t)tid, depth};
    f->open_n++;
}

static void jsonl_end(struct stint_top_feed *f, const char *l, size_t n)
{
    char id[64];
    int64_t dur = 0;
    if (get_str(l, n, "id", id, sizeof id) < 0 || !get_i64(l, n, "duration_ns", &dur)) {
        f->c.bad_lines++;
        return;
    }
    uint64_t num = span_number(id);
    uint32_t s = num ? open_slot(f, num) : 0;
    if (!num || !f->open[s].id) {
        f->c.unmatched++;
        return;
    }
    struct open_span *o = &f->open[s];
    struct stint_top_span sp = {o->name, strlen(o->name), f->pid, o->tid, 0, 0, 0, 0, o->depth, o->start_ns, dur};
    stint_top_add(f->t, &sp);
    open_remove(f, s);
}

static void jsonl_line(struct stint_top_feed *f, const char *l, size_t n)
{
    char kind[32];
    if (get_str(l, n, "kind", kind, sizeof kind) < 0) {
        f->c.bad_lines++;
        return;
    }
    if (strcmp(kind, "span_start") == 0) {
        jsonl_start(f, l, n);
    } else if (strcmp(kind, "span_end") == 0) {
        jsonl_end(f, l, n);
    } else if (strcmp(kind, "dropped") == 0) {
        int64_t tid = 0, count = 0;
        get_i64(l, n, "tid", &tid);
        if (get_i64(l, n, "count", &count) && count >= 0)
            stint_top_loss(f->t, f->pid, (uint64_t)tid, (uint64_t)count);
        else
            f->c.bad_losses++;
    } else if (strcmp(kind, "meta") == 0) {
        int64_t v;
        f->pid = get_i64(l, n, "pid", &v) ? (uint64_t)v : 0;
        f->base_ns = get_i64(l, n, "clock_monotonic_ns", &v) ? v : 0;
    } else {
        f->c.skipped++;
    }
}

/* ---- Chrome JSON, one event per line ------------------------------------------ */

/* A time in microseconds (decimal text) as ns. */
static int get_us(const char *line, size_t len, const char *path, int64_t *out)
{
    struct stint_jl_val v;
    if (stint_jl_get(line, len, path, &v) != 0 || (v.type != STINT_JL_NUMBER && v.type != STINT_JL_STRING))
        return 0;
    return stint_parse_ts(v.p, v.len, 1000, out) == 0;
}

/* The hid and inv of an event's args, into sp. */
static void chrome_ids(const char *l, size_t len, struct stint_top_span *sp)
{
    char hid[40];
    int64_t inv;
    if (get_str(l, len, "args.hid", hid, sizeof hid) > 0) {
        sp->hid = strtoull(hid, NULL, 16);
        sp->has_hid = 1;
    }
    if (get_i64(l, len, "args.inv", &inv)) {
        sp->inv = (uint64_t)inv;
        sp->has_inv = 1;
    }
}

/* The B/E stack of lane (pid, tid): found, made (NULL when BE_LANES are taken). */
static struct be_lane *be_lane_of(struct stint_top_feed *f, uint64_t pid, uint64_t tid)
{
    for (unsigned i = 0; i < f->be_n; i++)
        if (f->be[i].pid == pid && f->be[i].tid == tid)
            return &f->be[i];
    if (f->be_n == BE_LANES)
        return NULL;
    if (!f->be)
        f->be = stint_xcalloc(BE_LANES, sizeof *f->be);
    struct be_lane *b = &f->be[f->be_n++];
    b->pid = pid;
    b->tid = tid;
    b->n = 0;
    return b;
}

/* A "B" event opens a span on its lane; an "E" event ends the lane's
 * innermost open one (its name is the B's, as Perfetto matches them). */
static void chrome_be(struct stint_top_feed *f, const char *l, size_t len, int begin)
{
    int64_t ts, pid = 0, tid = 0;
    char name[512];
    if (!get_us(l, len, "ts", &ts) || (begin && get_str(l, len, "name", name, sizeof name) < 0)) {
        f->c.bad_lines++;
        return;
    }
    get_i64(l, len, "pid", &pid);
    get_i64(l, len, "tid", &tid);
    struct be_lane *b = be_lane_of(f, (uint64_t)pid, (uint64_t)tid);
    if (begin) {
        if (!b || b->n == BE_DEPTH) {
            f->c.unmatched++;
            return;
        }
        struct be_open *o = &b->st[b->n++];
        memset(o, 0, sizeof *o);
        o->name = stint_xstrdup(name);
        o->ts = ts;
        o->sp.name_len = strlen(name);
        chrome_ids(l, len, &o->sp);
        return;
    }
    if (!b || !b->n) {
        f->c.unmatched++;
        return;
    }
    struct be_open *o = &b->st[--b->n];
    struct stint_top_span sp = o->sp;
    sp.name = o->name;
    sp.pid = (uint64_t)pid;
    sp.tid = (uint64_t)tid;
    sp.depth = (int)b->n;
    sp.ts_ns = o->ts;
    sp.dur_ns = ts - o->ts;
    if (!stint_top_add(f->t, &sp))
        f->c.bad_lines++; /* it ends before it begins */
    free(o->name);
    o->name = NULL;
}

static void chrome_line(struct stint_top_feed *f, const char *p, size_t n)
{
    const char *a = memchr(p, '{', n);
    const char *b = a ? memrchr(a, '}', n - (size_t)(a - p)) : NULL;
    if (!a || !b) { /* the array's brackets, the object's head or tail */
        f->c.skipped++;
        return;
    }
    size_t len = (size_t)(b - a) + 1;
    const char *l = padded(f, a, len);
    char ph[8], name[512];
    if (get_str(l, len, "ph", ph, sizeof ph) < 0) {
        if (stint_jl_get(l, len, "traceEvents", &(struct stint_jl_val){0}) != 0)
            f->c.bad_lines++;
        else
            f->c.skipped++;
        return;
    }
    if (strcmp(ph, "B") == 0 || strcmp(ph, "E") == 0) {
        chrome_be(f, l, len, ph[0] == 'B');
        return;
    }
    int64_t ts, dur, pid = 0, tid = 0;
    if (strcmp(ph, "X") != 0) {
        f->c.skipped++;
        return;
    }
    if (get_str(l, len, "name", name, sizeof name) < 0 || !get_us(l, len, "ts", &ts) || !get_us(l, len, "dur", &dur)) {
        f->c.bad_lines++;
        return;
    }
    get_i64(l, len, "pid", &pid);
    get_i64(l, len, "tid", &tid);
    struct stint_top_span sp = {name, strlen(name), (uint64_t)pid, (uint64_t)tid, 0, 0, 0, 0, -1, ts, dur};
    chrome_ids(l, len, &sp);
    stint_top_add(f->t, &sp);
}

/* ---- a binary capture ------------------------------------------------------ */

/* A span record: read as the marker record it stands for. */
static void cap_span(void *ctx, const struct stint_cap_span *s)
{
    struct stint_top_feed *f = ctx;
    struct stint_mparse_record r;
    stint_cap_span_record(s, &f->cap_line, &f->cap_line_cap, &r);
    on_record(f, &r);
}

static void cap_drop(void *ctx, int32_t pid, int32_t tid, uint64_t count, int64_t first_ns, int64_t last_ns)
{
    struct stint_top_feed *f = ctx;
    (void)first_ns, (void)last_ns;
    stint_top_loss(f->t, (uint64_t)(int64_t)pid, (uint64_t)(int64_t)tid, count);
}

/* A damaged block or entry: its entries count as torn records. */
static void cap_problem(void *ctx, enum stint_cap_problem kind, uint64_t off, uint64_t n, const char *why)
{
    struct stint_top_feed *f = ctx;
    (void)off, (void)why;
    f->c.torn += kind == STINT_CAP_P_TAIL || !n ? 1 : n;
}

/* Appends n bytes of the capture and decodes the whole blocks they complete. */
static void cap_bytes(struct stint_top_feed *f, const char *p, size_t n)
{
    if (f->cap_refused)
        return;
    if (!f->cap) {
        struct stint_cap_callbacks cb = {.ctx = f, .span = cap_span, .drop = cap_drop, .problem = cap_problem};
        f->cap = stint_cap_dec_new(&cb);
    }
    f->win = stint_xgrow(f->win, &f->win_cap, f->win_len + n, 1, 1 << 16);
    memcpy(f->win + f->win_len, p, n);
    f->win_len += n;
    const char *why = NULL;
    long used = stint_cap_dec_feed(f->cap, (const uint8_t *)f->win, f->win_len, f->win_base, 0, &why);
    if (used < 0) { /* not a capture this reader reads: counted once, the rest passed over */
        f->c.bad_lines++;
        f->cap_refused = 1;
        f->win_len = 0;
        return;
    }
    memmove(f->win, f->win + used, f->win_len - (size_t)used);
    f->win_len -= (size_t)used;
    f->win_base += (uint64_t)used;
}

/* ---- dispatch ------------------------------------------------------------------ */

/* The format one line says, or UNKNOWN (blank). */
static enum stint_top_fmt sniff(const char *p, size_t n)
{
    if (memmem(p, n, "[STRACE]", 8) || memmem(p, n, "[STINT] v=", 10))
        return STINT_TOP_FMT_MARKERS;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i == n)
        return STINT_TOP_FMT_UNKNOWN;
    if (p[i] == '{' && memmem(p, n, "\"kind\"", 6))
        return STINT_TOP_FMT_JSONL;
    if (p[i] == '{')
        return STINT_TOP_FMT_CHROME;
    if (p[i] == '[') { /* a JSON array opens with '[' then '{', ']' or the line's end; a log prefix does not */
        size_t j = i + 1;
        while (j < n && (p[j] == ' ' || p[j] == '\t' || p[j] == '\r'))
            j++;
        if (j == n || p[j] == '{' || p[j] == ']' || p[j] == '\n')
            return STINT_TOP_FMT_CHROME;
    }
    return STINT_TOP_FMT_MARKERS;
}

struct stint_top_feed *stint_top_feed_new(struct stint_top *t, enum stint_top_fmt fmt)
{
    struct stint_top_feed *f = stint_xcalloc(1, sizeof *f);
    f->t = t;
    f->fmt = fmt;
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_record;
    o.on_torn = on_torn;
    o.on_loss = on_loss;
    o.ctx = f;
    f->mp = stint_xcheck(stint_mparse_new(&o));
    return f;
}

void stint_top_feed_free(struct stint_top_feed *f)
{
    if (!f)
        return;
    stint_top_feed_restart(f);
    stint_mparse_free(f->mp);
    free(f->open);
    free(f->be);
    free(f->line);
    free(f->win);
    free(f->cap_line);
    free(f);
}

void stint_top_feed_restart(struct stint_top_feed *f)
{
    if (f->cap) { /* a capture's undecoded rest: a block its file will never complete */
        if (f->win_len)
            f->c.torn++;
        stint_cap_dec_free(f->cap);
        f->cap = NULL;
    }
    f->win_len = 0;
    f->win_base = 0;
    f->cap_refused = 0;
    for (unsigned i = 0; i < f->be_n; i++)
        for (unsigned j = 0; j < f->be[i].n; j++) {
            free(f->be[i].st[j].name);
            f->c.unmatched++; /* begun in the old file, never ended */
        }
    f->be_n = 0;
    if (f->open) {
        for (uint32_t s = 0; s < OPEN_SLOTS; s++)
            if (f->open[s].id) {
                free(f->open[s].name);
                f->open[s].id = 0;
                f->c.unmatched++; /* a span begun in the old file never ends */
            }
        f->open_n = 0;
    }
}

/* Feeds whole lines p[0..n) of a JSON format, one at a time. */
static void json_lines(struct stint_top_feed *f, const char *p, size_t n)
{
    const char *e = p + n;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);
        if (f->fmt == STINT_TOP_FMT_JSONL) {
            size_t k = len;
            while (k && (p[k - 1] == '\r' || p[k - 1] == ' '))
                k--;
            if (k)
                jsonl_line(f, padded(f, p, k), k);
        } else {
            chrome_line(f, p, len);
        }
        p += len + (nl != NULL);
    }
}

int stint_top_feed_lines(void *ctx, const char *p, size_t n, int what)
{
    struct stint_top_feed *f = ctx;
    if (what == STINT_FOLLOW_NEW_FILE) {
        stint_top_feed_restart(f);
        return 0;
    }
    if (what == STINT_FOLLOW_BYTES && (f->fmt == STINT_TOP_FMT_UNKNOWN || f->fmt == STINT_TOP_FMT_CAPTURE)) {
        f->fmt = STINT_TOP_FMT_CAPTURE;
        cap_bytes(f, p, n);
        return 0;
    }
    int cut = what == STINT_FOLLOW_CUT;
    while (f->fmt == STINT_TOP_FMT_UNKNOWN && n) { /* lines that say nothing are passed over */
        const char *nl = memchr(p, '\n', n);
        size_t len = nl ? (size_t)(nl - p) + 1 : n;
        f->fmt = sniff(p, len);
        if (f->fmt == STINT_TOP_FMT_UNKNOWN) {
            p += len;
            n -= len;
        }
    }
    if (!n)
        return 0;
    if (f->fmt == STINT_TOP_FMT_MARKERS) {
        if (stint_mparse_feed(f->mp, p, n) < 0 || (cut && stint_mparse_feed(f->mp, "\n", 1) < 0))
            stint_die_nomem();
        return 0;
    }
    if (f->open == NULL && f->fmt == STINT_TOP_FMT_JSONL)
        f->open = stint_xcalloc(OPEN_SLOTS, sizeof *f->open);
    json_lines(f, p, n);
    return 0;
}

enum stint_top_fmt stint_top_feed_format(const struct stint_top_feed *f)
{
    return f->fmt;
}

const char *stint_top_fmt_name(enum stint_top_fmt fmt)
{
    static const char *const names[] = {"unknown", "markers", "jsonl", "chrome", "capture"};
    return names[fmt];
}

void stint_top_feed_get_counts(const struct stint_top_feed *f, struct stint_top_feed_counts *out)
{
    *out = f->c;
    out->held_bytes = f->win_len;
}
