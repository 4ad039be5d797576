/* SPDX-License-Identifier: MIT */
/*
 * report_steps.c - the HTML report's steps section (report_steps.h): the
 * text, the first rows and the per-clock min, median and max of the step
 * table, written from a table computed over the whole model or streamed.
 * Every figure says its scope; nothing is steps x names.
 */
#include "write/report_steps.h"

#include "base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One table cell: ns as us with three decimals. */
static void td_us(FILE *f, int64_t ns)
{
    char b[32];
    fprintf(f, "<td>%s</td>", stint_an_us(b, ns));
}

/* Picks a step name when none was given: the most frequent root span name
 * on thread tracks that contains "step" (0 when none; the first seen among
 * equals). Counted per name id, whatever the number of names. */
static uint32_t guess_step(const struct stint_model *m)
{
    size_t n = stint_model_nslices(m);
    uint32_t maxname = 0;
    for (size_t i = 0; i < n; i++)
        if (stint_model_slice(m, i)->name > maxname)
            maxname = stint_model_slice(m, i)->name;
    uint64_t *cnt = stint_xcalloc((size_t)maxname + 1, sizeof *cnt);
    uint8_t *has = stint_xcalloc((size_t)maxname + 1, 1); /* 1: holds "step", 2: does not (looked up once) */
    uint32_t best = 0;
    uint64_t best_n = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->depth != 0 || (s->flags & STINT_SLICE_INSTANT) ||
            stint_model_track_at(m, s->track)->kind != STINT_TRACK_THREAD)
            continue;
        if (!has[s->name])
            has[s->name] = strstr(stint_model_str(m, s->name, NULL), "step") ? 1 : 2;
        if (has[s->name] != 1)
            continue;
        if (++cnt[s->name] > best_n) {
            best_n = cnt[s->name];
            best = s->name;
        }
    }
    free(cnt);
    free(has);
    return best;
}

/* (a guessed step name such as "train_step[rank0]" is a name, not a glob) */
char *stint_report_glob_literal(const char *name)
{
    size_t n = strlen(name);
    char *g = stint_xmalloc(2 * n + 1), *q = g;
    for (const char *p = name; *p; p++) {
        if (*p == '*' || *p == '?' || *p == '[' || *p == '\\')
            *q++ = '\\';
        *q++ = *p;
    }
    *q = '\0';
    return g;
}

/* One cell of a steps stats row: x's min (q 0), exact median (q 1) or max (q 2), in us. */
static void td_stat(FILE *f, const struct stint_step_stats *x, int q)
{
    char b[64];
    fprintf(f, "<td>%s</td>", q == 0   ? stint_an_us(b, x->min_ns)
                              : q == 1 ? stint_an_fmt_ratio(b, x->median, 3, 3)
                                       : stint_an_us(b, x->max_ns));
}

/* The steps section's text and table: the figures of `stint steps` with
 * --columns (columns child names with the most time, STINT_REPORT_STEP_COLUMNS when
 * 0, SIZE_MAX all, then one "other (K names)" column, the union of the rest
 * in each step), the
 * first STINT_REPORT_STEP_ROWS steps as rows, then min, median and max per clock
 * over all the steps of that clock, from the table srp. step is the name
 * shown. Linear in the input: nothing is steps x names. Returns 0, or -1
 * when out of memory. */
static int put_steps(FILE *f, const struct stint_model *m, const char *step, int guessed,
                     const struct stint_steps_sparse *srp)
{
    const struct stint_steps_sparse sr = *srp;
    struct stint_steps_stats st;
    int64_t *row_v = calloc(sr.nshown ? sr.nshown : 1, sizeof *row_v); /* one step's shown unions */
    if (!row_v || stint_steps_stats_compute(&st, &sr) != 0) {
        free(row_v);
        return -1;
    }
    size_t nother = sr.nchildren - sr.nshown;
    fputs("<p class=\"hint\">steps named <b>", f);
    stint_report_html_str(f, step);
    fprintf(f, "</b>%s: %zu on host-clock lanes, %zu on device-clock lanes",
            guessed ? " (guessed: the most frequent root span name holding &quot;step&quot;; --step NAME picks "
                      "another)"
                    : "",
            sr.nhost, sr.nsteps - sr.nhost);
    if (sr.unfinished)
        fprintf(f, " (%" PRIu64 " unfinished left out)", sr.unfinished);
    if (!sr.nsteps) {
        fputs("</p>\n", f);
        goto out;
    }
    fputs("; times in us. A child column is the union of that name's intervals clipped to the step; overlap is "
          "the time covered by two or more children; unattributed is wall minus the union of all children. min, "
          "median and max are per clock, over all the steps of that clock (a child absent from a step counts 0)",
          f);
    if (sr.nhost && sr.nsteps > sr.nhost)
        fputs("; device-clock steps come after the host ones", f);
    if (sr.nsteps > STINT_REPORT_STEP_ROWS)
        fprintf(f, "; <b>the first %d rows are shown</b>", (int)STINT_REPORT_STEP_ROWS);
    fputs(".</p>\n", f);
    char other_hdr[64];
    snprintf(other_hdr, sizeof other_hdr, "other (%zu name%s)", nother, nother == 1 ? "" : "s");
    if (nother)
        fprintf(f, "<p class=\"hint\">child columns: the %zu names with the most time over all steps (ties by "
                   "name); <b>%s</b> is the union, not the sum, of the other %zu names' intervals clipped to the "
                   "step (<code>--columns 0</code> shows every name)</p>\n",
                sr.nshown, other_hdr, nother);
    fputs("<table><tr><th>step</th><th>clock</th><th>wall</th>", f);
    for (size_t r = 0; r < sr.nshown; r++) {
        fputs("<th>", f);
        stint_report_html_str(f, stint_model_str(m, sr.children[r], NULL));
        fputs("</th>", f);
    }
    if (nother)
        fprintf(f, "<th>%s</th>", other_hdr);
    fputs("<th>overlap</th><th>unattributed</th></tr>\n", f);
    for (size_t k = 0; k < sr.nsteps && k < STINT_REPORT_STEP_ROWS; k++) {
        const struct stint_step_row *row = &sr.rows[k];
        fprintf(f, "<tr><td>%zu</td><td>%s</td>", k, k < sr.nhost ? "host" : "device");
        td_us(f, row->wall_ns);
        /* cells are in rank order: the shown ones come first */
        for (size_t j = row->cell0; j < row->cell0 + row->ncells && sr.cells[j].child < sr.nshown; j++)
            row_v[sr.cells[j].child] = sr.cells[j].union_ns;
        for (size_t r = 0; r < sr.nshown; r++) {
            td_us(f, row_v[r]);
            row_v[r] = 0;
        }
        if (nother)
            td_us(f, row->other_ns);
        td_us(f, row->overlap_ns);
        td_us(f, row->unattributed_ns);
        fputs("</tr>\n", f);
    }
    static const char *const lbl[3] = {"min", "median", "max"};
    for (int dev = 0; dev < 2; dev++) {
        for (int q = 0; q < 3 && st.nsteps[dev]; q++) {
            fprintf(f, "<tr><th>%s</th><th>%s, %zu step%s</th>", lbl[q], dev ? "device" : "host", st.nsteps[dev],
                    st.nsteps[dev] == 1 ? "" : "s");
            td_stat(f, &st.fig[dev][STINT_STEP_WALL], q);
            for (size_t r = 0; r < sr.nshown; r++)
                td_stat(f, &st.child[dev][r], q);
            if (nother)
                td_stat(f, &st.fig[dev][STINT_STEP_OTHER], q);
            td_stat(f, &st.fig[dev][STINT_STEP_OVERLAP], q);
            td_stat(f, &st.fig[dev][STINT_STEP_UNATTRIBUTED], q);
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);
out:
    free(row_v);
    stint_steps_stats_free(&st);
    return 0;
}

int stint_report_steps_write(FILE *f, const struct stint_model *m, const char *step, int guessed,
                             const struct stint_steps_sparse *sr)
{
    fputs("<h2>Steps</h2>\n", f);
    if (!sr) {
        fputs("<p class=\"hint\">no step spans (give --step NAME)</p>\n", f);
        return 0;
    }
    return put_steps(f, m, step, guessed, sr);
}

int stint_report_steps_section(FILE *f, const struct stint_model *m, const char *step, size_t columns)
{
    char *guessed = NULL; /* the guessed name as a pattern of itself */
    if (!step) {
        uint32_t g = guess_step(m);
        step = g ? stint_model_str(m, g, NULL) : NULL;
        if (step)
            guessed = stint_report_glob_literal(step);
    }
    if (!step)
        return stint_report_steps_write(f, m, NULL, 0, NULL);
    struct stint_steps_sparse sr;
    if (stint_steps_sparse_compute(&sr, m, guessed ? guessed : step, NULL,
                                   columns ? columns : STINT_REPORT_STEP_COLUMNS) != 0) {
        free(guessed);
        return -1;
    }
    int rc = stint_report_steps_write(f, m, step, guessed != NULL, &sr);
    stint_steps_sparse_free(&sr);
    free(guessed);
    return rc;
}
