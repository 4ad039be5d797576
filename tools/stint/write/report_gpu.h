/* SPDX-License-Identifier: MIT */
/*
 * report_gpu.h - the HTML report's GPU section (report_gpu.c): drawn only
 * when the trace has device work.
 */
#ifndef STINT_CLI_REPORT_GPU_H
#define STINT_CLI_REPORT_GPU_H

#include "model/model.h"

#include <stdio.h>

/* Writes the GPU section for the finished model m (read with args, so that
 * correlations are known) to f: utilization per device over time, the class
 * breakdown, the top kernels and per-step bars. Writes nothing and returns 0
 * when m has no device work; else 1. Out of memory exits. */
int stint_report_gpu_section(FILE *f, const struct stint_model *m);

#endif
