/* SPDX-License-Identifier: MIT */
/*
 * cmd_convert.c - `stint convert IN -o OUT --to FORMAT`: one trace model,
 * written in another format (writers.h). Formats: chrome, folded, jsonl,
 * markers, and otlp-json when this build links the OTLP writer
 * (write_otlp.c, a weak symbol here). Whatever a format cannot hold is
 * counted and reported on stderr, never dropped silently.
 */
#include "cmd/cmdopts.h"
#include "cmd/cmd_sql.h"
#include "cmd/commands.h"
#include "write/textout.h"
#include "base/cmp.h"
#include "base/tsparse.h"
#include "write/writers.h"
#include "write/outfile.h"
#include "read/args_spill.h"
#include "base/xalloc.h"
#include "base/term.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Provided by write_otlp.c when it is built; NULL otherwise. */
int stint_write_otlp(const struct stint_model *m, FILE *out, char *err, size_t errcap) __attribute__((weak));

static const char usage[] =
    "usage: stint convert IN -o OUT --to chrome|folded|jsonl|markers|otlp-json [--no-rebase]\n"
    "                     [--time-range A:B] [--split-every D] [filters] [--strict] [--format F]\n"
    "  chrome   Chrome Trace Event JSON, strictly nested per track (improperly overlapping\n"
    "           spans move to an extra track, counted), ts rebased, us with 3 decimals\n"
    "  folded   'a;b;c <self ns>' stacks for flamegraph tools and speedscope\n"
    "  jsonl    a stint/session/1 session;  markers  [STRACE] v=1 lines\n"
    "  --time-range A:B  (chrome) only what overlaps [A, B), cut to it: a trace a viewer can open\n"
    "  --split-every D   (chrome) one such window per D of the trace (or of A:B), each to a file of\n"
    "                    its own: OUT with -NNNNN before its extension (windows with nothing: none)\n"
    "  filters           (chrome) --pid --tid --cat --name --min-dur: only the slices they take\n"
    "  --force           (folded) write an output past 1 GiB (refused without it)\n"
    "  OUT '-' writes to stdout\n";

/* Folded: an output past FOLDED_LIMIT_BYTES (it grows with the square of
 * the nesting depth) is refused unless --force (ctx: the flag), which writes
 * it with a warning. */
#define FOLDED_LIMIT_BYTES (1ull << 30)
static int folded_size_check(const struct stint_write_stats *st, void *ctx)
{
    if (st->est_bytes <= FOLDED_LIMIT_BYTES)
        return 0;
    int force = *(const int *)ctx;
    fprintf(stderr,
            "stint convert: %s: the folded output %s %" PRIu64 " bytes (%.1f GiB), past the limit of 1 GiB: "
            "each line repeats its whole call path, so it grows with the square of the nesting depth%s\n",
            force ? "warning" : "refused", force ? "will be" : "would be", st->est_bytes,
            (double)st->est_bytes / (double)(1ull << 30),
            force ? "" : " (--force writes it; `stint tree` or --to chrome stay small)");
    return !force;
}

/* One line of the report: "N what", when N is not 0. */
static void note_count(uint64_t n, const char *what)
{
    if (n)
        fprintf(stderr, "stint convert: %" PRIu64 " %s\n", n, what);
}

/* What the JSONL session cannot tell apart: processes, clocks, categories. */
static void report_jsonl(const struct stint_write_stats *st)
{
    if (st->merged_spans || st->merged_counters)
        fprintf(stderr,
                "stint convert: %" PRIu64 " span(s) of %" PRIu64 " other process(es) and %" PRIu64
                " counter series of other processes written under pid %" PRId64 " (a jsonl session has one pid)\n",
                st->merged_spans, st->merged_procs, st->merged_counters, st->pid);
    note_count(st->device_spans, "device-clock span(s) written as host spans (jsonl has no clock domain; their "
                                 "times are not host-aligned)");
    if (st->renumbered)
        fprintf(stderr,
                "stint convert: %" PRIu64 " thread(s) of other processes or device lanes written with a fresh tid "
                "(from %" PRId64 " on), not to merge with another thread\n",
                st->renumbered, st->renumber_from);
    note_count(st->kind_changed,
               "span(s) written with span_kind function (their category is not function, op or module)");
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
    if (st->filtered_out || st->filtered_flows)
        fprintf(stderr,
                "stint convert: the filters left out %" PRIu64 " slice(s) and counter sample(s), and %" PRIu64
                " flow arrow(s) with an end among them\n",
                st->filtered_out, st->filtered_flows);
    if (st->window_out || st->clipped || st->window_flows || st->carried_samples)
        fprintf(stderr,
                "stint convert: --time-range: %" PRIu64 " slice(s), counter sample(s) and flow arrow(s) outside it left "
                "out, %" PRIu64
                " span(s) cut at its edges (args \"stint_clipped\"), %" PRIu64
                " flow arrow(s) across its edge left out (an end outside it or on a span cut at its start), %" PRIu64
                " counter value(s) carried to its start\n",
                st->window_out, st->clipped, st->window_flows, st->carried_samples);
    note_count(st->moved_overlap,
               "span(s) overlapped their parent improperly and moved to an extra track named '<thread> (overlap N)'");
    if (st->concurrent_device)
        fprintf(stderr,
                "stint convert: note: %" PRIu64 " device phase(s) run at the same time as a sibling: laid on "
                "sub-lanes of their invocation's device lane, named '<lane> (N)'\n",
                st->concurrent_device);
    note_count(st->reparented, "span(s) nest under another parent in the output (theirs is on another thread or "
                               "moved to an extra track: Chrome nests by time on one track)");
    if (st->skipped)
        fprintf(stderr,
                "stint convert: left out (no %s equivalent): %" PRIu64 " instants, %" PRIu64
                " async slices, %" PRIu64 " unfinished spans\n",
                to, st->skipped_instants, st->skipped_async, st->skipped_unfinished);
    note_count(st->zero_spans, "zero-length span(s) have no weight in folded stacks (no line of their own)");
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
    note_count(bad_utf8, "byte(s) of invalid UTF-8 written as U+FFFD");
}

/* --split-every: at most this many windows (each is a pass over the slices) */
#define SPLIT_MAX_WINDOWS 10000

/* OUT with "-NNNNN" (k, zero-padded to 5 digits) before its extension
 * (after its last '.' past the last '/'), or at its end (malloc'd). */
static char *part_path(const char *out, size_t k)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    size_t at = dot && dot > (slash ? slash : out) ? (size_t)(dot - out) : strlen(out);
    size_t n = strlen(out) + 32;
    char *p = stint_xmalloc(n);
    snprintf(p, n, "%.*s-%05zu%s", (int)at, out, k, out + at);
    return p;
}

/* A run of windows [first, last] (indexes from the extent's start) that
 * something overlaps. */
struct wrun {
    uint64_t first, last;
};

static int wrun_cmp(const void *pa, const void *pb)
{
    const struct wrun *a = pa, *b = pb;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The windows of `every` ns from lo that [ts, ts + dur) overlaps
 * (stint_filter_overlaps: dur < 0 lasts to the end), cut to [lo, hi); 0
 * when none. */
static int wrun_of(int64_t ts, int64_t dur, int64_t lo, int64_t hi, int64_t every, struct wrun *r)
{
    if (!stint_filter_overlaps(lo, hi, ts, dur))
        return 0;
    int64_t end = dur < 0 ? INT64_MAX : ts + dur;
    int64_t a = ts > lo ? ts : lo, b = end > ts ? end - 1 : end;
    b = b >= hi ? hi - 1 : b;
    r->first = ((uint64_t)a - (uint64_t)lo) / (uint64_t)every;
    r->last = ((uint64_t)b - (uint64_t)lo) / (uint64_t)every;
    return 1;
}

/* The writer's hooks for the args that spill holds (none when NULL). */
static void spill_hook(struct stint_write_opts *wo, struct stint_args_spill *spill)
{
    if (!spill)
        return;
    wo->ext_args = stint_args_spill_get;
    wo->ext_text = stint_args_spill_text;
    wo->ext_ctx = spill;
}

/* Writes one Chrome file per window of `every` ns, from the trace's first
 * timestamp (or f->t0) to its last end (or f->t1), that a slice or a
 * counter sample overlaps; windows with nothing in them get no file (so a
 * trace whose processes lie hours apart makes no empty files between them).
 * Returns STINT_EXIT_OK, _USAGE (too many windows, or a part's path is the
 * input) or _IO. */
static int split_write(const struct stint_model *m, const char *out_path, const char *input, int64_t every,
                       int rebase, const struct stint_filter *f, const struct stint_filter *sel,
                       struct stint_args_spill *spill)
{
    size_t n = stint_model_nslices(m), nr = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) { /* (an unfinished span lasts to the trace's end: its start counts) */
        const struct stint_slice *s = stint_model_slice(m, i);
        int64_t e = s->dur_ns < 0 ? s->ts_ns : s->ts_ns + s->dur_ns;
        lo = s->ts_ns < lo ? s->ts_ns : lo;
        hi = e > hi ? e : hi;
    }
    for (size_t k = 0; k < m->samples.len; k++) {
        int64_t t = STINT_BA_AT(&m->samples, struct stint_counter_sample, k).ts_ns;
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    if (hi < INT64_MAX)
        hi++; /* (past the last end, start or instant) */
    if (f->has_range) {
        lo = f->t0 > lo ? f->t0 : lo;
        hi = f->t1 < hi ? f->t1 : hi;
    }
    struct wrun *runs = stint_xreallocarray(NULL, n + m->samples.len + 1, sizeof *runs);
    for (size_t i = 0; lo < hi && i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        nr += (size_t)wrun_of(s->ts_ns, s->dur_ns, lo, hi, every, &runs[nr]);
    }
    for (size_t k = 0; lo < hi && k < m->samples.len; k++) {
        int64_t t = STINT_BA_AT(&m->samples, struct stint_counter_sample, k).ts_ns;
        nr += (size_t)wrun_of(t, 0, lo, hi, every, &runs[nr]);
    }
    stint_xqsort(runs, nr, sizeof *runs, wrun_cmp);
    size_t nm = 0; /* merged in place */
    uint64_t nwin = 0;
    for (size_t i = 0; i < nr; i++) {
        if (nm && runs[i].first <= runs[nm - 1].last + 1) {
            if (runs[i].last > runs[nm - 1].last)
                runs[nm - 1].last = runs[i].last;
        } else
            runs[nm++] = runs[i];
    }
    for (size_t i = 0; i < nm; i++)
        nwin += runs[i].last - runs[i].first + 1;
    if (nwin > SPLIT_MAX_WINDOWS) {
        fprintf(stderr,
                "stint convert: --split-every %" PRId64 " ns makes %" PRIu64 " windows with something in them (at "
                "most %d): take a longer one\n",
                every, nwin, SPLIT_MAX_WINDOWS);
        free(runs);
        return STINT_EXIT_USAGE;
    }
    uint64_t written = 0, clipped = 0, flows = 0;
    int rc = STINT_EXIT_OK;
    for (size_t i = 0; i < nm && !rc; i++)
        for (uint64_t k = runs[i].first; k <= runs[i].last && !rc; k++) {
            struct stint_write_opts wo = {.rebase = rebase, .window = 1, .select = sel};
            spill_hook(&wo, spill);
            wo.t0 = lo + (int64_t)(k * (uint64_t)every);
            wo.t1 = hi - wo.t0 > every ? wo.t0 + every : hi;
            char *path = part_path(out_path, (size_t)k);
            struct stint_outfile out; /* (each part written whole or not at all: outfile.h) */
            if (stint_outfile_refuse_input("convert", path, &input, 1)) {
                free(path);
                rc = STINT_EXIT_USAGE;
                break;
            }
            if (stint_outfile_open(&out, "convert", path) != 0) {
                free(path);
                rc = STINT_EXIT_IO;
                break;
            }
            struct stint_write_stats st;
            if (stint_write_chrome(m, out.f, &wo, &st) != 0) /* (the writer fails only out of memory) */
                stint_die_nomem();
            long bytes = ftell(out.f);
            if (spill && stint_args_spill_failed(spill)) {
                fprintf(stderr, "stint convert: reading back the temporary file of the args: %s\n",
                        strerror(stint_args_spill_failed(spill)));
                stint_outfile_abort(&out);
                rc = STINT_EXIT_IO;
            } else
                rc = stint_outfile_commit(&out, "convert");
            if (!rc) {
                fprintf(stderr,
                        "stint convert: [%" PRId64 ", %" PRId64 ") ns: %" PRIu64 " slices, %" PRIu64
                        " counter samples, %" PRIu64 " spans cut at its edges, %ld bytes to %s\n",
                        wo.t0, wo.t1, st.slices, st.samples, st.clipped, bytes, path);
                written++;
                clipped += st.clipped;
                flows += st.flows;
            }
            free(path);
        }
    free(runs);
    if (!rc)
        fprintf(stderr,
                "stint convert: --split-every: %" PRIu64 " file(s), one per window of %" PRId64 " ns from %" PRId64
                " that something overlaps; %" PRIu64 " span(s) cut at the windows' edges (args \"stint_clipped\"); %"
                PRIu64 " of %zu flow arrow(s) in no file (ends in two windows, on a span cut at its start, or not "
                "bindable)\n",
                written, every, lo, clipped, (uint64_t)m->flows.len - flows, m->flows.len);
    return rc;
}

/* The lines after a written conversion (chrome: --to chrome): what the
 * output has no place for (the writer's loss report, flow arrows, records
 * stint does not model). */
static void report_tail(const char *to, int chrome, const struct stint_model *m, const struct stint_write_stats *st)
{
    if (m->lost > st->losses_written) /* (the LOST line on stderr said how many there were) */
        fprintf(stderr,
                "stint convert: left out: the writer's report of %" PRIu64 " lost span(s) (%s)\n",
                m->lost - st->losses_written,
                strcmp(to, "jsonl") == 0      ? "of other processes: a jsonl session has one pid"
                : strcmp(to, "markers") == 0 ? "of threads not known: a loss line names its thread"
                                              : "the output has no place for it");
    if (m->flows.len) { /* flow arrows: Chrome holds them (but those it cannot bind exactly), no other format */
        if (!chrome)
            fprintf(stderr, "stint convert: left out: %zu flow arrow(s) (%s has no flow records)\n", m->flows.len,
                    to);
        else if (st->skipped_flows)
            fprintf(stderr,
                    "stint convert: left out: %" PRIu64 " of %zu flow arrow(s) (an end on an async track, an arrow "
                    "back in time, or an end no Chrome flow event binds to alone)\n",
                    st->skipped_flows, m->flows.len);
    }
    if (stint_model_unmodelled(m)) { /* JSONL records that no writer holds: the model has none of them */
        fprintf(stderr, "stint convert: left out: %" PRIu64 " session record(s) stint does not model (",
                stint_model_unmodelled(m));
        stint_model_put_unmodelled(stderr, m);
        fputs("; `stint memory` reads memory and tensor records)\n", stderr);
    }
}

/* Chrome to Chrome: a slice's args wait in a temporary file, read back as
 * each is written (read/args_spill.h), so the model keeps 8 bytes an event
 * for them, not their flattened copies; o takes the read's hook. Returns 0
 * (*spill made; none with STINT_CONVERT_ARGS_IN_MEMORY set, which keeps the
 * args in the model as before) or -1 when the file cannot be made (said). */
static int spill_open(struct stint_cmd_opts *o, struct stint_args_spill **spill)
{
    *spill = NULL;
    if (getenv("STINT_CONVERT_ARGS_IN_MEMORY"))
        return 0;
    *spill = stint_args_spill_new();
    if (!*spill) {
        const char *dir = getenv("TMPDIR");
        fprintf(stderr, "stint convert: cannot make a temporary file under %s for the args: %s\n",
                dir && *dir ? dir : "/tmp", strerror(errno));
        return -1;
    }
    o->args_fn = stint_args_spill_take;
    o->args_ctx = *spill;
    /* STINT_CONVERT_SPLIT=1: the read may go on several threads, a spill per part (same output; on a
     * loaded 2-vCPU host it took 20-50% more CPU, the parts' models made and merged, and no less wall
     * time: docs/performance.md) */
    const char *split = getenv("STINT_CONVERT_SPLIT");
    if (split && !strcmp(split, "1")) {
        o->args_part = stint_args_spill_part;
        o->args_part_ops = &stint_args_spill_part_ops;
    }
    return 0;
}

/* Says how many args the spill left out as it read them back (past a
 * slice's 65535th: what the model drops as it reads); 1 when there were
 * some and --strict makes drops an error. */
static int spill_dropped(const struct stint_args_spill *spill, int strict)
{
    uint64_t n = stint_args_spill_dropped(spill);
    if (n)
        fprintf(stderr, "stint convert: left out: %" PRIu64 " arg(s) past the 65535th of their slice\n", n);
    return n && (strict & STINT_STRICT_DROPS);
}

int stint_cmd_convert(int argc, char **argv)
{
    const char *out_path = NULL, *to = NULL, *every_s = NULL;
    int rebase = 1, force = 0;
    const struct stint_cmd_extra ex[] = {{"--output", "-o", &out_path, NULL, 0},
                                         {"--force", NULL, NULL, &force, 1},
                                         {"--to", NULL, &to, NULL, 0},
                                         {"--no-rebase", NULL, NULL, &rebase, 0},
                                         {"--split-every", NULL, &every_s, NULL, 0}};
    if (stint_cmd_take_extras("convert", &argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    struct stint_cmd_opts o;
    const struct stint_cmd_spec spec = {"convert",
                                        STINT_FILT_PID | STINT_FILT_TID | STINT_FILT_CAT | STINT_FILT_NAME |
                                            STINT_FILT_RANGE | STINT_FILT_MIN_DUR,
                                        "", "convert writes the format --to names", NULL, NULL};
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    if ((stint_filter_active(&o.filter) || every_s) && to && strcmp(to, "chrome")) {
        fprintf(stderr, "stint convert: %s applies to --to chrome only (the other formats are written whole)\n",
                every_s ? "--split-every" : "a filter");
        return STINT_EXIT_USAGE;
    }
    int64_t every = 0;
    if (every_s && (stint_parse_duration(every_s, strlen(every_s), &every) != 0 || every <= 0)) {
        fprintf(stderr, "stint convert: --split-every: '%s': expected a duration above 0 (ns, or with a unit: "
                        "500ms, 2s)\n",
                every_s);
        return STINT_EXIT_USAGE;
    }
    if (every_s && out_path && !strcmp(out_path, "-")) {
        fprintf(stderr, "stint convert: --split-every writes one file per window: -o names them (not '-')\n");
        return STINT_EXIT_USAGE;
    }
    if (to && !strcmp(to, "clickhouse")) /* -o names the server: the tables of stint sql (cmd_sql.c) */
        return stint_sql_convert_clickhouse(&o, out_path);
    if (!to || !out_path) {
        fprintf(stderr, "stint convert: %s is required\n", !to ? "--to FORMAT" : "-o OUT");
        fputs(usage, stderr);
        return STINT_EXIT_USAGE;
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
            return STINT_EXIT_USAGE;
        }
        otlp = 1;
    } else {
        fprintf(stderr, "stint convert: --to '%s' (expected chrome, folded, jsonl, markers or otlp-json)\n", to);
        return STINT_EXIT_USAGE;
    }
    if (stint_outfile_refuse_input("convert", out_path, &o.path, 1)) /* (the output replaces a file whole) */
        return STINT_EXIT_USAGE;
    struct stint_args_spill *spill = NULL;
    if (writer == stint_write_chrome && spill_open(&o, &spill) != 0)
        return STINT_EXIT_IO;
    struct stint_model m;
    if (!stint_cmd_load_report(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES, &rc)) {
        stint_args_spill_free(spill);
        return rc;
    }
    if (spill && stint_args_spill_done(spill) != 0) {
        fprintf(stderr, "stint convert: the temporary file of the args: %s\n", strerror(errno));
        stint_args_spill_free(spill);
        stint_model_free(&m);
        return STINT_EXIT_IO;
    }
    struct stint_filter select = o.filter; /* (the window is the time range: the writer cuts to it) */
    select.has_range = 0;
    const struct stint_filter *sel = stint_filter_active(&select) ? &select : NULL;
    if (every) {
        int wr = split_write(&m, out_path, o.path, every, rebase, &o.filter, sel, spill);
        stint_args_spill_free(spill);
        stint_model_free(&m);
        return wr ? wr : rc;
    }
    struct stint_outfile of; /* (written whole or not at all: outfile.h) */
    if (stint_outfile_open(&of, "convert", out_path) != 0) {
        stint_args_spill_free(spill);
        stint_model_free(&m);
        return STINT_EXIT_IO;
    }
    FILE *out = of.f;
    struct stint_write_stats st;
    memset(&st, 0, sizeof st);
    struct stint_write_opts wo = {.rebase = rebase, .before_write = folded_size_check, .ctx = &force, .select = sel};
    spill_hook(&wo, spill);
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
            fputs("stint convert: ", stderr);
            stint_term_msg(stderr, err[0] ? err : "otlp-json writer failed");
            fputc('\n', stderr);
            wr = STINT_EXIT_IO;
        }
        st.slices = stint_model_nslices(&m); /* every slice is a span (instants zero-length, flagged) */
        st.skipped_counters = m.counters.len; /* OTLP metrics are another signal */
    } else {
        int w = writer(&m, out, &wo, &st);
        if (w < 0) /* (the writers fail only out of memory) */
            stint_die_nomem();
        if (w > 0) { /* refused before writing (folded_size_check said why): the old OUT stays */
            stint_outfile_abort(&of);
            stint_args_spill_free(spill);
            stint_model_free(&m);
            return STINT_EXIT_USAGE;
        }
        wr = STINT_EXIT_OK;
    }
    if (spill && stint_args_spill_failed(spill)) { /* (a slice's args could not be read back: not whole) */
        errno = stint_args_spill_failed(spill);
        fprintf(stderr, "stint convert: reading back the temporary file of the args: %s\n", strerror(errno));
        stint_outfile_abort(&of);
        wr = STINT_EXIT_IO;
    } else if (stint_outfile_commit(&of, "convert") != 0)
        wr = STINT_EXIT_IO;
    if (!wr) /* after a write error OUT holds no whole conversion: nothing was written to report */
        report(to, out_path, &st, stint_out_bad_utf8() - bad0);
    if (!wr)
        report_tail(to, writer == stint_write_chrome, &m, &st);
    if (!wr && spill && spill_dropped(spill, o.strict) && !rc)
        rc = STINT_EXIT_DATA;
    stint_args_spill_free(spill);
    stint_model_free(&m);
    if (wr)
        return wr;
    return rc;
}
