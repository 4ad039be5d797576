/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `stint report IN -o report.html`: one self-contained HTML
 * file (report_html.h) for any input the readers support.
 *
 * The lane and name tables come from `stint summary`'s own tallies
 * (summary_tally.h), streamed as the input is read, so the two agree. A
 * report is written only after a read that leaves something to report; a
 * partial input still gets its page, said PARTIAL on stderr.
 */
#include "analyze/analysis.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "write/outfile.h"
#include "write/report_html.h"
#include "base/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint report IN -o OUT.html [--step NAME] [--columns N] [--title TEXT] [--max-slices N]\n"
    "                    [--strict] [--format chrome|jsonl|markers]\n"
    "  one self-contained HTML file (no network, no external assets): a zoomable timeline per\n"
    "  lane, a flame graph, lane/name summary and step tables, and the scope notes\n";

int stint_cmd_report(int argc, char **argv)
{
    struct stint_report_opts ro = {0};
    const char *out_path = NULL;
    const char *max_slices = NULL, *columns = NULL;
    const struct stint_cmd_extra ex[] = {{"--output", "-o", &out_path, NULL, 0},
                                         {"--step", NULL, &ro.step, NULL, 0},
                                         {"--columns", NULL, &columns, NULL, 0},
                                         {"--title", NULL, &ro.title, NULL, 0},
                                         {"--max-slices", NULL, &max_slices, NULL, 0}};
    if (stint_cmd_take_extras("report", &argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    if (max_slices) {
        char *end;
        errno = 0;
        long long n = strtoll(max_slices, &end, 10);
        if (*end || end == max_slices || n < 1 || errno == ERANGE) {
            fprintf(stderr, "stint report: --max-slices: '%s' is not a positive count (1 to %lld)\n", max_slices,
                    LLONG_MAX);
            return STINT_EXIT_USAGE;
        }
        ro.max_slices = (size_t)n;
    }
    if (columns && stint_cmd_parse_columns(columns, &ro.step_columns) != 0) {
        fprintf(stderr, "stint report: --columns: '%s': expected a whole number of step-table child columns "
                        "(0 = all)\n",
                columns);
        return STINT_EXIT_USAGE;
    }
    struct stint_cmd_opts o;
    const struct stint_cmd_spec spec = {"report", 0, "the report covers the whole trace (no filter is taken)",
                                        "report writes one HTML file (-o)", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    if (!out_path) {
        fprintf(stderr, "stint report: -o OUT.html is required\n");
        fputs(usage, stderr);
        return STINT_EXIT_USAGE;
    }
    if (stint_outfile_refuse_input("report", out_path, &o.path, 1)) /* (the output replaces a file whole) */
        return STINT_EXIT_USAGE;
    struct stint_model m;
    struct stint_tally T; /* the lane and name tables: `stint summary`'s own tallies */
    stint_tally_init(&T, NULL);
    T.exits_after = stint_cli_exits_after_command;
    /* of the args, the page shows none: only the GPU section's args.correlation is kept (the
     * others are skipped unread: 24 bytes an arg and their strings, most of a full model) */
    rc = stint_cmd_load_sink(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_ARGS_CORRELATION, stint_tally_on_slice, &T,
                             NULL);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    stint_tally_compute(&T, &m);
    char step_family[256]; /* no --step: a ProfilerStep#N family first, before the writer's own guess */
    if (!ro.step && stint_steps_guess(&m, step_family, sizeof step_family))
        ro.step = step_family;
    struct stint_outfile out; /* (written whole or not at all: outfile.h) */
    if (stint_outfile_open(&out, "report", out_path) != 0) {
        stint_tally_free(&T);
        stint_model_free(&m);
        return STINT_EXIT_IO;
    }
    ro.input_path = o.path;
    if (stint_write_report_html(&m, &T, out.f, &ro) != 0) /* (it fails only out of memory) */
        stint_die_nomem();
    if (stint_outfile_commit(&out, "report") != 0)
        rc = STINT_EXIT_IO;
    else if (m.partial)
        fprintf(stderr, "stint report: wrote %s (PARTIAL: the input ended in an error)\n", out_path);
    stint_tally_free(&T);
    stint_model_free(&m);
    return rc;
}
