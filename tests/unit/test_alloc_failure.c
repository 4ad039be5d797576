/* SPDX-License-Identifier: MIT */
/*
 * test_alloc_failure.c - allocation-failure injection through
 * stint_set_allocator().
 *
 * A counting allocator fails exactly the Nth allocation; each scenario is run
 * for N = 1, 2, ... until a run sees no failure (N beyond its last
 * allocation). Every run checks:
 *   - no crash (the test would die) and every fallible call returns either
 *     STINT_OK or STINT_E_NOMEM (never another error, never a silent success
 *     that lost data without a count);
 *   - spans that could not be recorded are counted: the stats' recorded +
 *     dropped grow by exactly the spans emitted;
 *   - nothing leaked: once the scenario's objects are freed, the allocator's
 *     live count and live bytes are back where they were (frees are checked
 *     against the size given at allocation, through a header);
 *   - what reached the file is whole JSON lines.
 * The background writer is parked (STINT_FLUSH_MS=1 h) so drains run on the
 * test thread through stint_flush() and the Nth allocation is the same one
 * from run to run.
 */
#include "check.h"
#include "read/json.h"
#include "stint/session.h"
#include "stint/stint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the counting allocator ------------------------------------------------ */

static atomic_long g_allocs, g_frees, g_live, g_live_bytes, g_fail_at, g_failed, g_bad_free;

struct hdr {
    size_t size;
    size_t magic;
};
#define HDR_MAGIC ((size_t)0x5717A110C)

static void *count_alloc(size_t size, void *user)
{
    (void)user;
    long n = atomic_fetch_add(&g_allocs, 1) + 1;
    if (n == atomic_load(&g_fail_at)) {
        atomic_fetch_add(&g_failed, 1);
        return NULL;
    }
    struct hdr *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    h->magic = HDR_MAGIC;
    atomic_fetch_add(&g_live, 1);
    atomic_fetch_add(&g_live_bytes, (long)size);
    return h + 1;
}

static void count_free(void *ptr, size_t size, void *user)
{
    (void)user;
    struct hdr *h = (struct hdr *)ptr - 1;
    if (h->magic != HDR_MAGIC || h->size != size)
        atomic_fetch_add(&g_bad_free, 1);
    h->magic = 0;
    atomic_fetch_add(&g_frees, 1);
    atomic_fetch_sub(&g_live, 1);
    atomic_fetch_sub(&g_live_bytes, (long)h->size);
    free(h);
}

static void arm(long n)
{
    atomic_store(&g_allocs, 0);
    atomic_store(&g_failed, 0);
    atomic_store(&g_fail_at, n);
}

static int ok_or_nomem(stint_status s) { return s == STINT_OK || s == STINT_E_NOMEM; }

static char dir[256];

/* Every line of path is complete and valid JSON; returns the line count or -1. */
static long check_jsonl(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char line[1 << 16];
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            fclose(f);
            return -1;
        }
        size_t off;
        const char *msg;
        if (stint_json_validate(line, len - 1, 0, &off, &msg) != 0) {
            fprintf(stderr, "%s line %ld: %s at %zu\n", path, n + 1, msg, off);
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

/* ---- scenario 1: the JSONL session ------------------------------------------ */

/* Returns 1 when the whole run saw no failure and succeeded. */
static int session_run(long fail_at)
{
    char path[300];
    snprintf(path, sizeof path, "%s/session.jsonl", dir);
    long live0 = atomic_load(&g_live), bytes0 = atomic_load(&g_live_bytes);
    arm(fail_at);
    stint_session_options opt = STINT_SESSION_OPTIONS_INIT;
    opt.entrypoint = "alloc::test";
    stint_tag tags[2] = {{"b", "2"}, {"a", "1"}};
    opt.tags = tags;
    opt.ntags = 2;
    stint_session *s = NULL;
    char err[256];
    stint_status st = stint_session_open(path, &opt, &s, err, sizeof err);
    CHECK(ok_or_nomem(st));
    int all_ok = st == STINT_OK;
    if (st == STINT_OK) {
        uint64_t ids[40];
        int open = 0;
        for (int i = 0; i < 40; i++) { /* deep enough to grow the span stack */
            st = stint_session_span_begin(s, "layer", STINT_SPAN_MODULE, STINT_STEP_FORWARD, &ids[open]);
            CHECK(ok_or_nomem(st));
            all_ok &= st == STINT_OK;
            if (st == STINT_OK)
                open++;
        }
        static const char *const inputs[] = {"x", "w"};
        static const uint64_t shape[] = {4, 1024, 1024};
        stint_op_record op = STINT_OP_RECORD_INIT;
        op.span_id = open ? ids[open - 1] : 1;
        op.op_name = "matmul";
        op.inputs = inputs;
        op.ninputs = 2;
        op.output = "y";
        op.shape = shape;
        op.ndim = 3;
        op.dtype = "bf16";
        op.duration_ns = 10;
        st = stint_session_op(s, &op);
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        stint_memory_record mr = STINT_MEMORY_RECORD_INIT;
        mr.span_id = op.span_id;
        mr.tensor_id = "y";
        mr.bytes = 1 << 20;
        mr.dtype = "bf16";
        st = stint_session_memory(s, &mr);
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        double norm = 1.5;
        st = stint_session_gradient(s, "model", "w", STINT_GRAD_PRESENT, &norm);
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        st = stint_session_counter(s, "loss", 0.25, "nats");
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        while (open > 0) {
            st = stint_session_span_end(s, ids[open - 1]);
            CHECK(ok_or_nomem(st));
            all_ok &= st == STINT_OK;
            if (st != STINT_OK)
                break; /* the stack stays as it is: finish must then report the open spans */
            open--;
        }
        st = stint_session_finish(s);
        if (open == 0) {
            CHECK(ok_or_nomem(st));
            all_ok &= st == STINT_OK;
        } else {
            CHECK(st == STINT_E_SPANS_OPEN);
        }
        stint_session_free(s);
        CHECK(check_jsonl(path) >= 2); /* meta + root at least, all whole lines */
    } else {
        CHECK(s == NULL);
    }
    long leaked = atomic_load(&g_live) - live0, leaked_bytes = atomic_load(&g_live_bytes) - bytes0;
    if (leaked || leaked_bytes)
        fprintf(stderr, "session, failing allocation %ld: %ld blocks / %ld bytes leaked\n", fail_at, leaked,
                leaked_bytes);
    CHECK(leaked == 0 && leaked_bytes == 0);
    return all_ok && atomic_load(&g_failed) == 0;
}

/* ---- scenario 2: spans, the ring and its capture ------------------------------ */

enum { SPANS_PER_RUN = 50 };

static void *span_thread(void *arg)
{
    (void)arg;
    static const stint_loc loc = {"alloc.span", NULL, __FILE__, "span_thread", __LINE__};
    for (int i = 0; i < SPANS_PER_RUN; i++) {
        stint_span sp = stint_span_begin(&loc);
        stint_attr_i64("i", i);
        stint_span_end(sp);
    }
    return NULL;
}

static void run_span_thread(void)
{
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, span_thread, NULL) == 0);
    pthread_join(th, NULL);
}

static int ring_run(long fail_at)
{
    char path[300];
    snprintf(path, sizeof path, "%s/ring.json", dir);
    stint_stats before, after;
    stint_get_stats(&before);
    long live0 = atomic_load(&g_live), bytes0 = atomic_load(&g_live_bytes);
    arm(fail_at);
    stint_status st = stint_ring_start(16);
    CHECK(ok_or_nomem(st));
    int all_ok = st == STINT_OK;
    run_span_thread();
    CHECK(ok_or_nomem(stint_flush()));
    stint_ring_capture *cap = NULL;
    st = stint_ring_finish(&cap);
    if (all_ok) {
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        if (st == STINT_OK) {
            CHECK(cap != NULL);
            CHECK(stint_ring_capture_count(cap) <= 16);
            st = stint_ring_capture_write_chrome(cap, path);
            CHECK(ok_or_nomem(st));
            all_ok &= st == STINT_OK;
        }
    } else {
        CHECK(st == STINT_E_STATE && cap == NULL); /* no ring ran */
    }
    stint_ring_capture_free(cap);
    stint_get_stats(&after);
    uint64_t accounted = (after.spans_recorded - before.spans_recorded) + (after.spans_dropped - before.spans_dropped);
    if (accounted != SPANS_PER_RUN)
        fprintf(stderr, "ring, failing allocation %ld: %llu spans accounted, %d emitted\n", fail_at,
                (unsigned long long)accounted, SPANS_PER_RUN);
    CHECK_EQ_U64(accounted, SPANS_PER_RUN);
    long leaked = atomic_load(&g_live) - live0, leaked_bytes = atomic_load(&g_live_bytes) - bytes0;
    if (leaked || leaked_bytes)
        fprintf(stderr, "ring, failing allocation %ld: %ld blocks / %ld bytes leaked\n", fail_at, leaked,
                leaked_bytes);
    CHECK(leaked == 0 && leaked_bytes == 0);
    return all_ok && atomic_load(&g_failed) == 0;
}

/* ---- scenario 3: the streaming Chrome writer ------------------------------------ */

static int chrome_run(long fail_at)
{
    char path[300];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    long live0 = atomic_load(&g_live), bytes0 = atomic_load(&g_live_bytes);
    arm(fail_at);
    stint_chrome_writer *w = NULL;
    char err[256];
    stint_status st = stint_chrome_open(path, &w, err, sizeof err);
    CHECK(ok_or_nomem(st));
    int all_ok = st == STINT_OK;
    run_span_thread();
    CHECK(ok_or_nomem(stint_flush()));
    if (w) {
        st = stint_chrome_counter(w, "c", 1.0);
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        st = stint_chrome_close(w);
        CHECK(ok_or_nomem(st));
        all_ok &= st == STINT_OK;
        /* whatever was written, the file is a complete JSON document */
        FILE *f = fopen(path, "rb");
        REQUIRE(f != NULL);
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t off;
        const char *msg;
        int valid = stint_json_validate(buf, n, 0, &off, &msg) == 0;
        if (!valid)
            fprintf(stderr, "chrome, failing allocation %ld: invalid JSON at %zu: %s\n", fail_at, off, msg);
        CHECK(valid);
    }
    long leaked = atomic_load(&g_live) - live0, leaked_bytes = atomic_load(&g_live_bytes) - bytes0;
    if (leaked || leaked_bytes)
        fprintf(stderr, "chrome, failing allocation %ld: %ld blocks / %ld bytes leaked\n", fail_at, leaked,
                leaked_bytes);
    CHECK(leaked == 0 && leaked_bytes == 0);
    return all_ok && atomic_load(&g_failed) == 0;
}

/* ---- scenario 4: a thread's first span cannot get its buffer -------------------- */

static void first_span_fails(void)
{
    /* Eight threads at once: at most the buffers recycled so far are reused,
     * the rest are allocated, and the first of those allocations fails. */
    enum { N = 8 };
    stint_stats before, after;
    stint_get_stats(&before);
    arm(1);
    pthread_t th[N];
    for (int i = 0; i < N; i++)
        REQUIRE(pthread_create(&th[i], NULL, span_thread, NULL) == 0);
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&after);
    uint64_t accounted = (after.spans_recorded - before.spans_recorded) + (after.spans_dropped - before.spans_dropped);
    CHECK_EQ_U64(accounted, (uint64_t)N * SPANS_PER_RUN);
    /* the span that found no buffer is counted as dropped (the thread's next
     * span tries again and gets one) */
    CHECK_EQ_I64(atomic_load(&g_failed), 1);
    CHECK(after.spans_dropped - before.spans_dropped >= 1);
    arm(0);
}

static void run_scenario(const char *name, int (*fn)(long), long max)
{
    long n = 1;
    for (; n <= max; n++)
        if (fn(n))
            break;
    fprintf(stderr, "%s: failed allocation 1..%ld in turn, then a clean run\n", name, n - 1);
    CHECK(n <= max);
    CHECK(n > 1); /* the scenario allocates at all: the hook is really used */
}

int main(void)
{
    setenv("STINT_FLUSH_MS", "3600000", 1);
    setenv("STINT_MARKERS", "off", 1);
    snprintf(dir, sizeof dir, "/tmp/stint_allocfail_%d", (int)getpid());
    REQUIRE(mkdir(dir, 0700) == 0);
    stint_allocator a = {count_alloc, count_free, NULL};
    stint_set_allocator(&a);
    /* warm up: the library's one-time state and one thread buffer */
    arm(0);
    run_span_thread();
    CHECK(stint_flush() == STINT_OK);

    run_scenario("session", session_run, 2000);
    run_scenario("ring", ring_run, 2000);
    run_scenario("chrome", chrome_run, 2000);
    first_span_fails();
    CHECK_EQ_I64(atomic_load(&g_bad_free), 0);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
