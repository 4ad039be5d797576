/*
 * bench_inflate.c - decompression speed on a .gz file, two ways:
 *
 *   bench_inflate FILE.gz           stint's input layer (input.c): the
 *                                   inflate thread, its chunk ring and the
 *                                   copy into the reused window; the bytes
 *                                   are discarded.
 *   bench_inflate --bare FILE.gz    ISA-L at its best, as the baseline that
 *                                   `stint summary` on a .gz is held to: one
 *                                   thread, the whole compressed file read
 *                                   first (4 MiB reads into one buffer), then
 *                                   isal_inflate() over all of it into one
 *                                   reused output buffer (--chunk KiB,
 *                                   default 256: small enough to stay in L2,
 *                                   see --sweep), gzip header and CRC checked
 *                                   as stint does. Falls back to zlib where
 *                                   ISA-L is missing (then it says so).
 *   bench_inflate --sweep FILE.gz   the bare loop for output chunks of
 *                                   16 KiB .. 16 MiB, best of 3 each, to
 *                                   check that default.
 *
 * Prints "<decompressed bytes> <seconds>" (the seconds cover opening,
 * reading and inflating; --bare adds the inflate-only seconds and the
 * library). bench_summary.sh times the whole process and compares.
 */
#include "input.h"

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

/* Inflates all gzip members of src[0..n) into out (reused, chunk bytes).
 * Returns the decompressed size, or -1 on corrupt data. */
static long long inflate_all(const unsigned char *src, size_t n, unsigned char *out, size_t chunk)
{
    unsigned long long total = 0;
#if defined(STINT_HAVE_ISAL)
    static struct inflate_state st;
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
    st.next_in = (uint8_t *)(uintptr_t)src;
    st.avail_in = (uint32_t)n; /* bench files are < 4 GiB compressed */
    for (;;) {
        st.next_out = out;
        st.avail_out = (uint32_t)chunk;
        int rc = isal_inflate(&st);
        if (rc < 0)
            return -1;
        total += chunk - st.avail_out;
        if (st.block_state == ISAL_BLOCK_FINISH) {
            if (st.avail_in == 0)
                break;
            uint32_t left = st.avail_in;
            uint8_t *at = st.next_in;
            isal_inflate_reset(&st);
            st.crc_flag = ISAL_GZIP;
            st.next_in = at;
            st.avail_in = left;
        } else if (st.avail_in == 0 && st.avail_out != 0)
            return -1; /* truncated */
    }
#elif defined(STINT_HAVE_ZLIB)
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return -1;
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    for (;;) {
        zs.next_out = out;
        zs.avail_out = (uInt)chunk;
        int rc = inflate(&zs, Z_NO_FLUSH);
        total += chunk - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            inflateReset(&zs);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            inflateEnd(&zs);
            return -1;
        } else if (zs.avail_in == 0 && zs.avail_out != 0)
            break;
    }
    inflateEnd(&zs);
#else
    (void)src, (void)n, (void)out, (void)chunk;
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
    unsigned char *src;
    long long n = slurp(path, &src);
    if (n < 0)
        return 3;
    unsigned char *out = malloc(chunk);
    if (!out)
        return 3;
    memset(out, 0, chunk); /* touched once, outside the inflate loop */
    double t1 = now_s();
    long long total = inflate_all(src, (size_t)n, out, chunk);
    double t2 = now_s();
    if (total < 0) {
        fprintf(stderr, "%s: corrupt or truncated gzip data\n", path);
        return 1;
    }
    printf("%lld %.6f inflate-only %.6f (%s, %zu KiB output chunk)\n", total, t2 - t0, t2 - t1, lib_name(),
           chunk >> 10);
    free(out);
    free(src);
    return 0;
}

static int sweep(const char *path)
{
    unsigned char *src;
    long long n = slurp(path, &src);
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
            double t0 = now_s();
            total = inflate_all(src, (size_t)n, out, chunk);
            double t = now_s() - t0;
            if (total < 0)
                return 1;
            if (t < best)
                best = t;
        }
        printf("%10zu %10.4f %10.0f\n", chunk >> 10, best, (double)total / best / 1e6);
        free(out);
    }
    free(src);
    return 0;
}

int main(int argc, char **argv)
{
    size_t chunk = (size_t)256 << 10;
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
