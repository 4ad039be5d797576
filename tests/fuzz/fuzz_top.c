/* SPDX-License-Identifier: MIT */
/* fuzz_top.c - libFuzzer target: `stint top`'s readers (cmd/top_feed.c) and
 * its tally (analyze/top_stats.c).
 *
 * The first byte picks the format (found from the content, or one of the
 * three given); the rest is handed to the feed as the follower would: whole
 * lines in runs whose lengths come from the input, a new file's start at
 * each NUL byte (a truncation or rotation), and a last unended line as a cut
 * line. After every run the rows of every grouping are read back. Checked
 * whatever the input: a window's figures never exceed the since-start ones
 * (calls, max), quantiles stay within [0, max] and are ordered, busy shares
 * stay within 0..100, and the tally never counts more spans than lines were
 * fed plus the markers they could hold. */
#include "analyze/top_stats.h"
#include "cmd/top_feed.h"
#include "read/follow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariants of one row's figures. */
static void check_fig(const struct stint_top_fig *f)
{
    if (f->calls == 0)
        return;
    if (f->p50 < 0 || f->p50 > f->p90 || f->p90 > f->p99 || f->max < 0)
        abort();
    /* the sketch's relative error (1%) may put a quantile just past the max */
    if (f->p99 > f->max + f->max / 50 + 1)
        abort();
    if (!(f->busy_pct >= 0.0 && f->busy_pct <= 100.0 + 1e-9))
        abort();
}

static void check_rows(struct stint_top *t)
{
    struct stint_top_row *rows = NULL;
    size_t cap = 0, n = 0;
    for (int by = 0; by < STINT_TOP_BY_COUNT; by++) {
        stint_top_rows(t, (enum stint_top_by)by, &rows, &cap, &n);
        for (size_t i = 0; i < n; i++) {
            if (!rows[i].key || rows[i].win.calls > rows[i].all.calls || rows[i].win.max > rows[i].all.max)
                abort();
            check_fig(&rows[i].win);
            check_fig(&rows[i].all);
        }
    }
    struct stint_top_tpot tp;
    stint_top_get_tpot(t, &tp);
    if (tp.have && tp.win.calls > tp.all.calls)
        abort();
    free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const enum stint_top_fmt fmts[] = {STINT_TOP_FMT_UNKNOWN, STINT_TOP_FMT_MARKERS, STINT_TOP_FMT_JSONL,
                                              STINT_TOP_FMT_CHROME};
    enum stint_top_fmt fmt = fmts[data[0] & 3];
    unsigned run_lines = 1u + (data[0] >> 2); /* lines per hand-over */
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct stint_top *t = stint_top_new(10000000000LL, 10);
    struct stint_top_feed *f = stint_top_feed_new(t, fmt);
    size_t i = 0;
    while (i < n) {
        if (p[i] == '\0') { /* a new file takes the name */
            stint_top_feed_lines(f, NULL, 0, STINT_FOLLOW_NEW_FILE);
            i++;
            continue;
        }
        size_t j = i;
        unsigned lines = 0;
        while (j < n && p[j] != '\0' && lines < run_lines) {
            const char *nl = memchr(p + j, '\n', n - j);
            const char *nul = memchr(p + j, '\0', n - j);
            if (!nl || (nul && nul < nl))
                break;
            j = (size_t)(nl - p) + 1;
            lines++;
        }
        if (lines) {
            stint_top_feed_lines(f, p + i, j - i, STINT_FOLLOW_LINES);
        } else { /* no whole line left before the end or a NUL: a cut line */
            const char *nul = memchr(p + i, '\0', n - i);
            j = nul ? (size_t)(nul - p) : n;
            stint_top_feed_lines(f, p + i, j - i, STINT_FOLLOW_CUT);
        }
        i = j;
        check_rows(t);
    }
    struct stint_top_feed_counts c;
    stint_top_feed_get_counts(f, &c);
    struct stint_top_counts tc;
    stint_top_get_counts(t, &tc);
    if (tc.spans > n) /* a span needs more than one byte of input */
        abort();
    if (stint_top_feed_format(f) != fmt && fmt != STINT_TOP_FMT_UNKNOWN)
        abort();
    stint_top_feed_free(f);
    stint_top_free(t);
    return 0;
}
