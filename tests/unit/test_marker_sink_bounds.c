/* SPDX-License-Identifier: MIT */
/*
 * test_marker_sink_bounds.c - a marker destination never hangs the program,
 * and what it could not write is counted and said.
 *
 * Each case runs in a child process (the library fresh in each) with its
 * stderr in a file; the parent kills a child that outlives its deadline, so
 * a hang fails the test instead of blocking it:
 *   1. STINT_MARKERS names a FIFO with no reader: stint_flush() returns at
 *      once with STINT_E_IO (open(2) blocked forever before), every span is
 *      counted lost, and the exit message names the path and ENXIO's text;
 *   2. STINT_MARKERS names a path in a folder that does not exist: 1000 spans
 *      lost, the path and the errno text at exit (it said "0 spans lost");
 *   3. 1000 spans to /dev/full, plain and with the logger's prefix: 1000
 *      lost (the line formatted after the failed write went uncounted);
 *   4. the exit with a pipe whose reader never reads (a blocking descriptor
 *      the program gave, and a FIFO STINT_MARKERS opened): the process is
 *      gone within STINT_EXIT_FLUSH_MS (and a little), and says what was
 *      not written;
 *   5. stint_span_begin_copy with a NUL inside len: cut there, flagged
 *      stint_truncated=1 and counted in names_truncated.
 */
#include "check.h"
#include "stint/stint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256];
static const stint_loc loc = {"sink.span", NULL, __FILE__, "spans", __LINE__};

static void spans(int n)
{
    for (int i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_attr_i64("i", i);
        stint_span_end(s);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs fn in a child with the environment pairs env ("K=V", NULL-ended) and
 * its stderr in err_path; kills it after limit_s. Returns its exit status
 * (-1: killed for hanging) and its run time in *secs. */
static int in_child(void (*fn)(void), const char *const *env, const char *err_path, int limit_s, double *secs)
{
    fflush(NULL);
    double t0 = now_s();
    pid_t c = fork();
    REQUIRE(c >= 0);
    if (c == 0) {
        check_failures_ = 0; /* (the child's own checks decide its status) */
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            dup2(fd, 2);
        for (; env && *env; env++)
            putenv((char *)*env);
        fn();
        fflush(NULL);
        exit(check_failures_ ? 1 : 0);
    }
    int st = 0;
    for (;;) {
        pid_t r = waitpid(c, &st, WNOHANG);
        if (r == c)
            break;
        if (now_s() - t0 > limit_s) {
            kill(c, SIGKILL);
            waitpid(c, &st, 0);
            *secs = now_s() - t0;
            fprintf(stderr, "child hung: killed after %d s\n", limit_s);
            return -1;
        }
        usleep(5000);
    }
    *secs = now_s() - t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

static int g_expect_lost;

/* spans, then a flush that must fail at once with every span counted lost */
static void lost_all(void)
{
    spans(g_expect_lost);
    double t0 = now_s();
    CHECK(stint_flush() == STINT_E_IO);
    CHECK(now_s() - t0 < 2.0);
    stint_stats st;
    stint_get_stats(&st);
    CHECK_EQ_U64(st.spans_written, (uint64_t)g_expect_lost);
    CHECK_EQ_U64(st.sink_spans_lost, (uint64_t)g_expect_lost);
    CHECK(st.sink_error == STINT_E_IO);
}

static void check_lost_case(const char *what, const char *markers, int prefix, int n, const char *reason)
{
    char env_m[512], err[300], want[700];
    snprintf(env_m, sizeof env_m, "STINT_MARKERS=%s", markers);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *env[] = {env_m, "STINT_FLUSH_MS=3600000", "STINT_EXIT_FLUSH_MS=2000",
                         prefix ? "STINT_MARKERS_PREFIX=1" : "STINT_MARKERS_PREFIX=0", NULL};
    g_expect_lost = n;
    double secs;
    int rc = in_child(lost_all, env, err, 30, &secs);
    const char *text = slurp(err);
    printf("%s: exit %d after %.2f s; stderr: %s", what, rc, secs, text);
    CHECK_EQ_I64(rc, 0);
    if (reason)
        snprintf(want, sizeof want, "markers not fully written at exit: cannot open %s: %s (%d spans lost)\n",
                 markers, reason, n);
    else
        snprintf(want, sizeof want, "markers not fully written at exit: write to %s failed: %s (%d spans lost)\n",
                 markers, strerror(ENOSPC), n);
    if (!strstr(text, want))
        fprintf(stderr, "  want: %s", want);
    CHECK(strstr(text, want) != NULL);
}

/* 5000 spans to a pipe nobody reads, then exit() */
static int g_pipe_fd = -1;
static void exit_blocked(void)
{
    if (g_pipe_fd >= 0)
        CHECK(stint_markers_to_fd(g_pipe_fd, 0) == STINT_OK);
    spans(5000);
    exit(0); /* the exit handler drains into the full pipe */
}

static void check_exit_bound(const char *what, const char *const *env)
{
    char err[300];
    snprintf(err, sizeof err, "%s/err.txt", dir);
    double secs;
    int rc = in_child(exit_blocked, env, err, 30, &secs);
    const char *text = slurp(err);
    printf("%s: exit %d after %.2f s; stderr: %s", what, rc, secs, text);
    CHECK_EQ_I64(rc, 0);
    CHECK(secs < 1.0 + 4.0); /* STINT_EXIT_FLUSH_MS=1000, and room for a loaded machine */
    CHECK(strstr(text, "markers not fully written at exit") != NULL);
}

static char g_line[512];
static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    if (len < sizeof g_line && !memcmp(line, "[STRACE]", 8)) {
        memcpy(g_line, line, len);
        g_line[len] = 0;
    }
}

static void nul_in_copy(void)
{
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    stint_stats a, b;
    stint_get_stats(&a);
    stint_span s = stint_span_begin_copy("ab\0cd", 5);
    stint_span_end(s);
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&b);
    printf("NUL in a copied name: %s", g_line);
    CHECK(strstr(g_line, " name=ab ") != NULL);
    CHECK(strstr(g_line, "stint_truncated=1") != NULL);
    CHECK_EQ_U64(b.names_truncated - a.names_truncated, 1);
    s = stint_span_begin_copy("whole", 5); /* (no NUL inside len: not flagged) */
    stint_span_end(s);
    CHECK(stint_flush() == STINT_OK);
    CHECK(strstr(g_line, " name=whole ") != NULL && !strstr(g_line, "stint_truncated"));
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/stint-sinkbounds.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(dir) != NULL);
    char fifo[300], missing[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(missing, sizeof missing, "%s/no/such/folder/markers.log", dir);
    REQUIRE(mkfifo(fifo, 0600) == 0);

    check_lost_case("FIFO without a reader", fifo, 0, 100, strerror(ENXIO));
    check_lost_case("missing folder", missing, 0, 1000, strerror(ENOENT));
    int full = open("/dev/full", O_WRONLY);
    struct stat sb;
    if (full >= 0 && fstat(full, &sb) == 0 && S_ISCHR(sb.st_mode)) {
        check_lost_case("/dev/full", "/dev/full", 0, 1000, NULL);
        check_lost_case("/dev/full, prefixed lines", "/dev/full", 1, 1000, NULL);
    } else {
        CHECK_SKIP_PART("/dev/full is not the full device here");
    }
    if (full >= 0)
        close(full);

    /* a pipe the program gave, its reader never reading */
    int p[2];
    REQUIRE(pipe(p) == 0);
    g_pipe_fd = p[1];
    const char *env_fd[] = {"STINT_FLUSH_MS=3600000", "STINT_EXIT_FLUSH_MS=1000", NULL};
    check_exit_bound("exit, pipe reader stopped", env_fd);
    close(p[0]);
    close(p[1]);
    g_pipe_fd = -1;
    /* a FIFO STINT_MARKERS opens, its reader (here) never reading */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    REQUIRE(rd >= 0);
    char env_m[400];
    snprintf(env_m, sizeof env_m, "STINT_MARKERS=%s", fifo);
    const char *env_fifo[] = {env_m, "STINT_FLUSH_MS=3600000", "STINT_EXIT_FLUSH_MS=1000", NULL};
    check_exit_bound("exit, FIFO reader stopped", env_fifo);
    close(rd);

    char err[300];
    snprintf(err, sizeof err, "%s/err.txt", dir);
    double secs;
    CHECK_EQ_I64(in_child(nul_in_copy, NULL, err, 30, &secs), 0);

    unlink(err);
    unlink(fifo);
    rmdir(dir);
    CHECK_DONE();
}
