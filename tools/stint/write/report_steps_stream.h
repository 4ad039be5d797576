/* SPDX-License-Identifier: MIT */
/*
 * report_steps_stream.h - the report's steps section from the spans a
 * lean model streams (model.h, stint_span_sink), without the model's
 * slices: the same table as stint_steps_sparse_compute over the whole
 * model (report_steps_stream.c says what it keeps per span).
 */
#ifndef STINT_CLI_REPORT_STEPS_STREAM_H
#define STINT_CLI_REPORT_STEPS_STREAM_H

#include "model/model.h"

#include <stdio.h>

struct stint_report_steps_stream;

/* A collector for the steps named step_glob (--step; it must outlive the
 * collector), or, when NULL, for the name the report guesses: a step
 * family ("ProfilerStep#*") first, else the most frequent root span name
 * holding "step". Out of memory exits. */
struct stint_report_steps_stream *stint_report_steps_stream_new(const char *step_glob);
/* Takes one streamed span (called by the report's sink, one walker, in the
 * stream's order). */
void stint_report_steps_stream_span(struct stint_report_steps_stream *s, const struct stint_model *m,
                                    const struct stint_span_ev *ev);
/* Writes the steps section (report_steps.h) with columns child columns
 * (0 = the default) for the finished model m, then frees s. Returns 0; 1
 * when two steps of one clock start at the same ns (their row order is the
 * input's, which lean records do not keep: nothing written); -1 when out
 * of memory. */
int stint_report_steps_stream_write(struct stint_report_steps_stream *s, const struct stint_model *m, FILE *f,
                                    size_t columns);
/* Frees s without writing (a read that ends another way); NULL: nothing. */
void stint_report_steps_stream_free(struct stint_report_steps_stream *s);

#endif
