/*
 * cmd_convert.c - `stint convert IN -o OUT --to FORMAT`: one trace model,
 * written in another format (writers.h). Formats: chrome, folded, jsonl,
 * markers, and otlp-json when this build links the OTLP writer
 * (write_otlp.c, a weak symbol here). Whatever a format cannot hold is
 * counted and reported on stderr, never dropped silently.
 */
#include "cmdopts.h"
#include "commands.h"
#include "writers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Provided by write_otlp.c when it is built; NULL otherwise. */
int stint_write_otlp(const struct stint_model *m, FILE *out, char *err, size_t errcap) __attribute__((weak));

static const char usage[] =
    "usage: stint convert IN -o OUT --to chrome|folded|jsonl|markers|otlp-json [--no-rebase]\n"
    "                     [--strict] [--format chrome|jsonl|markers]\n"
    "  chrome   Chrome Trace Event JSON, strictly nested per track (improperly overlapping\n"
    "           spans move to an extra track, counted), ts rebased, us with 3 decimals\n"
    "  folded   'a;b;c <self ns>' stacks for flamegraph tools and speedscope\n"
    "  jsonl    a stint/session/1 session;  markers  [STRACE] v=1 lines\n"
    "  OUT '-' writes to stdout\n";

int stint_cmd_convert(int argc, char **argv)
{
    const char *out_path = NULL, *to = NULL;
    int rebase = 1;
    const struct stint_cmd_extra ex[] = {{"--output", "-o", &out_path, NULL, 0},
                                         {"--to", NULL, &to, NULL, 0},
                                         {"--no-rebase", NULL, NULL, &rebase, 0}};
    if (stint_cmd_take_extras("convert", &argc, argv, ex, sizeof ex / sizeof ex[0]) == 2)
        return 2;
    struct stint_cmd_opts o;
    const struct stint_cmd_spec spec = {"convert", 0, "convert writes the whole trace (no filter is taken)",
                                        "convert writes the format --to names", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    if (!to || !out_path) {
        fprintf(stderr, "stint convert: %s is required\n", !to ? "--to FORMAT" : "-o OUT");
        fputs(usage, stderr);
        return 2;
    }
    int (*writer)(const struct stint_model *, FILE *, const struct stint_write_opts *, struct stint_write_stats *) =
        NULL;
    int otlp = 0; /* (writer stays NULL) */
    if (!strcmp(to, "chrome"))
        writer = stint_write_chrome;
    else if (!strcmp(to, "folded"))
        writer = stint_write_folded;
    else if (!strcmp(to, "jsonl"))
        writer = stint_write_jsonl;
    else if (!strcmp(to, "markers"))
        writer = stint_write_markers;
    else if (!strcmp(to, "otlp-json") || !strcmp(to, "otlp")) {
        if (!stint_write_otlp) {
            fprintf(stderr, "stint convert: otlp-json not available in this build\n");
            return 2;
        }
        otlp = 1;
    } else {
        fprintf(stderr, "stint convert: --to '%s' (expected chrome, folded, jsonl, markers or otlp-json)\n", to);
        return 2;
    }
    struct stint_model m;
    rc = stint_cmd_load(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    FILE *out = stint_cmd_open_out("convert", out_path);
    if (!out) {
        stint_model_free(&m);
        return 3;
    }
    struct stint_write_stats st;
    memset(&st, 0, sizeof st);
    struct stint_write_opts wo = {rebase};
    int wr;
    if (otlp) {
        char err[512] = "";
        wr = stint_write_otlp(&m, out, err, sizeof err);
        if (wr != 0)
            fprintf(stderr, "stint convert: %s\n", err[0] ? err : "otlp-json writer failed");
    } else {
        wr = writer(&m, out, &wo, &st);
        if (wr != 0) {
            fprintf(stderr, "stint convert: out of memory while writing %s\n", out_path);
            wr = 3;
        }
    }
    if (stint_cmd_close_out("convert", out, out_path) != 0)
        wr = 3;
    if (!otlp && !wr) { /* after a write error OUT holds no whole conversion: nothing was written to report */
        fprintf(stderr, "stint convert: wrote %" PRIu64 " slices as %s to %s", st.slices, to, out_path);
        if (st.origin_ns)
            fprintf(stderr, " (ts rebased by %s%" PRId64 " ns)", st.origin_ns > 0 ? "-" : "+",
                    st.origin_ns > 0 ? st.origin_ns : -st.origin_ns);
        fputc('\n', stderr);
        if (st.moved_overlap)
            fprintf(stderr,
                    "stint convert: %" PRIu64 " span(s) overlapped their parent improperly and moved to an extra "
                    "track named '<thread> (overlap N)'\n",
                    st.moved_overlap);
        if (st.skipped)
            fprintf(stderr,
                    "stint convert: left out (no %s equivalent): %" PRIu64 " instants, %" PRIu64
                    " async slices, %" PRIu64 " unfinished spans\n",
                    to, st.skipped_instants, st.skipped_async, st.skipped_unfinished);
        if (st.skipped_counters)
            fprintf(stderr, "stint convert: left out: %" PRIu64 " counter series\n", st.skipped_counters);
        if (st.renamed)
            fprintf(stderr, "stint convert: %" PRIu64 " name(s) changed to fit the %s format\n", st.renamed, to);
    }
    if (!wr && m.flows.len) { /* flow arrows: Chrome holds them (but those it cannot bind exactly), no other format */
        uint64_t left = writer == stint_write_chrome ? st.skipped_flows : (uint64_t)m.flows.len;
        if (writer != stint_write_chrome)
            fprintf(stderr, "stint convert: left out: %zu flow arrow(s) (%s has no flow records)\n", m.flows.len,
                    to);
        else if (left)
            fprintf(stderr,
                    "stint convert: left out: %" PRIu64 " of %zu flow arrow(s) (an end on an async track, an arrow "
                    "back in time, or an end no Chrome flow event binds to alone)\n",
                    left, m.flows.len);
    }
    stint_model_free(&m);
    if (wr)
        return wr;
    return rc;
}
