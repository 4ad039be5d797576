/* SPDX-License-Identifier: MIT */
/*
 * cmd_gpu.c - `stint gpu FILE...`: where the accelerator's time went, per
 * device, stream, class, kernel, launch, CPU op, step and rank
 * (docs/cli/gpu.md holds the definitions; analyze/gpu.h computes them).
 *
 * Output: text tables whose headers say each column's scope, or one JSON
 * object (stint.gpu/1). A trace without device work says so and exits 0
 * with empty tables. A Chrome file streams into the analysis (a lean
 * model, its spans and args.correlation collected as they are read:
 * analyze/gpu_collect.c); stdin and the other formats are read whole, of
 * the args only args.correlation kept (STINT_MODEL_ARGS_CORRELATION);
 * one file is one rank, named by its distributedInfo.rank when the trace
 * states one before its events, else by its position.
 */
#include "analyze/analysis.h"
#include "analyze/gpu.h"
#include "base/selftrace.h"
#include "base/xalloc.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "read/input.h"
#include "read/readers.h"
#include "write/textout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint gpu FILE... [--json] [--step GLOB] [--top N] [--time-range A:B] [--strict] [--format F]\n"
    "  per device: window, busy (union of its work over all streams), idle, the union of each class\n"
    "  (compute, communication, memory), compute/communication overlap, utilization; per stream;\n"
    "  the top kernels; launch links by correlation and launch delays; GPU time per CPU op; per\n"
    "  step (ProfilerStep#* on CPU threads); with several files (one per rank) the straggler.\n"
    "  --step GLOB  the step spans (default ProfilerStep#*)\n"
    "  --top N      rows of the kernel, launch-site and op tables (default 10, 0 = all)\n";

#define MAX_FILES 4096

/* The rank a Kineto trace states in distributedInfo before its events:
 * 1 and *rank, or 0 (stdin, not found, or not an integer). */
static int scan_rank(const char *path, int64_t *rank)
{
    if (!strcmp(path, "-"))
        return 0;
    struct stint_input in;
    if (stint_input_open(&in, path) != 0)
        return 0;
    int found = 0;
    const char *b = in.buf, *e = in.buf + in.len;
    const char *ev = memmem(b, in.len, "\"traceEvents\"", 13);
    const char *di = memmem(b, in.len, "\"distributedInfo\"", 17);
    if (di && (!ev || di < ev)) {
        const char *lim = ev ? ev : e;
        int depth = 0;
        for (const char *p = di + 17; p < lim; p++) {
            if (*p == '{')
                depth++;
            else if (*p == '}' && --depth <= 0)
                break;
            else if (depth == 1 && *p == '"' && lim - p > 7 && !memcmp(p, "\"rank\"", 6)) {
                const char *q = p + 6;
                while (q < lim && (*q == ' ' || *q == ':' || *q == '\t' || *q == '\n' || *q == '\r'))
                    q++;
                int neg = q < lim && *q == '-';
                q += neg;
                int64_t v = 0;
                int nd = 0;
                while (q < lim && *q >= '0' && *q <= '9' && nd < 18) {
                    v = v * 10 + (*q++ - '0');
                    nd++;
                }
                if (nd && (q >= lim || *q < '0' || *q > '9')) {
                    *rank = neg ? -v : v;
                    found = 1;
                }
                break;
            } else if (*p == '"') { /* skip a string */
                for (p++; p < lim && *p != '"'; p++)
                    if (*p == '\\')
                        p++;
            }
        }
    }
    stint_input_close(&in);
    return found;
}

/* ---- JSON ------------------------------------------------------------- */

static void put_stream_id(FILE *f, const struct stint_model *m, const struct stint_lane *l)
{
    if (l->tid_text) {
        stint_out_json_model_str(f, m, l->tid_text);
    } else
        fprintf(f, "%" PRId64, l->tid);
}

static void put_rank_field(FILE *f, const struct stint_gpu_result *r, const int64_t *ranks, uint32_t file)
{
    if (r->nfiles > 1)
        fprintf(f, "\"rank\":%" PRId64 ",", ranks[file]);
}

static void put_json_devices(FILE *f, const struct stint_gpu_result *r, struct stint_model **ms, const int64_t *ranks)
{
    fputs("\"devices\":[", f);
    for (size_t i = 0; i < r->ndevices; i++) {
        const struct stint_gpu_device *d = &r->devices[i];
        int64_t w = d->win1 - d->win0;
        fprintf(f, "%s\n{", i ? "," : "");
        put_rank_field(f, r, ranks, d->file);
        fprintf(f,
                "\"device\":%" PRId64 ",\"streams\":%u,\"window_ns\":%" PRId64 ",\"busy_ns\":%" PRId64
                ",\"idle_ns\":%" PRId64 ",\"compute_ns\":%" PRId64 ",\"communication_ns\":%" PRId64
                ",\"memory_ns\":%" PRId64 ",\"overlap_ns\":%" PRId64 ",\"utilization\":%.6f}",
                d->device, d->streams, w, d->busy_ns, w - d->busy_ns, d->cls_ns[STINT_GPU_COMPUTE],
                d->cls_ns[STINT_GPU_COMM], d->cls_ns[STINT_GPU_MEMORY], d->overlap_ns,
                w > 0 ? (double)d->busy_ns / (double)w : 0.0);
    }
    fputs("],\n\"streams\":[", f);
    for (size_t i = 0; i < r->nstreams; i++) {
        const struct stint_gpu_stream *s = &r->streams[i];
        const struct stint_model *m = ms[s->file];
        const struct stint_lane *l = stint_model_lane_at(m, s->lane);
        fprintf(f, "%s\n{", i ? "," : "");
        put_rank_field(f, r, ranks, s->file);
        fprintf(f, "\"device\":%" PRId64 ",\"stream\":", r->devices[s->device_row].device);
        put_stream_id(f, m, l);
        fputs(",\"name\":", f);
        stint_out_json_model_str(f, m, l->name);
        fprintf(f, ",\"kernels\":%" PRIu64 ",\"busy_ns\":%" PRId64 ",\"idle_ns\":%" PRId64 "}", s->kernels,
                s->busy_ns, s->idle_ns);
    }
    fputs("],\n", f);
}

static void put_json_tables(FILE *f, const struct stint_gpu_result *r)
{
    fputs("\"kernels\":[", f);
    for (size_t i = 0; i < r->nkernels; i++) {
        const struct stint_gpu_kernel *k = &r->kernels[i];
        fprintf(f, "%s\n{\"name\":", i ? "," : "");
        stint_out_json_str(f, k->name, k->name_len);
        fprintf(f,
                ",\"class\":\"%s\",\"count\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"min_ns\":%" PRId64
                ",\"p50_ns\":%" PRId64 ",\"p90_ns\":%" PRId64 ",\"max_ns\":%" PRId64 "}",
                stint_gpu_class_name(k->cls), k->count, k->sum_ns, k->min_ns, k->p50_ns, k->p90_ns, k->max_ns);
    }
    fprintf(f, "],\n\"launch\":{\"linked\":%" PRIu64 ",\"unlinked_kernels\":%" PRIu64 ",\"unlinked_launches\":%" PRIu64,
            r->linked, r->unlinked_kernels, r->unlinked_launches);
    if (r->linked)
        fprintf(f, ",\"p50_ns\":%" PRId64 ",\"p90_ns\":%" PRId64 ",\"p99_ns\":%" PRId64 ",\"max_ns\":%" PRId64,
                r->delay_p50_ns, r->delay_p90_ns, r->delay_p99_ns, r->delay_max_ns);
    else
        fputs(",\"p50_ns\":null,\"p90_ns\":null,\"p99_ns\":null,\"max_ns\":null", f);
    fputs(",\"sites\":[", f);
    for (size_t i = 0; i < r->nsites; i++) {
        const struct stint_gpu_site *s = &r->sites[i];
        fprintf(f, "%s\n{\"name\":", i ? "," : "");
        stint_out_json_str(f, s->name, s->name_len);
        fprintf(f, ",\"count\":%" PRIu64 ",\"delay_sum_ns\":%" PRId64 ",\"delay_max_ns\":%" PRId64 "}", s->count,
                s->delay_sum_ns, s->delay_max_ns);
    }
    fputs("]},\n\"ops\":[", f);
    for (size_t i = 0; i < r->nops; i++) {
        const struct stint_gpu_op *o = &r->ops[i];
        fprintf(f, "%s\n{\"name\":", i ? "," : "");
        stint_out_json_str(f, o->name, o->name_len);
        fprintf(f, ",\"launches\":%" PRIu64 ",\"kernels\":%" PRIu64 ",\"gpu_ns\":%" PRId64 ",\"cpu_ns\":%" PRId64 "}",
                o->launches, o->kernels, o->gpu_ns, o->cpu_ns);
    }
    fputs("],\n", f);
}

static void put_json_steps(FILE *f, const struct stint_gpu_result *r, const int64_t *ranks, char **paths)
{
    fputs("\"steps\":[", f);
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct stint_gpu_step *s = &r->steps[i];
        fprintf(f, "%s\n{", i ? "," : "");
        put_rank_field(f, r, ranks, s->file);
        fputs("\"name\":", f);
        stint_out_json_str(f, s->name, s->name_len);
        fprintf(f,
                ",\"ts_ns\":%" PRId64 ",\"wall_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 ",\"idle_ns\":%" PRId64
                ",\"compute_ns\":%" PRId64 ",\"communication_ns\":%" PRId64 ",\"memory_ns\":%" PRId64 "}",
                s->ts_ns, s->wall_ns, s->busy_ns, s->wall_ns - s->busy_ns, s->cls_ns[STINT_GPU_COMPUTE],
                s->cls_ns[STINT_GPU_COMM], s->cls_ns[STINT_GPU_MEMORY]);
    }
    fputs("]", f);
    if (r->nfiles > 1) {
        fputs(",\n\"ranks\":[", f);
        for (size_t i = 0; i < r->nranks; i++) {
            const struct stint_gpu_rank *k = &r->ranks[i];
            fprintf(f, "%s\n{\"rank\":%" PRId64 ",\"file\":", i ? "," : "", k->rank);
            stint_out_json_str(f, paths[k->file], strlen(paths[k->file]));
            fprintf(f,
                    ",\"steps\":%zu,\"step_median_ns\":%" PRId64 ",\"step_max_ns\":%" PRId64 ",\"busy_ns\":%" PRId64
                    ",\"idle_ns\":%" PRId64 ",\"communication_ns\":%" PRId64 "}",
                    k->steps, k->step_median_ns, k->step_max_ns, k->busy_ns, k->idle_ns, k->comm_ns);
        }
        fputs("],\n\"straggler\":", f);
        if (r->has_straggler) {
            const struct stint_gpu_rank *k = &r->ranks[r->straggler];
            fprintf(f, "{\"rank\":%" PRId64 ",\"step_median_ns\":%" PRId64 ",\"ratio\":%.6f}", k->rank,
                    k->step_median_ns, r->straggler_ratio);
        } else
            fputs("null", f);
        fputs(",\n\"steps_last\":[", f);
        for (size_t i = 0; i < r->nlasts; i++) {
            const struct stint_gpu_last *l = &r->lasts[i];
            fprintf(f, "%s\n{\"name\":", i ? "," : "");
            stint_out_json_str(f, l->name, l->name_len);
            fprintf(f, ",\"rank\":%" PRId64 ",\"end_ns\":%" PRId64 ",\"spread_ns\":%" PRId64 "}", l->rank, l->end_ns,
                    l->spread_ns);
        }
        fputs("]", f);
    }
}

static void put_json(FILE *f, const struct stint_gpu_result *r, struct stint_model **ms, const int64_t *ranks,
                     char **paths, int partial)
{
    fputs("{\"schema\":\"stint.gpu/1\",\"files\":[", f);
    for (size_t i = 0; i < r->nfiles; i++) {
        if (i)
            putc(',', f);
        stint_out_json_str(f, paths[i], strlen(paths[i]));
    }
    fprintf(f, "],\"partial\":%s,\"device_work\":%" PRIu64 ",\n", partial ? "true" : "false", r->work);
    put_json_devices(f, r, ms, ranks);
    put_json_tables(f, r);
    put_json_steps(f, r, ranks, paths);
    fputs("}\n", f);
}

/* ---- text ------------------------------------------------------------- */

static void put_name(FILE *f, const char *s, size_t n, size_t max)
{
    if (n > max) {
        stint_out_text_str(f, s, max - 3);
        fputs("...", f);
    } else
        stint_out_text_str(f, s, n);
}

static void put_text_devices(FILE *f, const struct stint_gpu_result *r, struct stint_model **ms, const int64_t *ranks)
{
    char b[10][32];
    fputs("\n# devices: window = first start to last end of its work (device clock, us); busy and each class = "
          "union over its streams; idle = window - busy; overlap = union(communication) & union(compute)\n",
          f);
    fprintf(f, "%6s %8s %7s %14s %14s %14s %14s %14s %14s %14s %8s\n", "rank", "device", "streams", "window_us",
            "busy_us", "idle_us", "compute_us", "comm_us", "memory_us", "overlap_us", "util");
    for (size_t i = 0; i < r->ndevices; i++) {
        const struct stint_gpu_device *d = &r->devices[i];
        int64_t w = d->win1 - d->win0;
        fprintf(f, "%6" PRId64 " %8" PRId64 " %7u %14s %14s %14s %14s %14s %14s %14s %8.4f\n", ranks[d->file],
                d->device, d->streams, stint_an_us(b[0], w), stint_an_us(b[1], d->busy_ns),
                stint_an_us(b[2], w - d->busy_ns), stint_an_us(b[3], d->cls_ns[0]), stint_an_us(b[4], d->cls_ns[1]),
                stint_an_us(b[5], d->cls_ns[2]), stint_an_us(b[6], d->overlap_ns),
                w > 0 ? (double)d->busy_ns / (double)w : 0.0);
    }
    fputs("\n# streams: busy = union of the stream's work (us); idle = device window - busy; kernels = count "
          "(copies and sets not counted)\n",
          f);
    fprintf(f, "%6s %8s %14s %9s %14s %14s  %s\n", "rank", "device", "stream", "kernels", "busy_us", "idle_us",
            "name");
    for (size_t i = 0; i < r->nstreams; i++) {
        const struct stint_gpu_stream *s = &r->streams[i];
        const struct stint_model *m = ms[s->file];
        const struct stint_lane *l = stint_model_lane_at(m, s->lane);
        char sid[64];
        if (l->tid_text) {
            size_t n;
            const char *t = stint_model_str(m, l->tid_text, &n);
            stint_out_text_esc(sid, sizeof sid, t, n);
        } else
            snprintf(sid, sizeof sid, "%" PRId64, l->tid);
        size_t nn;
        const char *nm = stint_model_str(m, l->name, &nn);
        fprintf(f, "%6" PRId64 " %8" PRId64 " %14s %9" PRIu64 " %14s %14s  ", ranks[s->file],
                r->devices[s->device_row].device, sid, s->kernels, stint_an_us(b[0], s->busy_ns),
                stint_an_us(b[1], s->idle_ns));
        stint_out_text_str(f, nm, nn);
        putc('\n', f);
    }
}

static void put_text_tables(FILE *f, const struct stint_gpu_result *r)
{
    char b[8][32];
    fprintf(f, "\n# kernels: top %zu of %zu (name, class) groups by sum of span durations (device clock, us; sum, "
               "not union); p50/p90 nearest rank\n",
            r->nkernels, r->kernel_groups);
    fprintf(f, "%9s %14s %12s %12s %12s %12s %-13s  %s\n", "count", "sum_us", "min_us", "p50_us", "p90_us", "max_us",
            "class", "name");
    for (size_t i = 0; i < r->nkernels; i++) {
        const struct stint_gpu_kernel *k = &r->kernels[i];
        fprintf(f, "%9" PRIu64 " %14s %12s %12s %12s %12s %-13s  ", k->count, stint_an_us(b[0], k->sum_ns),
                stint_an_us(b[1], k->min_ns), stint_an_us(b[2], k->p50_ns), stint_an_us(b[3], k->p90_ns),
                stint_an_us(b[4], k->max_ns), stint_gpu_class_name(k->cls));
        put_name(f, k->name, k->name_len, 120);
        putc('\n', f);
    }
    fprintf(f, "\n# launches (args.correlation): %" PRIu64 " device-work spans linked, %" PRIu64
               " unlinked (no runtime call with their correlation), %" PRIu64
               " launch calls without device work\n",
            r->linked, r->unlinked_kernels, r->unlinked_launches);
    if (r->linked)
        fprintf(f, "# launch delay = span start - runtime call start (us; nearest rank over %" PRIu64
                   " linked spans): p50 %s  p90 %s  p99 %s  max %s\n",
                r->linked, stint_an_us(b[0], r->delay_p50_ns), stint_an_us(b[1], r->delay_p90_ns),
                stint_an_us(b[2], r->delay_p99_ns), stint_an_us(b[3], r->delay_max_ns));
    fputs("# launch sites (innermost CPU op of the call) by total delay\n", f);
    fprintf(f, "%9s %16s %14s  %s\n", "spans", "delay_sum_us", "delay_max_us", "site");
    for (size_t i = 0; i < r->nsites; i++) {
        const struct stint_gpu_site *s = &r->sites[i];
        fprintf(f, "%9" PRIu64 " %16s %14s  ", s->count, stint_an_us(b[0], s->delay_sum_ns),
                stint_an_us(b[1], s->delay_max_ns));
        put_name(f, s->name, s->name_len, 120);
        putc('\n', f);
    }
    fputs("\n# CPU ops by GPU time: gpu = sum of durations of the device work they launched (innermost op and "
          "top-level op; us); cpu = sum of the credited op spans' durations (host clock, us)\n",
          f);
    fprintf(f, "%9s %9s %14s %14s  %s\n", "launches", "spans", "gpu_us", "cpu_us", "op");
    for (size_t i = 0; i < r->nops; i++) {
        const struct stint_gpu_op *o = &r->ops[i];
        fprintf(f, "%9" PRIu64 " %9" PRIu64 " %14s %14s  ", o->launches, o->kernels, stint_an_us(b[0], o->gpu_ns),
                stint_an_us(b[1], o->cpu_ns));
        put_name(f, o->name, o->name_len, 120);
        putc('\n', f);
    }
}

static void put_text_steps(FILE *f, const struct stint_gpu_result *r, const int64_t *ranks, char **paths)
{
    char b[8][32];
    fputs("\n# steps: wall on the host clock (us); busy and classes = union of every device's work inside the "
          "step (us); idle = wall - busy\n",
          f);
    fprintf(f, "%6s %18s %12s %12s %12s %12s %12s %12s  %s\n", "rank", "ts_us", "wall_us", "busy_us", "idle_us",
            "compute_us", "comm_us", "memory_us", "step");
    for (size_t i = 0; i < r->nsteps; i++) {
        const struct stint_gpu_step *s = &r->steps[i];
        fprintf(f, "%6" PRId64 " %18s %12s %12s %12s %12s %12s %12s  ", ranks[s->file], stint_an_us(b[0], s->ts_ns),
                stint_an_us(b[1], s->wall_ns), stint_an_us(b[2], s->busy_ns), stint_an_us(b[3], s->wall_ns - s->busy_ns),
                stint_an_us(b[4], s->cls_ns[0]), stint_an_us(b[5], s->cls_ns[1]), stint_an_us(b[6], s->cls_ns[2]));
        put_name(f, s->name, s->name_len, 80);
        putc('\n', f);
    }
    if (r->nfiles < 2)
        return;
    fputs("\n# ranks: step median (nearest rank) and max (host clock, us); busy, idle, communication summed over the "
          "rank's devices (us)\n",
          f);
    fprintf(f, "%6s %6s %14s %14s %14s %14s %14s  %s\n", "rank", "steps", "median_us", "max_us", "busy_us",
            "idle_us", "comm_us", "file");
    for (size_t i = 0; i < r->nranks; i++) {
        const struct stint_gpu_rank *k = &r->ranks[i];
        fprintf(f, "%6" PRId64 " %6zu %14s %14s %14s %14s %14s  %s\n", k->rank, k->steps,
                stint_an_us(b[0], k->step_median_ns), stint_an_us(b[1], k->step_max_ns), stint_an_us(b[2], k->busy_ns),
                stint_an_us(b[3], k->idle_ns), stint_an_us(b[4], k->comm_ns), paths[k->file]);
    }
    if (r->has_straggler)
        fprintf(f, "# straggler: rank %" PRId64 " (step median %s us, %.3fx the median rank's)\n",
                r->ranks[r->straggler].rank, stint_an_us(b[0], r->ranks[r->straggler].step_median_ns),
                r->straggler_ratio);
    fputs("# last rank to finish each step (ends on each rank's own clock)\n", f);
    for (size_t i = 0; i < r->nlasts; i++) {
        const struct stint_gpu_last *l = &r->lasts[i];
        fputs("  ", f);
        put_name(f, l->name, l->name_len, 80);
        fprintf(f, ": rank %" PRId64 ", %s us after the first\n", l->rank, stint_an_us(b[0], l->spread_ns));
    }
}

static void put_text(FILE *f, const struct stint_gpu_result *r, struct stint_model **ms, const int64_t *ranks,
                     char **paths, int partial)
{
    fprintf(f, "# stint gpu: %zu file%s, %" PRIu64 " device-work spans (kernels, copies, sets)%s\n", r->nfiles,
            r->nfiles == 1 ? "" : "s", r->work, partial ? " - PARTIAL input" : "");
    if (!r->work)
        fputs("# no device work in the input (no kernel, memcpy or memset spans on device lanes): the tables are "
              "empty\n",
              f);
    put_text_devices(f, r, ms, ranks);
    put_text_tables(f, r);
    put_text_steps(f, r, ranks, paths);
}

/* ---- arguments -------------------------------------------------------- */

/* Whether option a (a shared one) takes the next argument as its value. */
static int takes_value(const char *a)
{
    static const char *const v[] = {"--format", "--pid", "--tid", "--cat", "--name", "--time-range", "--min-dur",
                                    "--exclude-cat", "--exclude-name"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!strcmp(a, v[i]))
            return 1;
    return 0;
}

/* Moves every input but the first out of argv into paths (after the first);
 * returns how many inputs there are. */
static size_t take_paths(int *argc, char **argv, char **paths)
{
    size_t np = 0;
    int w = 1, rest = 0;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        int is_input = rest || (a[0] != '-' || !a[1]);
        if (!rest && !strcmp(a, "--")) {
            rest = 1;
            continue;
        }
        if (!is_input) {
            argv[w++] = argv[i];
            if (takes_value(a) && i + 1 < *argc)
                argv[w++] = argv[++i];
            continue;
        }
        if (np < MAX_FILES)
            paths[np] = argv[i];
        np++;
    }
    if (np) { /* the first input for the shared parser, after "--" whatever it looks like */
        argv[w++] = (char *)"--";
        argv[w++] = paths[0];
    }
    *argc = w;
    return np;
}

/* Reads fo->path into m and its spans into *c (a collector): a Chrome
 * file as a lean model whose spans stream to the collector (args.correlation
 * through the reader's hook); stdin, the other formats, and a Chrome file
 * the stream cannot describe (stint_gpu_collect_ok) whole, with
 * args.correlation kept (the second read quiet: its problems were
 * reported). 1 when there is a report (*rc the read's exit code), else 0
 * (m freed, *rc set), as stint_cmd_load_report. */
static int load_one(struct stint_cmd_opts *fo, struct stint_model *m, struct stint_gpu_collect **c,
                    const struct stint_gpu_opts *go, int *rc)
{
    const unsigned whole = STINT_MODEL_KEEP_ARGS | STINT_MODEL_ARGS_CORRELATION | STINT_MODEL_FLOWS_COUNTED;
    const char *fmt = fo->format ? fo->format : strcmp(fo->path, "-") ? stint_detect_format(fo->path) : NULL;
    if (!fmt || strcmp(fmt, "chrome") != 0 || !strcmp(fo->path, "-")) {
        if (!stint_cmd_load_report(fo, m, whole, rc))
            return 0;
        *c = stint_gpu_collect_of_model(m, go);
        return 1;
    }
    *c = stint_gpu_collect_new(go);
    fo->corr_want = stint_gpu_collect_want;
    fo->corr_fn = stint_gpu_collect_corr;
    fo->corr_ctx = *c;
    fo->corr_part = stint_gpu_collect_part;
    fo->corr_part_ops = &stint_gpu_collect_part_ops;
    struct stint_span_split split = stint_gpu_collect_split();
    *rc = stint_cmd_load_sink(fo, m, STINT_MODEL_LEAN | STINT_MODEL_FLOWS_COUNTED, stint_gpu_collect_span, *c, &split);
    if (stint_no_report(*rc, m)) {
        stint_gpu_collect_free(*c);
        *c = NULL;
        stint_model_free(m);
        return 0;
    }
    if (!stint_gpu_collect_ok(*c)) {
        stint_gpu_collect_free(*c);
        stint_model_free(m);
        if (stint_model_init(m, whole) != 0)
            stint_die_nomem();
        struct stint_read_opts ro = {.format = fo->format, .strict = fo->strict, .allow = fo->allow, .quiet = 1};
        (void)stint_read_trace(fo->path, m, &ro);
        *c = stint_gpu_collect_of_model(m, go);
    }
    return 1;
}

static const struct stint_cmd_spec spec = {
    "gpu", STINT_FILT_RANGE | STINT_TAKES_JSON,
    "device figures need every span of a device (use --time-range to cut the window)",
    "the tables are text or --json", NULL, NULL};

int stint_cmd_gpu(int argc, char **argv)
{
    const char *step = NULL, *top = NULL;
    const struct stint_cmd_extra ex[] = {{"--step", NULL, &step, NULL, 0}, {"--top", NULL, &top, NULL, 0}};
    if (stint_cmd_take_extras("gpu", &argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    char **paths = stint_xcalloc(MAX_FILES, sizeof *paths);
    size_t np = take_paths(&argc, argv, paths);
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0 || np > MAX_FILES) {
        if (np > MAX_FILES)
            fprintf(stderr, "stint gpu: at most %d files\n", MAX_FILES);
        free(paths);
        return rc >= 0 ? rc : STINT_EXIT_USAGE;
    }
    uint32_t ntop = 10;
    if (top && stint_cmd_parse_u32(top, &ntop) != 0) {
        fprintf(stderr, "stint gpu: --top: '%s': expected a whole number of rows (0 = all)\n", top);
        free(paths);
        return STINT_EXIT_USAGE;
    }
    struct stint_model **ms = stint_xcalloc(np, sizeof *ms);
    struct stint_gpu_collect **cs = stint_xcalloc(np, sizeof *cs);
    int64_t *ranks = stint_xcalloc(np, sizeof *ranks);
    int partial = 0;
    rc = STINT_EXIT_OK;
    size_t loaded = 0;
    struct stint_filter range = o.filter; /* as the first file resolves it (a '+T' time) */
    struct stint_gpu_opts go = {step, ntop ? ntop : SIZE_MAX, 0, 0, 0, 0};
    for (size_t i = 0; i < np; i++) {
        struct stint_cmd_opts fo = o;
        fo.path = paths[i];
        ms[i] = stint_xmalloc(sizeof *ms[i]);
        int frc;
        if (!load_one(&fo, ms[i], &cs[i], &go, &frc)) {
            free(ms[i]);
            rc = frc;
            goto out;
        }
        loaded++;
        if (ms[i]->flow_events) /* (counted, not kept: said, as what a read repairs is) */
            fprintf(stderr, "stint gpu: %s: %llu flow event(s) read, not bound into arrows (gpu links kernels to their "
                    "launches by args.correlation)\n", paths[i], (unsigned long long)ms[i]->flow_events);
        if (i == 0)
            range = fo.filter;
        if (frc > rc)
            rc = frc;
        partial |= ms[i]->partial;
        if (!scan_rank(paths[i], &ranks[i]))
            ranks[i] = (int64_t)i;
    }
    if (range.has_range) {
        go.has_t0 = range.t0 != INT64_MIN;
        go.has_t1 = range.t1 != INT64_MAX;
        go.t0 = range.t0;
        go.t1 = range.t1;
    }
    struct stint_gpu_result r;
    stint_gpu_compute_collected(&r, cs, (const struct stint_model *const *)ms, np, ranks, &go);
    SELF_BEGIN_CPU(out, "gpu: output");
    if (o.json)
        put_json(stdout, &r, ms, ranks, paths, partial);
    else
        put_text(stdout, &r, ms, ranks, paths, partial);
    SELF_END_CPU(out);
    stint_gpu_result_free(&r);
    if (stint_cmd_close_out("gpu", stdout, "stdout") != 0)
        rc = STINT_EXIT_IO;
out:
    for (size_t i = 0; i < loaded; i++) {
        stint_gpu_collect_free(cs[i]);
        stint_model_free(ms[i]);
        free(ms[i]);
    }
    free(cs);
    free(ms);
    free(ranks);
    free(paths);
    return rc;
}
