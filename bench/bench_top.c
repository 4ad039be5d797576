/* SPDX-License-Identifier: MIT */
/*
 * bench_top.c - `stint top`'s two costs that must not grow: memory over a
 * long stream, and the time of one tick on a large log.
 *
 *   bench_top rss [--records N]       N marker lines (default 50 000 000)
 *                                     through the reader and the tally, RSS
 *                                     and the tally's heap at each tenth
 *   bench_top tick [--sizes A,B,...] [--ticks T] [--dir D]
 *                                     for each log size (default 1 MB and
 *                                     1 GB): writes a log of that size, reads
 *                                     it once (the catch-up, timed apart),
 *                                     then T ticks that each append 200
 *                                     records and poll + draw the frame; the
 *                                     median tick and its ratio to the first
 *                                     size's
 *
 * Never a test: timings depend on the machine. bench_top.sh runs both.
 */
#include "analyze/top_stats.h"
#include "cmd/top_feed.h"
#include "cmd/top_view.h"
#include "read/follow.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* Writer time between two records: 20 us for the RSS stream (50 M records
 * are 1000 s, 33 windows); 3 ms for the tick logs, so that 1 MB already
 * spans more than the window and both sizes tick over a full window. */
static long gap_ns = 20000;

/* One marker line of record i (64 names, 8 lanes, a new invocation per 4 records, gap_ns apart). */
static size_t record(char *dst, size_t cap, long i)
{
    return (size_t)snprintf(dst, cap,
                            "[STRACE] v=1 pid=1 tid=%ld inv=%ld hid=%lx depth=%d name=op.%ld ts=%ld dur=%ld\n", i % 8,
                            i / 4, 0xa0 + i % 3, i % 4 == 0 ? 0 : 1, (i * 7919) % 64, 1000000000 + i * gap_ns,
                            1000 + (i * 31) % 900000);
}

static int bench_rss(long records)
{
    struct stint_top *t = stint_top_new(30000000000LL, 10);
    struct stint_top_feed *feed = stint_top_feed_new(t, STINT_TOP_FMT_MARKERS);
    static char buf[1 << 20];
    size_t len = 0;
    double t0 = now_s();
    printf("%12s %12s %14s\n", "records", "rss_kib", "tally_bytes");
    for (long i = 0; i < records; i++) {
        len += record(buf + len, sizeof buf - len, i);
        if (len > sizeof buf - 256) {
            stint_top_feed_lines(feed, buf, len, STINT_FOLLOW_LINES);
            len = 0;
        }
        if ((i + 1) % (records / 10) == 0) {
            stint_top_feed_lines(feed, buf, len, STINT_FOLLOW_LINES);
            len = 0;
            struct stint_top_counts c;
            stint_top_get_counts(t, &c);
            printf("%12ld %12ld %14zu\n", i + 1, rss_kib(), c.bytes);
            fflush(stdout);
        }
    }
    printf("%.2f M records/s through the reader and the tally\n", (double)records / (now_s() - t0) / 1e6);
    stint_top_feed_free(feed);
    stint_top_free(t);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Appends records [from, from + n) to fd. */
static void append(int fd, long from, long n)
{
    static char buf[1 << 20];
    size_t len = 0;
    for (long i = from; i < from + n; i++) {
        len += record(buf + len, sizeof buf - len, i);
        if (len > sizeof buf - 256 || i == from + n - 1) {
            if (write(fd, buf, len) != (ssize_t)len) {
                perror("write");
                exit(3);
            }
            len = 0;
        }
    }
}

/* Returns the median tick in seconds for a log of `size` bytes. */
static double bench_size(const char *dir, long long size, int ticks)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/bench_top.log", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        exit(3);
    }
    long per = (long)record(err, sizeof err, 12345678);
    long n = (long)(size / per);
    double w0 = now_s();
    append(fd, 0, n);
    fdatasync(fd); /* the writeback of a fresh 1 GB would otherwise run during the ticks */
    double w1 = now_s();
    struct stint_follow *fol = stint_follow_open(path, err, sizeof err);
    struct stint_top *t = stint_top_new(30000000000LL, 10);
    struct stint_top_feed *feed = stint_top_feed_new(t, STINT_TOP_FMT_UNKNOWN);
    unsigned ev;
    double c0 = now_s();
    stint_follow_poll(fol, stint_top_feed_lines, feed, 0, &ev, err, sizeof err);
    double c1 = now_s();
    double *tk = calloc((size_t)ticks, sizeof *tk);
    struct stint_top_show show;
    memset(&show, 0, sizeof show);
    show.sort = STINT_TOP_COL_CALLS;
    show.width = 150;
    show.rows_max = 30;
    for (int k = 0; k < ticks; k++) {
        append(fd, n + (long)k * 200, 200);
        double a = now_s();
        stint_follow_poll(fol, stint_top_feed_lines, feed, 0, &ev, err, sizeof err);
        struct stint_top_tick tick;
        memset(&tick, 0, sizeof tick);
        tick.path = path;
        tick.window_ns = 30000000000LL;
        tick.fs = stint_follow_get_stats(fol);
        stint_top_feed_get_counts(feed, &tick.fc);
        tick.fmt = stint_top_feed_format(feed);
        stint_top_get_counts(t, &tick.tc);
        stint_top_get_tpot(t, &tick.tpot);
        struct stint_top_lines l = {0};
        stint_top_render(t, &tick, &show, &l);
        stint_top_lines_free(&l);
        tk[k] = now_s() - a;
    }
    qsort(tk, (size_t)ticks, sizeof *tk, cmp_d);
    double med = tk[ticks / 2];
    printf("%14lld %12ld %10.2f %11.2f %12.1f %12.1f\n", size, n, w1 - w0, c1 - c0, med * 1e6, tk[ticks - 1] * 1e6);
    fflush(stdout);
    free(tk);
    stint_top_feed_free(feed);
    stint_top_free(t);
    stint_follow_close(fol);
    close(fd);
    unlink(path);
    return med;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "rss") == 0) {
        long records = 50000000;
        for (int i = 2; i + 1 < argc; i += 2)
            if (strcmp(argv[i], "--records") == 0)
                records = atol(argv[i + 1]);
        if (records < 10)
            records = 10;
        return bench_rss(records);
    }
    if (strcmp(mode, "tick") == 0) {
        const char *sizes = "1048576,1073741824", *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        int ticks = 200;
        for (int i = 2; i + 1 < argc; i += 2) {
            if (strcmp(argv[i], "--sizes") == 0)
                sizes = argv[i + 1];
            else if (strcmp(argv[i], "--ticks") == 0)
                ticks = atoi(argv[i + 1]);
            else if (strcmp(argv[i], "--dir") == 0)
                dir = argv[i + 1];
        }
        if (ticks < 1)
            ticks = 1;
        gap_ns = 3000000;
        printf("%14s %12s %10s %11s %12s %12s\n", "log_bytes", "records", "write_s", "catchup_s", "tick_med_us",
               "tick_max_us");
        double first = 0;
        char *list = strdup(sizes);
        for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
            double med = bench_size(dir, atoll(s), ticks);
            if (first == 0)
                first = med;
            else
                printf("  median tick vs the first size: %.2fx\n", med / first);
        }
        free(list);
        return 0;
    }
    fprintf(stderr, "usage: bench_top rss [--records N] | tick [--sizes A,B] [--ticks T] [--dir D]\n");
    return 2;
}
