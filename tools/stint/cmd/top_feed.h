/* SPDX-License-Identifier: MIT */
/*
 * top_feed.h - `stint top`'s readers: whole lines from the follower
 * (read/follow.h) of a marker log, a JSONL session or a Chrome trace being
 * appended, turned into spans and losses for the tally (analyze/top_stats.h).
 *
 * The format is found from the first line that says it (a `[STRACE]` or
 * `[STINT] v=` marker anywhere in a line: markers; a JSON object with a
 * "kind" key: JSONL; any other line opening with '{', or with '[' then '{',
 * ']' or the line's end: Chrome JSON; other text, log lines before the
 * first marker among them: markers), unless given. A libstint binary
 * capture comes as bytes (the follower finds its magic): its span records
 * are read as the marker records they stand for, block by block as the
 * library writes them (a block not yet whole waits for the next poll).
 *
 * Nothing is dropped in silence: torn marker records, cut lines, lines that
 * are not the format's, span ends without a start, and event kinds that are
 * not spans are counted by kind (struct stint_top_feed_counts).
 */
#ifndef STINT_CLI_TOP_FEED_H
#define STINT_CLI_TOP_FEED_H

#include "analyze/top_stats.h"

#include <stddef.h>
#include <stdint.h>

enum stint_top_fmt {
    STINT_TOP_FMT_UNKNOWN,
    STINT_TOP_FMT_MARKERS,
    STINT_TOP_FMT_JSONL,
    STINT_TOP_FMT_CHROME,
    STINT_TOP_FMT_CAPTURE
};

struct stint_top_feed_counts {
    uint64_t torn;            /* marker records that did not complete (cut lines included; a
                               * capture's entries in a damaged block or after its cut) */
    uint64_t unknown_version; /* marker records with v != 1 (read anyway) */
    uint64_t bad_losses;      /* loss lines that could not be read */
    uint64_t bad_lines;       /* JSONL/Chrome lines that are no JSON object of the format */
    uint64_t unmatched;       /* JSONL span ends without their start; open spans past the cap */
    uint64_t skipped;         /* records that are no span (observations, metadata, other phases) */
    uint64_t device;          /* marker spans on the device clock (clk=dev), placed at arrival */
    uint64_t held_bytes;      /* a capture's bytes read and not yet decoded (a block not yet whole) */
};

struct stint_top_feed;

/* A feed into t; fmt STINT_TOP_FMT_UNKNOWN finds the format. */
struct stint_top_feed *stint_top_feed_new(struct stint_top *t, enum stint_top_fmt fmt);
void stint_top_feed_free(struct stint_top_feed *f);

/* Lines from the follower (a stint_follow_fn: ctx is the feed); a cut line
 * is final (a marker record in it is complete or torn now); a capture's
 * bytes (STINT_FOLLOW_BYTES) are decoded as far as whole blocks go; a new
 * file's start calls stint_top_feed_restart. */
int stint_top_feed_lines(void *ctx, const char *p, size_t n, int what);

/* A new file starts (truncation or rotation): what the reader kept of the
 * old one (an open JSONL span, the clock base) is let go. */
void stint_top_feed_restart(struct stint_top_feed *f);

enum stint_top_fmt stint_top_feed_format(const struct stint_top_feed *f);
const char *stint_top_fmt_name(enum stint_top_fmt fmt);
void stint_top_feed_get_counts(const struct stint_top_feed *f, struct stint_top_feed_counts *out);

#endif
