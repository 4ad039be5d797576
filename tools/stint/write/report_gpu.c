/* SPDX-License-Identifier: MIT */
/*
 * report_gpu.c - the HTML report's GPU section, present when the trace has
 * device work (analyze/gpu.h; the figures of `stint gpu`): utilization per
 * device over time as an SVG plot, the class breakdown per device, the top
 * kernels, and per-step bars of device busy time within each step's wall.
 *
 * Everything is drawn as inline SVG and tables (no script, no external
 * asset), so the page's Content-Security-Policy is unchanged. Names are
 * HTML-escaped; every figure says its scope in its heading.
 */
#include "write/report_gpu.h"
#include "analyze/analysis.h"
#include "analyze/gpu.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define UTIL_BINS 200
#define PLOT_W 800
#define PLOT_H 60
#define TOP_KERNELS 10
#define MAX_STEP_BARS 200
/* the figures the section shows: every step of ProfilerStep#*, the top kernels */
#define STINT_REPORT_GPU_OPTS {NULL, TOP_KERNELS, 0, 0, 0, 0}

/* s[0..n) as HTML text: & < > " escaped; other bytes as they are. */
static void esc(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)s[i] >= 0x20 || s[i] == '\t')
                putc(s[i], f);
        }
    }
}

static void td(FILE *f, int64_t ns)
{
    char b[32];
    fprintf(f, "<td>%s</td>", stint_an_us(b, ns));
}

/* One device's utilization plot: the busy share of each of UTIL_BINS bins. */
static void util_plot(FILE *f, const struct stint_gpu_result *r, size_t d)
{
    double v[UTIL_BINS];
    stint_gpu_util_bins(r, d, UTIL_BINS, v);
    fprintf(f, "<svg class=\"gpuplot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
               "<rect width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/><polygon fill=\"#3b7dd8\" points=\"0,%d",
            PLOT_W, PLOT_H, PLOT_W, PLOT_H, PLOT_W, PLOT_H, PLOT_H);
    for (int b = 0; b < UTIL_BINS; b++) {
        double y = PLOT_H - v[b] * PLOT_H;
        fprintf(f, " %d,%.1f %d,%.1f", b * PLOT_W / UTIL_BINS, y, (b + 1) * PLOT_W / UTIL_BINS, y);
    }
    fprintf(f, " %d,%d\"/></svg>\n", PLOT_W, PLOT_H);
}

/* A horizontal bar of parts (ns) over total, colours in order. */
static void bar(FILE *f, const int64_t *part, const char *const *colour, int n, int64_t total, int width)
{
    fprintf(f, "<svg width=\"%d\" height=\"14\"><rect width=\"%d\" height=\"14\" fill=\"#e4e4e4\"/>", width, width);
    double x = 0;
    for (int i = 0; i < n && total > 0; i++) {
        double w = (double)part[i] / (double)total * width;
        if (x + w > width) /* classes can overlap: their sum may pass the total */
            w = width - x;
        fprintf(f, "<rect x=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", x, w, colour[i]);
        x += w;
    }
    fputs("</svg>", f);
}

static void devices_part(FILE *f, const struct stint_gpu_result *r)
{
    static const char *const col[] = {"#3b7dd8", "#d8793b", "#5aa55a"};
    fputs("<h3>Utilization per device</h3>\n<p class=\"hint\">device clock; the share of each of 200 equal bins "
          "of the device's window (first start to last end of its work) covered by the union of its work on all "
          "streams</p>\n",
          f);
    for (size_t d = 0; d < r->ndevices; d++) {
        const struct stint_gpu_device *dv = &r->devices[d];
        int64_t w = dv->win1 - dv->win0;
        fprintf(f, "<p>device %" PRId64 " &middot; %u streams &middot; utilization %.1f%%</p>\n", dv->device,
                dv->streams, w > 0 ? 100.0 * (double)dv->busy_ns / (double)w : 0.0);
        util_plot(f, r, d);
    }
    fputs("<h3>Class breakdown</h3>\n<p class=\"hint\">device clock, us; busy and each class are unions over the "
          "device's streams (classes can overlap, so they need not add up to busy); overlap = communication "
          "&cap; compute; the bar shows the unions of compute (blue), communication (orange) and memory "
          "(green) against the window</p>\n<table><tr><th>device</th><th>window</th><th>busy</th><th>idle</th>"
          "<th>compute</th><th>communication</th><th>memory</th><th>overlap</th><th class=\"n\">share of the "
          "window</th></tr>\n",
          f);
    for (size_t d = 0; d < r->ndevices; d++) {
        const struct stint_gpu_device *dv = &r->devices[d];
        int64_t w = dv->win1 - dv->win0;
        fprintf(f, "<tr><td>%" PRId64 "</td>", dv->device);
        td(f, w);
        td(f, dv->busy_ns);
        td(f, w - dv->busy_ns);
        for (int c = 0; c < STINT_GPU_CLASSES; c++)
            td(f, dv->cls_ns[c]);
        td(f, dv->overlap_ns);
        fputs("<td class=\"n\">", f);
        bar(f, dv->cls_ns, col, STINT_GPU_CLASSES, w > 0 ? w : 1, 300);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void kernels_part(FILE *f, const struct stint_gpu_result *r)
{
    fprintf(f, "<h3>Top kernels</h3>\n<p class=\"hint\">the %zu (name, class) groups of device work with the most "
               "time (sum of span durations, device clock, us; p50 and p90 by nearest rank) of %zu</p>\n"
               "<table><tr><th class=\"n\">name</th><th class=\"n\">class</th><th>count</th><th>sum</th>"
               "<th>min</th><th>p50</th><th>p90</th><th>max</th></tr>\n",
            r->nkernels, r->kernel_groups);
    for (size_t i = 0; i < r->nkernels; i++) {
        const struct stint_gpu_kernel *k = &r->kernels[i];
        fputs("<tr><td class=\"n\">", f);
        esc(f, k->name, k->name_len > 160 ? 160 : k->name_len);
        fprintf(f, "%s</td><td class=\"n\">%s</td><td>%" PRIu64 "</td>", k->name_len > 160 ? "&hellip;" : "",
                stint_gpu_class_name(k->cls), k->count);
        td(f, k->sum_ns);
        td(f, k->min_ns);
        td(f, k->p50_ns);
        td(f, k->p90_ns);
        td(f, k->max_ns);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void steps_part(FILE *f, const struct stint_gpu_result *r)
{
    static const char *const col[] = {"#3b7dd8"};
    fputs("<h3>Device time per step</h3>\n", f);
    if (!r->nsteps) {
        fputs("<p class=\"hint\">no ProfilerStep#* spans on CPU threads</p>\n", f);
        return;
    }
    int64_t maxw = 1;
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->steps[i].wall_ns > maxw)
            maxw = r->steps[i].wall_ns;
    size_t shown = r->nsteps < MAX_STEP_BARS ? r->nsteps : MAX_STEP_BARS;
    fprintf(f, "<p class=\"hint\">per step (host clock wall, us): the union of every device's work inside the "
               "step (busy, the bar's blue part) and each class's union; bar lengths scale to the longest step%s"
               "</p>\n<table><tr><th class=\"n\">step</th><th>wall</th><th>busy</th><th>idle</th><th>compute</th>"
               "<th>communication</th><th>memory</th><th class=\"n\">busy within wall</th></tr>\n",
            shown < r->nsteps ? " (the first 200 steps)" : "");
    for (size_t i = 0; i < shown; i++) {
        const struct stint_gpu_step *s = &r->steps[i];
        fputs("<tr><td class=\"n\">", f);
        esc(f, s->name, s->name_len);
        fputs("</td>", f);
        td(f, s->wall_ns);
        td(f, s->busy_ns);
        td(f, s->wall_ns - s->busy_ns);
        for (int c = 0; c < STINT_GPU_CLASSES; c++)
            td(f, s->cls_ns[c]);
        fputs("<td class=\"n\">", f);
        int width = (int)(300.0 * (double)s->wall_ns / (double)maxw);
        bar(f, &s->busy_ns, col, 1, s->wall_ns > 0 ? s->wall_ns : 1, width > 1 ? width : 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

int stint_report_gpu_section(FILE *f, const struct stint_model *m)
{
    if (!stint_gpu_has_work(m))
        return 0;
    const struct stint_model *ms[1] = {m};
    struct stint_gpu_opts o = STINT_REPORT_GPU_OPTS;
    struct stint_gpu_result r;
    stint_gpu_compute(&r, ms, 1, NULL, &o);
    stint_report_gpu_result(f, &r);
    return 1;
}

int stint_report_gpu_collected(FILE *f, struct stint_gpu_collect *c, const struct stint_model *m)
{
    struct stint_gpu_collect *cs[1] = {c};
    const struct stint_model *ms[1] = {m};
    struct stint_gpu_opts o = STINT_REPORT_GPU_OPTS;
    struct stint_gpu_result r;
    stint_gpu_compute_collected(&r, cs, ms, 1, NULL, &o);
    if (!r.work) { /* (no device work: stint_gpu_has_work's answer, from what was collected) */
        stint_gpu_result_free(&r);
        return 0;
    }
    stint_report_gpu_result(f, &r);
    return 1;
}

void stint_report_gpu_result(FILE *f, struct stint_gpu_result *rp)
{
    struct stint_gpu_result r = *rp;
    fprintf(f, "<h2 id=\"gpu\">GPU</h2>\n<p class=\"hint\">%" PRIu64 " device-work spans (kernel, memcpy and "
               "memset spans on device lanes); the figures of <code>stint gpu</code> (docs/cli/gpu.md)</p>\n",
            r.work);
    devices_part(f, &r);
    kernels_part(f, &r);
    steps_part(f, &r);
    stint_gpu_result_free(&r);
}
