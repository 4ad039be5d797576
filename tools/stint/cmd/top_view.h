/* SPDX-License-Identifier: MIT */
/*
 * top_view.h - what `stint top` shows: the frame as text lines (the plain
 * output and the curses screen draw the same lines) and the tick as one
 * JSON object.
 */
#ifndef STINT_CLI_TOP_VIEW_H
#define STINT_CLI_TOP_VIEW_H

#include "analyze/top_stats.h"
#include "cmd/top_feed.h"
#include "read/follow.h"

#include <stdio.h>

/* Sort columns, in the table's order (key 1..9 in the live view). */
enum stint_top_col { STINT_TOP_COL_KEY, STINT_TOP_COL_CALLS, STINT_TOP_COL_RATE, STINT_TOP_COL_MEAN,
                     STINT_TOP_COL_P50, STINT_TOP_COL_P90, STINT_TOP_COL_P99, STINT_TOP_COL_MAX,
                     STINT_TOP_COL_BUSY, STINT_TOP_COL_COUNT };

/* What the view shows (changed by the keys of the live view). */
struct stint_top_show {
    enum stint_top_by by;
    enum stint_top_col sort;   /* descending, except the key column (ascending) */
    char filter[128];          /* a glob on the key (fnmatch(3)); "" = all */
    int since_start;           /* live view: 1 shows since start instead of the window */
    int paused;
    int both;                  /* text: the window table and then the since-start one */
    int rows_max;              /* rows per table, 0 = all */
    int width;                 /* columns to fit (0: no limit) */
};

/* Everything one tick shows. */
struct stint_top_tick {
    const char *path;
    uint64_t tick;
    int64_t window_ns, interval_ns;
    const struct stint_follow_stats *fs;
    struct stint_top_feed_counts fc;
    enum stint_top_fmt fmt;
    struct stint_top_counts tc;
    struct stint_top_tpot tpot;
};

/* The frame's lines, each NUL-terminated, in *lines (*n of them; owned by
 * the caller through stint_top_lines_free). Line 0 is the title; the
 * table headings are the lines whose index is in heads[0..2) (-1: none). */
struct stint_top_lines {
    char **line;
    size_t n, cap;
    int heads[2];
};

/* Draws the frame of t as text lines. */
void stint_top_render(struct stint_top *t, const struct stint_top_tick *k, const struct stint_top_show *s,
                      struct stint_top_lines *out);
void stint_top_lines_free(struct stint_top_lines *l);

/* Writes the tick as one JSON object on one line ("stint.top/1", docs/cli/top.md). */
void stint_top_json(FILE *f, struct stint_top *t, const struct stint_top_tick *k, const struct stint_top_show *s);

/* A duration in the view's units (3 significant digits: "850ns", "12.3us",
 * "1.50ms", "2.00s"). */
void stint_top_fmt_ns(char *buf, size_t cap, int64_t ns);

#endif
