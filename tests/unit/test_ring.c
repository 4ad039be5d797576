/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - the flight-recorder ring: capacity 0 and busy errors,
 * finish/second finish, completion order, exact drop-oldest counts (one
 * thread and several), the Chrome export, the crash dump written by a
 * child that really segfaults, and spans lost in full thread buffers said in
 * the document (metadata.lost_in_thread_buffers, exact: the window had holes
 * nothing mentioned), in a fresh process with 16 KiB buffers.
 */
#include "check.h"
#include "mini_json.h"

#include "stint/session.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[256];

static const char *tmp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

static void named_span(const char *name)
{
    stint_span s = stint_span_begin_copy(name, strlen(name));
    stint_span_end(s);
}

static void test_errors(void)
{
    stint_ring_capture *c = (stint_ring_capture *)1;
    CHECK(stint_ring_finish(&c) == STINT_E_STATE); /* nothing running */
    CHECK(c == NULL);
    CHECK(stint_ring_start(0) == STINT_E_INVAL);
    CHECK(stint_ring_start(4) == STINT_OK);
    CHECK(stint_ring_start(4) == STINT_E_BUSY);
    CHECK(stint_ring_start(0) == STINT_E_INVAL);
    CHECK(stint_ring_finish(&c) == STINT_OK);
    CHECK(c != NULL);
    CHECK_EQ_U64(stint_ring_capture_count(c), 0);
    stint_ring_capture_free(c);
    stint_ring_capture *again = (stint_ring_capture *)1;
    CHECK(stint_ring_finish(&again) == STINT_E_STATE); /* a second finish returns nothing */
    CHECK(again == NULL);
    stint_ring_event ev;
    CHECK(stint_ring_capture_event(NULL, 0, &ev) == STINT_E_INVAL);
}

static void test_drop_oldest_one_thread(void)
{
    named_span("before-start"); /* recorded before the ring: never in it */
    REQUIRE(stint_ring_start(5) == STINT_OK);
    char name[16];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "s%d", i);
        named_span(name);
    }
    stint_ring_capture *c = NULL;
    REQUIRE(stint_ring_finish(&c) == STINT_OK && c);
    named_span("after-finish"); /* recording stopped */
    CHECK(stint_flush() == STINT_OK);
    CHECK_EQ_U64(stint_ring_capture_count(c), 5);
    CHECK_EQ_U64(stint_ring_capture_dropped(c), 7);
    int64_t prev_ts = -1;
    for (size_t i = 0; i < stint_ring_capture_count(c); i++) {
        stint_ring_event ev;
        REQUIRE(stint_ring_capture_event(c, i, &ev) == STINT_OK);
        snprintf(name, sizeof name, "s%d", (int)i + 7);
        CHECK_STR(ev.name, name);
        CHECK(ev.ts_ns >= prev_ts && ev.ts_ns >= 0 && ev.dur_ns >= 0);
        prev_ts = ev.ts_ns;
    }
    stint_ring_event ev;
    CHECK(stint_ring_capture_event(c, 5, &ev) == STINT_E_INVAL);

    /* export: parses, with the fields the reference's export has */
    REQUIRE(stint_ring_capture_write_chrome(c, tmp_path("ring.json")) == STINT_OK);
    stint_ring_capture_free(c);
    size_t len;
    char *doc = mj_slurp(tmp_path("ring.json"), &len);
    REQUIRE(doc);
    CHECK(mj_valid(doc, len));
    long long x;
    CHECK(mj_i64(doc, len, "dropped_events", &x) && x == 7);
    char unit[8], meas[256];
    CHECK(mj_str(doc, len, "displayTimeUnit", unit, sizeof unit) && strcmp(unit, "ns") == 0);
    CHECK(mj_str(doc, len, "measurement", meas, sizeof meas) && strstr(meas, "not device timestamps"));
    const char *arr;
    size_t arrn;
    REQUIRE(mj_find(doc, len, "traceEvents", &arr, &arrn));
    const char *it = arr, *el;
    size_t eln;
    int x_events = 0, names = 0;
    while (mj_next(arr, arrn, &it, &el, &eln)) {
        char ph[4], nm[32];
        REQUIRE(mj_str(el, eln, "ph", ph, sizeof ph));
        if (!strcmp(ph, "X")) {
            snprintf(name, sizeof name, "s%d", x_events + 7);
            CHECK(mj_str(el, eln, "name", nm, sizeof nm) && strcmp(nm, name) == 0);
            x_events++;
        } else if (!strcmp(ph, "M")) {
            CHECK(mj_str(el, eln, "name", nm, sizeof nm) && strcmp(nm, "thread_name") == 0);
            names++;
        }
    }
    CHECK_EQ_I64(x_events, 5);
    CHECK_EQ_I64(names, 1);
    const char *md;
    size_t mdn;
    REQUIRE(mj_find(doc, len, "metadata", &md, &mdn));
    CHECK(mj_i64(md, mdn, "capacity", &x) && x == 5);
    CHECK(mj_i64(md, mdn, "torn_slots", &x) && x == 0);
    free(doc);
}

static void test_completion_order(void)
{
    REQUIRE(stint_ring_start(8) == STINT_OK);
    stint_span outer = stint_span_begin_copy("outer", 5);
    stint_span inner = stint_span_begin_copy("inner", 5);
    stint_span_end(inner);
    stint_span_end(outer);
    stint_ring_capture *c = NULL;
    REQUIRE(stint_ring_finish(&c) == STINT_OK);
    REQUIRE(stint_ring_capture_count(c) == 2);
    stint_ring_event a, b;
    CHECK(stint_ring_capture_event(c, 0, &a) == STINT_OK);
    CHECK(stint_ring_capture_event(c, 1, &b) == STINT_OK);
    CHECK_STR(a.name, "inner"); /* completion order */
    CHECK_STR(b.name, "outer");
    CHECK(b.ts_ns <= a.ts_ns);  /* timestamps keep start order */
    CHECK(b.ts_ns + b.dur_ns >= a.ts_ns + a.dur_ns);
    CHECK_EQ_I64(a.depth, b.depth + 1);
    CHECK_EQ_U64(stint_ring_capture_dropped(c), 0);
    stint_ring_capture_free(c);
}

#define NTHREADS 4
#define PER_THREAD 3000
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++)
        named_span("w");
    return NULL;
}

static void test_drop_oldest_threads(void)
{
    stint_stats before, after;
    stint_get_stats(&before);
    REQUIRE(stint_ring_start(100) == STINT_OK);
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        REQUIRE(pthread_create(&th[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    stint_ring_capture *c = NULL;
    REQUIRE(stint_ring_finish(&c) == STINT_OK);
    stint_get_stats(&after);
    uint64_t lost = after.spans_dropped - before.spans_dropped; /* thread buffers full: not offered */
    CHECK_EQ_U64(stint_ring_capture_count(c), 100);
    CHECK_EQ_U64(stint_ring_capture_dropped(c) + 100 + lost, (uint64_t)NTHREADS * PER_THREAD);
    stint_ring_capture_free(c);
}

/* A child records spans into a ring with the crash dump on, then writes to
 * a PROT_NONE page (a real SIGSEGV). */
__attribute__((unused)) static void test_crash_dump(void)
{
    const char *path = tmp_path("crash.json");
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (stint_ring_start(8) != STINT_OK || stint_ring_crash_dump_enable(path) != STINT_OK)
            _exit(3);
        for (int i = 0; i < 20; i++) {
            stint_span o = stint_span_begin_copy("crash.outer", 11);
            stint_attr_i64("i", i);
            stint_attr_str("note", "quote\"d");
            named_span("crash.inner");
            stint_span_end(o);
        }
        if (stint_flush() != STINT_OK)
            _exit(4);
        volatile char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED)
            _exit(5);
        page[0] = 1; /* SIGSEGV */
        _exit(6);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    /* plain builds die by SIGSEGV; under ASan its handler (chained) exits 1
     * or, with abort_on_error, aborts */
    CHECK((WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGABRT)) ||
          (WIFEXITED(status) && WEXITSTATUS(status) == 1));
    size_t len = 0;
    char *doc = mj_slurp(path, &len);
    REQUIRE(doc);
    CHECK(mj_valid(doc, len));
    long long x;
    CHECK(mj_i64(doc, len, "dropped_events", &x) && x == 32);
    const char *md;
    size_t mdn;
    REQUIRE(mj_find(doc, len, "metadata", &md, &mdn));
    CHECK(mj_i64(md, mdn, "crash_signal", &x) && x == SIGSEGV);
    const char *arr;
    size_t arrn;
    REQUIRE(mj_find(doc, len, "traceEvents", &arr, &arrn));
    const char *it = arr, *el;
    size_t eln;
    int xs = 0;
    while (mj_next(arr, arrn, &it, &el, &eln)) {
        char ph[4];
        if (mj_str(el, eln, "ph", ph, sizeof ph) && !strcmp(ph, "X")) {
            xs++;
            const char *args;
            size_t an;
            CHECK(mj_find(el, eln, "args", &args, &an));
        }
    }
    CHECK_EQ_I64(xs, 8);
    CHECK(strstr(doc, "\"note\":\"quote\\\"d\"") != NULL);
    free(doc);
}

/* In the re-executed process (STINT_BUFFER_KB=16): one thread records far
 * more than its buffer holds before the writer drains it. */
static int lost_in_buffers(void)
{
    check_count_ = check_failures_ = 0;
    stint_markers_off();
    REQUIRE(stint_ring_start(64) == STINT_OK);
    for (int i = 0; i < 200000; i++)
        named_span("burst");
    REQUIRE(stint_flush() == STINT_OK);
    stint_stats st;
    stint_get_stats(&st);
    CHECK(st.spans_dropped > 0);
    stint_ring_capture *cap = NULL;
    REQUIRE(stint_ring_finish(&cap) == STINT_OK);
    const char *path = tmp_path("lost.json");
    REQUIRE(stint_ring_capture_write_chrome(cap, path) == STINT_OK);
    stint_ring_capture_free(cap);
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    char want[80];
    snprintf(want, sizeof want, "\"lost_in_thread_buffers\":%llu,", (unsigned long long)st.spans_dropped);
    CHECK(strstr(doc, want) != NULL);
    CHECK(strstr(doc, "\"lost_first_ts_ns\":") != NULL);
    return check_failures_ ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--lost")) {
        snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
        return lost_in_buffers();
    }
    stint_markers_off();
    snprintf(g_dir, sizeof g_dir, "/tmp/stint_test_ring_%d", (int)getpid());
    REQUIRE(mkdir(g_dir, 0755) == 0);
#if CHECK_TSAN
    /* ThreadSanitizer cannot follow a child that uses the library after a
     * fork; the plain and ASan runs cover the crash dump. */
    printf("note: crash dump test not run under ThreadSanitizer\n");
#else
    test_crash_dump();
#endif
    test_errors();
    test_drop_oldest_one_thread();
    test_completion_order();
    test_drop_oldest_threads();
    { /* lost in thread buffers: a fresh process, so that its buffers are small from the start */
        fflush(NULL);
        pid_t c = fork();
        REQUIRE(c >= 0);
        if (c == 0) {
            setenv("STINT_BUFFER_KB", "16", 1);
            execl("/proc/self/exe", argv[0], "--lost", g_dir, (char *)NULL);
            _exit(127);
        }
        int ws;
        REQUIRE(waitpid(c, &ws, 0) == c);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", g_dir);
    CHECK_DONE();
}
