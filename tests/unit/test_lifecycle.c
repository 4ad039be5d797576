/* SPDX-License-Identifier: MIT */
/*
 * test_lifecycle.c - the library's handles, limits, counters and exit, each
 * scenario in a child process of its own (forked before this process uses
 * the library, so each starts from a library that has done nothing yet; the
 * child's result is its exit status):
 *   1. a span then stint_flush() at once, before the writer thread has run:
 *      the line is in the STINT_MARKERS file when stint_flush returns;
 *   2. a stale handle (its span closed by an outer end) ends nothing, even
 *      when a newer span sits at its depth;
 *   3. past STINT_MAX_DEPTH: spans counted too_deep, attributes set while
 *      one is innermost dropped and counted, not put on the deepest
 *      recorded span;
 *   4. a static name or static attribute text too long for a marker line
 *      is cut with stint_truncated=1 and counted in names_truncated;
 *   5. a forked child's counters start from zero;
 *   6. spans recorded after stint_shutdown() (recording turned on again)
 *      are counted as dropped, not as written;
 *   7. stderr a pipe whose reader has gone: the process exits with its own
 *      status, not killed by SIGPIPE from the exit report;
 *   8. stderr a pipe nobody reads, the writer blocked in it: the exit
 *      handler keeps to STINT_EXIT_FLUSH_MS.
 *   9. handles that name no span of the calling thread end nothing: another
 *      thread's (each thread's first span had the same handle, so one thread
 *      could end another's span), one with depth bits 0 (it read below the
 *      stack), and a span past the depth limit ended twice (the second end
 *      closed a deep span still open, and an attribute then went to the
 *      deepest recorded span); and a stale handle past the depth limit
 *      whose level a newer deep span holds now ends nothing either (deep
 *      handles had no generation: it closed the newer one);
 *  10. (a re-executed process with STINT=0) recording is off from the load,
 *      and a stint_set_enabled(1) before the first span holds (the first
 *      span's lazy init applied STINT=0 again: 1 of 5 spans recorded).
 */
#include "check.h"
#include "stint/stint.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SANITIZED (CHECK_ASAN_OR_TSAN || CHECK_UBSAN)

static char dir[256];

/* ---- lines caught by a callback destination ---- */

static char lines[1 << 20];
static size_t nlines_bytes;

static void catch_line(const char *line, size_t len, void *user)
{
    (void)user;
    if (nlines_bytes + len < sizeof lines) {
        memcpy(lines + nlines_bytes, line, len);
        nlines_bytes += len;
        lines[nlines_bytes] = 0;
    }
}

/* The caught line of span `name` (" name=<name> "), or NULL; its end at *eol. */
static const char *line_of(const char *name, const char **eol)
{
    char key[128];
    snprintf(key, sizeof key, " name=%s ", name);
    const char *p = strstr(lines, key);
    if (!p)
        return NULL;
    while (p > lines && p[-1] != '\n')
        p--;
    *eol = strchr(p, '\n');
    return p;
}

/* Whether the caught line of span `name` holds `text`. */
static int line_has(const char *name, const char *text)
{
    const char *e, *p = line_of(name, &e);
    if (!p || !e)
        return 0;
    const char *t = strstr(p, text);
    return t && t < e;
}

/* ---- the scenarios (each returns its failures; runs in a child) ---- */

static int flush_before_writer(int round)
{
    char path[300];
    snprintf(path, sizeof path, "%s/flush%d.log", dir, round);
    setenv("STINT_MARKERS", path, 1);
    {
        STINT_SCOPE("first.span");
    }
    CHECK(stint_flush() == STINT_OK);
    char buf[4096] = {0};
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    CHECK(n > 0 && strstr(buf, " name=first.span ") != NULL);
    return check_failures_;
}

static int stale_handle(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    STINT_BEGIN(a, "A");
    STINT_BEGIN(b, "B");
    STINT_END(a); /* closes B first (autoclosed) */
    STINT_BEGIN(c, "C");
    STINT_BEGIN(d, "D"); /* at B's old depth */
    STINT_END(b);        /* stale: nothing */
    stint_attr_i64("on_d", 1);
    STINT_END(d);
    STINT_END(c);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK(line_has("B", "stint_autoclosed=1"));
    CHECK(line_has("D", "on_d=1"));
    CHECK(!line_has("D", "stint_autoclosed"));
    CHECK(!line_has("C", "on_d=1"));
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_autoclosed, 1);
    CHECK_EQ_I64(s.spans_recorded, 4);
    return check_failures_;
}

static int too_deep(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    static const stint_loc loc = {"deep", NULL, __FILE__, "too_deep", __LINE__};
    stint_span sp[STINT_MAX_DEPTH + 12];
    for (int i = 0; i < STINT_MAX_DEPTH + 12; i++) {
        sp[i] = stint_span_begin(&loc);
        if (i == STINT_MAX_DEPTH + 5)
            stint_attr_i64("past_limit", 1);
    }
    for (int i = STINT_MAX_DEPTH + 11; i >= STINT_MAX_DEPTH; i--)
        stint_span_end(sp[i]);
    stint_attr_i64("on_deepest", 1); /* the innermost recorded span is open again */
    for (int i = STINT_MAX_DEPTH - 1; i >= 0; i--)
        stint_span_end(sp[i]);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK(strstr(lines, "past_limit") == NULL);
    CHECK(strstr(lines, "on_deepest=1") != NULL);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_too_deep, 12);
    CHECK_EQ_I64(s.attrs_dropped, 1);
    CHECK_EQ_I64(s.spans_recorded, STINT_MAX_DEPTH);
    /* an outer end closes the spans past the limit too */
    for (int i = 0; i < STINT_MAX_DEPTH + 3; i++)
        sp[i] = stint_span_begin(&loc);
    stint_span_end(sp[0]);
    {
        STINT_SCOPE("after");
        stint_attr_i64("kept", 1);
    }
    REQUIRE(stint_flush() == STINT_OK);
    CHECK(line_has("after", "kept=1"));
    return check_failures_;
}

/* Handles of spans past the limit: a stale one (its span closed, a newer
 * one open at its level) closes nothing; levels past the checked ones
 * (STINT_I_DEEP_CHECKED, no generation) still close what is above them. */
static int stale_deep_handle(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    static const stint_loc loc = {"deep", NULL, __FILE__, "stale_deep_handle", __LINE__};
    static const stint_loc top = {"top", NULL, __FILE__, "stale_deep_handle", __LINE__};
    stint_span sp[STINT_MAX_DEPTH];
    sp[0] = stint_span_begin(&top);
    for (int i = 1; i < STINT_MAX_DEPTH; i++)
        sp[i] = stint_span_begin(&loc);
    stint_span a = stint_span_begin(&loc); /* past the limit, level 1 */
    stint_span_end(a);
    stint_span b = stint_span_begin(&loc); /* level 1 again */
    stint_span_end(a);                     /* stale: b stays open */
    stint_attr_i64("while_b", 1);          /* b is innermost: dropped */
    stint_span_end(b);
    stint_attr_i64("after_b", 1); /* the innermost recorded span again */
    /* 300 levels past the limit, the outer 127 checked, the rest not */
    stint_span deep[300];
    for (int i = 0; i < 300; i++)
        deep[i] = stint_span_begin(&loc);
    stint_span_end(deep[250]); /* unchecked: closes levels 251..300 */
    stint_span_end(deep[299]); /* (already closed: nothing) */
    stint_attr_i64("at_250", 1); /* deep[249] is innermost: dropped */
    stint_span_end(deep[10]);  /* checked: closes levels 11..250 */
    stint_span_end(deep[10]);  /* again: nothing, deep[9] stays open */
    stint_attr_i64("at_10", 1);  /* dropped */
    stint_span_end(deep[0]);
    stint_attr_i64("back", 1);
    for (int i = STINT_MAX_DEPTH - 1; i >= 0; i--)
        stint_span_end(sp[i]);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK(strstr(lines, "while_b") == NULL);
    CHECK(strstr(lines, "at_250") == NULL);
    CHECK(strstr(lines, "at_10") == NULL);
    CHECK(strstr(lines, "after_b=1") != NULL);
    CHECK(strstr(lines, "back=1") != NULL);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_too_deep, 302);
    CHECK_EQ_I64(s.attrs_dropped, 3);
    CHECK_EQ_I64(s.spans_recorded, STINT_MAX_DEPTH);
    CHECK_EQ_I64(s.spans_autoclosed, 0);
    return check_failures_;
}

static stint_span g_main_span;
static pthread_barrier_t g_bar;

static void *foreign_end(void *arg)
{
    (void)arg;
    STINT_BEGIN(w, "worker.own");
    pthread_barrier_wait(&g_bar); /* main's span is open */
    stint_span_end(g_main_span);  /* not this thread's span: nothing */
    stint_attr_i64("on_worker", 1);
    STINT_END(w);
    pthread_barrier_wait(&g_bar);
    return NULL;
}

static int bad_handles(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    REQUIRE(pthread_barrier_init(&g_bar, NULL, 2) == 0);
    static const stint_loc loc = {"main.own", NULL, __FILE__, "bad_handles", __LINE__};
    g_main_span = stint_span_begin(&loc);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, foreign_end, NULL) == 0);
    pthread_barrier_wait(&g_bar);
    pthread_barrier_wait(&g_bar);
    pthread_join(th, NULL);
    stint_span_end((stint_span){0x100}); /* depth bits 0 */
    stint_span_end((stint_span){0x300});
    stint_attr_i64("on_main", 1);
    stint_span_end(g_main_span);
    /* a span past the limit ended twice: the deep one above it stays open */
    static const stint_loc dl = {"deep", NULL, __FILE__, "bad_handles", __LINE__};
    stint_span sp[STINT_MAX_DEPTH + 2];
    for (int i = 0; i < STINT_MAX_DEPTH + 2; i++)
        sp[i] = stint_span_begin(&dl);
    stint_span_end(sp[STINT_MAX_DEPTH + 1]);
    stint_span_end(sp[STINT_MAX_DEPTH + 1]); /* again: nothing (it closed sp[MAX] before) */
    stint_attr_i64("while_deep_open", 1);  /* sp[MAX] is innermost: dropped */
    for (int i = STINT_MAX_DEPTH; i >= 0; i--)
        stint_span_end(sp[i]);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK(line_has("worker.own", "on_worker=1"));
    CHECK(!line_has("worker.own", "stint_autoclosed"));
    CHECK(line_has("main.own", "on_main=1"));
    CHECK(strstr(lines, "while_deep_open") == NULL);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_autoclosed, 0);
    CHECK_EQ_I64(s.attrs_dropped, 1);
    CHECK_EQ_I64(s.spans_too_deep, 2);
    pthread_barrier_destroy(&g_bar);
    return check_failures_;
}

static int cut_lines(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    static char name[3000], attrs[5000];
    memset(name, 'n', sizeof name - 1);
    memset(attrs, 'a', sizeof attrs - 1);
    attrs[0] = 'k';
    attrs[1] = '=';
    static stint_loc big_name = {name, NULL, __FILE__, "cut_lines", __LINE__};
    static const stint_loc big_attrs = {"big.attrs", attrs, __FILE__, "cut_lines", __LINE__};
    stint_span s1 = stint_span_begin(&big_name);
    stint_span_end(s1);
    stint_span s2 = stint_span_begin(&big_attrs);
    stint_attr_i64("typed", 42);
    stint_span_end(s2);
    {
        STINT_SCOPE_A("small", "k=v");
    }
    REQUIRE(stint_flush() == STINT_OK);
    const char *e, *p = strstr(lines, " name=nnnn");
    REQUIRE(p);
    e = strchr(p, '\n');
    const char *t = strstr(p, "stint_truncated=1");
    CHECK(t && e && t < e);
    CHECK(line_has("big.attrs", "stint_truncated=1"));
    CHECK(line_has("big.attrs", "typed=42"));
    CHECK(!line_has("big.attrs", "aaaa"));
    CHECK(line_has("small", "k=v"));
    CHECK(!line_has("small", "stint_truncated"));
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.names_truncated, 2);
    return check_failures_;
}

static int fork_counters(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    STINT_BEGIN(a, "outer");
    STINT_BEGIN(b, "inner");
    STINT_END(a);  /* autoclosed: 1 */
    (void)b;
    stint_attr_i64("orphan", 1); /* attrs_dropped: 1 */
    char name[200];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = 0;
    stint_span c = stint_span_begin_copy(name, strlen(name)); /* truncated: 1 */
    stint_span_end(c);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_autoclosed, 1);
    CHECK_EQ_I64(s.attrs_dropped, 1);
    CHECK_EQ_I64(s.names_truncated, 1);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        stint_get_stats(&s);
        int bad = s.spans_autoclosed || s.attrs_dropped || s.names_truncated || s.spans_too_deep ||
                  s.spans_dropped || s.spans_recorded || s.drop_first_ts_ns;
        _exit(bad ? 1 : 0);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return check_failures_;
}

static int after_shutdown(void)
{
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    {
        STINT_SCOPE("before");
    }
    CHECK(stint_shutdown() == STINT_OK);
    CHECK(!stint_is_enabled());
    {
        STINT_SCOPE("off"); /* not recorded, not counted */
    }
    stint_set_enabled(1);
    for (int i = 0; i < 5; i++) {
        STINT_SCOPE("no.sink");
    }
    CHECK(stint_flush() == STINT_OK);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_written, 1);
    CHECK_EQ_I64(s.spans_dropped, 5);
    CHECK(!line_has("no.sink", ""));
    stint_set_enabled(0); /* (so that the exit report stays quiet in the test log) */
    return check_failures_;
}

/* Spans with stderr (the marker destination) a pipe: its read end closed
 * (gone) or kept open and never read (stuck). Exits with status 7. */
static void pipe_child(int wfd, int nonblock)
{
    dup2(wfd, 2);
    close(wfd);
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 3000; i++) {
            STINT_SCOPE("span.into.a.pipe.with.a.rather.long.name.to.fill.it.sooner");
        }
        if (!nonblock) /* (non-blocking: exit at once, so that the exit's own drain meets the full pipe) */
            usleep(30000);
    }
    exit(7);
}

/* Runs pipe_child with the read end closed (gone) or held unread; returns
 * its wait status and its run time in ms through *ms; -1 if it did not end
 * within limit_ms (it is then killed). */
static int run_pipe_child(int gone, int nonblock, long limit_ms, long *ms)
{
    int p[2];
    REQUIRE(pipe(p) == 0);
    if (nonblock) /* (a write then waits for room in poll: the exit's bound holds there too) */
        REQUIRE(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_DFL);
        pipe_child(p[1], nonblock);
    }
    close(p[1]);
    if (gone)
        close(p[0]);
    int st = 0;
    pid_t w = 0;
    for (long waited = 0; (w = waitpid(pid, &st, WNOHANG)) == 0 && waited < limit_ms; waited += 10)
        usleep(10000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (w != pid) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        st = -1;
    }
    if (!gone)
        close(p[0]);
    return st;
}

static int exit_pipes(void)
{
    long ms;
    int st = run_pipe_child(1, 0, 20000, &ms);
    if (!(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7))
        fprintf(stderr, "reader gone: wait status %d (signal %d)\n", st, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7);
    setenv("STINT_EXIT_FLUSH_MS", "300", 1);
    for (int nonblock = 0; nonblock < 2; nonblock++) {
        st = run_pipe_child(0, nonblock, 20000, &ms);
        fprintf(stderr, "reader stuck%s: wait status %d after %ld ms (bound 300 ms + 4 x 30 ms of sleeps)\n",
                nonblock ? ", non-blocking pipe" : "", st, ms);
        CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 7);
        CHECK(ms < (SANITIZED ? 6000 : 2500)); /* (a non-blocking pipe took 10 s: poll's own wait) */
    }
    unsetenv("STINT_EXIT_FLUSH_MS");
    return check_failures_;
}

/* Runs fn in a child; its failures (0..) as the exit status. */
static void in_child(const char *what, int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        check_failures_ = 0; /* (the parent's earlier failures are not this scenario's) */
        int f = fn();
        fflush(NULL);
        _exit(f ? 1 : 0);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        fprintf(stderr, "scenario '%s' failed (wait status %d)\n", what, st);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int round_;
static int flush_round(void) { return flush_before_writer(round_); }

static int stint0_then_enabled(void)
{
    CHECK_EQ_I64(stint_is_enabled(), 0); /* STINT=0, applied at load */
    stint_set_enabled(1);
    REQUIRE(stint_markers_to_callback(catch_line, NULL, 0) == STINT_OK);
    static const stint_loc loc = {"after.enable", NULL, __FILE__, "stint0", __LINE__};
    for (int i = 0; i < 5; i++)
        stint_span_end(stint_span_begin(&loc));
    CHECK_EQ_I64(stint_is_enabled(), 1);
    REQUIRE(stint_flush() == STINT_OK);
    stint_stats s;
    stint_get_stats(&s);
    CHECK_EQ_I64(s.spans_recorded, 5);
    return check_failures_;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--stint0"))
        return stint0_then_enabled() ? 1 : 0;
    { /* the headers' version (STINT_VERSION_*) is the loaded library's */
        char want[64];
        snprintf(want, sizeof want, "%d.%d.%d", STINT_VERSION_MAJOR, STINT_VERSION_MINOR, STINT_VERSION_PATCH);
        CHECK(strcmp(stint_version(), want) == 0);
        CHECK(STINT_VERSION == STINT_VERSION_MAJOR * 10000 + STINT_VERSION_MINOR * 100 + STINT_VERSION_PATCH);
    }
    snprintf(dir, sizeof dir, "%s/stint-lifecycle-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(dir) != NULL);
    for (round_ = 0; round_ < 20; round_++) /* (a race, before: lost in half the runs) */
        in_child("flush before the writer runs", flush_round);
    in_child("stale handle", stale_handle);
    in_child("too deep", too_deep);
    in_child("lines cut", cut_lines);
    in_child("handles of no span of this thread", bad_handles);
    in_child("stale handles past the depth limit", stale_deep_handle);
    { /* 10: a fresh process, so that STINT=0 is there when the library loads */
        fflush(NULL);
        pid_t c = fork();
        REQUIRE(c >= 0);
        if (c == 0) {
            setenv("STINT", "0", 1);
            execl("/proc/self/exe", argv[0], "--stint0", (char *)NULL);
            _exit(127);
        }
        int ws;
        REQUIRE(waitpid(c, &ws, 0) == c);
        if (!(WIFEXITED(ws) && WEXITSTATUS(ws) == 0))
            fprintf(stderr, "scenario 'STINT=0, then enabled' failed (wait status %d)\n", ws);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    in_child("fork counters", fork_counters);
    in_child("after shutdown", after_shutdown);
    in_child("exit with stderr a broken or stuck pipe", exit_pipes);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}
