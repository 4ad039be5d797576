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

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint steps FILE --step NAME [--json] [--strict] [--format chrome|jsonl|markers] [filters]\n"
    "  per step (spans named NAME, a glob): wall, the union of each direct child name inside\n"
    "  the step, the overlap between children (covered by two or more), and the unattributed\n"
    "  remainder (wall minus the union of all children); then min/median/max over steps.\n"
    "  Without --step, a JSONL session's measured span is the step.\n";

/* The median of sorted v (n > 0), the two middle values averaged, exactly
 * (a double holds no ns past 2^53: the median printed below the minimum). */
static struct stint_an_ratio median_exact(const int64_t *v, size_t n)
{
    struct stint_an_ratio r;
    if (n % 2) {
        r.num = v[n / 2];
        r.den = 1;
    } else {
        r.num = (stint_i128)v[n / 2 - 1] + v[n / 2];
        r.den = 2;
    }
    return r;
}

int stint_cmd_steps(int argc, char **argv)
{
    const char *step_glob = NULL;
    const struct stint_cmd_extra ex[] = {{"--step", NULL, &step_glob, NULL, 0}};
    if (stint_cmd_take_extras("steps", &argc, argv, ex, 1) == 2)
        return 2;
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    if (o.csv) {
        fprintf(stderr, "stint steps: --csv is not supported (use --json)\n");
        return 2;
    }
    struct stint_model m;
    /* args are only needed to find the measured span when no --step is given */
    rc = stint_cmd_load(&o, &m, step_glob ? 0 : STINT_MODEL_KEEP_ARGS);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    struct stint_steps sr;
    if (stint_steps_compute(&sr, &m, step_glob, &o.filter) != 0) {
        fprintf(stderr, "stint steps: out of memory\n");
        stint_model_free(&m);
        return 3;
    }
    if (!step_glob && sr.nsteps == 0) {
        fprintf(stderr, "stint steps: no --step NAME given and the input has no measured span\n");
        fputs(usage, stderr);
        rc = 2;
        goto out;
    }
    size_t nsteps = sr.nsteps, ncols = sr.ncols, width = sr.width;
    const uint32_t *steps = sr.steps, *cols = sr.cols;
    const int64_t *fig = sr.fig;
    uint64_t unfinished_steps = sr.unfinished;
    FILE *f = stdout;
    int64_t *colv = malloc((nsteps ? nsteps : 1) * sizeof *colv);
    if (!colv) {
        rc = 3;
        goto out;
    }
    const char *scope = "host or device clock of each step's lane; child figures are unions of that child name's "
                        "intervals clipped to the step; overlap = time covered by two or more children; "
                        "unattributed = wall minus the union of all children (never a sum of nested durations)";
    char b[64], mb[64];
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
                fprintf(f, ":{\"min_ns\":%" PRId64 ",\"median_ns\":%s,\"max_ns\":%" PRId64 "}", colv[0],
                        stint_an_fmt_ratio(mb, median_exact(colv, nsteps), 0, 1), colv[nsteps - 1]);
            else
                fputs(":{\"min_ns\":null,\"median_ns\":null,\"max_ns\":null}", f);
        }
        fputs("}}\n", f);
    } else {
        size_t on_dev = 0;
        for (size_t k = 0; k < nsteps; k++) {
            const struct stint_track *tr = stint_model_track_at(&m, stint_model_slice(&m, steps[k])->track);
            on_dev += stint_model_lane_at(&m, tr->lane)->clock == STINT_CLOCK_DEVICE;
        }
        fprintf(f, "# %zu steps named '", nsteps);
        if (step_glob)
            stint_out_text_str(f, step_glob, strlen(step_glob));
        else
            fputs("(measured)", f);
        fprintf(f, "' (%zu on host-clock lanes, %zu on device-clock lanes)%s; times in us\n# %s\n", nsteps - on_dev,
                on_dev, m.partial ? " - PARTIAL input" : "", scope);
        if (unfinished_steps)
            fprintf(f, "# %" PRIu64 " unfinished steps left out\n", unfinished_steps);
        if (on_dev)
            fprintf(f, "# device-clock steps (index marked d) come after the host ones: their ts_us is an offset on "
                       "the device clock; min/median/max take the durations of both\n");
        fprintf(f, "%6s %14s %12s", "step", "ts_us", "wall");
        for (size_t c = 0; c < ncols; c++) {
            /* a child name as a column header: escaped (one header line), right-aligned
             * to 14 by its escaped length */
            size_t sl;
            const char *nm = stint_model_str(&m, cols[c], &sl);
            size_t w = stint_out_text_len(nm, sl);
            fprintf(f, " %*s", w < 14 ? (int)(14 - w) : 0, "");
            stint_out_text_str(f, nm, sl);
        }
        fprintf(f, " %12s %12s\n", "overlap", "unattributed");
        for (size_t k = 0; k < nsteps; k++) {
            const int64_t *row = &fig[k * width];
            const struct stint_slice *ss = stint_model_slice(&m, steps[k]);
            if (stint_model_track_device(&m, stint_model_track_at(&m, ss->track)))
                fprintf(f, "%5zud %14s", k, stint_an_us(b, ss->ts_ns));
            else
                fprintf(f, "%6zu %14s", k, stint_an_us(b, ss->ts_ns));
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
                    const char *v = q == 0   ? stint_an_us(b, colv[0])
                                    : q == 1 ? stint_an_fmt_ratio(b, median_exact(colv, nsteps), 3, 3)
                                             : stint_an_us(b, colv[nsteps - 1]);
                    fprintf(f, c == 0 || c > ncols ? " %12s" : " %14s", v);
                }
                putc('\n', f);
            }
        }
    }
    free(colv);
    if (fflush(f) != 0) {
        fprintf(stderr, "stint steps: write error on stdout\n");
        rc = 3;
    }
out:
    stint_steps_free(&sr);
    stint_model_free(&m);
    return rc;
}
