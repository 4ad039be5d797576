/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `stint report IN -o report.html`: one self-contained HTML
 * file (report_html.h) for any input the readers support.
 *
 * The lane and name tables come from `stint summary`'s own tallies
 * (summary_tally.h), streamed as the input is read, so the two agree. A
 * report is written only after a read that leaves something to report; a
 * partial input still gets its page, said PARTIAL on stderr.
 *
 * A Chrome JSON file is read as a lean model whose spans stream to the
 * report's sink (report_stream.h), so no slice is kept: the memory is the
 * lean model's, the call paths' and a few bounded tables (docs/performance.md,
 * "Memory per command"). Other formats, stdin, a trace the stream cannot
 * describe (explicit parents) and STINT_REPORT_FULL=1 take the whole model;
 * the page is the same either way.
 */
#include "analyze/analysis.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "write/outfile.h"
#include "write/report_html.h"
#include "write/report_stream.h"
#include "read/readers.h"
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

/* A Chrome JSON file (not stdin; STINT_REPORT_FULL=1 reads whole) is read
 * as a lean model whose spans stream to the report's sink
 * (report_stream.h): the page's parts then come without the model's
 * slices. Returns 1 with m, T (computed) and p made; 2 with m read whole
 * and T computed (a stream the sink could not describe, read again); 0
 * when the input is to be read whole (another format); -1 when there is
 * no report (*rc its exit code, m freed). */
static int load_streamed(struct stint_cmd_opts *o, struct stint_model *m, struct stint_tally *T,
                         const struct stint_report_opts *ro, struct stint_report_parts *p, int *rc)
{
    const char *fmt = o->format ? o->format : strcmp(o->path, "-") ? stint_detect_format(o->path) : NULL;
    const char *full = getenv("STINT_REPORT_FULL");
    if (!fmt || strcmp(fmt, "chrome") != 0 || !strcmp(o->path, "-") || (full && *full == '1'))
        return 0;
    stint_tally_init(T, NULL);
    T->exits_after = stint_cli_exits_after_command;
    struct stint_report_stream *s = stint_report_stream_new(T, ro);
    o->corr_want = stint_gpu_collect_want;
    o->corr_fn = stint_gpu_collect_corr;
    o->corr_ctx = stint_report_stream_gpu(s);
    *rc = stint_cmd_load_sink(o, m, STINT_MODEL_LEAN, stint_report_stream_span, s, NULL);
    o->corr_want = NULL;
    o->corr_fn = NULL;
    o->corr_ctx = NULL;
    if (stint_no_report(*rc, m)) {
        stint_report_stream_free(s, m);
        stint_tally_free(T);
        stint_model_free(m);
        return -1;
    }
    stint_tally_compute(T, m);
    int fr = stint_report_stream_finish(s, m, p);
    if (fr < 0)
        stint_die_nomem();
    if (fr == 0)
        return 1;
    /* a parent off its track, or B/E device work: read again, whole and quietly (the
     * first read said what it found; the exit code stays the first read's) */
    stint_tally_free(T);
    stint_model_free(m);
    stint_tally_init(T, NULL);
    T->exits_after = stint_cli_exits_after_command;
    if (stint_model_init(m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_ARGS_CORRELATION) != 0)
        stint_die_nomem();
    stint_model_set_span_sink(m, stint_tally_on_slice, T);
    struct stint_read_opts rdo = {.format = o->format, .strict = o->strict, .allow = o->allow, .quiet = 1};
    (void)stint_read_trace(o->path, m, &rdo);
    stint_tally_compute(T, m);
    return 2;
}

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
    struct stint_report_parts parts;
    int streamed = load_streamed(&o, &m, &T, &ro, &parts, &rc);
    if (streamed < 0)
        return rc;
    if (!streamed) { /* (2: already read whole) */
        stint_tally_init(&T, NULL);
        T.exits_after = stint_cli_exits_after_command;
        /* of the args, the page shows none: only the GPU section's args.correlation is kept (the
         * others are skipped unread: 24 bytes an arg and their strings, most of a full model) */
        rc = stint_cmd_load_sink(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_ARGS_CORRELATION, stint_tally_on_slice,
                                 &T, NULL);
        if (stint_no_report(rc, &m)) {
            stint_model_free(&m);
            return rc;
        }
        stint_tally_compute(&T, &m);
    }
    char step_family[256]; /* no --step: a ProfilerStep#N family first, before the writer's own guess */
    if (streamed != 1 && !ro.step && stint_steps_guess(&m, step_family, sizeof step_family))
        ro.step = step_family;
    struct stint_outfile out; /* (written whole or not at all: outfile.h) */
    if (stint_outfile_open(&out, "report", out_path) != 0) {
        stint_tally_free(&T);
        stint_model_free(&m);
        return STINT_EXIT_IO;
    }
    ro.input_path = o.path;
    if ((streamed == 1 ? stint_write_report_html_parts(&m, &T, out.f, &ro, &parts)
                  : stint_write_report_html(&m, &T, out.f, &ro)) != 0) /* (it fails only out of memory) */
        stint_die_nomem();
    if (stint_outfile_commit(&out, "report") != 0)
        rc = STINT_EXIT_IO;
    else if (m.partial)
        fprintf(stderr, "stint report: wrote %s (PARTIAL: the input ended in an error)\n", out_path);
    stint_tally_free(&T);
    stint_model_free(&m);
    return rc;
}
