/* SPDX-License-Identifier: MIT */
/*
 * capture.c - the binary capture sink (STINT_CAPTURE=path.stint,
 * stint_capture_open): every closed span the drain hands it is copied into a
 * fixed-layout binary record, names and keys are interned once into a
 * string table written as they first appear, and the records go out in
 * blocks of about 1 MiB, one write(2) each. The byte layout is specified in
 * docs/formats/capture.md; tools/stint/read/read_capture.c reads it.
 *
 * Invariants:
 * - Every callback runs with the drain lock held (writer.c), so the block
 *   buffer has one user at a time.
 * - The file is a 64-byte header followed by blocks. A block is a 32-byte
 *   head (magic, payload length, entry count, sequence number, two
 *   Fletcher-64 sums of the payload) and whole entries; it is built in
 *   memory and written with one write(2). A string, thread or clock entry
 *   always precedes, in the same block or an earlier one, the first record
 *   that refers to it, so a reader that keeps every whole entry before a cut
 *   can resolve them all.
 * - Nothing is dropped in silence: span records lost to a write error (the
 *   failed block's and every later one's) are counted (sink_spans_lost of
 *   stint_get_stats()); the first error is sticky.
 * - A forked child never writes into the parent's file: its events are
 *   counted lost.
 * - close may run twice (at shutdown and from stint_capture_close): the
 *   second time does nothing.
 */
#include "stint/session.h"

#include "internal.h"
#include "jsonbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CAP_HEADER_BYTES 64u
#define CAP_BLOCK_HEAD 32u
#define CAP_BLOCK_AT (1u << 20)          /* a block is written once its payload reaches this */
#define CAP_BUF_INIT (CAP_BLOCK_AT + (64u << 10))
#define CAP_BLOCK_MAGIC 0x4B4C4253u /* "SBLK" in little-endian bytes */
#define CAP_PTR_SLOTS 4096u          /* direct-mapped cache: string pointer -> id */

enum { CAP_E_STRING = 1, CAP_E_SPAN = 2, CAP_E_THREAD = 3, CAP_E_DROP = 4, CAP_E_CLOCK = 5 };
enum { CAP_F_DEVICE = 1, CAP_F_TRUNC = 2, CAP_F_AUTOCLOSED = 4 };
enum { CAP_SPAN_BYTES = 56, CAP_ATTR_BYTES = 16 };

typedef struct cap_str {
    uint64_t hash;
    char *s; /* owned copy, NUL-terminated */
    uint32_t len;
    uint32_t id; /* 0: empty slot */
} cap_str;

typedef struct cap_ptr {
    const char *ptr;
    const char *copy; /* the table's copy, to confirm the bytes did not change */
    uint32_t len;
    uint32_t id;
} cap_ptr;

typedef struct cap_thread {
    int32_t tid;
    int32_t used;
    uint64_t name_hash;
} cap_thread;

struct stint_capture {
    stint_i_sink sink;
    int fd;
    int closed;
    int in_child;
    stint_status sticky;
    uint64_t lost;    /* span records handed to it and not written */
    uint64_t pending; /* span records in the buffer */
    uint8_t *buf;     /* block head + entries */
    size_t len, cap;
    uint32_t nentries;
    uint32_t seq;
    int clock_said; /* STINT_I_CLOCK_* written in the last clock entry, -1 none */
    int have_last;  /* last_tid is set: the thread of the previous record */
    int32_t last_tid;
    cap_str *strs;  /* open addressing by hash, power-of-two size */
    size_t strs_cap, nstrs;
    cap_ptr ptrs[CAP_PTR_SLOTS];
    cap_thread *threads;
    size_t threads_cap, nthreads;
    char path[4096];
};

/* ---- little helpers ----------------------------------------------------------------- */

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h | 1; /* never 0 */
}

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Makes room for n more bytes in the block buffer (growing it for one
 * oversized entry); 0 when out of memory (the error is then sticky). */
static int room_grow(stint_capture *c, size_t n);
static inline int room(stint_capture *c, size_t n)
{
    return STINT_I_LIKELY(c->len + n <= c->cap) || room_grow(c, n);
}

static int room_grow(stint_capture *c, size_t n)
{
    size_t ncap = c->cap * 2;
    while (ncap < c->len + n)
        ncap *= 2;
    uint8_t *p = stint_i_alloc(ncap);
    if (!p) {
        c->sticky = STINT_E_NOMEM;
        return 0;
    }
    memcpy(p, c->buf, c->len);
    stint_i_free(c->buf, c->cap);
    c->buf = p;
    c->cap = ncap;
    return 1;
}

/* Fletcher-64 over the payload as little-endian 64-bit words (format doc). */
static void fletcher(const uint8_t *p, size_t n, uint64_t *a_out, uint64_t *b_out)
{
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        a += w;
        b += a;
    }
    *a_out = a;
    *b_out = b;
}

/* Writes the block built so far (one write(2)) and starts the next. */
static void write_block(stint_capture *c)
{
    if (c->len <= CAP_BLOCK_HEAD)
        return;
    if (c->in_child || c->fd < 0 || c->sticky != STINT_OK) {
        c->lost += c->pending;
    } else {
        size_t payload = c->len - CAP_BLOCK_HEAD;
        uint64_t a, b;
        fletcher(c->buf + CAP_BLOCK_HEAD, payload, &a, &b);
        put32(c->buf, CAP_BLOCK_MAGIC);
        put32(c->buf + 4, (uint32_t)payload);
        put32(c->buf + 8, c->nentries);
        put32(c->buf + 12, c->seq);
        put64(c->buf + 16, a);
        put64(c->buf + 24, b);
        int err = stint_i_write_all(c->fd, (const char *)c->buf, c->len);
        if (err) {
            c->sticky = STINT_E_IO;
            c->lost += c->pending;
            fprintf(stderr, "stint: %s: write failed: %s (capture output stopped)\n", c->path, strerror(err));
        }
        c->seq++;
    }
    c->len = CAP_BLOCK_HEAD;
    c->nentries = 0;
    c->pending = 0;
}

/* Appends a clock entry when the clock in use is not the one last said. */
static void say_clock(stint_capture *c)
{
    int mode = atomic_load_explicit(&stint_i_clock_mode, memory_order_relaxed);
    if (mode == c->clock_said || !room(c, 32))
        return;
    int64_t mono, real;
    stint_i_clock_anchor(&mono, &real);
    uint8_t *p = c->buf + c->len;
    memset(p, 0, 32);
    put32(p, 32);
    p[4] = CAP_E_CLOCK;
    put32(p + 8, (uint32_t)mode);
    put64(p + 16, (uint64_t)mono);
    put64(p + 24, (uint64_t)real);
    c->len += 32;
    c->nentries++;
    c->clock_said = mode;
}

/* Called before each entry: a full block goes out first. */
static void entry_begin(stint_capture *c)
{
    if (c->len - CAP_BLOCK_HEAD >= CAP_BLOCK_AT)
        write_block(c);
}

/* ---- the string table ------------------------------------------------------------------- */

static int strs_grow(stint_capture *c)
{
    size_t ncap = c->strs_cap ? c->strs_cap * 2 : 1024;
    cap_str *n = stint_i_calloc(ncap * sizeof *n);
    if (!n)
        return 0;
    for (size_t i = 0; i < c->strs_cap; i++) {
        if (!c->strs[i].id)
            continue;
        size_t k = (size_t)c->strs[i].hash & (ncap - 1);
        while (n[k].id)
            k = (k + 1) & (ncap - 1);
        n[k] = c->strs[i];
    }
    stint_i_free(c->strs, c->strs_cap * sizeof *c->strs);
    c->strs = n;
    c->strs_cap = ncap;
    /* the pointer cache points into the old entries' copies, which moved
     * with them (the copies themselves did not) */
    return 1;
}

/* Appends the string entry of a new id. */
static void put_string(stint_capture *c, uint32_t id, const char *s, uint32_t len)
{
    size_t n = 16 + pad8(len);
    if (!room(c, n))
        return;
    uint8_t *p = c->buf + c->len;
    memset(p + n - 8, 0, 8);
    put32(p, (uint32_t)n);
    p[4] = CAP_E_STRING;
    p[5] = p[6] = p[7] = 0;
    put32(p + 8, id);
    put32(p + 12, len);
    memcpy(p + 16, s, len);
    c->len += n;
    c->nentries++;
}

/* memcmp(a, b, n) == 0, inline for the short names and keys of most spans
 * (a call to memcmp was a tenth of the capture's cost per record). */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 32)
        return memcmp(a, b, n) == 0;
    uint64_t x, y, diff = 0;
    if (n >= 8) { /* 8-byte words, the last one overlapping the one before */
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            diff |= x ^ y;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return (diff | (x ^ y)) == 0;
    }
    for (size_t i = 0; i < n; i++)
        diff |= (uint64_t)((unsigned char)a[i] ^ (unsigned char)b[i]);
    return diff == 0;
}

/* The id of the string s[0..len) (1, 2, ...), written to the table the
 * first time it is seen; 0 when out of memory (sticky). */
static uint32_t intern_slow(stint_capture *c, const char *s, size_t len, cap_ptr *pc);
static inline uint32_t intern(stint_capture *c, const char *s, size_t len)
{
    size_t slot = ((uintptr_t)s >> 3 ^ (uintptr_t)s >> 15 ^ len) & (CAP_PTR_SLOTS - 1);
    cap_ptr *pc = &c->ptrs[slot];
    if (STINT_I_LIKELY(pc->ptr == s && pc->len == len && same_bytes(pc->copy, s, len)))
        return pc->id;
    return intern_slow(c, s, len, pc);
}

/* intern when the pointer cache misses: the table by content. */
static uint32_t intern_slow(stint_capture *c, const char *s, size_t len, cap_ptr *pc)
{
    if (len > UINT32_MAX / 2)
        len = UINT32_MAX / 2;
    if ((c->nstrs + 1) * 2 > c->strs_cap && !strs_grow(c)) {
        c->sticky = STINT_E_NOMEM;
        return 0;
    }
    uint64_t h = fnv(s, len);
    size_t k = (size_t)h & (c->strs_cap - 1);
    for (; c->strs[k].id; k = (k + 1) & (c->strs_cap - 1))
        if (c->strs[k].hash == h && c->strs[k].len == len && memcmp(c->strs[k].s, s, len) == 0)
            break;
    cap_str *e = &c->strs[k];
    if (!e->id) {
        char *copy = stint_i_alloc(len + 1);
        if (!copy) {
            c->sticky = STINT_E_NOMEM;
            return 0;
        }
        memcpy(copy, s, len);
        copy[len] = '\0';
        *e = (cap_str){.hash = h, .s = copy, .len = (uint32_t)len, .id = (uint32_t)++c->nstrs};
        entry_begin(c);
        put_string(c, e->id, copy, e->len);
    }
    *pc = (cap_ptr){.ptr = s, .copy = e->s, .len = (uint32_t)len, .id = e->id};
    return e->id;
}

/* ---- threads ------------------------------------------------------------------------------- */

/* Appends a thread entry the first time (pid, tid) shows up, or when its
 * name changed (a tid reused by a new thread). */
static void see_thread(stint_capture *c, const stint_i_rec_src *ev)
{
    const char *name = ev->thread_name ? ev->thread_name : "";
    size_t k = 0;
    for (; k < c->nthreads; k++)
        if (c->threads[k].tid == ev->tid)
            break;
    size_t nlen = strlen(name);
    uint64_t h = fnv(name, nlen);
    if (k < c->nthreads && c->threads[k].name_hash == h)
        return;
    if (k == c->nthreads) {
        if (c->nthreads == c->threads_cap) {
            size_t ncap = c->threads_cap ? c->threads_cap * 2 : 16;
            cap_thread *n = stint_i_alloc(ncap * sizeof *n);
            if (!n) {
                c->sticky = STINT_E_NOMEM;
                return;
            }
            if (c->nthreads)
                memcpy(n, c->threads, c->nthreads * sizeof *n);
            stint_i_free(c->threads, c->threads_cap * sizeof *c->threads);
            c->threads = n;
            c->threads_cap = ncap;
        }
        c->nthreads++;
    }
    c->threads[k] = (cap_thread){.tid = ev->tid, .used = 1, .name_hash = h};
    size_t n = 24 + pad8(nlen);
    entry_begin(c);
    if (!room(c, n))
        return;
    uint8_t *p = c->buf + c->len;
    memset(p, 0, n);
    put32(p, (uint32_t)n);
    p[4] = CAP_E_THREAD;
    put32(p + 8, (uint32_t)ev->pid);
    put32(p + 12, (uint32_t)ev->tid);
    put64(p + 16, ev->thread_handle);
    memcpy(p + 24, name, nlen);
    c->len += n;
    c->nentries++;
}

/* ---- sink callbacks --------------------------------------------------------------------- */

static stint_status start_file(stint_capture *c, const char *path, char *err, size_t cap);

/* A forked child's first drain: forgets the parent's string table and
 * threads and starts PATH.<pid> (the parent's path and the child's pid),
 * so each process writes a whole capture of its own. On failure every
 * later span is counted lost. */
static void child_start(stint_capture *c)
{
    c->in_child = 0;
    if (c->fd >= 0)
        close(c->fd); /* the child's copy of the parent's descriptor */
    c->fd = -1;
    for (size_t i = 0; i < c->strs_cap; i++)
        if (c->strs[i].id)
            stint_i_free(c->strs[i].s, (size_t)c->strs[i].len + 1);
    if (c->strs)
        memset(c->strs, 0, c->strs_cap * sizeof *c->strs);
    c->nstrs = 0;
    memset(c->ptrs, 0, sizeof c->ptrs);
    c->nthreads = 0;
    c->have_last = 0;
    char path[sizeof c->path + 16];
    snprintf(path, sizeof path, "%s.%d", c->path, (int)getpid());
    char err[600];
    if (start_file(c, path, err, sizeof err) != STINT_OK) {
        c->sticky = STINT_E_IO;
        fprintf(stderr, "stint: %s (capture output of this child stopped)\n", err);
        return;
    }
    size_t n = strlen(path);
    if (n >= sizeof c->path) /* (named by its parent's path in messages) */
        n = sizeof c->path - 1;
    memcpy(c->path, path, n);
    c->path[n] = '\0';
}

/* Writes one attribute (16 bytes) and returns the string bytes it adds after
 * the attribute array. */
static size_t put_attr(uint8_t *p, const stint_i_attr_view *a, uint32_t key)
{
    uint64_t v = 0;
    size_t extra = 0;
    uint16_t slen = 0;
    switch (a->type) {
    case STINT_I_ATTR_STR:
        slen = (uint16_t)(a->v.s.len > 0xFFFF ? 0xFFFF : a->v.s.len);
        extra = pad8(slen);
        break;
    case STINT_I_ATTR_U64: v = a->v.u; break;
    case STINT_I_ATTR_F64: memcpy(&v, &a->v.f, 8); break;
    case STINT_I_ATTR_BOOL: v = a->v.b ? 1u : 0u; break;
    default: v = (uint64_t)a->v.i; break;
    }
    put32(p, key);
    p[4] = (uint8_t)a->type;
    p[5] = 0;
    memcpy(p + 6, &slen, 2);
    put64(p + 8, v);
    return extra;
}

static void on_event(stint_i_sink *s, const stint_i_event *ev)
{
    stint_capture *c = (stint_capture *)s;
    if (c->closed)
        return;
    if (c->in_child)
        child_start(c);
    if (c->sticky) {
        c->lost++;
        return;
    }
    if (!c->have_last || c->last_tid != ev->tid) { /* (a drain hands each thread's records in one run) */
        const stint_i_rec_src src = {ev->pid, ev->tid, ev->thread_name, ev->thread_handle};
        see_thread(c, &src);
        c->have_last = 1;
        c->last_tid = ev->tid;
    }
    uint32_t name = intern(c, ev->name, ev->name_len);
    uint32_t sattrs = ev->static_attrs && *ev->static_attrs ? intern(c, ev->static_attrs, strlen(ev->static_attrs)) : 0;
    uint32_t keys[STINT_ATTR_MAX];
    unsigned nattr = ev->nattr > STINT_ATTR_MAX ? STINT_ATTR_MAX : ev->nattr;
    size_t n = CAP_SPAN_BYTES + (size_t)nattr * CAP_ATTR_BYTES;
    for (unsigned i = 0; i < nattr; i++) {
        const char *k = ev->attrs[i].key ? ev->attrs[i].key : "";
        keys[i] = intern(c, k, strlen(k));
        if (ev->attrs[i].type == STINT_I_ATTR_STR)
            n += pad8(ev->attrs[i].v.s.len > 0xFFFF ? 0xFFFF : ev->attrs[i].v.s.len);
    }
    entry_begin(c);
    if (c->sticky || !room(c, n)) {
        c->lost++;
        return;
    }
    uint8_t *p = c->buf + c->len;
    put32(p, (uint32_t)n);
    p[4] = CAP_E_SPAN;
    p[5] = (uint8_t)((ev->kind == STINT_I_REC_DEVICE ? CAP_F_DEVICE : 0) | (ev->truncated ? CAP_F_TRUNC : 0) |
                     (ev->autoclosed ? CAP_F_AUTOCLOSED : 0));
    uint16_t na = (uint16_t)nattr;
    memcpy(p + 6, &na, 2);
    put32(p + 8, (uint32_t)ev->tid);
    put32(p + 12, (uint32_t)ev->depth);
    put32(p + 16, name);
    put32(p + 20, sattrs);
    put64(p + 24, (uint64_t)ev->ts_ns);
    put64(p + 32, (uint64_t)ev->dur_ns);
    put64(p + 40, ev->inv);
    put64(p + 48, ev->hid);
    if (nattr) {
        uint8_t *q = p + CAP_SPAN_BYTES, *str = q + (size_t)nattr * CAP_ATTR_BYTES;
        for (unsigned i = 0; i < nattr; i++) {
            size_t extra = put_attr(q + (size_t)i * CAP_ATTR_BYTES, &ev->attrs[i], keys[i]);
            if (extra) {
                size_t sl = ev->attrs[i].v.s.len > 0xFFFF ? 0xFFFF : ev->attrs[i].v.s.len;
                memset(str + extra - 8, 0, 8);
                memcpy(str, ev->attrs[i].v.s.ptr, sl);
                str += extra;
            }
        }
    }
    c->len += n;
    c->nentries++;
    c->pending++;
}

/* The record of a span without attributes or a copied name (most spans),
 * taken as the hot path wrote it: the same entry on_event writes for it,
 * without decoding it into an event first (its two clock values are
 * converted here, its name interned through its call site). Returns 0 for
 * every other record, and for a thread's first in a run (its thread entry
 * comes from on_event). */
static int on_raw(stint_i_sink *s, const stint_i_rec *r, const stint_i_rec_src *src)
{
    stint_capture *c = (stint_capture *)s;
    const stint_loc *loc = r->loc;
    if (r->kind != STINT_I_REC_SPAN || r->nattr || (r->flags & STINT_I_F_COPYNAME) || !loc || c->closed ||
        c->in_child || c->sticky || !c->have_last || c->last_tid != src->tid)
        return 0;
    const char *nm = loc->name ? loc->name : "";
    uint32_t name = intern(c, nm, strlen(nm));
    uint32_t sattrs = loc->attrs && *loc->attrs ? intern(c, loc->attrs, strlen(loc->attrs)) : 0;
    int64_t ts, end;
    stint_i_clock_pair_to_ns(r->clock, r->start, r->end, &ts, &end);
    int64_t dur = end - ts;
    entry_begin(c);
    if (c->sticky || !room(c, CAP_SPAN_BYTES)) {
        c->lost++;
        return 1;
    }
    uint8_t *p = c->buf + c->len;
    put32(p, CAP_SPAN_BYTES);
    p[4] = CAP_E_SPAN;
    p[5] = (uint8_t)(((r->flags & STINT_I_F_TRUNC) ? CAP_F_TRUNC : 0) |
                     ((r->flags & STINT_I_F_AUTOCLOSED) ? CAP_F_AUTOCLOSED : 0));
    p[6] = p[7] = 0;
    put32(p + 8, (uint32_t)src->tid);
    put32(p + 12, (uint32_t)r->depth);
    put32(p + 16, name);
    put32(p + 20, sattrs);
    put64(p + 24, (uint64_t)ts);
    put64(p + 32, (uint64_t)(dur < 0 ? 0 : dur));
    put64(p + 40, r->inv);
    put64(p + 48, r->hid);
    c->len += CAP_SPAN_BYTES;
    c->nentries++;
    c->pending++;
    return 1;
}

static void on_dropped(stint_i_sink *s, const stint_i_drop *d)
{
    stint_capture *c = (stint_capture *)s;
    if (c->closed)
        return;
    if (c->in_child)
        child_start(c);
    if (c->sticky)
        return;
    entry_begin(c);
    if (!room(c, 40))
        return;
    uint8_t *p = c->buf + c->len;
    memset(p, 0, 40);
    put32(p, 40);
    p[4] = CAP_E_DROP;
    put32(p + 8, (uint32_t)d->pid);
    put32(p + 12, (uint32_t)d->tid);
    put64(p + 16, d->count);
    put64(p + 24, (uint64_t)d->first_ts_ns);
    put64(p + 32, (uint64_t)d->last_ts_ns);
    c->len += 40;
    c->nentries++;
}

/* End of a drain: the block built so far goes out, and the next one starts
 * by saying the clock if it changed (the writer may have switched to TSC). */
static void on_flush(stint_i_sink *s)
{
    stint_capture *c = (stint_capture *)s;
    if (c->closed || c->in_child) /* (a child with nothing recorded yet writes no file) */
        return;
    write_block(c);
    say_clock(c);
}

static void on_close(stint_i_sink *s)
{
    stint_capture *c = (stint_capture *)s;
    if (c->closed)
        return;
    write_block(c);
    c->closed = 1;
    if (c->fd >= 0 && close(c->fd) != 0 && c->sticky == STINT_OK && !c->in_child)
        c->sticky = STINT_E_IO;
    c->fd = -1;
}

/* In a forked child: the buffer and the file belong to the parent. The
 * child's first drain starts a file of its own (child_start). */
static void on_atfork_child(stint_i_sink *s)
{
    stint_capture *c = (stint_capture *)s;
    c->in_child = 1;
    c->lost = 0;
    c->pending = 0;
    c->len = CAP_BLOCK_HEAD;
    c->nentries = 0;
}

static stint_status on_error(stint_i_sink *s) { return ((stint_capture *)s)->sticky; }
static uint64_t on_lost(stint_i_sink *s) { return ((stint_capture *)s)->lost; }

/* ---- opening -------------------------------------------------------------------------------- */

static void capture_free(stint_capture *c)
{
    for (size_t i = 0; i < c->strs_cap; i++)
        if (c->strs[i].id)
            stint_i_free(c->strs[i].s, (size_t)c->strs[i].len + 1);
    stint_i_free(c->strs, c->strs_cap * sizeof *c->strs);
    stint_i_free(c->threads, c->threads_cap * sizeof *c->threads);
    stint_i_free(c->buf, c->cap);
    stint_i_free(c, sizeof *c);
}

/* Creates (truncating) path and writes the file header; c->fd is the file,
 * or -1 with the reason in err and the status returned. */
static stint_status start_file(stint_capture *c, const char *path, char *err, size_t cap)
{
    c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c->fd < 0) {
        if (err && cap)
            snprintf(err, cap, "%s: cannot create the capture: %s", path, strerror(errno));
        return STINT_E_IO;
    }
    uint8_t h[CAP_HEADER_BYTES];
    memset(h, 0, sizeof h);
    int64_t mono, real;
    stint_i_clock_anchor(&mono, &real);
    memcpy(h, "STINTCAP", 8);
    put32(h + 8, 1);            /* version */
    put32(h + 12, 0x01020304u); /* byte order, as the writer stores it */
    put32(h + 16, CAP_HEADER_BYTES);
    put32(h + 20, (uint32_t)(int32_t)getpid());
    put64(h + 24, (uint64_t)mono);
    put64(h + 32, (uint64_t)real);
    put32(h + 40, (uint32_t)atomic_load(&stint_i_clock_mode));
    put32(h + 44, CAP_BLOCK_AT);
    int e = stint_i_write_all(c->fd, (const char *)h, sizeof h);
    if (e) {
        if (err && cap)
            snprintf(err, cap, "%s: cannot write the capture header: %s", path, strerror(e));
        close(c->fd);
        c->fd = -1;
        return STINT_E_IO;
    }
    c->len = CAP_BLOCK_HEAD;
    c->nentries = 0;
    c->seq = 0;
    c->clock_said = -1;
    say_clock(c);
    return STINT_OK;
}

/* Sets up a sink writing to path (created now); not linked. NULL on
 * failure, with the reason in err and *st. */
static stint_capture *capture_create(const char *path, stint_status *st, char *err, size_t cap)
{
    stint_capture *c = stint_i_calloc(sizeof *c);
    uint8_t *buf = c ? stint_i_alloc(CAP_BUF_INIT) : NULL;
    if (!buf) {
        if (c)
            stint_i_free(c, sizeof *c);
        *st = STINT_E_NOMEM;
        return NULL;
    }
    c->buf = buf;
    c->cap = CAP_BUF_INIT;
    snprintf(c->path, sizeof c->path, "%s", path);
    *st = start_file(c, path, err, cap);
    if (*st != STINT_OK) {
        capture_free(c);
        return NULL;
    }
    c->sink.raw = on_raw;
    c->sink.event = on_event;
    c->sink.dropped = on_dropped;
    c->sink.flush = on_flush;
    c->sink.close = on_close;
    c->sink.atfork_child = on_atfork_child;
    c->sink.error = on_error;
    c->sink.lost = on_lost;
    return c;
}

stint_status stint_capture_open(const char *path, stint_capture **out, char *err, size_t cap)
{
    if (out)
        *out = NULL;
    if (err && cap)
        err[0] = '\0';
    if (!path || !*path || !out || strlen(path) >= sizeof(((stint_capture *)0)->path)) {
        if (err && cap)
            snprintf(err, cap, "stint_capture_open: NULL, empty or too long path, or NULL out");
        return STINT_E_INVAL;
    }
    stint_i_init();
    stint_status st;
    stint_capture *c = capture_create(path, &st, err, cap);
    if (!c)
        return st;
    stint_i_sink_add(&c->sink);
    stint_i_writer_start();
    *out = c;
    return STINT_OK;
}

stint_status stint_capture_close(stint_capture *c)
{
    if (!c)
        return STINT_E_INVAL;
    stint_i_sink_remove(&c->sink); /* drains, flushes, closes (idempotent) */
    stint_status st = c->sticky;
    capture_free(c);
    return st;
}

/* STINT_CAPTURE: opened by the first drain (drain lock held), linked like
 * the marker default; it lives until shutdown closes it. */
static int g_env_done;
static stint_capture *g_env_cap;

int stint_i_capture_wanted(void)
{
    const char *p = getenv("STINT_CAPTURE");
    return p && *p;
}

void stint_i_capture_default(void)
{
    if (g_env_done)
        return;
    g_env_done = 1;
    const char *path = getenv("STINT_CAPTURE");
    if (!path || !*path || strlen(path) >= sizeof g_env_cap->path)
        return;
    int saved = errno;
    char err[600];
    stint_status st;
    g_env_cap = capture_create(path, &st, err, sizeof err);
    if (g_env_cap)
        stint_i_sink_link_locked(&g_env_cap->sink);
    else
        fprintf(stderr, "stint: STINT_CAPTURE: %s\n", err[0] ? err : stint_strerror(st));
    errno = saved;
}
