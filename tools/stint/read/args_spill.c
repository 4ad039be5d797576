/* SPDX-License-Identifier: MIT */
/*
 * args_spill.c - slice args kept in a temporary file (args_spill.h).
 *
 * The file is a run of chunks, each holding records [u32 seq][u32 length]
 * [args text] of one track in input order: a track's records wait in a
 * buffer of its own (1 KiB, doubling to CHUNK_MAX) that becomes a chunk when
 * full, and all of them when the buffers together pass BUFFERED_MAX, so the
 * file is read back track by track, as the model's slices are grouped
 * (model.h), one chunk at a time, mostly in order (a record longer than
 * CHUNK_MAX is a chunk of its own). No index by slice: each track lists its
 * chunks in input order with their first seq, so a slice's record is found
 * by its track and seq (a binary search over the track's chunks, then over
 * the chunk's records, whose offsets are listed when it is read back); a
 * seq found nowhere had no args. Reading keeps CACHE_SLOTS chunks (pread,
 * one call a chunk).
 *
 * A record's text starts with a tag. REC_ARGS: the args object's text as
 * read, of a slice that no end event can add args to (it has its
 * duration, or is an instant, when it is taken), rendered as the Chrome
 * writer writes args when the writer asks for it (ext_text,
 * stint_i_chrome_args_render: the reader's own walk, into text instead of
 * the model), with the args it leaves out past the 65535th and the bytes it
 * writes as U+FFFD counted then. Rendering as the output is written, on the
 * thread that formats it, uses the time that thread waits for the output's
 * writes to the page cache; rendering while reading took 55-65% of the
 * read's time on one thread, and on a thread of its own more CPU than the
 * read (docs/performance.md). REC_RAW: the same text, of a slice still open
 * (a B or an async begin), whose end's args the writer merges in: flattened
 * again when it is read back, by the same walk, into a scratch model, made
 * afresh every SCRATCH_SLICES records so that its strings do not pile up.
 * A chunk read back ends in STINT_JSON_PAD zero bytes, as the reader's
 * window does: the JSON cursor's short paths read that far past a
 * record's end.
 */
#include "read/args_spill.h"

#include "read/chrome_int.h"
#include "base/bgwrite.h"
#include "base/threads.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_BUF ((size_t)1 << 20)
#define CHUNK_MAX ((uint32_t)64 << 10)
#define BUFFERED_MAX ((size_t)8 << 20)
#define CACHE_SLOTS 64
#define REC_HEAD 8 /* u32 seq, u32 length */
#define SCRATCH_SLICES 16384
#define REC_RAW 'R'
#define REC_ARGS 'A'

/* One track: its records not yet in the file (the chunk they will make)
 * and its chunks so far, in input order. */
struct tbuf {
    char *p;
    uint32_t used, cap;
    uint32_t chunk;
    uint32_t *chunks;
    size_t nchunks, chunks_cap;
};

/* A chunk's place (its file: an index into fds) and the seq of its first
 * record; its records hold seqs of the part that took them, seq_off less
 * than the model's. */
struct chunk {
    uint64_t off;
    uint32_t len;
    uint32_t first_seq;
    uint32_t file;
    uint32_t seq_off;
};

/* A chunk read back, with its records' offsets. */
struct slot {
    char *p;
    uint32_t cap;
    uint32_t chunk; /* UINT32_MAX: empty */
    uint32_t *rec;
    size_t nrec, rec_cap;
};

struct stint_args_spill {
    int fd;                   /* its own file (fds[0]), written; -1: none could be made (err set) */
    int *fds;                 /* every file its chunks lie in: its own, then those of parts merged in */
    size_t nfds;
    int want_bg;              /* its file is to be written on a thread, from the first byte on */
    struct stint_bgwrite *bg; /* the file written on a thread (base/bgwrite.h), NULL: through buf */
    int err;          /* errno of the first failed write or read, 0: none */
    char *buf;        /* the write buffer */
    size_t used;
    uint64_t off;     /* file size, written or buffered */
    uint64_t text;    /* args text bytes */
    uint64_t dropped; /* args past a slice's 65535th, read back (the model keeps no more) */
    struct tbuf *tb;  /* by track */
    size_t ntb;
    size_t buffered;  /* sum of the track buffers' caps */
    struct chunk *chunks;
    size_t nchunks, chunks_cap;
    struct slot cache[CACHE_SLOTS];
    struct stint_model scratch;
    int scratch_live;
    size_t scratch_uses;
    struct creader *cr;
    struct args_text txt; /* the render of the slice read back last */
    /* the record found last (its track, chunk and index there): the writer
     * mostly asks for the next one, which is then found without a search */
    uint32_t memo_track, memo_chunk;
    size_t memo_rec;
};

/* A new spill with its own temporary file; with err_ok a spill whose file
 * could not be made (its error kept, told by _done), else NULL then. */
static struct stint_args_spill *spill_make(int err_ok)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *path = stint_xmalloc(n);
    snprintf(path, n, "%s/stint-args.XXXXXX", dir);
    int fd = mkstemp(path), err = errno;
    if (fd >= 0)
        (void)unlink(path); /* (gone with the process, whatever ends it) */
    free(path);
    if (fd < 0 && !err_ok)
        return NULL;
    struct stint_args_spill *sp = stint_xcalloc(1, sizeof *sp);
    sp->fd = fd;
    sp->err = fd < 0 ? (err ? err : EIO) : 0;
    sp->fds = stint_xmalloc(sizeof *sp->fds);
    sp->fds[0] = fd;
    sp->nfds = 1;
    sp->want_bg = stint_threads_wanted() > 1;
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        sp->cache[i].chunk = UINT32_MAX;
    sp->memo_chunk = UINT32_MAX;
    return sp;
}

struct stint_args_spill *stint_args_spill_new(void) { return spill_make(0); }

/* Writes the write buffer to the file (all of it, or keeps the error). */
static void spill_flush(struct stint_args_spill *sp)
{
    size_t at = 0;
    while (at < sp->used && !sp->err) {
        ssize_t w = write(sp->fd, sp->buf + at, sp->used - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            sp->err = w < 0 ? errno : EIO;
        else
            at += (size_t)w;
    }
    sp->used = 0;
}

/* Appends n bytes to the file through the write buffer. */
static void spill_put(struct stint_args_spill *sp, const void *p, size_t n)
{
    if (sp->want_bg && !sp->bg && !sp->buf && !sp->err) /* (a part's thread starts with its first bytes) */
        sp->bg = stint_bgwrite_start(stint_bgwrite_fd_sink, &sp->fd);
    if (!sp->bg && !sp->buf)
        sp->buf = stint_xmalloc(SPILL_BUF);
    if (sp->bg) {
        stint_bgwrite_put(sp->bg, p, n);
        sp->off += n;
        return;
    }
    while (n) {
        if (sp->used == SPILL_BUF)
            spill_flush(sp);
        size_t k = SPILL_BUF - sp->used < n ? SPILL_BUF - sp->used : n;
        memcpy(sp->buf + sp->used, p, k);
        sp->used += k;
        p = (const char *)p + k;
        n -= k;
        sp->off += k;
    }
}

/* A new chunk of track t, whose first record is seq's (its place set when
 * it is written). */
static uint32_t chunk_new(struct stint_args_spill *sp, struct tbuf *t, uint32_t seq)
{
    sp->chunks = stint_xgrow(sp->chunks, &sp->chunks_cap, sp->nchunks + 1, sizeof *sp->chunks, 256);
    sp->chunks[sp->nchunks] = (struct chunk){.first_seq = seq};
    t->chunks = stint_xgrow(t->chunks, &t->chunks_cap, t->nchunks + 1, sizeof *t->chunks, 4);
    t->chunks[t->nchunks++] = (uint32_t)sp->nchunks;
    return (uint32_t)sp->nchunks++;
}

/* Writes track buffer t as its chunk and empties it; free: gives its
 * memory back too. */
static void tbuf_flush(struct stint_args_spill *sp, struct tbuf *t, int free_it)
{
    if (t->used) {
        sp->chunks[t->chunk].off = sp->off;
        sp->chunks[t->chunk].len = t->used;
        spill_put(sp, t->p, t->used);
        t->used = 0;
    }
    if (free_it && t->p) {
        sp->buffered -= t->cap;
        free(t->p);
        t->p = NULL;
        t->cap = 0;
    }
}

/* Every track buffer written and freed. */
static void tbuf_flush_all(struct stint_args_spill *sp)
{
    for (size_t i = 0; i < sp->ntb; i++)
        tbuf_flush(sp, &sp->tb[i], 1);
}

/* Appends the record of the slice seq on track: its tag, then the n0 bytes
 * at p0 and the n1 at p1. */
static void record_put(struct stint_args_spill *sp, uint32_t seq, uint32_t track, char tag, const void *p0, uint32_t n0,
                       const char *p1, uint32_t n1)
{
    uint32_t head[2] = {seq, 1 + n0 + n1}, need = REC_HEAD + head[1];
    sp->tb = stint_xgrow_zeroed(sp->tb, &sp->ntb, (size_t)track + 1, sizeof *sp->tb, 64);
    struct tbuf *t = &sp->tb[track];
    sp->text += head[1];
    if (need > CHUNK_MAX) { /* a chunk of its own */
        tbuf_flush(sp, t, 0);
        uint32_t c = chunk_new(sp, t, seq);
        sp->chunks[c].off = sp->off;
        sp->chunks[c].len = need;
        spill_put(sp, head, REC_HEAD);
        spill_put(sp, &tag, 1);
        spill_put(sp, p0, n0);
        spill_put(sp, p1, n1);
        return;
    }
    if (t->used + need > t->cap) {
        if (t->cap < CHUNK_MAX) {
            uint32_t nc = t->cap ? t->cap : 1024;
            while (nc < t->used + need)
                nc *= 2;
            sp->buffered += nc - t->cap;
            t->p = stint_xreallocarray(t->p, nc, 1);
            t->cap = nc;
        } else
            tbuf_flush(sp, t, 0);
    }
    if (!t->used)
        t->chunk = chunk_new(sp, t, seq);
    char *o = t->p + t->used;
    memcpy(o, head, REC_HEAD);
    o[REC_HEAD] = tag;
    if (n0)
        memcpy(o + REC_HEAD + 1, p0, n0);
    memcpy(o + REC_HEAD + 1 + n0, p1, n1);
    t->used += need;
    if (sp->buffered > BUFFERED_MAX)
        tbuf_flush_all(sp);
}

void stint_args_spill_take(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b)
{
    struct stint_args_spill *sp = ctx;
    const struct stint_slice *s = stint_model_slice(m, idx);
    int open = s->dur_ns < 0 && !(s->flags & STINT_SLICE_INSTANT); /* (its end may bring args to merge) */
    record_put(sp, s->seq, s->track, open ? REC_RAW : REC_ARGS, NULL, 0, a, (uint32_t)(b - a));
}

/* Writes every track buffer and what waits for the file, and ends the
 * writing thread: every chunk then lies in a file. */
static void spill_end_writes(struct stint_args_spill *sp)
{
    tbuf_flush_all(sp);
    if (sp->bg) {
        int e = stint_bgwrite_end(sp->bg);
        sp->bg = NULL;
        if (e && !sp->err)
            sp->err = e;
    } else if (sp->buf)
        spill_flush(sp);
    free(sp->buf);
    sp->buf = NULL;
    sp->want_bg = 0; /* (nothing more is written) */
}

int stint_args_spill_done(struct stint_args_spill *sp)
{
    spill_end_writes(sp);
    if (sp->err) {
        errno = sp->err;
        return -1;
    }
    return 0;
}

/* The part ops: a part's spill, merged in input order. */
static void *part_new(void *ctx)
{
    (void)ctx;
    return spill_make(1);
}

/* src (a part read after dst's) into dst: its files and chunks, its tracks'
 * chunks after those of the tracks tmap maps them to (NULL: the same), its
 * seqs after dst's model's (dm->seq now; 0 without tmap: the same model). */
static void part_merge(void *dst_part, void *src_part, const struct stint_model *dm, const uint32_t *smap,
                       const uint32_t *lmap, const uint32_t *tmap)
{
    (void)smap, (void)lmap;
    struct stint_args_spill *d = dst_part, *s = src_part;
    spill_end_writes(s);
    uint32_t seq0 = tmap ? (uint32_t)dm->seq : 0, f0 = (uint32_t)d->nfds;
    size_t c0 = d->nchunks;
    d->fds = stint_xreallocarray(d->fds, d->nfds + s->nfds, sizeof *d->fds);
    memcpy(d->fds + d->nfds, s->fds, s->nfds * sizeof *s->fds);
    d->nfds += s->nfds;
    s->nfds = 0;
    s->fd = -1;
    d->chunks = stint_xgrow(d->chunks, &d->chunks_cap, d->nchunks + s->nchunks, sizeof *d->chunks, 256);
    for (size_t i = 0; i < s->nchunks; i++) {
        struct chunk c = s->chunks[i];
        c.first_seq += seq0;
        c.seq_off += seq0;
        c.file += f0;
        d->chunks[d->nchunks++] = c;
    }
    for (size_t t = 0; t < s->ntb; t++) {
        const struct tbuf *st = &s->tb[t];
        if (!st->nchunks)
            continue;
        size_t dt = tmap ? tmap[t] : t;
        d->tb = stint_xgrow_zeroed(d->tb, &d->ntb, dt + 1, sizeof *d->tb, 64);
        struct tbuf *tt = &d->tb[dt];
        tt->chunks = stint_xgrow(tt->chunks, &tt->chunks_cap, tt->nchunks + st->nchunks, sizeof *tt->chunks, 4);
        for (size_t k = 0; k < st->nchunks; k++)
            tt->chunks[tt->nchunks++] = st->chunks[k] + (uint32_t)c0;
    }
    if (!d->err)
        d->err = s->err;
    d->text += s->text;
    d->dropped += s->dropped;
    stint_args_spill_free(s);
}

static void part_free(void *part) { stint_args_spill_free(part); }

void *stint_args_spill_part(void *ctx) { return part_new(ctx); }

const struct stint_model_part_ops stint_args_spill_part_ops = {part_merge, part_free};

uint64_t stint_args_spill_bytes(const struct stint_args_spill *sp) { return sp->text; }

uint64_t stint_args_spill_dropped(const struct stint_args_spill *sp) { return sp->dropped; }

/* A fresh scratch model with one slice (index 0) for args to hang on. */
static void scratch_reset(struct stint_args_spill *sp)
{
    if (sp->scratch_live)
        stint_model_free(&sp->scratch);
    if (stint_model_init(&sp->scratch, STINT_MODEL_KEEP_ARGS) != 0)
        stint_die_nomem();
    struct stint_slice *s = stint_bigarray_push(&sp->scratch.slices);
    if (!s)
        stint_die_nomem();
    s->args = STINT_NO_ID;
    sp->scratch_live = 1;
    sp->scratch_uses = 0;
    if (!sp->cr)
        sp->cr = stint_xcalloc(1, sizeof *sp->cr);
    sp->cr->m = &sp->scratch;
}

/* Chunk c, read into the cache (NULL when the read fails: the error is kept). */
static const struct slot *chunk_at(struct stint_args_spill *sp, uint32_t c)
{
    struct slot *sl = &sp->cache[c % CACHE_SLOTS];
    if (sl->chunk == c)
        return sl;
    const struct chunk *ch = &sp->chunks[c];
    if (sl->cap < ch->len) {
        free(sl->p);
        sl->p = stint_xmalloc((size_t)ch->len + STINT_JSON_PAD);
        sl->cap = ch->len;
    }
    memset(sl->p + ch->len, 0, STINT_JSON_PAD); /* (the JSON cursor's short paths read past a record's end) */
    sl->chunk = UINT32_MAX;
    size_t at = 0;
    while (at < ch->len) {
        ssize_t r = pread(sp->fds[ch->file], sl->p + at, ch->len - at, (off_t)(ch->off + at));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            sp->err = r < 0 ? errno : EIO;
            return NULL;
        }
        at += (size_t)r;
    }
    sl->nrec = 0; /* (records in seq order: their offsets, for a binary search) */
    for (uint32_t at2 = 0; at2 + REC_HEAD <= ch->len;) {
        uint32_t len;
        memcpy(&len, sl->p + at2 + 4, sizeof len);
        sl->rec = stint_xgrow(sl->rec, &sl->rec_cap, sl->nrec + 1, sizeof *sl->rec, 64);
        sl->rec[sl->nrec++] = at2;
        at2 += REC_HEAD + len;
    }
    sl->chunk = c;
    return sl;
}

/* Slice s's record (its seq, length, text), or NULL when it had none. */
static const char *record_of(struct stint_args_spill *sp, const struct stint_slice *s)
{
    if (s->track >= sp->ntb || !sp->tb[s->track].nchunks)
        return NULL;
    const struct slot *ms = sp->memo_chunk != UINT32_MAX ? &sp->cache[sp->memo_chunk % CACHE_SLOTS] : NULL;
    if (ms && ms->chunk == sp->memo_chunk && s->track == sp->memo_track) /* (seqs are unique: a match is its record) */
        for (size_t r = sp->memo_rec; r < sp->memo_rec + 2 && r < ms->nrec; r++) {
            uint32_t q;
            memcpy(&q, ms->p + ms->rec[r], sizeof q);
            if (q + sp->chunks[sp->memo_chunk].seq_off == s->seq) {
                sp->memo_rec = r;
                return ms->p + ms->rec[r];
            }
        }
    const struct tbuf *t = &sp->tb[s->track];
    size_t lo = 0, hi = t->nchunks; /* the last chunk whose first seq is <= s's */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->chunks[t->chunks[mid]].first_seq <= s->seq)
            lo = mid;
        else
            hi = mid;
    }
    if (sp->chunks[t->chunks[lo]].first_seq > s->seq)
        return NULL;
    const struct slot *sl = chunk_at(sp, t->chunks[lo]);
    if (!sl)
        return NULL;
    uint32_t off = sp->chunks[t->chunks[lo]].seq_off;
    size_t a = 0, b = sl->nrec;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        uint32_t q;
        memcpy(&q, sl->p + sl->rec[mid], sizeof q);
        q += off;
        if (q == s->seq) {
            sp->memo_track = s->track;
            sp->memo_chunk = t->chunks[lo];
            sp->memo_rec = mid;
            return sl->p + sl->rec[mid];
        }
        if (q < s->seq)
            a = mid + 1;
        else
            b = mid;
    }
    return NULL;
}

const struct stint_arg *stint_args_spill_get(void *ctx, const struct stint_model *m, const struct stint_slice *s,
                                             size_t *n, const struct stint_model **sm)
{
    (void)m;
    struct stint_args_spill *sp = ctx;
    *n = 0;
    const char *p = record_of(sp, s);
    if (!p)
        return NULL;
    uint32_t len;
    memcpy(&len, p + 4, sizeof len);
    p += REC_HEAD;
    if (*p != REC_RAW) /* (stint_args_spill_text gives it) */
        return NULL;
    if (!sp->scratch_live || ++sp->scratch_uses >= SCRATCH_SLICES)
        scratch_reset(sp);
    struct stint_slice *z = &STINT_BA_AT(&sp->scratch.slices, struct stint_slice, 0);
    sp->scratch.args.len = 0;
    z->args = STINT_NO_ID;
    z->nargs = 0;
    uint64_t d0 = sp->scratch.dropped;
    stint_i_chrome_args_slice(sp->cr, p + 1, p + len, 0);
    sp->dropped += sp->scratch.dropped - d0;
    *n = z->nargs;
    *sm = &sp->scratch;
    return z->nargs ? stint_model_arg_at(&sp->scratch, z->args) : NULL;
}

int stint_args_spill_text(void *ctx, const struct stint_slice *s, const char **text, size_t *len, uint64_t *bad_utf8)
{
    struct stint_args_spill *sp = ctx;
    *text = "";
    *len = 0;
    *bad_utf8 = 0;
    const char *p = record_of(sp, s);
    if (!p)
        return 1;
    uint32_t n;
    memcpy(&n, p + 4, sizeof n);
    p += REC_HEAD;
    if (*p == REC_RAW)
        return 0;
    if (!sp->cr)
        sp->cr = stint_xcalloc(1, sizeof *sp->cr);
    struct args_text *t = &sp->txt;
    stint_i_chrome_args_render(sp->cr, p + 1, p + n, t);
    sp->dropped += t->dropped;
    *bad_utf8 = t->bad_utf8;
    if (t->len)
        *text = t->p;
    *len = t->len;
    return 1;
}

int stint_args_spill_failed(const struct stint_args_spill *sp) { return sp->err; }

void stint_args_spill_free(struct stint_args_spill *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        free(sp->cache[i].p);
        free(sp->cache[i].rec);
    }
    for (size_t i = 0; i < sp->ntb; i++) {
        free(sp->tb[i].p);
        free(sp->tb[i].chunks);
    }
    free(sp->tb);
    free(sp->chunks);
    if (sp->scratch_live)
        stint_model_free(&sp->scratch);
    free(sp->txt.p);
    if (sp->cr) {
        free(sp->cr->scratch);
        free(sp->cr->key);
        free(sp->cr);
    }
    if (sp->bg)
        (void)stint_bgwrite_end(sp->bg); /* (not done: what it wrote is not read) */
    free(sp->buf);
    for (size_t i = 0; i < sp->nfds; i++)
        if (sp->fds[i] >= 0)
            close(sp->fds[i]);
    free(sp->fds);
    free(sp);
}
