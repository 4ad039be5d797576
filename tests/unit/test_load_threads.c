/* SPDX-License-Identifier: MIT */
/*
 * test_load_threads.c - 16 threads x N spans (N = 1M; 100k under ASan, 30k under TSan;
 * STINT_LOAD_SPANS overrides) into the marker sink and into the ring, with
 * exact accounting: recorded + dropped == emitted, always.
 *
 * Phases, each in a fresh child process (the library reads its environment
 * once, and the marker destination is global):
 *   markers-live    the background writer drains every 10 ms while the 16
 *                   threads record; lines go to a counting callback. Every
 *                   [STRACE] line is one recorded span, the [STINT] dropped
 *                   lines' counts add up to spans_dropped, and each dropped
 *                   range lies inside the run and has first <= last.
 *   markers-parked  the writer is parked (STINT_FLUSH_MS = 1 h) and thread
 *                   buffers are small (64 KiB), so most spans must be dropped:
 *                   the same checks, and drops are certain here.
 *   ring            a 4096-slot ring under the same 16-thread load: spans
 *                   kept + evicted by the ring + lost in full thread buffers
 *                   == emitted; the capture's Chrome export says how many
 *                   were evicted, and the stats give the lost time range.
 * No assertion depends on timing: the counts must add up whatever the
 * scheduler did.
 */
#include "check.h"
#include "stint/session.h"
#include "stint/stint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

/* TSan runs these 5-15x slower than ASan: a smaller load */
#define LOAD_SANITIZED CHECK_ASAN_OR_TSAN
#define LOAD_TSAN CHECK_TSAN

enum { NTHREADS = 16 };
static long g_per_thread;
static pthread_barrier_t g_start;

static void *worker(void *arg)
{
    (void)arg;
    static const stint_loc loc = {"load.span", NULL, __FILE__, "worker", __LINE__};
    static const stint_loc inner = {"load.inner", "k=v", __FILE__, "worker", __LINE__};
    pthread_barrier_wait(&g_start);
    for (long i = 0; i < g_per_thread; i += 2) {
        stint_span a = stint_span_begin(&loc);
        stint_span b = stint_span_begin(&inner);
        stint_span_end(b);
        stint_span_end(a);
    }
    return NULL;
}

static void run_threads(void)
{
    pthread_t th[NTHREADS];
    REQUIRE(pthread_barrier_init(&g_start, NULL, NTHREADS) == 0);
    for (int i = 0; i < NTHREADS; i++)
        REQUIRE(pthread_create(&th[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_start);
}

/* ---- the marker phases ----------------------------------------------------- */

static atomic_ulong g_lines, g_drop_lines, g_drop_sum, g_bad_ranges, g_other;
static int64_t g_t0, g_t1;

static void on_line(const char *line, size_t len, void *user)
{
    (void)user;
    if (len >= 9 && memcmp(line, "[STRACE] ", 9) == 0) {
        atomic_fetch_add(&g_lines, 1);
        return;
    }
    if (len >= 19 && memcmp(line, "[STINT] v=1 dropped", 19) == 0) {
        char buf[256];
        size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = 0;
        int pid, tid;
        unsigned long long count;
        long long first, last;
        if (sscanf(buf, "[STINT] v=1 dropped pid=%d tid=%d count=%llu first_ts=%lld last_ts=%lld", &pid, &tid, &count,
                   &first, &last) != 5) {
            atomic_fetch_add(&g_bad_ranges, 1);
            return;
        }
        atomic_fetch_add(&g_drop_lines, 1);
        atomic_fetch_add(&g_drop_sum, count);
        if (pid != getpid() || count == 0 || first > last || first < g_t0) {
            if (atomic_fetch_add(&g_bad_ranges, 1) < 3)
                fprintf(stderr, "  bad dropped range (run started at %lld): %s", (long long)g_t0, buf);
        }
        return;
    }
    atomic_fetch_add(&g_other, 1);
}

static void markers_phase(const char *name)
{
    g_t0 = stint_now_ns();
    REQUIRE(stint_markers_to_callback(on_line, NULL, 0) == STINT_OK);
    stint_stats before, after;
    stint_get_stats(&before);
    run_threads();
    CHECK(stint_flush() == STINT_OK);
    g_t1 = stint_now_ns();
    stint_get_stats(&after);
    uint64_t emitted = (uint64_t)NTHREADS * (uint64_t)g_per_thread;
    uint64_t recorded = after.spans_recorded - before.spans_recorded;
    uint64_t dropped = after.spans_dropped - before.spans_dropped;
    fprintf(stderr, "  %s: %llu emitted, %llu recorded, %llu dropped in %lu ranges\n", name,
            (unsigned long long)emitted, (unsigned long long)recorded, (unsigned long long)dropped,
            atomic_load(&g_drop_lines));
    CHECK_EQ_U64(recorded + dropped, emitted);
    CHECK_EQ_U64(atomic_load(&g_lines), recorded);
    CHECK_EQ_U64(after.spans_written - before.spans_written, recorded);
    CHECK_EQ_U64(atomic_load(&g_drop_sum), dropped);
    CHECK_EQ_U64(atomic_load(&g_bad_ranges), 0);
    CHECK_EQ_U64(atomic_load(&g_other), 0);
    CHECK_EQ_U64(after.spans_autoclosed - before.spans_autoclosed, 0);
    if (dropped) {
        CHECK(atomic_load(&g_drop_lines) > 0);
        fprintf(stderr, "  run %lld..%lld, stats range %lld..%lld\n", (long long)g_t0, (long long)g_t1,
                (long long)after.drop_first_ts_ns, (long long)after.drop_last_ts_ns);
        CHECK(after.drop_first_ts_ns >= g_t0 && after.drop_first_ts_ns <= after.drop_last_ts_ns &&
              after.drop_last_ts_ns <= g_t1);
    }
}

/* ---- the ring phase ----------------------------------------------------------- */

static void ring_phase(void)
{
    stint_markers_off();
    enum { SLOTS = 4096 };
    REQUIRE(stint_ring_start(SLOTS) == STINT_OK);
    stint_stats before, after;
    stint_get_stats(&before);
    int64_t t0 = stint_now_ns();
    run_threads();
    stint_ring_capture *c = NULL;
    REQUIRE(stint_ring_finish(&c) == STINT_OK);
    int64_t t1 = stint_now_ns();
    stint_get_stats(&after);
    uint64_t emitted = (uint64_t)NTHREADS * (uint64_t)g_per_thread;
    uint64_t lost = after.spans_dropped - before.spans_dropped;
    uint64_t kept = stint_ring_capture_count(c), evicted = stint_ring_capture_dropped(c);
    fprintf(stderr, "  ring: %llu emitted, %llu kept, %llu evicted by the ring, %llu lost in thread buffers\n",
            (unsigned long long)emitted, (unsigned long long)kept, (unsigned long long)evicted,
            (unsigned long long)lost);
    CHECK(kept <= SLOTS);
    CHECK_EQ_U64(kept + evicted + lost, emitted);
    if (lost)
        CHECK(after.drop_first_ts_ns >= t0 && after.drop_first_ts_ns <= after.drop_last_ts_ns &&
              after.drop_last_ts_ns <= t1);
    /* the export reports the evictions */
    char path[128];
    snprintf(path, sizeof path, "/tmp/stint_load_ring_%d.json", (int)getpid());
    REQUIRE(stint_ring_capture_write_chrome(c, path) == STINT_OK);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    char head[256] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = 0;
    fclose(f);
    unlink(path);
    char want[64];
    snprintf(want, sizeof want, "\"dropped_events\":%llu", (unsigned long long)evicted);
    CHECK(strstr(head, want) != NULL);
    stint_ring_capture_free(c);
}

static int child(const char *phase)
{
    check_count_ = check_failures_ = 0;
    if (!strcmp(phase, "markers-live"))
        markers_phase(phase);
    else if (!strcmp(phase, "markers-parked")) {
        markers_phase(phase);
        stint_stats st;
        stint_get_stats(&st);
        CHECK(st.spans_dropped > 0); /* 16 x N spans cannot fit 16 x 64 KiB with no drain */
    }
    else
        ring_phase();
    return check_failures_ ? 1 : 0;
}

int main(void)
{
    const char *env = getenv("STINT_LOAD_SPANS");
    g_per_thread = env ? atol(env) : (LOAD_TSAN ? 30000 : LOAD_SANITIZED ? 100000 : 1000000);
    g_per_thread += g_per_thread & 1; /* spans come in pairs */
    static const char *const phases[] = {"markers-live", "markers-parked", "ring"};
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            if (!strcmp(phases[i], "markers-parked")) {
                setenv("STINT_FLUSH_MS", "3600000", 1);
                setenv("STINT_BUFFER_KB", "64", 1);
            }
            exit(child(phases[i]));
        }
        int status;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "%s: failed (status 0x%x)\n", phases[i], status);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK_DONE();
}
