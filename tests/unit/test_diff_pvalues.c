/* SPDX-License-Identifier: MIT */
/*
 * test_diff_pvalues.c - `stint diff`'s Monte Carlo p-values and Holm's
 * adjustment, against values computed by hand (and agreeing with R's
 * p.adjust(p, "holm")).
 */
#include "check.h"
#include "analyze/multtest.h"

#include <math.h>

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-12)

static void test_mc_p(void)
{
    /* no rearrangement as extreme: the floor 1 / (R + 1), never 0 */
    NEAR(stint_mt_mc_p(0, 2000), 1.0 / 2001);
    NEAR(stint_mt_mc_p(0, 6000), 1.0 / 6001);
    /* 99 of 2000: 100 / 2001, just under 0.05 */
    NEAR(stint_mt_mc_p(99, 2000), 100.0 / 2001);
    /* every one as extreme (identical data): 1, and never above it */
    NEAR(stint_mt_mc_p(2000, 2000), 1.0);
    NEAR(stint_mt_mc_p(2001, 2000), 1.0);
    NEAR(stint_mt_mc_p(0, 0), 1.0);
}

static void test_holm(void)
{
    /* sorted 0.005, 0.01, 0.03, 0.04, 0.5; (5 - rank + 1) p = 0.025, 0.04, 0.09,
     * 0.08, 0.5; running maximum: 0.025, 0.04, 0.09, 0.09, 0.5 */
    double p[5] = {0.01, 0.04, 0.03, 0.005, 0.5}, q[5];
    REQUIRE(stint_mt_holm_adjust(p, 5, q) == 0);
    NEAR(q[0], 0.04);
    NEAR(q[1], 0.09);
    NEAR(q[2], 0.09);
    NEAR(q[3], 0.025);
    NEAR(q[4], 0.5);
    /* four p-values of 0.04: 4p = 0.16 first, and the maximum carries: none is
     * rejected at 0.05 (Benjamini-Hochberg would reject all four) */
    double p2[4] = {0.04, 0.04, 0.04, 0.04}, q2[4];
    REQUIRE(stint_mt_holm_adjust(p2, 4, q2) == 0);
    for (int i = 0; i < 4; i++)
        NEAR(q2[i], 0.16);
    /* 1 caps, and the maximum carries up: 2 * 0.8 = 1.6 -> 1, then 0.9 -> 1 */
    double p3[2] = {0.9, 0.8}, q3[2];
    REQUIRE(stint_mt_holm_adjust(p3, 2, q3) == 0);
    NEAR(q3[0], 1.0);
    NEAR(q3[1], 1.0);
    /* in place (p is q): 3 * 0.001, 2 * 0.02, 1 * 0.3 */
    double p4[3] = {0.02, 0.001, 0.3};
    REQUIRE(stint_mt_holm_adjust(p4, 3, p4) == 0);
    NEAR(p4[0], 0.04);
    NEAR(p4[1], 0.003);
    NEAR(p4[2], 0.3);
    /* one test is not adjusted; none is nothing */
    double one = 0.2;
    REQUIRE(stint_mt_holm_adjust(&one, 1, &one) == 0);
    NEAR(one, 0.2);
    CHECK(stint_mt_holm_adjust(NULL, 0, NULL) == 0);
    /* a lone change among 300 names at the floor of 2000 permutations: 300 /
     * 2001 = 0.1499, far from 0.05; with 6000 (20 * 300, what stint diff
     * extends such a name to) the floor is 1 / 6001 and its adjusted p-value
     * 300 / 6001, just under 0.05; the others stay at 1 */
    static double big[300];
    for (int i = 0; i < 300; i++)
        big[i] = 1.0;
    big[7] = stint_mt_mc_p(0, 2000);
    REQUIRE(stint_mt_holm_adjust(big, 300, big) == 0);
    NEAR(big[7], 300.0 / 2001);
    for (int i = 0; i < 300; i++)
        big[i] = 1.0;
    big[7] = stint_mt_mc_p(0, 6000);
    REQUIRE(stint_mt_holm_adjust(big, 300, big) == 0);
    NEAR(big[7], 300.0 / 6001);
    CHECK(big[7] < 0.05);
    NEAR(big[0], 1.0);
}

int main(void)
{
    test_mc_p();
    test_holm();
    CHECK_DONE();
}
