/* SPDX-License-Identifier: MIT */
/*
 * test_load_session.c - a JSONL session (stint/session/1) killed with SIGKILL
 * at 20 random moments, then read back.
 *
 * A child opens a session and writes nested spans, ops, memory records and
 * counters as fast as it can, flushing now and then; once its first lines are
 * on disk it tells the parent, which waits a random 0-30 ms (seeded, so a
 * failure can be replayed with STINT_LOAD_SEED) and kills it. For each file:
 *   - every complete line ('\n'-terminated) is valid JSON with "kind" first;
 *   - the JSONL reader (stint_read_trace) never fails on it: exit 0, no
 *     error, one torn-record repair exactly when the file ends without '\n',
 *     the unfinished spans counted, and one slice per complete span_start
 *     line;
 *   - the same file cut at a random byte (a torn tail made for sure) reads
 *     with the torn tail reported, never as an error.
 */
#include "check.h"
#include "read/json.h"
#include "model/model.h"
#include "read/readers.h"
#include "stint/session.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { TRIALS = 20 };

static void writer_child(const char *path, int ready_fd)
{
    stint_session_options opt = STINT_SESSION_OPTIONS_INIT;
    opt.entrypoint = "killed::run";
    stint_session *s = NULL;
    char err[512];
    if (stint_session_open(path, &opt, &s, err, sizeof err) != STINT_OK)
        _exit(2);
    if (stint_session_flush(s) != STINT_OK)
        _exit(3);
    char one = 1;
    if (write(ready_fd, &one, 1) != 1)
        _exit(4);
    static const char *const inputs[] = {"x", "w"};
    static const uint64_t shape[] = {16, 256};
    for (uint64_t i = 0;; i++) {
        uint64_t outer, inner;
        if (stint_session_span_begin(s, "layer", STINT_SPAN_MODULE, STINT_STEP_FORWARD, &outer) != STINT_OK)
            _exit(5);
        if (stint_session_span_begin(s, "matmul", STINT_SPAN_OP, STINT_STEP_FORWARD, &inner) != STINT_OK)
            _exit(5);
        stint_op_record op = STINT_OP_RECORD_INIT;
        op.span_id = inner;
        op.op_name = "matmul \"quoted\" \xc3\xa9";
        op.inputs = inputs;
        op.ninputs = 2;
        op.output = "y";
        op.shape = shape;
        op.ndim = 2;
        op.dtype = "f32";
        op.duration_ns = (int64_t)i;
        if (stint_session_op(s, &op) != STINT_OK)
            _exit(10);
        stint_memory_record mr = STINT_MEMORY_RECORD_INIT;
        mr.span_id = inner;
        mr.tensor_id = "y";
        mr.bytes = 16384;
        mr.dtype = "f32";
        mr.action = (i & 1) ? STINT_MEM_FREE : STINT_MEM_ALLOC;
        if (stint_session_memory(s, &mr) != STINT_OK)
            _exit(11);
        if (stint_session_counter(s, "loss", 1.0 / (double)(i + 1), "nats") != STINT_OK)
            _exit(12);
        if (stint_session_span_end(s, inner) != STINT_OK || stint_session_span_end(s, outer) != STINT_OK)
            _exit(7);
        if (i % 64 == 0 && stint_session_flush(s) != STINT_OK)
            _exit(8);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Checks the complete lines of buf[0..len); returns how many span_start
 * lines, and in *ends how many span_end lines. */
static uint64_t check_lines(const char *buf, size_t len, uint64_t *complete, uint64_t *ends)
{
    uint64_t starts = 0;
    *ends = 0;
    *complete = 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break; /* the torn tail */
        size_t off;
        const char *msg;
        int ok = stint_json_validate(p, (size_t)(nl - p), 0, &off, &msg) == 0;
        if (!ok)
            fprintf(stderr, "line %llu invalid at %zu: %s\n", (unsigned long long)*complete + 1, off, msg);
        CHECK(ok);
        CHECK(nl - p > 8 && memcmp(p, "{\"kind\":", 8) == 0);
        if (nl - p > 21 && memcmp(p, "{\"kind\":\"span_start\"", 20) == 0)
            starts++;
        if (nl - p > 19 && memcmp(p, "{\"kind\":\"span_end\"", 18) == 0)
            (*ends)++;
        (*complete)++;
        p = nl + 1;
    }
    return starts;
}

static void check_read(const char *path, const char *buf, size_t len, const char *what)
{
    uint64_t complete, ends;
    uint64_t starts = check_lines(buf, len, &complete, &ends);
    int torn = len > 0 && buf[len - 1] != '\n';
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    struct stint_read_opts o = {.format = "jsonl", .quiet = 1};
    int rc = stint_read_trace(path, &m, &o);
    if (rc != 0 || m.error)
        fprintf(stderr, "%s: %zu bytes, rc %d: %s\n", what, len, rc, m.error ? m.error : "");
    CHECK(rc == 0 && m.error == NULL);
    CHECK_EQ_U64(m.repairs[STINT_REPAIR_TORN_RECORD], torn);
    CHECK_EQ_U64(m.slices.len, starts);
    CHECK_EQ_U64(m.repairs[STINT_REPAIR_UNFINISHED], starts - ends); /* s1 at least, if it is there */
    uint64_t lost = m.lost;
    stint_model_free(&m);
    /* --strict turns the same repairs, drops (a torn line) and losses into exit 1 with a
     * message, still no crash */
    REQUIRE(stint_model_init(&m, 0) == 0);
    o.strict = STINT_STRICT_ALL;
    rc = stint_read_trace(path, &m, &o);
    CHECK(rc == (torn || starts > ends || lost ? 1 : 0));
    stint_model_free(&m);
}

int main(void)
{
    const char *seed_env = getenv("STINT_LOAD_SEED");
    unsigned seed = seed_env ? (unsigned)atoi(seed_env) : (unsigned)time(NULL);
    fprintf(stderr, "seed %u (STINT_LOAD_SEED=%u replays it)\n", seed, seed);
    srand(seed);
    char path[128], cut[160];
    snprintf(path, sizeof path, "/tmp/stint_killed_%d.jsonl", (int)getpid());
    snprintf(cut, sizeof cut, "%s.cut", path);
    int torn_seen = 0;
    for (int t = 0; t < TRIALS; t++) {
        int rp[2];
        REQUIRE(pipe(rp) == 0);
        fflush(NULL);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(rp[0]);
            writer_child(path, rp[1]);
        }
        close(rp[1]);
        char one;
        REQUIRE(read(rp[0], &one, 1) == 1); /* the meta line is on disk */
        close(rp[0]);
        struct timespec d = {0, (long)(rand() % 30000) * 1000L};
        nanosleep(&d, NULL);
        kill(pid, SIGKILL);
        int status;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        if (!WIFSIGNALED(status))
            fprintf(stderr, "writer exited by itself with %d\n", WEXITSTATUS(status));
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        size_t len;
        char *buf = slurp(path, &len);
        REQUIRE(buf != NULL && len > 0);
        torn_seen += buf[len - 1] != '\n';
        check_read(path, buf, len, "killed");
        /* a torn tail for sure: cut at a random byte after the meta line */
        const char *nl = memchr(buf, '\n', len);
        size_t first = nl ? (size_t)(nl - buf) + 1 : len;
        size_t at = first + (len > first ? (size_t)rand() % (len - first) : 0);
        FILE *f = fopen(cut, "wb");
        REQUIRE(f != NULL);
        REQUIRE(fwrite(buf, 1, at, f) == at);
        fclose(f);
        check_read(cut, buf, at, "cut");
        free(buf);
    }
    fprintf(stderr, "%d trials, %d killed mid-line\n", TRIALS, torn_seen);
    unlink(path);
    unlink(cut);
    CHECK_DONE();
}
