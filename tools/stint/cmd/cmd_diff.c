/*
 * cmd_diff.c - `stint diff A B`: did anything get slower or faster?
 *
 * Per (cat, name) over finished spans on any track: counts, median
 * duration in A and in B, the ratio B/A of the medians, a 95% percentile
 * bootstrap confidence interval of that ratio (each side resampled with
 * replacement, independently), and the p-value of a permutation test (rank
 * sum) of "A's and B's spans are draws of one distribution". The p-values of
 * all the names judged are adjusted together (Holm: the chance that any
 * unchanged name is flagged stays under 5%, however many names there are
 * and however they depend on each other; one by one at 95%, about one
 * unchanged name in twenty was flagged). A change is flagged when the
 * interval excludes 1, the adjusted p-value is at most 0.05 and the ratio
 * differs from 1 by more than --threshold (a percentage: "5" and "5%" both
 * mean 5%); --no-correction drops the middle test. The smallest p-value R
 * permutations can give is 1 / (R + 1): a name whose p-value may be too
 * coarse to pass gets more (as many as the correction over m names needs,
 * 100 m, within a bound on the work), and one still too coarse is reported
 * `unresolved`, never silently passed or flagged. From NORMAL_MIN spans on
 * each side the test's normal approximation gives the p-value instead (no
 * permutations). Everything is seeded
 * (--seed, the name, the data), so the same inputs always give the same
 * verdicts. With fewer than --min-samples spans on a side nothing is
 * claimed. --fail-on-regression makes a flagged slowdown exit 4 (for CI).
 */
#include "analyze/analysis.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "analyze/multtest.h"
#include "write/textout.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint diff A B [--threshold 2%] [--fail-on-regression] [--seed N] [--resamples N]\n"
    "                 [--min-samples N] [--no-correction] [--json] [--strict] [--format ...] [filters]\n"
    "  per (cat, name): counts, median A and B, ratio B/A, seeded bootstrap 95% CI of the\n"
    "  median ratio, and a permutation test's p-value adjusted (Holm) over the names compared;\n"
    "  flags changes whose interval excludes 1, whose adjusted p-value is <= 0.05 (family-wise\n"
    "  error rate 5%) and that exceed the threshold.\n"
    "  --threshold is a percentage, '%' optional: 5 and 5% both mean 5%.\n"
    "  exit 4 with --fail-on-regression when a slowdown is flagged\n";

struct key_dur {
    uint32_t cat, name; /* string ids in their own model */
    int dev;            /* on a device-clock lane: never pooled with host spans */
    int64_t dur;
};

struct group {
    char *cat, *name; /* texts of catn and namen bytes (a name may hold a NUL) */
    size_t catn, namen;
    int dev;
    int64_t *a, *b;
    size_t na, nb;
    /* the figures: medians, ratio B/A, its 95% interval, p-value and adjusted
     * p-value (NaN where not tested), and the permutations the p-value took */
    double meda, medb, ratio, lo, hi, p, q;
    size_t pr, pc; /* permutations, and how many of them were as extreme as the data */
    int normal;    /* p from the rank sum's normal approximation (NORMAL_MIN spans a side), pr = pc = 0 */
    double splits; /* distinct splits of the pooled spans into the two sides (capped at 1e18) */
    int tested; /* judged: enough spans on both sides, and A's median > 0 */
    const char *verdict;
};

/* From this many spans on each side, the rank-sum test's p-value comes from
 * its normal approximation (exact mean, tie-corrected variance, continuity
 * correction) instead of random splits: a split costs a draw per span of the
 * smaller side, and the correction over many names needs p-values far into
 * the tail, where with 20,000 spans a side the permutations the work bound
 * allows could not resolve a plain slowdown (it was `unresolved`); at that
 * size the statistic is normal to well within what the cut needs. */
#define NORMAL_MIN 50

/* The family-wise error rate of the correction: 1 / ALPHA_INV = 5%. */
#define ALPHA_INV 20
static const double alpha = 1.0 / ALPHA_INV;

static int kd_cmp(const void *pa, const void *pb)
{
    const struct key_dur *a = pa, *b = pb;
    if (a->cat != b->cat)
        return a->cat < b->cat ? -1 : 1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev - b->dev;
    return (a->dur > b->dur) - (a->dur < b->dur);
}

/* Durations of m's finished spans that pass f, grouped by (cat, name, clock). */
static struct key_dur *collect(const struct stint_model *m, const struct stint_filter *f, size_t *out_n)
{
    size_t n = stint_model_nslices(m), k = 0;
    struct key_dur *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if ((s->flags & STINT_SLICE_INSTANT) || s->dur_ns < 0 || !stint_filter_slice(f, m, s))
            continue;
        const struct stint_track *tr = stint_model_track_at(m, s->track);
        v[k].cat = s->cat;
        v[k].name = s->name;
        v[k].dev = stint_model_track_device(m, tr);
        v[k].dur = s->dur_ns;
        k++;
    }
    qsort(v, k, sizeof *v, kd_cmp);
    *out_n = k;
    return v;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

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
static void bootstrap(struct group *gr, uint64_t seed, size_t r, int64_t *scratch, double *ratios)
{
    uint64_t st = seed ^ hash_bytes(gr->cat, gr->catn) ^ (hash_bytes(gr->name, gr->namen) * 3);
    uint64_t ha = hash_durs(gr->a, gr->na), hb = hash_durs(gr->b, gr->nb);
    if (ha == hb) /* the same durations on both sides: two streams still (one drew every ratio 1) */
        hb = ~hb * 0x9E3779B97F4A7C15ull;
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
static void permute(struct group *gr, uint64_t seed, size_t r, int64_t *pool)
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
static int adjust(struct group *g, size_t ng, int correction, double *pv)
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
static int needs_more(const struct group *gr, size_t need, double lim)
{
    return gr->tested && !gr->normal && gr->p <= alpha && !(gr->q <= alpha) && gr->pr < need &&
           (double)gr->pr < gr->splits &&
           (1.0 + (double)gr->pc) / (1.0 + (double)need) <= lim;
}

/* The most lenient cut of Holm's procedure a name of g[0..ng) with a p-value
 * <= alpha can face: only such names can pass, so its rank is at most their
 * count K, and the cut at rank K is alpha / (m - K + 1), m names tested. */
static double holm_lim(const struct group *g, size_t ng, size_t m)
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

/* "s" unless n is 1: "1 name", "2 names". */
static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* --threshold's value: a percentage, with or without a trailing '%' ("5%",
 * "5" and "5.0" all mean 5%, "0.5" means 0.5%), from 0 to 1000. Returns 0 and
 * sets *pct, or -1 when v is not such a number. */
static int parse_threshold_pct(const char *v, double *pct)
{
    /* decimal digits first: no sign, no blanks, no "inf"/"nan"/hex spellings */
    if (!((*v >= '0' && *v <= '9') || (*v == '.' && v[1] >= '0' && v[1] <= '9')) ||
        v[strspn(v, "0123456789.eE+-%")] != 0)
        return -1;
    char *end;
    double t = strtod(v, &end);
    if (end[0] == '%')
        end++;
    if (*end || !(t >= 0) || t > 1000)
        return -1;
    *pct = t;
    return 0;
}

/* The shared options (cmdopts.c, filters.c) that take their value as the
 * next argument: that argument is the option's value, not an input. */
static int shared_takes_value(const char *a)
{
    static const char *const names[] = {"--format", "--pid", "--tid", "--cat", "--name", "--time-range", "--min-dur"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(a, names[k]))
            return 1;
    return 0;
}

int stint_cmd_diff(int argc, char **argv)
{
    double threshold_pct = 2, threshold;
    int fail_on_regression = 0, correction = 1;
    uint64_t seed = 1;
    long resamples = 2000, min_samples = 5;
    /* the inputs, in order; more than two is an error, reported (with all of
     * them) once the shared options have been checked */
    const char **pos = malloc((size_t)argc * sizeof *pos);
    int npos = 0;
    if (!pos) {
        fprintf(stderr, "stint diff: out of memory\n");
        return 3;
    }
    int w = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            /* every argument after it is an input: the first stays in argv
             * (after the "--", for the shared parser), the others are taken out */
            argv[w++] = argv[i];
            while (++i < argc) {
                pos[npos++] = argv[i];
                if (npos == 1)
                    argv[w++] = argv[i];
            }
            break;
        }
        if (!strcmp(a, "--fail-on-regression")) {
            fail_on_regression = 1;
            continue;
        }
        if (!strcmp(a, "--no-correction")) {
            correction = 0;
            continue;
        }
        static const char *const own[] = {"--threshold", "--seed", "--resamples", "--min-samples"};
        const char *opt = NULL, *v = NULL;
        for (size_t k = 0; k < sizeof own / sizeof own[0] && !opt; k++) {
            size_t len = strlen(own[k]);
            if (!strcmp(a, own[k]))
                opt = own[k];
            else if (!strncmp(a, own[k], len) && a[len] == '=')
                opt = own[k], v = a + len + 1;
        }
        if (opt) {
            if (!v) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "stint diff: %s needs a value\n", opt);
                    free(pos);
                    return 2;
                }
                v = argv[++i];
            }
            char *end;
            if (!strcmp(opt, "--threshold")) {
                if (parse_threshold_pct(v, &threshold_pct) != 0) {
                    fprintf(stderr,
                            "stint diff: --threshold: '%s': expected a percentage from 0 to 1000, such as 5%% or 5 "
                            "(both mean 5%%)\n",
                            v);
                    free(pos);
                    return 2;
                }
            } else {
                /* --seed: any whole number >= 0; --resamples, --min-samples: >= 1 */
                const long long lo = strcmp(opt, "--seed") ? 1 : 0;
                errno = 0;
                long long x = strtoll(v, &end, 10);
                int digits = *v >= '0' && *v <= '9'; /* no sign, no blank: strtoll takes both */
                if (!digits || *end || errno == ERANGE || x < lo) {
                    if (digits && !*end && errno == ERANGE)
                        fprintf(stderr, "stint diff: %s: '%s': out of range (expected a whole number from %lld to %lld)\n",
                                opt, v, lo, LLONG_MAX);
                    else
                        fprintf(stderr, "stint diff: %s: '%s': expected a whole number from %lld to %lld\n", opt, v, lo,
                                LLONG_MAX);
                    free(pos);
                    return 2;
                }
                if (!strcmp(opt, "--seed"))
                    seed = (uint64_t)x;
                else if (!strcmp(opt, "--resamples"))
                    resamples = (long)x;
                else
                    min_samples = (long)x;
            }
            continue;
        }
        if (shared_takes_value(a) && i + 1 < argc) {
            /* keep the option and its value together for the shared parser */
            argv[w++] = argv[i++];
            argv[w++] = argv[i];
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            /* an input: the first is A (kept in argv for the shared parser),
             * the others are taken out */
            pos[npos++] = a;
            if (npos > 1)
                continue;
        }
        argv[w++] = argv[i];
    }
    argc = w;
    threshold = threshold_pct / 100;
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse(argc, argv, usage, &o);
    if (rc >= 0) {
        free(pos);
        return rc;
    }
    if (npos != 2) {
        fprintf(stderr, "stint diff: takes exactly two inputs (A and B), got %d:", npos);
        for (int k = 0; k < npos; k++)
            fprintf(stderr, "%s '%s'", k ? "," : "", pos[k]);
        fputs("\n", stderr);
        fputs(usage, stderr);
        free(pos);
        return 2;
    }
    const char *paths[2] = {pos[0], pos[1]};
    free(pos);
    if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-")) {
        fprintf(stderr, "stint diff: '-' (stdin) given as both A and B: stdin can be read only once; save one of "
                        "them to a file\n");
        return 2;
    }
    if (o.csv) {
        fprintf(stderr, "stint diff: --csv is not supported (use --json)\n");
        return 2;
    }
    struct stint_model ma, mb;
    int rca = stint_cmd_load(&o, &ma, 0);
    struct stint_cmd_opts ob = o;
    ob.path = paths[1];
    int rcb = stint_cmd_load(&ob, &mb, 0);
    if (stint_no_report(rca, &ma) || stint_no_report(rcb, &mb)) {
        stint_model_free(&ma);
        stint_model_free(&mb);
        return stint_no_report(rca, &ma) ? rca : rcb;
    }
    /* a read error after some events: what was read is compared, PARTIAL, exit 3 */
    rc = rca == 3 || rcb == 3 ? 3 : rca || rcb ? 1 : 0;
    size_t nka, nkb;
    struct key_dur *ka = collect(&ma, &o.filter, &nka), *kb = collect(&mb, &o.filter, &nkb);
    /* groups: merge the two sorted lists by (cat text, name text) */
    size_t cap = 16, ng = 0, hcap = 0;
    uint32_t *htab = NULL;
    struct group *g = malloc(cap * sizeof *g);
    int64_t *da = malloc((nka + 1) * sizeof *da), *db = malloc((nkb + 1) * sizeof *db);
    if (!ka || !kb || !g || !da || !db) {
        fprintf(stderr, "stint diff: out of memory\n");
        rc = 3;
        goto out;
    }
    for (size_t i = 0; i < nka; i++)
        da[i] = ka[i].dur;
    for (size_t i = 0; i < nkb; i++)
        db[i] = kb[i].dur;
    for (int side = 0; side < 2; side++) {
        const struct stint_model *m = side ? &mb : &ma;
        const struct key_dur *k = side ? kb : ka;
        size_t nk = side ? nkb : nka;
        int64_t *d = side ? db : da;
        for (size_t i = 0; i < nk;) {
            size_t j = i;
            while (j < nk && k[j].cat == k[i].cat && k[j].name == k[i].name && k[j].dev == k[i].dev)
                j++;
            size_t catn, namen;
            const char *cat = stint_model_str(m, k[i].cat, &catn), *name = stint_model_str(m, k[i].name, &namen);
            int dev = k[i].dev;
            /* group lookup by (cat, name) text and clock: open addressing over group indexes */
            if ((ng + 1) * 2 > hcap) {
                size_t nc = hcap ? hcap * 2 : 1024;
                uint32_t *nh = malloc(nc * sizeof *nh);
                if (!nh) {
                    rc = 3;
                    goto out;
                }
                memset(nh, 0xff, nc * sizeof *nh);
                for (size_t q = 0; q < ng; q++) {
                    size_t h = (size_t)(hash_bytes(g[q].cat, g[q].catn) ^ hash_bytes(g[q].name, g[q].namen) * 31 ^
                                        (uint64_t)g[q].dev) &
                               (nc - 1);
                    while (nh[h] != UINT32_MAX)
                        h = (h + 1) & (nc - 1);
                    nh[h] = (uint32_t)q;
                }
                free(htab);
                htab = nh;
                hcap = nc;
            }
            size_t h = (size_t)(hash_bytes(cat, catn) ^ hash_bytes(name, namen) * 31 ^ (uint64_t)dev) & (hcap - 1);
            while (htab[h] != UINT32_MAX &&
                   (g[htab[h]].dev != dev || g[htab[h]].catn != catn || g[htab[h]].namen != namen ||
                    memcmp(g[htab[h]].cat, cat, catn) || memcmp(g[htab[h]].name, name, namen)))
                h = (h + 1) & (hcap - 1);
            size_t gi = htab[h] == UINT32_MAX ? ng : htab[h];
            if (gi == ng) {
                htab[h] = (uint32_t)ng;
                if (ng == cap) {
                    cap *= 2;
                    struct group *nv = realloc(g, cap * sizeof *g);
                    if (!nv) {
                        rc = 3;
                        goto out;
                    }
                    g = nv;
                }
                memset(&g[ng], 0, sizeof g[ng]);
                g[ng].cat = (char *)cat;
                g[ng].name = (char *)name;
                g[ng].catn = catn;
                g[ng].namen = namen;
                g[ng].dev = dev;
                ng++;
            }
            if (side) {
                g[gi].b = d + i;
                g[gi].nb = j - i;
            } else {
                g[gi].a = d + i;
                g[gi].na = j - i;
            }
            i = j;
        }
    }
    size_t maxn = 1, m = 0;
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        if (gr->na > maxn)
            maxn = gr->na;
        if (gr->nb > maxn)
            maxn = gr->nb;
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
    /* bound the bootstrap's total work (resamples x spans of the judged
     * groups) to about 2e8 draws: big traces get fewer resamples, never
     * fewer than 200; the count used is reported (and is what is allocated:
     * --resamples takes up to 2^63 - 1) */
    double total_work = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested)
            total_work += (double)(g[i].na + g[i].nb);
    size_t eff_resamples = (double)resamples > 2e8 ? (size_t)2e8 : (size_t)resamples;
    if (total_work * (double)eff_resamples > 2e8)
        eff_resamples = (size_t)fmax(fmin(200, (double)resamples), 2e8 / total_work);
    /* the permutations that let a name with up to 4 splits as extreme as its
     * data pass the strictest step of the correction over m names, alpha / m:
     * (1 + 4) / (1 + need) <= 1 / (20 m) */
    size_t need = correction ? 5 * ALPHA_INV * m : 0;
    int64_t *scratch = malloc(2 * maxn * sizeof *scratch); /* (the pool of both sides) */
    double *ratios = malloc(eff_resamples * sizeof *ratios), *pv = malloc((m ? m : 1) * sizeof *pv);
    if (!scratch || !ratios || !pv) {
        fprintf(stderr, "stint diff: out of memory (%zu resamples)\n", eff_resamples);
        rc = 3;
        goto out_boot;
    }
    for (size_t i = 0; i < ng; i++)
        if (g[i].tested) {
            bootstrap(&g[i], seed, eff_resamples, scratch, ratios);
            permute(&g[i], seed, eff_resamples, scratch);
        }
    /* More permutations where the correction needs them: a name whose p-value
     * is at most alpha, not yet passing the adjusted test, and not resolved
     * finely enough for it to pass, gets its test rerun (the same splits
     * first, then more), 4 times as many each round up to `need`, within
     * about another 2e8 draws; a name whose extreme splits already rule out
     * passing stops. Each round starts, and the last one ends, with the
     * figures adjusted (they move as p-values do). */
    double ext_budget = 2e8;
    size_t r_next = eff_resamples;
    for (int round = 0;; round++) {
        if (adjust(g, ng, correction, pv) != 0) {
            fprintf(stderr, "stint diff: out of memory\n");
            rc = 3;
            goto out_boot;
        }
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
                permute(&g[i], seed, r, scratch);
                ext_budget -= (double)(g[i].na < g[i].nb ? g[i].na : g[i].nb) * (double)r;
                done++;
            }
        if (!done)
            break;
    }
    double lim = holm_lim(g, ng, m);
    size_t n_ext = 0, r_ext = 0; /* names given more permutations; the most one got */
    size_t n_normal = 0;         /* names whose p-value is the normal approximation's */
    for (size_t i = 0; i < ng; i++) {
        n_normal += g[i].tested && g[i].normal;
        if (g[i].tested && g[i].pr > eff_resamples) {
            n_ext++;
            if (g[i].pr > r_ext)
                r_ext = g[i].pr;
        }
    }
    /* the verdicts: the interval excludes 1, the adjusted test passes and the
     * change exceeds the threshold; a name that would pass but for too few
     * permutations is `unresolved`, never silently no_change */
    int regressions = 0, improvements = 0;
    size_t unresolved = 0, r_unres = 0; /* names unresolved, the most permutations one of them had */
    size_t held = 0;                     /* names the correction held back (resolved) */
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        if (!gr->tested)
            continue;
        int up = gr->lo > 1 && gr->ratio > 1 + threshold, down = gr->hi < 1 && gr->ratio < 1 - threshold;
        gr->verdict = "no_change";
        if (up || down) {
            if (!correction || gr->q <= alpha) {
                gr->verdict = up ? "slower" : "faster";
                regressions += up;
                improvements += down;
            } else if (needs_more(gr, need, lim)) {
                gr->verdict = "unresolved";
                unresolved++;
                if (gr->pr > r_unres)
                    r_unres = gr->pr;
            } else
                held++;
        }
    }
    FILE *f = stdout;
    const char *method = correction ? "holm" : "none";
    if (o.json) {
        fprintf(f, "{\"schema\":\"stint.diff/2\",\"a\":");
        stint_out_json_str(f, paths[0], strlen(paths[0]));
        fputs(",\"b\":", f);
        stint_out_json_str(f, paths[1], strlen(paths[1]));
        fprintf(f,
                ",\"threshold\":%g,\"threshold_percent\":%g,\"seed\":%" PRIu64 ",\"resamples\":%zu,"
                "\"permutations\":%zu,\"permutations_needed\":%zu,\"min_samples\":%ld,\"correction\":\"%s\","
                "\"fwer\":%s,\"tested\":%zu,\"scope\":\"durations of finished spans per (cat, name), any track, "
                "wall clock of each input; ratio = median B / median A; ci95 = percentile bootstrap of that ratio; "
                "p = permutation test (rank sum) of A and B being draws of one distribution (its normal "
                "approximation from 50 spans a side: p_method); "
                "p_adj = p adjusted over the names tested\",\"partial_a\":%s,\"partial_b\":%s,\n\"rows\":[",
                threshold, threshold_pct, seed, eff_resamples, eff_resamples, need, min_samples, method,
                correction ? "0.05" : "null", m, ma.partial ? "true" : "false", mb.partial ? "true" : "false");
    } else {
        fprintf(f, "# A = %s, B = %s; per (cat, name): median span duration (us), ratio = B/A,\n", paths[0],
                paths[1]);
        fprintf(f, "# 95%% bootstrap CI of the ratio (seed %" PRIu64 ", %zu resamples); p_adj = p-value of a "
                   "permutation test\n# (rank sum) of \"A and B are draws of one distribution\" (%zu random splits",
                seed, eff_resamples, eff_resamples);
        if (n_ext)
            fprintf(f, "; up to %zu for %zu name%s near the cut", r_ext, n_ext, plural(n_ext));
        if (n_normal)
            fprintf(f, ";\n# for the %zu name%s with %d+ spans on each side, its normal approximation instead",
                    n_normal, plural(n_normal), NORMAL_MIN);
        if (correction)
            fprintf(f, "),\n# Holm adjusted over the %zu name%s tested (family-wise error rate 5%%);\n"
                       "# flagged when the CI excludes 1, p_adj <= 0.05 and |ratio-1| > %g%%\n",
                    m, plural(m), threshold_pct);
        else
            fprintf(f, "), NOT adjusted\n# (--no-correction): each of the %zu name%s is tested alone;\n"
                       "# flagged when the CI excludes 1 and |ratio-1| > %g%%\n",
                    m, plural(m), threshold_pct);
        if (ma.partial || mb.partial)
            fprintf(f, "# PARTIAL: %s ended in an error; what was read before it is compared\n",
                    ma.partial && mb.partial ? "A and B each" : ma.partial ? "A" : "B");
        fprintf(f, "%7s %7s %12s %12s %8s %17s %10s  %-10s %s\n", "n_a", "n_b", "median_a", "median_b", "ratio",
                "ci95", "p_adj", "verdict", "cat/name");
    }
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        if (o.json) {
            fprintf(f, "%s\n{\"cat\":", i ? "," : "");
            stint_out_json_str(f, gr->cat, gr->catn);
            fputs(",\"name\":", f);
            stint_out_json_str(f, gr->name, gr->namen);
            fprintf(f, ",\"clock\":\"%s\",\"n_a\":%zu,\"n_b\":%zu,\"median_a_ns\":", gr->dev ? "device" : "host",
                    gr->na, gr->nb);
            if (gr->na)
                fprintf(f, "%.1f", gr->meda);
            else
                fputs("null", f);
            fputs(",\"median_b_ns\":", f);
            if (gr->nb)
                fprintf(f, "%.1f", gr->medb);
            else
                fputs("null", f);
            if (isnan(gr->ratio))
                fputs(",\"ratio\":null,\"ci95\":null", f);
            else if (isnan(gr->lo))
                fprintf(f, ",\"ratio\":%.9g,\"ci95\":null", gr->ratio);
            else { /* (an unbounded end, +inf, is null: JSON has no infinity) */
                fprintf(f, ",\"ratio\":%.9g,\"ci95\":[", gr->ratio);
                fprintf(f, isinf(gr->lo) ? "null," : "%.9g,", gr->lo);
                fprintf(f, isinf(gr->hi) ? "null]" : "%.9g]", gr->hi);
            }
            if (gr->tested)
                fprintf(f, ",\"p\":%.9g,\"p_adj\":%.9g,\"p_method\":\"%s\",\"permutations\":%zu", gr->p, gr->q,
                        gr->normal ? "normal" : "permutation", gr->pr);
            else
                fputs(",\"p\":null,\"p_adj\":null,\"p_method\":null,\"permutations\":null", f);
            fprintf(f, ",\"verdict\":\"%s\"}", gr->verdict);
        } else {
            char b1[32], b2[32], ci[40], rs[16], qs[16];
            if (isnan(gr->lo))
                snprintf(ci, sizeof ci, "-");
            else
                snprintf(ci, sizeof ci, "[%.4f, %.4f]", gr->lo, gr->hi);
            if (isnan(gr->ratio))
                snprintf(rs, sizeof rs, "-");
            else
                snprintf(rs, sizeof rs, "%.4f", gr->ratio);
            if (gr->tested)
                snprintf(qs, sizeof qs, "%.4g", gr->q);
            else
                snprintf(qs, sizeof qs, "-");
            fprintf(f, "%7zu %7zu %12s %12s %8s %17s %10s  %-10s ", gr->na, gr->nb, stint_an_us_f(b1, gr->meda),
                    stint_an_us_f(b2, gr->medb), rs, ci, qs, gr->verdict);
            /* the last column: cat/name escaped so one row stays one line */
            stint_out_text_str(f, gr->cat, gr->catn);
            if (gr->catn)
                putc('/', f);
            stint_out_text_str(f, gr->name, gr->namen);
            fputs(gr->dev ? "  [device clock]\n" : "\n", f);
        }
    }
    size_t both = 0;
    for (size_t i = 0; i < ng; i++)
        both += g[i].na && g[i].nb;
    if (ng && !both) /* (exit 0 and "0 slower" would read as a pass) */
        fprintf(stderr,
                "stint diff: warning: no (cat, name) is in both inputs: nothing was compared (are the categories "
                "the same? a marker log has none, a JSONL session's are span kinds)\n");
    if (unresolved)
        fprintf(stderr,
                "stint diff: warning: %zu name%s unresolved: an interval excluding 1 and a change over the "
                "threshold, but too few permutations to pass the correction: over %zu names it needs %zu, the "
                "work bound (about 2e8 draws) allowed %zu; compare fewer names (--name, --cat, --min-samples)\n",
                unresolved, plural(unresolved), m, need, r_unres);
    if (o.json)
        fprintf(f, "],\n\"slower\":%d,\"faster\":%d,\"held_back\":%zu,\"unresolved\":%zu,\"compared\":%zu}\n",
                regressions, improvements, held, unresolved, both);
    else {
        fprintf(f, "# %d slower, %d faster", regressions, improvements);
        if (held)
            fprintf(f, "; %zu name%s with an interval excluding 1 and a change over the threshold did not "
                       "pass the correction (p_adj > 0.05)",
                    held, plural(held));
        if (unresolved)
            fprintf(f, "; %zu unresolved: the correction over %zu names needs %zu permutations, the work bound "
                       "allowed %zu",
                    unresolved, m, need, r_unres);
        size_t few = 0;
        for (size_t i = 0; i < ng; i++)
            if (g[i].na && g[i].nb && ((long)g[i].na < min_samples || (long)g[i].nb < min_samples))
                few++;
        if (few)
            fprintf(f, "; %zu name(s) have fewer than %ld spans on a side: too few samples to say anything", few,
                    min_samples);
        putc('\n', f);
    }
    if (fflush(f) != 0)
        rc = 3;
    if (rc == 0 && fail_on_regression && regressions)
        rc = 4;
out_boot:
    free(scratch);
    free(ratios);
    free(pv);
out:
    free(htab);
    free(g);
    free(ka);
    free(kb);
    free(da);
    free(db);
    stint_model_free(&ma);
    stint_model_free(&mb);
    return rc;
}
