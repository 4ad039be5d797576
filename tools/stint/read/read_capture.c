/* SPDX-License-Identifier: MIT */
/*
 * read_capture.c - libstint's binary capture (docs/formats/capture.md): the
 * block decoder (read_capture.h) and the reader that maps it onto the model.
 *
 * A capture holds the spans a marker log would hold, in binary: each span
 * record is handed to read_markers.c's mapping (stint_i_markers_feed_*) as
 * the marker record the marker sink would have written for it, so a
 * capture and a marker log of the same run give the same slices, args,
 * call tree (from depth) and losses. Names are kept as recorded (a marker
 * log has whitespace in names turned into '_'); attribute keys and values
 * are turned into marker tokens by the marker sink's rules. Threads'
 * names name their lanes.
 *
 * Problems are counted, never repaired in silence: a torn last block is a
 * torn_record drop per entry lost (what was whole before the cut is kept),
 * a block whose sums fail or that cannot be a block is a drop per entry it
 * claimed, an unusable entry a drop.
 */
#include "read/read_capture.h"

#include "base/xalloc.h"
#include "model/filters.h"
#include "read/markers_parse.h"
#include "read/readers.h"
#include "read/sizes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the decoder ---------------------------------------------------------------------------- */

struct cap_strent {
    uint64_t off;
    uint32_t len;
    uint32_t set;
};

struct stint_cap_dec {
    struct stint_cap_callbacks cb;
    struct stint_cap_stats st;
    struct stint_cap_header h;
    int have_header;
    int skipping;   /* no block head where one should be: the rest is skipped */
    size_t want;    /* bytes needed in one window to go on */
    char *arena;    /* string bytes */
    size_t arena_len, arena_cap;
    struct cap_strent *strs; /* by id */
    size_t nstrs_cap;
    uint64_t id_bound; /* ids above this cannot be right: entries seen so far (bounds the table by the file) */
};

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

int stint_cap_is_capture(const void *buf, size_t len)
{
    return len >= 8 && memcmp(buf, STINT_CAP_MAGIC, 8) == 0;
}

struct stint_cap_dec *stint_cap_dec_new(const struct stint_cap_callbacks *cb)
{
    struct stint_cap_dec *d = stint_xcalloc(1, sizeof *d);
    if (cb)
        d->cb = *cb;
    d->want = STINT_CAP_HEADER_MIN;
    return d;
}

void stint_cap_dec_free(struct stint_cap_dec *d)
{
    if (!d)
        return;
    free(d->arena);
    free(d->strs);
    free(d);
}

size_t stint_cap_dec_want(const struct stint_cap_dec *d) { return d->want; }

const struct stint_cap_stats *stint_cap_dec_stats(const struct stint_cap_dec *d) { return &d->st; }

static void problem(struct stint_cap_dec *d, enum stint_cap_problem k, uint64_t off, uint64_t n, const char *why)
{
    if (d->cb.problem)
        d->cb.problem(d->cb.ctx, k, off, n, why);
}

/* The string of id, or 0 when it was never defined (id 0 is ""). */
static int str_of(const struct stint_cap_dec *d, uint32_t id, struct stint_cap_text *t)
{
    if (id == 0) {
        *t = (struct stint_cap_text){"", 0};
        return 1;
    }
    if (id >= d->nstrs_cap || !d->strs[id].set)
        return 0;
    *t = (struct stint_cap_text){d->arena + d->strs[id].off, d->strs[id].len};
    return 1;
}

/* A string entry: 0 when it cannot be one. */
static int entry_string(struct stint_cap_dec *d, const uint8_t *p, uint32_t size)
{
    if (size < 16)
        return 0;
    uint32_t id = get32(p + 8), len = get32(p + 12);
    if (id == 0 || len > size - 16 || pad8(len) + 16 != size || id > d->id_bound)
        return 0;
    if (id >= d->nstrs_cap) {
        size_t ncap = d->nstrs_cap ? d->nstrs_cap : 256;
        while (ncap <= id)
            ncap *= 2;
        d->strs = stint_xreallocarray(d->strs, ncap, sizeof *d->strs);
        memset(d->strs + d->nstrs_cap, 0, (ncap - d->nstrs_cap) * sizeof *d->strs);
        d->nstrs_cap = ncap;
    }
    if (d->arena_len + len + 1 > d->arena_cap) {
        size_t ncap = d->arena_cap ? d->arena_cap : 4096;
        while (ncap < d->arena_len + len + 1)
            ncap *= 2;
        d->arena = stint_xreallocarray(d->arena, ncap, 1);
        d->arena_cap = ncap;
    }
    memcpy(d->arena + d->arena_len, p + 16, len);
    d->arena[d->arena_len + len] = '\0';
    d->strs[id] = (struct cap_strent){d->arena_len, len, 1};
    d->arena_len += len + 1;
    d->st.strings++;
    return 1;
}

/* A span entry: 0 when it cannot be one (a size that does not add up, a
 * string id never defined). */
static int entry_span(struct stint_cap_dec *d, const uint8_t *p, uint32_t size, uint64_t off)
{
    if (size < 56)
        return 0;
    struct stint_cap_span s;
    uint16_t nattr;
    memcpy(&nattr, p + 6, 2);
    if (nattr > STINT_CAP_ATTR_MAX || 56 + (size_t)nattr * 16 > size)
        return 0;
    s.pid = d->h.pid;
    s.flags = p[5];
    s.tid = (int32_t)get32(p + 8);
    s.depth = (int32_t)get32(p + 12);
    if (!str_of(d, get32(p + 16), &s.name) || !str_of(d, get32(p + 20), &s.static_attrs))
        return 0;
    s.ts_ns = (int64_t)get64(p + 24);
    s.dur_ns = (int64_t)get64(p + 32);
    s.inv = get64(p + 40);
    s.hid = get64(p + 48);
    s.nattr = nattr;
    s.offset = off;
    s.size = size;
    size_t at = 56 + (size_t)nattr * 16;
    for (unsigned i = 0; i < nattr; i++) {
        const uint8_t *a = p + 56 + (size_t)i * 16;
        struct stint_cap_attr *x = &s.attrs[i];
        uint16_t slen;
        memcpy(&slen, a + 6, 2);
        if (!str_of(d, get32(a), &x->key))
            return 0;
        x->type = a[4];
        x->v = get64(a + 8);
        x->s = (struct stint_cap_text){"", 0};
        if (x->type == STINT_CAP_A_STR) {
            if (at + pad8(slen) > size)
                return 0;
            x->s = (struct stint_cap_text){(const char *)p + at, slen};
            at += pad8(slen);
        }
    }
    if (at != size)
        return 0;
    d->st.spans++;
    if (d->cb.span)
        d->cb.span(d->cb.ctx, &s);
    return 1;
}

/* One entry at p (size bytes, checked to lie in the block): 1 used, 0 bad. */
static int entry(struct stint_cap_dec *d, const uint8_t *p, uint32_t size, uint64_t off)
{
    switch (p[4]) {
    case STINT_CAP_E_STRING: return entry_string(d, p, size);
    case STINT_CAP_E_SPAN: return entry_span(d, p, size, off);
    case STINT_CAP_E_THREAD: {
        if (size < 24)
            return 0;
        struct stint_cap_text name = {(const char *)p + 24, size - 24};
        name.len = strnlen(name.ptr, name.len);
        d->st.threads++;
        if (d->cb.thread)
            d->cb.thread(d->cb.ctx, (int32_t)get32(p + 8), (int32_t)get32(p + 12), name);
        return 1;
    }
    case STINT_CAP_E_DROP:
        if (size < 40)
            return 0;
        d->st.drops++;
        if (d->cb.drop)
            d->cb.drop(d->cb.ctx, (int32_t)get32(p + 8), (int32_t)get32(p + 12), get64(p + 16), (int64_t)get64(p + 24),
                       (int64_t)get64(p + 32));
        return 1;
    case STINT_CAP_E_CLOCK: return size >= 32;
    default: return 0;
    }
}

/* The entries of payload[0..n) (file offset off). Good block (torn 0): an
 * entry that cannot be used is skipped (its size is known) and counted.
 * Cut block (torn 1): whole entries until the first that is not whole or
 * not right. Returns the entries taken; *used gets the bytes they span. */
static uint64_t entries(struct stint_cap_dec *d, const uint8_t *pl, size_t n, uint64_t off, int torn, size_t *used)
{
    size_t at = 0;
    uint64_t k = 0;
    while (n - at >= 8) {
        uint32_t size = get32(pl + at);
        if (size < 8 || size % 8 || size > n - at)
            break;
        d->id_bound++;
        if (!entry(d, pl + at, size, off + at)) {
            if (torn)
                break;
            d->st.bad_entries++;
            char why[96];
            snprintf(why, sizeof why, "entry of kind %u and %u bytes that cannot be read (skipped)", pl[at + 4],
                     size);
            problem(d, STINT_CAP_P_BAD_ENTRY, off + at, 1, why);
        }
        at += size;
        k++;
    }
    if (!torn && at != n) {
        d->st.bad_entries++;
        problem(d, STINT_CAP_P_BAD_ENTRY, off + at, 1, "entry sizes do not add up to the block's length (rest skipped)");
    }
    d->st.entries += k;
    *used = at;
    return k;
}

/* The header at buf[0..len): bytes it takes, 0 for more, -1 not readable. */
static long header(struct stint_cap_dec *d, const uint8_t *buf, size_t len, int eof, const char **why)
{
    if (len < STINT_CAP_HEADER_MIN) {
        if (!eof)
            return 0;
        *why = stint_cap_is_capture(buf, len) ? "the capture's header is cut (the file holds no block)"
                                              : "not a capture (no STINTCAP magic)";
        return -1;
    }
    if (!stint_cap_is_capture(buf, len)) {
        *why = "not a capture (no STINTCAP magic)";
        return -1;
    }
    uint32_t ver = get32(buf + 8), order = get32(buf + 12), hlen = get32(buf + 16);
    if (order != 0x01020304u) {
        *why = "written on a machine of the other byte order (this reader reads little-endian captures)";
        return -1;
    }
    if (ver != STINT_CAP_VERSION) {
        *why = "a capture of another version (this reader reads version 1)";
        return -1;
    }
    if (hlen < STINT_CAP_HEADER_MIN || hlen % 8 || hlen > 4096) {
        *why = "the header's length is not one a writer writes";
        return -1;
    }
    if (len < hlen) {
        if (!eof) {
            d->want = hlen;
            return 0;
        }
        *why = "the capture's header is cut (the file holds no block)";
        return -1;
    }
    d->h.version = ver;
    d->h.pid = (int32_t)get32(buf + 20);
    d->h.anchor_mono_ns = (int64_t)get64(buf + 24);
    d->h.anchor_real_ns = (int64_t)get64(buf + 32);
    d->h.clock = get32(buf + 40);
    d->have_header = 1;
    if (d->cb.header)
        d->cb.header(d->cb.ctx, &d->h);
    return (long)hlen;
}

/* Whether the block's sums hold (format doc: Fletcher-64 over 64-bit words). */
static int sums_ok(const uint8_t *head, const uint8_t *pl, size_t n)
{
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        a += get64(pl + i);
        b += a;
    }
    return a == get64(head + 16) && b == get64(head + 24);
}

/* The end of the file inside a block (or its head) at buf[0..len): keeps
 * the whole entries, counts the rest. */
static void torn_block(struct stint_cap_dec *d, const uint8_t *buf, size_t len, uint64_t off)
{
    char why[160];
    if (len < STINT_CAP_BLOCK_HEAD || get32(buf) != STINT_CAP_BLOCK_MAGIC) {
        d->st.torn_bytes += len;
        snprintf(why, sizeof why, "the capture ends inside a block head (%zu bytes; its entries are lost, count unknown)",
                 len);
        problem(d, STINT_CAP_P_TORN, off, 0, why);
        return;
    }
    uint32_t claimed = get32(buf + 8);
    size_t used = 0;
    uint64_t k = entries(d, buf + STINT_CAP_BLOCK_HEAD, len - STINT_CAP_BLOCK_HEAD, off + STINT_CAP_BLOCK_HEAD, 1,
                         &used);
    uint64_t lost = claimed > k ? claimed - k : 0;
    d->st.torn_entries += lost;
    d->st.torn_bytes += len - STINT_CAP_BLOCK_HEAD - used;
    d->st.blocks++;
    snprintf(why, sizeof why,
             "the capture ends inside its last block: %llu of its %u entries whole (kept), %llu cut (%zu bytes)",
             (unsigned long long)k, claimed, (unsigned long long)lost, len - STINT_CAP_BLOCK_HEAD - used);
    problem(d, STINT_CAP_P_TORN, off, lost, why);
}

long stint_cap_dec_feed(struct stint_cap_dec *d, const uint8_t *buf, size_t len, uint64_t base, int eof,
                        const char **why)
{
    size_t at = 0;
    if (!d->have_header) {
        long h = header(d, buf, len, eof, why);
        if (h <= 0)
            return h;
        at = (size_t)h;
    }
    while (at < len) {
        const uint8_t *p = buf + at;
        size_t left = len - at;
        uint64_t off = base + at;
        if (d->skipping) {
            d->st.torn_bytes += left;
            at = len;
            break;
        }
        if (left < STINT_CAP_BLOCK_HEAD) {
            if (!eof) {
                d->want = STINT_CAP_BLOCK_HEAD;
                break;
            }
            torn_block(d, p, left, off);
            at = len;
            break;
        }
        uint32_t plen = get32(p + 4);
        if (get32(p) != STINT_CAP_BLOCK_MAGIC || plen % 8 || plen > STINT_CAP_BLOCK_MAX) {
            char w[128];
            snprintf(w, sizeof w, "no block head where one should be: the rest of the file (%s) is skipped",
                     eof ? "to its end" : "from here");
            problem(d, STINT_CAP_P_BAD_BLOCK, off, 0, w);
            d->st.bad_blocks++;
            d->skipping = 1;
            continue;
        }
        if (left < STINT_CAP_BLOCK_HEAD + (size_t)plen) {
            if (!eof) {
                d->want = STINT_CAP_BLOCK_HEAD + (size_t)plen;
                break;
            }
            torn_block(d, p, left, off);
            at = len;
            break;
        }
        const uint8_t *pl = p + STINT_CAP_BLOCK_HEAD;
        if (!sums_ok(p, pl, plen)) {
            d->st.bad_blocks++;
            d->id_bound += get32(p + 8);
            problem(d, STINT_CAP_P_BAD_BLOCK, off, get32(p + 8),
                    "a block whose sums do not match its bytes (damaged): its entries are skipped");
        } else {
            size_t used;
            entries(d, pl, plen, off + STINT_CAP_BLOCK_HEAD, 0, &used);
            d->st.blocks++;
        }
        at += STINT_CAP_BLOCK_HEAD + (size_t)plen;
        d->want = STINT_CAP_BLOCK_HEAD;
    }
    return (long)at;
}

/* ---- the model -------------------------------------------------------------------------------- */

struct rctx {
    struct stint_model *m;
    struct stint_markers_feed *feed;
    struct stint_input *in;
    const char *path;
    char *line; /* the marker record of the current span */
    size_t cap;
    uint64_t torn, bad;
    const struct stint_filter *filter; /* sizes mode: the filters, NULL none */
};

/* The line's own keys (markers.md): a user attribute of one of these names
 * is written attr.<key>, as the marker sink does. */
static int own_key(const char *k, size_t n)
{
    static const char *const own[] = {"v",  "pid", "tid", "inv", "hid", "depth", "name", "ts", "dur", "clk",
                                      "stint_truncated", "stint_autoclosed"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strlen(own[i]) == n && !memcmp(own[i], k, n))
            return 1;
    return 0;
}

/* A token by the marker sink's rules: whitespace and control bytes, and in
 * a key '=', become '_'; an empty one is "_". */
static char *put_token(char *p, struct stint_cap_text t, int key)
{
    if (!t.len)
        *p++ = '_';
    for (size_t i = 0; i < t.len; i++) {
        unsigned char c = (unsigned char)t.ptr[i];
        *p++ = c <= ' ' || c == 0x7f || (key && c == '=') ? '_' : (char)c;
    }
    return p;
}

static char *put_f64(char *p, double v)
{
    char tmp[40];
    if (!isfinite(v)) {
        snprintf(tmp, sizeof tmp, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
    } else {
        snprintf(tmp, sizeof tmp, "%.15g", v);
        if (strtod(tmp, NULL) != v)
            snprintf(tmp, sizeof tmp, "%.17g", v);
    }
    size_t n = strlen(tmp);
    memcpy(p, tmp, n);
    return p + n;
}

/* The attributes as marker text: clk=dev, the static text, the typed ones, the flags. */
static char *put_attrs(char *p, const struct stint_cap_span *s)
{
    char *start = p;
#define SEP() (p != start ? (void)(*p++ = ' ') : (void)0)
    if (s->flags & STINT_CAP_F_DEVICE)
        p += sprintf(p, "clk=dev");
    for (size_t i = 0; i < s->static_attrs.len;) { /* (tokens kept, control bytes turned into '_') */
        size_t j = i;
        while (j < s->static_attrs.len && s->static_attrs.ptr[j] != ' ')
            j++;
        if (j > i) {
            SEP();
            const char *eq = memchr(s->static_attrs.ptr + i, '=', j - i);
            if (eq && own_key(s->static_attrs.ptr + i, (size_t)(eq - s->static_attrs.ptr) - i))
                p += sprintf(p, "attr.");
            for (size_t k = i; k < j; k++) {
                unsigned char c = (unsigned char)s->static_attrs.ptr[k];
                *p++ = c < ' ' || c == 0x7f ? '_' : (char)c;
            }
        }
        i = j + 1;
    }
    for (unsigned i = 0; i < s->nattr; i++) {
        const struct stint_cap_attr *a = &s->attrs[i];
        SEP();
        if (own_key(a->key.ptr, a->key.len))
            p += sprintf(p, "attr.");
        p = put_token(p, a->key, 1);
        *p++ = '=';
        switch (a->type) {
        case STINT_CAP_A_I64: p += sprintf(p, "%lld", (long long)(int64_t)a->v); break;
        case STINT_CAP_A_U64: p += sprintf(p, "%llu", (unsigned long long)a->v); break;
        case STINT_CAP_A_BOOL: p += sprintf(p, "%s", a->v ? "true" : "false"); break;
        case STINT_CAP_A_F64: {
            double f;
            memcpy(&f, &a->v, 8);
            p = put_f64(p, f);
            break;
        }
        case STINT_CAP_A_STR: p = put_token(p, a->s, 0); break;
        default: *p++ = '?'; break;
        }
    }
    if (s->flags & STINT_CAP_F_TRUNC) {
        SEP();
        p += sprintf(p, "stint_truncated=1");
    }
    if (s->flags & STINT_CAP_F_AUTOCLOSED) {
        SEP();
        p += sprintf(p, "stint_autoclosed=1");
    }
#undef SEP
    return p;
}

void stint_cap_span_record(const struct stint_cap_span *s, char **line, size_t *cap, struct stint_mparse_record *r)
{
    size_t need = 256 + s->name.len + 2 * s->static_attrs.len + 64;
    for (unsigned i = 0; i < s->nattr; i++)
        need += 8 + s->attrs[i].key.len + s->attrs[i].s.len + 48;
    if (need > *cap) {
        *cap = need * 2;
        *line = stint_xreallocarray(*line, *cap, 1);
    }
    memset(r, 0, sizeof *r);
    char *p = *line;
    p += sprintf(p, "[STRACE] v=1 pid=%d tid=%d inv=%llu hid=", (int)s->pid, (int)s->tid,
                 (unsigned long long)s->inv);
    r->hid_text.ptr = p;
    p += sprintf(p, "%llx", (unsigned long long)s->hid);
    r->hid_text.len = (size_t)(p - r->hid_text.ptr);
    p += sprintf(p, " depth=%d name=", (int)s->depth);
    r->name.ptr = p; /* (as recorded: no parser reads it back) */
    memcpy(p, s->name.ptr, s->name.len);
    p += s->name.len;
    r->name.len = s->name.len;
    p += sprintf(p, " ts=%lld dur=%lld ", (long long)s->ts_ns, (long long)s->dur_ns);
    r->attrs.ptr = p;
    p = put_attrs(p, s);
    r->attrs.len = (size_t)(p - r->attrs.ptr);
    r->text = (struct stint_mparse_text){*line, (size_t)(p - *line)};
    if (!r->attrs.len) /* (a record's text ends at its last field) */
        r->text.len--;
    r->v = 1;
    r->pid = (uint64_t)(int64_t)s->pid;
    r->tid = (uint64_t)(int64_t)s->tid;
    r->inv = s->inv;
    r->depth = s->depth < 0 ? 0 : (uint64_t)s->depth;
    r->ts_ns = s->ts_ns;
    r->dur_ns = s->dur_ns < 0 ? 0 : s->dur_ns;
    r->hid = s->hid;
    r->offset = s->offset;
}

/* sizes mode (STINT_MODEL_SIZES, sizes.h): a span record measured as its
 * entry on disk instead of modelled. Its "phase" is its clock (host, or dev
 * for a device span), its cat "", its event keys the entry's fields (the
 * 8-byte entry head, tid, depth, name, static, ts, dur, inv, hid: 56 bytes)
 * and "attrs" (the attribute array and the string values), its args keys
 * its attributes by key (16 bytes each, a string value's padded bytes with
 * it). A span the filters leave out (as a marker record is: its pid, tid,
 * name, cat "", [ts, ts + dur)) is counted as filtered. */
static void size_span(struct rctx *c, const struct stint_cap_span *s)
{
    struct stint_model *m = c->m;
    struct stint_sizes *z = m->sizes;
    uint32_t name = stint_model_intern(m, s->name.ptr, s->name.len);
    if (c->filter) {
        const struct stint_filter_rec w = {.pid = s->pid, .tid = s->tid, .ts = s->ts_ns,
                                           .dur = s->dur_ns < 0 ? 0 : s->dur_ns,
                                           .name = stint_model_str(m, name, NULL), .has_tid = 1, .has_ts = 1};
        if (!stint_filter_rec(c->filter, &w)) {
            z->filtered_events++;
            z->filtered_bytes += s->size;
            return;
        }
    }
    const char *clk = s->flags & STINT_CAP_F_DEVICE ? "dev" : "host";
    stint_sizes_event(z, stint_model_intern(m, clk, strlen(clk)), stint_model_intern(m, "", 0), name, s->size,
                      s->size - 56u);
    static const struct {
        const char *key;
        unsigned bytes;
    } fields[] = {{"head", 8}, {"tid", 4}, {"depth", 4}, {"name", 4}, {"static", 4},
                  {"ts", 8},   {"dur", 8}, {"inv", 8},   {"hid", 8}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        stint_sizes_event_key(z, stint_model_intern(m, fields[i].key, strlen(fields[i].key)), fields[i].bytes);
    if (s->size > 56)
        stint_sizes_event_key(z, stint_model_intern(m, "attrs", 5), s->size - 56u);
    for (unsigned i = 0; i < s->nattr; i++) {
        const struct stint_cap_attr *a = &s->attrs[i];
        uint64_t bytes = 16 + (a->type == STINT_CAP_A_STR ? pad8(a->s.len) : 0);
        stint_sizes_arg_key(z, stint_model_intern(m, a->key.ptr, a->key.len), bytes);
    }
}

/* A span record: its marker record, handed to the marker mapping. */
static void on_span(void *ctx, const struct stint_cap_span *s)
{
    struct rctx *c = ctx;
    if (c->m->sizes) {
        size_span(c, s);
        return;
    }
    struct stint_mparse_record r;
    stint_cap_span_record(s, &c->line, &c->cap, &r);
    stint_i_markers_feed_record(c->feed, &r);
}

static void on_thread(void *ctx, int32_t pid, int32_t tid, struct stint_cap_text name)
{
    struct rctx *c = ctx;
    if (!name.len || c->m->sizes)
        return;
    uint32_t lane = stint_model_lane(c->m, pid, tid, STINT_CLOCK_HOST);
    STINT_BA_AT(&c->m->lanes, struct stint_lane, lane).name = stint_model_intern(c->m, name.ptr, name.len);
}

static void on_drop(void *ctx, int32_t pid, int32_t tid, uint64_t count, int64_t first_ns, int64_t last_ns)
{
    struct rctx *c = ctx;
    struct stint_mparse_loss l = {.ok = 1, .pid = (uint64_t)(int64_t)pid, .tid = (uint64_t)(int64_t)tid,
                                  .count = count, .first_ts = first_ns, .last_ts = last_ns};
    stint_i_markers_feed_loss(c->feed, &l);
}

static void on_problem(void *ctx, enum stint_cap_problem k, uint64_t off, uint64_t n, const char *why)
{
    struct rctx *c = ctx;
    struct stint_model *m = c->m;
    uint64_t count = n ? n : 1;
    if (k == STINT_CAP_P_TORN) {
        stint_model_repair(m, STINT_REPAIR_TORN_RECORD, "%s: byte %llu: %s", c->path, (unsigned long long)off, why);
        m->repairs[STINT_REPAIR_TORN_RECORD] += count - 1;
        c->torn += count;
    } else {
        stint_model_drop(m, "%s: byte %llu: %s", c->path, (unsigned long long)off, why);
        m->dropped += count - 1;
        c->bad += count;
    }
    m->events += count;
}

int stint_cap_decode_input(struct stint_cap_dec *d, struct stint_input *in, void (*on_window)(void *ctx, size_t used),
                           void *ctx, const char **why)
{
    for (;;) {
        long used = stint_cap_dec_feed(d, (const uint8_t *)in->buf, in->len, in->base, in->eof, why);
        if (used < 0)
            return 1;
        stint_input_consume(in, (size_t)used);
        if (on_window)
            on_window(ctx, (size_t)used);
        if (in->eof && in->len == 0)
            return 0;
        if (stint_input_fill(in) < 0)
            return -2;
    }
}

/* The bytes a window gave: counted for `sizes`, and progress shown. */
static void on_window(void *ctx, size_t used)
{
    struct rctx *c = ctx;
    if (c->m->sizes)
        c->m->sizes->text_bytes += (uint64_t)used;
    stint_i_progress(c->in, 0);
}

int stint_read_capture(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    struct rctx c = {.m = m, .in = in, .path = in->path};
    if (o && o->event_filter && stint_filter_active(o->event_filter))
        c.filter = o->event_filter;
    c.feed = stint_i_markers_feed_new(m, o, in->path);
    m->format = "capture";
    struct stint_cap_callbacks cb = {.ctx = &c, .span = on_span, .thread = on_thread, .drop = on_drop,
                                     .problem = on_problem};
    struct stint_cap_dec *d = stint_cap_dec_new(&cb);
    const char *why = NULL;
    int rc = stint_cap_decode_input(d, in, on_window, &c, &why);
    if (rc == 1) {
        stint_model_fail(m, "%s: byte 0: %s", in->path, why);
    } else if (rc) {
        stint_model_fail(m, "%s", in->err);
        rc = stint_input_errcode(in);
    }
    const struct stint_cap_stats *st = stint_cap_dec_stats(d);
    if (c.torn && !(o && o->quiet))
        fprintf(stderr, "stint: %s: the capture is cut: %llu whole span records kept, %llu entries after the cut lost "
                "(torn; counted)\n", in->path, (unsigned long long)st->spans, (unsigned long long)c.torn);
    stint_cap_dec_free(d);
    stint_i_markers_feed_end(c.feed);
    free(c.line);
    stint_i_progress(in, 1);
    return rc;
}
