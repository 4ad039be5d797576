/* SPDX-License-Identifier: MIT */
/*
 * bench_markers_parse.c - throughput of the streaming [STRACE] parser alone
 * (no model, no views): reads FILE with stint_mparse_read_fd and a callback that
 * only counts. Prints one line: bytes, records, seconds, MB/s. The file is
 * read REPEAT times (default 5) and the median is reported, so the page cache
 * is warm after the first pass.
 *
 * usage: bench_markers_parse FILE [REPEAT]
 */
#include "read/markers_parse.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int count(void *ctx, const struct stint_mparse_record *r)
{
    (void)r;
    (*(uint64_t *)ctx)++;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_markers_parse FILE [REPEAT]\n");
        return 2;
    }
    int rep = argc > 2 ? atoi(argv[2]) : 5;
    if (rep < 1 || rep > 100)
        rep = 5;
    double t[100];
    uint64_t bytes = 0, recs = 0;
    for (int i = 0; i < rep; i++) {
        int fd = open(argv[1], O_RDONLY);
        if (fd < 0) {
            perror(argv[1]);
            return 3;
        }
        recs = 0;
        struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
        o.on_record = count;
        o.ctx = &recs;
        struct stint_mparse *p = stint_mparse_new(&o);
        double t0 = now_s();
        if (!p || stint_mparse_read_fd(p, fd) != 0) {
            fprintf(stderr, "parse failed\n");
            return 1;
        }
        t[i] = now_s() - t0;
        bytes = stint_mparse_get_stats(p)->bytes;
        stint_mparse_free(p);
        close(fd);
    }
    qsort(t, (size_t)rep, sizeof t[0], cmp_d);
    double med = t[rep / 2];
    printf("parser-only: %llu bytes, %llu records, median %.3f s, %.0f MB/s\n", (unsigned long long)bytes,
           (unsigned long long)recs, med, (double)bytes / med / 1e6);
    return 0;
}
