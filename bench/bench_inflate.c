/* SPDX-License-Identifier: MIT */
/*
 * bench_inflate.c - decompression speed on a .gz file, two ways:
 *
 *   bench_inflate FILE.gz           stint's input layer (input.c): the
 *                                   inflate thread, its chunk ring and the
 *                                   copy into the reused window; the bytes
 *                                   are discarded.
 *   bench_inflate --bare FILE.gz    ISA-L at its best, as the baseline that
 *                                   `stint summary` on a .gz is held to: one
 *                                   thread, the compressed file read in
 *                                   1 MiB reads into one reused buffer (no
 *                                   fresh pages: a first touch costs ~12 us
 *                                   per 4 KiB page here, so reading the
 *                                   whole file into memory first would be
 *                                   slower), isal_inflate() into one reused
 *                                   output buffer (--chunk KiB, default
 *                                   1024, see --sweep), gzip header and CRC
 *                                   checked as stint does. Falls back to
 *                                   zlib where ISA-L is missing (then it
 *                                   says so).
 *   bench_inflate --sweep FILE.gz   inflate only (the file in memory) for
 *                                   output chunks of 16 KiB .. 16 MiB, best
 *                                   of 3 each, to check that default.
 *
 * Prints "<decompressed bytes> <seconds>" (the seconds cover opening,
 * reading and inflating; --bare adds the inflate-only seconds and the
 * library). bench_summary.sh times the whole process and compares.
 */
#include "read/input.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(STINT_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#elif defined(STINT_HAVE_ZLIB)
#include <zlib.h>
#endif

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int layer(const char *path)
{
    double t0 = now_s();
    struct stint_input in;
    if (stint_input_open(&in, path) != 0) {
        fprintf(stderr, "%s\n", in.err);
        return 3;
    }
    unsigned long long total = 0;
    for (;;) {
        total += in.len;
        stint_input_consume(&in, in.len);
        int r = stint_input_fill(&in);
        if (r < 0) {
            fprintf(stderr, "%s\n", in.err);
            return 1;
        }
        if (r == 0 && in.len == 0)
            break;
    }
    stint_input_close(&in);
    printf("%llu %.6f\n", total, now_s() - t0);
    return 0;
}

/* Reads the whole file into *buf (4 MiB reads). Returns its size, or -1. */
static long long slurp(const char *path, unsigned char **buf)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        return -1;
    }
    size_t n = (size_t)st.st_size, got = 0;
    *buf = malloc(n ? n : 1);
    if (!*buf)
        return -1;
    while (got < n) {
        size_t want = n - got < ((size_t)4 << 20) ? n - got : (size_t)4 << 20;
        ssize_t r = read(fd, *buf + got, want);
        if (r <= 0) {
            perror(path);
            return -1;
        }
        got += (size_t)r;
    }
    close(fd);
    return (long long)n;
}

#define ZIN ((size_t)1 << 20)

/* Compressed input: all of it in memory (buf, n), or streamed from fd
 * through buf (ZIN bytes, reused). */
struct src {
    int fd;
    unsigned char *buf;
    size_t n;
};

/* Refills buf from fd when the decoder has used it all. Returns the bytes
 * now available (0 at the end). */
static size_t src_more(struct src *s)
{
    if (s->fd < 0)
        return 0;
    ssize_t r = read(s->fd, s->buf, ZIN);
    return r > 0 ? (size_t)r : 0;
}

/* Inflates all gzip members of the source into out (reused, chunk bytes).
 * Returns the decompressed size, or -1 on corrupt data. */
static long long inflate_all(struct src *src, unsigned char *out, size_t chunk)
{
    unsigned long long total = 0;
#if defined(STINT_HAVE_ISAL)
    static struct inflate_state st;
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
    st.next_in = src->buf;
    st.avail_in = (uint32_t)src->n; /* bench files are < 4 GiB compressed */
    for (;;) {
        if (st.avail_in == 0) {
            st.next_in = src->buf;
            st.avail_in = (uint32_t)src_more(src);
        }
        int at_end = st.avail_in == 0;
        if (st.block_state == ISAL_BLOCK_FINISH) { /* end of a member: another one may follow */
            if (at_end)
                break;
            uint8_t *at = st.next_in;
            uint32_t left = st.avail_in;
            isal_inflate_reset(&st);
            st.crc_flag = ISAL_GZIP;
            st.next_in = at;
            st.avail_in = left;
        }
        st.next_out = out;
        st.avail_out = (uint32_t)chunk;
        if (isal_inflate(&st) < 0)
            return -1;
        size_t produced = chunk - st.avail_out;
        total += produced;
        if (produced == 0 && at_end && st.block_state != ISAL_BLOCK_FINISH)
            return -1; /* truncated */
    }
#elif defined(STINT_HAVE_ZLIB)
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return -1;
    zs.next_in = src->buf;
    zs.avail_in = (uInt)src->n;
    int finished = 0;
    for (;;) {
        if (zs.avail_in == 0) {
            zs.next_in = src->buf;
            zs.avail_in = (uInt)src_more(src);
        }
        int at_end = zs.avail_in == 0;
        if (finished) {
            if (at_end)
                break;
            inflateReset(&zs);
            finished = 0;
        }
        zs.next_out = out;
        zs.avail_out = (uInt)chunk;
        int rc = inflate(&zs, Z_NO_FLUSH);
        size_t produced = chunk - zs.avail_out;
        total += produced;
        if (rc == Z_STREAM_END)
            finished = 1;
        else if ((rc != Z_OK && rc != Z_BUF_ERROR) || (produced == 0 && at_end)) {
            inflateEnd(&zs);
            return -1;
        }
    }
    inflateEnd(&zs);
#else
    (void)src, (void)out, (void)chunk;
    return -1;
#endif
    return (long long)total;
}

static const char *lib_name(void)
{
#if defined(STINT_HAVE_ISAL)
    return "isa-l";
#elif defined(STINT_HAVE_ZLIB)
    return "zlib (no ISA-L in this build)";
#else
    return "none";
#endif
}

static int bare(const char *path, size_t chunk)
{
    double t0 = now_s();
    struct src src = {.fd = open(path, O_RDONLY), .buf = malloc(ZIN)};
    unsigned char *out = malloc(chunk);
    if (src.fd < 0 || !src.buf || !out) {
        perror(path);
        return 3;
    }
    memset(out, 0, chunk); /* touched once, outside the inflate loop */
    double t1 = now_s();
    src.n = src_more(&src);
    long long total = inflate_all(&src, out, chunk);
    double t2 = now_s();
    if (total < 0) {
        fprintf(stderr, "%s: corrupt or truncated gzip data\n", path);
        return 1;
    }
    printf("%lld %.6f (read+inflate %.6f; %s, %zu KiB output chunk)\n", total, t2 - t0, t2 - t1, lib_name(),
           chunk >> 10);
    free(out);
    free(src.buf);
    close(src.fd);
    return 0;
}

static int sweep(const char *path)
{
    unsigned char *all;
    long long n = slurp(path, &all);
    if (n < 0)
        return 3;
    printf("%s, inflate only, best of 3\n%10s %10s %10s\n", lib_name(), "chunk KiB", "seconds", "MB/s");
    for (size_t chunk = (size_t)16 << 10; chunk <= (size_t)16 << 20; chunk *= 4) {
        unsigned char *out = malloc(chunk);
        if (!out)
            return 3;
        memset(out, 0, chunk);
        double best = 1e30;
        long long total = 0;
        for (int rep = 0; rep < 3; rep++) {
            struct src src = {.fd = -1, .buf = all, .n = (size_t)n};
            double t0 = now_s();
            total = inflate_all(&src, out, chunk);
            double t = now_s() - t0;
            if (total < 0)
                return 1;
            if (t < best)
                best = t;
        }
        printf("%10zu %10.4f %10.0f\n", chunk >> 10, best, (double)total / best / 1e6);
        free(out);
    }
    free(all);
    return 0;
}

int main(int argc, char **argv)
{
    size_t chunk = (size_t)1 << 20;
    int mode = 0; /* 0 layer, 1 bare, 2 sweep */
    int i = 1;
    for (; i < argc - 1; i++) {
        if (!strcmp(argv[i], "--bare"))
            mode = 1;
        else if (!strcmp(argv[i], "--sweep"))
            mode = 2;
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc - 1)
            chunk = (size_t)strtoul(argv[++i], NULL, 10) << 10;
        else
            break;
    }
    if (i != argc - 1 || chunk == 0) {
        fprintf(stderr, "usage: bench_inflate [--bare [--chunk KIB] | --sweep] FILE.gz\n");
        return 2;
    }
    return mode == 0 ? layer(argv[i]) : mode == 1 ? bare(argv[i], chunk) : sweep(argv[i]);
}
