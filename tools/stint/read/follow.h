/* SPDX-License-Identifier: MIT */
/*
 * follow.h - `tail -F` for a growing text file: each poll reads only the bytes
 * appended since the last one and hands over whole lines.
 *
 * What a poll does, in order:
 *   - reads what was appended to the open file since the last poll (cost: the
 *     new bytes, never the file's size);
 *   - when the file is shorter than what was read (truncated in place, as
 *     `> log` or a copy-and-truncate rotation does), starts again at its
 *     first byte (events: STINT_FOLLOW_TRUNCATED);
 *   - when the path now names another file (renamed away and created anew,
 *     or replaced), first reads what is left of the old one, then switches to
 *     the new one from its first byte (STINT_FOLLOW_ROTATED); while the path
 *     names nothing, the old file is kept and read (STINT_FOLLOW_MISSING).
 * Lines are handed over whole: bytes after the last '\n' are held until the
 * line ends, never handed over as a cut line while the writer may still end
 * it. Only when the file the held bytes came from is left (truncated or
 * rotated: nobody can end that line any more) are they handed over as a
 * cut line (STINT_FOLLOW_CUT), counted in stats.cut_lines; then the start of
 * the new file is said (STINT_FOLLOW_NEW_FILE). A held line longer than
 * STINT_FOLLOW_MAX_LINE is handed over in pieces (STINT_FOLLOW_CUT, long_lines).
 *
 * A file that starts with a binary capture's magic (read_capture.h) has no
 * lines: its bytes are handed over as they are read (STINT_FOLLOW_BYTES),
 * held nowhere; the reader keeps what it cannot decode yet.
 *
 * A gzip file (found by its magic bytes) is read once, whole, and not
 * followed: a rotated, compressed log is read only when it is the path
 * given, never found by name after a rotation.
 *
 * Memory: one read buffer and the held line, both bounded.
 * Thread safety: one follower per thread.
 */
#ifndef STINT_CLI_FOLLOW_H
#define STINT_CLI_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

/* A held line may grow this long before it is handed over in pieces. */
#define STINT_FOLLOW_MAX_LINE ((size_t)4 << 20)

/* Events of one poll (bits). */
enum {
    STINT_FOLLOW_TRUNCATED = 1u << 0, /* the file got shorter: read again from its start */
    STINT_FOLLOW_ROTATED = 1u << 1,   /* the path names a new file: switched to it */
    STINT_FOLLOW_MISSING = 1u << 2,   /* the path names nothing now (the old file is kept) */
    STINT_FOLLOW_GZIP_DONE = 1u << 3  /* a gzip file was read whole (it is not followed) */
};

struct stint_follow_stats {
    uint64_t bytes;       /* bytes read, all files together (decompressed for gzip) */
    uint64_t lines;       /* whole lines handed over */
    uint64_t cut_lines;   /* lines handed over cut: their file was left before they ended */
    uint64_t long_lines;  /* pieces of lines longer than STINT_FOLLOW_MAX_LINE */
    uint64_t truncations; /* times the file got shorter */
    uint64_t rotations;   /* times the path named a new file */
    uint64_t held_bytes;  /* bytes of the line held now (not yet ended) */
    uint64_t offset;      /* bytes read of the current file */
};

/* What a call of stint_follow_fn hands over (its `what`). */
enum {
    STINT_FOLLOW_LINES = 0,   /* one or more whole lines, each ending in '\n' */
    STINT_FOLLOW_CUT = 1,     /* one cut line, without a '\n': nothing will end it */
    STINT_FOLLOW_NEW_FILE = 2, /* p NULL, n 0: what follows comes from a new file (truncated or rotated) */
    STINT_FOLLOW_BYTES = 3     /* bytes of a binary capture as read, in file order (no lines) */
};

/* Called with lines or a new file's start (see above). The bytes are valid
 * during the call only. Return 0 to go on; anything else stops the poll and
 * is returned by it. */
typedef int (*stint_follow_fn)(void *ctx, const char *p, size_t n, int what);

struct stint_follow;

/* Opens path for following. Returns a follower, or NULL with err filled
 * ("stint: PATH: why") when the file cannot be opened. Out of memory exits
 * (base/xalloc.h). */
struct stint_follow *stint_follow_open(const char *path, char *err, size_t errcap);

/* Reads what is new (see above), handing whole lines to fn. When at_most is
 * nonzero, reads at most about that many bytes (the rest waits for the next
 * poll: a long backlog is taken in steps). Returns 0, fn's nonzero value, or
 * -1 on a read error (err filled); *events gets the STINT_FOLLOW_* bits of
 * what happened (may be NULL). */
int stint_follow_poll(struct stint_follow *f, stint_follow_fn fn, void *ctx, uint64_t at_most, unsigned *events,
                      char *err, size_t errcap);

/* 1 when the last poll reached the end of what the file held (no backlog). */
int stint_follow_caught_up(const struct stint_follow *f);

/* The counts so far. */
const struct stint_follow_stats *stint_follow_get_stats(const struct stint_follow *f);

/* Closes the file and frees the follower (NULL is a no-op). The held line
 * is dropped (stats.held_bytes says how long it was). */
void stint_follow_close(struct stint_follow *f);

#endif
