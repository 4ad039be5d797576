/* SPDX-License-Identifier: MIT */
/*
 * test_session.c - the JSONL session `stint/session/1`: the seed's cases
 * (nested spans, 8x8 f32 op, gradient round trip), LIFO mismatch, finish
 * with open spans, sticky error on /dev/full, capture_step 0, dtype sizes,
 * escaping, and a child killed with SIGKILL mid-session.
 */
#include "check.h"
#include "mini_json.h"

#include "stint/session.h"

#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char g_dir[256];

static const char *tmp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

/* Waits until CLOCK_MONOTONIC has moved, so durations are > 0 without sleeping. */
static void tick(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while (a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec);
}

/* The file's lines, each checked to be one JSON object. */
typedef struct lines {
    char *buf;
    size_t n;
    const char *line[4096];
    size_t len[4096];
    int bad;       /* complete lines that are not valid JSON objects */
    int torn_tail; /* the last line has no '\n' */
} lines;

static void read_lines(const char *path, lines *L)
{
    size_t len = 0;
    memset(L, 0, sizeof *L);
    L->buf = mj_slurp(path, &len);
    REQUIRE(L->buf != NULL);
    size_t i = 0;
    while (i < len) {
        char *nl = memchr(L->buf + i, '\n', len - i);
        if (!nl) {
            L->torn_tail = 1;
            break;
        }
        size_t n = (size_t)(nl - (L->buf + i));
        if (!mj_valid(L->buf + i, n) || L->buf[i] != '{')
            L->bad++;
        if (L->n < 4096) {
            L->line[L->n] = L->buf + i;
            L->len[L->n] = n;
        }
        L->n++;
        i += n + 1;
    }
}

static int kind_is(const lines *L, size_t i, const char *kind)
{
    char k[32];
    return mj_str(L->line[i], L->len[i], "kind", k, sizeof k) && strcmp(k, kind) == 0;
}

static stint_session *open_session(const char *name, const char *entry)
{
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = entry;
    stint_session *s = NULL;
    char err[256];
    stint_status st = stint_session_open(tmp_path(name), &o, &s, err, sizeof err);
    if (st)
        fprintf(stderr, "open: %s\n", err);
    REQUIRE(st == STINT_OK && s);
    return s;
}

static void test_nested_spans_and_op(void)
{
    stint_session *s = open_session("nested.jsonl", "model::forward");
    uint64_t outer = 0, inner = 0;
    CHECK(stint_session_measure_begin(s, "Model::forward", &outer) == STINT_OK);
    tick();
    CHECK(stint_session_span_begin(s, "matmul", STINT_SPAN_OP, STINT_STEP_FORWARD, &inner) == STINT_OK);
    tick();
    CHECK_EQ_U64(outer, 2);
    CHECK_EQ_U64(inner, 3);
    CHECK(stint_session_span_end(s, inner) == STINT_OK);
    CHECK(stint_session_span_end(s, outer) == STINT_OK);
    const char *inputs[] = {"a", "b"};
    uint64_t shape[] = {8, 8};
    stint_op_record op = STINT_OP_RECORD_INIT;
    op.span_id = inner;
    op.op_name = "matmul";
    op.inputs = inputs;
    op.ninputs = 2;
    op.output = "c";
    op.shape = shape;
    op.ndim = 2;
    op.dtype = "f32";
    op.duration_ns = 1200;
    CHECK(stint_session_op(s, &op) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);

    lines L;
    read_lines(tmp_path("nested.jsonl"), &L);
    CHECK_EQ_I64(L.bad, 0);
    CHECK_EQ_I64(L.torn_tail, 0);
    REQUIRE(L.n >= 1);
    CHECK(kind_is(&L, 0, "meta"));
    char v[128];
    CHECK(mj_str(L.line[0], L.len[0], "schema", v, sizeof v) && strcmp(v, "stint/session/1") == 0);
    CHECK(mj_str(L.line[0], L.len[0], "correlation_id", v, sizeof v) && strcmp(v, "model::forward/update-1") == 0);
    long long x = -1;
    CHECK(mj_i64(L.line[0], L.len[0], "warmup_steps", &x) && x == 0);
    CHECK(mj_i64(L.line[0], L.len[0], "clock_monotonic_ns", &x) && x > 0);
    CHECK(mj_i64(L.line[0], L.len[0], "clock_realtime_ns", &x) && x > 0);
    CHECK(mj_str(L.line[0], L.len[0], "timestamp", v, sizeof v) && strlen(v) == 24 && v[23] == 'Z');

    const char *want_names[] = {"model::forward", "Model::forward", "matmul"};
    const char *want_parent[] = {NULL, "s1", "s2"};
    int starts = 0, ends = 0, ops = 0, memory = 0;
    long long first_end_dur = -1;
    for (size_t i = 0; i < L.n; i++) {
        const char *ln = L.line[i];
        size_t n = L.len[i];
        if (kind_is(&L, i, "span_start")) {
            if (starts < 3) {
                CHECK(mj_str(ln, n, "name", v, sizeof v) && strcmp(v, want_names[starts]) == 0);
                if (want_parent[starts])
                    CHECK(mj_str(ln, n, "parent_id", v, sizeof v) && strcmp(v, want_parent[starts]) == 0);
                else
                    CHECK(!mj_str(ln, n, "parent_id", v, sizeof v));
            }
            starts++;
        } else if (kind_is(&L, i, "span_end")) {
            if (ends == 0)
                CHECK(mj_i64(ln, n, "duration_ns", &first_end_dur));
            ends++;
        } else if (kind_is(&L, i, "op")) {
            ops++;
            CHECK(mj_i64(ln, n, "storage_bytes", &x) && x == 256);
            CHECK(mj_str(ln, n, "span_id", v, sizeof v) && strcmp(v, "s3") == 0);
        } else if (kind_is(&L, i, "memory")) {
            memory++;
        }
    }
    CHECK_EQ_I64(starts, 3);
    CHECK_EQ_I64(ends, 3);
    CHECK(first_end_dur > 0);
    CHECK_EQ_I64(ops, 1);
    CHECK_EQ_I64(memory, 0); /* op metadata never fabricates a tensor lifetime */
    /* the measured region and the step */
    CHECK(strstr(L.line[2], "\"measured\":true") != NULL);
    CHECK(strstr(L.line[3], "\"step\":\"forward\"") != NULL);
    free(L.buf);
}

static void test_gradient_round_trip(void)
{
    stint_session *s = open_session("grad.jsonl", "train::loss");
    double norm = 0.42;
    CHECK(stint_session_gradient(s, "vb", "encoder.weight", STINT_GRAD_PRESENT, &norm) == STINT_OK);
    CHECK(stint_session_gradient(s, "vb", "decoder.bias", STINT_GRAD_MISSING, NULL) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    lines L;
    read_lines(tmp_path("grad.jsonl"), &L);
    CHECK_EQ_I64(L.bad, 0);
    int grads = 0;
    for (size_t i = 0; i < L.n; i++) {
        if (!kind_is(&L, i, "gradient"))
            continue;
        char v[64];
        const char *ln = L.line[i];
        size_t n = L.len[i];
        if (grads == 0) {
            CHECK(mj_str(ln, n, "key", v, sizeof v) && strcmp(v, "encoder.weight") == 0);
            CHECK(mj_str(ln, n, "root", v, sizeof v) && strcmp(v, "vb") == 0);
            CHECK(mj_str(ln, n, "state", v, sizeof v) && strcmp(v, "present") == 0);
            CHECK(mj_str(ln, n, "event_id", v, sizeof v) && strcmp(v, "gradient-1") == 0);
            const char *nv;
            size_t nn;
            REQUIRE(mj_find(ln, n, "norm", &nv, &nn));
            CHECK(strtod(nv, NULL) == 0.42);
        } else {
            CHECK(mj_str(ln, n, "state", v, sizeof v) && strcmp(v, "missing") == 0);
            const char *nv;
            size_t nn;
            CHECK(!mj_find(ln, n, "norm", &nv, &nn));
        }
        grads++;
    }
    CHECK_EQ_I64(grads, 2);
    free(L.buf);
}

static void test_lifo_mismatch(void)
{
    stint_session *s = open_session("lifo.jsonl", "lifo");
    uint64_t a, b;
    CHECK(stint_session_span_begin(s, "a", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &a) == STINT_OK);
    CHECK(stint_session_span_begin(s, "b", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &b) == STINT_OK);
    stint_session_stats before, after;
    stint_session_get_stats(s, &before);
    CHECK(stint_session_span_end(s, a) == STINT_E_SPAN_MISMATCH);
    const char *msg = stint_session_message(s);
    CHECK(strstr(msg, "`s2`") != NULL && strstr(msg, "`s3`") != NULL);
    stint_session_get_stats(s, &after);
    CHECK_EQ_U64(after.lines, before.lines); /* nothing written */
    CHECK(stint_session_span_end(s, 1) == STINT_E_STATE);
    CHECK(stint_session_span_end(s, b) == STINT_OK);
    CHECK(stint_session_span_end(s, a) == STINT_OK);
    CHECK(stint_session_span_end(s, a) == STINT_E_SPAN_MISMATCH); /* nothing open any more */
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    lines L;
    read_lines(tmp_path("lifo.jsonl"), &L);
    int ends = 0;
    for (size_t i = 0; i < L.n; i++)
        ends += kind_is(&L, i, "span_end");
    CHECK_EQ_I64(ends, 3);
    free(L.buf);
}

static void test_finish_with_open_spans(void)
{
    stint_session *s = open_session("open.jsonl", "open");
    uint64_t a, b;
    CHECK(stint_session_span_begin(s, "a", STINT_SPAN_MODULE, STINT_STEP_NONE, &a) == STINT_OK);
    CHECK(stint_session_span_begin(s, "b", STINT_SPAN_FUNCTION, STINT_STEP_BACKWARD, &b) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_E_SPANS_OPEN);
    CHECK(strstr(stint_session_message(s), "2 spans still open") != NULL);
    CHECK(stint_session_span_end(s, b) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_E_SPANS_OPEN);
    CHECK(strstr(stint_session_message(s), "1 span still open") != NULL);
    CHECK(stint_session_span_end(s, a) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_E_STATE);
    uint64_t c;
    CHECK(stint_session_span_begin(s, "late", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &c) == STINT_E_STATE);
    stint_session_free(s);
}

static void test_sticky_dev_full(void)
{
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "full";
    stint_session *s = NULL;
    char err[256];
    stint_status st = stint_session_open("/dev/full", &o, &s, err, sizeof err);
    if (st != STINT_OK) {
        printf("note: /dev/full cannot be opened here (%s); sticky test skipped\n", err);
        return;
    }
    uint64_t a;
    CHECK(stint_session_span_begin(s, "a", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &a) == STINT_OK); /* buffered */
    CHECK(stint_session_flush(s) == STINT_E_IO);
    const char *msg = stint_session_message(s);
    CHECK(strstr(msg, "/dev/full") != NULL && strstr(msg, "offset 0") != NULL);
    CHECK(stint_session_span_end(s, a) == STINT_E_IO);
    double norm = 1.0;
    CHECK(stint_session_gradient(s, "r", "k", STINT_GRAD_PRESENT, &norm) == STINT_E_IO);
    CHECK(stint_session_flush(s) == STINT_E_IO);
    CHECK(stint_session_finish(s) == STINT_E_IO);
    stint_session_free(s);

    /* the error also surfaces from an ordinary call once the buffer fills */
    CHECK(stint_session_open("/dev/full", &o, &s, err, sizeof err) == STINT_OK);
    stint_status first = STINT_OK;
    int calls = 0;
    for (; calls < 100000 && first == STINT_OK; calls++)
        first = stint_session_counter(s, "bytes", 1.0, "B");
    CHECK(first == STINT_E_IO);
    CHECK(stint_session_counter(s, "bytes", 1.0, "B") == STINT_E_IO);
    CHECK(stint_session_finish(s) == STINT_E_IO);
    stint_session_free(s);
}

static void test_open_errors(void)
{
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "x";
    o.capture_step = 0;
    stint_session *s = (stint_session *)&o; /* must be reset to NULL */
    char err[256];
    CHECK(stint_session_open(tmp_path("zero.jsonl"), &o, &s, err, sizeof err) == STINT_E_INVAL);
    CHECK(s == NULL);
    CHECK(strstr(err, "capture_step") != NULL);
    struct stat sb;
    CHECK(stat(tmp_path("zero.jsonl"), &sb) != 0); /* nothing created */
    o.capture_step = 1;
    CHECK(stint_session_open("/nonexistent-dir/x.jsonl", &o, &s, err, sizeof err) == STINT_E_IO);
    CHECK(strstr(err, "/nonexistent-dir/x.jsonl") != NULL);
    o.entrypoint = NULL;
    CHECK(stint_session_open(tmp_path("noentry.jsonl"), &o, &s, err, sizeof err) == STINT_E_INVAL);
}

static void test_meta_options_and_escaping(void)
{
    stint_tag tags[] = {{"zeta", "1"}, {"alpha", "a\"b"}, {"zeta", "2"}};
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "infer::decode";
    o.phase = STINT_PHASE_INFER;
    o.capture_step = 3;
    o.device = "npu:0";
    o.flags = STINT_SESSION_MEASURED_REGION_SYNC;
    o.tags = tags;
    o.ntags = 3;
    stint_session *s = NULL;
    REQUIRE(stint_session_open(tmp_path("meta.jsonl"), &o, &s, NULL, 0) == STINT_OK);
    uint64_t id;
    CHECK(stint_session_span_begin(s, "we\"ird\nname\x01\xff", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &id) ==
          STINT_OK);
    CHECK(stint_session_span_end(s, id) == STINT_OK);
    uint64_t shape[] = {2, 0, 3};
    stint_tensor_record t = STINT_TENSOR_RECORD_INIT;
    t.span_id = id;
    t.tensor_id = "t0";
    t.shape = shape;
    t.ndim = 3;
    t.dtype = "BF16";
    t.category = STINT_CATEGORY_PARAMETER;
    CHECK(stint_session_tensor(s, &t) == STINT_OK);
    t.span_id = 99;
    CHECK(stint_session_tensor(s, &t) == STINT_E_NOT_FOUND);
    stint_memory_record m = STINT_MEMORY_RECORD_INIT;
    m.span_id = id;
    m.tensor_id = "t0";
    m.bytes = 4096;
    m.dtype = "f32";
    CHECK(stint_session_memory(s, &m) == STINT_OK);
    CHECK(stint_session_device_memory(s, NULL, 10, 20, -1, 0) == STINT_OK);
    CHECK(stint_session_counter(s, "tokens", 12.5, "tok") == STINT_OK);
    CHECK(stint_session_counter(s, "bad", NAN, NULL) == STINT_E_INVAL);
    CHECK(stint_session_fork(s, 10, 11) == STINT_OK);
    CHECK(stint_session_dropped(s, 5, 7, 0, 0) == STINT_OK);
    uint64_t m1, m2;
    CHECK(stint_session_measure_begin(s, "m", &m1) == STINT_OK);
    CHECK(stint_session_measure_begin(s, "m2", &m2) == STINT_E_STATE);
    CHECK(stint_session_span_end(s, m1) == STINT_OK);
    stint_session_stats stats;
    stint_session_get_stats(s, &stats);
    CHECK_EQ_U64(stats.invalid_utf8, 1);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);

    lines L;
    read_lines(tmp_path("meta.jsonl"), &L);
    CHECK_EQ_I64(L.bad, 0);
    REQUIRE(L.n > 9);
    CHECK(strstr(L.line[0], "\"tags\":{\"alpha\":\"a\\\"b\",\"zeta\":\"2\"}") != NULL);
    CHECK(strstr(L.line[0], "\"phase\":\"infer\"") != NULL);
    CHECK(strstr(L.line[0], "\"warmup_steps\":2") != NULL);
    CHECK(strstr(L.line[0], "\"correlation_id\":\"infer::decode/update-3\"") != NULL);
    CHECK(strstr(L.line[0], "\"measured_region_device_synchronized\":true") != NULL);
    CHECK(strstr(L.line[0], "\"timing_mode\":\"host\"") != NULL);
    CHECK(strstr(L.line[2], "we\\\"ird\\nname\\u0001\xEF\xBF\xBD") != NULL);
    int tensor = 0, memory = 0, devmem = 0, counter = 0, fork_ = 0, dropped = 0;
    for (size_t i = 0; i < L.n; i++) {
        long long x;
        if (kind_is(&L, i, "tensor")) {
            tensor++;
            CHECK(mj_i64(L.line[i], L.len[i], "storage_bytes", &x) && x == 0); /* zero dimension */
            CHECK(strstr(L.line[i], "\"device\":\"npu:0\"") != NULL);
            CHECK(strstr(L.line[i], "\"category\":\"parameter\"") != NULL);
        }
        memory += kind_is(&L, i, "memory");
        devmem += kind_is(&L, i, "device_memory");
        counter += kind_is(&L, i, "counter");
        fork_ += kind_is(&L, i, "fork");
        dropped += kind_is(&L, i, "dropped");
    }
    CHECK(tensor == 1 && memory == 1 && devmem == 1 && counter == 1 && fork_ == 1 && dropped == 1);
    free(L.buf);
}

static void test_dtype_sizes(void)
{
    const char *one[] = {"u8", "i8", "bool", "f8", "BOOL"};
    const char *two[] = {"u16", "i16", "f16", "bf16", "BF16"};
    const char *four[] = {"u32", "i32", "f32", "F32"};
    const char *eight[] = {"u64", "i64", "f64", "I64"};
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ_U64(stint_dtype_size(one[i]), 1);
    for (size_t i = 0; i < 5; i++)
        CHECK_EQ_U64(stint_dtype_size(two[i]), 2);
    for (size_t i = 0; i < 4; i++)
        CHECK_EQ_U64(stint_dtype_size(four[i]), 4);
    for (size_t i = 0; i < 4; i++)
        CHECK_EQ_U64(stint_dtype_size(eight[i]), 8);
    CHECK_EQ_U64(stint_dtype_size("c64"), 0);
    CHECK_EQ_U64(stint_dtype_size("f32x"), 0);
    CHECK_EQ_U64(stint_dtype_size(NULL), 0);
    uint64_t s88[] = {8, 8};
    CHECK_EQ_U64(stint_storage_bytes(s88, 2, "f32", NULL), 256);
    CHECK_EQ_U64(stint_storage_bytes(NULL, 0, "f64", NULL), 8); /* scalar */
    uint64_t z[] = {4, 0};
    CHECK_EQ_U64(stint_storage_bytes(z, 2, "f32", NULL), 0);
    CHECK_EQ_U64(stint_storage_bytes(s88, 2, "complex", NULL), 0);
    uint64_t huge[] = {UINT64_MAX / 2, 4};
    int ovf = 0;
    CHECK_EQ_U64(stint_storage_bytes(huge, 2, "f32", &ovf), 0);
    CHECK_EQ_I64(ovf, 1);
}

/* A child writes spans and ops and flushes often; the parent kills it with
 * SIGKILL mid-stream. Every complete line of the file must parse. */
static void test_sigkill_prefix(void)
{
    const char *path = tmp_path("killed.jsonl");
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        stint_session_options o = STINT_SESSION_OPTIONS_INIT;
        o.entrypoint = "killed";
        stint_session *s = NULL;
        if (stint_session_open(path, &o, &s, NULL, 0) != STINT_OK)
            _exit(3);
        uint64_t shape[] = {16, 32};
        for (unsigned long i = 0;; i++) {
            uint64_t id;
            if (stint_session_span_begin(s, "step \"quoted\" name", STINT_SPAN_OP, STINT_STEP_FORWARD, &id))
                _exit(4);
            stint_op_record op = STINT_OP_RECORD_INIT;
            op.span_id = id;
            op.op_name = "add";
            op.shape = shape;
            op.ndim = 2;
            op.dtype = "f16";
            if (stint_session_op(s, &op) || stint_session_span_end(s, id))
                _exit(5);
            if (i % 97 == 0 && stint_session_flush(s))
                _exit(6);
        }
    }
    struct stat sb;
    for (int i = 0; i < 20000; i++) { /* at most ~20 s */
        if (stat(path, &sb) == 0 && sb.st_size > 300000)
            break;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            fprintf(stderr, "child exited early: %d\n", status);
            REQUIRE(0);
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    lines L;
    read_lines(path, &L);
    CHECK(L.n > 1000);
    CHECK_EQ_I64(L.bad, 0);
    CHECK(kind_is(&L, 0, "meta"));
    /* python3, when present, agrees: every complete line parses */
    if (system("command -v python3 >/dev/null 2>&1") == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys\n"
                 "d=open(sys.argv[1],\"rb\").read().split(b\"\\n\")\n"
                 "[json.loads(l) for l in d[:-1]]' %s",
                 path);
        CHECK(system(cmd) == 0);
    }
    free(L.buf);
}

/* Spans lost in thread buffers while the session is open become `dropped`
 * lines whose counts add up to the library's own count. */
static void test_dropped_from_library(void)
{
    stint_session *s = open_session("drops.jsonl", "drops");
    stint_stats before, after;
    stint_get_stats(&before);
    static const stint_loc loc = {"tiny", NULL, __FILE__, __func__, __LINE__};
    for (int i = 0; i < 5000; i++) /* a 4 KiB thread buffer (main) overflows */
        stint_span_end(stint_span_begin(&loc));
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&after);
    uint64_t lost = after.spans_dropped - before.spans_dropped;
    CHECK(lost > 0);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    lines L;
    read_lines(tmp_path("drops.jsonl"), &L);
    CHECK_EQ_I64(L.bad, 0);
    long long sum = 0, x;
    for (size_t i = 0; i < L.n; i++)
        if (kind_is(&L, i, "dropped") && mj_i64(L.line[i], L.len[i], "count", &x))
            sum += x;
    CHECK_EQ_U64((uint64_t)sum, lost);
    /* the root span_end comes last, after the drop reports */
    CHECK(kind_is(&L, L.n - 1, "span_end"));
    free(L.buf);
}

/* A program that exits without finishing still leaves its buffered lines
 * (the library's exit handler flushes the session). */
static void test_exit_without_finish(void)
{
    const char *path = tmp_path("exit.jsonl");
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        stint_session_options o = STINT_SESSION_OPTIONS_INIT;
        o.entrypoint = "exits";
        stint_session *s = NULL;
        uint64_t id;
        if (stint_session_open(path, &o, &s, NULL, 0) ||
            stint_session_span_begin(s, "left-open", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &id))
            _exit(3);
        exit(0); /* no finish, no flush */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    lines L;
    read_lines(path, &L);
    CHECK_EQ_I64(L.n, 3); /* meta, root, left-open */
    CHECK_EQ_I64(L.bad, 0);
    free(L.buf);
}

/* A forked child must not write into its parent's session. */
__attribute__((unused)) static void test_fork_child_does_not_write(void)
{
    stint_session *s = open_session("forked.jsonl", "forked");
    uint64_t a;
    CHECK(stint_session_span_begin(s, "before-fork", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &a) == STINT_OK);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        uint64_t b;
        int bad = stint_session_span_begin(s, "in-child", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &b) != STINT_E_STATE;
        bad |= stint_session_flush(s) != STINT_E_STATE;
        bad |= stint_session_finish(s) != STINT_E_STATE;
        stint_session_free(s);
        _exit(bad ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(stint_session_fork(s, (int32_t)getpid(), (int32_t)pid) == STINT_OK);
    CHECK(stint_session_span_end(s, a) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    lines L;
    read_lines(tmp_path("forked.jsonl"), &L);
    CHECK_EQ_I64(L.bad, 0);
    int starts = 0, forks = 0;
    for (size_t i = 0; i < L.n; i++) {
        starts += kind_is(&L, i, "span_start");
        forks += kind_is(&L, i, "fork");
    }
    CHECK_EQ_I64(starts, 2); /* root and before-fork, once each */
    CHECK_EQ_I64(forks, 1);
    CHECK(strstr(L.buf, "in-child") == NULL);
    free(L.buf);
}

/* The default correlation id keeps a long entrypoint whole (it was cut at 511 bytes). */
static void test_long_entrypoint_correlation(void)
{
    char entry[700];
    memset(entry, 'e', sizeof entry - 1);
    entry[sizeof entry - 1] = '\0';
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = entry;
    o.capture_step = 7;
    stint_session *s = NULL;
    char err[256];
    REQUIRE(stint_session_open(tmp_path("long_entry.jsonl"), &o, &s, err, sizeof err) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    lines L;
    read_lines(tmp_path("long_entry.jsonl"), &L);
    char want[720], got[800];
    snprintf(want, sizeof want, "%s/update-7", entry);
    CHECK(mj_str(L.line[0], L.len[0], "correlation_id", got, sizeof got) && strcmp(got, want) == 0);
    free(L.buf);
}

int main(void)
{
    setenv("STINT_BUFFER_KB", "4", 1); /* read at the library's first call */
    stint_markers_off();
    snprintf(g_dir, sizeof g_dir, "/tmp/stint_test_session_%d", (int)getpid());
    REQUIRE(mkdir(g_dir, 0755) == 0);
    test_nested_spans_and_op();
    test_gradient_round_trip();
    test_lifo_mismatch();
    test_finish_with_open_spans();
    test_sticky_dev_full();
    test_open_errors();
    test_meta_options_and_escaping();
    test_long_entrypoint_correlation();
    test_dtype_sizes();
    test_sigkill_prefix();
    test_exit_without_finish();
    test_dropped_from_library();
#if CHECK_TSAN
    /* the child inherits the library's writer, which ThreadSanitizer cannot
     * follow across a multi-threaded fork; plain and ASan runs cover it */
    printf("note: fork test not run under ThreadSanitizer\n");
#else
    test_fork_child_does_not_write();
#endif
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", g_dir);
    CHECK_DONE();
}
