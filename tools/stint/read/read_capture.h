/* SPDX-License-Identifier: MIT */
/*
 * read_capture.h - decoding libstint's binary capture
 * (docs/formats/capture.md), block by block.
 *
 * The decoder checks what a reader must not trust (magic, version, byte
 * order, block heads, Fletcher-64 sums, entry sizes and kinds, string ids)
 * and hands the entries of each good block to callbacks, strings resolved.
 * A block cut by the end of the file (a crash, a copy in progress) gives
 * every whole entry before the cut and counts the rest as torn; a block
 * whose sums do not match is skipped whole and counted. Nothing is
 * repaired in silence: every such case is a counted problem with a message.
 *
 * Invariant: every pointer handed to a callback is valid only during the
 * call (it points into the input window or the string table).
 */
#ifndef STINT_CLI_READ_CAPTURE_H
#define STINT_CLI_READ_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define STINT_CAP_MAGIC "STINTCAP"
#define STINT_CAP_VERSION 1u
#define STINT_CAP_HEADER_MIN 64u
#define STINT_CAP_BLOCK_HEAD 32u
#define STINT_CAP_BLOCK_MAGIC 0x4B4C4253u
#define STINT_CAP_BLOCK_MAX ((uint32_t)1 << 28) /* a payload larger than this is not a block */
#define STINT_CAP_ATTR_MAX 16

enum { STINT_CAP_E_STRING = 1, STINT_CAP_E_SPAN = 2, STINT_CAP_E_THREAD = 3, STINT_CAP_E_DROP = 4, STINT_CAP_E_CLOCK = 5 };
enum { STINT_CAP_F_DEVICE = 1, STINT_CAP_F_TRUNC = 2, STINT_CAP_F_AUTOCLOSED = 4 };
enum { STINT_CAP_A_I64 = 1, STINT_CAP_A_U64, STINT_CAP_A_F64, STINT_CAP_A_BOOL, STINT_CAP_A_STR };

/* A piece of text: not NUL-terminated. */
struct stint_cap_text {
    const char *ptr;
    size_t len;
};

struct stint_cap_attr {
    struct stint_cap_text key;
    int type;          /* STINT_CAP_A_* (another number: written as '?') */
    uint64_t v;        /* I64/U64/BOOL: the value; F64: its bits */
    struct stint_cap_text s; /* STR */
};

/* One span record, resolved. */
struct stint_cap_span {
    int32_t pid; /* the header's process */
    int32_t tid;
    int32_t depth;
    unsigned flags; /* STINT_CAP_F_* */
    struct stint_cap_text name, static_attrs;
    int64_t ts_ns, dur_ns;
    uint64_t inv, hid;
    unsigned nattr;
    struct stint_cap_attr attrs[STINT_CAP_ATTR_MAX];
    uint64_t offset; /* the record's byte offset in the file */
    uint32_t size;   /* the entry's bytes (56, its attributes, their string values) */
};

/* What the header says. */
struct stint_cap_header {
    uint32_t version;
    int32_t pid;
    int64_t anchor_mono_ns, anchor_real_ns;
    uint32_t clock; /* 0 CLOCK_MONOTONIC, 1 TSC, 2 a test clock */
};

enum stint_cap_problem {
    STINT_CAP_P_TORN,      /* the last block is cut: n = entries lost (its head's count less those kept) */
    STINT_CAP_P_BAD_BLOCK, /* sums or head do not hold: n = entries skipped (its head's count) */
    STINT_CAP_P_BAD_ENTRY, /* an entry in a good block that cannot be used (unknown kind, unknown string) */
    STINT_CAP_P_TAIL,      /* bytes after the last block that are no block head: n = bytes */
};

struct stint_cap_callbacks {
    void *ctx;
    void (*header)(void *ctx, const struct stint_cap_header *h);
    void (*span)(void *ctx, const struct stint_cap_span *s);
    void (*thread)(void *ctx, int32_t pid, int32_t tid, struct stint_cap_text name);
    void (*drop)(void *ctx, int32_t pid, int32_t tid, uint64_t count, int64_t first_ns, int64_t last_ns);
    /* a problem at byte offset (the block or entry), why in words */
    void (*problem)(void *ctx, enum stint_cap_problem kind, uint64_t offset, uint64_t n, const char *why);
};

struct stint_cap_stats {
    uint64_t blocks, entries, spans, strings, threads, drops;
    uint64_t torn_entries, torn_bytes, bad_blocks, bad_entries;
};

struct stint_cap_dec;

/* A decoder; out of memory exits (base/xalloc.h). */
struct stint_cap_dec *stint_cap_dec_new(const struct stint_cap_callbacks *cb);
void stint_cap_dec_free(struct stint_cap_dec *d);

/* Whether buf[0..len) starts like a capture (its magic). */
int stint_cap_is_capture(const void *buf, size_t len);

/* Decodes from buf[0..len), the file's bytes from offset base on (base 0:
 * the header first). Returns the bytes consumed (whole header or blocks);
 * with eof set, the rest is the file's end and is taken too (a cut block
 * recovered as far as it goes, counted). Returns -1 with why set (static
 * text) when the header is not a capture this reader reads: nothing is
 * decoded then. */
long stint_cap_dec_feed(struct stint_cap_dec *d, const uint8_t *buf, size_t len, uint64_t base, int eof,
                        const char **why);

/* The bytes the decoder needs in one window to go on (a block's whole
 * length once its head is seen), so the caller can grow its window. */
size_t stint_cap_dec_want(const struct stint_cap_dec *d);

const struct stint_cap_stats *stint_cap_dec_stats(const struct stint_cap_dec *d);

struct stint_input;
struct stint_mparse_record;

/* Decodes the input in (opened, not yet consumed) through d to its end:
 * each window as far as it goes, then the next read. on_window (may be
 * NULL) is told after each window how many bytes it gave. Returns 0 at the
 * input's end, 1 with *why set (static text) when the input is not a
 * capture this reader reads, -2 when a read failed (in->err says why);
 * what was decoded before a failure has reached the callbacks. */
int stint_cap_decode_input(struct stint_cap_dec *d, struct stint_input *in, void (*on_window)(void *ctx, size_t used),
                           void *ctx, const char **why);

/* The marker record the marker sink would have written for s
 * (docs/formats/markers.md), its text built in *line (grown as needed,
 * *cap its size): r's texts point into *line until the next call. The name
 * is kept as recorded; attribute keys and values become marker tokens by
 * the marker sink's rules. */
void stint_cap_span_record(const struct stint_cap_span *s, char **line, size_t *cap, struct stint_mparse_record *r);

#endif
