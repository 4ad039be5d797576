/* SPDX-License-Identifier: MIT */
/*
 * timing_out.h - the views of `stint timing` over an analyzed timing model:
 * the per-callable table, the rounds table, the median tree (text exactly as
 * the reference prints them, or JSON), and the Chrome trace writer.
 *
 * The views only read the model. Text goes to ctx->out; errors on that stream
 * are the caller's to check (ferror). Out of memory ends the process
 * (base/xalloc.h). JSON strings are written as json.dumps writes them
 * (textout.h's stint_out_json_ascii).
 */
#ifndef STINT_CLI_TIMING_OUT_H
#define STINT_CLI_TIMING_OUT_H

#include "read/markers_parse.h"
#include "timing/timing_model.h"

#include <stdio.h>

struct stint_tout_ctx {
    const struct stint_tm_model *m;
    FILE *out;
    uint32_t warmup;           /* first invocations of each callable to drop */
    int warmup_set;            /* --warmup given: the table adds stdev */
    int json;
    int tree_depth;            /* tree from depth + order, not dotted names */
    const struct stint_mparse_stats *st;   /* for the JSON "records" object */
    int partial;               /* an input ended in an error: the JSON says "partial": true */
};

/* JSON framing: `{"view": ..., "warmup": ..., "partial": ..., "records": {...}, ` then a view
 * adds its members, then stint_tout_json_end closes (with "trace_out" when given). */
void stint_tout_json_begin(const struct stint_tout_ctx *c, const char *view);
void stint_tout_json_end(const struct stint_tout_ctx *c, const char *trace_path);

/* Whether --warmup left no invocation of any callable (there are callables,
 * and each has at most ctx->warmup invocations); *dropped (when not NULL)
 * gets the number of invocations the warmup dropped. The text views then
 * start with a line that says so, and each callable says which of its
 * invocations were dropped; the JSON views keep each callable with
 * "invocations": 0 and empty lists. */
int stint_tout_nothing_left(const struct stint_tout_ctx *c, uint64_t *dropped);

void stint_tout_table(const struct stint_tout_ctx *c);
void stint_tout_rounds(const struct stint_tout_ctx *c);
void stint_tout_tree(const struct stint_tout_ctx *c);

/* Writes the Chrome trace (the reference's layout: one process lane per
 * (pid, inv), host spans on tid 0, clk=dev spans on tid 1). The model must keep
 * attrs. The file is replaced whole or not at all (write/outfile.h), which
 * prints what failed. Returns 0 or an errno value. */
int stint_tout_chrome(const struct stint_tm_model *m, const char *path);

/* ns as microseconds, exact decimal: 100 -> 0.1, 8100000000000 -> 8100000000.0 */
void stint_tout_json_us(FILE *f, int64_t ns);

#endif
