/* SPDX-License-Identifier: MIT */
/*
 * input.c - file/stdin reading into the window of input.h: opening (with
 * gzip detection), plain reads, fill and consume. Gzip input is inflated
 * by input_gzip.c (ISA-L, zlib fallback) on this thread or by
 * input_thread.c's inflate thread.
 *
 * Invariants: the window buf[0..len) is followed by STINT_JSON_PAD zero
 * bytes after every open, consume and fill; it lies in mem (cap + STINT_INPUT_ALIGN +
 * STINT_JSON_PAD bytes) or, for gzip on the inflate thread, in one block of
 * the ring (see "gzip on a second thread"). Plain reads are
 * STINT_INPUT_CHUNK bytes (this machine pays ~1 us per syscall);
 * compressed reads are ZIN_CHUNK. Every buffer is allocated once and reused
 * (a first touch of a 4 KiB page costs ~12 us here, so nothing is allocated
 * per chunk), and mem grows only when one unconsumed piece is larger than
 * it. consume() only moves buf; fill() moves the unconsumed tail to the
 * front (it is at most one event) before reading after it.
 */
#include "read/input_int.h"
#include "base/xalloc.h"

int stint_input_errcode(const struct stint_input *in) { return in->err[0] && in->corrupt ? 1 : 3; }

/* The test knob STINT_TEST_EIO_AT=N (input.h). Read once; -1 when unset. */
static long long eio_at(void)
{
    static long long at = -2;
    long long v = __atomic_load_n(&at, __ATOMIC_RELAXED);
    if (v == -2) {
        const char *e = getenv("STINT_TEST_EIO_AT");
        v = e && *e ? atoll(e) : -1;
        __atomic_store_n(&at, v, __ATOMIC_RELAXED);
    }
    return v;
}

int stint_i_test_eio(int fd, size_t n)
{
    long long stop = eio_at();
    if (stop < 0)
        return 0;
    off_t off = lseek(fd, 0, SEEK_CUR);
    if (off < 0 || (long long)off + (long long)n <= stop)
        return 0;
    errno = EIO;
    return 1;
}

ssize_t stint_i_read_some(int fd, void *dst, size_t n)
{
    for (;;) {
        ssize_t r = read(fd, dst, n);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

ssize_t stint_i_input_read_full(int fd, void *dst, size_t n)
{
    if (stint_i_test_eio(fd, n))
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = stint_i_read_some(fd, (char *)dst + got, n - got);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Whether the window lies in mem (addresses compared as integers: it may
 * be in a block of the gzip ring instead). */
static int window_in_mem(const struct stint_input *in)
{
    uintptr_t b = (uintptr_t)in->buf, m = (uintptr_t)in->mem;
    return in->mem && in->buf && b >= m && b <= m + in->cap + STINT_INPUT_ALIGN;
}

/* The bytes of a window allocation for cap bytes of window. */
static size_t mem_bytes(size_t cap) { return cap + STINT_INPUT_ALIGN + STINT_JSON_PAD; }
/* The first window: its allocation is STINT_INPUT_CHUNK bytes, one block
 * that hmem.h reuses from part to part of a split read. */
#define WINDOW0 (STINT_INPUT_CHUNK - STINT_INPUT_ALIGN - STINT_JSON_PAD)

/* Makes mem hold at least need bytes (doubling). The window, if it is in
 * mem, moves with it (same offset); a window outside mem is left alone and
 * mem's old bytes are not kept. mem has STINT_INPUT_ALIGN spare bytes
 * before the padding, for make_room's shift. 0 ok; -1 with err set when
 * need passes STINT_INPUT_MAX_WINDOW (bad data). Out of memory ends the
 * process (exit STINT_EXIT_NOMEM): the reader cannot go on without it. */
int stint_i_input_grow(struct stint_input *in, size_t need)
{
    if (need <= in->cap)
        return 0;
    size_t cap = in->cap ? in->cap : WINDOW0;
    while (cap < need)
        cap *= 2;
    if (cap > STINT_INPUT_MAX_WINDOW) {
        snprintf(in->err, sizeof in->err,
                 "%s: byte %llu: one JSON event or line is longer than %zu MiB (expected events to be smaller)",
                 in->path, (unsigned long long)in->base, STINT_INPUT_MAX_WINDOW >> 20);
        in->corrupt = 1;
        return -1;
    }
    int keep = window_in_mem(in);
    size_t at = keep ? (size_t)(in->buf - in->mem) : 0;
    char *nb;
    if (keep || !in->mem)
        nb = stint_hmem_realloc(in->mem, in->mem ? mem_bytes(in->cap) : 0, mem_bytes(cap));
    else { /* nothing to keep: no copy */
        stint_hmem_free(in->mem, mem_bytes(in->cap));
        in->mem = NULL;
        in->cap = 0;
        nb = stint_hmem_alloc(mem_bytes(cap));
    }
    if (!nb)
        stint_die_nomem();
    if (keep || !in->buf)
        in->buf = nb + at;
    in->mem = nb;
    in->cap = cap;
    return 0;
}

/* Where a window that starts at input offset base goes in mem: the first of
 * mem's bytes at the same address modulo STINT_INPUT_ALIGN as base, so that
 * read() copies each page-cache page to a 64-byte-aligned spot. Measured
 * here (Zen 5, 100 MB cached file, 1 MiB reads): 16 ms with that alignment,
 * 55-73 ms with the destination 8 or 16 bytes off, which is where malloc
 * puts a large block. */
static char *aligned_front(const struct stint_input *in)
{
    return in->mem + ((in->base - (uintptr_t)in->mem) & (STINT_INPUT_ALIGN - 1));
}

/* Moves the window (which is in mem) to aligned_front() and makes room
 * after it for at least cap - len bytes. 0 ok, -1 as stint_i_input_grow(). */
static int make_room(struct stint_input *in)
{
    if (in->len >= in->cap && stint_i_input_grow(in, in->cap * 2) != 0)
        return -1;
    char *front = aligned_front(in);
    if (in->buf != front) {
        memmove(front, in->buf, in->len);
        in->buf = front;
    }
    return 0;
}

int stint_input_fill(struct stint_input *in)
{
    if (in->eof)
        return 0;
    if (in->pipe)
        return stint_i_input_pipe_fill(in);
    if (make_room(in) != 0)
        return -1;
    ssize_t r;
    if (in->gz) {
        SELF_SCOPE("inflate");
        r = stint_i_gz_inflate(in, in->buf + in->len, in->cap - in->len, NULL);
        in->raw_read = in->zraw;
        stint_i_self_attr("bytes", (int64_t)r);
    } else {
        size_t want = in->cap - in->len;
        if (in->stop_at && in->base + in->len + want > in->stop_at)
            want = (size_t)(in->stop_at - in->base - in->len);
        SELF_SCOPE("read()");
        r = stint_i_input_read_full(in->fd, in->buf + in->len, want);
        stint_i_self_attr("bytes", (int64_t)r);
        if (r < 0)
            snprintf(in->err, sizeof in->err, "%s: read error at byte %llu: %s", in->path,
                     (unsigned long long)(in->base + in->len), strerror(errno));
        else if ((size_t)r < want || (in->stop_at && in->base + in->len + (size_t)r >= in->stop_at))
            in->eof = 1;
    }
    if (r < 0)
        return -1;
    if (in->cut_at && r == 0)
        in->cut_missed = 1; /* the stream ended before a cut: the part runs to the real end */
    if (in->cut_at && in->base + in->len + (size_t)r > in->cut_at) {
        /* a gzip part's end: the first cut at or after cut_at in the new bytes */
        size_t from = in->base + in->len >= in->cut_at ? in->len : (size_t)(in->cut_at - in->base);
        long k = stint_i_cut_scan(in->buf + from, in->len + (size_t)r - from, &in->cut_comma);
        if (k >= 0) {
            r = (ssize_t)(from + (size_t)k - in->len);
            in->eof = 1;
        }
    }
    in->len += (size_t)r;
    memset(in->buf + in->len, 0, STINT_JSON_PAD);
    if (r == 0)
        in->eof = 1;
    return r > 0 ? 1 : 0;
}

double stint_i_gz_parse_share(void)
{
    /* per byte here: ISA-L inflates in ~0.6 ns, zlib in ~1.5 ns, and the
     * Chrome reader parses in ~1.2 ns */
#if defined(STINT_HAVE_ISAL)
    return 1.2 / (0.6 + 1.2);
#else
    return 1.2 / (1.5 + 1.2);
#endif
}

long stint_i_cut_scan(const char *p, size_t n, int *comma)
{
    int c = *comma;
    for (size_t i = 0; i < n; i++) {
        char b = p[i];
        if (b == ',')
            c = 1;
        else if (b == '{' && c)
            return (long)i;
        else if (b != ' ' && b != '\n' && b != '\r' && b != '\t')
            c = 0;
    }
    *comma = c;
    return -1;
}

void stint_input_consume(struct stint_input *in, size_t n)
{
    /* O(1): the padding after the window's end stays where it is */
    if (n > in->len)
        n = in->len;
    in->buf += n;
    in->len -= n;
    in->base += n;
}

/* no_pipe: inflate on the calling thread; cut_at: see struct stint_input. */
static int open_common(struct stint_input *in, const char *path, uint64_t from, uint64_t to, int no_pipe,
                       uint64_t cut_at)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->cut_at = cut_at;
    if (strcmp(path, "-") == 0) {
        in->fd = 0;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            snprintf(in->err, sizeof in->err, "%s: cannot open: %s", path, strerror(errno));
            return 3;
        }
        struct stat st;
        int have_st = fstat(in->fd, &st) == 0;
        if (have_st && S_ISREG(st.st_mode))
            in->file_size = (uint64_t)st.st_size;
        stint_hmem_expect(in->file_size); /* before the window is made */
        if (have_st && S_ISDIR(st.st_mode)) {
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
    in->base = in->progress_at = from;
    in->stop_at = to;
    if (stint_i_input_grow(in, WINDOW0) != 0)
        return 3;
    in->buf = aligned_front(in);
    /* Sniff the magic bytes from the first read, made straight into the
     * window: plain input keeps it there, gzip input moves it to zin. */
    if (from == 0) {
        size_t want = ZIN_CHUNK < in->cap ? ZIN_CHUNK : in->cap;
        if (in->stop_at && want > in->stop_at)
            want = (size_t)in->stop_at;
        ssize_t r = stint_i_input_read_full(in->fd, in->buf, want);
        if (r < 0) {
            snprintf(in->err, sizeof in->err, "%s: read error at byte 0: %s", path, strerror(errno));
            return 3;
        }
        if (r >= 2 && (unsigned char)in->buf[0] == 0x1f && (unsigned char)in->buf[1] == 0x8b) {
            if (mem_bytes(in->cap) == ZIN_CHUNK) {
                /* the window's block becomes zin as it is: no fresh memory
                 * to touch before inflating starts (a window is made when
                 * one is needed) */
                memmove(in->mem, in->buf, (size_t)r);
                in->zin = (unsigned char *)in->mem;
                in->mem = in->buf = NULL;
                in->cap = 0;
            } else {
                in->zin = stint_xcheck(stint_hmem_alloc(ZIN_CHUNK));
                memcpy(in->zin, in->buf, (size_t)r);
                memset(in->buf, 0, STINT_JSON_PAD);
            }
            in->zin_len = (size_t)r;
            in->raw_read = in->zraw = (uint64_t)r;
            in->zin_eof = r == 0;
            in->gz = 1;
#if defined(STINT_HAVE_ISAL)
            struct inflate_state *st = stint_xcalloc(1, sizeof *st);
            isal_inflate_init(st);
            st->crc_flag = ISAL_DEFLATE; /* (the gzip wrapper is read apart: stint_i_gz_inflate) */
            in->z = st;
#elif defined(STINT_HAVE_ZLIB)
            z_stream *zs = stint_xcalloc(1, sizeof *zs);
            int zrc = inflateInit2(zs, 16 + MAX_WBITS);
            if (zrc == Z_MEM_ERROR)
                stint_die_nomem();
            if (zrc != Z_OK) {
                free(zs);
                return 3;
            }
            in->z = zs;
#endif
        } else {
            /* plain: the sniffed bytes are the start of the data */
            in->len = (size_t)r;
            if ((size_t)r < want) /* stdin and files alike: stint_i_input_read_full stops short only at the end */
                in->eof = 1;
            if (in->stop_at && in->len >= in->stop_at) { /* the first part of a split file */
                in->len = (size_t)in->stop_at;
                in->eof = 1;
            }
            memset(in->buf + in->len, 0, STINT_JSON_PAD);
            return 0;
        }
    } else {
        memset(in->buf, 0, STINT_JSON_PAD);
    }
    if (in->gz && !no_pipe && !getenv("STINT_NO_INFLATE_THREAD"))
        stint_i_input_pipe_start(in); /* on failure, inflate on this thread */
    if (!in->pipe && !in->mem) { /* inflating here: into a window */
        if (stint_i_input_grow(in, WINDOW0) != 0)
            return 3;
        in->buf = aligned_front(in);
        memset(in->buf, 0, STINT_JSON_PAD);
    }
    if (stint_input_fill(in) < 0)
        return stint_input_errcode(in);
    return 0;
}

int stint_input_open(struct stint_input *in, const char *path) { return open_common(in, path, 0, 0, 0, 0); }

int stint_input_open_range(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    return open_common(in, path, from, to, 0, 0);
}

int stint_input_open_gz_part(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    int rc = open_common(in, path, 0, 0, 1, to);
    if (rc != 0)
        return rc;
    if (!in->gz) {
        snprintf(in->err, sizeof in->err, "%s: not a gzip file any more", path);
        return 3;
    }
    if (!from)
        return 0;
    /* inflate and drop everything before from, then up to the first cut */
    int comma = 0;
    for (;;) {
        if (in->base + in->len > from) {
            size_t at = in->base >= from ? 0 : (size_t)(from - in->base);
            long k = stint_i_cut_scan(in->buf + at, in->len - at, &comma);
            if (k >= 0) {
                stint_input_consume(in, at + (size_t)k);
                in->progress_at = in->base;
                return 0;
            }
        }
        stint_input_consume(in, in->len);
        int r = stint_input_fill(in);
        if (r < 0)
            return stint_input_errcode(in);
        if (r == 0) {
            in->no_cut = 1;
            return 0;
        }
    }
}

void stint_input_close(struct stint_input *in)
{
    stint_i_input_pipe_stop(in);
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
    stint_hmem_free(in->zin, ZIN_CHUNK);
    in->zin = NULL;
    stint_hmem_free(in->mem, mem_bytes(in->cap));
    in->mem = NULL;
    in->buf = NULL;
    in->len = in->cap = 0;
}

