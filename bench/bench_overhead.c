/* SPDX-License-Identifier: MIT */
/*
 * bench_overhead.c - nanoseconds per span (begin + end, nesting depth 3),
 * against baselines measured in the same run.
 *
 * Cases (each repeated, median reported):
 *   compiled_out      the loop with the macros expanded as STINT_ENABLED=0 does
 *   runtime_off       stint_set_enabled(0): one relaxed load per begin
 *   recorded          binary record into the thread ring (drained between batches, untimed)
 *   markers_e2e       record + format + write(2) to a file, flushed on the recording thread, timed end to end
 *   clock_gettime x2  baseline: the two CLOCK_MONOTONIC reads a span needs
 *   rdtsc x2          baseline: two TSC reads
 *   rdtsc ring        baseline: a hand-written tracer, two TSC reads and a
 *                     32-byte record into a thread-local ring per span, the
 *                     same depth-3 nesting (what spall-like tracers do)
 *   snprintf+write    baseline: the seed's emission style, one formatted write(2) per span
 * With --threads 2 the recorded and markers cases also run on two threads at once.
 *
 * --burst N: instead, T threads (--threads, default 1) each record N spans
 * in a tight loop with the library's own settings (environment) and its
 * writer thread draining as it does by itself; then one stint_flush(). Prints
 * the spans recorded, dropped and written, the burst's and the flush's wall
 * time and the peak RSS: "burst threads=T spans=N recorded=.. dropped=..
 * written=.. burst_ms=.. flush_ms=.. maxrss_mib=..".
 *
 * Usage: bench_overhead [--spans N] [--reps R] [--threads T] [--out DIR]
 *        bench_overhead --burst N [--threads T]
 */
#include <stint/stint.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static long g_spans = 10000000;
static int g_reps = 5;
static const char *g_out = "/tmp";
static volatile uint64_t g_sink;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- instrumented loops (depth 3: three spans per iteration) ---------------- */

__attribute__((noinline)) static void loop_enabled(long iters)
{
    for (long i = 0; i < iters; i++) {
        STINT_SCOPE("bench.a");
        {
            STINT_SCOPE("bench.a.b");
            {
                STINT_SCOPE("bench.a.b.c");
                g_sink += (uint64_t)i;
            }
        }
    }
}

/* The same loop with the macros as STINT_ENABLED=0 defines them. */
#undef STINT_SCOPE
#define STINT_SCOPE(name)
__attribute__((noinline)) static void loop_compiled_out(long iters)
{
    for (long i = 0; i < iters; i++) {
        STINT_SCOPE("bench.a");
        {
            STINT_SCOPE("bench.a.b");
            {
                STINT_SCOPE("bench.a.b.c");
                g_sink += (uint64_t)i;
            }
        }
    }
}

__attribute__((noinline)) static void loop_clock_gettime(long iters)
{
    struct timespec a, b;
    for (long i = 0; i < iters * 3; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        g_sink += (uint64_t)(b.tv_nsec - a.tv_nsec);
    }
}

__attribute__((noinline)) static void loop_rdtsc(long iters)
{
    for (long i = 0; i < iters * 3; i++) {
        uint64_t a = __rdtsc();
        uint64_t b = __rdtsc();
        g_sink += b - a;
    }
}

/* The hand-written ring: 1 MiB, records of {name, start, end, depth}. */
typedef struct {
    const char *name;
    uint64_t start, end, depth;
} ring_rec;
static _Thread_local ring_rec g_ring[1 << 15];
static _Thread_local uint64_t g_ring_head;

static inline void ring_put(const char *name, uint64_t start, uint64_t end, uint64_t depth)
{
    ring_rec *r = &g_ring[g_ring_head++ & ((1 << 15) - 1)];
    r->name = name;
    r->start = start;
    r->end = end;
    r->depth = depth;
}

__attribute__((noinline)) static void loop_rdtsc_ring(long iters)
{
    for (long i = 0; i < iters; i++) {
        uint64_t a = __rdtsc();
        {
            uint64_t b = __rdtsc();
            {
                uint64_t c = __rdtsc();
                g_sink += (uint64_t)i;
                ring_put("bench.a.b.c", c, __rdtsc(), 2);
            }
            ring_put("bench.a.b", b, __rdtsc(), 1);
        }
        ring_put("bench.a", a, __rdtsc(), 0);
    }
}

static int g_fd = -1;
__attribute__((noinline)) static void loop_snprintf_write(long iters)
{
    char line[256];
    struct timespec a, b;
    for (long i = 0; i < iters * 3; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        int n = snprintf(line, sizeof line,
                         "[STRACE] v=1 pid=%d tid=%d inv=%llu hid=%llx depth=%d name=%s ts=%lld dur=%lld \n", 1234,
                         1234, (unsigned long long)i, 0xabcdefULL, 2, "bench.a.b.c",
                         (long long)a.tv_sec * 1000000000 + a.tv_nsec, (long long)(b.tv_nsec - a.tv_nsec));
        if (write(g_fd, line, (size_t)n) < 0)
            abort();
    }
}

/* ---- runners ---------------------------------------------------------------------- */

typedef void (*loop_fn)(long);

/* Batches sized to fit the thread ring, so nothing drops; flush_between
 * drains after each batch, inside or outside the timed region. */
enum { UNTIMED_FLUSH = 1, TIMED_FLUSH = 2 };

__attribute__((noinline)) static double run_case(loop_fn fn, long spans, int flush_mode)
{
    long iters = spans / 3;
    long batch = flush_mode ? 3000 : iters; /* 9000 spans x 64 B < 1 MiB ring */
    int64_t total = 0;
    for (long done = 0; done < iters; done += batch) {
        long n = iters - done < batch ? iters - done : batch;
        int64_t t0 = now_ns();
        fn(n);
        if (flush_mode == TIMED_FLUSH)
            if (stint_flush() != STINT_OK) abort();
        total += now_ns() - t0;
        if (flush_mode == UNTIMED_FLUSH)
            if (stint_flush() != STINT_OK) abort();
    }
    return (double)total / (double)(iters * 3);
}

typedef struct {
    loop_fn fn;
    long spans;
    int flush_mode;
    double ns;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    j->ns = run_case(j->fn, j->spans, j->flush_mode);
    return NULL;
}

/* Runs the case on nthreads threads at once; returns the mean ns per span
 * per thread. */
static double run_threads(loop_fn fn, long spans, int flush_mode, int nthreads)
{
    if (nthreads <= 1)
        return run_case(fn, spans, flush_mode);
    pthread_t th[8];
    thread_job jobs[8];
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (thread_job){fn, spans, flush_mode, 0};
        pthread_create(&th[i], NULL, thread_main, &jobs[i]);
    }
    double sum = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        sum += jobs[i].ns;
    }
    return sum / nthreads;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(loop_fn fn, long spans, int flush_mode, int nthreads, void (*setup)(void))
{
    double v[32];
    for (int r = 0; r < g_reps; r++) {
        if (setup)
            setup();
        v[r] = run_threads(fn, spans, flush_mode, nthreads);
    }
    qsort(v, (size_t)g_reps, sizeof v[0], cmp_double);
    return v[g_reps / 2];
}

/* ---- burst ------------------------------------------------------------------------ */

static _Atomic int64_t g_burst_cpu_ns; /* the recording threads' CPU time, summed */

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *burst_main(void *arg)
{
    int64_t c0 = thread_cpu_ns();
    loop_enabled(*(const long *)arg / 3);
    atomic_fetch_add(&g_burst_cpu_ns, thread_cpu_ns() - c0);
    return NULL;
}

/* The --burst case: see the file's comment. Returns the exit status. */
static int burst(long spans, int nthreads)
{
    if (nthreads < 1 || nthreads > 8)
        nthreads = 1;
    stint_stats st0, st1;
    stint_get_stats(&st0); /* (starts the library and its writer outside the timing) */
    pthread_t th[8];
    int64_t t0 = now_ns();
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, burst_main, &spans);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    int64_t t1 = now_ns();
    stint_status fs = stint_flush();
    int64_t t2 = now_ns();
    stint_get_stats(&st1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("burst threads=%d spans=%ld recorded=%llu dropped=%llu written=%llu burst_ms=%.1f flush_ms=%.1f "
           "maxrss_mib=%.1f rec_cpu_ns_per_span=%.1f proc_cpu_s=%.2f flush=%s\n",
           nthreads, spans / 3 * 3, (unsigned long long)(st1.spans_recorded - st0.spans_recorded),
           (unsigned long long)(st1.spans_dropped - st0.spans_dropped),
           (unsigned long long)(st1.spans_written - st0.spans_written), (double)(t1 - t0) / 1e6,
           (double)(t2 - t1) / 1e6, (double)ru.ru_maxrss / 1024.0,
           (double)atomic_load(&g_burst_cpu_ns) / (double)(spans / 3 * 3 * nthreads),
           (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
           stint_strerror(fs));
    return fs == STINT_OK ? 0 : 1;
}

static char g_marker_path[4096];
static void setup_off(void) { stint_set_enabled(0); }
static void setup_on_quiet(void)
{
    stint_set_enabled(1);
    stint_markers_off();
}
static void setup_markers(void)
{
    stint_set_enabled(1);
    unlink(g_marker_path);
    if (stint_markers_to_path(g_marker_path, 0) != STINT_OK)
        abort();
}

int main(int argc, char **argv)
{
    int max_threads = 2;
    long burst_spans = 0;
    int threads_given = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spans") && i + 1 < argc)
            g_spans = atol(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            max_threads = atoi(argv[++i]);
            threads_given = 1;
        }
        else if (!strcmp(argv[i], "--burst") && i + 1 < argc)
            burst_spans = atol(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            g_out = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i]; /* one case, once: for callgrind --toggle-collect=run_case */
    }
    if (g_reps < 1 || g_reps > 31)
        g_reps = 5;
    if (burst_spans > 0)
        return burst(burst_spans, threads_given ? max_threads : 1);
    snprintf(g_marker_path, sizeof g_marker_path, "%s/bench_markers.log", g_out);
    char base_path[4096];
    snprintf(base_path, sizeof base_path, "%s/bench_snprintf.log", g_out);

    /* warm up: thread registration, writer start, TSC proof */
    setup_on_quiet();
    loop_enabled(1000);
    if (stint_flush() != STINT_OK) abort();
    struct timespec settle = {0, 100000000};
    nanosleep(&settle, NULL);
    stint_stats st;
    stint_get_stats(&st);

    if (only) {
        if (!strcmp(only, "recorded"))
            run_case(loop_enabled, g_spans, UNTIMED_FLUSH);
        else if (!strcmp(only, "markers")) {
            setup_markers();
            run_case(loop_enabled, g_spans, TIMED_FLUSH);
        } else if (!strcmp(only, "disabled")) {
            setup_off();
            run_case(loop_enabled, g_spans, 0);
        } else if (!strcmp(only, "ring")) {
            run_case(loop_rdtsc_ring, g_spans, 0);
        } else if (!strcmp(only, "snprintf")) {
            g_fd = open(base_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
            run_case(loop_snprintf_write, g_spans, 0);
            close(g_fd);
            unlink(base_path);
        } else {
            fprintf(stderr, "unknown case %s\n", only);
            return 2;
        }
        stint_markers_off();
        unlink(g_marker_path);
        return 0;
    }
    long slow_spans = g_spans / 50 > 30000 ? g_spans / 50 : 30000;
    printf("# ns per span (begin+end, depth 3), median of %d runs; %ld spans per run (%ld for snprintf+write)\n",
           g_reps, g_spans, slow_spans);
    printf("# clock: %s\n", st.clock_tsc ? "CLOCK_MONOTONIC via calibrated TSC" : "CLOCK_MONOTONIC");
    printf("%-34s %8s %10s\n", "case", "threads", "ns/span");
    double base_cg = median_of(loop_clock_gettime, g_spans, 0, 1, NULL);
    double base_tsc = median_of(loop_rdtsc, g_spans, 0, 1, NULL);
    double base_ring = median_of(loop_rdtsc_ring, g_spans, 0, 1, NULL);
    g_fd = open(base_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    double base_sw = median_of(loop_snprintf_write, slow_spans, 0, 1, NULL);
    close(g_fd);
    unlink(base_path);
    double off_c = median_of(loop_compiled_out, g_spans, 0, 1, NULL);
    double off_r = median_of(loop_enabled, g_spans, 0, 1, setup_off);
    printf("%-34s %8d %10.2f\n", "baseline: clock_gettime x2", 1, base_cg);
    printf("%-34s %8d %10.2f\n", "baseline: rdtsc x2", 1, base_tsc);
    printf("%-34s %8d %10.2f\n", "baseline: rdtsc ring (hand-written)", 1, base_ring);
    printf("%-34s %8d %10.2f\n", "baseline: snprintf+write(2)", 1, base_sw);
    printf("%-34s %8d %10.2f\n", "compiled out (STINT_ENABLED=0)", 1, off_c);
    printf("%-34s %8d %10.2f\n", "runtime disabled", 1, off_r);
    for (int t = 1; t <= max_threads; t++) {
        double rec = median_of(loop_enabled, g_spans, UNTIMED_FLUSH, t, setup_on_quiet);
        double e2e = median_of(loop_enabled, g_spans / 4, TIMED_FLUSH, t, setup_markers);
        printf("%-34s %8d %10.2f   (%.2fx the rdtsc ring)\n", "recorded (binary record)", t, rec, rec / base_ring);
        printf("%-34s %8d %10.2f   (%.1fx faster than snprintf+write)\n", "markers to file, end to end", t, e2e,
               base_sw / e2e);
    }
    stint_markers_off();
    unlink(g_marker_path);
    stint_get_stats(&st);
    printf("# dropped during the run: %llu\n", (unsigned long long)st.spans_dropped);
    return 0;
}
