/*
 * input.c - file/stdin reading with gzip detection (ISA-L, zlib fallback).
 *
 * Invariants: buf has cap + STINT_JSON_PAD bytes, the padding after len is
 * zero after every fill; reads are at least STINT_INPUT_CHUNK bytes (this
 * machine pays ~1 us per syscall); the buffer is allocated once and reused,
 * grown only when one unconsumed piece is larger than it.
 */
#include "input.h"

#include "json.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(STINT_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#elif defined(STINT_HAVE_ZLIB)
#include <zlib.h>
#endif

int stint_input_errcode(const struct stint_input *in) { return in->err[0] && in->corrupt ? 1 : 3; }

static ssize_t read_full(int fd, void *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)dst + got, n - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int grow(struct stint_input *in, size_t need)
{
    if (need <= in->cap)
        return 0;
    size_t cap = in->cap ? in->cap : STINT_INPUT_CHUNK;
    while (cap < need)
        cap *= 2;
    if (cap > STINT_INPUT_MAX_WINDOW) {
        snprintf(in->err, sizeof in->err,
                 "%s: byte %llu: one JSON event or line is longer than %zu MiB (expected events to be smaller)",
                 in->path, (unsigned long long)in->base, STINT_INPUT_MAX_WINDOW >> 20);
        in->corrupt = 1;
        return -1;
    }
    char *nb = realloc(in->buf, cap + STINT_JSON_PAD);
    if (!nb) {
        snprintf(in->err, sizeof in->err, "%s: out of memory for a %zu MiB window", in->path, cap >> 20);
        return -1;
    }
    in->buf = nb;
    in->cap = cap;
    return 0;
}

/* Raw (compressed) bytes for the decompressor. */
static int zin_fill(struct stint_input *in)
{
    if (in->zin_pos < in->zin_len || in->zin_eof)
        return 0;
    ssize_t r = read_full(in->fd, in->zin, STINT_INPUT_CHUNK);
    if (r < 0) {
        snprintf(in->err, sizeof in->err, "%s: read error: %s", in->path, strerror(errno));
        return -1;
    }
    in->zin_len = (size_t)r;
    in->zin_pos = 0;
    in->raw_read += (uint64_t)r;
    if (r == 0)
        in->zin_eof = 1;
    return 0;
}

/* Inflates into buf[len..cap). Returns bytes produced, -1 on error. */
static ssize_t inflate_into(struct stint_input *in, char *dst, size_t room)
{
    size_t produced = 0;
    while (produced < room) {
        if (zin_fill(in) != 0)
            return -1;
        if (in->zin_pos >= in->zin_len) { /* no more compressed input */
            if (!in->z_done && produced > 0)
                break; /* hand over what was inflated; the next call reports the truncation */
            if (!in->z_done) {
                snprintf(in->err, sizeof in->err,
                         "%s: compressed byte %llu: gzip stream is truncated (expected more deflate data)",
                         in->path, (unsigned long long)in->raw_read);
                in->corrupt = 1;
                return -1;
            }
            break;
        }
#if defined(STINT_HAVE_ISAL)
        struct inflate_state *st = in->z;
        if (in->z_done) { /* a following gzip member */
            isal_inflate_reset(st);
            st->crc_flag = ISAL_GZIP;
            in->z_done = 0;
        }
        st->next_in = in->zin + in->zin_pos;
        st->avail_in = (uint32_t)(in->zin_len - in->zin_pos);
        st->next_out = (uint8_t *)dst + produced;
        st->avail_out = (uint32_t)(room - produced);
        int rc = isal_inflate(st);
        size_t used = (in->zin_len - in->zin_pos) - st->avail_in;
        in->zin_pos += used;
        produced = (size_t)((char *)st->next_out - dst);
        if (rc < 0) {
            snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: corrupt gzip data (isa-l error %d)",
                     in->path, (unsigned long long)(in->raw_read - (in->zin_len - in->zin_pos)), rc);
            in->corrupt = 1;
            return -1;
        }
        if (st->block_state == ISAL_BLOCK_FINISH)
            in->z_done = 1;
#elif defined(STINT_HAVE_ZLIB)
        z_stream *zs = in->z;
        if (in->z_done) {
            inflateReset(zs);
            in->z_done = 0;
        }
        zs->next_in = in->zin + in->zin_pos;
        zs->avail_in = (uInt)(in->zin_len - in->zin_pos);
        zs->next_out = (Bytef *)dst + produced;
        zs->avail_out = (uInt)(room - produced);
        int rc = inflate(zs, Z_NO_FLUSH);
        in->zin_pos = in->zin_len - zs->avail_in;
        produced = (size_t)((char *)zs->next_out - dst);
        if (rc == Z_STREAM_END)
            in->z_done = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: corrupt gzip data (%s)", in->path,
                     (unsigned long long)in->raw_read, zs->msg ? zs->msg : "zlib error");
            in->corrupt = 1;
            return -1;
        }
#else
        snprintf(in->err, sizeof in->err, "%s: gzip input, but this build has neither ISA-L nor zlib", in->path);
        return -1;
#endif
    }
    return (ssize_t)produced;
}

/* ---- gzip on a second thread ----------------------------------------------------
 * Inflating (ISA-L ~0.8-1.9 GB/s) and parsing run on different cores: a
 * producer thread inflates into a small ring of chunks, fill() copies them
 * into the window. Only the producer touches the decompressor state. */

#define PIPE_SLOTS 4
#define PIPE_CHUNK ((size_t)1 << 20)

struct gzpipe {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *slot[PIPE_SLOTS];
    size_t len[PIPE_SLOTS];
    size_t head_off;       /* bytes of slot[head] already copied out */
    int head, tail, count;
    int done, failed, stop;
};

static void *pipe_main(void *arg)
{
    struct stint_input *in = arg;
    struct gzpipe *g = in->pipe;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (g->count == PIPE_SLOTS && !g->stop)
            pthread_cond_wait(&g->cv, &g->mu);
        int stop = g->stop, t = g->tail;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        ssize_t n = inflate_into(in, g->slot[t], PIPE_CHUNK);
        pthread_mutex_lock(&g->mu);
        if (n < 0)
            g->failed = 1;
        else if (n == 0)
            g->done = 1;
        else {
            g->len[t] = (size_t)n;
            g->tail = (t + 1) % PIPE_SLOTS;
            g->count++;
        }
        int end = g->failed || g->done;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        if (end)
            break;
    }
    return NULL;
}

static int pipe_start(struct stint_input *in)
{
    struct gzpipe *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    for (int i = 0; i < PIPE_SLOTS; i++)
        if (!(g->slot[i] = malloc(PIPE_CHUNK))) {
            for (int k = 0; k < i; k++)
                free(g->slot[k]);
            free(g);
            return -1;
        }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    in->pipe = g;
    if (pthread_create(&g->thread, NULL, pipe_main, in) != 0) {
        in->pipe = NULL;
        for (int k = 0; k < PIPE_SLOTS; k++)
            free(g->slot[k]);
        free(g);
        return -1;
    }
    return 0;
}

static void pipe_stop(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    for (int k = 0; k < PIPE_SLOTS; k++)
        free(g->slot[k]);
    free(g);
    in->pipe = NULL;
}

/* Copies ready chunks into buf[len..cap); waits only while nothing is ready. */
static ssize_t pipe_take(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    size_t room = in->cap - in->len, got = 0;
    pthread_mutex_lock(&g->mu);
    while (g->count == 0 && !g->done && !g->failed)
        pthread_cond_wait(&g->cv, &g->mu);
    while (got < room && g->count > 0) {
        int h = g->head;
        size_t n = g->len[h] - g->head_off;
        if (n > room - got)
            n = room - got;
        pthread_mutex_unlock(&g->mu); /* the slot is ours until head moves */
        memcpy(in->buf + in->len + got, g->slot[h] + g->head_off, n);
        pthread_mutex_lock(&g->mu);
        got += n;
        g->head_off += n;
        if (g->head_off == g->len[h]) {
            g->head_off = 0;
            g->head = (h + 1) % PIPE_SLOTS;
            g->count--;
            pthread_cond_broadcast(&g->cv);
        }
    }
    int failed = g->failed && g->count == 0 && got == 0;
    pthread_mutex_unlock(&g->mu);
    return failed ? -1 : (ssize_t)got;
}

int stint_input_fill(struct stint_input *in)
{
    if (in->eof)
        return 0;
    if (in->len == in->cap && grow(in, in->cap * 2) != 0)
        return -1;
    ssize_t r;
    if (in->gz) {
        r = in->pipe ? pipe_take(in) : inflate_into(in, in->buf + in->len, in->cap - in->len);
    } else {
        size_t want = in->cap - in->len;
        if (in->stop_at && in->base + in->len + want > in->stop_at)
            want = (size_t)(in->stop_at - in->base - in->len);
        r = read_full(in->fd, in->buf + in->len, want);
        if (r < 0)
            snprintf(in->err, sizeof in->err, "%s: read error at byte %llu: %s", in->path,
                     (unsigned long long)(in->base + in->len), strerror(errno));
        else if ((size_t)r < want || (in->stop_at && in->base + in->len + (size_t)r >= in->stop_at))
            in->eof = 1;
    }
    if (r < 0)
        return -1;
    if (in->gz && r == 0)
        in->eof = 1;
    in->len += (size_t)r;
    memset(in->buf + in->len, 0, STINT_JSON_PAD);
    if (r == 0)
        in->eof = 1;
    return r > 0 ? 1 : 0;
}

void stint_input_consume(struct stint_input *in, size_t n)
{
    if (n > in->len)
        n = in->len;
    memmove(in->buf, in->buf + n, in->len - n);
    in->len -= n;
    in->base += n;
    memset(in->buf + in->len, 0, STINT_JSON_PAD);
}

static int open_common(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    if (strcmp(path, "-") == 0) {
        in->fd = 0;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            snprintf(in->err, sizeof in->err, "%s: cannot open: %s", path, strerror(errno));
            return 3;
        }
        struct stat st;
        if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
            in->file_size = (uint64_t)st.st_size;
        if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(in->err, sizeof in->err, "%s: is a directory (expected a trace file)", path);
            close(in->fd);
            in->fd = -1;
            return 3;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        if (from && lseek(in->fd, (off_t)from, SEEK_SET) < 0) {
            snprintf(in->err, sizeof in->err, "%s: cannot seek: %s", path, strerror(errno));
            return 3;
        }
    }
    in->base = from;
    in->stop_at = to;
    if (grow(in, STINT_INPUT_CHUNK) != 0)
        return 3;
    /* Sniff the magic bytes from the first raw read. */
    if (from == 0) {
        in->zin = malloc(STINT_INPUT_CHUNK);
        if (!in->zin) {
            snprintf(in->err, sizeof in->err, "%s: out of memory", path);
            return 3;
        }
        if (zin_fill(in) != 0)
            return 3;
        if (in->zin_len >= 2 && in->zin[0] == 0x1f && in->zin[1] == 0x8b) {
            in->gz = 1;
#if defined(STINT_HAVE_ISAL)
            struct inflate_state *st = calloc(1, sizeof *st);
            if (!st)
                return 3;
            isal_inflate_init(st);
            st->crc_flag = ISAL_GZIP;
            in->z = st;
#elif defined(STINT_HAVE_ZLIB)
            z_stream *zs = calloc(1, sizeof *zs);
            if (!zs || inflateInit2(zs, 16 + MAX_WBITS) != Z_OK)
                return 3;
            in->z = zs;
#endif
        } else {
            /* plain: the sniffed bytes are the start of the data */
            memcpy(in->buf, in->zin, in->zin_len);
            in->len = in->zin_len;
            if (in->zin_eof || in->zin_len < STINT_INPUT_CHUNK)
                in->eof = in->zin_len < STINT_INPUT_CHUNK;
            if (in->stop_at && in->len >= in->stop_at) { /* the first part of a split file */
                in->len = (size_t)in->stop_at;
                in->eof = 1;
            }
            free(in->zin);
            in->zin = NULL;
            memset(in->buf + in->len, 0, STINT_JSON_PAD);
            return 0;
        }
    } else {
        memset(in->buf, 0, STINT_JSON_PAD);
    }
    if (in->gz && !getenv("STINT_NO_INFLATE_THREAD"))
        pipe_start(in); /* on failure, inflate on this thread */
    if (stint_input_fill(in) < 0)
        return stint_input_errcode(in);
    return 0;
}

int stint_input_open(struct stint_input *in, const char *path) { return open_common(in, path, 0, 0); }

int stint_input_open_range(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    return open_common(in, path, from, to);
}

void stint_input_close(struct stint_input *in)
{
    pipe_stop(in);
    if (in->fd > 0)
        close(in->fd);
    in->fd = -1;
#if defined(STINT_HAVE_ISAL)
    free(in->z);
#elif defined(STINT_HAVE_ZLIB)
    if (in->z) {
        inflateEnd(in->z);
        free(in->z);
    }
#endif
    in->z = NULL;
    free(in->zin);
    in->zin = NULL;
    free(in->buf);
    in->buf = NULL;
}
