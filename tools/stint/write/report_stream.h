/* SPDX-License-Identifier: MIT */
/*
 * report_stream.h - the HTML report made from the spans a lean model
 * streams (model.h, STINT_MODEL_LEAN, stint_span_sink), so that `report`
 * keeps no slice of the trace: one sink feeds the lane and name tallies,
 * the call tree, the GPU collector, the steps collector, and the
 * timeline's longest slices.
 */
#ifndef STINT_CLI_REPORT_STREAM_H
#define STINT_CLI_REPORT_STREAM_H

#include "analyze/gpu.h"
#include "analyze/summary_tally.h"
#include "model/model.h"
#include "write/report_html.h"

struct stint_report_stream;

/* A report sink feeding T (initialized; computed by the caller after the
 * read) for the page o asks (o must outlive it). Out of memory exits. */
struct stint_report_stream *stint_report_stream_new(struct stint_tally *T, const struct stint_report_opts *o);
/* The GPU collector inside s: the Chrome reader's correlation hook context
 * (stint_gpu_collect_want, stint_gpu_collect_corr). */
struct stint_gpu_collect *stint_report_stream_gpu(struct stint_report_stream *s);
/* The span sink (ctx: s; one walker, no split). */
void stint_report_stream_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);
/* After the read and T's compute: fills p for stint_write_report_html_parts
 * and frees s. Returns 0; 1 when the stream could not describe the trace
 * (a span whose parent is off its track, steps of one clock that start at
 * one ns: read it whole instead; p is then empty); -1 when out of memory. */
int stint_report_stream_finish(struct stint_report_stream *s, const struct stint_model *m,
                               struct stint_report_parts *p);
/* Frees s unfinished (a read that leaves no report; m finished). */
void stint_report_stream_free(struct stint_report_stream *s, const struct stint_model *m);

#endif
