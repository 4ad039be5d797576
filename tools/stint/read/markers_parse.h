/* SPDX-License-Identifier: MIT */
/*
 * markers_parse.h - a streaming reader of `[STRACE] v=1 ...` marker records.
 *
 * Grammar of one record (the reference marker format, `strace.h`), found
 * anywhere in a line after any log prefix:
 *
 *   [STRACE] v=<n> pid=<n> tid=<n> inv=<n> hid=<hex> depth=<n> name=<non-space>
 *            ts=<ns> dur=<ns> [k=v ...]
 *
 * Fields come in this order, separated by one or more blanks (space, tab, \v,
 * \f, \x1c-\x1f); numbers are decimal digits; hid is hex digits. The attrs run
 * from right after the dur digits to the end of the line (\n, \r\n or a lone
 * \r end a line, as Python's universal newlines do) or to the next `[STRACE]`
 * on the same line, whichever comes first. When a second record is glued onto
 * the same line, the log prefix in front of it (`[2026-..][T0x..][LEVEL] f: `,
 * `[mono_ns=..][T0x..]..`: a `[..]` group directly followed by `[`) is not
 * part of the first record's attrs. The attrs are trimmed of blanks at both
 * ends ("" when none).
 *
 * Counting, as the reference `strace_timing` does:
 *   - a record head is `[STRACE]`, blanks, `v=`, a digit; every head counts;
 *   - a v=1 head whose record does not complete (cut before its last field,
 *     say) is "torn": counted, reported through on_torn, and never delivered;
 *   - a record with v != 1 that has every v=1 field is delivered anyway (the
 *     reference reads it) and counted in unknown_version; a v != 1 head
 *     whose line does not follow the v=1 layout (`[STRACE] v=2 ... schema=next`)
 *     is another format's line, not a record cut short: counted in foreign,
 *     neither torn nor delivered. So heads == records + torn + foreign;
 *   - a number too wide for its type (pid/tid/inv/depth/v > UINT64_MAX,
 *     ts, dur or ts + dur >= 2^62, past stint's kept range, STINT_TS_LIMIT in
 *     tsparse.h) makes the record torn too (counted in overflow);
 *   - a line longer than MARKERS_MAX_LINE_BYTES is cut there (long_lines).
 *
 * Loss lines (libstint's, docs/formats/markers.md), found the same way:
 *
 *   [STINT] v=1 dropped pid=<n> tid=<n> count=<n> first_ts=<ns> last_ts=<ns>
 *
 * are handed to on_loss when it is set (else skipped, as any other text is).
 * A `[STINT]` followed by blanks, `v=<n>`, blanks and `dropped` is one; when
 * the rest does not follow (cut, malformed, v != 1) it is still handed over,
 * marked unread (ok 0), so that a loss is never passed over in silence. Any
 * other `[STINT]` text is not a loss line. A loss line ends no record's attrs:
 * libstint writes it on a line of its own.
 *
 * Input arrives chunk by chunk (any sizes, any split points, even inside a
 * record or a CRLF pair); memory stays bounded by the longest line, never by
 * the input. No allocation per line or per record.
 *
 * Thread safety: one parser per thread; parsers share nothing.
 */
#ifndef STINT_CLI_MARKERS_PARSE_H
#define STINT_CLI_MARKERS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A slice of the input: not NUL-terminated. */
struct stint_mparse_text {
    const char *ptr;
    size_t len;
};

/* One complete record. Every struct stint_mparse_text points into the parser's buffer and
 * is valid only during the on_record call that received it: copy what you keep. */
struct stint_mparse_record {
    uint64_t v;          /* format version as written (1 today) */
    uint64_t pid;
    uint64_t tid;
    uint64_t inv;        /* invocation id, 64-bit */
    uint64_t depth;
    int64_t ts_ns;       /* host: CLOCK_MONOTONIC; clk=dev: device offset */
    int64_t dur_ns;
    uint64_t hid;        /* hid_text as a number; low 64 bits if it is longer */
    int hid_wide;        /* 1: hid_text has more than 16 significant digits */
    struct stint_mparse_text hid_text; /* the hex digits as written (case preserved) */
    struct stint_mparse_text name;
    struct stint_mparse_text attrs;  /* raw `k=v ...` text after dur, trimmed; may be empty */
    struct stint_mparse_text text;   /* the whole record: from its '[' to its last field's last byte (the
                          * attrs' when there are any, else dur's last digit) */
    uint64_t offset;     /* byte offset of the record's '[' in the stream */
    uint64_t line;       /* 1-based line number; 0 unless options.count_lines */
};

/* Called once per complete record, in input order. Return 0 to go on; any other
 * value stops the parse and is returned by stint_mparse_feed/stint_mparse_finish. */
typedef int (*stint_mparse_record_fn)(void *ctx, const struct stint_mparse_record *rec);

/* One loss line: count spans of thread (pid, tid) lost by the writer, their
 * starts in [first_ts, last_ts] (CLOCK_MONOTONIC ns; both 0 when the writer
 * did not know them). With ok 0 the line could not be read and only why,
 * offset and line are set. */
struct stint_mparse_loss {
    int ok;
    uint64_t pid, tid, count;
    int64_t first_ts, last_ts;
    const char *why;     /* ok 0: the field that was missing or malformed (static) */
    uint64_t offset;     /* byte offset of its '[' in the stream */
    uint64_t line;       /* 1-based line number; 0 unless options.count_lines */
};

/* Called once per loss line, in input order with the records (optional).
 * Return 0 to go on; any other value stops the parse, as on_record's does. */
typedef int (*stint_mparse_loss_fn)(void *ctx, const struct stint_mparse_loss *loss);

/* Called once per torn record (optional). `offset` is the byte offset of its
 * '['; `line` is 0 unless count_lines; `why` names the field that was missing
 * or malformed (a static string, e.g. "ts=" or "dur (overflow)"). */
typedef void (*stint_mparse_torn_fn)(void *ctx, uint64_t offset, uint64_t line, const char *why);

struct stint_mparse_options {
    stint_mparse_record_fn on_record; /* required */
    stint_mparse_torn_fn on_torn;     /* optional */
    void *ctx;                   /* passed to both callbacks */
    int count_lines;             /* 1: fill record.line (costs a newline count) */
    stint_mparse_loss_fn on_loss;     /* optional: loss lines (none: they are skipped) */
    uint64_t base_offset;        /* the stream offset of the first byte fed (a part of a file read
                                  * from the middle): offsets in records, losses and torn reports
                                  * count from the file's start */
};
#define MARKERS_OPTIONS_INIT {0, 0, 0, 0, 0, 0}

struct stint_mparse_stats { /* uint64_t counts only (stint_mparse_stats_add sums every member) */
    uint64_t bytes;           /* bytes fed */
    uint64_t heads;           /* `[STRACE] v=<digit>` heads: records + torn + foreign */
    uint64_t records;         /* complete records delivered */
    uint64_t torn;            /* v=1 heads that did not complete (overflow included) */
    uint64_t foreign;         /* v != 1 heads not in the v=1 layout: neither records nor torn */
    uint64_t overflow;        /* of torn: a number too wide for its field */
    uint64_t unknown_version; /* of records: v != 1 */
    uint64_t long_lines;      /* lines cut at MARKERS_MAX_LINE_BYTES */
    uint64_t losses;          /* loss lines handed to on_loss (unread ones included) */
    uint64_t bad_losses;      /* of losses: unread (ok 0) */
};

/* A line may be this long before it is cut (and counted in long_lines). */
#define MARKERS_MAX_LINE_BYTES ((size_t)256 << 20)
/* The parser's buffer and stint_mparse_read_fd's read(2) size. */
#define MARKERS_CHUNK_BYTES ((size_t)1 << 20)

struct stint_mparse;

/* Creates a parser. Returns NULL when opt->on_record is NULL or on OOM. */
struct stint_mparse *stint_mparse_new(const struct stint_mparse_options *opt);

/* Frees the parser (NULL is a no-op). Pending unterminated input is dropped:
 * call stint_mparse_finish first to deliver it. */
void stint_mparse_free(struct stint_mparse *p);

/* Feeds the next `n` bytes of the stream (copied; `data` may be reused at once).
 * Complete lines are parsed now; a trailing partial line waits for more input.
 * Returns 0, a callback's nonzero return (the parse stops; further calls return
 * it again), or -1 when out of memory. */
int stint_mparse_feed(struct stint_mparse *p, const void *data, size_t n);

/* Zero-copy feeding: stint_mparse_write_ptr returns where up to *cap bytes may be
 * written (*cap >= MARKERS_CHUNK_BYTES / 2 unless out of memory: NULL), then
 * stint_mparse_commit(p, n) parses them as stint_mparse_feed would. */
char *stint_mparse_write_ptr(struct stint_mparse *p, size_t *cap);
int stint_mparse_commit(struct stint_mparse *p, size_t n);

/* Ends the stream: parses a last line that has no line terminator. Same return
 * values as stint_mparse_feed. Idempotent. */
int stint_mparse_finish(struct stint_mparse *p);

/* Reads `fd` to EOF in MARKERS_CHUNK_BYTES reads, feeding the parser, then
 * calls stint_mparse_finish. Returns 0, a callback's nonzero return, -1 on OOM, or
 * -2 on a read error (errno is left as read(2) set it). */
int stint_mparse_read_fd(struct stint_mparse *p, int fd);

/* The counters so far (valid until stint_mparse_free). */
const struct stint_mparse_stats *stint_mparse_get_stats(const struct stint_mparse *p);

/* Adds each count of st to sum's (the totals of several logs). Every member
 * of struct stint_mparse_stats is a uint64_t count, and all are summed. */
void stint_mparse_stats_add(struct stint_mparse_stats *sum, const struct stint_mparse_stats *st);

/* ---- attrs -------------------------------------------------------------- */

/* Iterates the blank-separated tokens of an attrs text. *cursor starts as the
 * record's attrs and is advanced past each token. A token `k=v` gives key k and
 * value v (v may be empty, and may itself hold '='); a token without '=' gives
 * key = the token and value.ptr == NULL. Returns 1 per token, 0 at the end. */
int stint_mparse_attr_next(struct stint_mparse_text *cursor, struct stint_mparse_text *key, struct stint_mparse_text *value);

/* Finds the first token `key=...` in attrs. Returns 1 and sets *value, or 0. */
int stint_mparse_attr_get(struct stint_mparse_text attrs, const char *key, struct stint_mparse_text *value);

/* Whether the record is a device span: the attrs hold the whole token
 * "clk=dev" (the reference tests for the substring; docs/cli/timing.md). */
int stint_mparse_is_device(const struct stint_mparse_record *rec);

/* 1 when the text equals the NUL-terminated string s. */
int stint_mparse_text_eq(struct stint_mparse_text t, const char *s);

#endif
