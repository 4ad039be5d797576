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
#include "analyze/summary_tally.h"

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

#endif
