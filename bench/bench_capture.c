/* SPDX-License-Identifier: MIT */
/*
 * bench_capture.c - spans per second per thread into the binary capture
 * sink, end to end and without loss, against a hand-written rdtsc ring
 * measured in the same run.
 *
 * Rows (medians over --reps runs):
 *   rdtsc ring (baseline)  each thread: two rdtsc and a 32-byte record into a
 *                          1 MiB ring of its own (wrapping, never read): the
 *                          floor of any in-process tracer
 *   no sink, T threads     the same with no sink at all (markers off): the
 *                          writer drains and discards; the library's own cost
 *   capture, T threads     each of T threads records --spans spans (one call
 *                          site, no attributes) in a tight loop while the
 *                          library's writer thread drains into a capture file
 *                          (--out DIR) as it does by itself; then one
 *                          stint_flush() and stint_capture_close(). Reported:
 *                          spans/s per thread over the loop alone and over
 *                          loop + the final flush (everything on disk), and
 *                          the spans dropped (counted by the library); and
 *                          the CPU time: each recording thread's own per span
 *                          (CLOCK_THREAD_CPUTIME_ID) and the rest of the
 *                          process's (the writer thread) per record, which on
 *                          a busy machine say what the sink costs where wall
 *                          time also counts the waits for a core.
 *   drain ns/record        one thread records 10,000 spans with the writer
 *                          held off, then stint_flush() drains them on the
 *                          calling thread: into nothing (markers off, no
 *                          sink) and into the capture. The difference is the
 *                          capture's own cost per record.
 * Settings come from the environment (STINT_BUFFER_KB, STINT_FLUSH_MS, ...)
 * except the held-off writer of the drain rows, which this program asks for
 * (STINT_FLUSH_MS is read once: the drain rows run in a child process).
 *
 * usage: bench_capture [--spans N] [--reps R] [--threads T] [--out DIR]
 */
#include "stint/session.h"
#include "stint/stint.h"

#include "bench_median.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* What a thread reports: its loop's wall time and its own CPU time, ns;
 * of that CPU time the kernel's (ns), and the page faults it took (a chunk
 * touched for the first time costs one per 4 KiB). */
typedef struct took {
    double wall, cpu, sys, faults;
} took;

/* The calling thread's kernel CPU time (ns) and minor page faults. */
static void thread_usage(double *sys_ns, double *faults)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    *sys_ns = (double)ru.ru_stime.tv_sec * 1e9 + (double)ru.ru_stime.tv_usec * 1e3;
    *faults = (double)ru.ru_minflt;
}


static long g_spans = 20000000;
static volatile uint64_t g_sink;

/* ---- the baseline: a hand-written rdtsc ring ------------------------------------------ */

typedef struct ring_rec {
    const char *name;
    uint64_t start, end;
    uint64_t depth;
} ring_rec;

#define RING_RECS ((1u << 20) / sizeof(ring_rec))

static void *ring_thread(void *arg)
{
    ring_rec *ring = malloc(RING_RECS * sizeof *ring);
    memset(ring, 0, RING_RECS * sizeof *ring);
    unsigned pos = 0;
    int64_t t0 = now_ns(), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < g_spans; i++) {
        uint64_t a = __rdtsc();
        g_sink += (uint64_t)i;
        uint64_t b = __rdtsc();
        ring[pos] = (ring_rec){"bench.capture", a, b, 0};
        pos = (pos + 1) & (RING_RECS - 1);
    }
    *(took *)arg = (took){(double)(now_ns() - t0), (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0), 0, 0};
    g_sink += ring[pos ^ 1].end;
    free(ring);
    return NULL;
}

/* ---- the capture ---------------------------------------------------------------------- */

static void *span_thread(void *arg)
{
    static const stint_loc loc = {"bench.capture", NULL, __FILE__, "span_thread", __LINE__};
    double s0, f0, s1, f1;
    thread_usage(&s0, &f0);
    int64_t t0 = now_ns(), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < g_spans; i++) {
        stint_span s = stint_span_begin(&loc);
        g_sink += (uint64_t)i;
        stint_span_end(s);
    }
    int64_t t1 = now_ns(), c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    thread_usage(&s1, &f1);
    *(took *)arg = (took){(double)(t1 - t0), (double)(c1 - c0), s1 - s0, f1 - f0};
    return NULL;
}

/* Runs fn on t threads at once: the slowest thread's wall ns in sum->wall,
 * the threads' CPU ns, kernel ns and faults summed in the rest. */
static void run_threads(void *(*fn)(void *), int t, took *sum)
{
    pthread_t th[64];
    took each[64];
    memset(each, 0, sizeof each);
    for (int k = 0; k < t; k++)
        pthread_create(&th[k], NULL, fn, &each[k]);
    *sum = (took){0, 0, 0, 0};
    for (int k = 0; k < t; k++) {
        pthread_join(th[k], NULL);
        if (each[k].wall > sum->wall)
            sum->wall = each[k].wall;
        sum->cpu += each[k].cpu;
        sum->sys += each[k].sys;
        sum->faults += each[k].faults;
    }
}

/* ---- drain cost, in a child with the writer held off --------------------------------------- */

static void record_batch(long n)
{
    static const stint_loc loc = {"bench.capture", NULL, __FILE__, "record_batch", __LINE__};
    for (long i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_span_end(s);
    }
}

static void drain_rows(const char *dir, int reps)
{
    setenv("STINT_FLUSH_MS", "3600000", 1);
    setenv("STINT_MARKERS", "off", 1);
    const long n = 10000;
    double none[64], cap[64];
    record_batch(10); /* the thread's buffer, the writer thread */
    if (stint_flush() != STINT_OK)
        exit(1);
    for (int r = 0; r < reps; r++) {
        record_batch(n);
        int64_t t0 = now_ns();
        if (stint_flush() != STINT_OK) /* no sink: counted as discarded */
            exit(1);
        none[r] = (double)(now_ns() - t0) / (double)n;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_capture_drain.stint", dir);
    stint_capture *c;
    if (stint_capture_open(path, &c, NULL, 0) != STINT_OK)
        exit(1);
    for (int r = 0; r < reps; r++) {
        record_batch(n);
        int64_t t0 = now_ns();
        if (stint_flush() != STINT_OK)
            exit(1);
        cap[r] = (double)(now_ns() - t0) / (double)n;
    }
    if (stint_capture_close(c) != STINT_OK)
        exit(1);
    unlink(path);
    double a = bench_median(none, reps), b = bench_median(cap, reps);
    printf("%-34s %10.1f ns/record\n", "drain, no sink (baseline)", a);
    printf("%-34s %10.1f ns/record  (capture's own: %.1f ns; %.1fM records/s on one writer thread)\n",
           "drain into the capture", b, b - a, 1e3 / b);
    exit(0);
}

int main(int argc, char **argv)
{
    int reps = 5, threads = 2;
    const char *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spans") && i + 1 < argc)
            g_spans = atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_capture [--spans N] [--reps R] [--threads T] [--out DIR]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64 || threads < 1 || threads > 64 || g_spans < 1)
        return 2;
    pid_t child = fork();
    if (child == 0)
        drain_rows(dir, reps);
    int status;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return 1;

    double v[64], vc[64];
    for (int r = 0; r < reps; r++) {
        took k;
        run_threads(ring_thread, 1, &k);
        v[r] = k.wall;
        vc[r] = k.cpu;
    }
    double ring_ns = bench_median(v, reps) / (double)g_spans, ring_cpu = bench_median(vc, reps) / (double)g_spans;
    printf("%-34s %10.2f ns/span  %7.1fM spans/s per thread; CPU %.2f ns/span (%.1fM/s)\n", "rdtsc ring (baseline)",
           ring_ns, 1e3 / ring_ns, ring_cpu, 1e3 / ring_cpu);
    setenv("STINT_MARKERS", "off", 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_capture.stint", dir);
    for (int row = 0; row < 2 * threads; row++) {
        int t = row / 2 + 1, with_capture = row % 2;
        double loop[64], all[64], pcpu[64], wcpu[64], psys[64], pflt[64];
        uint64_t dropped = 0;
        for (int r = 0; r < reps; r++) {
            stint_stats s0, s1;
            stint_get_stats(&s0);
            stint_capture *c = NULL;
            if (with_capture && stint_capture_open(path, &c, NULL, 0) != STINT_OK)
                return 1;
            int64_t t0 = now_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
            took k;
            run_threads(span_thread, t, &k);
            loop[r] = k.wall;
            pcpu[r] = k.cpu;
            psys[r] = k.sys / t;
            pflt[r] = k.faults / t;
            if (stint_flush() != STINT_OK || (c && stint_capture_close(c) != STINT_OK))
                return 1;
            all[r] = (double)(now_ns() - t0);
            /* the rest of the process's CPU: the writer thread's drains (and the final flush) */
            wcpu[r] = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) - pcpu[r];
            pcpu[r] /= t;
            stint_get_stats(&s1);
            dropped += s1.spans_dropped - s0.spans_dropped;
        }
        double l = bench_median(loop, reps) / (double)g_spans, e = bench_median(all, reps) / (double)g_spans;
        double pc = bench_median(pcpu, reps) / (double)g_spans, wc = bench_median(wcpu, reps) / (double)g_spans / t;
        double ps = bench_median(psys, reps) / (double)g_spans, pf = bench_median(pflt, reps) * 1e6 / (double)g_spans;
        char name[64];
        snprintf(name, sizeof name, "%s, %d thread%s", with_capture ? "capture" : "no sink (writer discards)", t,
                 t > 1 ? "s" : "");
        printf("%-34s %10.2f ns/span  %7.1fM spans/s per thread (loop), %.1fM end to end; %.2fx the ring; "
               "dropped %llu of %llu\n%-34s CPU: %.2f ns/span on each recording thread (%.2fx the ring's; kernel %.2f, "
               "%.0f page faults per M spans), %.2f ns/record on the writer: at most %.1fM spans/s per thread "
               "with a core each\n",
               name, l, 1e3 / l, 1e3 / e, l / ring_ns, (unsigned long long)dropped,
               (unsigned long long)(g_spans * t * reps), "", pc, pc / ring_cpu, ps, pf, wc,
               1e3 / (pc > wc * t ? pc : wc * t));
    }
    unlink(path);
    double la[3];
    if (getloadavg(la, 3) == 3)
        printf("load average: %.2f %.2f %.2f\n", la[0], la[1], la[2]);
    return 0;
}
