/* SPDX-License-Identifier: MIT */
/*
 * steps_stream.h - the per-step breakdown of `stint steps` (analysis.h,
 * struct stint_steps_sparse) built from the spans a model streams to its
 * span sink (model.h, stint_span_sink), so that a lean model (STINT_MODEL_LEAN)
 * need not keep them: per step only its figures, one cell per child name
 * that occurs in it and (for the text table's "other" column) its direct
 * children's intervals clipped to it; per track only the spans open on it.
 *
 * The result is the one stint_steps_sparse_compute gives on the whole model
 * of the same input, byte for byte in every output, or the finish says it
 * cannot tell (two steps of one clock start at the same time and one of them
 * is a lean record whose input order its reader did not give; or a span's
 * parent is not the one open above it on its track): the caller then reads
 * the whole model.
 */
#ifndef STINT_CLI_STEPS_STREAM_H
#define STINT_CLI_STEPS_STREAM_H

#include "analyze/analysis.h"
#include "model/filters.h"
#include "model/model.h"

#include <stddef.h>

struct stint_steps_stream;

/* A new, empty stream for steps whose names match step_glob (case-blind),
 * of the spans filter selects (NULL: all; it must outlive the stream).
 * keep_ivs: keep each step's child intervals, which only the "other"
 * column needs (a bounded column count). Never NULL (out of memory exits). */
struct stint_steps_stream *stint_steps_stream_new(const char *step_glob, const struct stint_filter *filter,
                                                  int keep_ivs);
/* Takes no slice from the stream, only lean records: the finish takes the
 * model's slices as the stream would have (their parents are the model's).
 * For a model whose slices and lean records never nest in one another (a
 * marker log read lean). Call before reading. */
void stint_steps_stream_defer_slices(struct stint_steps_stream *ss);
/* A lean record's input order (readers.h, lean_seq_fn; ctx is the stream),
 * kept for the records whose name is a step name: two steps of one clock
 * that start in the same ns are then put in input order as the whole
 * model would (a record noted twice, with the same lane, times and name,
 * has no order known). */
void stint_steps_stream_seq(void *ctx, const struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns,
                            uint32_t name, uint32_t seq);
/* The span sink (model.h): ctx is the stream. */
void stint_steps_stream_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);
/* After the read (the model finished): fills r as stint_steps_sparse_compute
 * would, with at most max_shown shown child names (SIZE_MAX: all), and
 * returns 0; 1 when the streamed spans cannot tell the steps' order or
 * parents (r empty: read the whole model); -1 when out of memory. */
int stint_steps_stream_finish(struct stint_steps_stream *ss, const struct stint_model *m, size_t max_shown,
                              struct stint_steps_sparse *r);
void stint_steps_stream_free(struct stint_steps_stream *ss);

#endif
