/* SPDX-License-Identifier: MIT */
/*
 * test_burst_threads.c - bursts are not lost with the default buffer
 * settings; past STINT_BUFFER_MAX_MB they are dropped and counted exactly.
 *
 * Each case runs in a fresh process (the buffer settings are read once):
 *   lossless   default settings, the writer thread draining by itself: one
 *              thread records N spans in a tight loop, then two threads N/2
 *              each. Every span reaches the marker callback, in order per
 *              thread (its attribute counts up by one), none is dropped, and
 *              the counters say so (recorded = written = N).
 *   cap        STINT_BUFFER_MAX_MB=2 with the writer parked: the thread's
 *              first chunk and two growth chunks of 1 MiB hold exactly
 *              3 x 16384 records of 64 bytes; the rest is dropped, counted,
 *              reported in [STINT] dropped lines that add up to the count,
 *              with a range. After a flush the two drained chunks are
 *              reused (the third, full, stays the chunk written): two more
 *              chunks' worth fits, exactly.
 *   fixed      STINT_BUFFER_KB=64 alone keeps its old meaning, a fixed
 *              buffer: exactly 1024 records fit, the rest is dropped.
 *   flush2     markers to a file; two threads record in rounds and each
 *              calls stint_flush() after each round (each formats its own
 *              lines without the drain lock, the writer thread drains too):
 *              the file has every span once, each thread's in order.
 * N is STINT_TEST_BURST_SPANS (default 300000 spans, 100000 under a
 * sanitizer: a dozen chunks or more; bench_overhead --burst measures 10 M).
 */
#include "check.h"
#include "stint/stint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the marker callback: counts span lines and checks each thread's order */

#define MAX_TIDS 8
static struct {
    long tid;
    long next; /* the i= value expected next */
} g_seen[MAX_TIDS];
static long g_lines, g_out_of_order, g_drop_lines;
static unsigned long long g_drop_count;

/* The integer after key in line[0..n), or -1. */
static long field(const char *line, size_t n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k < n; i++)
        if ((i == 0 || line[i - 1] == ' ') && !memcmp(line + i, key, k))
            return strtol(line + i + k, NULL, 10);
    return -1;
}

/* Runs with the drain lock held (one call at a time). */
static void on_line(const char *line, size_t n, void *user)
{
    (void)user;
    if (n > 7 && !memcmp(line, "[STINT]", 7)) {
        g_drop_lines++;
        g_drop_count += (unsigned long long)field(line, n, "count=");
        return;
    }
    long tid = field(line, n, "tid="), i = field(line, n, "i=");
    g_lines++;
    for (int k = 0; k < MAX_TIDS; k++) {
        if (g_seen[k].tid == tid || g_seen[k].tid == 0) {
            g_seen[k].tid = tid;
            if (i != g_seen[k].next)
                g_out_of_order++;
            g_seen[k].next = i + 1;
            return;
        }
    }
    g_out_of_order++;
}

static void reset_seen(void)
{
    memset(g_seen, 0, sizeof g_seen);
    g_lines = g_out_of_order = g_drop_lines = 0;
    g_drop_count = 0;
}

static void record(long n)
{
    static const stint_loc loc = {"burst.span", NULL, __FILE__, "record", __LINE__};
    for (long i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_span_end(s);
        (void)i;
    }
}

/* The spans carry i (their index in the thread): 88-byte records. */
static void record_counted(long n)
{
    static const stint_loc loc = {"burst.span", NULL, __FILE__, "record_counted", __LINE__};
    for (long i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_attr_i64("i", i);
        stint_span_end(s);
    }
}

static void *thread_main(void *arg)
{
    record_counted(*(const long *)arg);
    return NULL;
}

static long burst_spans(void)
{
    const char *v = getenv("STINT_TEST_BURST_SPANS");
    long n = v && *v ? atol(v) : CHECK_ASAN_OR_TSAN ? 100000 : 300000; /* (sanitizers: 5-15x slower) */
    return n < 1000 ? 1000 : n;
}

/* ---- cases ------------------------------------------------------------------ */

static void case_lossless(void)
{
    long n = burst_spans();
    REQUIRE(stint_markers_to_callback(on_line, NULL, 0) == STINT_OK);
    stint_stats s0, s1;
    stint_get_stats(&s0);
    pthread_t th[2];
    long each[2] = {n, 0};
    REQUIRE(pthread_create(&th[0], NULL, thread_main, &each[0]) == 0);
    REQUIRE(pthread_join(th[0], NULL) == 0);
    REQUIRE(stint_flush() == STINT_OK);
    stint_get_stats(&s1);
    CHECK_EQ_U64(s1.spans_dropped - s0.spans_dropped, 0);
    CHECK_EQ_U64(s1.spans_recorded - s0.spans_recorded, (uint64_t)n);
    CHECK_EQ_U64(s1.spans_written - s0.spans_written, (uint64_t)n);
    CHECK_EQ_I64(g_lines, n);
    CHECK_EQ_I64(g_out_of_order, 0);
    CHECK_EQ_I64(g_seen[0].next, n);

    reset_seen();
    stint_get_stats(&s0);
    each[0] = each[1] = n / 2;
    for (int k = 0; k < 2; k++)
        REQUIRE(pthread_create(&th[k], NULL, thread_main, &each[k]) == 0);
    for (int k = 0; k < 2; k++)
        REQUIRE(pthread_join(th[k], NULL) == 0);
    REQUIRE(stint_flush() == STINT_OK);
    stint_get_stats(&s1);
    CHECK_EQ_U64(s1.spans_dropped - s0.spans_dropped, 0);
    CHECK_EQ_U64(s1.spans_recorded - s0.spans_recorded, (uint64_t)(n / 2 * 2));
    CHECK_EQ_U64(s1.spans_written - s0.spans_written, (uint64_t)(n / 2 * 2));
    CHECK_EQ_I64(g_lines, n / 2 * 2);
    CHECK_EQ_I64(g_out_of_order, 0);
    CHECK_EQ_I64(g_seen[0].next, n / 2);
    CHECK_EQ_I64(g_seen[1].next, n / 2);
    CHECK_EQ_I64(g_drop_lines, 0);
}

/* Records n spans on this thread with the writer parked and checks that
 * exactly `fit` were kept, the rest dropped, counted and reported. */
static void fill_once(long n, long fit)
{
    reset_seen();
    stint_stats s0, s1;
    stint_get_stats(&s0);
    record(n);
    REQUIRE(stint_flush() == STINT_OK);
    stint_get_stats(&s1);
    CHECK_EQ_U64(s1.spans_recorded - s0.spans_recorded, (uint64_t)fit);
    CHECK_EQ_U64(s1.spans_dropped - s0.spans_dropped, (uint64_t)(n - fit));
    CHECK_EQ_I64(g_lines, fit);
    CHECK_EQ_U64(g_drop_count, (uint64_t)(n - fit));
    CHECK(g_drop_lines >= 1);
    CHECK(s1.drop_first_ts_ns > 0 && s1.drop_first_ts_ns <= s1.drop_last_ts_ns);
}

static void case_cap(void)
{
    REQUIRE(stint_markers_to_callback(on_line, NULL, 0) == STINT_OK);
    record(1); /* (the thread registers; its first chunk) */
    REQUIRE(stint_flush() == STINT_OK);
    /* 64-byte records: the rest of the first chunk (one used), and two more */
    fill_once(100000, 3 * 16384 - 1);
    /* the last chunk is full; the two before it, drained, are the spares:
     * they are taken again (no chunk mapped: the cap is reached) */
    fill_once(100000, 2 * 16384);
}

static void case_fixed(void)
{
    REQUIRE(stint_markers_to_callback(on_line, NULL, 0) == STINT_OK);
    record(1);
    REQUIRE(stint_flush() == STINT_OK);
    fill_once(5000, 1023);
}

typedef struct {
    long rounds, per_round;
} flush_job;

static void *flush_main(void *arg)
{
    const flush_job *j = arg;
    static const stint_loc loc = {"burst.flushed", NULL, __FILE__, "flush_main", __LINE__};
    long i = 0;
    for (long r = 0; r < j->rounds; r++) {
        for (long k = 0; k < j->per_round; k++, i++) {
            stint_span s = stint_span_begin(&loc);
            stint_attr_i64("i", i);
            stint_span_end(s);
        }
        if (stint_flush() != STINT_OK)
            abort();
    }
    return NULL;
}

static void case_flush2(void)
{
    char path[] = "/tmp/stint_test_burst_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(stint_markers_to_path(path, 0) == STINT_OK);
    flush_job job = {CHECK_ASAN_OR_TSAN ? 12 : 40, 3000};
    stint_stats s0, s1;
    stint_get_stats(&s0);
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        REQUIRE(pthread_create(&th[k], NULL, flush_main, &job) == 0);
    for (int k = 0; k < 2; k++)
        REQUIRE(pthread_join(th[k], NULL) == 0);
    REQUIRE(stint_flush() == STINT_OK);
    stint_get_stats(&s1);
    stint_markers_off();
    long want = job.rounds * job.per_round;
    CHECK_EQ_U64(s1.spans_dropped - s0.spans_dropped, 0);
    CHECK_EQ_U64(s1.spans_written - s0.spans_written, (uint64_t)(2 * want));
    CHECK_EQ_U64(s1.sink_spans_lost, 0);
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    reset_seen();
    char line[1024];
    while (fgets(line, sizeof line, f))
        on_line(line, strlen(line), NULL);
    fclose(f);
    unlink(path);
    CHECK_EQ_I64(g_lines, 2 * want);
    CHECK_EQ_I64(g_out_of_order, 0);
    CHECK_EQ_I64(g_seen[0].next, want);
    CHECK_EQ_I64(g_seen[1].next, want);
}

/* Runs `which` in a fresh process with env (NAME=VALUE strings). */
static void run_case(const char *self, const char *which, const char *const *env)
{
    fflush(NULL);
    pid_t c = fork();
    REQUIRE(c >= 0);
    if (c == 0) {
        for (; *env; env++)
            putenv((char *)*env);
        execl("/proc/self/exe", self, which, (char *)NULL);
        _exit(127);
    }
    int ws;
    REQUIRE(waitpid(c, &ws, 0) == c);
    if (!(WIFEXITED(ws) && WEXITSTATUS(ws) == 0))
        fprintf(stderr, "case %s failed\n", which);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "lossless"))
            case_lossless();
        else if (!strcmp(argv[1], "cap"))
            case_cap();
        else if (!strcmp(argv[1], "fixed"))
            case_fixed();
        else if (!strcmp(argv[1], "flush2"))
            case_flush2();
        CHECK_DONE();
    }
    unsetenv("STINT_BUFFER_KB");
    unsetenv("STINT_BUFFER_MAX_MB");
    static const char *const lossless[] = {"STINT_FLUSH_MS=10", NULL};
    static const char *const cap[] = {"STINT_BUFFER_MAX_MB=2", "STINT_FLUSH_MS=3600000", NULL};
    static const char *const fixed[] = {"STINT_BUFFER_KB=64", "STINT_FLUSH_MS=3600000", NULL};
    run_case(argv[0], "lossless", lossless);
    run_case(argv[0], "cap", cap);
    run_case(argv[0], "fixed", fixed);
    run_case(argv[0], "flush2", lossless);
    CHECK_DONE();
}
