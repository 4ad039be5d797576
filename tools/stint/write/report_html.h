/* SPDX-License-Identifier: MIT */
/*
 * report_html.h - the self-contained HTML report writer: a zoomable
 * timeline per lane, a flame graph, lane/name summary and step tables, and
 * the scope notes, in one file with no network access and no external
 * assets.
 */
#ifndef STINT_CLI_REPORT_HTML_H
#define STINT_CLI_REPORT_HTML_H

#include "model/model.h"
#include "analyze/analysis.h"
#include "analyze/summary_tally.h"
#include "write/report_tree.h"

#include <stddef.h>
#include <stdio.h>

struct stint_report_opts {
    const char *input_path;  /* shown in the header */
    const char *title;       /* NULL = input_path */
    const char *step;        /* step span name (glob); NULL = guess a root name containing "step" */
    size_t max_slices;       /* timeline cap; 0 = 200000 (the longest slices are kept) */
    size_t step_columns;     /* the steps table's child columns; 0 = 8, SIZE_MAX = every name */
};

/* Writes the report for the finished model m to f, its lane and name tables
 * from T (summary_tally.h: the tally m's spans were streamed to, computed).
 * Returns 0, or -1 when out of memory (f then holds a truncated page). */
int stint_write_report_html(const struct stint_model *m, const struct stint_tally *T, FILE *f,
                            const struct stint_report_opts *o);

/* the flame graph draws at most this many call paths (the widest) */
#define STINT_REPORT_FLAME_NODES 50000

/* One slice of the timeline as the page draws it. */
struct stint_report_slice {
    int64_t ts_ns, dur_ns; /* dur_ns -1: never finished */
    uint32_t track, name;
};

/* What a report made from a lean model's span stream (report_stream.h)
 * brings in place of the model's slices; the writer takes and frees its
 * arrays and its tree. */
struct stint_report_parts {
    size_t nslices;                  /* every slice of the trace (the header's count) */
    struct stint_report_slice *pick; /* the timeline's slices, in the model's slice order */
    size_t npick, left_out;
    int64_t h0, h1, span;            /* host origin and end; the timeline's span */
    int64_t *dev_origin;             /* per lane: a device lane's own origin */
    struct stint_report_tree_out tree; /* the flame graph's paths (report_tree.h) */
    char *late;                      /* the steps and GPU sections, written */
    size_t nlate;
    int late_rc;                     /* 0, or -1: the steps section ran out of memory */
};

/* The same page as stint_write_report_html from m (a lean model, finished:
 * its strings, lanes, tracks and counts), T and the parts p. Returns 0, or
 * -1 when out of memory. */
int stint_write_report_html_parts(const struct stint_model *m, const struct stint_tally *T, FILE *f,
                                  const struct stint_report_opts *o, struct stint_report_parts *p);

#endif
