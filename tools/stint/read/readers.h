/* SPDX-License-Identifier: MIT */
/*
 * readers.h - reading a trace file into the model, whatever its format.
 *
 * Formats (detected from the content, never the file name; gzip is
 * transparent, see input.h):
 *   chrome-json  Chrome Trace Event JSON, array or object form (read_chrome.c)
 *   jsonl        stint/session/1 and candle-graph/trace/6 sessions (read_jsonl.c)
 *   markers      logs with [STRACE] v=1 records anywhere in a line (read_markers.c)
 *   capture      libstint's binary capture, by its STINTCAP magic (read_capture.c,
 *                docs/formats/capture.md)
 */
#ifndef STINT_CLI_READERS_H
#define STINT_CLI_READERS_H

#include "read/input.h"
#include "base/threads.h"
#include "model/model.h"

#include <stdio.h>

/* What --strict makes an error: repairs (kept and fixed), drops (not kept,
 * by kind or in m->dropped), losses (spans the writer lost). --strict alone
 * is all three. */
enum { STINT_STRICT_REPAIRS = 1, STINT_STRICT_DROPS = 2, STINT_STRICT_LOSSES = 4, STINT_STRICT_ALL = 7 };

struct stint_filter;
struct stint_read_opts {
    const char *format; /* NULL = detect; else "chrome", "jsonl", "markers", "capture" */
    int strict;         /* STINT_STRICT_* bits: what is an error (exit 1); 0 = nothing */
    uint64_t allow;     /* bits (1 << kind, enum stint_repair) that strict skips (--allow) */
    int quiet;          /* no progress / warnings on stderr */
    /* STINT_MODEL_SIZES: the events measured are those that pass this (NULL: all) */
    const struct stint_filter *event_filter;
    /* Chrome JSON, optional: for each complete (X) span the model keeps whose
     * category corr_want accepts, corr_fn gets its track, ids, times and
     * args.correlation as STINT_MODEL_ARGS_CORRELATION would read it (the
     * first top-level "correlation" member that is not null, an object or a
     * list: has = 1 when it is an integer), without KEEP_ARGS. Without
     * corr_part the read then stays on one thread, so the calls come in
     * input order and the ids are the model's. */
    int (*corr_want)(void *ctx, const struct stint_model *m, uint32_t cat);
    void (*corr_fn)(void *ctx, uint32_t track, uint32_t cat, uint32_t name, int64_t ts_ns, int64_t dur_ns, int has,
                    int64_t corr);
    void *corr_ctx;
    /* Optional with corr_fn: the read may then be split over threads. Each
     * part's calls go to a context of its own, corr_part(corr_ctx), with
     * that part's model and ids, in its input order; the part models carry
     * them (model.h, stint_model_part_ops) and merge them in input order;
     * at the end the whole file's is folded into corr_ctx (corr_part_ops
     * merge, NULL maps). A read on one thread calls corr_ctx itself. */
    void *(*corr_part)(void *ctx);
    const struct stint_model_part_ops *corr_part_ops;

    /* Chrome JSON with STINT_MODEL_KEEP_ARGS, optional: a slice's own args
     * object (of its X, B, instant or async begin; not an E's or e's, whose
     * args still merge into the model's) goes to args_fn as its text [a, b),
     * which the read checked already, instead of into the model's args; idx
     * is the slice's input index (stint_model_slice(m, idx)->seq names it
     * after finish). The read then stays on one thread. */
    void (*args_fn)(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b);
    void *args_ctx;
    /* Optional with args_fn (and no corr_fn): the read may then be split
     * over threads, as with corr_part: each part's calls go to a context of
     * its own, args_part(args_ctx), with that part's model and input
     * indexes; the part models merge them (args_part_ops) in input order,
     * and at the end the whole file's into args_ctx (NULL maps). */
    void *(*args_part)(void *ctx);
    const struct stint_model_part_ops *args_part_ops;

    /* Marker logs read for a lean model, optional: each record kept as a lean
     * record (read_markers_depth.c: its group nests as its depths say) goes
     * to lean_seq_fn with its lane, times, name and input order (seq, in the
     * order of the slices' seqs: a slice made of a record of the same log
     * takes its record's), as a lean record carries none (`steps` puts two
     * steps that start in the same ns in input order). */
    void (*lean_seq_fn)(void *ctx, const struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns,
                        uint32_t name, uint32_t seq);
    void *lean_seq_ctx;
};

/* Reads path ("-" = stdin) into m (initialised by the caller) and finishes
 * the model. Returns the exit code: 0 ok; 1 bad data (m holds what was read,
 * m->partial set, m->error says what and where); 3 I/O (m->error set).
 * With strict, any repair, drop or loss it names (less the kinds in allow)
 * makes the result 1. Progress goes to stderr for
 * inputs over 64 MB when stderr is a terminal. */
int stint_read_trace(const char *path, struct stint_model *m, const struct stint_read_opts *o);

/* The format path holds as stint_read_trace would detect it ("chrome",
 * "jsonl", "markers"), from its first chunk (gzip inflated); NULL when it
 * cannot be opened or is none of them. Reads only that chunk: not for "-". */
const char *stint_detect_format(const char *path);

/* The format readers; each consumes an opened input (first chunk loaded). */
int stint_read_chrome(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o);
int stint_read_jsonl(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o);
int stint_read_markers(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o);
int stint_read_capture(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o);

/* Internal: a reader whose records are marker records in another encoding
 * (the binary capture, read_capture.c) hands them to read_markers.c's
 * mapping, so they give the slices, args, losses and depth tree the marker
 * log would give: new before the first record, end (the depth tree, then
 * frees the feed) after the last. */
struct stint_markers_feed;
struct stint_mparse_record;
struct stint_mparse_loss;
struct stint_markers_feed *stint_i_markers_feed_new(struct stint_model *m, const struct stint_read_opts *o,
                                                    const char *path);
void stint_i_markers_feed_record(struct stint_markers_feed *f, const struct stint_mparse_record *r);
void stint_i_markers_feed_loss(struct stint_markers_feed *f, const struct stint_mparse_loss *l);
void stint_i_markers_feed_end(struct stint_markers_feed *f);

/* Internal: the Chrome reader on one part of a file read on several
 * threads (plain, or gzip through stint_input_open_gz_part). part 0 = the whole input, else a mask: STINT_PART_TO_SPLIT, the
 * part must end right after an event's ',' (*boundary_ok tells whether it
 * did); STINT_PART_FROM_SPLIT, it starts at an event's '{' inside the event
 * array (in_obj: the trace is the object form, so '}' may follow the array).
 * The first part of a file has only the first bit, the last only the second,
 * the ones between both. */
enum { STINT_PART_TO_SPLIT = 1, STINT_PART_FROM_SPLIT = 2 };
int stint_i_read_chrome_part(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o, int part,
                             int in_obj, int *boundary_ok);

/* Whether a command prints no report after a read that returned rc: a usage
 * error (2), or an I/O error (3) before any event was read. An I/O error
 * later leaves what was read, and the commands report it, marked PARTIAL,
 * and still exit 3. */
static inline int stint_no_report(int rc, const struct stint_model *m)
{
    return rc == 2 || (rc == 3 && m->events == 0);
}

/* The last "stint: PATH: ..." line about a read: that no report follows
 * (no_report), or that the report is PARTIAL (partial), or nothing. The
 * commands that read without a model (memory, counters --time-key) use it
 * too, so every command says it in the same words. */
void stint_report_end(FILE *f, const char *path, int no_report, int partial);

/* When the writer lost spans (m->lost, struct stint_loss), says so to f in
 * one "stint: PATH: LOST: ..." line; else nothing. */
void stint_report_losses(FILE *f, const char *path, const struct stint_model *m);

/* Prints the model's error, repairs, drops and losses to f as "stint: ..." lines;
 * rc is the read's exit code: where stint_no_report() holds, the last line
 * says that no report follows instead of calling the report partial. */
void stint_report_problems(FILE *f, const char *path, const struct stint_model *m, int rc);

/* Internal helper for readers: progress on stderr (no-op unless enabled). */
void stint_i_progress(struct stint_input *in, int done);

#endif
