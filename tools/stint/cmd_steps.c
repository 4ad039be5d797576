/*
 * cmd_steps.c - `stint steps FILE --step NAME`: where each step's wall time went.
 *
 * A step is a finished span on a thread track whose name matches NAME (a
 * shell glob). For each step: its wall time; for each direct child name, the
 * union of that name's intervals inside the step (clipped to the step); the
 * overlap between children (time covered by two or more of them); and the
 * unattributed remainder, wall minus the union of all children. Because the
 * remainder subtracts a union of clipped intervals it is never negative, and
 * no figure adds a step to its children. Then min/median/max of every
 * column over the steps.
 */
#include "analysis.h"
#include "cmdopts.h"
#include "commands.h"
#include "textout.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint steps FILE --step NAME [--json] [--strict] [--format chrome|jsonl|markers] [filters]\n"
    "  per step (spans named NAME, a glob): wall, the union of each direct child name inside\n"
    "  the step, the overlap between children (covered by two or more), and the unattributed\n"
    "  remainder (wall minus the union of all children); then min/median/max over steps.\n"
    "  Without --step, a JSONL session's measured span is the step.\n";

struct child_iv {
    uint32_t step;   /* index into steps */
    uint32_t col;    /* child name column */
    struct stint_iv iv;
};

static int civ_cmp(const void *pa, const void *pb)
{
    const struct child_iv *a = pa, *b = pb;
    if (a->step != b->step)
        return a->step < b->step ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->iv.start_ns > b->iv.start_ns) - (a->iv.start_ns < b->iv.start_ns);
}

static const struct stint_model *sort_model;

static int step_cmp(const void *pa, const void *pb)
{
    const struct stint_slice *a = stint_model_slice(sort_model, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(sort_model, *(const uint32_t *)pb);
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Whether slice s carries a true "measured" arg (JSONL sessions). */
static int is_measured(const struct stint_model *m, const struct stint_slice *s)
{
    for (uint32_t k = 0; k < s->nargs; k++) {
        const struct stint_arg *a = stint_model_arg_at(m, s->args + k);
        const char *key = stint_model_str(m, a->key, NULL);
        size_t kl = strlen(key);
        if (kl >= 8 && !strcmp(key + kl - 8, "measured") && a->kind == STINT_ARG_BOOL && a->ival)
            return 1;
    }
    return 0;
}

int stint_cmd_steps(int argc, char **argv)
{
    const char *step_glob = NULL;
    int w = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--step")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "stint steps: --step needs a span name\n");
                return 2;
            }
            step_glob = argv[++i];
        } else if (!strncmp(argv[i], "--step=", 7))
            step_glob = argv[i] + 7;
        else
            argv[w++] = argv[i];
    }
    argc = w;
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    if (o.csv) {
        fprintf(stderr, "stint steps: --csv is not supported (use --json)\n");
        return 2;
    }
    struct stint_model m;
    rc = stint_cmd_load(&o, &m, STINT_MODEL_KEEP_ARGS);
    if (rc == 3 || rc == 2) {
        stint_model_free(&m);
        return rc;
    }
    size_t n = stint_model_nslices(&m);
    uint32_t *step_of = malloc((n ? n : 1) * sizeof *step_of); /* slice -> step number */
    uint32_t *steps = malloc((n ? n : 1) * sizeof *steps);       /* step number -> slice */
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols);         /* column -> name id */
    struct child_iv *civ = malloc((n ? n : 1) * sizeof *civ);
    struct stint_iv *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!step_of || !steps || !cols || !civ || !tmp) {
        fprintf(stderr, "stint steps: out of memory\n");
        rc = 3;
        goto out;
    }
    size_t nsteps = 0, ncols = 0, nciv = 0;
    uint64_t unfinished_steps = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(&m, i);
        step_of[i] = STINT_NO_ID;
        if (stint_model_track_at(&m, s->track)->kind != STINT_TRACK_THREAD || (s->flags & STINT_SLICE_INSTANT))
            continue;
        int match = step_glob ? fnmatch(step_glob, stint_model_str(&m, s->name, NULL), 0) == 0 : is_measured(&m, s);
        if (!match || !stint_filter_slice(&o.filter, &m, s))
            continue;
        if (s->dur_ns < 0) {
            unfinished_steps++;
            continue;
        }
        step_of[i] = (uint32_t)nsteps;
        steps[nsteps++] = (uint32_t)i;
    }
    /* steps in time order (the model groups slices by track) */
    sort_model = &m;
    qsort(steps, nsteps, sizeof *steps, step_cmp);
    for (size_t k = 0; k < nsteps; k++)
        step_of[steps[k]] = (uint32_t)k;
    if (!step_glob && nsteps == 0) {
        fprintf(stderr, "stint steps: no --step NAME given and the input has no measured span\n");
        fputs(usage, stderr);
        rc = 2;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(&m, i);
        if (s->parent == STINT_NO_ID || step_of[s->parent] == STINT_NO_ID)
            continue;
        const struct stint_slice *p = stint_model_slice(&m, s->parent);
        int64_t pend = p->ts_ns + p->dur_ns;
        int64_t end = s->dur_ns < 0 ? pend : s->ts_ns + s->dur_ns;
        if (end > pend)
            end = pend;
        uint32_t col = 0;
        while (col < ncols && cols[col] != s->name)
            col++;
        if (col == ncols)
            cols[ncols++] = s->name;
        civ[nciv].step = step_of[s->parent];
        civ[nciv].col = col;
        civ[nciv].iv.start_ns = s->ts_ns;
        civ[nciv].iv.end_ns = end;
        nciv++;
    }
    qsort(civ, nciv, sizeof *civ, civ_cmp);
    /* table: per step, ncols + 3 figures (wall, cols..., overlap, remainder) */
    size_t width = ncols + 3;
    int64_t *fig = calloc(nsteps * width + 1, sizeof *fig);
    if (!fig) {
        fprintf(stderr, "stint steps: out of memory\n");
        rc = 3;
        goto out;
    }
    size_t c0 = 0;
    for (size_t k = 0; k < nsteps; k++) {
        int64_t *row = &fig[k * width];
        row[0] = stint_model_slice(&m, steps[k])->dur_ns;
        size_t c1 = c0;
        while (c1 < nciv && civ[c1].step == k)
            c1++;
        /* per column unions */
        size_t a = c0;
        while (a < c1) {
            size_t b = a, nt = 0;
            while (b < c1 && civ[b].col == civ[a].col)
                tmp[nt++] = civ[b++].iv;
            row[1 + civ[a].col] = stint_an_union(tmp, nt);
            a = b;
        }
        size_t nt = 0;
        for (size_t j = c0; j < c1; j++)
            tmp[nt++] = civ[j].iv;
        int64_t ov;
        int64_t all = stint_an_union_overlap(tmp, nt, &ov);
        row[1 + ncols] = ov;
        row[2 + ncols] = row[0] - all; /* >= 0: every child interval is clipped to the step */
        c0 = c1;
    }
    FILE *f = stdout;
    int64_t *colv = malloc((nsteps ? nsteps : 1) * sizeof *colv);
    if (!colv) {
        free(fig);
        rc = 3;
        goto out;
    }
    const char *scope = "host or device clock of each step's lane; child figures are unions of that child name's "
                        "intervals clipped to the step; overlap = time covered by two or more children; "
                        "unattributed = wall minus the union of all children (never a sum of nested durations)";
    char b[32];
    if (o.json) {
        fprintf(f, "{\"schema\":\"stint.steps/1\",\"step\":");
        if (step_glob)
            stint_out_json_str(f, step_glob, strlen(step_glob));
        else
            fputs("\"(measured span)\"", f);
        fprintf(f, ",\"scope\":");
        stint_out_json_str(f, scope, strlen(scope));
        fprintf(f, ",\"steps_count\":%zu,\"unfinished_steps\":%" PRIu64 ",\"partial\":%s,\n\"children\":[", nsteps,
                unfinished_steps, m.partial ? "true" : "false");
        for (size_t c = 0; c < ncols; c++) {
            size_t l;
            const char *s = stint_model_str(&m, cols[c], &l);
            if (c)
                putc(',', f);
            stint_out_json_str(f, s, l);
        }
        fputs("],\n\"steps\":[", f);
        for (size_t k = 0; k < nsteps; k++) {
            const int64_t *row = &fig[k * width];
            const struct stint_slice *s = stint_model_slice(&m, steps[k]);
            const struct stint_track *tr = stint_model_track_at(&m, s->track);
            const struct stint_lane *l = stint_model_lane_at(&m, tr->lane);
            fprintf(f,
                    "%s\n{\"index\":%zu,\"ts_ns\":%" PRId64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                    ",\"clock\":\"%s\",\"wall_ns\":%" PRId64 ",\"children_union_ns\":{",
                    k ? "," : "", k, s->ts_ns, l->pid, l->tid, l->clock == STINT_CLOCK_DEVICE ? "device" : "host",
                    row[0]);
            for (size_t c = 0; c < ncols; c++) {
                size_t sl;
                const char *nm = stint_model_str(&m, cols[c], &sl);
                if (c)
                    putc(',', f);
                stint_out_json_str(f, nm, sl);
                fprintf(f, ":%" PRId64, row[1 + c]);
            }
            fprintf(f, "},\"overlap_ns\":%" PRId64 ",\"unattributed_ns\":%" PRId64 "}", row[1 + ncols],
                    row[2 + ncols]);
        }
        fputs("],\n\"over_steps\":{", f);
        for (size_t c = 0; c < width; c++) {
            for (size_t k = 0; k < nsteps; k++)
                colv[k] = fig[k * width + c];
            stint_an_sort_i64(colv, nsteps);
            if (c)
                putc(',', f);
            if (c == 0)
                fputs("\"wall\"", f);
            else if (c == 1 + ncols)
                fputs("\"overlap\"", f);
            else if (c == 2 + ncols)
                fputs("\"unattributed\"", f);
            else {
                size_t sl;
                const char *nm = stint_model_str(&m, cols[c - 1], &sl);
                stint_out_json_str(f, nm, sl);
            }
            if (nsteps)
                fprintf(f, ":{\"min_ns\":%" PRId64 ",\"median_ns\":%.1f,\"max_ns\":%" PRId64 "}", colv[0],
                        stint_an_quantile(colv, nsteps, 0.5), colv[nsteps - 1]);
            else
                fputs(":{\"min_ns\":null,\"median_ns\":null,\"max_ns\":null}", f);
        }
        fputs("}}\n", f);
    } else {
        fprintf(f, "# %zu steps named '%s'%s; times in us\n# %s\n", nsteps, step_glob ? step_glob : "(measured)",
                m.partial ? " - PARTIAL input" : "", scope);
        if (unfinished_steps)
            fprintf(f, "# %" PRIu64 " unfinished steps left out\n", unfinished_steps);
        fprintf(f, "%6s %14s %12s", "step", "ts_us", "wall");
        for (size_t c = 0; c < ncols; c++)
            fprintf(f, " %14s", stint_model_str(&m, cols[c], NULL));
        fprintf(f, " %12s %12s\n", "overlap", "unattributed");
        for (size_t k = 0; k < nsteps; k++) {
            const int64_t *row = &fig[k * width];
            fprintf(f, "%6zu %14s", k, stint_an_us(b, stint_model_slice(&m, steps[k])->ts_ns));
            fprintf(f, " %12s", stint_an_us(b, row[0]));
            for (size_t c = 0; c < ncols; c++)
                fprintf(f, " %14s", stint_an_us(b, row[1 + c]));
            fprintf(f, " %12s", stint_an_us(b, row[1 + ncols]));
            fprintf(f, " %12s\n", stint_an_us(b, row[2 + ncols]));
        }
        if (nsteps) {
            static const char *const lbl[3] = {"min", "median", "max"};
            for (int q = 0; q < 3; q++) {
                fprintf(f, "%6s %14s", lbl[q], "");
                for (size_t c = 0; c < width; c++) {
                    for (size_t k = 0; k < nsteps; k++)
                        colv[k] = fig[k * width + c];
                    stint_an_sort_i64(colv, nsteps);
                    double v = q == 0 ? (double)colv[0]
                               : q == 1 ? stint_an_quantile(colv, nsteps, 0.5)
                                        : (double)colv[nsteps - 1];
                    fprintf(f, c == 0 || c > ncols ? " %12s" : " %14s", stint_an_us_f(b, v));
                }
                putc('\n', f);
            }
        }
    }
    free(colv);
    free(fig);
    if (fflush(f) != 0) {
        fprintf(stderr, "stint steps: write error on stdout\n");
        rc = 3;
    }
out:
    free(step_of);
    free(steps);
    free(cols);
    free(civ);
    free(tmp);
    stint_model_free(&m);
    return rc;
}
