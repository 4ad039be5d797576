/*
 * cmd_convert.c - `stint convert IN -o OUT --to FORMAT`: one trace model,
 * written in another format (writers.h). Formats: chrome, folded, jsonl,
 * markers, and otlp-json when this build links the OTLP writer
 * (write_otlp.c, a weak symbol here). Whatever a format cannot hold is
 * counted and reported on stderr, never dropped silently.
 */
#include "cmdopts.h"
#include "commands.h"
#include "textout.h"
#include "writers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Provided by write_otlp.c when it is built; NULL otherwise. */
int stint_write_otlp(const struct stint_model *m, FILE *out, char *err, size_t errcap) __attribute__((weak));

static const char usage[] =
    "usage: stint convert IN -o OUT --to chrome|folded|jsonl|markers|otlp-json [--no-rebase]\n"
    "                     [--time-range A:B] [--strict] [--format chrome|jsonl|markers]\n"
    "  chrome   Chrome Trace Event JSON, strictly nested per track (improperly overlapping\n"
    "           spans move to an extra track, counted), ts rebased, us with 3 decimals\n"
    "  folded   'a;b;c <self ns>' stacks for flamegraph tools and speedscope\n"
    "  jsonl    a stint/session/1 session;  markers  [STRACE] v=1 lines\n"
    "  --time-range A:B  (chrome) only what overlaps [A, B), cut to it: a trace a viewer can open\n"
    "  OUT '-' writes to stdout\n";

/* Folded: a warning before a huge output is written (it grows with the
 * square of the nesting depth); nothing is refused. */
#define FOLDED_WARN_BYTES (1ull << 30)
static void folded_size_warning(const struct stint_write_stats *st, void *ctx)
{
    (void)ctx;
    if (st->est_bytes > FOLDED_WARN_BYTES)
        fprintf(stderr,
                "stint convert: warning: the folded output will be %" PRIu64 " bytes (%.1f GiB): each line "
                "repeats its whole call path, so it grows with the square of the nesting depth\n",
                st->est_bytes, (double)st->est_bytes / (double)(1ull << 30));
}

/* What the JSONL session cannot tell apart: processes, clocks, categories. */
static void report_jsonl(const struct stint_write_stats *st)
{
    if (st->merged_spans || st->merged_counters)
        fprintf(stderr,
                "stint convert: %" PRIu64 " span(s) of %" PRIu64 " other process(es) and %" PRIu64
                " counter series of other processes written under pid %" PRId64 " (a jsonl session has one pid)\n",
                st->merged_spans, st->merged_procs, st->merged_counters, st->pid);
    if (st->device_spans)
        fprintf(stderr,
                "stint convert: %" PRIu64 " device-clock span(s) written as host spans (jsonl has no clock "
                "domain; their times are not host-aligned)\n",
                st->device_spans);
    if (st->renumbered)
        fprintf(stderr,
                "stint convert: %" PRIu64 " thread(s) of other processes or device lanes written with a fresh tid "
                "(from %" PRId64 " on), not to merge with another thread\n",
                st->renumbered, st->renumber_from);
    if (st->kind_changed)
        fprintf(stderr,
                "stint convert: %" PRIu64 " span(s) written with span_kind function (their category is not "
                "function, op or module)\n",
                st->kind_changed);
}

/* The stderr report of a finished conversion: what was written, and what
 * the format could not hold. */
static void report(const char *to, const char *out_path, const struct stint_write_stats *st, uint64_t bad_utf8)
{
    fprintf(stderr, "stint convert: wrote %" PRIu64 " slices as %s to %s", st->slices, to, out_path);
    if (st->origin_ns)
        fprintf(stderr, " (ts rebased by %s%" PRId64 " ns)", st->origin_ns > 0 ? "-" : "+",
                st->origin_ns > 0 ? st->origin_ns : -st->origin_ns);
    if (st->device_origin_ns)
        fprintf(stderr, " (device-clock ts by %s%" PRId64 " ns)", st->device_origin_ns > 0 ? "-" : "+",
                st->device_origin_ns > 0 ? st->device_origin_ns : -st->device_origin_ns);
    fputc('\n', stderr);
    if (st->window_out || st->clipped || st->window_flows || st->carried_samples)
        fprintf(stderr,
                "stint convert: --time-range: %" PRIu64 " slice(s) and counter sample(s) outside it left out, %" PRIu64
                " span(s) cut at its edges (args \"stint_clipped\"), %" PRIu64
                " flow arrow(s) left out (an end outside it or on a span cut at its start), %" PRIu64
                " counter value(s) carried to its start\n",
                st->window_out, st->clipped, st->window_flows, st->carried_samples);
    if (st->moved_overlap)
        fprintf(stderr,
                "stint convert: %" PRIu64 " span(s) overlapped their parent improperly and moved to an extra "
                "track named '<thread> (overlap N)'\n",
                st->moved_overlap);
    if (st->reparented)
        fprintf(stderr,
                "stint convert: %" PRIu64 " span(s) nest under another parent in the output (theirs is on another "
                "thread or moved to an extra track: Chrome nests by time on one track)\n",
                st->reparented);
    if (st->skipped)
        fprintf(stderr,
                "stint convert: left out (no %s equivalent): %" PRIu64 " instants, %" PRIu64
                " async slices, %" PRIu64 " unfinished spans\n",
                to, st->skipped_instants, st->skipped_async, st->skipped_unfinished);
    if (st->zero_spans)
        fprintf(stderr, "stint convert: %" PRIu64 " zero-length span(s) have no weight in folded stacks (no line "
                        "of their own)\n",
                st->zero_spans);
    if (st->lost_args || st->lost_thread_times || st->lost_names) {
        fprintf(stderr, "stint convert: left out (no %s equivalent):", to);
        if (st->lost_args)
            fprintf(stderr, " the args of %" PRIu64 " span(s)", st->lost_args);
        if (st->lost_thread_times)
            fprintf(stderr, "%s %" PRIu64 " thread time(s)", st->lost_args ? "," : "", st->lost_thread_times);
        if (st->lost_names)
            fprintf(stderr, "%s %" PRIu64 " thread and process name(s)",
                    st->lost_args || st->lost_thread_times ? "," : "", st->lost_names);
        fputc('\n', stderr);
    }
    report_jsonl(st);
    if (st->skipped_counters)
        fprintf(stderr, "stint convert: left out: %" PRIu64 " counter series\n", st->skipped_counters);
    if (st->renamed)
        fprintf(stderr, "stint convert: %" PRIu64 " name(s) changed to fit the %s format\n", st->renamed, to);
    if (bad_utf8)
        fprintf(stderr, "stint convert: %" PRIu64 " byte(s) of invalid UTF-8 written as U+FFFD\n", bad_utf8);
}

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
    const struct stint_cmd_spec spec = {"convert", STINT_FILT_RANGE,
                                        "convert writes the whole trace, or with --to chrome the part a "
                                        "--time-range window overlaps (no other filter is taken)",
                                        "convert writes the format --to names", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    if (o.filter.has_range && to && strcmp(to, "chrome")) {
        fprintf(stderr, "stint convert: --time-range applies to --to chrome only (the window is cut from the "
                        "Chrome output, whose spans say where they were cut)\n");
        return 2;
    }
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
    struct stint_write_opts wo = {.rebase = rebase, .before_write = folded_size_warning};
    if (o.filter.has_range) {
        wo.window = 1;
        wo.t0 = o.filter.t0;
        wo.t1 = o.filter.t1;
    }
    uint64_t bad0 = stint_out_bad_utf8();
    int wr;
    if (otlp) {
        char err[512] = "";
        wr = stint_write_otlp(&m, out, err, sizeof err);
        if (wr != 0) {
            fprintf(stderr, "stint convert: %s\n", err[0] ? err : "otlp-json writer failed");
            wr = 3;
        }
        st.slices = stint_model_nslices(&m); /* every slice is a span (instants zero-length, flagged) */
        st.skipped_counters = m.counters.len; /* OTLP metrics are another signal */
    } else {
        wr = writer(&m, out, &wo, &st);
        if (wr != 0) {
            fprintf(stderr, "stint convert: out of memory while writing %s\n", out_path);
            wr = 3;
        }
    }
    if (stint_cmd_close_out("convert", out, out_path) != 0)
        wr = 3;
    if (!wr) /* after a write error OUT holds no whole conversion: nothing was written to report */
        report(to, out_path, &st, stint_out_bad_utf8() - bad0);
    if (!wr && m.flows.len) { /* flow arrows: Chrome holds them (but those it cannot bind exactly), no other format */
        if (writer != stint_write_chrome)
            fprintf(stderr, "stint convert: left out: %zu flow arrow(s) (%s has no flow records)\n", m.flows.len,
                    to);
        else if (st.skipped_flows)
            fprintf(stderr,
                    "stint convert: left out: %" PRIu64 " of %zu flow arrow(s) (an end on an async track, an arrow "
                    "back in time, or an end no Chrome flow event binds to alone)\n",
                    st.skipped_flows, m.flows.len);
    }
    if (!wr && stint_model_unmodelled(&m)) { /* JSONL records that no writer holds: the model has none of them */
        fprintf(stderr, "stint convert: left out: %" PRIu64 " session record(s) stint does not model (",
                stint_model_unmodelled(&m));
        stint_model_put_unmodelled(stderr, &m);
        fputs("; `stint memory` reads memory and tensor records)\n", stderr);
    }
    stint_model_free(&m);
    if (wr)
        return wr;
    return rc;
}
