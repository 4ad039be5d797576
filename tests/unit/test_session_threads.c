/* SPDX-License-Identifier: MIT */
/*
 * test_session_threads.c - one JSONL session used by several threads at
 * once: each thread's spans nest on its own stack (a thread's first span has
 * the root s1 as parent), ids are unique, every line parses, and a span
 * ended on another thread than the one that began it is a LIFO mismatch;
 * finish ends the spans a thread left open when it exited (autoclosed: no
 * thread could end them, and finish failed for good), never a live thread's.
 */
#include "check.h"
#include "mini_json.h"

#include "stint/session.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 4
#define ROUNDS 200

static stint_session *g_s;
static int g_errors;

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t a, b;
        if (stint_session_span_begin(g_s, "outer", STINT_SPAN_MODULE, STINT_STEP_FORWARD, &a) ||
            stint_session_span_begin(g_s, "inner", STINT_SPAN_OP, STINT_STEP_FORWARD, &b) ||
            stint_session_counter(g_s, "r", r, "") || stint_session_span_end(g_s, b) ||
            stint_session_span_end(g_s, a))
            __atomic_add_fetch(&g_errors, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static uint64_t g_mine;
static stint_status g_cross;

static void *end_foreign(void *arg)
{
    (void)arg;
    g_cross = stint_session_span_end(g_s, g_mine);
    return NULL;
}

typedef struct span_info {
    long long tid;
    long long parent;
    int ended;
} span_info;

static pthread_barrier_t g_bar;
static void *leaves_open(void *arg)
{
    uint64_t id;
    if (stint_session_span_begin(g_s, "left.open", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &id) != STINT_OK)
        g_errors++;
    if (arg) { /* stay alive with the span open until main has tried to finish, then end it */
        pthread_barrier_wait(&g_bar);
        pthread_barrier_wait(&g_bar);
        if (stint_session_span_end(g_s, id) != STINT_OK)
            g_errors++;
    }
    return NULL;
}

static void exited_thread_spans(void)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/stint_test_session_exited_%d.jsonl", (int)getpid());
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "exited";
    REQUIRE(stint_session_open(path, &o, &g_s, NULL, 0) == STINT_OK);
    REQUIRE(pthread_barrier_init(&g_bar, NULL, 2) == 0);
    pthread_t dead, live;
    REQUIRE(pthread_create(&dead, NULL, leaves_open, NULL) == 0);
    pthread_join(dead, NULL); /* gone, its span open */
    REQUIRE(pthread_create(&live, NULL, leaves_open, &g_bar) == 0);
    pthread_barrier_wait(&g_bar);
    CHECK(stint_session_finish(g_s) == STINT_E_SPANS_OPEN); /* the live thread's span */
    pthread_barrier_wait(&g_bar);
    pthread_join(live, NULL);
    CHECK(stint_session_finish(g_s) == STINT_OK);
    stint_session_free(g_s);
    pthread_barrier_destroy(&g_bar);
    size_t len;
    char *buf = mj_slurp(path, &len);
    REQUIRE(buf);
    int autoclosed = 0;
    for (const char *p = buf; (p = strstr(p, "\"autoclosed\":true")) != NULL; p++)
        autoclosed++;
    CHECK_EQ_I64(autoclosed, 1);
    CHECK_EQ_I64(g_errors, 0);
    CHECK(strstr(buf, "{\"kind\":\"span_end\",\"id\":\"s2\",") != NULL);
    free(buf);
    unlink(path);
}

int main(void)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/stint_test_session_threads_%d.jsonl", (int)getpid());
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "threads";
    REQUIRE(stint_session_open(path, &o, &g_s, NULL, 0) == STINT_OK);

    /* a span begun here cannot be ended by another thread */
    uint64_t mine;
    REQUIRE(stint_session_span_begin(g_s, "main-span", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &mine) == STINT_OK);
    g_mine = mine;
    pthread_t other;
    REQUIRE(pthread_create(&other, NULL, end_foreign, NULL) == 0);
    pthread_join(other, NULL);
    CHECK(g_cross == STINT_E_SPAN_MISMATCH);
    CHECK(strstr(stint_session_message(g_s), "no open span") != NULL);

    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        REQUIRE(pthread_create(&th[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_I64(g_errors, 0);
    CHECK(stint_session_span_end(g_s, mine) == STINT_OK);
    CHECK(stint_session_finish(g_s) == STINT_OK);
    stint_session_free(g_s);

    size_t len;
    char *buf = mj_slurp(path, &len);
    REQUIRE(buf);
    size_t nspans = 2 + (size_t)NTHREADS * ROUNDS * 2;
    span_info *info = calloc(nspans + 1, sizeof *info);
    REQUIRE(info);
    int bad = 0, starts = 0, ends = 0, counters = 0;
    for (char *p = buf; p < buf + len;) {
        char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        REQUIRE(nl);
        size_t n = (size_t)(nl - p);
        if (!mj_valid(p, n)) {
            bad++;
        } else {
            char kind[32] = "", id[32] = "", parent[32] = "";
            mj_str(p, n, "kind", kind, sizeof kind);
            if (!strcmp(kind, "span_start")) {
                long long tid = 0;
                mj_str(p, n, "id", id, sizeof id);
                long long k = atoll(id + 1);
                REQUIRE(k >= 1 && (size_t)k <= nspans && info[k].tid == 0);
                mj_i64(p, n, "tid", &tid);
                info[k].tid = tid;
                info[k].parent = mj_str(p, n, "parent_id", parent, sizeof parent) ? atoll(parent + 1) : 0;
                starts++;
            } else if (!strcmp(kind, "span_end")) {
                mj_str(p, n, "id", id, sizeof id);
                long long k = atoll(id + 1);
                REQUIRE(k >= 1 && (size_t)k <= nspans && info[k].tid != 0 && !info[k].ended);
                info[k].ended = 1;
                ends++;
            } else if (!strcmp(kind, "counter")) {
                counters++;
            }
        }
        p = nl + 1;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(starts, (long long)nspans);
    CHECK_EQ_I64(ends, (long long)nspans);
    CHECK_EQ_I64(counters, NTHREADS * ROUNDS);
    /* parents: the root for a thread's outermost span, else a span of the same thread */
    int wrong = 0;
    for (size_t k = 2; k <= nspans; k++) {
        long long par = info[k].parent;
        if (par == 1)
            continue;
        if (par < 2 || info[par].tid != info[k].tid)
            wrong++;
    }
    CHECK_EQ_I64(wrong, 0);
    free(info);
    free(buf);
    unlink(path);
    exited_thread_spans();
    CHECK_DONE();
}
