/* SPDX-License-Identifier: MIT */
/*
 * test_writer_faults.c - every sink facing a destination that fails.
 *
 * Destinations: /dev/full (ENOSPC on every write), a descriptor that was
 * closed before the library wrote to it (EBADF), a pipe whose reader is gone
 * (EPIPE, and SIGPIPE at its default action, which would kill the process),
 * a non-blocking pipe read slowly (EAGAIN: wait, lose nothing),
 * and a file that is unlinked, with its folder, while the program runs.
 * Sinks: the marker sink (fd and path), the JSONL session, the streaming
 * Chrome writer and the ring capture's Chrome export.
 *
 * Each case runs in a fresh child process (the library starts clean, and a
 * signal that escapes shows up as the child's death). The child checks that
 * the error is reported (stint_flush / the sink's close returns STINT_E_IO,
 * sink_error of stint_get_stats() is set and stays set: sticky), that spans keep
 * being accepted and counted afterwards, that the spans the sink could not
 * write are counted exactly (sink_spans_lost: a file size limit cuts a
 * batch inside a line, and the torn line counts as lost), and that the
 * program goes on to exit normally with code 0.
 */
#include "check.h"
#include "stint/session.h"
#include "stint/stint.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[256];

static void spans(int n)
{
    static const stint_loc loc = {"fault.span", "k=v", __FILE__, "spans", __LINE__};
    for (int i = 0; i < n; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_span_end(s);
    }
}

/* The marker sink on fd: the first flush fails, the error is sticky, spans
 * go on being counted. */
static void markers_case(int fd)
{
    CHECK(stint_markers_to_fd(fd, 0) == STINT_OK);
    spans(100);
    CHECK(stint_flush() == STINT_E_IO);
    stint_stats st;
    stint_get_stats(&st);
    CHECK(st.sink_error == STINT_E_IO);
    CHECK_EQ_U64(st.sink_spans_lost, 100); /* the first write failed: its whole batch */
    uint64_t before = st.spans_recorded + st.spans_dropped;
    spans(100);
    CHECK(stint_flush() == STINT_E_IO); /* sticky */
    stint_get_stats(&st);
    CHECK_EQ_U64(st.spans_recorded + st.spans_dropped - before, 100);
    CHECK(st.sink_error == STINT_E_IO);
    CHECK_EQ_U64(st.sink_spans_lost, 200);
    CHECK_EQ_U64(st.spans_written, 200); /* handed to the sink, which lost them: said apart */
}

/* Lines in the file at path that end with a newline (whole), and whether a
 * torn one follows. */
static long whole_lines(const char *path, int *torn)
{
    FILE *f = fopen(path, "rb");
    long n = 0;
    int c, last = '\n';
    while (f && (c = fgetc(f)) != EOF) {
        n += c == '\n';
        last = c;
    }
    if (f)
        fclose(f);
    *torn = last != '\n';
    return n;
}

/* A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG) that cuts the
 * first batch in the middle of a line: the lines the file holds whole are
 * not lost, the torn one and all after it are. */
static void case_markers_partial_write(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/partial.log", dir);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit was, rl;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &was) == 0);
    rl = was;
    rl.rlim_cur = 3001; /* (a marker line is ~90 bytes: 3001 ends inside one) */
    REQUIRE(setrlimit(RLIMIT_FSIZE, &rl) == 0);
    CHECK(stint_markers_to_path(path, 0) == STINT_OK);
    spans(300);
    CHECK(stint_flush() == STINT_E_IO);
    spans(50);
    CHECK(stint_flush() == STINT_E_IO);
    stint_stats st;
    stint_get_stats(&st);
    int torn;
    long whole = whole_lines(path, &torn);
    CHECK(torn);
    CHECK(whole > 10 && whole < 300);
    CHECK_EQ_U64(st.sink_spans_lost, (uint64_t)(350 - whole));
    CHECK_EQ_U64(st.spans_written, 350);
    /* a new destination clears the error, not the count */
    REQUIRE(setrlimit(RLIMIT_FSIZE, &was) == 0);
    CHECK(stint_markers_to_path(path, 0) == STINT_OK);
    spans(10);
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&st);
    CHECK(st.sink_error == STINT_OK);
    CHECK_EQ_U64(st.sink_spans_lost, (uint64_t)(350 - whole));
}

static void case_markers_dev_full(void)
{
    int fd = open("/dev/full", O_WRONLY);
    REQUIRE(fd >= 0);
    markers_case(fd);
}

static void case_markers_closed_fd(void)
{
    int fd = open("/dev/null", O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(dup2(fd, 777) == 777);
    close(fd);
    close(777); /* the library is handed a descriptor that is no longer open */
    markers_case(777);
}

static void case_markers_broken_pipe(void)
{
    signal(SIGPIPE, SIG_DFL); /* as in a program that never touched it */
    int p[2];
    REQUIRE(pipe(p) == 0);
    close(p[0]);
    markers_case(p[1]);
}

/* A non-blocking pipe (as a parent may hand over stderr) read by a slow
 * reader: the sink waits for room, as on a blocking one, and every line
 * arrives (EAGAIN stopped the output for good: flush STINT_E_IO, ~60 KB of
 * 200 KB delivered). */
static int g_nb_read_fd;
static long g_nb_lines;
static void *slow_reader(void *arg)
{
    (void)arg;
    struct timespec d = {0, 50 * 1000 * 1000};
    nanosleep(&d, NULL); /* the pipe fills first */
    char buf[4096];
    ssize_t n;
    while ((n = read(g_nb_read_fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            g_nb_lines += buf[i] == '\n';
    return NULL;
}

static void case_markers_nonblocking_pipe(void)
{
    int p[2];
    REQUIRE(pipe(p) == 0);
    REQUIRE(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
    g_nb_read_fd = p[0];
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, slow_reader, NULL) == 0);
    CHECK(stint_markers_to_fd(p[1], 0) == STINT_OK);
    spans(2000); /* ~200 KB: more than the pipe holds */
    CHECK(stint_flush() == STINT_OK);
    stint_stats st;
    stint_get_stats(&st);
    CHECK(st.sink_error == STINT_OK);
    CHECK(stint_shutdown() == STINT_OK);
    close(p[1]);
    pthread_join(th, NULL);
    CHECK_EQ_I64(g_nb_lines, 2000);
}

static void case_markers_path_vanishes(void)
{
    char sub[300], path[400];
    snprintf(sub, sizeof sub, "%s/gone", dir);
    snprintf(path, sizeof path, "%s/markers.log", sub);
    REQUIRE(mkdir(sub, 0700) == 0);
    CHECK(stint_markers_to_path(path, 0) == STINT_OK);
    spans(10);
    CHECK(stint_flush() == STINT_OK);
    REQUIRE(unlink(path) == 0);
    REQUIRE(rmdir(sub) == 0);
    /* POSIX: writes go on into the unlinked inode; nothing to report, and
     * nothing may crash. Re-opening the vanished path is an error. */
    spans(10);
    CHECK(stint_flush() == STINT_OK);
    CHECK(stint_markers_to_path(path, 0) == STINT_E_IO);
    spans(10);
    CHECK(stint_flush() == STINT_OK || stint_flush() == STINT_E_IO);
}

static stint_status session_steps(const char *path, int *opened)
{
    stint_session_options opt = STINT_SESSION_OPTIONS_INIT;
    opt.entrypoint = "fault";
    stint_session *s = NULL;
    char err[512] = "";
    stint_status st = stint_session_open(path, &opt, &s, err, sizeof err);
    *opened = st == STINT_OK;
    if (st != STINT_OK) {
        CHECK(s == NULL);
        CHECK(strstr(err, path) != NULL); /* the message names the file */
        return st;
    }
    stint_status first = STINT_OK;
    for (int i = 0; i < 2000; i++) { /* enough lines to overflow the session's buffer */
        uint64_t id;
        st = stint_session_span_begin(s, "step", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &id);
        if (st == STINT_OK)
            st = stint_session_span_end(s, id);
        if (st != STINT_OK && first == STINT_OK)
            first = st;
        if (first != STINT_OK)
            CHECK(st == first); /* sticky */
    }
    st = stint_session_flush(s);
    if (first == STINT_OK)
        first = st;
    st = stint_session_finish(s);
    if (first == STINT_OK)
        first = st;
    CHECK(st == first);
    if (first != STINT_OK)
        CHECK(strstr(stint_session_message(s), "") != NULL);
    stint_session_free(s);
    return first;
}

static void case_session_dev_full(void)
{
    int opened;
    CHECK(session_steps("/dev/full", &opened) == STINT_E_IO);
}

static void case_session_broken_pipe(void)
{
    signal(SIGPIPE, SIG_DFL);
    int p[2];
    REQUIRE(pipe(p) == 0);
    close(p[0]);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
    int opened;
    CHECK(session_steps(path, &opened) == STINT_E_IO);
}

static void case_session_vanishes(void)
{
    char sub[300], path[400];
    snprintf(sub, sizeof sub, "%s/sgone", dir);
    snprintf(path, sizeof path, "%s/session.jsonl", sub);
    REQUIRE(mkdir(sub, 0700) == 0);
    stint_session_options opt = STINT_SESSION_OPTIONS_INIT;
    opt.entrypoint = "fault";
    stint_session *s = NULL;
    char err[512];
    REQUIRE(stint_session_open(path, &opt, &s, err, sizeof err) == STINT_OK);
    REQUIRE(unlink(path) == 0);
    REQUIRE(rmdir(sub) == 0);
    for (int i = 0; i < 100; i++) {
        uint64_t id;
        CHECK(stint_session_span_begin(s, "x", STINT_SPAN_OP, STINT_STEP_NONE, &id) == STINT_OK);
        CHECK(stint_session_span_end(s, id) == STINT_OK);
    }
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    /* a second session on the vanished folder: a clear open error */
    int opened;
    CHECK(session_steps(path, &opened) == STINT_E_IO);
    CHECK(!opened);
}

static void case_chrome_dev_full(void)
{
    stint_chrome_writer *w = NULL;
    char err[512];
    stint_status st = stint_chrome_open("/dev/full", &w, err, sizeof err);
    if (st == STINT_OK) {
        spans(5000);
        st = stint_flush();
        CHECK(st == STINT_E_IO);
        stint_stats s;
        stint_get_stats(&s);
        CHECK_EQ_U64(s.sink_spans_lost, 5000); /* nothing reached the file */
        spans(10);
        CHECK(stint_chrome_close(w) == STINT_E_IO);
        stint_get_stats(&s); /* counted after the writer is closed too */
        CHECK_EQ_U64(s.sink_spans_lost, 5010);
    } else {
        CHECK(st == STINT_E_IO);
    }
    spans(10); /* the program goes on */
}

static void case_chrome_broken_pipe(void)
{
    signal(SIGPIPE, SIG_DFL);
    int p[2];
    REQUIRE(pipe(p) == 0);
    close(p[0]);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[1]);
    stint_chrome_writer *w = NULL;
    char err[512];
    stint_status st = stint_chrome_open(path, &w, err, sizeof err);
    if (st == STINT_OK) {
        spans(5000);
        CHECK(stint_flush() == STINT_E_IO);
        CHECK(stint_chrome_close(w) == STINT_E_IO);
    } else {
        CHECK(st == STINT_E_IO);
    }
}

static void case_ring_export_dev_full(void)
{
    REQUIRE(stint_ring_start(64) == STINT_OK);
    spans(100);
    stint_ring_capture *c = NULL;
    REQUIRE(stint_ring_finish(&c) == STINT_OK);
    CHECK(stint_ring_capture_write_chrome(c, "/dev/full") == STINT_E_IO);
    char bad[400];
    snprintf(bad, sizeof bad, "%s/no/such/folder/ring.json", dir);
    CHECK(stint_ring_capture_write_chrome(c, bad) == STINT_E_IO);
    stint_ring_capture_free(c);
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    {"markers /dev/full", case_markers_dev_full},
    {"markers closed fd", case_markers_closed_fd},
    {"markers broken pipe", case_markers_broken_pipe},
    {"markers non-blocking pipe, slow reader", case_markers_nonblocking_pipe},
    {"markers path vanishes", case_markers_path_vanishes},
    {"markers cut by a file size limit", case_markers_partial_write},
    {"session /dev/full", case_session_dev_full},
    {"session broken pipe", case_session_broken_pipe},
    {"session file vanishes", case_session_vanishes},
    {"chrome /dev/full", case_chrome_dev_full},
    {"chrome broken pipe", case_chrome_broken_pipe},
    {"ring export /dev/full", case_ring_export_dev_full},
};

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/stint_faults_%d", (int)getpid());
    REQUIRE(mkdir(dir, 0700) == 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            check_count_ = check_failures_ = 0;
            cases[i].fn();
            fprintf(stderr, "  %s: %d checks, %d failed\n", cases[i].name, check_count_, check_failures_);
            exit(check_failures_ ? 1 : 0); /* exit(): the library's atexit flush runs too */
        }
        int status;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        if (WIFSIGNALED(status))
            fprintf(stderr, "%s: killed by signal %d (%s)\n", cases[i].name, WTERMSIG(status),
                    strsignal(WTERMSIG(status)));
        else if (WEXITSTATUS(status) != 0)
            fprintf(stderr, "%s: exit %d\n", cases[i].name, WEXITSTATUS(status));
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
