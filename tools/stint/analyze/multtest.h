/* SPDX-License-Identifier: MIT */
/*
 * multtest.h - Monte Carlo p-values and their adjustment for testing many
 * names at once (used by `stint diff`).
 *
 * A permutation test's Monte Carlo p-value counts the random rearrangements
 * at least as extreme as the data and is never 0: (1 + count) / (1 + draws),
 * so with R draws the smallest is 1 / (R + 1). Holm's step-down adjustment
 * turns m such p-values into adjusted ones: rejecting every test whose
 * adjusted p-value is <= alpha keeps the family-wise error rate (the chance
 * of rejecting any true null at all) at alpha, whatever the dependence
 * between the tests. Pure functions; the adjustment allocates one index
 * array.
 */
#ifndef STINT_CLI_MULTTEST_H
#define STINT_CLI_MULTTEST_H

#include <stddef.h>

/* Monte Carlo p-value of a randomization (permutation) test: n_extreme of
 * draws random rearrangements gave a statistic at least as extreme as the
 * observed one. (1 + n_extreme) / (1 + draws), counting the observed
 * arrangement as one of them: never 0, at least 1 / (draws + 1), and valid
 * (P(p <= x) <= x under the null) for any number of draws. */
double stint_mt_mc_p(size_t n_extreme, size_t draws);

/* Holm adjusted p-values: with the p-values in ascending order p(1) <= ... <=
 * p(n), the adjusted one of rank k is the largest of min(1, (n - j + 1) p(j))
 * over the ranks j <= k (tied p-values get the same one); q[i] <= alpha
 * exactly when Holm's step-down procedure at level alpha rejects test i. p
 * and q may be the same array. Every p[i] must be a number in [0, 1]. 0 on
 * success, -1 when out of memory (q is then left as it was). */
int stint_mt_holm_adjust(const double *p, size_t n, double *q);

#endif
