/* SPDX-License-Identifier: MIT */
/*
 * test_markers_parse.c - the streaming [STRACE] parser: grammar, glued and
 * torn records, line endings, chunk boundaries, counters and attrs access;
 * libstint's loss lines ([STINT] v=1 dropped).
 * The rendered upstream cases are checked from inline copies of their lines
 * (the grammar cases) and, when the corpus is present, from the files.
 */
#include "check.h"
#include "read/markers_parse.h"

#include <fcntl.h>
#include <unistd.h>

#define MAXREC 64

struct got {
    int n;
    struct stint_mparse_record r[MAXREC];
    char name[MAXREC][128];
    char attrs[MAXREC][128];
    char hid[MAXREC][64];
    int dev[MAXREC]; /* stint_mparse_is_device, taken while the record is valid */
    int torn;
    uint64_t torn_off[MAXREC];
    uint64_t torn_line[MAXREC];
    const char *torn_why[MAXREC];
    int nloss;
    struct stint_mparse_loss loss[MAXREC];
};

static void copy(char *dst, size_t cap, struct stint_mparse_text t)
{
    size_t n = t.len < cap - 1 ? t.len : cap - 1;
    memcpy(dst, t.ptr, n);
    dst[n] = 0;
}

static int on_rec(void *ctx, const struct stint_mparse_record *r)
{
    struct got *g = ctx;
    if (g->n < MAXREC) {
        g->r[g->n] = *r;
        copy(g->name[g->n], sizeof g->name[0], r->name);
        copy(g->attrs[g->n], sizeof g->attrs[0], r->attrs);
        copy(g->hid[g->n], sizeof g->hid[0], r->hid_text);
        g->dev[g->n] = stint_mparse_is_device(r);
    }
    g->n++;
    return 0;
}

static void on_torn(void *ctx, uint64_t off, uint64_t line, const char *why)
{
    struct got *g = ctx;
    if (g->torn < MAXREC) {
        g->torn_off[g->torn] = off;
        g->torn_line[g->torn] = line;
        g->torn_why[g->torn] = why;
    }
    g->torn++;
}

/* Feeds `s` to a parser made with o, in pieces of `step` bytes (0: all at
 * once); returns its counters. */
static struct stint_mparse_stats feed_all(const struct stint_mparse_options *o, const char *s, size_t step)
{
    struct stint_mparse *p = stint_mparse_new(o);
    REQUIRE(p);
    size_t n = strlen(s);
    if (!step)
        step = n ? n : 1;
    for (size_t i = 0; i < n; i += step)
        CHECK(stint_mparse_feed(p, s + i, n - i < step ? n - i : step) == 0);
    CHECK(stint_mparse_finish(p) == 0);
    struct stint_mparse_stats st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    return st;
}

/* Parses `s` fed in pieces of `step` bytes (0: all at once). */
static struct stint_mparse_stats parse(const char *s, size_t step, struct got *g, int lines)
{
    memset(g, 0, sizeof *g);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_rec;
    o.on_torn = on_torn;
    o.ctx = g;
    o.count_lines = lines;
    return feed_all(&o, s, step);
}

/* Parses all of fd (stint_mparse_read_fd) into *g; returns the counters. */
static struct stint_mparse_stats parse_fd(int fd, struct got *g)
{
    memset(g, 0, sizeof *g);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_rec;
    o.ctx = g;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p);
    CHECK(stint_mparse_read_fd(p, fd) == 0);
    struct stint_mparse_stats st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    return st;
}

#define PFX "[2026-08-04 10:00:00.000001][T0x1][TIMING] emit_span: [strace.h:132] "
#define PFX2 "[2026-08-04 10:00:00.000002][T0x2][TIMING] emit_span: [strace.h:132] "

static void test_basic(void)
{
    struct got g;
    struct stint_mparse_stats st = parse("noise line\n" PFX "[STRACE] v=1 pid=4242 tid=4243 inv=7 hid=9F3a2c1b7e6d5a40 "
                             "depth=2 name=simpler_run.bind.args ts=8100000060000 dur=360000 \n",
                             0, &g, 1);
    CHECK_EQ_I64(g.n, 1);
    CHECK_EQ_U64(st.heads, 1);
    CHECK_EQ_U64(st.records, 1);
    CHECK_EQ_U64(st.torn, 0);
    CHECK_EQ_U64(g.r[0].v, 1);
    CHECK_EQ_U64(g.r[0].pid, 4242);
    CHECK_EQ_U64(g.r[0].tid, 4243);
    CHECK_EQ_U64(g.r[0].inv, 7);
    CHECK_EQ_U64(g.r[0].hid, 0x9f3a2c1b7e6d5a40ull);
    CHECK_EQ_I64(g.r[0].hid_wide, 0);
    CHECK_STR(g.hid[0], "9F3a2c1b7e6d5a40");
    CHECK_EQ_U64(g.r[0].depth, 2);
    CHECK_STR(g.name[0], "simpler_run.bind.args");
    CHECK_EQ_I64(g.r[0].ts_ns, 8100000060000);
    CHECK_EQ_I64(g.r[0].dur_ns, 360000);
    CHECK_STR(g.attrs[0], "");
    CHECK_EQ_U64(g.r[0].line, 2);
    CHECK_EQ_U64(g.r[0].offset, strlen("noise line\n" PFX));
}

/* Upstream: two records on one physical line give two spans with their own attrs. */
static void test_adjacent(void)
{
    struct got g;
    struct stint_mparse_stats st =
        parse(PFX "[STRACE] v=1 pid=1 tid=1 inv=1 hid=abc depth=0 name=simpler_run ts=100 dur=20 rank=0" PFX2
                  "[STRACE] v=1 pid=2 tid=2 inv=2 hid=abc depth=0 name=simpler_run.runner_run.device_wall "
                  "ts=100 dur=20 clk=dev rank=1\n",
              0, &g, 0);
    CHECK_EQ_I64(g.n, 2);
    CHECK_EQ_U64(st.heads, 2);
    CHECK_EQ_U64(g.r[0].pid, 1);
    CHECK_EQ_U64(g.r[0].inv, 1);
    CHECK_STR(g.name[0], "simpler_run");
    CHECK_STR(g.attrs[0], "rank=0");
    CHECK_EQ_U64(g.r[1].pid, 2);
    CHECK_EQ_U64(g.r[1].inv, 2);
    CHECK_STR(g.name[1], "simpler_run.runner_run.device_wall");
    CHECK_STR(g.attrs[1], "clk=dev rank=1");
    CHECK(!g.dev[0]);
    CHECK(g.dev[1]);

    /* The later upstream prefix ([mono_ns=..]) and a bare glued record. */
    parse("[mono_ns=1][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=1 tid=1 inv=1 hid=abc depth=0 "
          "name=chip.run ts=100 dur=100000 [mono_ns=1000001][T0x1][TIMING] emit_host_span: [STRACE] v=1 "
          "pid=1 tid=1 inv=1 hid=abc depth=2 name=chip.run.runner_run.device_wall ts=100 dur=20000 clk=dev\n"
          "[STRACE] v=1 pid=3 tid=3 inv=3 hid=a depth=0 name=x ts=1 dur=2 k=v[STRACE] v=1 pid=4 tid=4 "
          "inv=4 hid=b depth=0 name=y ts=3 dur=4\n",
          0, &g, 0);
    CHECK_EQ_I64(g.n, 4);
    CHECK_STR(g.attrs[0], "");
    CHECK_STR(g.attrs[1], "clk=dev");
    CHECK_EQ_I64(g.r[1].dur_ns, 20000);
    CHECK_STR(g.attrs[2], "k=v");
    CHECK_EQ_U64(g.r[3].pid, 4);
}

/* Upstream: a multi-line blob gives every record. */
static void test_blob_and_line_ends(void)
{
    struct got g;
    parse(PFX "[STRACE] v=1 pid=1 tid=1 inv=1 hid=abc depth=0 name=simpler_run ts=100 dur=20 rank=0\n" PFX2
              "[STRACE] v=1 pid=2 tid=2 inv=2 hid=abc depth=0 name=simpler_run.bind ts=100 dur=20 rank=1\n",
          0, &g, 0);
    CHECK_EQ_I64(g.n, 2);
    CHECK_STR(g.name[0], "simpler_run");
    CHECK_STR(g.attrs[0], "rank=0");
    CHECK_STR(g.name[1], "simpler_run.bind");
    CHECK_STR(g.attrs[1], "rank=1");

    /* CRLF, a lone CR (tqdm style) and no final newline. */
    struct stint_mparse_stats st = parse("[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2 x=1 \r\n"
                             "50%|###  |\r[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=b ts=1 dur=3 y=2\rtail\r\n"
                             "[STRACE] v=1 pid=1 tid=1 inv=3 hid=a depth=0 name=c ts=1 dur=4 z=3",
                             0, &g, 1);
    CHECK_EQ_I64(g.n, 3);
    CHECK_STR(g.attrs[0], "x=1");
    CHECK_STR(g.attrs[1], "y=2");
    CHECK_STR(g.attrs[2], "z=3");
    CHECK_EQ_I64(g.r[2].dur_ns, 4);
    CHECK_EQ_U64(g.r[2].line, 3);
    CHECK_EQ_U64(st.bytes, strlen("[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2 x=1 \r\n"
                                  "50%|###  |\r[STRACE] v=1 pid=1 tid=1 inv=2 hid=a depth=0 name=b ts=1 "
                                  "dur=3 y=2\rtail\r\n[STRACE] v=1 pid=1 tid=1 inv=3 hid=a depth=0 name=c "
                                  "ts=1 dur=4 z=3"));
    /* A line break inside a record tears it. */
    st = parse("[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a\nts=1 dur=2\n", 0, &g, 1);
    CHECK_EQ_I64(g.n, 0);
    CHECK_EQ_U64(st.torn, 1);
    CHECK_EQ_U64(g.torn_line[0], 1);
}

/* Upstream: an intact record plus a copy cut before ` ts=`: 2 heads, 1 span. */
static void test_torn(void)
{
    struct got g;
    struct stint_mparse_stats st =
        parse(PFX "[STRACE] v=1 pid=1 tid=1 inv=1 hid=abc depth=0 name=simpler_run ts=100 dur=20 rank=0\n" PFX
                  "[STRACE] v=1 pid=1 tid=1 inv=1 hid=abc depth=0 name=simpler_run\n",
              0, &g, 1);
    CHECK_EQ_I64(g.n, 1);
    CHECK_EQ_U64(st.heads, 2);
    CHECK_EQ_U64(st.records, 1);
    CHECK_EQ_U64(st.torn, 1);
    CHECK_EQ_I64(g.torn, 1);
    CHECK_STR(g.torn_why[0], "ts=");
    CHECK_EQ_U64(g.torn_line[0], 2);

    /* Near misses: not heads at all, or heads that never complete. */
    st = parse("[STRACE] disabled: SIMPLER_TRACE=0 in environment of pid=1\n"
               "[STRACE]v=1 pid=1 tid=2 inv=3 malformed spacing\n"
               "STRACE v=1 pid=1 tid=1 inv=1 (marker emitted without brackets)\n"
               "[STRACE] v=2 pid=1 tid=2 inv=3 schema=next fields=ts,dur,name\n"
               "[STRACE] v=1 pid=1 tid=1 inv=1 hid=xyz depth=0 name=a ts=1 dur=2\n"
               "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=-1 dur=2\n"
               "[STRACE] v=1 pid=1x tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2\n",
               0, &g, 0);
    CHECK_EQ_I64(g.n, 0);
    CHECK_EQ_U64(st.heads, 4);
    CHECK_EQ_U64(st.torn, 3);    /* the v=2 line is another format's, not a cut record: */
    CHECK_EQ_U64(st.foreign, 1); /* counted apart */
}

static void test_numbers(void)
{
    struct got g;
    struct stint_mparse_stats st = parse("[STRACE] v=2 pid=1 tid=1 inv=18446744073709551615 hid=00000000000000000abcdef "
                             "depth=0 name=a ts=4611686018427387903 dur=0\n"
                             "[STRACE] v=1 pid=18446744073709551616 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2\n"
                             "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=9223372036854775808 dur=2\n"
                             "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=4611686018427387904 dur=1\n"
                             "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=4611686018427387904\n"
                             "[STRACE] v=1 pid=1 tid=1 inv=1 hid=1234567890abcdef12 depth=0 name=a ts=1 dur=2\n",
                             0, &g, 0);
    CHECK_EQ_I64(g.n, 2);
    CHECK_EQ_U64(g.r[0].v, 2);
    CHECK_EQ_U64(g.r[0].inv, UINT64_MAX);
    CHECK_EQ_U64(g.r[0].hid, 0xabcdef);
    CHECK_EQ_I64(g.r[0].hid_wide, 0);
    CHECK_EQ_I64(g.r[0].ts_ns, ((int64_t)1 << 62) - 1); /* the kept range's end (STINT_TS_LIMIT) */
    CHECK_EQ_I64(g.r[1].hid_wide, 1);
    CHECK_EQ_U64(g.r[1].hid, 0x34567890abcdef12ull);
    CHECK_EQ_U64(st.unknown_version, 1);
    /* pid too wide; ts too wide; ts + dur past the kept range (twice) */
    CHECK_EQ_U64(st.overflow, 4);
    CHECK_EQ_U64(st.torn, 4);
    CHECK_EQ_U64(st.heads, 6);
}

/* Every split point and piece size gives the same records. */
/* Hids and numbers of every length, through the wide and the byte paths. */
static void test_number_widths(void)
{
    static const char *hids[] = {"ABCDEF0123456789", "fedcba9876543210", "0000000000000001", "a", "0",
                                 "123456789abcdef", "00000000000000000001f"};
    static const uint64_t want[] = {0xabcdef0123456789ull, 0xfedcba9876543210ull, 1, 0xa, 0, 0x123456789abcdefull,
                                    0x1f};
    for (int tail = 0; tail < 2; tail++)
        for (size_t i = 0; i < sizeof hids / sizeof hids[0]; i++) {
            char line[256];
            snprintf(line, sizeof line, "[STRACE] v=1 pid=1 tid=1 inv=1 hid=%s depth=0 name=a ts=1 dur=2%s", hids[i],
                     tail ? " k=v                    \n" : "");
            struct got g;
            parse(line, 0, &g, 0);
            CHECK_EQ_I64(g.n, 1);
            CHECK_EQ_U64(g.r[0].hid, want[i]);
            CHECK_STR(g.hid[0], hids[i]);
            CHECK_EQ_I64(g.r[0].hid_wide, 0);
        }
    uint64_t v = 0;
    for (int digits = 1; digits <= 19; digits++) {
        v = v * 10 + (uint64_t)(digits % 10);
        char num[32], line[256];
        snprintf(num, sizeof num, "%llu", (unsigned long long)v);
        for (int tail = 0; tail < 2; tail++) {
            snprintf(line, sizeof line, "[STRACE] v=1 pid=%s tid=1 inv=%s hid=a depth=0 name=a ts=%s dur=%s%s", num,
                     num, digits < 19 ? num : "5", digits < 19 ? num : "7", tail ? " pad=xxxxxxxxxxxxxxxxxxxx\n" : "");
            struct got g;
            parse(line, 0, &g, 0);
            CHECK_EQ_I64(g.n, 1);
            CHECK_EQ_U64(g.r[0].pid, v);
            CHECK_EQ_U64(g.r[0].inv, v);
            if (digits < 19)
                CHECK_EQ_I64(g.r[0].ts_ns, (int64_t)v);
        }
    }
}

static void test_chunking(void)
{
    const char *s = "junk [STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2 k=1\r\n"
                    "[x][y] f: [STRACE] v=1 pid=2 tid=2 inv=2 hid=b depth=1 name=b.c ts=3 dur=4 clk=dev\n"
                    "[STRACE] v=1 pid=3 tid=3 inv=3 hid=c depth=0 name=d\n"
                    "[STRACE] v=1 pid=4 tid=4 inv=4 hid=d depth=0 name=e ts=5 dur=6";
    struct got whole, g;
    struct stint_mparse_stats w = parse(s, 0, &whole, 1);
    CHECK_EQ_I64(whole.n, 3);
    CHECK_EQ_U64(w.torn, 1);
    for (size_t step = 1; step < 40; step++) {
        struct stint_mparse_stats st = parse(s, step, &g, 1);
        CHECK_EQ_I64(g.n, whole.n);
        CHECK_EQ_U64(st.torn, w.torn);
        for (int i = 0; i < g.n && i < whole.n; i++) {
            CHECK_STR(g.name[i], whole.name[i]);
            CHECK_STR(g.attrs[i], whole.attrs[i]);
            CHECK_EQ_U64(g.r[i].offset, whole.r[i].offset);
            CHECK_EQ_U64(g.r[i].line, whole.r[i].line);
            CHECK_EQ_I64(g.r[i].dur_ns, whole.r[i].dur_ns);
        }
    }
    CHECK_STR(whole.attrs[0], "k=1");
    CHECK_STR(whole.attrs[1], "clk=dev");
    CHECK_EQ_U64(whole.r[2].line, 4);
}

/* A line longer than the parser's chunk, records after it, via read_fd. */
static void test_long_line_fd(void)
{
    size_t big = 3u << 20;
    char path[] = "/tmp/stint_markers_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    char *noise = malloc(big);
    REQUIRE(noise);
    memset(noise, 'x', big);
    const char *rec = "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2 q=1\n";
    for (int i = 0; i < 3; i++) {
        CHECK(write(fd, rec, strlen(rec)) == (ssize_t)strlen(rec));
        CHECK(write(fd, noise, big) == (ssize_t)big);
        CHECK(write(fd, rec, strlen(rec)) == (ssize_t)strlen(rec));
    }
    free(noise);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    static struct got g;
    struct stint_mparse_stats st = parse_fd(fd, &g);
    CHECK_EQ_I64(g.n, 6);
    CHECK_STR(g.attrs[1], "q=1");
    CHECK_EQ_U64(g.r[1].offset, strlen(rec) + big);
    CHECK_EQ_U64(st.bytes, 3 * (2 * strlen(rec) + big));
    close(fd);
    unlink(path);
}

static int stop_after_one(void *ctx, const struct stint_mparse_record *r)
{
    (void)r;
    (*(int *)ctx)++;
    return 42;
}

static void test_stop_and_options(void)
{
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    CHECK(stint_mparse_new(&o) == NULL);
    int n = 0;
    o.on_record = stop_after_one;
    o.ctx = &n;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p);
    const char *s = "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2\n"
                    "[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=a ts=1 dur=2\n";
    CHECK_EQ_I64(stint_mparse_feed(p, s, strlen(s)), 42);
    CHECK_EQ_I64(stint_mparse_feed(p, s, strlen(s)), 42);
    CHECK_EQ_I64(stint_mparse_finish(p), 42);
    CHECK_EQ_I64(n, 1);
    stint_mparse_free(p);
    stint_mparse_free(NULL);
}

static void test_attrs(void)
{
    struct stint_mparse_text a = {"ntensor=4  clk=dev flag k=a=b empty=", strlen("ntensor=4  clk=dev flag k=a=b empty=")};
    struct stint_mparse_text k, v, cur = a;
    const char *keys[] = {"ntensor", "clk", "flag", "k", "empty"};
    const char *vals[] = {"4", "dev", NULL, "a=b", ""};
    for (int i = 0; i < 5; i++) {
        REQUIRE(stint_mparse_attr_next(&cur, &k, &v));
        CHECK(stint_mparse_text_eq(k, keys[i]));
        if (vals[i])
            CHECK(v.ptr && stint_mparse_text_eq(v, vals[i]));
        else
            CHECK(v.ptr == NULL);
    }
    CHECK(!stint_mparse_attr_next(&cur, &k, &v));
    CHECK(stint_mparse_attr_get(a, "clk", &v) && stint_mparse_text_eq(v, "dev"));
    CHECK(!stint_mparse_attr_get(a, "flag", &v));
    CHECK(!stint_mparse_attr_get(a, "cl", &v));
    struct stint_mparse_text empty = {"", 0};
    CHECK(!stint_mparse_attr_next(&empty, &k, &v));
}

/* The rendered upstream files, read in place. */
static int test_corpus(void)
{
    SKIP_WITHOUT_CORPUS(corpus);
    static const struct {
        const char *file;
        int spans;
        int heads;
    } cases[] = {
        {"test_strace_timing@c9ccaf653.adjacent_records_one_line.log", 2, 2},
        {"test_strace_timing@c9ccaf653.multi_line_blob.log", 2, 2},
        {"test_strace_timing@c9ccaf653.torn_record.log", 1, 2},
        {"test_strace_timing@6ebaf7715.rounds_table_host_device_only.log", 4, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%.4000s/seed-systems/hw-native-sys_simpler/tests/ut/py/%s", corpus, cases[i].file);
        int fd = open(path, O_RDONLY);
        REQUIRE(fd >= 0);
        static struct got g;
        struct stint_mparse_stats st = parse_fd(fd, &g);
        CHECK_EQ_I64(g.n, cases[i].spans);
        CHECK_EQ_U64(st.heads, (uint64_t)cases[i].heads);
        if (i == 0) {
            CHECK_STR(g.attrs[0], "rank=0");
            CHECK_STR(g.attrs[1], "clk=dev rank=1");
        }
        close(fd);
    }
    return 0;
}

/* Loss lines, collected by on_loss into the got's losses. */
static int on_loss_cb(void *ctx, const struct stint_mparse_loss *l)
{
    struct got *g = ctx;
    if (g->nloss < MAXREC)
        g->loss[g->nloss] = *l;
    g->nloss++;
    return 0;
}

/* Parses s in pieces of step bytes (0: at once), lines counted, with on_loss
 * set (want) or not. */
static struct stint_mparse_stats parse_losses(const char *s, size_t step, struct got *g, int want)
{
    memset(g, 0, sizeof *g);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_rec;
    o.on_loss = want ? on_loss_cb : NULL;
    o.ctx = g;
    o.count_lines = 1;
    return feed_all(&o, s, step);
}

static void test_losses(void)
{
    static const char log[] =
        "[STRACE] v=1 pid=1 tid=2 inv=1 hid=ff depth=1 name=a ts=10 dur=5 k=v\n"           /* line 1 */
        "[STINT] v=1 dropped pid=1 tid=2 count=7 first_ts=100 last_ts=900\n"               /* 2: read */
        PFX "[STINT] v=1 dropped pid=3 tid=4 count=18446744073709551615 first_ts=0 last_ts=0\r\n" /* 3 */
        "[STINT] v=1 dropped pid=1 tid=2 count=7 first_ts=100\n"                           /* 4: cut */
        "[STINT] v=2 dropped pid=1 tid=2 count=7 first_ts=1 last_ts=2\n"                   /* 5: v */
        "[STINT] v=1 dropped pid=1 tid=2 count=7 first_ts=1 last_ts=2x\n"                  /* 6: bad end */
        "[STINT] v=1 dropped pid=1 tid=2 count=7 first_ts=4611686018427387904 last_ts=1\n" /* 7: too wide */
        "[STINT] hello [STINT] v=1 droppedx [STINT]v=1 dropped\n"                          /* 8: none */
        "[STRACE] v=1 pid=1 tid=2 inv=1 hid=ff depth=1 name=b ts=20 dur=5 x=[STINT] v=1 dropped pid=1 tid=2 "
        "count=1 first_ts=1 last_ts=2\n" /* 9: inside a record's attrs: an attr, no loss line */
        "[STINT] v=1 dropped pid=5 tid=6 count=1 first_ts=-5 last_ts=7"; /* 10: at the input's end */
    static const size_t steps[] = {0, 1, 3, 17};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        struct got g;
        struct stint_mparse_stats st = parse_losses(log, steps[k], &g, 1);
        CHECK_EQ_I64(g.n, 2);
        CHECK_STR(g.name[0], "a");
        CHECK_STR(g.attrs[0], "k=v");
        CHECK_STR(g.name[1], "b");
        CHECK_STR(g.attrs[1], "x=[STINT] v=1 dropped pid=1 tid=2 count=1 first_ts=1 last_ts=2");
        CHECK_EQ_U64(st.heads, 2);
        CHECK_EQ_U64(st.torn, 0);
        CHECK_EQ_I64(g.nloss, 7);
        CHECK_EQ_U64(st.losses, 7);
        CHECK_EQ_U64(st.bad_losses, 4);
        if (g.nloss != 7)
            continue;
        CHECK_EQ_I64(g.loss[0].ok, 1);
        CHECK_EQ_U64(g.loss[0].pid, 1);
        CHECK_EQ_U64(g.loss[0].tid, 2);
        CHECK_EQ_U64(g.loss[0].count, 7);
        CHECK_EQ_I64(g.loss[0].first_ts, 100);
        CHECK_EQ_I64(g.loss[0].last_ts, 900);
        CHECK_EQ_U64(g.loss[0].line, 2);
        CHECK_EQ_U64(g.loss[0].offset, strstr(log, "[STINT]") - log);
        CHECK_EQ_I64(g.loss[1].ok, 1);
        CHECK_EQ_U64(g.loss[1].count, UINT64_MAX);
        CHECK_EQ_I64(g.loss[1].first_ts, 0);
        CHECK_EQ_U64(g.loss[1].line, 3);
        CHECK_EQ_I64(g.loss[2].ok, 0);
        CHECK_STR(g.loss[2].why, "last_ts=");
        CHECK_EQ_U64(g.loss[2].count, 0);
        CHECK_EQ_U64(g.loss[2].line, 4);
        CHECK_EQ_I64(g.loss[3].ok, 0);
        CHECK_STR(g.loss[3].why, "v=1");
        CHECK_EQ_I64(g.loss[4].ok, 0);
        CHECK_STR(g.loss[4].why, "last_ts=");
        CHECK_EQ_I64(g.loss[5].ok, 0);
        CHECK_STR(g.loss[5].why, "first_ts=");
        CHECK_EQ_I64(g.loss[6].ok, 1);
        CHECK_EQ_I64(g.loss[6].first_ts, -5);
        CHECK_EQ_I64(g.loss[6].last_ts, 7);
        CHECK_EQ_U64(g.loss[6].line, 10);
        /* without on_loss they are text, the records the same */
        st = parse_losses(log, steps[k], &g, 0);
        CHECK_EQ_I64(g.n, 2);
        CHECK_EQ_I64(g.nloss, 0);
        CHECK_EQ_U64(st.losses, 0);
    }
}

int main(void)
{
    test_basic();
    test_adjacent();
    test_blob_and_line_ends();
    test_torn();
    test_numbers();
    test_number_widths();
    test_chunking();
    test_long_line_fd();
    test_stop_and_options();
    test_attrs();
    test_losses();
    if (test_corpus() == 77)
        CHECK_SKIP_PART("the corpus cases (the rendered upstream logs)");
    CHECK_DONE();
}
