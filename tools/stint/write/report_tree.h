/* SPDX-License-Identifier: MIT */
/*
 * report_tree.h - the report's call tree from a lean model's span stream,
 * compact (report_tree.c): 32 bytes and a hash slot per distinct call path
 * while the stream runs; at the end, a stint_calltree of only the paths the
 * flame graph draws.
 */
#ifndef STINT_CLI_REPORT_TREE_H
#define STINT_CLI_REPORT_TREE_H

#include "analyze/analysis.h"
#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

struct stint_report_tree;

/* What the finished stream gives the page. */
struct stint_report_tree_out {
    struct stint_calltree tree; /* the kept paths (node 0 the host root): sums, no durations */
    size_t paths;               /* every distinct call path (the nodes but the host root) */
    size_t left_out;            /* paths not kept */
    int64_t root_total;         /* the host root's children's totals, summed (saturating) */
};

/* An empty tree; out of memory exits. */
struct stint_report_tree *stint_report_tree_new(void);
/* Takes one streamed span (one walker, in the stream's order). */
void stint_report_tree_span(struct stint_report_tree *t, const struct stint_model *m, const struct stint_span_ev *ev);
/* Keeps the keep widest paths (total, then shallower, then first made) in
 * out and frees t. Returns 0; 1 when a span's parent was not the span open
 * on its track (explicit parents: the whole model is needed; out empty). */
int stint_report_tree_finish(struct stint_report_tree *t, size_t keep, struct stint_report_tree_out *out);
/* Frees t unfinished; NULL: nothing. */
void stint_report_tree_free(struct stint_report_tree *t);

#endif
