/* SPDX-License-Identifier: MIT */
/*
 * test_top_stats.c - `stint top`'s tally: the window's slices, late spans,
 * lane busy with inner spans absorbed by their parent, TPOT's decode bucket,
 * retirement and "(other)" at a grouping's cap; and flat memory over a long
 * stream of marker lines through the real reader (the parser and the tally):
 * the tally's heap stays within half again from the first fifth of the
 * stream to its end (the window is full by then), and so does the process's RSS (not under a sanitizer, whose quarantine
 * keeps freed memory).
 */
#include "check.h"
#include "analyze/top_stats.h"
#include "cmd/top_feed.h"
#include "read/follow.h"

#include <stdio.h>
#include <string.h>

static struct stint_top_span span(const char *name, uint64_t tid, uint64_t hid, uint64_t inv, int depth, int64_t ts,
                                  int64_t dur)
{
    struct stint_top_span s = {name, strlen(name), 1, tid, hid, inv, 1, 1, depth, ts, dur};
    return s;
}

static const struct stint_top_row *find(const struct stint_top_row *r, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, key) == 0)
            return &r[i];
    return NULL;
}

static void rules(void)
{
    /* window 1000 ns in 10 slices of 100 */
    struct stint_top *t = stint_top_new(1000, 10);
    struct stint_top_span s;
    s = span("a", 1, 0xaa, 1, 1, 100, 50); /* inner first, as written at their end */
    CHECK_EQ_I64(stint_top_add(t, &s), 1);
    s = span("a", 1, 0xaa, 1, 1, 200, 50);
    stint_top_add(t, &s);
    s = span("root", 1, 0xaa, 1, 0, 90, 400); /* absorbs both */
    stint_top_add(t, &s);
    s = span("root", 1, 0xbb, 2, 0, 600, 100);
    stint_top_add(t, &s);
    s = span("root", 1, 0xaa, 3, 0, 800, 100);
    stint_top_add(t, &s);
    s = span("bad", 1, 0, 0, 0, 5, -1);
    CHECK_EQ_I64(stint_top_add(t, &s), 0);
    struct stint_top_row *rows = NULL;
    size_t cap = 0, n;
    stint_top_rows(t, STINT_TOP_BY_LANE, &rows, &cap, &n);
    REQUIRE(n == 1);
    /* now 900, first 90: covered 810; busy = 400 + 100 + 100 */
    CHECK_EQ_U64(rows[0].win.calls, 5);
    CHECK(rows[0].win.busy_pct > 74.07 && rows[0].win.busy_pct < 74.08);
    struct stint_top_tpot tp;
    stint_top_get_tpot(t, &tp);
    CHECK(tp.have);
    CHECK_EQ_U64(tp.hid, 0xaa);
    CHECK_EQ_U64(tp.all.calls, 2);
    CHECK_EQ_I64(tp.all.mean, 250);
    CHECK_EQ_U64(tp.buckets, 2);
    /* move on: the window keeps slices 11..20; everything above ended before */
    s = span("late", 2, 0, 4, 0, 2000, 10);
    stint_top_add(t, &s);
    s = span("a", 2, 0, 4, 0, 150, 10); /* ends in slice 1: before the window */
    stint_top_add(t, &s);
    struct stint_top_counts c;
    stint_top_get_counts(t, &c);
    CHECK_EQ_U64(c.late, 1);
    CHECK_EQ_I64(c.covered_ns, 2010 - 1100);
    stint_top_rows(t, STINT_TOP_BY_NAME, &rows, &cap, &n);
    const struct stint_top_row *a = find(rows, n, "a");
    REQUIRE(a != NULL);
    CHECK_EQ_U64(a->win.calls, 0);
    CHECK_EQ_U64(a->all.calls, 3);
    CHECK_EQ_I64(a->all.max, 50);
    stint_top_loss(t, 1, 9, 5);
    stint_top_rows(t, STINT_TOP_BY_LANE, &rows, &cap, &n);
    a = find(rows, n, "1/9");
    REQUIRE(a != NULL);
    CHECK_EQ_U64(a->lost, 5);
    stint_top_free(t);

    /* the inv grouping's cap: quiet groups retire, the rest go to (other) */
    t = stint_top_new(1000, 10);
    for (int i = 0; i < 300; i++) {
        s = span("x", 1, 1, (uint64_t)i, 0, i, 1); /* all in one window */
        stint_top_add(t, &s);
    }
    stint_top_get_counts(t, &c);
    CHECK_EQ_U64(c.other, 300 - 256);
    CHECK_EQ_U64(c.retired, 0);
    for (int i = 0; i < 300; i++) {
        s = span("x", 1, 1, (uint64_t)(1000 + i), 0, 100000 + i, 1); /* a later window */
        stint_top_add(t, &s);
    }
    stint_top_get_counts(t, &c);
    CHECK_EQ_U64(c.retired, 256);
    stint_top_rows(t, STINT_TOP_BY_INV, &rows, &cap, &n);
    CHECK_EQ_U64(n, 257);
    CHECK(find(rows, n, "(other)") != NULL);
    free(rows);
    stint_top_free(t);
}

/* VmRSS in KiB. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void flat_memory(void)
{
    const long records = CHECK_ASAN_OR_TSAN ? 200000 : 2000000;
    /* a 0.5 s window: the stream (20 us apart) is 80 windows long, or 8 under a sanitizer */
    struct stint_top *t = stint_top_new(500000000, 10);
    struct stint_top_feed *feed = stint_top_feed_new(t, STINT_TOP_FMT_UNKNOWN);
    static char buf[1 << 16];
    size_t len = 0;
    size_t bytes_at = 0;
    long rss_at = 0;
    for (long i = 0; i < records; i++) {
        /* 2000 names (past the name cap), new invocations, 8 lanes, 20 us apart */
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                "[STRACE] v=1 pid=1 tid=%ld inv=%ld hid=%lx depth=%d name=op.%ld ts=%ld dur=%ld\n",
                                i % 8, i / 4, 0xa0 + i % 3, (int)(i % 4 == 0 ? 0 : 1), (i * 7919) % 2000,
                                1000000000 + i * 20000, 1000 + (i * 31) % 900000);
        if (len > sizeof buf - 256) {
            stint_top_feed_lines(feed, buf, len, STINT_FOLLOW_LINES);
            len = 0;
        }
        if (getenv("TOP_TRACE") && i % (records / 10) == 0) {
            struct stint_top_counts c;
            stint_top_get_counts(t, &c);
            printf("%ld: %zu bytes, rss %ld\n", i, c.bytes, rss_kib());
        }
        if (i == records / 5) {
            struct stint_top_counts c;
            stint_top_get_counts(t, &c);
            bytes_at = c.bytes;
            rss_at = rss_kib();
        }
    }
    stint_top_feed_lines(feed, buf, len, STINT_FOLLOW_LINES);
    struct stint_top_counts c;
    stint_top_get_counts(t, &c);
    long rss_end = rss_kib();
    printf("%ld records: tally %zu bytes at a fifth, %zu at the end; RSS %ld KiB, %ld KiB; %llu retired, %llu other\n",
           records, bytes_at, c.bytes, rss_at, rss_end, (unsigned long long)c.retired,
           (unsigned long long)c.other);
    CHECK_EQ_U64(c.spans, (uint64_t)records);
    CHECK(c.retired > 0);
    /* the sketches' buckets may still widen toward their bound (the since-start
     * ones take every value): within half again, while the stream grows 5x */
    CHECK(c.bytes <= bytes_at + bytes_at / 2);
    if (!CHECK_ASAN_OR_TSAN)
        CHECK(rss_end - rss_at < 4096);
    stint_top_feed_free(feed);
    stint_top_free(t);
}

/* Garbage and broken records in every format, cut anywhere, with new files
 * in between: the feed counts and goes on (ASan watches the memory). */
static void garbage(void)
{
    static const char *const frag[] = {
        "[STRACE] v=1 pid=1 tid=2 inv=3 hid=ff depth=0 name=a ts=10 dur=5\n",
        "[STRACE] v=1 pid=1 tid=2 inv=3 hid=ff depth=0 name=a ts=",
        "[STINT] v=1 dropped pid=1 tid=2 count=9 first_ts=1 last_ts=2\n", "[STINT] v=1 dropped pid=\n",
        "{\"kind\":\"span_start\",\"id\":\"s2\",\"parent_id\":\"s1\",\"name\":\"n\\\"q\",\"start_ns\":5,\"tid\":3}\n",
        "{\"kind\":\"span_end\",\"id\":\"s2\",\"duration_ns\":7}\n", "{\"kind\":\"span_end\",\"id\":\"x\"}\n",
        "{\"kind\":\"dropped\",\"tid\":3,\"count\":-4}\n", "{\"kind\":\"meta\",\"pid\":\"zz\"}\n",
        "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1.5,\"dur\":1e400,\"args\":{\"hid\":\"0xq\"}},\n",
        "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":-2,\"dur\":3},\n", "[{\n", "}]\n",
        "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":4,\"ts\":3,\"args\":{\"hid\":\"0x5\"}},\n",
        "{\"ph\":\"E\",\"pid\":1,\"tid\":4,\"ts\":2}\n", "{\"ph\":\"E\",\"pid\":1,\"tid\":4,\"ts\":9}\n", "\n", "\r\n",
        "\xff\xfe\x00garbage\n"};
    uint64_t r = 12345;
    for (int fmt = 0; fmt < 4; fmt++) {
        struct stint_top *t = stint_top_new(1000, 10);
        struct stint_top_feed *f = stint_top_feed_new(t, (enum stint_top_fmt)fmt);
        char buf[512];
        for (int i = 0; i < 20000; i++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *p = frag[(r >> 33) % (sizeof frag / sizeof frag[0])];
            size_t n = strlen(p);
            int what = (r >> 20) % 50 == 0 ? STINT_FOLLOW_NEW_FILE : (r >> 24) % 7 == 0 ? STINT_FOLLOW_CUT
                                                                                      : STINT_FOLLOW_LINES;
            if (what == STINT_FOLLOW_NEW_FILE) {
                stint_top_feed_lines(f, NULL, 0, what);
                continue;
            }
            if (what == STINT_FOLLOW_CUT) /* a cut line: its head only, no '\n' */
                n = n > 1 ? (size_t)(r >> 40) % (n - 1) + 1 : n;
            memcpy(buf, p, n);
            CHECK_EQ_I64(stint_top_feed_lines(f, buf, n, what), 0);
        }
        struct stint_top_feed_counts c;
        stint_top_feed_get_counts(f, &c);
        struct stint_top_counts tc;
        stint_top_get_counts(t, &tc);
        printf("format %d: %llu spans, %llu torn, %llu bad lines, %llu unmatched, %llu skipped\n", fmt,
               (unsigned long long)tc.spans, (unsigned long long)c.torn, (unsigned long long)c.bad_lines,
               (unsigned long long)c.unmatched, (unsigned long long)c.skipped);
        CHECK(tc.spans > 0);
        stint_top_feed_free(f);
        stint_top_free(t);
    }
}

int main(void)
{
    rules();
    garbage();
    flat_memory();
    CHECK_DONE();
}
