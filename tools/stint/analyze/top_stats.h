/* SPDX-License-Identifier: MIT */
/*
 * top_stats.h - the figures of `stint top`: spans as they arrive, grouped four
 * ways at once (by name, by callable hid, by invocation, by lane), each group
 * over a sliding window and since the first span, in bounded memory.
 *
 * Time is the writer's clock (the spans' own ns). A span counts at its end
 * (ts + dur), when the writer wrote it. "now" is the latest end seen, or a
 * later time the caller sets (a live view moves it with the wall clock while
 * nothing arrives); it never goes back. The window is `slices` slices of
 * window_ns / slices each, up to now's slice: it spans between
 * window_ns - slice and window_ns, and never before the first span's start
 * (the covered span, the divisor of every rate and busy share). A span ending
 * before the window counts since start only (late).
 *
 * Per group: calls, calls/s, mean, max (exact), p50/p90/p99 (sketch.h, 1%
 * relative error), for the window and since start. Per lane: busy share =
 * time covered by the lane's outermost spans / covered span (a span that
 * contains spans already counted absorbs them: spans arrive at their end,
 * inner ones first), and the spans the writer reported lost.
 *
 * TPOT (time per output token): of the spans at depth 0 that carry a hid
 * (one per invocation of a callable), the hid with the most of them since
 * start is the decode bucket (one invocation per output token; ties: the
 * lower hid); TPOT is the mean (and p50/p99) duration of its depth-0 spans.
 *
 * Bounds: each grouping keeps at most a fixed number of groups (its cap);
 * when full, groups not seen within the window are retired (counted) and a
 * new group with no room goes to the group "(other)". Memory therefore does
 * not grow with run time.
 *
 * Thread safety: none; one owner.
 */
#ifndef STINT_CLI_TOP_STATS_H
#define STINT_CLI_TOP_STATS_H

#include <stddef.h>
#include <stdint.h>

enum stint_top_by { STINT_TOP_BY_NAME, STINT_TOP_BY_HID, STINT_TOP_BY_INV, STINT_TOP_BY_LANE, STINT_TOP_BY_COUNT };

/* One finished span, as a reader found it. name is not NUL-terminated and
 * is copied when kept. */
#define STINT_TOP_SESSION_ROOT (-2)

struct stint_top_span {
    const char *name;
    size_t name_len;
    uint64_t pid, tid;
    uint64_t hid, inv;
    int has_hid, has_inv;
    int depth;          /* nesting depth, 0 outermost; -1 unknown; STINT_TOP_SESSION_ROOT: a
                         * session's root span (grouped, but it keeps no lane busy) */
    int64_t ts_ns, dur_ns;
};

/* One group's figures over one period. */
struct stint_top_fig {
    uint64_t calls;
    double rate;        /* calls per second of the covered span */
    int64_t mean, p50, p90, p99, max; /* ns; 0 when no calls */
    double busy_pct;    /* lanes only: busy share of the covered span, 0..100 */
};

struct stint_top_row {
    const char *key;    /* valid until the next add */
    struct stint_top_fig win, all;
    uint64_t lost;      /* lanes: spans the writer reported lost */
};

struct stint_top_tpot {
    int have;           /* 0: no depth-0 span with a hid yet */
    uint64_t hid;
    uint64_t buckets;   /* distinct hids seen at depth 0 (groups kept) */
    struct stint_top_fig win, all; /* of the decode bucket's depth-0 spans; rate = tokens/s */
};

struct stint_top_counts {
    uint64_t spans;     /* spans added */
    uint64_t late;      /* of them: ended before the window (since start only) */
    uint64_t other;     /* spans that went to "(other)", all groupings together */
    uint64_t retired;   /* groups retired, all groupings together */
    uint64_t lost;      /* spans the writer reported lost */
    int64_t first_ns;   /* the first span's start (INT64_MAX: none yet) */
    int64_t now_ns;     /* the window's end */
    int64_t covered_ns; /* the window's covered span */
    int64_t since_ns;   /* now - first */
    size_t bytes;       /* heap held by the groups */
};

struct stint_top;

/* A new tally over a window of window_ns (>= slices) in `slices` slices. */
struct stint_top *stint_top_new(int64_t window_ns, unsigned slices);
void stint_top_free(struct stint_top *t);

/* Adds one span (dur < 0 or a time out of range: ignored, returns 0; else 1). */
int stint_top_add(struct stint_top *t, const struct stint_top_span *sp);

/* count spans of lane (pid, tid) the writer reported lost. */
void stint_top_loss(struct stint_top *t, uint64_t pid, uint64_t tid, uint64_t count);

/* Moves now to now_ns when that is later. */
void stint_top_set_now(struct stint_top *t, int64_t now_ns);

/* The latest span end seen (INT64_MIN: none). */
int64_t stint_top_last_end(const struct stint_top *t);

/* The groups of one grouping with their figures at now: *rows (grown with
 * xalloc, *cap its room) gets *n rows, in no set order. */
void stint_top_rows(struct stint_top *t, enum stint_top_by by, struct stint_top_row **rows, size_t *cap, size_t *n);

/* The decode bucket's TPOT at now. */
void stint_top_get_tpot(struct stint_top *t, struct stint_top_tpot *out);

/* The counts at now. */
void stint_top_get_counts(const struct stint_top *t, struct stint_top_counts *out);

/* The grouping's name ("name", "hid", "inv", "lane") and its key column's
 * heading; stint_top_by_parse returns -1 for an unknown name. */
const char *stint_top_by_name(enum stint_top_by by);
const char *stint_top_by_heading(enum stint_top_by by);
int stint_top_by_parse(const char *s);

#endif
