/* SPDX-License-Identifier: MIT */
/*
 * report_trim.h - how the HTML report (report_html.c) keeps what grows with
 * the input small: the k first of an array by an order without sorting it
 * whole, and a call tree without the per-slice arrays the page never reads.
 */
#ifndef STINT_CLI_REPORT_TRIM_H
#define STINT_CLI_REPORT_TRIM_H

#include "analyze/analysis.h"

#include <stddef.h>
#include <stdint.h>

/* Reorders v[0, n) so that v[0, k) holds the k first by cmp (a strict total
 * order: no two items compare equal), in no particular order: the same set
 * that sorting v by cmp and taking its first k gives. Average O(n)
 * comparisons (quickselect), never worse than a sort (it sorts what is left
 * after 2 log2(n) rounds that did not narrow it). k >= n leaves v as it is. */
void stint_report_select(uint32_t *v, size_t n, size_t k, int (*cmp)(const void *, const void *, void *), void *ctx);

/* Frees what the page never reads of a built call tree: each node's
 * durations (quantiles) and the per-slice node and self time arrays, 20
 * bytes a slice. The nodes, their links and sums stay. */
void stint_report_tree_drop_per_span(struct stint_calltree *t);

#endif
