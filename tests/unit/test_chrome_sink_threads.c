/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_sink_threads.c - the streaming Chrome/Perfetto JSON writer: a trace of
 * nested spans on three threads with typed and static attributes, device
 * phases and counters must parse, give every X event ts/dur with exactly
 * three decimals, name every track, keep each track strictly nested and
 * carry the clock anchors and dropped counts in its metadata. A write error
 * (/dev/full) is sticky and returned by close.
 *
 * Also a tool for the shell tests:
 *   test_chrome_sink_threads --write PATH   writes the multi-thread trace to PATH
 *   test_chrome_sink_threads --check PATH   checks any Chrome JSON file (parse + nesting)
 */
#include "check.h"
#include "mini_json.h"

#include "stint/session.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct xev {
    long long pid, tid, ts, dur;
} xev;

static int cmp_xev(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->dur > y->dur ? -1 : x->dur < y->dur; /* the enclosing one first */
}

/* Checks one Chrome JSON file; returns the number of problems (printed). */
static int check_chrome(const char *path, int *n_x, int *n_tracks_named)
{
    size_t len = 0;
    char *doc = mj_slurp(path, &len);
    if (!doc) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }
    int bad = 0;
    if (!mj_valid(doc, len)) {
        fprintf(stderr, "%s: not valid JSON\n", path);
        free(doc);
        return 1;
    }
    const char *arr;
    size_t arrn;
    if (!mj_find(doc, len, "traceEvents", &arr, &arrn)) {
        fprintf(stderr, "%s: no traceEvents\n", path);
        free(doc);
        return 1;
    }
    size_t cap = 1024, n = 0;
    xev *xs = malloc(cap * sizeof *xs);
    long long named[4096][2];
    int nnamed = 0;
    const char *it = arr, *el;
    size_t eln;
    while (mj_next(arr, arrn, &it, &el, &eln)) {
        char ph[4] = "", nm[64] = "";
        mj_str(el, eln, "ph", ph, sizeof ph);
        mj_str(el, eln, "name", nm, sizeof nm);
        long long pid = 0, tid = 0;
        mj_i64(el, eln, "pid", &pid);
        mj_i64(el, eln, "tid", &tid);
        if (!strcmp(ph, "M") && !strcmp(nm, "thread_name") && nnamed < 4096) {
            named[nnamed][0] = pid;
            named[nnamed][1] = tid;
            nnamed++;
        }
        if (strcmp(ph, "X") != 0)
            continue;
        const char *v;
        size_t vn;
        /* exactly three decimals, so nanoseconds survive */
        for (int k = 0; k < 2; k++) {
            if (!mj_find(el, eln, k ? "dur" : "ts", &v, &vn)) {
                bad++;
                continue;
            }
            const char *dot = memchr(v, '.', vn);
            if (!dot || (size_t)(v + vn - dot) != 4) {
                fprintf(stderr, "%s: %s without exactly three decimals: %.*s\n", path, k ? "dur" : "ts", (int)vn, v);
                bad++;
            }
        }
        if (n == cap) {
            cap *= 2;
            xs = realloc(xs, cap * sizeof *xs);
        }
        xs[n].pid = pid;
        xs[n].tid = tid;
        mj_us_ns(el, eln, "ts", &xs[n].ts);
        mj_us_ns(el, eln, "dur", &xs[n].dur);
        if (xs[n].ts < 0 || xs[n].dur < 0) {
            fprintf(stderr, "%s: negative ts or dur\n", path);
            bad++;
        }
        n++;
    }
    qsort(xs, n, sizeof *xs, cmp_xev);
    /* strictly nested per track: each event lies inside the enclosing open
     * one or after it ends */
    long long stack_end[512];
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || xs[i].pid != xs[i - 1].pid || xs[i].tid != xs[i - 1].tid) {
            depth = 0;
            int found = 0;
            for (int k = 0; k < nnamed; k++)
                found |= named[k][0] == xs[i].pid && named[k][1] == xs[i].tid;
            if (!found) {
                fprintf(stderr, "%s: track %lld/%lld has no thread_name\n", path, xs[i].pid, xs[i].tid);
                bad++;
            }
        }
        long long end = xs[i].ts + xs[i].dur;
        while (depth && stack_end[depth - 1] <= xs[i].ts)
            depth--;
        if (depth && end > stack_end[depth - 1]) {
            fprintf(stderr, "%s: overlap on track %lld/%lld at ts %lld ns\n", path, xs[i].pid, xs[i].tid, xs[i].ts);
            bad++;
        }
        if (depth < 512)
            stack_end[depth++] = end;
    }
    if (n_x)
        *n_x = (int)n;
    if (n_tracks_named)
        *n_tracks_named = nnamed;
    free(xs);
    free(doc);
    return bad;
}

static void nest(int levels, int i)
{
    STINT_SCOPE_A("nest.level", "kind=demo n=42");
    stint_attr_i64("i", i);
    stint_attr_u64("u", (uint64_t)levels);
    stint_attr_f64("f", 0.5);
    stint_attr_bool("b", levels % 2);
    stint_attr_str("s", "x\"y");
    if (levels > 1)
        nest(levels - 1, i);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", id);
    pthread_setname_np(pthread_self(), name);
    for (int i = 0; i < 200; i++)
        nest(1 + i % 4, i);
    return NULL;
}

static stint_status write_trace(const char *path, stint_chrome_writer **wout)
{
    stint_chrome_writer *w = NULL;
    char err[256];
    stint_status st = stint_chrome_open(path, &w, err, sizeof err);
    if (st) {
        fprintf(stderr, "open: %s\n", err);
        return st;
    }
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 50; i++) {
        nest(3, i);
        if (i % 10 == 0 && stint_chrome_counter(w, "queue_depth", (double)i) != STINT_OK)
            fprintf(stderr, "counter failed\n");
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    /* device phases at 50 MHz: two lanes */
    stint_cycle_rec recs[2][2] = {{{100, 200}, {150, 400}}, {{110, 190}, {160, 420}}};
    const char *names[] = {"dev.phase_a", "dev.phase_b"};
    size_t emitted = 0;
    if (stint_device_phases(&recs[0][0], 2, 2, 50000000ULL, names, 1, &emitted) != STINT_OK)
        fprintf(stderr, "device phases failed\n");
    if (wout) {
        *wout = w;
        return STINT_OK;
    }
    return stint_chrome_close(w);
}

static char g_dir[256];

static void test_trace(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/trace.json", g_dir);
    stint_chrome_writer *w = NULL;
    REQUIRE(write_trace(path, &w) == STINT_OK);
    CHECK(stint_chrome_counter(w, "bad", 1.0 / 0.0) == STINT_E_INVAL);
    CHECK(stint_chrome_close(w) == STINT_OK);
    int nx = 0, nnamed = 0;
    CHECK_EQ_I64(check_chrome(path, &nx, &nnamed), 0);
    /* 50 x 3 + 2 threads x 200 x avg 2.5 levels + 2 device phases */
    CHECK_EQ_I64(nx, 50 * 3 + 2 * 50 * (1 + 2 + 3 + 4) + 2);
    CHECK(nnamed >= 5); /* main, two workers, two device lanes */
    size_t len;
    char *doc = mj_slurp(path, &len);
    REQUIRE(doc);
    const char *md;
    size_t mdn;
    long long x;
    REQUIRE(mj_find(doc, len, "metadata", &md, &mdn));
    CHECK(mj_i64(md, mdn, "origin_monotonic_ns", &x) && x > 0);
    CHECK(mj_i64(md, mdn, "anchor_realtime_ns", &x) && x > 0);
    CHECK(mj_i64(md, mdn, "dropped_events", &x) && x == 0);
    CHECK(mj_i64(doc, len, "dropped_events", &x) && x == 0);
    char unit[8];
    CHECK(mj_str(doc, len, "displayTimeUnit", unit, sizeof unit) && !strcmp(unit, "ns"));
    CHECK(strstr(doc, "\"ph\":\"C\",\"name\":\"queue_depth\"") != NULL);
    CHECK(strstr(doc, "\"name\":\"process_name\"") != NULL);
    CHECK(strstr(doc, "\"name\":\"thread_sort_index\"") != NULL);
    CHECK(strstr(doc, "\"args\":{\"name\":\"worker-1\"}") != NULL);
    CHECK(strstr(doc, "device clock: dev.phase_a (not host-aligned)") != NULL);
    /* device lanes take tids above any Linux thread id (2^30 + k): none is a host thread's */
    CHECK(strstr(doc, "\"tid\":1073741824,") != NULL);
    CHECK(strstr(doc, "\"tid\":1000000,") == NULL);
    CHECK(strstr(doc, "\"kind\":\"demo\",\"n\":42") != NULL);        /* static attrs */
    CHECK(strstr(doc, "\"f\":0.5,\"b\":") != NULL);                  /* typed attrs */
    CHECK(strstr(doc, "\"s\":\"x\\\"y\"") != NULL);
    CHECK(strstr(doc, "\"clk\":\"dev\"") != NULL);
    free(doc);
}

static void test_dev_full(void)
{
    stint_chrome_writer *w = NULL;
    REQUIRE(stint_chrome_open("/dev/full", &w, NULL, 0) == STINT_OK);
    nest(2, 0);
    CHECK(stint_flush() == STINT_E_IO); /* the sink's sticky error surfaces */
    nest(2, 1);
    CHECK(stint_chrome_close(w) == STINT_E_IO);
    CHECK(stint_flush() == STINT_OK); /* gone with its writer */
    CHECK(stint_chrome_open("/nonexistent-dir/t.json", &w, NULL, 0) == STINT_E_IO);
}

int main(int argc, char **argv)
{
    stint_markers_off();
    if (argc == 3 && !strcmp(argv[1], "--write"))
        return write_trace(argv[2], NULL) == STINT_OK ? 0 : 1;
    if (argc == 3 && !strcmp(argv[1], "--check")) {
        int nx = 0;
        int bad = check_chrome(argv[2], &nx, NULL);
        printf("%s: %d X events, %d problems\n", argv[2], nx, bad);
        return bad ? 1 : 0;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/stint_test_chrome_%d", (int)getpid());
    REQUIRE(mkdir(g_dir, 0755) == 0);
    test_trace();
    test_dev_full();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", g_dir);
    CHECK_DONE();
}
