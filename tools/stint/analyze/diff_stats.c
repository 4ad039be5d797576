/* SPDX-License-Identifier: MIT */
/*
 * diff_stats.c - the statistics of `stint diff` (see diff_stats.h).
 *
 * Per tested group: a 95% percentile bootstrap interval of the ratio of
 * medians B/A (each side resampled with replacement, independently, from its
 * own seeded stream), and the p-value of a permutation test (rank sum) of
 * "A's and B's spans are draws of one distribution". The p-values of all the
 * groups judged are adjusted together (Holm: the chance that any unchanged
 * name is flagged stays under 5%, however many names there are and however
 * they depend on each other). The smallest p-value R permutations can give is
 * 1 / (R + 1): a name whose p-value may be too coarse to pass gets more (as
 * many as the correction over m names needs, 100 m, within a bound on the
 * work), and one still too coarse is `unresolved`, never silently passed or
 * flagged. From NORMAL_MIN spans on each side the test's normal
 * approximation gives the p-value instead (no permutations).
 *
 * Invariants: every draw is seeded by the seed, the group's cat and name and
 * its durations, so the same inputs give the same figures whatever their
 * order (swapping A and B mirrors the interval and keeps the p-value); the
 * seed hashes (FNV-1a) and the stream (splitmix64) are part of the output and
 * must not change; the work is bounded (about 2e8 draws for the bootstrap,
 * as many again for the extra permutations).
 */
#include "analyze/diff_stats.h"
#include "analyze/analysis.h"
#include "analyze/multtest.h"
#include "base/hash.h"
#include "base/xalloc.h"
#include "stint/stint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* From this many spans on each side, the rank-sum test's p-value comes from
 * its normal approximation (exact mean, tie-corrected variance, continuity
 * correction) instead of random splits: a split costs a draw per span of the
 * smaller side, and the correction over many names needs p-values far into
 * the tail, where with 20,000 spans a side the permutations the work bound
 * allows could not resolve a plain slowdown (it was `unresolved`); at that
 * size the statistic is normal to well within what the cut needs. */
#define NORMAL_MIN STINT_DSTAT_NORMAL_MIN

/* The family-wise error rate of the correction: 1 / ALPHA_INV = 5%. */
#define ALPHA_INV 20
static const double alpha = 1.0 / ALPHA_INV;

/* splitmix64: the stream's next draw. */
static uint64_t rng_next(uint64_t *s)
{
    return stint_hash_splitmix64(*s += STINT_HASH_GOLDEN);
}

/* FNV-1a of n bytes (part of the seeds: it must stay this formula, or the
 * resamples, and so the figures, change). */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* A side's durations (sorted) as a seed part: each side's resamples come
 * from its own stream, chosen by its data, so swapping A and B draws the
 * same resamples of each (the ratio's interval mirrors; one stream through
 * A then B gave verdicts that depended on the order). */
static uint64_t hash_durs(const int64_t *v, size_t n)
{
    uint64_t h = 0x84222325cbf29ce4ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)v[i]) * 0x100000001b3ull;
    return h;
}

/* k-th smallest of v[0..n) (partially reorders v). */
static int64_t select_k(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* Median of v[0..n), n >= 1 (reorders v). */
static double median_inplace(int64_t *v, size_t n)
{
    if (n % 2)
        return (double)select_k(v, n, n / 2);
    int64_t hi = select_k(v, n, n / 2);
    int64_t lo = v[0];
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return ((double)lo + (double)hi) / 2;
}

/* Median of a resample (with replacement) of v[0..n). */
static double resample_median(const int64_t *v, size_t n, int64_t *scratch, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = v[rng_next(rng) % n];
    return median_inplace(scratch, n);
}

/* Bootstraps gr's ratio of medians B/A with r >= 1 resamples into
 * ratios[0..r) (scratch holds the larger side): each side is resampled from a
 * stream seeded by seed, the name and the side's own durations. Sets gr->lo
 * and gr->hi, the 95% percentile interval. */
static void bootstrap(struct stint_dstat_group *gr, uint64_t seed, size_t r, int64_t *scratch, double *ratios)
{
    uint64_t st = seed ^ hash_bytes(gr->cat, gr->catn) ^ (hash_bytes(gr->name, gr->namen) * 3);
    uint64_t ha = hash_durs(gr->a, gr->na), hb = hash_durs(gr->b, gr->nb);
    if (ha == hb) /* the same durations on both sides: two streams still (one drew every ratio 1) */
        hb = ~hb * STINT_HASH_GOLDEN;
    uint64_t sta = st ^ ha, stb = st ^ hb;
    for (size_t k = 0; k < r; k++) {
        double ma = resample_median(gr->a, gr->na, scratch, &sta);
        double mb = resample_median(gr->b, gr->nb, scratch, &stb);
        /* a resample whose A median is 0 (zero-length spans) has no finite
         * ratio: +inf, or 1 when B's is 0 too; left out, the interval shrank
         * to the other resamples (a false "faster") */
        ratios[k] = ma > 0 ? mb / ma : mb > 0 ? INFINITY : 1.0;
    }
    stint_an_sort_f64(ratios, r);
    gr->lo = stint_an_quantile_f64(ratios, r, 0.025);
    gr->hi = stint_an_quantile_f64(ratios, r, 0.975);
}

/* Permutation test of "gr's A and B spans are draws of one distribution"
 * by their rank sum (Wilcoxon-Mann-Whitney; ties share their mean rank), with
 * r >= 1 random splits of the pooled spans into sides of gr's sizes (pool:
 * room for na + nb values). Sets gr->pc to the splits whose smaller side's
 * rank sum is at least as far from its mean as the data's, gr->pr = r and
 * gr->p = (1 + pc) / (1 + r): two-sided, never 0, valid for any r. Ranks, not
 * medians: a median of a few spans (or of tied ones) moves in steps too
 * coarse for the test to see a clean separation. Seeded by seed, the name and
 * the pooled durations; the pool is sorted and the smaller side drawn from
 * it, so swapping A and B gives the same p-value, and the first k splits are
 * the same for any r >= k. */
static void permute(struct stint_dstat_group *gr, uint64_t seed, size_t r, int64_t *pool)
{
    size_t na = gr->na, nb = gr->nb, n = na + nb, k = na < nb ? na : nb;
    const int64_t *side = na <= nb ? gr->a : gr->b; /* the side whose rank sum is the statistic */
    /* both sides are sorted (collect): merge them */
    for (size_t i = 0, j = 0, o = 0; o < n; o++)
        pool[o] = j >= nb || (i < na && gr->a[i] <= gr->b[j]) ? gr->a[i++] : gr->b[j++];
    uint64_t st = seed ^ hash_bytes(gr->cat, gr->catn) ^ (hash_bytes(gr->name, gr->namen) * 3) ^
                  (hash_durs(pool, n) * 5);
    /* twice the mid-ranks (integers): a run of ties at 0-based [i, j) has
     * ranks i+1..j, mean (i+1+j)/2; the data's statistic sums them over the
     * side, walking its sorted values along the runs */
    int64_t s_obs = 0;
    double ties = 0; /* the sum of t^3 - t over the runs of t tied values */
    for (size_t i = 0, q = 0; i < n;) {
        size_t j = i;
        while (j < n && pool[j] == pool[i])
            j++;
        while (q < k && side[q] == pool[i])
            s_obs += (int64_t)(i + 1 + j), q++;
        for (size_t t = i; t < j; t++)
            pool[t] = (int64_t)(i + 1 + j);
        ties += ((double)(j - i) * (double)(j - i) - 1) * (double)(j - i);
        i = j;
    }
    const int64_t mean2 = (int64_t)(k * (n + 1)); /* twice the rank sum's mean: k (n + 1) / 2 */
    int64_t d_obs = s_obs > mean2 ? s_obs - mean2 : mean2 - s_obs;
    if (k >= NORMAL_MIN) {
        /* Var(S) = na nb / 12 ((n + 1) - ties / (n (n - 1))); in doubled units 4 Var(S), and a
         * continuity correction of half the smallest step of S (1 in doubled units) */
        double v4 = (double)na * (double)nb / 3.0 * ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
        double z = v4 > 0 ? ((double)d_obs - 1 > 0 ? (double)d_obs - 1 : 0) / sqrt(v4) : 0;
        double p = v4 > 0 ? erfc(z / sqrt(2.0)) : 1;
        gr->p = p < 1 ? p : 1;
        gr->pr = gr->pc = 0;
        gr->normal = 1;
        return;
    }
    size_t c = 0;
    for (size_t t = 0; t < r; t++) {
        /* a uniform k-subset to the front (partial Fisher-Yates: uniform from
         * any order the pool is left in) */
        int64_t sum = 0;
        for (size_t i = 0; i < k; i++) {
            size_t j = i + (size_t)(rng_next(&st) % (n - i));
            int64_t tmp = pool[i];
            pool[i] = pool[j];
            pool[j] = tmp;
            sum += pool[i];
        }
        c += (sum > mean2 ? sum - mean2 : mean2 - sum) >= d_obs;
    }
    gr->p = stint_mt_mc_p(c, r);
    gr->pr = r;
    gr->pc = c;
}

/* Sets q of the tested groups of g[0..ng): their p-values adjusted by Holm
 * over all of them, or the p-values as they are when correction is 0. pv is
 * scratch for as many values as there are tested groups. 0, or -1 when out
 * of memory. */
static int adjust(struct stint_dstat_group *g, size_t ng, int correction, double *pv)
{
    size_t m = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested)
            pv[m++] = g[i].p;
    if (correction && stint_mt_holm_adjust(pv, m, pv) != 0)
        return -1;
    m = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested)
            g[i].q = pv[m++];
    return 0;
}

/* Whether more permutations could change gr's verdict under the correction:
 * its p-value is at most alpha, its adjusted p-value does not pass yet, it
 * had fewer than need permutations (need: enough for a name with a few
 * extreme splits to pass the correction's strictest step; 0 with no
 * correction, where nothing needs more), fewer than its spans have distinct
 * splits (past that its p-value is about as fine as its data allow: 5 spans
 * a side have 252 splits, and no p-value below 2 / 252), and the extreme
 * splits it already has still let it reach lim, the most lenient cut it can
 * face, with need permutations. */
static int needs_more(const struct stint_dstat_group *gr, size_t need, double lim)
{
    return gr->tested && !gr->normal && gr->p <= alpha && !(gr->q <= alpha) && gr->pr < need &&
           (double)gr->pr < gr->splits &&
           (1.0 + (double)gr->pc) / (1.0 + (double)need) <= lim;
}

/* The most lenient cut of Holm's procedure a name of g[0..ng) with a p-value
 * <= alpha can face: only such names can pass, so its rank is at most their
 * count K, and the cut at rank K is alpha / (m - K + 1), m names tested. */
static double holm_lim(const struct stint_dstat_group *g, size_t ng, size_t m)
{
    size_t k = 0;
    for (size_t i = 0; i < ng; i++)
        k += g[i].tested && g[i].p <= alpha;
    return k ? alpha / (double)(m - k + 1) : alpha / (double)(m ? m : 1);
}

/* C(n, k), or 1e18 when larger. */
static double choose_capped(size_t n, size_t k)
{
    double c = 1;
    for (size_t i = 1; i <= k && c < 1e18; i++)
        c = c * (double)(n - k + i) / (double)i;
    return c < 1e18 ? c : 1e18;
}
/* Medians, ratio and first verdict of every group; which are tested. Returns
 * the count tested and sets *maxn to the largest side (at least 1). */
static size_t prejudge(struct stint_dstat_group *g, size_t ng, long min_samples, size_t *maxn)
{
    size_t m = 0;
    *maxn = 1;
    for (size_t i = 0; i < ng; i++) {
        struct stint_dstat_group *gr = &g[i];
        if (gr->na > *maxn)
            *maxn = gr->na;
        if (gr->nb > *maxn)
            *maxn = gr->nb;
        gr->meda = stint_an_quantile(gr->a, gr->na, 0.5);
        gr->medb = stint_an_quantile(gr->b, gr->nb, 0.5);
        gr->ratio = gr->lo = gr->hi = gr->p = gr->q = NAN;
        if (!gr->na || !gr->nb)
            gr->verdict = !gr->na ? "only_b" : "only_a";
        else if ((long)gr->na < min_samples || (long)gr->nb < min_samples)
            gr->verdict = "too_few";
        else if (gr->meda <= 0)
            gr->verdict = "zero_a";
        else {
            gr->ratio = gr->medb / gr->meda;
            gr->splits = choose_capped(gr->na + gr->nb, gr->na < gr->nb ? gr->na : gr->nb);
            gr->tested = 1;
            m++;
        }
    }
    return m;
}

/* The resamples per group: the bootstrap's total work (resamples x spans of
 * the judged groups) is bounded to about 2e8 draws: big traces get fewer
 * resamples, never fewer than 200; the count used is reported (and is what
 * is allocated: --resamples takes up to 2^63 - 1). */
static size_t bounded_resamples(const struct stint_dstat_group *g, size_t ng, long resamples)
{
    double total_work = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested)
            total_work += (double)(g[i].na + g[i].nb);
    size_t eff_resamples = (double)resamples > 2e8 ? (size_t)2e8 : (size_t)resamples;
    if (total_work * (double)eff_resamples > 2e8)
        eff_resamples = (size_t)fmax(fmin(200, (double)resamples), 2e8 / total_work);
    return eff_resamples;
}

/* More permutations where the correction needs them: a name whose p-value
 * is at most alpha, not yet passing the adjusted test, and not resolved
 * finely enough for it to pass, gets its test rerun (the same splits first,
 * then more), 4 times as many each round up to `need`, within about another
 * 2e8 draws; a name whose extreme splits already rule out passing stops.
 * Each round starts, and the last one ends, with the figures adjusted (they
 * move as p-values do). */
static void extend(struct stint_dstat_group *g, size_t ng, const struct stint_dstat_params *prm, size_t m,
                   size_t need, size_t r_first, int64_t *scratch, double *pv)
{
    double ext_budget = 2e8;
    size_t r_next = r_first;
    for (int round = 0;; round++) {
        if (adjust(g, ng, prm->correction, pv) != 0)
            stint_die_nomem();
        if (round == 32)
            break;
        double lim = holm_lim(g, ng, m), work = 0;
        r_next = r_next > need / 4 ? need : r_next * 4;
        for (size_t i = 0; i < ng; i++)
            if (needs_more(&g[i], need, lim))
                work += (double)(g[i].na < g[i].nb ? g[i].na : g[i].nb);
        if (work == 0)
            break;
        size_t r = work * (double)r_next > ext_budget ? (size_t)(ext_budget / work) : r_next;
        size_t done = 0;
        for (size_t i = 0; i < ng; i++)
            if (needs_more(&g[i], need, lim) && g[i].pr < r) {
                permute(&g[i], prm->seed, r, scratch);
                ext_budget -= (double)(g[i].na < g[i].nb ? g[i].na : g[i].nb) * (double)r;
                done++;
            }
        if (!done)
            break;
    }
}

/* The verdicts: the interval excludes 1, the adjusted test passes and the
 * change exceeds the threshold; a name that would pass but for too few
 * permutations is `unresolved`, never silently no_change. */
static void verdicts(struct stint_dstat_group *g, size_t ng, const struct stint_dstat_params *prm,
                     struct stint_dstat_result *res)
{
    double lim = holm_lim(g, ng, res->tested), threshold = prm->threshold;
    for (size_t i = 0; i < ng; i++) {
        struct stint_dstat_group *gr = &g[i];
        if (!gr->tested)
            continue;
        res->n_normal += (size_t)gr->normal;
        if (gr->pr > res->resamples) {
            res->n_ext++;
            if (gr->pr > res->r_ext)
                res->r_ext = gr->pr;
        }
        int up = gr->lo > 1 && gr->ratio > 1 + threshold, down = gr->hi < 1 && gr->ratio < 1 - threshold;
        gr->verdict = "no_change";
        if (up || down) {
            if (!prm->correction || gr->q <= alpha) {
                gr->verdict = up ? "slower" : "faster";
                res->slower += up;
                res->faster += down;
            } else if (needs_more(gr, res->need, lim)) {
                gr->verdict = "unresolved";
                res->unresolved++;
                if (gr->pr > res->r_unres)
                    res->r_unres = gr->pr;
            } else
                res->held++;
        }
    }
}

void stint_dstat_judge(struct stint_dstat_group *g, size_t ng, const struct stint_dstat_params *prm,
                       struct stint_dstat_result *res)
{
    memset(res, 0, sizeof *res);
    size_t maxn, m = prejudge(g, ng, prm->min_samples, &maxn);
    size_t eff_resamples = bounded_resamples(g, ng, prm->resamples);
    /* the permutations that let a name with up to 4 splits as extreme as its
     * data pass the strictest step of the correction over m names, alpha / m:
     * (1 + 4) / (1 + need) <= 1 / (20 m) */
    size_t need = prm->correction ? 5 * ALPHA_INV * m : 0;
    int64_t *scratch = stint_xreallocarray(NULL, 2 * maxn, sizeof *scratch); /* (the pool of both sides) */
    double *ratios = stint_xreallocarray(NULL, eff_resamples, sizeof *ratios);
    double *pv = stint_xreallocarray(NULL, m ? m : 1, sizeof *pv);
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested) {
            bootstrap(&g[i], prm->seed, eff_resamples, scratch, ratios);
            permute(&g[i], prm->seed, eff_resamples, scratch);
        }
    extend(g, ng, prm, m, need, eff_resamples, scratch, pv);
    res->tested = m;
    res->resamples = eff_resamples;
    res->resamples_asked = (size_t)prm->resamples;
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested)
            res->work_spans += (double)(g[i].na + g[i].nb);
    res->need = need;
    verdicts(g, ng, prm, res);
    free(scratch);
    free(ratios);
    free(pv);
}
