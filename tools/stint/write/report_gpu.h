/* SPDX-License-Identifier: MIT */
/*
 * report_gpu.h - the HTML report's GPU section (report_gpu.c): drawn only
 * when the trace has device work.
 */
#ifndef STINT_CLI_REPORT_GPU_H
#define STINT_CLI_REPORT_GPU_H

#include "analyze/gpu.h"
#include "model/model.h"

#include <stdio.h>

/* Writes the GPU section for the finished model m (read with args, so that
 * correlations are known) to f: utilization per device over time, the class
 * breakdown, the top kernels and per-step bars. Writes nothing and returns 0
 * when m has no device work; else 1. Out of memory exits. */
int stint_report_gpu_section(FILE *f, const struct stint_model *m);
/* The same from c, the collector (analyze/gpu.h) that took m's spans as a
 * lean model was read and finished (stint_gpu_collect_ok); c is emptied
 * (free it after). */
int stint_report_gpu_collected(FILE *f, struct stint_gpu_collect *c, const struct stint_model *m);
/* The section of a computed result; frees r's contents. */
void stint_report_gpu_result(FILE *f, struct stint_gpu_result *r);

#endif
