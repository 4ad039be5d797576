/* SPDX-License-Identifier: MIT */
/*
 * test_span_signal_threads.c - spans recorded from a signal handler that
 * interrupts the library on its own thread.
 *
 * A timer signal every 20 us runs a handler that records a span (begin, an
 * attribute, end) while the main thread records spans in a tight loop, so the
 * handler lands inside stint_span_begin/attr/end again and again. The library
 * must drop such a re-entrant span and count it, never corrupt the thread's
 * record or wait on a lock or once its own thread holds. Every scenario runs
 * in a child process (the library fresh in each: the parent never calls it)
 * that the parent kills after a deadline, so a hang fails instead of
 * blocking the test:
 *   1. the main thread's first span comes first (the first signals land in
 *      the one-time init and the thread's registration);
 *   2. the handler's span comes first on its thread (it registers the
 *      thread, with an async-signal-safe allocator hook, after the process's
 *      first span on another thread, as stint.h asks);
 *   3. the same load with every record checked: each marker line whole, of
 *      one of the two kinds, with its own attribute;
 *   4. a signal raised inside the thread's very first span (from the
 *      allocator hook, while the thread registers): dropped and counted;
 *   5. twelve fresh processes whose first span races the timer.
 * In each: spans recorded + spans dropped == spans begun (loop + handler).
 * The loop is 200k spans (100k under ASan, 30k under TSan, which runs a
 * handler only when the thread calls into libc); STINT_TEST_SIGNAL_SPANS sets
 * another size (20000000 is the full load). Under TSan the process's first
 * span is always another thread's, before the timer starts (TSan runs a
 * pending handler at the return of setitimer, before the loop's first span,
 * and a handler that is the process's first use is outside the contract).
 */
#include "check.h"
#include "stint/stint.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const stint_loc main_loc = {"main.span", NULL, __FILE__, "main", __LINE__};
static const stint_loc sig_loc = {"sig.span", NULL, __FILE__, "on_signal", __LINE__};
static _Atomic uint64_t g_sig_emitted;

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    stint_span s = stint_span_begin(&sig_loc);
    stint_attr_i64("sig", 1);
    stint_span_end(s);
    atomic_fetch_add(&g_sig_emitted, 1);
    errno = saved;
}

/* An async-signal-safe allocator: whole pages from mmap. */
static void *as_alloc(size_t size, void *user)
{
    (void)user;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
static void as_free(void *p, size_t size, void *user)
{
    (void)user;
    if (p)
        munmap(p, size);
}

/* The same, raising the timer's signal on this thread at its first call
 * (inside the first span's registration). */
static int g_raise_once;
static void *raising_alloc(size_t size, void *user)
{
    if (g_raise_once) {
        g_raise_once = 0;
        raise(SIGALRM);
    }
    return as_alloc(size, user);
}

static void handler_on(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
}

static void timer_set(long us)
{
    struct itimerval it = {{0, us}, {0, us}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static void timer_stop(void)
{
    timer_set(0);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGALRM);
    sigprocmask(SIG_BLOCK, &s, NULL); /* (one may be pending still) */
}

static long spans_loop(long n)
{
    for (long i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&main_loc);
        stint_attr_i64("i", i);
        stint_span_end(s);
    }
    return n;
}

/* Marker lines seen by the checking sink (scenario 3). */
static _Atomic uint64_t g_main_lines, g_sig_lines, g_bad_lines;

static void check_line(const char *line, size_t len, void *user)
{
    (void)user;
    if (len >= 7 && !memcmp(line, "[STINT]", 7))
        return; /* a loss report */
    int whole = len > 13 && !memcmp(line, "[STRACE] v=1 ", 13) && line[len - 1] == '\n' &&
                !memchr(line, '\n', len - 1);
    if (whole && memmem(line, len, " name=main.span ", 16) && memmem(line, len, " i=", 3) &&
        !memmem(line, len, " sig=", 5))
        atomic_fetch_add(&g_main_lines, 1);
    else if (whole && memmem(line, len, " name=sig.span ", 15) && memmem(line, len, " sig=1", 6) &&
             !memmem(line, len, " i=", 3))
        atomic_fetch_add(&g_sig_lines, 1);
    else if (atomic_fetch_add(&g_bad_lines, 1) < 3)
        fprintf(stderr, "bad line: %.*s", (int)len, line);
}

/* The accounting every scenario ends with: returns the stats after a flush. */
static stint_stats account(uint64_t loop_spans)
{
    timer_stop();
    stint_stats st;
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&st);
    uint64_t sig = atomic_load(&g_sig_emitted);
    printf("  loop %llu + handler %llu begun: %llu recorded, %llu dropped, %llu attrs dropped\n",
           (unsigned long long)loop_spans, (unsigned long long)sig, (unsigned long long)st.spans_recorded,
           (unsigned long long)st.spans_dropped, (unsigned long long)st.attrs_dropped);
    CHECK_EQ_U64(st.spans_recorded + st.spans_dropped, loop_spans + sig);
    CHECK_EQ_U64(st.spans_written, st.spans_recorded);
    CHECK_EQ_U64(st.spans_too_deep, 0);
    /* a handler's attribute is dropped exactly when its span was (no
     * buffer filled: then every drop is a handler's) */
    if (!st.drop_first_ts_ns)
        CHECK_EQ_U64(st.attrs_dropped, st.spans_dropped);
    return st;
}

static void *one_span(void *arg)
{
    (void)arg;
    stint_span s = stint_span_begin(&main_loc);
    stint_attr_i64("i", 0);
    stint_span_end(s);
    return NULL;
}

/* The process's first span, on a thread of its own (it initialises the
 * library and starts the writer): returns the spans it began. */
static uint64_t process_first_span(void)
{
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, one_span, NULL) == 0);
    pthread_join(th, NULL);
    return 1;
}

static void scenario_orders(int handler_first, long n)
{
    stint_allocator a = {as_alloc, as_free, NULL};
    stint_set_allocator(&a);
    uint64_t before = handler_first || CHECK_TSAN ? process_first_span() : 0;
    handler_on();
    timer_set(20);
    if (handler_first) {
        /* the library's first use on this thread is the handler's
         * (sched_yield: TSan runs handlers at calls into libc) */
        while (!atomic_load(&g_sig_emitted))
            sched_yield();
    }
    account(before + (uint64_t)spans_loop(n));
}

static void scenario_lines(long n)
{
    stint_allocator a = {as_alloc, as_free, NULL};
    stint_set_allocator(&a);
    REQUIRE(stint_markers_to_callback(check_line, NULL, 0) == STINT_OK);
    uint64_t before = process_first_span();
    handler_on();
    timer_set(20);
    stint_stats st = account(before + (uint64_t)spans_loop(n));
    printf("  lines: %llu main, %llu handler, %llu bad\n", (unsigned long long)atomic_load(&g_main_lines),
           (unsigned long long)atomic_load(&g_sig_lines), (unsigned long long)atomic_load(&g_bad_lines));
    CHECK_EQ_U64(atomic_load(&g_bad_lines), 0);
    CHECK_EQ_U64(atomic_load(&g_main_lines) + atomic_load(&g_sig_lines), st.spans_written);
    if (!st.drop_first_ts_ns) { /* no buffer filled: every loop span is there, and every handler's but the dropped */
        CHECK_EQ_U64(atomic_load(&g_main_lines), (uint64_t)n + before);
        CHECK_EQ_U64(atomic_load(&g_sig_lines) + st.spans_dropped, atomic_load(&g_sig_emitted));
    }
}

static void scenario_first_span(void)
{
    stint_allocator a = {raising_alloc, as_free, NULL};
    stint_set_allocator(&a);
    handler_on();
    g_raise_once = 1;
    spans_loop(1); /* the signal comes while this span registers the thread */
    CHECK_EQ_I64(g_raise_once, 0);
    stint_stats st = account(1);
    CHECK_EQ_U64(atomic_load(&g_sig_emitted), 1);
    CHECK_EQ_U64(st.spans_recorded, 1);
    CHECK_EQ_U64(st.spans_dropped, 1);
    CHECK_EQ_U64(st.attrs_dropped, 1);
}

static void scenario_race(unsigned seed)
{
    stint_allocator a = {as_alloc, as_free, NULL};
    stint_set_allocator(&a);
    uint64_t before = CHECK_TSAN ? process_first_span() : 0;
    handler_on();
    timer_set(20);
    for (volatile unsigned spin = 0; spin < seed % 2000; spin++) /* the first signal at varying points */
        ;
    account(before + (uint64_t)spans_loop(2000));
}

/* Runs fn(arg) in a child with STINT_MARKERS=off (scenario 3 sets its own
 * sink) and waits for it at most limit_s seconds: 0 when it exited 0. */
static int in_child(const char *what, void (*fn)(long), long arg, int limit_s)
{
    fflush(NULL);
    pid_t c = fork();
    REQUIRE(c >= 0);
    if (c == 0) {
        check_failures_ = 0; /* (the child's own checks decide its status) */
        setenv("STINT_MARKERS", "off", 1);
        setenv("STINT_BUFFER_KB", "65536", 1);
        fn(arg);
        fflush(NULL);
        exit(check_failures_ ? 1 : 0); /* (the exit handler runs too) */
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        pid_t r = waitpid(c, &st, WNOHANG);
        if (r == c) {
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                return 0;
            fprintf(stderr, "%s: child failed (status 0x%x)\n", what, st);
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > limit_s) {
            kill(c, SIGKILL);
            waitpid(c, &st, 0);
            fprintf(stderr, "%s: child hung for %d s (deadlock)\n", what, limit_s);
            return 1;
        }
        usleep(2000);
    }
}

static void run_main_first(long n) { scenario_orders(0, n); }
static void run_handler_first(long n) { scenario_orders(1, n); }
static void run_lines(long n) { scenario_lines(n); }
static void run_first_span(long n)
{
    (void)n;
    scenario_first_span();
}
static void run_race(long n) { scenario_race((unsigned)n); }

int main(void)
{
    long n = CHECK_TSAN ? 30000 : CHECK_ASAN_OR_TSAN || CHECK_UBSAN ? 100000 : 200000;
    const char *env = getenv("STINT_TEST_SIGNAL_SPANS");
    if (env && atol(env) > 0)
        n = atol(env);
    int limit = 60 + (int)(n / 100000); /* a deadlock, not a slow machine */
    printf("main thread first (%ld spans)\n", n);
    CHECK_EQ_I64(in_child("main first", run_main_first, n, limit), 0);
    printf("handler first (%ld spans)\n", n);
    CHECK_EQ_I64(in_child("handler first", run_handler_first, n, limit), 0);
    printf("every line checked (%ld spans)\n", n);
    CHECK_EQ_I64(in_child("lines", run_lines, n, limit), 0);
    printf("a signal inside the first span\n");
    CHECK_EQ_I64(in_child("first span", run_first_span, 0, 60), 0);
    int hung = 0;
    for (unsigned i = 0; i < 12; i++)
        hung += in_child("race", run_race, (long)(i * 977u), 60);
    printf("12 first spans racing the timer: %d failed\n", hung);
    CHECK_EQ_I64(hung, 0);
    CHECK_DONE();
}
