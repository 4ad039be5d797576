/* SPDX-License-Identifier: MIT */
/*
 * test_timing.c - the timing model (grouping and the reference's orders) and
 * the views of `stint timing` (table, rounds, tree, JSON, Chrome trace),
 * driven from in-memory logs through the streaming parser.
 */
#include "check.h"
#include "read/markers_parse.h"
#include "timing/timing_model.h"
#include "timing/timing_out.h"
#include "write/textout.h"

#include <math.h>
#include <unistd.h>

static int add(void *ctx, const struct stint_mparse_record *r)
{
    return stint_tm_add(ctx, r);
}

static struct stint_mparse_stats load(struct stint_tm_model *m, const char *log, int keep_attrs)
{
    stint_tm_init(m, keep_attrs ? TM_KEEP_ATTRS : TM_KEEP_SPANS);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = add;
    o.ctx = m;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p);
    CHECK(stint_mparse_feed(p, log, strlen(log)) == 0);
    CHECK(stint_mparse_finish(p) == 0);
    struct stint_mparse_stats st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    REQUIRE(stint_tm_analyze(m) == 0);
    return st;
}

/* Runs a view into a string (caller frees). */
static char *view(struct stint_tm_model *m, const struct stint_mparse_stats *st, void (*fn)(const struct stint_tout_ctx *), uint32_t warmup, int json,
                  int depth)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    struct stint_tout_ctx c = {m, f, warmup, warmup > 0, json, depth, st, 0};
    if (json)
        stint_tout_json_begin(&c, "x");
    fn(&c);
    if (json)
        stint_tout_json_end(&c, NULL);
    fclose(f);
    return buf;
}

static char *fmt_str(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, s, n);
    fclose(f);
    return buf;
}

static char *fmt_us(int64_t ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    stint_tout_json_us(f, ns);
    fclose(f);
    return buf;
}

static void test_json_helpers(void)
{
    static const struct {
        int64_t ns;
        const char *want;
    } us[] = {{0, "0.0"}, {1, "0.001"}, {10, "0.01"}, {100, "0.1"}, {1000, "1.0"}, {1234567, "1234.567"},
              {8100010010400, "8100010010.4"}, {43650, "43.65"}, {INT64_MAX, "9223372036854775.807"}};
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        char *s = fmt_us(us[i].ns);
        CHECK_STR(s, us[i].want);
        free(s);
    }
    char *s = fmt_str(stint_out_json_ascii, "a\"b\\c\n\t\x01\x7f", 9);
    CHECK_STR(s, "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\""); /* (DEL escaped, as python's json.dump does) */
    free(s);
    s = fmt_str(stint_out_json_ascii, "\xc3\xa9\xe2\x88\xa5\xf0\x9f\x98\x80\xff.", 11);
    CHECK_STR(s, "\"\\u00e9\\u2225\\ud83d\\ude00\\ufffd.\"");
    free(s);
    s = fmt_str(stint_out_json_ascii, "\b\f\xed\xa0\x80", 5); /* short escapes; a surrogate is not UTF-8 */
    CHECK_STR(s, "\"\\b\\f\\ufffd\\ufffd\\ufffd\"");
    free(s);
    s = fmt_str(stint_out_json_ascii, "\xe2\x88", 2); /* truncated sequence */
    CHECK_STR(s, "\"\\ufffd\\ufffd\"");
    free(s);
}

#define R(pid, inv, hid, depth, name, ts, dur, attrs)                                                   \
    "[STRACE] v=1 pid=" #pid " tid=" #pid " inv=" #inv " hid=" hid " depth=" #depth " name=" name    \
    " ts=" #ts " dur=" #dur " " attrs "\n"

/* Grouping and ordering as the reference does it. */
static void test_model_orders(void)
{
    struct stint_tm_model m;
    /* hid B (first seen via pid 1 inv 5) has 2 invocations, A has 2, C has 1.
     * Buckets keep first-seen order over (pid, inv) among equal sizes. */
    load(&m,
         R(2, 1, "AAAA0000BBBB", 0, "run", 10, 1000, "")
         R(1, 5, "bbbb", 1, "run.x", 5, 10, "")
         R(1, 5, "bbbb", 1, "run.x", 1, 99, "")
         R(1, 5, "CCCC", 0, "run", 0, 2000, "")
         R(1, 9, "bbbb", 0, "run", 0, 3000, "")
         R(3, 1, "aaaa0000bbbb", 0, "run", 0, 4000, "")
         R(2, 7, "cc", 0, "run", 0, 5000, ""),
         0);
    CHECK_EQ_U64(m.ninvs, 5);
    CHECK_EQ_U64(m.nbuckets, 3);
    /* (pid, inv) order: (1,5) bbbb, (1,9) bbbb, (2,1) aaaa.., (2,7) cc, (3,1) aaaa.. */
    CHECK_STR(stint_tm_str(&m, m.buckets[0].hid), "bbbb");
    CHECK_STR(stint_tm_str(&m, m.buckets[1].hid), "aaaa0000bbbb");
    CHECK_STR(stint_tm_str(&m, m.buckets[2].hid), "cc");
    char lab[16];
    CHECK_STR(stint_tm_bucket_label(&m, 0, lab), "decode");
    CHECK_STR(stint_tm_bucket_label(&m, 1, lab), "aaaa0000");
    CHECK_STR(stint_tm_bucket_label(&m, 2, lab), "prefill");
    /* bucket 1 sorted by inv: (2,1) and (3,1) tie on inv=1 and keep pid order */
    const uint32_t *b1 = m.bucket_invs + m.buckets[1].off;
    CHECK_EQ_U64(m.invs[b1[0]].pid, 2);
    CHECK_EQ_U64(m.invs[b1[1]].pid, 3);
    /* invocation (1,5): hid of its first span; root is the first depth-0 span;
     * the first span of a name counts, not the earliest ts. */
    const uint32_t *b0 = m.bucket_invs + m.buckets[0].off;
    const struct stint_tm_inv *iv = &m.invs[b0[0]];
    CHECK_EQ_U64(iv->inv, 5);
    CHECK_EQ_U64(iv->nspans, 3);
    CHECK(iv->has_root && iv->root_dur_ns == 2000);
    CHECK_STR(stint_tm_str(&m, iv->root_name), "run");
    CHECK(iv->first != TM_NONE && m.spans[iv->first].dur_ns == 10);
    uint32_t x = stint_tm_str_find(&m, "run.x", 5);
    REQUIRE(x != TM_NONE);
    const struct stint_tm_fon *fo = stint_tm_fon_find(&m, b0[0], x);
    CHECK(fo && fo->dur_ns == 10 && fo->ts_ns == 5 && fo->depth == 1);
    CHECK(stint_tm_fon_find(&m, b0[1], x) == NULL);
    stint_tm_free(&m);
}

/* Table: root mean truncated to whole ns, stages by (-count, name), dotted indent. */
static void test_table(void)
{
    struct stint_tm_model m;
    struct stint_mparse_stats st = load(&m,
                            R(1, 1, "ab", 1, "r.b", 0, 150, "")
                            R(1, 1, "ab", 2, "r.b.c", 0, 51, "")
                            R(1, 1, "ab", 0, "r", 0, 1001, "")
                            R(1, 2, "ab", 1, "r.a", 0, 250, "")
                            R(1, 2, "ab", 1, "r.b", 0, 250, "")
                            R(1, 2, "ab", 0, "r", 0, 1002, ""),
                            0);
    char *out = view(&m, &st, stint_tout_table, 0, 0, 0);
    CHECK_STR(out, "callable hid=ab \xe2\x80\x94 2 invocation(s)\n"
                   "  r: mean=1.0us min=1.0us max=1.0us\n"
                   "    r.b: mean=0.2us (n=2)\n"
                   "    r.a: mean=0.2us (n=1)\n"
                   "      r.b.c: mean=0.1us (n=1)\n\n");
    free(out);
    /* mean 1001.5 ns truncates to 1001 -> 1.0us; 0.25 -> %.1f rounds half-even on the double */
    stint_tm_free(&m);
}

/* Rounds: > 20 rows adds the trimmed line; host-only shows Host alone. */
static void test_rounds(void)
{
    char log[16384] = "";
    for (int i = 1; i <= 25; i++) {
        char line[512];
        snprintf(line, sizeof line,
                 "[STRACE] v=1 pid=1 tid=1 inv=%d hid=d depth=0 name=simpler_run ts=0 dur=%d\n"
                 "[STRACE] v=1 pid=1 tid=1 inv=%d hid=d depth=2 name=simpler_run.runner_run.device_wall ts=0 "
                 "dur=%d clk=dev\n",
                 i, i * 1000, i, i % 5 ? i * 100 : 0);
        strcat(log, line);
    }
    strcat(log, "[STRACE] v=1 pid=1 tid=1 inv=99 hid=e depth=0 name=simpler_run ts=0 dur=7\n");
    struct stint_tm_model m;
    struct stint_mparse_stats st = load(&m, log, 0);
    char *out = view(&m, &st, stint_tout_rounds, 0, 0, 0);
    CHECK(strstr(out, "  Round      Host (us)   Device (us)\n") == out);
    CHECK(strstr(out, "  23              24.0           2.4\n") != NULL);
    CHECK(strstr(out, "  4                5.0           0.0\n") != NULL);
    CHECK(strstr(out, "  Avg Host: 13.0 us  |  Avg Device: 1.2 us [20/25]  (25 rounds)\n") != NULL);
    CHECK(strstr(out, "  Trimmed Avg Host: 13.0 us  (dropped 10 low + 10 high, 5 rounds used)\n") != NULL);
    CHECK(strstr(out, "Effective") == NULL);
    free(out);
    out = view(&m, &st, stint_tout_rounds, 20, 1, 0);
    CHECK(strstr(out, "\"warmup_dropped\": 20") != NULL);
    CHECK(strstr(out, "{\"round\": 0, \"pid\": 1, \"inv\": 21, \"host_us\": 21.0, \"device_us\": 2.1,") != NULL);
    free(out);
    stint_tm_free(&m);
}

/* A pypto-style log: per launch a root span and (when dev_ns > 0) its device
 * wall, one invocation each from inv=0. Loads it into m. */
static struct stint_mparse_stats load_launches(struct stint_tm_model *m, const int64_t *host_ns, const int64_t *dev_ns, int n)
{
    static char log[8192];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(log + len, sizeof log - len,
                                "[STRACE] v=1 pid=100 tid=1 inv=%d hid=abc depth=0 name=simpler_run ts=0 dur=%lld\n",
                                i, (long long)host_ns[i]);
        if (dev_ns[i])
            len += (size_t)snprintf(log + len, sizeof log - len,
                                    "[STRACE] v=1 pid=100 tid=1 inv=%d hid=abc depth=2 "
                                    "name=simpler_run.runner_run.device_wall ts=0 dur=%lld clk=dev\n",
                                    i, (long long)dev_ns[i]);
    }
    return load(m, log, 0);
}

/* pypto's consumer expectations: 2 warmup + 3 measured rounds. */
static void test_pypto(void)
{
    struct stint_tm_model m;
    static const int64_t host5[] = {99000, 99000, 100000, 200000, 300000};
    static const int64_t dev5[] = {99000, 99000, 10000, 20000, 30000};
    struct stint_mparse_stats st = load_launches(&m, host5, dev5, 5);
    char *out = view(&m, &st, stint_tout_table, 2, 1, 0);
    CHECK(strstr(out, "\"host_wall_us\": [100.0, 200.0, 300.0]") != NULL);
    CHECK(strstr(out, "\"device_wall_us\": [10.0, 20.0, 30.0]") != NULL);
    CHECK(strstr(out, "\"host_wall\": {\"n\": 3, \"mean_us\": 200.0, \"stdev_us\": 100.0, \"min_us\": 100.0, "
                      "\"max_us\": 300.0}") != NULL);
    free(out);
    stint_tm_free(&m);

    /* host span only: device 0 */
    static const int64_t host1[] = {50000}, dev1[] = {0};
    st = load_launches(&m, host1, dev1, 1);
    out = view(&m, &st, stint_tout_table, 0, 1, 0);
    CHECK(strstr(out, "\"device_wall_us\": [0.0]") != NULL);
    free(out);
    stint_tm_free(&m);
    /* two launches, host 100/300 us, device 10/20 us: device 15.0 +- 7.1 */
    static const int64_t host2[] = {100000, 300000}, dev2[] = {10000, 20000};
    st = load_launches(&m, host2, dev2, 2);
    out = view(&m, &st, stint_tout_table, 0, 1, 0);
    CHECK(strstr(out, "\"device_wall\": {\"n\": 2, \"mean_us\": 15.0, \"stdev_us\": 7.071, \"min_us\": 10.0, "
                      "\"max_us\": 20.0}") != NULL);
    CHECK(strstr(out, "\"root\": {\"name\": \"simpler_run\", \"stats\": {\"n\": 2, \"mean_us\": 200.0,") != NULL);
    free(out);
    stint_tm_free(&m);
}

/* Tree: medians (two middle values averaged), Effective = median of per-invocation
 * orch-union-sched, and the tree from depth for names without dots. */
static void test_tree(void)
{
    struct stint_tm_model m;
    struct stint_mparse_stats st = load(&m,
                            R(1, 1, "f", 1, "w", 0, 1000, "clk=dev")
                            R(1, 1, "f", 2, "w.orch", 0, 400, "clk=dev")
                            R(1, 1, "f", 2, "w.sched", 100, 500, "clk=dev")
                            R(1, 2, "f", 1, "w", 0, 2000, "clk=dev")
                            R(1, 2, "f", 2, "w.orch", 0, 600, "clk=dev")
                            R(1, 2, "f", 2, "w.sched", 700, 100, "clk=dev"),
                            0);
    char *out = view(&m, &st, stint_tout_tree, 0, 0, 0);
    CHECK_STR(out, "callable hid=f (decode) \xe2\x80\x94 median of 2 invocation(s)\n"
                   "w                      [dev]           1.5 us\n"
                   "  Effective              [dev]           0.7 us\n"
                   "    orch 0.5  \xe2\x88\xa5  sched 0.3   (concurrent)\n\n");
    free(out);
    stint_tm_free(&m);

    st = load(&m,
              R(1, 1, "f", 2, "c", 10, 5, "")
              R(1, 1, "f", 1, "a", 5, 20, "")
              R(1, 1, "f", 1, "b", 30, 40, "")
              R(1, 1, "f", 0, "top", 0, 100, ""),
              0);
    out = view(&m, &st, stint_tout_tree, 0, 0, 1);
    CHECK_STR(out, "callable hid=f (prefill) \xe2\x80\x94 1 invocation\n"
                   "top                                    0.1 us\n"
                   "  a                                      0.0 us\n"
                   "    c                                      0.0 us\n"
                   "  b                                      0.0 us\n\n");
    free(out);
    out = view(&m, &st, stint_tout_tree, 0, 1, 1);
    CHECK(strstr(out, "{\"name\": \"top\", \"leaf\": \"top\", \"dev\": false, \"median_us\": 0.1, \"children\": "
                      "[{\"name\": \"a\"") != NULL);
    free(out);
    stint_tm_free(&m);
}

/* Chrome trace: a 100 ns span is "ts": 0.1; device spans on tid 1; attrs kept. */
static void test_chrome(void)
{
    struct stint_tm_model m;
    load(&m, R(7, 3, "ABC", 0, "run", 100, 100, "rank=0") R(7, 3, "abc", 1, "run.d", 0, 2500, "clk=dev"), 1);
    char path[] = "/tmp/stint_chrome_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(stint_tout_chrome(&m, path) == 0);
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(path);
    CHECK(strstr(buf, "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, "
                      "\"args\": {\"name\": \"prefill inv=3 (pid=7)\"}}") == buf);
    CHECK(strstr(buf, "{\"name\": \"run\", \"ph\": \"X\", \"ts\": 0.1, \"dur\": 0.1, \"pid\": 1, \"tid\": 0, "
                      "\"args\": {\"inv\": 3, \"hid\": \"abc\", \"depth\": 0, \"attrs\": \"rank=0\"}}") != NULL);
    CHECK(strstr(buf, "\"ts\": 0.0, \"dur\": 2.5, \"pid\": 1, \"tid\": 1,") != NULL);
    CHECK(strstr(buf, "], \"displayTimeUnit\": \"ms\"}") != NULL);
    CHECK(stint_tout_chrome(&m, "/nonexistent/dir/t.json") != 0);
    stint_tm_free(&m);
}

int main(void)
{
    test_json_helpers();
    test_model_orders();
    test_table();
    test_rounds();
    test_pypto();
    test_tree();
    test_chrome();
    CHECK_DONE();
}
