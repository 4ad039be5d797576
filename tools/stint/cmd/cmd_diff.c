/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `stint diff A B`: did anything get slower or faster?
 *
 * Reads A and B, groups the durations of their finished spans (any track)
 * by (cat, name, clock), has analyze/diff_stats.c judge each group (medians,
 * ratio B/A, seeded bootstrap interval, permutation test, Holm over the
 * names compared) and prints the table or its JSON. A change is flagged
 * when the interval excludes 1, the adjusted p-value is at most 0.05 and the
 * ratio differs from 1 by more than --threshold (a percentage: "5" and "5%"
 * both mean 5%); --no-correction drops the middle test. With fewer than
 * --min-samples spans on a side nothing is claimed. --fail-on-regression
 * makes a flagged slowdown exit STINT_EXIT_REGRESSION (for CI).
 *
 * Invariants: the groups are in the order A's sorted (cat, name, clock) ids
 * and then B's first meet them, matched by text (the two inputs have their
 * own string ids); each group's durations are sorted; the same inputs and
 * options always print the same bytes.
 */
#include "analyze/analysis.h"
#include "analyze/diff_stats.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/xalloc.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "cmd/slots.h"
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

#define DIFF_RESAMPLES_DEFAULT 2000 /* (the manual's default for --resamples) */

struct key_dur {
    uint32_t cat, name; /* string ids in their own model */
    int dev;            /* on a device-clock lane: never pooled with host spans */
    int64_t dur;
};

static int kd_cmp(const void *pa, const void *pb)
{
    const struct key_dur *a = pa, *b = pb;
    int c = stint_cmp_u32(a->cat, b->cat);
    if (!c)
        c = stint_cmp_u32(a->name, b->name);
    if (!c)
        c = a->dev - b->dev;
    return c ? c : stint_cmp_i64(a->dur, b->dur);
}

/* Durations of m's finished spans that pass f, grouped by (cat, name, clock). */
static struct key_dur *collect(const struct stint_model *m, const struct stint_filter *f, size_t *out_n)
{
    size_t n = stint_model_nslices(m), k = 0;
    struct key_dur *v = stint_xreallocarray(NULL, n ? n : 1, sizeof *v);
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
    stint_xqsort(v, k, sizeof *v, kd_cmp);
    *out_n = k;
    return v;
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

/* diff's own options, and its inputs in order. */
struct diff_opts {
    double threshold_pct;
    int fail_on_regression, correction;
    uint64_t seed;
    long resamples, min_samples;
    const char **pos; /* the inputs: more than two is an error, reported once the shared options are checked */
    int npos;
};

/* The value v of own option opt (--threshold, --seed, --resamples or
 * --min-samples) into d. Returns -1, or STINT_EXIT_USAGE after saying why. */
static int own_value(const char *opt, const char *v, struct diff_opts *d)
{
    if (!strcmp(opt, "--threshold")) {
        if (parse_threshold_pct(v, &d->threshold_pct) == 0)
            return -1;
        fprintf(stderr,
                "stint diff: --threshold: '%s': expected a percentage from 0 to 1000, such as 5%% or 5 "
                "(both mean 5%%)\n",
                v);
        return STINT_EXIT_USAGE;
    }
    /* --seed: any whole number >= 0; --resamples, --min-samples: >= 1 */
    const long long lo = strcmp(opt, "--seed") ? 1 : 0;
    char *end;
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
        return STINT_EXIT_USAGE;
    }
    if (!strcmp(opt, "--seed"))
        d->seed = (uint64_t)x;
    else if (!strcmp(opt, "--resamples"))
        d->resamples = (long)x;
    else
        d->min_samples = (long)x;
    return -1;
}

/* Takes diff's own options and the inputs but the first out of argv (*argc
 * updated), for the shared parser: the first input stays, as do the shared
 * options with their values. Returns -1, or STINT_EXIT_USAGE after saying
 * why. d->pos must have room for *argc inputs. */
static int take_own(int *argc, char **argv, struct diff_opts *d)
{
    static const char *const own[] = {"--threshold", "--seed", "--resamples", "--min-samples"};
    int w = 1, n = *argc;
    for (int i = 1; i < n; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            /* every argument after it is an input: the first stays in argv
             * (after the "--", for the shared parser), the others are taken out */
            argv[w++] = argv[i];
            while (++i < n) {
                d->pos[d->npos++] = argv[i];
                if (d->npos == 1)
                    argv[w++] = argv[i];
            }
            break;
        }
        if (!strcmp(a, "--fail-on-regression")) {
            d->fail_on_regression = 1;
            continue;
        }
        if (!strcmp(a, "--no-correction")) {
            d->correction = 0;
            continue;
        }
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
                if (i + 1 >= n) {
                    fprintf(stderr, "stint diff: %s needs a value\n", opt);
                    return STINT_EXIT_USAGE;
                }
                v = argv[++i];
            }
            int rc = own_value(opt, v, d);
            if (rc >= 0)
                return rc;
            continue;
        }
        if (shared_takes_value(a) && i + 1 < n) {
            /* keep the option and its value together for the shared parser */
            argv[w++] = argv[i++];
            argv[w++] = argv[i];
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            /* an input: the first is A (kept in argv for the shared parser),
             * the others are taken out */
            d->pos[d->npos++] = a;
            if (d->npos > 1)
                continue;
        }
        argv[w++] = argv[i];
    }
    *argc = w;
    return -1;
}

/* The groups, found by (cat, name) text and clock: open addressing over
 * group indexes (the table only finds them: the order is the groups'). */
struct groups {
    struct stint_dstat_group *v;
    size_t n, cap;
    struct stint_slots idx;
};

static uint64_t group_hash(const char *cat, size_t catn, const char *name, size_t namen, int dev)
{
    return stint_hash_pair(stint_hash_bytes(cat, catn) ^ (uint64_t)dev, stint_hash_bytes(name, namen));
}

/* The index of the group of (cat, name, dev), added when new. */
static size_t group_of(struct groups *gs, const char *cat, size_t catn, const char *name, size_t namen, int dev)
{
    if (stint_slots_full(&gs->idx, gs->n)) {
        stint_slots_reset(&gs->idx, gs->idx.cap ? gs->idx.cap * 2 : 1024);
        for (size_t q = 0; q < gs->n; q++) {
            const struct stint_dstat_group *e = &gs->v[q];
            stint_slots_put(&gs->idx, group_hash(e->cat, e->catn, e->name, e->namen, e->dev), (uint32_t)q);
        }
    }
    uint32_t *slot = gs->idx.slot;
    size_t h = stint_slots_home(&gs->idx, group_hash(cat, catn, name, namen, dev));
    const struct stint_dstat_group *g = gs->v;
    while (slot[h] != STINT_SLOT_EMPTY &&
           (g[slot[h]].dev != dev || g[slot[h]].catn != catn || g[slot[h]].namen != namen ||
            memcmp(g[slot[h]].cat, cat, catn) || memcmp(g[slot[h]].name, name, namen)))
        h = stint_slots_next(&gs->idx, h);
    if (slot[h] != STINT_SLOT_EMPTY)
        return slot[h];
    slot[h] = (uint32_t)gs->n;
    gs->v = stint_xgrow(gs->v, &gs->cap, gs->n + 1, sizeof *gs->v, 16);
    struct stint_dstat_group *ng = &gs->v[gs->n];
    memset(ng, 0, sizeof *ng);
    ng->cat = cat;
    ng->name = name;
    ng->catn = catn;
    ng->namen = namen;
    ng->dev = dev;
    return gs->n++;
}

/* Adds one side's sorted key_dur runs to their groups: d[] holds k[]'s
 * durations, and each group's side points into it. */
static void add_side(struct groups *gs, const struct stint_model *m, const struct key_dur *k, size_t nk,
                     const int64_t *d, int side)
{
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && k[j].cat == k[i].cat && k[j].name == k[i].name && k[j].dev == k[i].dev)
            j++;
        size_t catn, namen;
        const char *cat = stint_model_str(m, k[i].cat, &catn), *name = stint_model_str(m, k[i].name, &namen);
        size_t gi = group_of(gs, cat, catn, name, namen, k[i].dev); /* (may move gs->v) */
        struct stint_dstat_group *gr = &gs->v[gi];
        if (side) {
            gr->b = d + i;
            gr->nb = j - i;
        } else {
            gr->a = d + i;
            gr->na = j - i;
        }
        i = j;
    }
}

/* What the report says of the run besides the rows. */
struct diff_report {
    const char *paths[2];
    int partial_a, partial_b;
    double threshold_pct;
    const struct diff_opts *d;
    const struct stint_dstat_result *res;
};

/* Why the resamples are what they are: the documented default, what
 * --resamples asked, or either cut by the work bound (diff_stats.c). */
static void resamples_why(char *b, size_t cap, const struct diff_opts *d, const struct stint_dstat_result *res)
{
    const char *asked = d->resamples == DIFF_RESAMPLES_DEFAULT ? "the default" : "as --resamples asked";
    if (res->resamples < res->resamples_asked)
        snprintf(b, cap, "%s %zu cut by the work bound of about 2e8 draws over %.0f spans compared",
                 d->resamples == DIFF_RESAMPLES_DEFAULT ? "the default" : "--resamples", res->resamples_asked,
                 res->work_spans);
    else
        snprintf(b, cap, "%s", asked);
}

static void put_head_json(FILE *f, const struct diff_report *r)
{
    const struct stint_dstat_result *res = r->res;
    const struct diff_opts *d = r->d;
    char why[160];
    resamples_why(why, sizeof why, d, res);
    fprintf(f, "{\"schema\":\"stint.diff/2\",\"a\":");
    stint_out_json_str(f, r->paths[0], strlen(r->paths[0]));
    fputs(",\"b\":", f);
    stint_out_json_str(f, r->paths[1], strlen(r->paths[1]));
    fprintf(f,
            ",\"threshold\":%g,\"threshold_percent\":%g,\"seed\":%" PRIu64 ",\"resamples\":%zu,"
            "\"resamples_asked\":%zu,\"resamples_why\":\"%s\","
            "\"permutations\":%zu,\"permutations_needed\":%zu,\"min_samples\":%ld,\"correction\":\"%s\","
            "\"fwer\":%s,\"tested\":%zu,\"scope\":\"durations of finished spans per (cat, name), any track, "
            "wall clock of each input; ratio = median B / median A; ci95 = percentile bootstrap of that ratio; "
            "p = permutation test (rank sum) of A and B being draws of one distribution (its normal "
            "approximation from 50 spans a side: p_method); "
            "p_adj = p adjusted over the names tested\",\"partial_a\":%s,\"partial_b\":%s,\n\"rows\":[",
            r->threshold_pct / 100, r->threshold_pct, d->seed, res->resamples, res->resamples_asked, why,
            res->resamples, res->need,
            d->min_samples, d->correction ? "holm" : "none", d->correction ? "0.05" : "null", res->tested,
            r->partial_a ? "true" : "false", r->partial_b ? "true" : "false");
}

static void put_head_text(FILE *f, const struct diff_report *r)
{
    const struct stint_dstat_result *res = r->res;
    size_t m = res->tested;
    fprintf(f, "# A = %s, B = %s; per (cat, name): median span duration (us), ratio = B/A,\n", r->paths[0],
            r->paths[1]);
    char why[160];
    resamples_why(why, sizeof why, r->d, res);
    fprintf(f, "# 95%% bootstrap CI of the ratio (seed %" PRIu64 ", %zu resamples: %s); p_adj = p-value of a "
               "permutation test\n# (rank sum) of \"A and B are draws of one distribution\" (%zu random splits",
            r->d->seed, res->resamples, why, res->resamples);
    if (res->n_ext)
        fprintf(f, "; up to %zu for %zu name%s near the cut", res->r_ext, res->n_ext, plural(res->n_ext));
    if (res->n_normal)
        fprintf(f, ";\n# for the %zu name%s with %d+ spans on each side, its normal approximation instead",
                res->n_normal, plural(res->n_normal), STINT_DSTAT_NORMAL_MIN);
    if (r->d->correction)
        fprintf(f, "),\n# Holm adjusted over the %zu name%s tested (family-wise error rate 5%%);\n"
                   "# flagged when the CI excludes 1, p_adj <= 0.05 and |ratio-1| > %g%%\n",
                m, plural(m), r->threshold_pct);
    else
        fprintf(f, "), NOT adjusted\n# (--no-correction): each of the %zu name%s is tested alone;\n"
                   "# flagged when the CI excludes 1 and |ratio-1| > %g%%\n",
                m, plural(m), r->threshold_pct);
    if (r->partial_a || r->partial_b)
        fprintf(f, "# PARTIAL: %s ended in an error; what was read before it is compared\n",
                r->partial_a && r->partial_b ? "A and B each" : r->partial_a ? "A" : "B");
    fprintf(f, "%7s %7s %12s %12s %8s %17s %10s  %-10s %s\n", "n_a", "n_b", "median_a", "median_b", "ratio",
            "ci95", "p_adj", "verdict", "cat/name");
}

/* A median as JSON: null for an empty side. */
static void put_median_json(FILE *f, size_t n, double med)
{
    if (n)
        fprintf(f, "%.1f", med);
    else
        fputs("null", f);
}

static void put_row_json(FILE *f, const struct stint_dstat_group *gr, int first)
{
    fprintf(f, "%s\n{\"cat\":", first ? "" : ",");
    stint_out_json_str(f, gr->cat, gr->catn);
    fputs(",\"name\":", f);
    stint_out_json_str(f, gr->name, gr->namen);
    fprintf(f, ",\"clock\":\"%s\",\"n_a\":%zu,\"n_b\":%zu,\"median_a_ns\":", gr->dev ? "device" : "host", gr->na,
            gr->nb);
    put_median_json(f, gr->na, gr->meda);
    fputs(",\"median_b_ns\":", f);
    put_median_json(f, gr->nb, gr->medb);
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
}

static void put_row_text(FILE *f, const struct stint_dstat_group *gr)
{
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

/* The warnings on stderr and the last line (text) or the totals (JSON). */
static void put_tail(FILE *f, int json, const struct stint_dstat_group *g, size_t ng, const struct diff_report *r)
{
    const struct stint_dstat_result *res = r->res;
    long min_samples = r->d->min_samples;
    size_t both = 0;
    for (size_t i = 0; i < ng; i++)
        both += g[i].na && g[i].nb;
    if (ng && !both) /* (exit 0 and "0 slower" would read as a pass) */
        fprintf(stderr,
                "stint diff: warning: no (cat, name) is in both inputs: nothing was compared (are the categories "
                "the same? a marker log has none, a JSONL session's are span kinds)\n");
    if (res->unresolved)
        fprintf(stderr,
                "stint diff: warning: %zu name%s unresolved: an interval excluding 1 and a change over the "
                "threshold, but too few permutations to pass the correction: over %zu names it needs %zu, the "
                "work bound (about 2e8 draws) allowed %zu; compare fewer names (--name, --cat, --min-samples)\n",
                res->unresolved, plural(res->unresolved), res->tested, res->need, res->r_unres);
    if (json) {
        fprintf(f, "],\n\"slower\":%d,\"faster\":%d,\"held_back\":%zu,\"unresolved\":%zu,\"compared\":%zu}\n",
                res->slower, res->faster, res->held, res->unresolved, both);
        return;
    }
    fprintf(f, "# %d slower, %d faster", res->slower, res->faster);
    if (res->held)
        fprintf(f, "; %zu name%s with an interval excluding 1 and a change over the threshold did not "
                   "pass the correction (p_adj > 0.05)",
                res->held, plural(res->held));
    if (res->unresolved)
        fprintf(f, "; %zu unresolved: the correction over %zu names needs %zu permutations, the work bound "
                   "allowed %zu",
                res->unresolved, res->tested, res->need, res->r_unres);
    size_t few = 0;
    for (size_t i = 0; i < ng; i++)
        if (g[i].na && g[i].nb && ((long)g[i].na < min_samples || (long)g[i].nb < min_samples))
            few++;
    if (few)
        fprintf(f, "; %zu name(s) have fewer than %ld spans on a side: too few samples to say anything", few,
                min_samples);
    putc('\n', f);
}

/* Parses argv into *d and *o (paths[] the two inputs). Returns -1 when the
 * command should run, else the exit code. */
static int parse_args(int argc, char **argv, struct diff_opts *d, struct stint_cmd_opts *o, const char *paths[2])
{
    d->pos = stint_xreallocarray(NULL, (size_t)argc, sizeof *d->pos);
    int rc = take_own(&argc, argv, d);
    if (rc < 0)
        rc = stint_cmd_parse(argc, argv, usage, o);
    if (rc < 0 && d->npos != 2) {
        fprintf(stderr, "stint diff: takes exactly two inputs (A and B), got %d:", d->npos);
        for (int k = 0; k < d->npos; k++)
            fprintf(stderr, "%s '%s'", k ? "," : "", d->pos[k]);
        fputs("\n", stderr);
        fputs(usage, stderr);
        rc = STINT_EXIT_USAGE;
    }
    if (rc < 0) {
        paths[0] = d->pos[0];
        paths[1] = d->pos[1];
    }
    free(d->pos);
    d->pos = NULL;
    if (rc >= 0)
        return rc;
    if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-")) {
        fprintf(stderr, "stint diff: '-' (stdin) given as both A and B: stdin can be read only once; save one of "
                        "them to a file\n");
        return STINT_EXIT_USAGE;
    }
    if (o->csv) {
        fprintf(stderr, "stint diff: --csv is not supported (use --json)\n");
        return STINT_EXIT_USAGE;
    }
    return -1;
}

/* Groups, judges and prints A (ma) and B (mb). Returns 0, or
 * STINT_EXIT_IO on a write error. */
static int compare(const struct stint_model *ma, const struct stint_model *mb, const struct stint_cmd_opts *o,
                   const struct diff_opts *d, const char *paths[2], int *regressions)
{
    size_t nka, nkb;
    struct key_dur *ka = collect(ma, &o->filter, &nka), *kb = collect(mb, &o->filter, &nkb);
    int64_t *da = stint_xreallocarray(NULL, nka + 1, sizeof *da), *db = stint_xreallocarray(NULL, nkb + 1, sizeof *db);
    for (size_t i = 0; i < nka; i++)
        da[i] = ka[i].dur;
    for (size_t i = 0; i < nkb; i++)
        db[i] = kb[i].dur;
    /* groups: A's sorted runs, then B's, matched by (cat text, name text, clock) */
    struct groups gs = {0};
    add_side(&gs, ma, ka, nka, da, 0);
    add_side(&gs, mb, kb, nkb, db, 1);
    const struct stint_dstat_params prm = {d->seed, d->resamples, d->min_samples, d->correction,
                                           d->threshold_pct / 100};
    struct stint_dstat_result res;
    stint_dstat_judge(gs.v, gs.n, &prm, &res);
    const struct diff_report r = {{paths[0], paths[1]}, ma->partial, mb->partial, d->threshold_pct, d, &res};
    FILE *f = stdout;
    if (o->json)
        put_head_json(f, &r);
    else
        put_head_text(f, &r);
    for (size_t i = 0; i < gs.n; i++) {
        if (o->json)
            put_row_json(f, &gs.v[i], i == 0);
        else
            put_row_text(f, &gs.v[i]);
    }
    put_tail(f, o->json, gs.v, gs.n, &r);
    *regressions = res.slower;
    free(gs.idx.slot);
    free(gs.v);
    free(ka);
    free(kb);
    free(da);
    free(db);
    return fflush(f) != 0 ? STINT_EXIT_IO : STINT_EXIT_OK;
}

int stint_cmd_diff(int argc, char **argv)
{
    struct diff_opts d = {2, 0, 1, 1, DIFF_RESAMPLES_DEFAULT, 5, NULL, 0};
    struct stint_cmd_opts o;
    const char *paths[2];
    int rc = parse_args(argc, argv, &d, &o, paths);
    if (rc >= 0)
        return rc;
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
    rc = rca == STINT_EXIT_IO || rcb == STINT_EXIT_IO ? STINT_EXIT_IO
         : rca || rcb                                 ? STINT_EXIT_DATA
                                                      : STINT_EXIT_OK;
    int regressions = 0;
    if (compare(&ma, &mb, &o, &d, paths, &regressions) != 0)
        rc = STINT_EXIT_IO;
    if (rc == STINT_EXIT_OK && d.fail_on_regression && regressions)
        rc = STINT_EXIT_REGRESSION;
    stint_model_free(&ma);
    stint_model_free(&mb);
    return rc;
}
