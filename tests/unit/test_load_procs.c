/* SPDX-License-Identifier: MIT */
/*
 * test_load_procs.c - 8 processes x 4 threads appending marker lines to one
 * destination at once, read back with the analyzer's streaming marker parser
 * (markers_parse.h): zero torn lines, and every span accounted for.
 *
 * Destinations: one O_APPEND log file opened by each process through
 * STINT_MARKERS=<path> (the documented way to share a log), and one pipe
 * inherited by all (lines are written in whole-line batches of at most
 * PIPE_BUF bytes, which POSIX makes atomic). Lines carry a 48-byte string
 * attribute so that batches end at many different offsets.
 *
 * Each child reports its spans_recorded and spans_dropped through its own
 * result pipe; the parent checks, per pid: [STRACE] records == recorded, the
 * counts on its [STINT] dropped lines == dropped, recorded + dropped ==
 * emitted; and globally: every line is a record or a dropped line, the
 * parser saw no torn record, no overflow and no long line.
 */
#include "check.h"
#include "read/markers_parse.h"
#include "stint/stint.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

/* TSan runs these 5-15x slower than ASan: a smaller load */
#define LOAD_SANITIZED CHECK_ASAN_OR_TSAN
#define LOAD_TSAN CHECK_TSAN

enum { NPROC = 8, NTHREADS = 4, MAXPID = 1 << 22 };
static long g_spans; /* per thread */

static void *worker(void *arg)
{
    (void)arg;
    static const stint_loc loc = {"load.proc", NULL, __FILE__, "worker", __LINE__};
    for (long i = 0; i < g_spans; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_attr_str("pad", "0123456789abcdef0123456789abcdef0123456789abcdef");
        stint_attr_i64("i", i);
        stint_span_end(s);
    }
    return NULL;
}

struct result {
    int32_t pid;
    uint64_t recorded, dropped;
};

static void child(int result_fd)
{
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, worker, NULL) != 0)
            _exit(2);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    stint_status st = stint_shutdown();
    stint_stats s;
    stint_get_stats(&s);
    struct result r = {(int32_t)getpid(), s.spans_recorded, s.spans_dropped};
    if (write(result_fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(3);
    _exit(st == STINT_OK ? 0 : 4);
}

/* ---- reading back ------------------------------------------------------------- */

struct tally {
    uint64_t *records; /* by pid */
    uint64_t records_total, bad_pid;
};

static int on_record(void *ctx, const struct stint_mparse_record *rec)
{
    struct tally *t = ctx;
    t->records_total++;
    if (rec->pid < MAXPID)
        t->records[rec->pid]++;
    else
        t->bad_pid++;
    struct stint_mparse_text v;
    if (!stint_mparse_attr_get(rec->attrs, "pad", &v) || v.len != 48) /* the record is whole */
        t->bad_pid++;
    return 0;
}

static void on_torn(void *ctx, uint64_t off, uint64_t line, const char *why)
{
    (void)ctx;
    fprintf(stderr, "torn record at byte %llu (line %llu): %s\n", (unsigned long long)off, (unsigned long long)line,
            why);
}

/* Checks buf[0..len) against the children's results. */
static void check_log(const char *what, const char *buf, size_t len, const struct result *res)
{
    struct tally t = {calloc(MAXPID, sizeof(uint64_t)), 0, 0};
    REQUIRE(t.records != NULL);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_record;
    o.on_torn = on_torn;
    o.ctx = &t;
    o.count_lines = 1;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p != NULL);
    REQUIRE(stint_mparse_feed(p, buf, len) == 0);
    REQUIRE(stint_mparse_finish(p) == 0);
    const struct stint_mparse_stats *st = stint_mparse_get_stats(p);
    CHECK_EQ_U64(st->torn, 0);
    CHECK_EQ_U64(st->overflow, 0);
    CHECK_EQ_U64(st->long_lines, 0);
    CHECK_EQ_U64(t.bad_pid, 0);
    /* line by line: records and dropped reports only, dropped counts per pid */
    uint64_t drop_by_proc[NPROC] = {0}, other = 0, lines = 0;
    const char *p0 = buf, *end = buf + len;
    CHECK(len == 0 || end[-1] == '\n');
    while (p0 < end) {
        const char *nl = memchr(p0, '\n', (size_t)(end - p0));
        if (!nl)
            nl = end;
        lines++;
        if ((size_t)(nl - p0) >= 13 && memcmp(p0, "[STRACE] v=1 ", 13) == 0) {
            /* counted by the parser */
        } else if ((size_t)(nl - p0) >= 20 && memcmp(p0, "[STINT] v=1 dropped ", 20) == 0) {
            char tmp[256];
            size_t n = (size_t)(nl - p0) < sizeof tmp - 1 ? (size_t)(nl - p0) : sizeof tmp - 1;
            memcpy(tmp, p0, n);
            tmp[n] = 0;
            int pid;
            unsigned long long count;
            if (sscanf(tmp, "[STINT] v=1 dropped pid=%d tid=%*d count=%llu", &pid, &count) == 2) {
                for (int k = 0; k < NPROC; k++)
                    if (res[k].pid == pid)
                        drop_by_proc[k] += count;
            } else {
                other++;
            }
        } else {
            if (other < 3)
                fprintf(stderr, "%s: unexpected line %llu: %.80s\n", what, (unsigned long long)lines, p0);
            other++;
        }
        p0 = nl + 1;
    }
    CHECK_EQ_U64(other, 0);
    uint64_t emitted = (uint64_t)NTHREADS * (uint64_t)g_spans, total = 0;
    for (int k = 0; k < NPROC; k++) {
        CHECK_EQ_U64(t.records[res[k].pid], res[k].recorded);
        CHECK_EQ_U64(drop_by_proc[k], res[k].dropped);
        CHECK_EQ_U64(res[k].recorded + res[k].dropped, emitted);
        total += res[k].recorded;
    }
    CHECK_EQ_U64(t.records_total, total);
    fprintf(stderr, "  %s: %llu lines, %llu records, %llu torn\n", what, (unsigned long long)lines,
            (unsigned long long)t.records_total, (unsigned long long)st->torn);
    stint_mparse_free(p);
    free(t.records);
}

static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap);
            REQUIRE(b != NULL);
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    *len = n;
    return b;
}

static pid_t g_pids[NPROC];

static void spawn_all(struct result *res, const char *markers_env, int pipe_wr)
{
    int rp[NPROC][2];
    pid_t *pids = g_pids;
    for (int k = 0; k < NPROC; k++) {
        REQUIRE(pipe(rp[k]) == 0);
        fflush(NULL);
        pids[k] = fork();
        REQUIRE(pids[k] >= 0);
        if (pids[k] == 0) {
            close(rp[k][0]);
            if (pipe_wr >= 0) {
                dup2(pipe_wr, 2); /* STINT_MARKERS=stderr: the shared pipe */
                close(pipe_wr);
            }
            setenv("STINT_MARKERS", markers_env, 1);
            setenv("STINT_EXIT_FLUSH_MS", "60000", 1); /* shutdown's bound, ample under sanitizers */
            child(rp[k][1]);
        }
        close(rp[k][1]);
    }
    for (int k = 0; k < NPROC; k++) {
        memset(&res[k], 0, sizeof res[k]);
        CHECK(read(rp[k][0], &res[k], sizeof res[k]) == (ssize_t)sizeof res[k]);
        close(rp[k][0]);
    }
    if (pipe_wr >= 0)
        close(pipe_wr);
}

static void reap(void)
{
    int status;
    for (int k = 0; k < NPROC; k++) {
        pid_t w = waitpid(g_pids[k], &status, 0);
        CHECK(w == g_pids[k] && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

int main(void)
{
    const char *env = getenv("STINT_LOAD_SPANS");
    g_spans = env ? atol(env) : (LOAD_TSAN ? 2000 : LOAD_SANITIZED ? 5000 : 50000);
    struct result res[NPROC];

    /* 1. one O_APPEND file */
    char path[128];
    snprintf(path, sizeof path, "/tmp/stint_load_procs_%d.log", (int)getpid());
    unlink(path);
    spawn_all(res, path, -1);
    reap();
    int fd = open(path, O_RDONLY);
    REQUIRE(fd >= 0);
    size_t len;
    char *buf = read_all(fd, &len);
    close(fd);
    unlink(path);
    check_log("O_APPEND file", buf, len, res);
    free(buf);

    /* 2. one pipe, read while the children write */
    int pp[2];
    REQUIRE(pipe(pp) == 0);
    pid_t reader = fork(); /* the reader must run while the children write */
    REQUIRE(reader >= 0);
    if (reader == 0) {
        close(pp[1]);
        char *b = read_all(pp[0], &len);
        char out[160];
        snprintf(out, sizeof out, "%s.pipe", path);
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(b, 1, len, f) != len)
            _exit(1);
        fclose(f);
        _exit(0);
    }
    close(pp[0]);
    spawn_all(res, "stderr", pp[1]);
    reap();
    int status;
    REQUIRE(waitpid(reader, &status, 0) == reader && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char out[160];
    snprintf(out, sizeof out, "%s.pipe", path);
    fd = open(out, O_RDONLY);
    REQUIRE(fd >= 0);
    buf = read_all(fd, &len);
    close(fd);
    unlink(out);
    check_log("shared pipe", buf, len, res);
    free(buf);
    CHECK_DONE();
}
