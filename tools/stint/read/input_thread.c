/* SPDX-License-Identifier: MIT */
/*
 * input_thread.c - gzip inflated on a second thread into a ring of blocks
 * that become the reader's windows, with the args the thread skipped ahead
 * handed over as hints.
 *
 * Invariants: only the producer touches the decompressor state; the reader
 * holds at most one block (its window's) and the producer the others; a
 * hint is what the reader's own skip would find (json_shape.h), so the
 * result is the same with or without hints; every member's CRC-32 is
 * checked, by the producer or where the reader takes the block.
 */
#include "read/input_int.h"

/* ---- gzip on a second thread ----------------------------------------------------
 * Inflating (ISA-L ~1 GB/s here) and parsing run on different cores. The
 * producer inflates straight into a ring of PIPE_BLOCKS blocks, each
 * PIPE_HEAD + PIPE_BLOCK + STINT_JSON_PAD bytes with the data at PIPE_HEAD;
 * fill() hands the next ready block to the reader as its window, after
 * copying the old window's unconsumed tail (the event cut by the block end)
 * into the head room in front of it. So the inflated bytes are never copied,
 * the ring (about 5 MiB) is touched once and reused, and the output chunk
 * stays small enough for ISA-L to write it into cache. A tail larger than
 * the head room (an event over PIPE_HEAD bytes cut by a block end) takes
 * the slow path: tail and block are copied into mem, which grows as for
 * plain input. The reader holds at most one block (its window's); the
 * producer fills the others ahead. Only the producer touches the
 * decompressor state.
 *
 * The producer is faster than the reader (inflating ~0.8 ns a byte here,
 * parsing ~1.5), so the ring is mostly full and the producer would wait.
 * Instead it skips ahead of the reader: in a ready block the reader is not
 * about to take, it finds the "args" values of events and skips them
 * (stint_i_jshape_skip with a shape cache of its own, the reader's own
 * fast path: json_shape.h), and hands the
 * reader their lengths with the block (struct stint_input's hints), so the
 * reader jumps over them. A fast skip that succeeds is what the reader's
 * skip would return (json.h), so the result is the same with or without
 * hints; a block the reader takes before its scan is done comes without.
 * Once the stream is inflated, the producer goes on doing so for the blocks
 * still waiting (so the reader's last blocks are parsed faster).
 *
 * Where the two are about even (large traces, where the steps after the
 * read run on both cores anyway), inflating bounds the read, and the reader
 * waits for blocks now and then. While it waits it reads the producer's
 * next chunk of compressed input into a spare buffer (read_ahead), which the
 * producer swaps with its own when it needs input (stint_i_input_pipe_zin_read), so that
 * the reads (~20 ms per GB of JSON here) leave the thread that bounds the
 * read; then it faults in memory for later (fault_in). */

#define PIPE_BLOCKS 4
#ifdef STINT_SMALL_BUFFERS
/* fuzz builds: inputs of a few KiB cross block ends and take the slow path,
 * and each run maps kilobytes instead of megabytes */
#define PIPE_BLOCK ((size_t)4 << 10)
#define PIPE_HEAD ((size_t)1 << 10)
#else
#define PIPE_BLOCK ((size_t)1 << 20)
#define PIPE_HEAD ((size_t)256 << 10)
#endif
#define PIPE_STRIDE (PIPE_HEAD + PIPE_BLOCK + STINT_JSON_PAD)

/* The prefaulted memory the producer (while its ring is full) or the
 * reader (while the ring is empty) keeps ready for the reader instead of
 * waiting (hmem.h): what the reader of a large trace takes in
 * some 50 ms of parsing, and no more, since what is left unused at the end
 * is only resident memory. */
#define PIPE_PREFAULT ((size_t)8 << 20)

/* How much of it to keep ready now: less towards the end of a file of
 * known size (half the compressed bytes still to inflate, zdone of them
 * done: the reader's arrays grow by some tenth of the inflated bytes,
 * several times that of the compressed), so that little is left unused.
 * The producer passes in->zraw (its own), the reader in->raw_read. */
static size_t prefault_want(const struct stint_input *in, uint64_t zdone)
{
    if (!in->file_size)
        return PIPE_PREFAULT;
    uint64_t left = in->file_size > zdone ? (in->file_size - zdone) / 2 : 0;
    return left < PIPE_PREFAULT ? (size_t)left : PIPE_PREFAULT;
}

/* Hints per block at most (an event with args takes more than 32 bytes) */
#define PIPE_HINTS (PIPE_BLOCK / 32)
#define HINT_BYTES (2 * PIPE_HINTS * sizeof(uint32_t)) /* offsets and lengths */
enum { HINTS_NONE, HINTS_SCANNING, HINTS_READY, HINTS_LATE };
/* zspare: empty; the reader reading into it; full; the producer reading for itself */
enum { ZS_FREE, ZS_AHEAD, ZS_READY, ZS_OWN };
/* the hint arrays and zspare: not made yet; being made; made (or refused) */
enum { EX_NONE, EX_BUSY, EX_DONE };

struct gzpipe {
    pthread_t thread;
    uint32_t *hint_off[PIPE_BLOCKS], *hint_len[PIPE_BLOCKS]; /* PIPE_HINTS each, one allocation
                                                              * per block (hint_len follows), touched as used;
                                                              * set by pipe_extras, under mu */
    size_t hint_n[PIPE_BLOCKS];
    int hint_state[PIPE_BLOCKS]; /* HINTS_*, under mu */
    int scan_all;             /* STINT_PIPE_SCAN_ALL (tests): every block, before the reader gets it */
    struct stint_jshape *shapes; /* the producer's args shapes (json_shape.h), its own */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *ring;               /* PIPE_BLOCKS x PIPE_STRIDE */
    size_t len[PIPE_BLOCKS];  /* inflated bytes in each ready block */
    uint64_t zraw[PIPE_BLOCKS]; /* in->zraw when the block was done (raw_read is the reader's) */
    struct gz_mends mend[PIPE_BLOCKS]; /* the member ends in each block, for the reader's CRC-32 check */
    struct gz_mends fin;      /* those after the last block (set with done) */
    int crc_done[PIPE_BLOCKS]; /* the producer found the CRC-32 of each piece of the block: */
    uint32_t piece_crc[PIPE_BLOCKS][GZ_MENDS + 1]; /* of [0, first end), [that end, the next), ..., [last, len) */
    /* The next chunk of compressed input, read ahead by the reader while
     * it waits for blocks (read_ahead) so that the reads leave the thread
     * that bounds the read: zspare (ZIN_CHUNK bytes; NULL: none) and its
     * state, under mu (only the thread that set ZS_AHEAD or ZS_OWN reads
     * the file meanwhile). */
    unsigned char *zspare;
    size_t zs_len;            /* bytes in zspare when ZS_READY */
    int zs_state;             /* ZS_* */
    int zs_errno;             /* with ZS_READY: the read failed, with this errno */
    int zs_end;               /* a read came back short: the input has ended, nothing to read ahead */
    int ra_mode;              /* STINT_PIPE_READ_AHEAD (tests): 0 never, 1 while waiting (default), 2 also
                               * whenever the reader takes a block */
    int head;                 /* the next block the reader takes */
    int ready;                /* blocks inflated and not yet taken */
    int held;                 /* the reader's window is block head - 1 */
    int extras;               /* EX_*: pipe_extras */
    int done, failed, stop;
};

static char *block_data(struct gzpipe *g, int b) { return g->ring + (size_t)b * PIPE_STRIDE + PIPE_HEAD; }

/* The first "args" (with its quotes) in p[0..end - p), or NULL: 16 bytes at
 * a time on x86-64 (a '"' followed by 'a' and, five bytes on, '"'), else
 * memmem. The block's padding makes the loads past end harmless. */
static const char *find_args_key(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), a = _mm_set1_epi8('a');
    for (; end - p >= 6; p += 16) {
        __m128i m = _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), q),
                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), a));
        m = _mm_and_si128(m, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 5)), q));
        for (unsigned bits = (unsigned)_mm_movemask_epi8(m); bits; bits &= bits - 1) {
            const char *c = p + __builtin_ctz(bits);
            if (end - c >= 6 && memcmp(c, "\"args\"", 6) == 0)
                return c;
        }
    }
    return NULL;
#else
    return end - p >= 6 ? memmem(p, (size_t)(end - p), "\"args\"", 6) : NULL;
#endif
}

/* The args values of the events in d[0..n) that the fast skip takes, into
 * off/len (at most PIPE_HINTS, ascending). A "args" that is not a key (in
 * a string, say) only makes a hint the reader never asks for. */
static size_t find_hints(struct stint_jshape *shapes, const char *d, size_t n, uint32_t *off, uint32_t *len)
{
    size_t k = 0;
    const char *p = d, *end = d + n;
    while (k < PIPE_HINTS && (p = find_args_key(p, end)) != NULL) {
        const char *q = p + 6;
        while (q < end && stint_json_is_blank(*q))
            q++;
        if (q < end && *q == ':') {
            q++;
            while (q < end && stint_json_is_blank(*q))
                q++;
            const char *e = q < end && *q == '{' ? stint_i_jshape_skip(shapes, q, end) : NULL;
            if (e) {
                off[k] = (uint32_t)(q - d);
                len[k] = (uint32_t)(e - q);
                k++;
                p = e;
                continue;
            }
        }
        p += 6;
    }
    return k;
}

/* Under mu: a ready block to find hints in, newest first, but not the one
 * the reader takes next; -1 when none. */
static int block_to_scan(struct gzpipe *g)
{
    for (int i = g->ready - 1; i >= 1; i--) {
        int b = (g->head + i) % PIPE_BLOCKS;
        if (g->hint_state[b] == HINTS_NONE)
            return b;
    }
    return -1;
}

/* Under mu, which it lets go of while it works: finds the hints of ready
 * block s (the reader may take the block meanwhile; its hints are then
 * dropped). */
static void scan_block(struct gzpipe *g, int s)
{
    g->hint_state[s] = HINTS_SCANNING;
    size_t len = g->len[s];
    uint32_t *off = g->hint_off[s], *hl = g->hint_len[s];
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(scan, "skip args ahead");
    size_t n = off ? find_hints(g->shapes, block_data(g, s), len, off, hl) : 0;
    stint_i_self_attr("args", (int64_t)n);
    SELF_END(scan);
    pthread_mutex_lock(&g->mu);
    if (g->hint_state[s] == HINTS_SCANNING) { /* not taken meanwhile */
        g->hint_n[s] = n;
        g->hint_state[s] = HINTS_READY;
    }
}

/* Under mu, which it lets go of meanwhile: faults in one 2 MiB region for
 * the reader's reserve (hmem.h) when it holds less than prefault_want(in,
 * zdone); whether it did. */
static int fault_in(struct gzpipe *g, const struct stint_input *in, uint64_t zdone)
{
    size_t want = prefault_want(in, zdone);
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(pf, "fault in memory");
    int r = stint_hmem_prefault(want);
    SELF_END(pf);
    pthread_mutex_lock(&g->mu);
    return r;
}

/* Under mu, which it lets go of meanwhile: makes the pipe's hint arrays
 * and zspare when nobody has yet (on whichever thread first has nothing
 * else to do); whether it did. Not in stint_i_input_pipe_start: their fresh 2 MiB of
 * memory costs ~3-4 ms at its first touch once the host has taken the
 * memory back, which the first block then waited for. Until they exist (or
 * where memory is short) blocks come without hints and the producer reads
 * its input itself. */
static int pipe_extras(struct gzpipe *g)
{
    if (g->extras != EX_NONE)
        return 0;
    g->extras = EX_BUSY;
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(ex, "pipe buffers");
    uint32_t *h[PIPE_BLOCKS];
    for (int b = 0; b < PIPE_BLOCKS; b++)
        h[b] = stint_hmem_alloc(HINT_BYTES);
    unsigned char *z = stint_hmem_alloc(ZIN_CHUNK);
    SELF_END(ex);
    pthread_mutex_lock(&g->mu);
    for (int b = 0; b < PIPE_BLOCKS; b++) {
        g->hint_off[b] = h[b];
        g->hint_len[b] = h[b] ? h[b] + PIPE_HINTS : NULL;
    }
    g->zspare = z;
    g->extras = EX_DONE;
    return 1;
}

/* The producer's next compressed chunk into in->zin, as stint_i_input_read_full would
 * read it: the one the reader read ahead (the two buffers swapped; its
 * error, if the read failed, with errno set), else read here. */
ssize_t stint_i_input_pipe_zin_read(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    pthread_mutex_lock(&g->mu);
    while (g->zs_state == ZS_AHEAD)
        pthread_cond_wait(&g->cv, &g->mu);
    ssize_t r;
    if (g->zs_state == ZS_READY) {
        unsigned char *t = in->zin;
        in->zin = g->zspare;
        g->zspare = t;
        r = g->zs_errno ? -1 : (ssize_t)g->zs_len;
        int e = g->zs_errno;
        g->zs_state = ZS_FREE;
        pthread_mutex_unlock(&g->mu);
        errno = e;
        return r;
    }
    g->zs_state = ZS_OWN;
    pthread_mutex_unlock(&g->mu);
    r = stint_i_input_read_full(in->fd, in->zin, ZIN_CHUNK);
    int e = errno;
    pthread_mutex_lock(&g->mu);
    g->zs_state = ZS_FREE;
    g->zs_end |= r < (ssize_t)ZIN_CHUNK;
    pthread_mutex_unlock(&g->mu);
    errno = e;
    return r;
}

/* Under mu, which it lets go of meanwhile: on the reader's thread, reads
 * the producer's next compressed chunk into zspare when that is free and
 * the input goes on; whether it did. */
static int read_ahead(struct gzpipe *g, const struct stint_input *in)
{
    if (!g->zspare || g->zs_state != ZS_FREE || g->zs_end || !g->ra_mode)
        return 0;
    g->zs_state = ZS_AHEAD;
    unsigned char *dst = g->zspare;
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(ra, "read ahead");
    ssize_t r = stint_i_input_read_full(in->fd, dst, ZIN_CHUNK);
    int e = r < 0 ? (errno ? errno : EIO) : 0;
    SELF_END(ra);
    pthread_mutex_lock(&g->mu);
    g->zs_len = r < 0 ? 0 : (size_t)r;
    g->zs_errno = e;
    g->zs_end = r < (ssize_t)ZIN_CHUNK;
    g->zs_state = ZS_READY;
    pthread_cond_broadcast(&g->cv);
    return 1;
}

static void *pipe_main(void *arg)
{
    struct stint_input *in = arg;
    struct gzpipe *g = in->pipe;
    stint_i_self_thread("stint inflate");
    SELF_SCOPE_CPU("inflate thread");
    g->shapes = stint_i_jshape_new();
    for (;;) {
        pthread_mutex_lock(&g->mu);
        int s = -1, prefault = 1;
        while (g->ready + g->held == PIPE_BLOCKS && !g->stop && (s = block_to_scan(g)) < 0) {
            if (pipe_extras(g))
                continue;
            if (prefault) {
                /* nothing to inflate or scan: fault in memory the reader
                 * will take (hmem.h), then look again; wait once there is
                 * no more to fault in, until the reader takes a block */
                prefault = fault_in(g, in, in->zraw);
                continue;
            }
            SELF_BEGIN(full, "wait: ring full");
            pthread_cond_wait(&g->cv, &g->mu);
            SELF_END(full);
            prefault = 1;
        }
        if (g->ready + g->held == PIPE_BLOCKS && !g->stop && s >= 0) {
            scan_block(g, s); /* the ring is full: skip args ahead of the reader */
            pthread_mutex_unlock(&g->mu);
            continue;
        }
        int stop = g->stop, t = (g->head + g->ready) % PIPE_BLOCKS;
        g->hint_state[t] = HINTS_NONE;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        char *dst = block_data(g, t);
        SELF_BEGIN(inf, "inflate");
        ssize_t n = stint_i_gz_inflate(in, dst, PIPE_BLOCK, &g->mend[t]);
        stint_i_self_attr("bytes", (int64_t)n);
        SELF_END(inf);
        if (n > 0)
            memset(dst + n, 0, STINT_JSON_PAD);
        /* with two blocks or more waiting for the reader, find this one's
         * hints before handing it over (it is not visible to the reader
         * before ready++); with fewer the reader may be waiting: hand it over */
        int scan = g->scan_all;
        uint32_t *hoff = NULL, *hlen = NULL;
        if (n > 0) {
            pthread_mutex_lock(&g->mu);
            scan = scan || g->ready >= 2;
            hoff = g->hint_off[t];
            hlen = g->hint_len[t];
            pthread_mutex_unlock(&g->mu);
        }
        g->crc_done[t] = 0;
#if defined(STINT_HAVE_ISAL)
        if (n > 0 && scan) { /* the reader is behind: the CRC-32 too, while the block is in this core's cache */
            SELF_SCOPE("CRC-32 ahead");
            size_t at = 0;
            for (size_t k = 0; k <= g->mend[t].n; k++) {
                size_t to = piece_end(&g->mend[t], k, (size_t)n);
                g->piece_crc[t][k] = to > at ? crc32_gzip_refl(0, (const unsigned char *)dst + at, to - at) : 0;
                at = to;
            }
            g->crc_done[t] = 1;
        }
#endif
        size_t nh = 0;
        if (n > 0 && scan && hoff) {
            SELF_SCOPE("skip args ahead");
            nh = find_hints(g->shapes, dst, (size_t)n, hoff, hlen);
            stint_i_self_attr("args", (int64_t)nh);
        }
        pthread_mutex_lock(&g->mu);
        if (n > 0 && scan) {
            g->hint_n[t] = nh;
            g->hint_state[t] = HINTS_READY;
        }
        if (n < 0)
            g->failed = 1;
        else if (n == 0) {
            g->fin = g->mend[t];
            g->done = 1;
        }
        else {
            g->len[t] = (size_t)n;
            g->zraw[t] = in->zraw;
            g->ready++;
        }
        int end = g->failed || g->done;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        if (end)
            break;
    }
    /* the stream is inflated: skip args in the blocks the reader has still
     * to take (but the next), newest first, until none is left */
    pthread_mutex_lock(&g->mu);
    for (int s; !g->stop && !g->failed && (s = block_to_scan(g)) >= 0;)
        scan_block(g, s);
    pthread_mutex_unlock(&g->mu);
    stint_i_jshape_free(g->shapes);
    g->shapes = NULL;
    return NULL;
}

static void pipe_free(struct gzpipe *g)
{
    for (int b = 0; b < PIPE_BLOCKS; b++)
        stint_hmem_free(g->hint_off[b], HINT_BYTES);
    stint_hmem_free(g->ring, PIPE_BLOCKS * PIPE_STRIDE);
    stint_hmem_free(g->zspare, ZIN_CHUNK);
    free(g);
}

int stint_i_input_pipe_start(struct stint_input *in)
{
    struct gzpipe *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    if (!(g->ring = stint_hmem_alloc(PIPE_BLOCKS * PIPE_STRIDE))) {
        free(g);
        return -1;
    }
    /* (the hint arrays and zspare come later: pipe_extras) */
    g->zs_end = in->zin_eof;
    const char *ra = getenv("STINT_PIPE_READ_AHEAD");
    g->ra_mode = ra && !strcmp(ra, "0") ? 0 : ra && !strcmp(ra, "all") ? 2 : 1;
    g->scan_all = getenv("STINT_PIPE_SCAN_ALL") != NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (g->scan_all || g->ra_mode == 2) { /* (tests: every block scanned, every chunk read ahead, from the first) */
        pthread_mutex_lock(&g->mu);
        pipe_extras(g);
        pthread_mutex_unlock(&g->mu);
    }
    in->pipe = g;
    if (!in->buf) /* an empty window until the first block (none in mem: see open_common) */
        in->buf = block_data(g, 0);
    if (pthread_create(&g->thread, NULL, pipe_main, in) != 0) {
        in->pipe = NULL;
        if (!in->mem)
            in->buf = NULL;
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        pipe_free(g);
        return -1;
    }
    return 0;
}

void stint_i_input_pipe_stop(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    /* (what the reserve holds stays there: the steps after the read take it,
     * and the ring's own pages join it as pipe_free frees them) */
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    pipe_free(g);
    in->pipe = NULL;
    in->buf = in->mem; /* the window may have been a block */
    in->len = 0;
    in->hint_n = 0;
}

/* The reader's CRC-32 check of len bytes of output at data (a block, or
 * none at the end), against the member ends me records in it (their
 * offsets within it, ascending; from me->inl on the inflating thread
 * checked them): over the bytes, or from the pieces' CRC-32 when the
 * producer found them (piece, else NULL). 0 ok, -1 error. */
static int crc_take(struct stint_input *in, const struct gz_mends *me, const char *data, size_t len,
                    const uint32_t *piece)
{
#if defined(STINT_HAVE_ISAL)
    SELF_SCOPE("check CRC-32");
    const unsigned char *d = (const unsigned char *)data;
    size_t at = 0;
    for (size_t k = 0; k <= me->n; k++) {
        size_t to = piece_end(me, k, len);
        uint32_t c = in->rd_crc;
        if (to > at)
            c = piece ? stint_i_gz_crc_combine(c, piece[k], to - at) : crc32_gzip_refl(c, d + at, to - at);
        at = to;
        if (k == me->n) { /* the member the block ends in, if any: its CRC-32 so far */
            in->rd_crc = me->inl != SIZE_MAX ? me->hand : c;
            break;
        }
        if (c != me->e[k].crc)
            return stint_i_gz_crc_mismatch(in, me->e[k].zat, c, me->e[k].crc);
        in->rd_crc = 0;
    }
#else
    (void)in, (void)me, (void)data, (void)len, (void)piece; /* (zlib checks each member itself) */
#endif
    return 0;
}

/* fill() with the inflate thread: the next block becomes the window, the
 * unconsumed tail copied in front of it. 1 data added, 0 end of input, -1
 * error (the producer's message, or the window limit). */
int stint_i_input_pipe_fill(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    pthread_mutex_lock(&g->mu);
    if (g->ready == 0 && !g->done && !g->failed) {
        SELF_SCOPE("wait: inflate");
        /* nothing to parse: read the producer's next compressed chunk
         * ahead, fault in memory this thread will take (hmem.h) until the
         * reserve holds what it wants, then sleep (the ring has room for
         * the blocks inflated meanwhile) */
        for (int pf = 1; g->ready == 0 && !g->done && !g->failed;) {
            if (pipe_extras(g) || read_ahead(g, in))
                continue;
            if (pf) {
                pf = fault_in(g, in, in->raw_read);
                continue;
            }
            pthread_cond_wait(&g->cv, &g->mu);
            pf = 1;
        }
    }
    if (g->ready == 0) {
        int failed = g->failed;
        pthread_mutex_unlock(&g->mu);
        if (failed)
            return -1; /* in->err was written by the producer before it took the lock */
        if (crc_take(in, &g->fin, NULL, 0, NULL) != 0)
            return -1;
        in->eof = 1;
        return 0;
    }
    int h = g->head;
    size_t blen = g->len[h];
    in->raw_read = g->zraw[h];
    size_t nh = g->hint_state[h] == HINTS_READY ? g->hint_n[h] : 0;
    if (g->hint_state[h] == HINTS_SCANNING)
        g->hint_state[h] = HINTS_LATE; /* the producer's result for it is dropped */
    uint32_t *hoff = g->hint_off[h], *hlen = g->hint_len[h];
    pthread_mutex_unlock(&g->mu);
    char *data = block_data(g, h);
    if (crc_take(in, &g->mend[h], data, blen, g->crc_done[h] ? g->piece_crc[h] : NULL) != 0)
        return -1; /* (the block is not handed over, as when inflating fails) */
    size_t tail = in->len;
    int hold = tail <= PIPE_HEAD;
    int rc = 1;
    in->hint_n = 0;
    if (hold) {
        memcpy(data - tail, in->buf, tail); /* another block, or mem: never overlapping */
        in->buf = data - tail;
        in->len = tail + blen;
        /* the hints stay valid while the block is held (the producer fills
         * and scans other blocks only) */
        in->hint_off = hoff;
        in->hint_len = hlen;
        in->hint_n = nh;
        in->hint_at = in->base + tail;
    } else {
        /* slow path: tail and block into mem */
        if (!g->held && in->buf != in->mem) { /* the window is in mem: to its front */
            memmove(in->mem, in->buf, tail);
            in->buf = in->mem;
        }
        if (stint_i_input_grow(in, tail + blen) != 0)
            rc = -1;
        else {
            if (in->buf != in->mem) { /* the tail is in the held block */
                memcpy(in->mem, in->buf, tail);
                in->buf = in->mem;
            }
            memcpy(in->mem + tail, data, blen);
            in->len = tail + blen;
            memset(in->buf + in->len, 0, STINT_JSON_PAD);
        }
    }
    pthread_mutex_lock(&g->mu);
    if (rc > 0) {
        /* the old window's block (if any) is free now; the new one is held if the window is in it */
        g->head = (h + 1) % PIPE_BLOCKS;
        g->ready--;
        g->held = hold;
        pthread_cond_broadcast(&g->cv);
        if (g->ra_mode == 2)
            read_ahead(g, in);
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

