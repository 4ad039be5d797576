/* SPDX-License-Identifier: MIT */
/*
 * timing_rounds.c - the rounds table of `stint timing --rounds`: one row per
 * invocation of the busiest callable (bucket 0) with its Host, Device,
 * Effective (the orch and sched window), Orch and Sched times, then the
 * averages and the trimmed averages, as the reference prints them; or the
 * same rows and per-column stats as JSON.
 *
 * Invariants: Host is shown always, another column only when some row has a
 * value above 0, and its average is over those rows; averages add the sorted
 * values left to right, as the reference's sum() over a sorted list does;
 * only the invocations --warmup kept are rows.
 */
#include "timing/timing_int.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <stdlib.h>

static const char *const COLS[5] = {"Host", "Device", "Effective", "Orch", "Sched"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One round's five values in us, as the reference computes them. */
static void round_metrics(const struct stint_tm_model *m, uint32_t inv, double out[5], int64_t ns[5])
{
    const struct stint_tm_fon *dev = stint_tout_named_span(m, inv, "runner_run.device_wall");
    const struct stint_tm_fon *orch = stint_tout_named_span(m, inv, "runner_run.device_wall.orch");
    const struct stint_tm_fon *sched = stint_tout_named_span(m, inv, "runner_run.device_wall.sched");
    /* Host is the first span named simpler_run (or chip.run; the reference
     * looks it up by name), else the invocation's root. */
    const struct stint_tm_fon *host = stint_tout_named_span(m, inv, "");
    const struct stint_tm_fon *cols[5] = {host, dev, NULL, orch, sched};
    for (int i = 0; i < 5; i++) {
        ns[i] = cols[i] ? cols[i]->dur_ns : 0;
        out[i] = cols[i] ? (double)ns[i] / 1000.0 : 0.0;
    }
    if (orch || sched) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        const struct stint_tm_fon *w[2] = {orch, sched};
        for (int i = 0; i < 2; i++) {
            if (!w[i])
                continue;
            lo = w[i]->ts_ns < lo ? w[i]->ts_ns : lo;
            hi = w[i]->ts_ns + w[i]->dur_ns > hi ? w[i]->ts_ns + w[i]->dur_ns : hi;
        }
        ns[2] = hi - lo;
        out[2] = (double)(hi - lo) / 1000.0;
    }
}

/* Left-to-right double sum: the reference's sum() over a sorted list. */
static double sum_in_order(const double *v, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* The rows of the rounds table: five values per round, in us and in ns,
 * and per column the values it averages, sorted. */
struct rounds {
    uint32_t n;             /* rows */
    const uint32_t *invs;   /* their invocations */
    double *rows;           /* 5 per row, us */
    int64_t *rows_ns;       /* 5 per row, ns */
    double *vals;           /* backing of sorted[] */
    double *sorted[5];      /* Host: every row's; the others: the rows above 0 */
    uint32_t cnt[5];
    int shown[5], nshown;   /* the columns the text table shows */
};

static void rounds_fill(const struct stint_tm_model *m, struct rounds *r)
{
    uint32_t n = r->n;
    r->rows = stint_xmalloc(((size_t)n + 1) * 5 * sizeof *r->rows);
    r->rows_ns = stint_xmalloc(((size_t)n + 1) * 5 * sizeof *r->rows_ns);
    r->vals = stint_xmalloc(((size_t)n + 1) * 5 * sizeof *r->vals);
    for (uint32_t i = 0; i < n; i++)
        round_metrics(m, r->invs[i], r->rows + 5 * i, r->rows_ns + 5 * i);
    for (int col = 0; col < 5; col++) {
        r->sorted[col] = r->vals + (size_t)col * (n + 1);
        r->cnt[col] = 0;
        for (uint32_t i = 0; i < n; i++)
            if (col == 0 || r->rows[5 * (size_t)i + (size_t)col] > 0.0)
                r->sorted[col][r->cnt[col]++] = r->rows[5 * (size_t)i + (size_t)col];
        stint_xqsort(r->sorted[col], r->cnt[col], sizeof(double), cmp_double);
    }
    r->nshown = 0;
    r->shown[r->nshown++] = 0;
    for (int col = 1; col < 5; col++)
        if (r->cnt[col])
            r->shown[r->nshown++] = col;
}

static void rounds_json(const struct stint_tout_ctx *c, const struct rounds *r)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t n = r->n;
    char label[16];
    fputs("\"callable\": {\"hid\": ", f);
    stint_tout_json_id(f, m, m->buckets[0].hid);
    fputs(", \"label\": ", f);
    stint_tout_json_cstr(f, stint_tm_bucket_label(m, 0, label));
    fprintf(f, "}, \"warmup_dropped\": %u, \"rounds\": [", m->buckets[0].n - n);
    static const char *const keys[5] = {"host_us", "device_us", "effective_us", "orch_us", "sched_us"};
    for (uint32_t i = 0; i < n; i++) {
        const struct stint_tm_inv *iv = &m->invs[r->invs[i]];
        fprintf(f, "%s{\"round\": %u, \"pid\": %llu, \"inv\": %llu", i ? ", " : "", i,
                (unsigned long long)iv->pid, (unsigned long long)iv->inv);
        for (int col = 0; col < 5; col++) {
            fprintf(f, ", \"%s\": ", keys[col]);
            stint_tout_json_us(f, r->rows_ns[5 * (size_t)i + (size_t)col]);
        }
        fputc('}', f);
    }
    fputs("], \"columns\": {", f);
    int64_t *v = stint_xmalloc(((size_t)n + 1) * sizeof *v);
    for (int col = 0; col < 5; col++) {
        uint32_t nv = 0;
        for (uint32_t i = 0; i < n; i++)
            if (col == 0 || r->rows_ns[5 * (size_t)i + (size_t)col] > 0)
                v[nv++] = r->rows_ns[5 * (size_t)i + (size_t)col];
        fprintf(f, "%s\"%s\": {\"shown\": %s, \"stats\": ", col ? ", " : "", COLS[col],
                (col == 0 || r->cnt[col]) ? "true" : "false");
        stint_tout_json_stats(f, v, nv);
        fputc('}', f);
    }
    free(v);
    fputs("}", f);
}

static void rounds_text(const struct stint_tout_ctx *c, const struct rounds *r)
{
    FILE *f = c->out;
    uint32_t n = r->n;
    char header[256];
    int hl = snprintf(header, sizeof header, "  %-6s", "Round");
    for (int i = 0; i < r->nshown; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%s (us)", COLS[r->shown[i]]);
        hl += snprintf(header + hl, sizeof header - (size_t)hl, "  %12s", lab);
    }
    fprintf(f, "%s\n  ", header);
    for (int i = 0; i < hl - 2; i++)
        putc('-', f);
    putc('\n', f);
    for (uint32_t row = 0; row < n; row++) {
        fprintf(f, "  %-6u", row);
        for (int i = 0; i < r->nshown; i++)
            fprintf(f, "  %12.1f", r->rows[5 * (size_t)row + (size_t)r->shown[i]]);
        putc('\n', f);
    }
    fprintf(f, "  Avg Host: %.1f us", sum_in_order(r->sorted[0], n) / n);
    for (int i = 1; i < r->nshown; i++) {
        int col = r->shown[i];
        fprintf(f, "  |  Avg %s: %.1f us", COLS[col], sum_in_order(r->sorted[col], r->cnt[col]) / r->cnt[col]);
        if (col == 1)
            fprintf(f, " [%u/%u]", r->cnt[1], n);
    }
    fprintf(f, "  (%u rounds)\n", n);
    const uint32_t trim = 10;
    if (n > 2 * trim) {
        uint32_t tc = n - 2 * trim;
        fprintf(f, "  Trimmed Avg Host: %.1f us", sum_in_order(r->sorted[0] + trim, tc) / tc);
        if (r->cnt[1] > 2 * trim)
            fprintf(f, "  |  Trimmed Avg Device: %.1f us",
                    sum_in_order(r->sorted[1] + trim, r->cnt[1] - 2 * trim) / (r->cnt[1] - 2 * trim));
        fprintf(f, "  (dropped %u low + %u high, %u rounds used)\n", trim, trim, tc);
    }
}

void stint_tout_rounds(const struct stint_tout_ctx *c)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    if (!m->nbuckets) {
        if (c->json) {
            fputs("\"callable\": null, \"rounds\": []", f);
            fprintf(stderr, "No [STRACE] markers found.\n");
        } else {
            fputs("No [STRACE] markers found.\n", f);
        }
        return;
    }
    struct rounds r;
    r.invs = stint_tout_kept(c, 0, &r.n);
    rounds_fill(m, &r);
    if (c->json)
        rounds_json(c, &r);
    else if (!r.n) { /* --warmup dropped every invocation (bucket 0 has the most) */
        stint_tout_nothing_left_head(c);
        stint_tout_dropped_bucket(c, 0);
    } else
        rounds_text(c, &r);
    free(r.rows);
    free(r.rows_ns);
    free(r.vals);
}
