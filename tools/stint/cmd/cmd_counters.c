/* SPDX-License-Identifier: MIT */
/*
 * cmd_counters.c - `stint counters FILE`: counter and telemetry series.
 *
 * Sources: the model's counter series (Chrome "C" events; a JSONL session's
 * counter records and device_memory checkpoints), or, with --time-key,
 * a telemetry JSONL file of rows holding a time key and numeric fields
 * (--fields picks them; "label=path" renames, "path[k]" takes the k-th
 * comma-separated part of a string or the k-th element of an array).
 *
 * Per series: samples, min, median, mean, max (unweighted over samples),
 * sampling gaps (median; count over the gap threshold), and the integral
 * over consecutive-sample intervals no longer than the threshold, with the
 * observed duration those intervals cover. A trace's counters (Chrome "C"
 * events, Kineto memory records, JSONL counters) are step functions, as
 * Chrome, Perfetto and speedscope draw them: each value holds until the
 * next sample, so their integral is the step integral (value before x
 * interval). Telemetry rows are measurements of a smooth quantity (watts):
 * the trapezoid. Each series says which rule it used. With no usable
 * interval the integral is null, never 0: an absent measurement is not a
 * zero one. Times print as seconds with fixed decimals (exact ns), never
 * in exponent form.
 */
#include "analyze/analysis.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "base/cmp.h"
#include "base/xalloc.h"
#include "read/jsonl_scan.h"
#include "read/input.h"
#include "stint/stint.h"
#include "write/textout.h"
#include "base/tsparse.h"
#include "base/term.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: stint counters FILE [--json] [--gap D] [--strict] [--format chrome|jsonl|markers] [--pid N]\n"
    "                      [--name GLOB] [--time-range A:B]\n"
    "       stint counters TELEMETRY.jsonl --time-key KEY [--time-unit s|ms|us|ns]\n"
    "                      [--fields [label=]path[,...]] [--gap D] [--name GLOB] [--time-range A:B] [--json]\n"
    "                      [--strict]\n"
    "  per series: samples, min, median, mean, max, sampling gaps (median, count over the\n"
    "  gap threshold D, default 5s), and the integral over intervals <= D with the observed\n"
    "  duration it covers (null when no interval qualifies): step for a trace's counters (a\n"
    "  value holds until the next sample), trapezoid for telemetry rows. path: a.b.c,\n"
    "  path[k] = k-th comma-separated part of a string (or element of an array).\n"
    "  --name keeps the series whose name matches the glob; --pid and --time-range\n"
    "  (ns, or with a unit: 12.5ms, 3us, 2s; A or B may be empty) select samples.\n";

struct sample {
    int64_t ts_ns;
    double v;
    size_t seq; /* arrival order: samples at one ts keep it (the last one is the value from then on) */
};

struct series {
    char *name;
    size_t namelen; /* (a name may hold NUL bytes: a JSON key's \u0000) */
    int64_t pid;
    int has_pid;
    struct sample *s;
    size_t n, cap;
};

/* The series, and an open-addressing index over (pid, name) so that a file
 * with many distinct series is not read in quadratic time. */
struct set {
    struct series *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1 into v, 0 = empty; tcap slots, a power of two */
    size_t tcap;
};

static uint64_t series_hash(const char *name, size_t len, int64_t pid)
{
    uint64_t h = stint_fnv1a64(name, len) ^ (uint64_t)pid * UINT64_C(0x9e3779b97f4a7c15);
    return h ^ (h >> 29);
}

/* Puts v[i] into the index (which has room). */
static void set_index(struct set *st, size_t i)
{
    size_t j = series_hash(st->v[i].name, st->v[i].namelen, st->v[i].pid) & (st->tcap - 1);
    while (st->slot[j])
        j = (j + 1) & (st->tcap - 1);
    st->slot[j] = (uint32_t)(i + 1);
}

/* The series of (name, pid), added empty when new; NULL when out of memory. */
static struct series *series_get(struct set *st, const char *name, size_t len, int64_t pid, int has_pid)
{
    if (st->tcap) {
        for (size_t j = series_hash(name, len, pid) & (st->tcap - 1); st->slot[j]; j = (j + 1) & (st->tcap - 1)) {
            struct series *e = &st->v[st->slot[j] - 1];
            if (e->pid == pid && e->namelen == len && !memcmp(e->name, name, len))
                return e;
        }
    }
    if (st->n >= UINT32_MAX - 1)
        return NULL;
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 16;
        struct series *nv = realloc(st->v, cap * sizeof *nv);
        if (!nv)
            return NULL;
        st->v = nv;
        st->cap = cap;
    }
    if ((st->n + 1) * 2 > st->tcap) { /* (at most half full) */
        size_t tcap = st->tcap ? st->tcap * 2 : 64;
        uint32_t *ns = calloc(tcap, sizeof *ns);
        if (!ns)
            return NULL;
        free(st->slot);
        st->slot = ns;
        st->tcap = tcap;
        for (size_t i = 0; i < st->n; i++)
            set_index(st, i);
    }
    struct series *s = &st->v[st->n];
    memset(s, 0, sizeof *s);
    s->name = malloc(len + 1);
    if (!s->name)
        return NULL;
    memcpy(s->name, name, len);
    s->name[len] = 0;
    s->namelen = len;
    s->pid = pid;
    s->has_pid = has_pid;
    set_index(st, st->n);
    st->n++;
    return s;
}

static int series_add(struct series *s, int64_t ts, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct sample *ns = realloc(s->s, cap * sizeof *ns);
        if (!ns)
            return -1;
        s->s = ns;
        s->cap = cap;
    }
    s->s[s->n].ts_ns = ts;
    s->s[s->n].v = v;
    s->s[s->n].seq = s->n;
    s->n++;
    return 0;
}

static int sample_cmp(const void *pa, const void *pb)
{
    const struct sample *a = pa, *b = pb;
    if (a->ts_ns != b->ts_ns)
        return (a->ts_ns > b->ts_ns) - (a->ts_ns < b->ts_ns);
    return (a->seq > b->seq) - (a->seq < b->seq); /* qsort is not stable */
}

/* ---- telemetry rows ---- */

struct field {
    char *label;
    char *path;
    int index; /* -1: whole value */
};

struct tele {
    const char *time_key;
    int64_t unit_ns;
    struct field *fields;
    size_t nfields;
    const struct stint_filter *filter;
    struct set *set;
    uint64_t rows, bad_rows, no_time, missing, nonfinite;
    char first_bad[256];
    int oom;
};

static void leaf_add(void *ctx, const char *key, size_t klen, double value);

struct leaf_row {
    struct tele *t;
    int64_t ts;
};

static void leaf_add(void *ctx, const char *key, size_t klen, double value)
{
    struct leaf_row *r = ctx;
    if (strlen(r->t->time_key) == klen && !memcmp(key, r->t->time_key, klen))
        return;
    if (!isfinite(value)) { /* (1e999 and the like: skipped and counted) */
        r->t->nonfinite++;
        return;
    }
    struct series *s = series_get(r->t->set, key, klen, 0, 0);
    if (!s || series_add(s, r->ts, value) != 0)
        r->t->oom = 1;
}

/* The k-th comma-separated part of a string value, or the k-th array element. */
static int pick_index(const struct stint_jl_val *v, int k, struct stint_jl_val *out)
{
    *out = *v;
    if (v->type == STINT_JL_STRING) {
        const char *p = v->p, *end = v->p + v->len;
        for (int i = 0; i < k; i++) {
            const char *c = memchr(p, ',', (size_t)(end - p));
            if (!c)
                return -1;
            p = c + 1;
        }
        const char *c = memchr(p, ',', (size_t)(end - p));
        out->p = p;
        out->len = (size_t)((c ? c : end) - p);
        return 0;
    }
    if (v->type == STINT_JL_ARRAY) {
        /* text of the array: find element k by scanning depth-0 commas */
        const char *p = v->p + 1, *end = v->p + v->len - 1;
        int depth = 0, i = 0, instr = 0;
        const char *start = p;
        for (; p <= end; p++) {
            char c = p < end ? *p : ',';
            if (instr) {
                if (c == '\\')
                    p++;
                else if (c == '"')
                    instr = 0;
                continue;
            }
            if (c == '"')
                instr = 1;
            else if (c == '[' || c == '{')
                depth++;
            else if (c == ']' || c == '}')
                depth--;
            else if (c == ',' && depth == 0) {
                if (i == k) {
                    out->type = STINT_JL_NUMBER;
                    out->p = start;
                    out->len = (size_t)(p - start);
                    return 0;
                }
                i++;
                start = p + 1;
            }
        }
    }
    return -1;
}

static int tele_row(void *ctx, const char *line, size_t len, uint64_t lineno)
{
    struct tele *t = ctx;
    struct stint_jl_val tv;
    t->rows++;
    if (stint_jl_get(line, len, t->time_key, &tv) != 0) {
        if (!t->bad_rows++)
            snprintf(t->first_bad, sizeof t->first_bad, "line %llu: not a JSON object", (unsigned long long)lineno);
        return 0;
    }
    int64_t ts;
    if (tv.type != STINT_JL_NUMBER || stint_parse_ts(tv.p, tv.len, t->unit_ns, &ts) != 0) {
        if (!t->no_time++ && !t->bad_rows)
            snprintf(t->first_bad, sizeof t->first_bad, "line %llu: no numeric time key '%s'",
                     (unsigned long long)lineno, t->time_key);
        return 0;
    }
    if (!stint_filter_point(t->filter, 0, ts) && t->filter->has_range)
        return 0;
    if (!t->nfields) {
        struct leaf_row r = {t, ts};
        if (stint_jl_leaves(line, len, leaf_add, &r) != 0 && !t->bad_rows++ && !t->no_time)
            snprintf(t->first_bad, sizeof t->first_bad, "line %llu: not a JSON object", (unsigned long long)lineno);
        return t->oom ? 3 : 0;
    }
    for (size_t k = 0; k < t->nfields; k++) {
        struct stint_jl_val v, pv;
        double d;
        if (stint_jl_get(line, len, t->fields[k].path, &v) != 0 || v.type == STINT_JL_NONE) {
            t->missing++;
            continue;
        }
        if (t->fields[k].index >= 0) {
            if (pick_index(&v, t->fields[k].index, &pv) != 0) {
                t->missing++;
                continue;
            }
            v = pv;
        }
        if (stint_jl_double(&v, &d) != 0) {
            t->missing++;
            continue;
        }
        if (!isfinite(d)) {
            t->nonfinite++;
            continue;
        }
        struct series *s = series_get(t->set, t->fields[k].label, strlen(t->fields[k].label), 0, 0);
        if (!s || series_add(s, ts, d) != 0)
            stint_die_nomem();
    }
    return 0;
}

/* Parses --fields into *out (*nout items). Returns 0, -1 when out of
 * memory, -2 on a malformed item (message on stderr): an empty label or
 * path, or an index that is not [digits] at the item's end (below 2^31). */
static int parse_fields(const char *spec, struct field **out, size_t *nout)
{
    size_t n = 1;
    for (const char *p = spec; *p; p++)
        n += *p == ',';
    struct field *f = calloc(n, sizeof *f);
    if (!f)
        return -1;
    size_t k = 0;
    const char *p = spec;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char *item = strndup(p, len);
        if (!item)
            return -1;
        char *eq = strchr(item, '=');
        char *path = eq ? eq + 1 : item;
        f[k].index = -1;
        char *br = strchr(path, '[');
        char *label = eq ? strndup(item, (size_t)(eq - item)) : strdup(item);
        if (br) {
            char *q = br + 1;
            long idx = 0;
            while (*q >= '0' && *q <= '9' && idx <= INT_MAX)
                idx = idx * 10 + (*q++ - '0');
            if (q == br + 1 || *q != ']' || q[1] || idx > INT_MAX) {
                fprintf(stderr, "stint counters: --fields: '%s': expected path[k] with k a number below 2^31\n", item);
                free(item);
                free(label);
                *out = f;
                *nout = k;
                return -2;
            }
            f[k].index = (int)idx;
            *br = 0;
        }
        if (!*path || (label && !*label)) {
            fprintf(stderr, "stint counters: --fields: '%s': expected [label=]path with neither empty\n", item);
            free(item);
            free(label);
            *out = f;
            *nout = k;
            return -2;
        }
        f[k].path = strdup(path);
        f[k].label = label;
        free(item);
        if (!f[k].path || !f[k].label)
            return -1;
        k++;
        p += len;
        if (*p == ',')
            p++;
    }
    *out = f;
    *nout = k;
    return 0;
}

/* --name GLOB: keeps the series whose name matches (the filters' meaning of
 * --name for a series; --pid and --time-range select samples as they are read). */
static void keep_named(struct set *set, const struct stint_filter *f)
{
    size_t k = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (stint_filter_name(f, set->v[i].name)) {
            set->v[k++] = set->v[i];
        } else {
            free(set->v[i].name);
            free(set->v[i].s);
        }
    }
    set->n = k;
    free(set->slot); /* (the index is not used after this) */
    set->slot = NULL;
    set->tcap = 0;
}

/* ---- output ---- */

struct stats {
    double min, med, mean, max;
    double gap_med_ns;
    uint64_t gaps_over;
    int has_integral;
    double integral;       /* value x seconds */
    int64_t observed_ns;
};

/* The integral rules: a trace's counters are steps, telemetry rows are trapezoids. */
enum rule { RULE_STEP, RULE_TRAPEZOID };
static const char *const rule_name[] = {"step", "trapezoid"};

static void compute(struct series *s, int64_t gap_ns, enum rule rule, struct stats *st, double *vals, int64_t *gaps)
{
    memset(st, 0, sizeof *st);
    stint_xqsort(s->s, s->n, sizeof *s->s, sample_cmp);
    long double sum = 0, integral = 0; /* (long double: sums of finite doubles cannot overflow it) */
    for (size_t i = 0; i < s->n; i++) {
        vals[i] = s->s[i].v;
        sum += s->s[i].v;
    }
    stint_an_sort_f64(vals, s->n);
    st->min = s->n ? vals[0] : NAN;
    st->max = s->n ? vals[s->n - 1] : NAN;
    st->med = stint_an_quantile_f64(vals, s->n, 0.5);
    st->mean = s->n ? (double)(sum / (long double)s->n) : NAN;
    size_t ng = 0;
    for (size_t i = 1; i < s->n; i++) {
        int64_t dt; /* (telemetry times span all of int64: a wider gap saturates) */
        if (__builtin_sub_overflow(s->s[i].ts_ns, s->s[i - 1].ts_ns, &dt))
            dt = INT64_MAX;
        gaps[ng++] = dt;
        if (dt > gap_ns)
            st->gaps_over++;
        else if (dt > 0) {
            st->has_integral = 1;
            /* (at one ts the last sample is the value from then on: samples keep their order) */
            long double h = rule == RULE_STEP ? (long double)s->s[i - 1].v
                                              : ((long double)s->s[i].v + s->s[i - 1].v) / 2;
            integral += (long double)dt * 1e-9L * h;
            if (__builtin_add_overflow(st->observed_ns, dt, &st->observed_ns))
                st->observed_ns = INT64_MAX;
        }
    }
    st->integral = (double)integral; /* (inf when it passes a double's range: printed as null) */
    stint_an_sort_i64(gaps, ng);
    st->gap_med_ns = stint_an_quantile(gaps, ng, 0.5);
}

/* Writes --time-range's window: pre, its start (or open_lo when open),
 * mid, its end (or open_hi), post. */
static void put_window(FILE *f, const struct stint_filter *w, const char *pre, const char *open_lo, const char *mid,
                       const char *open_hi, const char *post)
{
    fputs(pre, f);
    if (w->t0 == INT64_MIN)
        fputs(open_lo, f);
    else
        fprintf(f, "%" PRId64, w->t0);
    fputs(mid, f);
    if (w->t1 == INT64_MAX)
        fputs(open_hi, f);
    else
        fprintf(f, "%" PRId64, w->t1);
    fputs(post, f);
}

static void put_num(FILE *f, double v)
{
    if (!isfinite(v)) /* (JSON has no nan or inf) */
        fputs("null", f);
    else
        fprintf(f, "%.17g", v);
}

/* One series as a JSON object (first: no comma before it). */
static void put_series_json(FILE *f, const struct series *s, const struct stats *p, enum rule rule, int first)
{
    fprintf(f, "%s\n{\"name\":", first ? "" : ",");
    stint_out_json_str(f, s->name, s->namelen);
    if (s->has_pid)
        fprintf(f, ",\"pid\":%" PRId64, s->pid);
    fprintf(f, ",\"samples\":%zu,\"min\":", s->n);
    put_num(f, p->min);
    fputs(",\"median\":", f);
    put_num(f, p->med);
    fputs(",\"mean\":", f);
    put_num(f, p->mean);
    fputs(",\"max\":", f);
    put_num(f, p->max);
    fputs(",\"first_ts_ns\":", f);
    if (s->n)
        fprintf(f, "%" PRId64 ",\"last_ts_ns\":%" PRId64, s->s[0].ts_ns, s->s[s->n - 1].ts_ns);
    else
        fputs("null,\"last_ts_ns\":null", f);
    fputs(",\"gap_median_ns\":", f);
    put_num(f, p->gap_med_ns);
    fprintf(f, ",\"gaps_over_threshold\":%" PRIu64 ",\"integral_rule\":\"%s\",\"integral\":", p->gaps_over,
            rule_name[rule]);
    if (p->has_integral)
        put_num(f, p->integral);
    else
        fputs("null", f);
    fprintf(f, ",\"observed_ns\":%" PRId64 "}", p->observed_ns);
}

/* ns as seconds with nine decimals, exactly ("-0.000000500"). */
static void fmt_s(char *b, size_t cap, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(b, cap, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", a / 1000000000u, a % 1000000000u);
}

/* One series as a row of the text table. */
static void put_series_text(FILE *f, const struct series *s, const struct stats *p, enum rule rule)
{
    char ig[64], gm[40], first[32], obs[32];
    if (p->has_integral)
        snprintf(ig, sizeof ig, "%.6g", p->integral);
    else
        snprintf(ig, sizeof ig, "-");
    if (s->n > 1) /* (one sample has no spacing: '-', as JSON's null; a median may end in .5 ns) */
        snprintf(gm, sizeof gm, "%.10f", p->gap_med_ns * 1e-9);
    else
        snprintf(gm, sizeof gm, "-");
    if (s->n)
        fmt_s(first, sizeof first, s->s[0].ts_ns);
    else
        snprintf(first, sizeof first, "-");
    fmt_s(obs, sizeof obs, p->observed_ns);
    fprintf(f, "%8zu %12.6g %12.6g %12.6g %12.6g %20s %13s %7" PRIu64 " %-9s %14s %14s  ", s->n, p->min, p->med,
            p->mean, p->max, first, gm, p->gaps_over, rule_name[rule], ig, obs);
    /* the series name, escaped so one row stays one line */
    stint_out_text_str(f, s->name, s->namelen);
    if (s->has_pid)
        fprintf(f, " (pid %" PRId64 ")", s->pid);
    putc('\n', f);
}

/* 1 when path opens as a Chrome trace does beyond doubt: '[' first, or
 * "traceEvents" in its first 4 KiB. */
static int chrome_opening(const char *path)
{
    struct stint_input in;
    int yes = 0;
    if (stint_input_open(&in, path) == 0) {
        size_t n = in.len < 4096 ? in.len : 4096, i = 0;
        while (i < n && (in.buf[i] == ' ' || in.buf[i] == '\t' || in.buf[i] == '\r' || in.buf[i] == '\n'))
            i++;
        yes = (i < n && in.buf[i] == '[') || memmem(in.buf, n, "\"traceEvents\"", 13) != NULL;
    }
    stint_input_close(&in);
    return yes;
}

/* Reads telemetry rows of o->path into t->set (t set up by the caller),
 * saying on stderr what was wrong with them. Returns the exit code so far,
 * or -2 when nothing can be reported (the code is then in *rc_out); *cut is
 * set when the read ended in an error after some rows. */
static int read_tele(const struct stint_cmd_opts *o, struct tele *t, const char *fields, int *cut)
{
    int pf = fields ? parse_fields(fields, &t->fields, &t->nfields) : 0;
    if (pf == -1)
        stint_die_nomem();
    if (pf != 0)
        return STINT_EXIT_USAGE;
    /* a trace is no telemetry: say what the file is and what reads it, not "N rows not usable" (a
     * file whose rows open with '{' is taken as rows: telemetry rows do too) */
    const char *fmt = strcmp(o->path, "-") != 0 ? stint_detect_format(o->path) : NULL;
    if (fmt && (!strcmp(fmt, "markers") || (!strcmp(fmt, "chrome") && chrome_opening(o->path)))) {
        fprintf(stderr,
                "stint counters: %s is a %s, not telemetry rows: --time-key reads JSONL rows (one JSON object "
                "per line with a numeric time key); without --time-key counters reads the counters of Chrome "
                "traces, JSONL sessions and marker logs\n",
                o->path, !strcmp(fmt, "markers") ? "marker log" : "Chrome trace");
        *cut = -1;
        return STINT_EXIT_USAGE;
    }
    char err[600];
    err[0] = 0;
    int rc = stint_jl_each(o->path, tele_row, t, NULL, err, sizeof err);
    if (rc) {
        if (rc == STINT_EXIT_IO && !err[0])
            stint_die_nomem();
        fputs("stint: error: ", stderr);
        stint_term_msg(stderr, err); /* (quotes the input: escaped) */
        fputc('\n', stderr);
        if (!t->rows) {
            stint_report_end(stderr, o->path, 1, 0);
            *cut = -1;
            return rc;
        }
        /* what was read before the error is reported, PARTIAL, with the error's exit code */
        *cut = 1;
        stint_report_end(stderr, o->path, 0, 1);
    }
    if (t->bad_rows || t->no_time)
        fprintf(stderr, "stint: %s: %" PRIu64 " row(s) not usable (first: %s)\n", o->path, t->bad_rows + t->no_time,
                t->first_bad);
    if (t->missing || t->nonfinite)
        fprintf(stderr,
                "stint: %s: values left out: %" PRIu64 " missing or not numeric (--fields), %" PRIu64
                " not finite (nan, inf or out of a double's range)\n",
                o->path, t->missing, t->nonfinite);
    if (!t->rows && !rc) {
        fprintf(stderr, "stint: %s: the input is empty (no rows)\n", o->path);
        rc = STINT_EXIT_DATA;
    }
    if (t->rows && t->bad_rows + t->no_time == t->rows)
        rc = rc ? rc : STINT_EXIT_DATA;
    /* --strict (or =drops): a row left out is an error */
    if ((o->strict & STINT_STRICT_DROPS) && (t->bad_rows || t->no_time) && !rc) {
        fprintf(stderr, "stint: error: %s: --strict: %s\n", o->path, t->first_bad);
        rc = STINT_EXIT_DATA;
    }
    if ((o->strict & STINT_STRICT_DROPS) && (t->missing || t->nonfinite) && !rc) { /* a value left out too */
        fprintf(stderr, "stint: error: %s: --strict: values left out (see above)\n", o->path);
        rc = STINT_EXIT_DATA;
    }
    return rc;
}

/* The model's counter samples that pass o's filters into set. */
static void take_samples(const struct stint_model *m, const struct stint_cmd_opts *o, struct set *set)
{
    /* the set's index + 1 of each model series (not a pointer: the set's
     * array moves when it grows) */
    size_t *map = stint_xcalloc(m->counters.len + 1, sizeof *map);
    for (size_t k = 0; k < m->samples.len; k++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        if (!stint_filter_point(&o->filter, c->pid, cs->ts_ns))
            continue;
        if (!map[cs->series]) {
            size_t l;
            const char *nm = stint_model_str(m, c->name, &l);
            struct series *se = series_get(set, nm, l, c->pid, 1);
            map[cs->series] = se ? (size_t)(se - set->v) + 1 : 0;
        }
        if (!map[cs->series] || series_add(&set->v[map[cs->series] - 1], cs->ts_ns, cs->value) != 0)
            stint_die_nomem();
    }
    free(map);
}

int stint_cmd_counters(int argc, char **argv)
{
    const char *time_key = NULL, *fields = NULL, *time_unit = NULL;
    int64_t gap_ns = 5000000000;
    const char *gap = NULL;
    const struct stint_cmd_extra ex[] = {{"--time-key", NULL, &time_key, NULL, 0},
                                         {"--fields", NULL, &fields, NULL, 0},
                                         {"--time-unit", NULL, &time_unit, NULL, 0},
                                         {"--gap", NULL, &gap, NULL, 0}};
    if (stint_cmd_take_extras("counters", &argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    if (gap && (stint_parse_duration(gap, strlen(gap), &gap_ns) != 0 || gap_ns <= 0)) {
        fprintf(stderr, "stint counters: --gap: '%s' is not a duration (e.g. 5s, 500ms)\n", gap);
        return STINT_EXIT_USAGE;
    }
    struct stint_cmd_opts o;
    /* telemetry rows are read as JSONL rows, whatever --format says of a trace */
    const struct stint_cmd_spec tele_spec = {
        "counters", STINT_FILT_NAME | STINT_FILT_RANGE | STINT_TAKES_JSON,
        "telemetry rows carry no process, thread, category or duration (the filters here are --name and "
        "--time-range)",
        "counters prints a text table, or JSON with --json", "jsonl", "--time-key reads telemetry rows of JSONL"};
    const struct stint_cmd_spec trace_spec = {
        "counters", STINT_FILT_PID | STINT_FILT_NAME | STINT_FILT_RANGE | STINT_TAKES_JSON,
        "a counter series belongs to a process and its samples have no category or duration (the filters here "
        "are --pid, --name and --time-range)",
        "counters prints a text table, or JSON with --json", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, time_key ? &tele_spec : &trace_spec);
    if (rc >= 0)
        return rc;
    if (!time_key && (fields || time_unit)) { /* (refused, never ignored) */
        fprintf(stderr, "stint counters: %s is for telemetry rows: it needs --time-key\n",
                fields ? "--fields" : "--time-unit");
        return STINT_EXIT_USAGE;
    }
    if (!time_unit)
        time_unit = "s";
    int64_t unit_ns = !strcmp(time_unit, "s") ? 1000000000 : !strcmp(time_unit, "ms") ? 1000000
                      : !strcmp(time_unit, "us") ? 1000 : !strcmp(time_unit, "ns") ? 1 : 0;
    if (!unit_ns) {
        fprintf(stderr, "stint counters: --time-unit: '%s' (expected s, ms, us or ns)\n", time_unit);
        return STINT_EXIT_USAGE;
    }
    struct set set = {0};
    struct stint_model m;
    int have_model = 0, cut = 0; /* cut: a JSONL read ended in an error after some rows */
    struct tele t;
    memset(&t, 0, sizeof t);
    const char *source;
    if (time_key) {
        source = "telemetry rows";
        t.time_key = time_key;
        t.unit_ns = unit_ns;
        t.filter = &o.filter;
        t.set = &set;
        if ((rc = stint_cmd_no_relative_range("counters", &o)) >= 0)
            goto out;
        rc = read_tele(&o, &t, fields, &cut);
        if (rc == STINT_EXIT_USAGE || cut < 0)
            goto out;
    } else {
        source = "counter events";
        rc = stint_cmd_load(&o, &m, STINT_MODEL_KEEP_SAMPLES);
        have_model = 1;
        if (stint_no_report(rc, &m))
            goto out;
        take_samples(&m, &o, &set);
    }
    keep_named(&set, &o.filter);
    size_t maxn = 1;
    for (size_t i = 0; i < set.n; i++)
        if (set.v[i].n > maxn)
            maxn = set.v[i].n;
    double *vals = stint_xreallocarray(NULL, maxn, sizeof *vals);
    int64_t *gaps = stint_xreallocarray(NULL, maxn, sizeof *gaps);
    FILE *f = stdout;
    if (o.json) {
        fprintf(f,
                "{\"schema\":\"stint.counters/1\",\"source\":\"%s\",\"gap_threshold_ns\":%" PRId64
                ",\"scope\":\"statistics are unweighted over samples; integral = over consecutive samples no more "
                "than gap_threshold apart, in value x seconds, by each series' integral_rule (step: a value holds "
                "until the next sample; trapezoid: the mean of the two); observed_ns = the time those intervals "
                "cover; integral is null when no interval qualifies\",",
                source, gap_ns);
        if (o.filter.has_range)
            put_window(f, &o.filter, "\"window\":{\"start_ns\":", "null", ",\"end_ns\":", "null", "},");
        if (time_key)
            fprintf(f,
                    "\"rows\":%" PRIu64 ",\"unusable_rows\":%" PRIu64 ",\"missing_values\":%" PRIu64
                    ",\"nonfinite_values\":%" PRIu64 ",",
                    t.rows, t.bad_rows + t.no_time, t.missing, t.nonfinite);
        fputs("\n\"series\":[", f);
    } else {
        char gs[32];
        fmt_s(gs, sizeof gs, gap_ns);
        for (size_t e = strlen(gs); gs[e - 1] == '0' || gs[e - 1] == '.'; e--) { /* "5.000000000" -> "5" */
            int dot = gs[e - 1] == '.';
            gs[e - 1] = 0;
            if (dot)
                break;
        }
        fprintf(f,
                "# %zu series from %s; stats unweighted over samples; integral (value x s) by the rule column "
                "over intervals <= %s s, with the observed time it covers; '-' = no usable interval\n",
                set.n, source, gs);
        if (o.filter.has_range) /* (the figures cover the window only) */
            put_window(f, &o.filter, "# window: samples with ts in [", "start", ", ", "end", ") ns\n");
        if (rc == 1 || cut || (have_model && m.partial))
            fprintf(f, "# PARTIAL: the input ended in an error; what was read before it is reported\n");
        fprintf(f, "%8s %12s %12s %12s %12s %20s %13s %7s %-9s %14s %14s  %s\n", "samples", "min", "median", "mean",
                "max", "first_s", "gap_med_s", "gaps>", "rule", "integral", "observed_s", "series");
    }
    for (size_t i = 0; i < set.n; i++) {
        struct series *s = &set.v[i];
        struct stats st;
        enum rule rule = time_key ? RULE_TRAPEZOID : RULE_STEP;
        compute(s, gap_ns, rule, &st, vals, gaps);
        if (o.json)
            put_series_json(f, s, &st, rule, i == 0);
        else
            put_series_text(f, s, &st, rule);
    }
    if (o.json)
        fprintf(f, "],\n\"partial\":%s}\n", rc == 1 || cut || (have_model && m.partial) ? "true" : "false");
    free(vals);
    free(gaps);
    if (stint_cmd_close_out("counters", f, "stdout") != 0)
        rc = STINT_EXIT_IO;
out:
    for (size_t i = 0; i < set.n; i++) {
        free(set.v[i].name);
        free(set.v[i].s);
    }
    free(set.v);
    free(set.slot);
    for (size_t k = 0; k < t.nfields; k++) {
        free(t.fields[k].label);
        free(t.fields[k].path);
    }
    free(t.fields);
    if (have_model)
        stint_model_free(&m);
    return rc;
}
