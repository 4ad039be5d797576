/*
 * cmd_diff.c - `stint diff A B`: did anything get slower or faster?
 *
 * Per (cat, name) over finished spans on any track: counts, median
 * duration in A and in B, the ratio B/A of the medians, and a 95% percentile
 * bootstrap confidence interval of that ratio (each side resampled with
 * replacement, independently). A change is flagged when the interval
 * excludes 1 and the ratio differs from 1 by more than --threshold (a
 * percentage: "5" and "5%" both mean 5%). The
 * bootstrap is seeded (--seed, and the name), so the same inputs always give
 * the same verdicts. With fewer than --min-samples spans on a side nothing is
 * claimed. --fail-on-regression makes a flagged slowdown exit 4 (for CI).
 */
#include "analysis.h"
#include "cmdopts.h"
#include "commands.h"
#include "textout.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint diff A B [--threshold 2%] [--fail-on-regression] [--seed N] [--resamples N]\n"
    "                 [--min-samples N] [--json] [--strict] [--format ...] [filters]\n"
    "  per (cat, name): counts, median A and B, ratio B/A, seeded bootstrap 95% CI of the\n"
    "  median ratio; flags changes whose interval excludes 1 and exceed the threshold.\n"
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
};

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

/* Median of a resample (with replacement) of v[0..n). */
static double resample_median(const int64_t *v, size_t n, int64_t *scratch, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = v[rng_next(rng) % n];
    if (n % 2)
        return (double)select_k(scratch, n, n / 2);
    int64_t hi = select_k(scratch, n, n / 2);
    int64_t lo = scratch[0];
    for (size_t i = 1; i < n / 2; i++)
        if (scratch[i] > lo)
            lo = scratch[i];
    return ((double)lo + (double)hi) / 2;
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
    int fail_on_regression = 0;
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
    size_t maxn = 1;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].na > maxn)
            maxn = g[i].na;
        if (g[i].nb > maxn)
            maxn = g[i].nb;
    }
    /* bound the bootstrap's total work (resamples x spans of the judged
     * groups) to about 2e8 draws: big traces get fewer resamples, never
     * fewer than 200; the count used is reported (and is what is allocated:
     * --resamples takes up to 2^63 - 1) */
    double total_work = 0;
    for (size_t i = 0; i < ng; i++)
        if ((long)g[i].na >= min_samples && (long)g[i].nb >= min_samples && g[i].na && g[i].nb)
            total_work += (double)(g[i].na + g[i].nb);
    size_t eff_resamples = (double)resamples > 2e8 ? (size_t)2e8 : (size_t)resamples;
    if (total_work * (double)eff_resamples > 2e8)
        eff_resamples = (size_t)fmax(fmin(200, (double)resamples), 2e8 / total_work);
    int64_t *scratch = malloc(maxn * sizeof *scratch);
    double *ratios = malloc(eff_resamples * sizeof *ratios);
    if (!scratch || !ratios) {
        fprintf(stderr, "stint diff: out of memory (%zu resamples)\n", eff_resamples);
        free(scratch);
        free(ratios);
        rc = 3;
        goto out;
    }
    FILE *f = stdout;
    int regressions = 0, improvements = 0;
    if (o.json) {
        fprintf(f, "{\"schema\":\"stint.diff/1\",\"a\":");
        stint_out_json_str(f, paths[0], strlen(paths[0]));
        fputs(",\"b\":", f);
        stint_out_json_str(f, paths[1], strlen(paths[1]));
        fprintf(f,
                ",\"threshold\":%g,\"threshold_percent\":%g,\"seed\":%" PRIu64 ",\"resamples\":%zu,\"min_samples\":%ld,\"scope\":\"durations of finished spans "
                "per (cat, name), any track, wall clock of each input; ratio = median B / median A; ci95 = "
                "percentile bootstrap of that ratio\",\"partial_a\":%s,\"partial_b\":%s,\n\"rows\":[",
                threshold, threshold_pct, seed, eff_resamples, min_samples, ma.partial ? "true" : "false", mb.partial ? "true" : "false");
    } else {
        fprintf(f, "# A = %s, B = %s; per (cat, name): median span duration (us), ratio = B/A,\n"
                   "# 95%% bootstrap CI of the ratio (seed %" PRIu64 ", %zu resamples); flagged when the CI excludes 1 and |ratio-1| "
                   "> %g%%\n",
                paths[0], paths[1], seed, eff_resamples, threshold_pct);
        if (ma.partial || mb.partial)
            fprintf(f, "# PARTIAL: %s ended in an error; what was read before it is compared\n",
                    ma.partial && mb.partial ? "A and B each" : ma.partial ? "A" : "B");
        fprintf(f, "%7s %7s %12s %12s %8s %17s  %-9s %s\n", "n_a", "n_b", "median_a", "median_b", "ratio", "ci95",
                "verdict", "cat/name");
    }
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        double meda = stint_an_quantile(gr->a, gr->na, 0.5), medb = stint_an_quantile(gr->b, gr->nb, 0.5);
        const char *verdict;
        double ratio = NAN, lo = NAN, hi = NAN;
        if (!gr->na || !gr->nb)
            verdict = !gr->na ? "only_b" : "only_a";
        else if ((long)gr->na < min_samples || (long)gr->nb < min_samples)
            verdict = "too_few";
        else if (meda <= 0)
            verdict = "zero_a";
        else {
            ratio = medb / meda;
            size_t r = eff_resamples;
            uint64_t st = seed ^ hash_bytes(gr->cat, gr->catn) ^ (hash_bytes(gr->name, gr->namen) * 3);
            uint64_t ha = hash_durs(gr->a, gr->na), hb = hash_durs(gr->b, gr->nb);
            if (ha == hb) /* the same durations on both sides: two streams still (one drew every ratio 1) */
                hb = ~hb * 0x9E3779B97F4A7C15ull;
            uint64_t sta = st ^ ha, stb = st ^ hb;
            size_t used = 0;
            for (size_t k = 0; k < r; k++) {
                double ma_ = resample_median(gr->a, gr->na, scratch, &sta);
                double mb_ = resample_median(gr->b, gr->nb, scratch, &stb);
                /* a resample whose A median is 0 (zero-length spans) has no
                 * finite ratio: +inf, or 1 when B's is 0 too; left out, the
                 * interval shrank to the other resamples (a false "faster") */
                ratios[used++] = ma_ > 0 ? mb_ / ma_ : mb_ > 0 ? INFINITY : 1.0;
            }
            stint_an_sort_f64(ratios, used);
            lo = stint_an_quantile_f64(ratios, used, 0.025);
            hi = stint_an_quantile_f64(ratios, used, 0.975);
            if (lo > 1 && ratio > 1 + threshold) {
                verdict = "slower";
                regressions++;
            } else if (hi < 1 && ratio < 1 - threshold) {
                verdict = "faster";
                improvements++;
            } else
                verdict = "no_change";
        }
        if (o.json) {
            fprintf(f, "%s\n{\"cat\":", i ? "," : "");
            stint_out_json_str(f, gr->cat, gr->catn);
            fputs(",\"name\":", f);
            stint_out_json_str(f, gr->name, gr->namen);
            fprintf(f, ",\"clock\":\"%s\",\"n_a\":%zu,\"n_b\":%zu,\"median_a_ns\":", gr->dev ? "device" : "host", gr->na,
                    gr->nb);
            if (gr->na)
                fprintf(f, "%.1f", meda);
            else
                fputs("null", f);
            fputs(",\"median_b_ns\":", f);
            if (gr->nb)
                fprintf(f, "%.1f", medb);
            else
                fputs("null", f);
            if (isnan(ratio))
                fputs(",\"ratio\":null,\"ci95\":null", f);
            else if (isnan(lo))
                fprintf(f, ",\"ratio\":%.9g,\"ci95\":null", ratio);
            else { /* (an unbounded end, +inf, is null: JSON has no infinity) */
                fprintf(f, ",\"ratio\":%.9g,\"ci95\":[", ratio);
                fprintf(f, isinf(lo) ? "null," : "%.9g,", lo);
                fprintf(f, isinf(hi) ? "null]" : "%.9g]", hi);
            }
            fprintf(f, ",\"verdict\":\"%s\"}", verdict);
        } else {
            char b1[32], b2[32], ci[40];
            if (isnan(lo))
                snprintf(ci, sizeof ci, "-");
            else
                snprintf(ci, sizeof ci, "[%.4f, %.4f]", lo, hi);
            char rs[16];
            if (isnan(ratio))
                snprintf(rs, sizeof rs, "-");
            else
                snprintf(rs, sizeof rs, "%.4f", ratio);
            fprintf(f, "%7zu %7zu %12s %12s %8s %17s  %-9s ", gr->na, gr->nb, stint_an_us_f(b1, meda),
                    stint_an_us_f(b2, medb), rs, ci, verdict);
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
    if (o.json)
        fprintf(f, "],\n\"slower\":%d,\"faster\":%d,\"compared\":%zu}\n", regressions, improvements, both);
    else {
        fprintf(f, "# %d slower, %d faster", regressions, improvements);
        size_t few = 0;
        for (size_t i = 0; i < ng; i++)
            if (g[i].na && g[i].nb && ((long)g[i].na < min_samples || (long)g[i].nb < min_samples))
                few++;
        if (few)
            fprintf(f, "; %zu name(s) have fewer than %ld spans on a side: too few samples to say anything", few,
                    min_samples);
        putc('\n', f);
    }
    free(scratch);
    free(ratios);
    if (fflush(f) != 0)
        rc = 3;
    if (rc == 0 && fail_on_regression && regressions)
        rc = 4;
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
