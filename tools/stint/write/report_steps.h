/* SPDX-License-Identifier: MIT */
/*
 * report_steps.h - the HTML report's steps section (report_steps.c): the
 * figures of `stint steps` for the named or guessed step, from a whole
 * model or from the step table a lean model's stream gave
 * (report_steps_stream.c).
 */
#ifndef STINT_CLI_REPORT_STEPS_H
#define STINT_CLI_REPORT_STEPS_H

#include "analyze/analysis.h"
#include "model/model.h"

#include <stdio.h>

/* the steps table's child columns when none are asked for, and its rows */
enum { STINT_REPORT_STEP_COLUMNS = 8, STINT_REPORT_STEP_ROWS = 500 };

/* s as HTML text (report_html.c): '<' '>' '&' '"' escaped, bytes that are
 * not UTF-8 written as U+FFFD. */
void stint_report_html_str(FILE *f, const char *s);

/* name as an fnmatch pattern that matches only itself, in a new string. */
char *stint_report_glob_literal(const char *name);

/* The steps section from the finished whole model m: steps named step (a
 * glob), or, when step is NULL, the most frequent root span name holding
 * "step" (said guessed). Returns 0, or -1 when out of memory. */
int stint_report_steps_section(FILE *f, const struct stint_model *m, const char *step, size_t columns);

/* The steps section from a computed table sr (its nshown columns chosen as
 * stint_steps_sparse_compute chooses them) of the steps named step (guessed
 * when guessed is set); sr NULL: no step name (none given, none guessed).
 * Returns 0, or -1 when out of memory. */
int stint_report_steps_write(FILE *f, const struct stint_model *m, const char *step, int guessed,
                             const struct stint_steps_sparse *sr);

#endif
