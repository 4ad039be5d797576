/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - the self-contained HTML report (report_html.h).
 *
 * One file: CSS, the viewer script (report_template.h) and the data as JSON
 * in a <script type="application/json"> block, plus the tables rendered as
 * HTML here. Nothing is fetched: no network, no external assets. Strings are
 * escaped for their context (HTML text, or JSON inside a script element,
 * where '<' '>' '&' become \u003c...). The timeline holds at most
 * max_slices slices (the longest ones when there are more; the page says
 * how many were left out). Memory: besides the model, the steps and GPU
 * sections are made first (into memory: a few tables), then the call tree,
 * whose per-slice arrays and durations the page never reads are freed at
 * once, so their work arrays never add up. The same page comes from the
 * parts a lean model's stream made (stint_write_report_html_parts,
 * report_stream.c): the picked slices, the span and the flame graph's
 * nodes only.
 */
#include "write/report_html.h"
#include "write/report_gpu.h"
#include "write/report_steps.h"

#include "analyze/analysis.h"
#include "base/cmp.h"
#include "base/intervals.h"
#include "read/json.h"
#include "base/tsparse.h"
#include "write/report_template.h"
#include "write/report_trim.h"
#include "base/umap.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copies the valid UTF-8 sequence at s[i] (c >= 0x80) to f and returns its
 * length, or writes U+FFFD for a byte that starts none and returns 1: the
 * page says charset=utf-8, and it must be (raw bytes of a marker name were
 * copied as they were). */
static size_t put_utf8_or_fffd(FILE *f, const char *s, size_t i, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    int l = stint_json_utf8_seq(u + i, u + n);
    if (l <= 0) {
        fputs("\xEF\xBF\xBD", f);
        return 1;
    }
    fwrite(s + i, 1, (size_t)l, f);
    return (size_t)l;
}

static void html_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] >= 0x80) {
            i += put_utf8_or_fffd(f, s, i, n) - 1;
            continue;
        }
        switch (s[i]) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: putc(s[i], f); break;
        }
    }
}

static void html_str(FILE *f, const char *s) { html_text(f, s, strlen(s)); }

void stint_report_html_str(FILE *f, const char *s) { html_text(f, s, strlen(s)); }

/* A JSON string safe inside <script>: no '<', '>' or '&' appear raw. */
static void js_str(FILE *f, const char *s, size_t n)
{
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(f, "\\u%04x", c);
        else if (c >= 0x80)
            i += put_utf8_or_fffd(f, s, i, n) - 1;
        else
            putc(c, f);
    }
    putc('"', f);
}

/* Call tree nodes by total, widest first; at a tie the shallower (a parent
 * before its child), then the first made. ctx: the call tree. */
static int node_wider(const void *pa, const void *pb, void *ctx)
{
    const struct stint_calltree *tree = ctx;
    const struct stint_tnode *a = &tree->nodes[*(const uint32_t *)pa], *b = &tree->nodes[*(const uint32_t *)pb];
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return (*(const uint32_t *)pa > *(const uint32_t *)pb) - (*(const uint32_t *)pa < *(const uint32_t *)pb);
}

/* Slices by duration, longest (unfinished) first, then by index. ctx: the model. */
static int dur_desc(const void *pa, const void *pb, void *ctx)
{
    const struct stint_model *m = ctx;
    const struct stint_slice *a = stint_model_slice(m, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(m, *(const uint32_t *)pb);
    int64_t da = a->dur_ns < 0 ? INT64_MAX : a->dur_ns, db = b->dur_ns < 0 ? INT64_MAX : b->dur_ns;
    if (da != db)
        return da > db ? -1 : 1;
    return (*(const uint32_t *)pa > *(const uint32_t *)pb) - (*(const uint32_t *)pa < *(const uint32_t *)pb);
}
static int u32_asc(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* The model and tally the name rows come from (name_self_desc's context). */
struct name_rows {
    const struct stint_model *m;
    const struct stint_tally *T;
};

/* name rows (indexes into ctx's tally's) by self time, descending; ties by
 * name, category, clock. ctx: a struct name_rows. */
static int name_self_desc(const void *pa, const void *pb, void *ctx)
{
    const struct name_rows *nr = ctx;
    const struct stint_tally_name *a = &nr->T->names[*(const uint32_t *)pa];
    const struct stint_tally_name *b = &nr->T->names[*(const uint32_t *)pb];
    if (a->self_ns != b->self_ns)
        return a->self_ns > b->self_ns ? -1 : 1;
    int c = strcmp(stint_model_str(nr->m, a->name, NULL), stint_model_str(nr->m, b->name, NULL));
    if (c)
        return c;
    c = strcmp(stint_model_str(nr->m, a->cat, NULL), stint_model_str(nr->m, b->cat, NULL));
    if (c)
        return c;
    return (a->clock > b->clock) - (a->clock < b->clock);
}

/* One table cell: ns as us with three decimals. */
static void td_us(FILE *f, int64_t ns)
{
    char b[32];
    fprintf(f, "<td>%s</td>", stint_an_us(b, ns));
}

/* One report being written: the model, the tally and the page's figures
 * that its sections share. */
struct report {
    const struct stint_model *m;
    const struct stint_tally *T;
    FILE *f;
    const struct stint_report_opts *o;
    struct stint_calltree t;
    size_t n;                  /* slices */
    struct stint_report_slice *pick; /* the timeline's slices, in index order */
    size_t npick, left_out;
    uint8_t *fkeep;            /* per call tree node: in the flame graph */
    size_t flame_out;          /* call paths left out of it */
    size_t paths;              /* call paths (t's nodes but the host root, or the streamed count) */
    int trimmed;               /* t holds the flame graph's nodes only (streamed: report_tree.h) */
    int64_t root_total;
    int64_t h0, h1, span;      /* host origin and end; the timeline's span */
    int64_t *dev_origin;       /* per lane: a device lane's own origin */
    uint32_t *lane_of_track;   /* per track: its timeline lane, or STINT_NO_ID */
    uint32_t *track_depth;     /* per track: rows used */
    uint32_t *row_of;          /* per picked slice: its row */
    size_t crowded;
    uint32_t maxname;          /* the largest name id the page draws */
    uint32_t *name_ix;         /* per name id: its dense index in the page's names */
};

/* the flame graph's nodes: the STINT_REPORT_FLAME_NODES widest call paths (a parent
 * is never narrower than its child, and sorts first at a tie), so the page
 * stays bounded (every node was written: 300k unique names gave 27 MB for
 * 1000 drawn slices) while zooming into a frame still finds the paths under
 * it down to the narrowest kept; the rest are counted */
#define FLAME_MAX_NODES STINT_REPORT_FLAME_NODES

static void flame_keep(struct report *r)
{
    struct stint_calltree *t = &r->t;
    r->fkeep = stint_xcalloc(t->n + 1, 1);
    if (r->trimmed) { /* (root_total, paths and flame_out came with t) */
        memset(r->fkeep, 1, t->n);
        return;
    }
    r->paths = t->n - 1;
    for (uint32_t c = t->nodes[0].first_child; c != STINT_NO_ID; c = t->nodes[c].next_sibling)
        r->root_total = stint_sum_add(r->root_total, t->nodes[c].total_ns);
    r->fkeep[0] = 1;
    if (t->n - 1 <= FLAME_MAX_NODES) {
        memset(r->fkeep, 1, t->n);
        return;
    }
    uint32_t *by_width = stint_xmalloc((t->n - 1) * sizeof *by_width);
    for (size_t k = 1; k < t->n; k++)
        by_width[k - 1] = (uint32_t)k;
    stint_report_select(by_width, t->n - 1, FLAME_MAX_NODES, node_wider, t);
    for (size_t k = 0; k < FLAME_MAX_NODES; k++)
        r->fkeep[by_width[k]] = 1;
    r->flame_out = t->n - 1 - FLAME_MAX_NODES;
    free(by_width);
}

/* The timeline's slices: all, or the max_slices longest. */
static void pick_slices(struct report *r, size_t max_slices)
{
    uint32_t *ix = stint_xmalloc((r->n ? r->n : 1) * sizeof *ix);
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        ix[n++] = (uint32_t)i;
    if (n > max_slices) {
        stint_report_select(ix, n, max_slices, dur_desc, (void *)r->m);
        r->left_out = n - max_slices;
        n = max_slices;
        stint_xqsort(ix, n, sizeof *ix, u32_asc);
    }
    r->pick = stint_xmalloc((n ? n : 1) * sizeof *r->pick);
    for (size_t k = 0; k < n; k++) {
        const struct stint_slice *s = stint_model_slice(r->m, ix[k]);
        r->pick[k] = (struct stint_report_slice){s->ts_ns, s->dur_ns, s->track, s->name};
    }
    r->npick = n;
    free(ix);
}

/* host origin and span; device lanes keep their own origin */
static void time_span(struct report *r)
{
    const struct stint_model *m = r->m;
    int64_t h0 = INT64_MAX, h1 = INT64_MIN;
    r->dev_origin = stint_xmalloc((m->lanes.len + 1) * sizeof *r->dev_origin);
    for (size_t l = 0; l < m->lanes.len; l++)
        r->dev_origin[l] = INT64_MAX;
    for (size_t i = 0; i < r->n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *tr = stint_model_track_at(m, s->track);
        int64_t e = s->ts_ns + (s->dur_ns > 0 ? s->dur_ns : 0);
        if (stint_model_track_device(m, tr)) {
            if (s->ts_ns < r->dev_origin[tr->lane])
                r->dev_origin[tr->lane] = s->ts_ns;
            continue;
        }
        if (s->ts_ns < h0)
            h0 = s->ts_ns;
        if (e > h1)
            h1 = e;
    }
    if (h0 == INT64_MAX)
        h0 = h1 = 0;
    int64_t span = h1 - h0;
    for (size_t i = 0; i < r->n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *tr = stint_model_track_at(m, s->track);
        if (stint_model_track_device(m, tr)) {
            int64_t e = s->ts_ns - r->dev_origin[tr->lane] + (s->dur_ns > 0 ? s->dur_ns : 0);
            if (e > span)
                span = e;
        }
    }
    r->h0 = h0;
    r->h1 = h1;
    r->span = span;
}

/* timeline lanes: tracks that have slices, in track order. display rows:
 * greedy packing per track in ts order (a slice takes the first row free at
 * its start), so nested spans stack under their parents and overlapping
 * siblings get rows of their own */
static void pack_rows(struct report *r)
{
    const struct stint_model *m = r->m;
    r->lane_of_track = stint_xmalloc((m->tracks.len + 1) * sizeof *r->lane_of_track);
    r->track_depth = stint_xcalloc(m->tracks.len + 1, sizeof *r->track_depth);
    r->row_of = stint_xmalloc((r->npick ? r->npick : 1) * sizeof *r->row_of);
    for (size_t k = 0; k < m->tracks.len; k++)
        r->lane_of_track[k] = STINT_NO_ID;
    int64_t row_end[25];
    uint32_t cur_track = STINT_NO_ID;
    for (size_t k = 0; k < r->npick; k++) {
        const struct stint_report_slice *s = &r->pick[k];
        if (s->track != cur_track) {
            cur_track = s->track;
            for (int i = 0; i < 25; i++)
                row_end[i] = INT64_MIN;
        }
        int64_t end = s->dur_ns < 0 ? INT64_MAX : s->ts_ns + s->dur_ns;
        uint32_t row = 0;
        while (row < 24 && row_end[row] > s->ts_ns)
            row++;
        r->crowded += row == 24 && row_end[row] > s->ts_ns; /* (drawn over another on the last row) */
        if (row_end[row] < end)
            row_end[row] = end;
        r->row_of[k] = row;
        if (row + 1 > r->track_depth[s->track])
            r->track_depth[s->track] = row + 1;
        r->lane_of_track[s->track] = 0;
    }
    size_t nl = 0;
    for (size_t k = 0; k < m->tracks.len; k++)
        if (r->lane_of_track[k] != STINT_NO_ID)
            r->lane_of_track[k] = (uint32_t)nl++;
}

/* The page's head, its source line and the scope notes' fixed items. */
static void put_head(const struct report *r)
{
    const struct stint_model *m = r->m;
    const struct stint_report_opts *o = r->o;
    FILE *f = r->f;
    size_t n = r->n;
    int64_t h0 = r->h0, h1 = r->h1;
    const char *title = o->title ? o->title : o->input_path;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
          "style-src 'unsafe-inline'; img-src data:\">"
          "<title>stint report: ",
          f);
    html_str(f, title);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>stint report</h1>\n<p class=\"src\">", stint_report_css);
    html_str(f, o->input_path);
    fprintf(f, " &middot; %s &middot; %zu slices, %zu lanes%s</p>\n",
            m->format ? m->format : "unknown", n, m->lanes.len, m->partial ? " &middot; <b>PARTIAL input</b>" : "");
    {
        char b[32];
        fprintf(f, "<p class=\"src\">host-clock span of the trace: %s us</p>\n", stint_an_us(b, h1 - h0));
    }
    fputs("<div id=\"stint-error\"></div>\n<script>window.addEventListener('error',function(e){"
          "var d=document.getElementById('stint-error');d.textContent='script error: '+e.message;});</script>\n",
          f);
    /* scope notes */
    fputs("<h2>Scope notes</h2>\n<ul class=\"notes\">\n", f);
    fputs("<li>Times are wall-clock durations of recorded spans. Host-clock lanes share one time axis (0 = the "
          "earliest host timestamp); device-clock lanes are drawn from their own origin and are not aligned with "
          "host time.</li>\n",
          f);
    fputs("<li>The lane and name tables give the figures of <code>stint summary</code>. A lane's busy time is the "
          "union of all its finished spans (each covered nanosecond once: nested spans, and children that run past "
          "their parent's end, included); its sum adds every span's duration, so overlap counts repeatedly. A "
          "name's total is the union of its spans on each lane, added over lanes (recursion and overlap count "
          "once per lane; threads and processes add up, so a total can exceed the wall time); its sum adds every "
          "call's duration, and its mean is that sum / calls. A row's total contains its children's: never add "
          "rows.</li>\n",
          f);
    fputs("<li>Self time is a call's duration minus the union of its direct children (clipped to the call); it is "
          "never negative.</li>\n",
          f);
    fprintf(f, "<li>The step table uses unions of child intervals inside each step (at most %d child names as "
               "columns, the rest as one column, their union); the unattributed remainder is wall minus the union "
               "of all children (uninstrumented work or waiting, not a proven cause). Its min, median and max are "
               "per clock: host and device times are never pooled.</li>\n",
            (int)STINT_REPORT_STEP_COLUMNS);
}

/* The scope notes' items about what the page leaves out, then the input's
 * problems. */
static void put_notes(const struct report *r)
{
    const struct stint_model *m = r->m;
    FILE *f = r->f;
    size_t npick = r->npick, n = r->n, left_out = r->left_out, crowded = r->crowded, flame_out = r->flame_out;
    const struct stint_calltree *t = &r->t;
    if (left_out)
        fprintf(f, "<li><b>The timeline shows the %zu longest of %zu slices</b> (%zu shorter ones left out, and a "
                   "lane none of whose slices are among them is not drawn; the tables include every slice).</li>\n",
                npick, n, left_out);
    if (crowded)
        fprintf(f, "<li>%zu slices lie deeper than the 25 rows a lane draws: they share its last row, drawn over "
                   "each other (the tables include them).</li>\n",
                crowded);
    if (flame_out)
        fprintf(f, "<li>The flame graph holds the %d widest of %zu call paths: %zu narrower ones are left out (the "
                   "tables include them).</li>\n",
                (int)FLAME_MAX_NODES, r->paths, flame_out);
    if (m->counters.len)
        fprintf(f, "<li>%zu counter series are not drawn (<code>stint counters</code> summarizes them).</li>\n",
                (size_t)m->counters.len);
    if (t->unfinished)
        fprintf(f, "<li>%" PRIu64 " spans never ended: drawn to the end of the trace, left out of the tables.</li>\n",
                t->unfinished);
    uint64_t nrep = 0, ndrop = m->dropped;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        *(stint_repair_is_drop((enum stint_repair)k) ? &ndrop : &nrep) += m->repairs[k];
    if (nrep || ndrop) {
        fprintf(f, "<li>Input problems: %" PRIu64 " repairs, %" PRIu64 " dropped events (", nrep, ndrop);
        int first = 1;
        for (int k = 0; k < STINT_REPAIR_COUNT; k++)
            if (m->repairs[k]) {
                fprintf(f, "%s%" PRIu64 " %s", first ? "" : ", ", m->repairs[k],
                        stint_repair_name((enum stint_repair)k));
                first = 0;
            }
        fputs(").</li>\n", f);
    }
    if (m->lost) {
        fprintf(f, "<li><b>The writer lost %" PRIu64 " spans</b> before they reached the file (its thread buffers "
                   "were full): they are in no table or lane, and the threads they came from show less than they "
                   "did (", m->lost);
        const struct stint_loss *l = m->losses.data;
        for (size_t i = 0; i < m->losses.len; i++) {
            if (l[i].flags & STINT_LOSS_THREAD)
                fprintf(f, "%s%" PRIu64 " on pid %" PRId64 " tid %" PRId64, i ? "; " : "", l[i].count, l[i].pid,
                        l[i].tid);
            else
                fprintf(f, "%s%" PRIu64 " on threads not known", i ? "; " : "", l[i].count);
            if (l[i].flags & STINT_LOSS_RANGE)
                fprintf(f, ", started in [%" PRId64 ", %" PRId64 "] ns", l[i].first_ns, l[i].last_ns);
        }
        fputs(").</li>\n", f);
    }
    if (m->partial && m->error) {
        fputs("<li><b>The input ended in an error</b>: ", f);
        html_str(f, m->error);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* The annotations on device streams (Kineto's gpu_user_annotation: ranges
 * that label device work, not work), per lane in lane order, as `stint
 * summary` lists them: left out of the lane table's spans, busy and sum.
 * Nothing when there are none. */
static void put_stream_annotations(const struct report *r)
{
    const struct stint_model *m = r->m;
    const struct stint_tally *T = r->T;
    FILE *f = r->f;
    int first = 1;
    for (size_t l = 0; l < m->lanes.len && T->lanes; l++) {
        const struct stint_tally_lane *lr = &T->lanes[l];
        if (!lr->annot_spans)
            continue;
        if (first)
            fputs("<h2>Annotations on device streams</h2>\n<p class=\"hint\">gpu_user_annotation ranges label device "
                  "work, they are not work: left out of their lane's spans, busy and sum above, listed here on their "
                  "own</p>\n<table id=\"stream-annotations\"><tr><th class=\"n\">lane</th>"
                  "<th>annotations</th><th>busy (us, union of the lane's annotations)</th>"
                  "<th>sum (us, all annotations)</th></tr>\n",
                  f);
        first = 0;
        const struct stint_lane *ln = stint_model_lane_at(m, (uint32_t)l);
        char lb[64];
        snprintf(lb, sizeof lb, "pid %" PRId64 " tid %" PRId64 " ", ln->pid, ln->tid);
        fputs("<tr><td class=\"n\">", f);
        html_str(f, lb);
        if (ln->name)
            html_str(f, stint_model_str(m, ln->name, NULL));
        fprintf(f, "</td><td>%" PRIu64 "</td>", lr->annot_spans);
        td_us(f, stint_union_acc_total(&lr->annot));
        td_us(f, lr->annot_sum_ns);
        fputs("</tr>\n", f);
    }
    if (!first)
        fputs("</table>\n", f);
}

/* The lane and name tables (the figures `stint summary` gives), with the
 * annotations on device streams between them. */
static void put_tables(const struct report *r)
{
    const struct stint_model *m = r->m;
    const struct stint_tally *T = r->T;
    FILE *f = r->f;
    for (size_t l = 0; l < m->lanes.len; l++) {
        const struct stint_lane *ln = stint_model_lane_at(m, (uint32_t)l);
        const struct stint_tally_lane *lr = &T->lanes[l];
        char lb[64];
        fputs("<tr><td class=\"n\">", f);
        snprintf(lb, sizeof lb, "pid %" PRId64 " %s %" PRId64 " ", ln->pid,
                 ln->clock == STINT_CLOCK_DEVICE ? "inv" : "tid", ln->tid);
        html_str(f, lb);
        if (ln->name)
            html_str(f, stint_model_str(m, ln->name, NULL));
        fprintf(f, "</td><td>%s</td><td>%" PRIu64 "</td>", ln->clock == STINT_CLOCK_DEVICE ? "device" : "host",
                lr->spans);
        td_us(f, stint_union_acc_total(&lr->busy));
        td_us(f, lr->sum_ns);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
    put_stream_annotations(r);

    uint32_t *by_self = stint_xmalloc((T->nnames ? T->nnames : 1) * sizeof *by_self);
    for (size_t i = 0; i < T->nnames; i++)
        by_self[i] = (uint32_t)i;
    struct name_rows rows = {m, T};
    if (T->nnames > 1)
        stint_xqsort_r(by_self, T->nnames, sizeof *by_self, name_self_desc, &rows);
    fprintf(f, "<h2>Summary by name</h2>\n<p class=\"hint\">%zu names (by category, name and clock) on thread "
               "tracks, by self time%s; calls are the finished spans of the name; total is the union of its spans "
               "on each lane, added over lanes; sum and self add over all calls; mean = sum / calls</p>\n"
               "<table><tr><th class=\"n\">name</th><th class=\"n\">category</th><th>clock</th>"
               "<th>calls</th><th>total (us, union per lane, added over lanes)</th><th>sum (us, all calls)</th>"
               "<th>self (us, sum over all calls)</th><th>mean (us, sum / calls)</th><th>max (us, one call)</th>"
               "</tr>\n",
            T->nnames, T->nnames > 200 ? " (first 200)" : "");
    for (size_t i = 0; i < T->nnames && i < 200; i++) {
        const struct stint_tally_name *nr = &T->names[by_self[i]];
        fputs("<tr><td class=\"n\">", f);
        html_str(f, stint_model_str(m, nr->name, NULL));
        fputs("</td><td class=\"n\">", f);
        html_str(f, stint_model_str(m, nr->cat, NULL));
        fprintf(f, "</td><td>%s</td><td>%" PRIu64 "</td>", nr->clock == STINT_CLOCK_DEVICE ? "device" : "host",
                nr->spans);
        td_us(f, nr->total_ns);
        td_us(f, nr->sum_ns);
        td_us(f, nr->self_ns);
        td_us(f, nr->mean_ns);
        td_us(f, nr->max_ns);
        fputs("</tr>\n", f);
    }
    free(by_self);
    fputs("</table>\n", f);
}

/* names: the strings slice names use, renumbered densely in id order (the
 * string table also holds categories, args and internal flow keys, which
 * the page never shows); only the names the page draws: the picked slices'
 * and the flame's */
static void put_data_names(struct report *r)
{
    const struct stint_model *m = r->m;
    const struct stint_calltree *t = &r->t;
    FILE *f = r->f;
    uint32_t maxname = 0; /* (the largest the page draws: the array's size, not its order) */
    for (size_t k = 0; k < r->npick; k++)
        if (r->pick[k].name > maxname)
            maxname = r->pick[k].name;
    for (size_t k = 1; k < t->n; k++)
        if (t->nodes[k].name > maxname)
            maxname = t->nodes[k].name;
    uint32_t *name_ix = r->name_ix = stint_xmalloc(((size_t)maxname + 1) * sizeof *name_ix);
    r->maxname = maxname;
    for (uint32_t k = 0; k <= maxname; k++)
        name_ix[k] = STINT_NO_ID;
    name_ix[0] = 0;
    for (size_t k = 0; k < r->npick; k++)
        name_ix[r->pick[k].name] = 0;
    for (size_t k = 1; k < t->n; k++)
        if (r->fkeep[k])
            name_ix[t->nodes[k].name] = 0;
    uint32_t nnames = 0;
    for (uint32_t k = 0; k <= maxname; k++) {
        if (name_ix[k] == STINT_NO_ID)
            continue;
        name_ix[k] = nnames++;
        size_t l;
        const char *s = stint_model_str(m, k, &l);
        if (name_ix[k])
            putc(',', f);
        js_str(f, s, l);
    }
}

/* The timeline's lanes and slices in the data block. */
static void put_data_timeline(const struct report *r)
{
    const struct stint_model *m = r->m;
    FILE *f = r->f;
    const uint32_t *lane_of_track = r->lane_of_track, *track_depth = r->track_depth, *name_ix = r->name_ix;
    const struct stint_report_slice *pick = r->pick;
    const uint32_t *row_of = r->row_of;
    size_t npick = r->npick;
    int64_t h0 = r->h0;
    const int64_t *dev_origin = r->dev_origin;
    fputs("],\n\"lanes\":[", f);
    size_t li = 0;
    for (size_t k = 0; k < m->tracks.len; k++) {
        if (lane_of_track[k] == STINT_NO_ID)
            continue;
        const struct stint_track *tr = stint_model_track_at(m, (uint32_t)k);
        char lb[512];
        if (tr->kind == STINT_TRACK_THREAD) {
            const struct stint_lane *ln = stint_model_lane_at(m, tr->lane);
            snprintf(lb, sizeof lb, "pid %" PRId64 " %s %" PRId64 "%s%s%s", ln->pid,
                     ln->clock == STINT_CLOCK_DEVICE ? "inv" : "tid", ln->tid, ln->name ? " " : "",
                     ln->name ? stint_model_str(m, ln->name, NULL) : "",
                     ln->clock == STINT_CLOCK_DEVICE ? " (device clock, own origin)" : "");
        } else if (tr->kind == STINT_TRACK_ASYNC && tr->scope == STINT_ASYNC_GLOBAL)
            snprintf(lb, sizeof lb, "async %s (global id)", stint_model_str(m, tr->name, NULL));
        else if (tr->kind == STINT_TRACK_ASYNC)
            snprintf(lb, sizeof lb, "async %s (pid %" PRId64 ")", stint_model_str(m, tr->name, NULL), tr->pid);
        else if (tr->kind == STINT_TRACK_PROCESS)
            snprintf(lb, sizeof lb, "process %" PRId64 " instants", tr->pid);
        else
            snprintf(lb, sizeof lb, "global instants");
        fprintf(f, "%s{\"label\":", li++ ? "," : "");
        js_str(f, lb, strlen(lb));
        fprintf(f, ",\"depth\":%u}", track_depth[k] ? track_depth[k] - 1 : 0);
    }
    fputs("],\n\"slices\":[", f);
    for (size_t k = 0; k < npick; k++) {
        const struct stint_report_slice *s = &pick[k];
        const struct stint_track *tr = stint_model_track_at(m, s->track);
        int64_t org = h0;
        if (stint_model_track_device(m, tr))
            org = dev_origin[tr->lane];
        fprintf(f, "%s%u,%u,%" PRId64 ",%" PRId64 ",%u", k ? (k % 8 ? "," : ",\n") : "", lane_of_track[s->track],
                row_of[k], s->ts_ns - org, s->dur_ns, name_ix[s->name]);
    }
}

/* Reverses v[a, b). */
static void reverse_u32(uint32_t *v, size_t a, size_t b)
{
    for (; a + 1 < b; a++, b--) {
        uint32_t tmp = v[a];
        v[a] = v[b - 1];
        v[b - 1] = tmp;
    }
}

/* flame: host tree nodes, parent before child: [parent, name, total, self, depth, calls] */
static void put_data_flame(struct report *r)
{
    FILE *f = r->f;
    struct stint_calltree *tree = &r->t;
    const uint8_t *fkeep = r->fkeep;
    const uint32_t *name_ix = r->name_ix;
    uint32_t maxname = r->maxname;
    uint32_t *remap = stint_xmalloc((tree->n + 1) * sizeof *remap);
    uint32_t *stack = stint_xmalloc((tree->n + 1) * sizeof *stack);
    fputs("],\n\"flame\":[", f);
    fprintf(f, "[-1,0,%" PRId64 ",0,0,0]", r->root_total);
    remap[0] = 0;
    uint32_t next = 1;
    size_t sp = 0;
    stint_calltree_sort(tree, r->m, STINT_TREE_SORT_TOTAL);
    for (uint32_t c = tree->nodes[0].first_child; c != STINT_NO_ID; c = tree->nodes[c].next_sibling)
        stack[sp++] = c;
    reverse_u32(stack, 0, sp);
    while (sp) {
        uint32_t c = stack[--sp];
        const struct stint_tnode *nd = &tree->nodes[c];
        if (!fkeep[c])
            continue; /* (with its subtree: counted in the notes) */
        remap[c] = next++;
        fprintf(f, ",\n[%u,%u,%" PRId64 ",%" PRId64 ",%u,%" PRIu64 "]", remap[nd->parent],
                nd->name <= maxname ? name_ix[nd->name] : 0, nd->total_ns, nd->self_ns, nd->depth, nd->calls);
        /* push children last-first so they pop (and draw) in sorted order */
        size_t mark = sp;
        for (uint32_t k = nd->first_child; k != STINT_NO_ID; k = tree->nodes[k].next_sibling)
            stack[sp++] = k;
        reverse_u32(stack, mark, sp);
    }
    free(remap);
    free(stack);
}

/* The page from r (its tree, picks, span and origins made) and the late
 * sections (steps and GPU, written; late_rc their result). Frees r's arrays. */
static int write_page(struct report *r, const char *late, size_t nlate, int rc)
{
    FILE *f = r->f;
    stint_report_tree_drop_per_span(&r->t);
    flame_keep(r);
    pack_rows(r);
    put_head(r);
    put_notes(r);
    fputs("<h2>Timeline</h2>\n<p class=\"hint\">one row group per lane; wheel: zoom at the cursor, drag: pan, "
          "double-click: reset; shift+wheel or the scroll bar: more lanes</p>\n"
          "<div id=\"tlwrap\"><div id=\"tlspace\"><canvas id=\"timeline\"></canvas></div></div>\n",
          f);
    fputs("<h2>Flame graph</h2>\n<p class=\"hint\">the aggregated call tree of host-clock threads</p>\n"
          "<canvas id=\"flame\"></canvas>\n",
          f);

    /* summary tables: lanes, then names (the figures `stint summary` gives) */
    fputs("<h2>Lanes</h2>\n<p class=\"hint\">per lane, its finished spans (instants, async slices and unfinished "
          "spans left out); busy counts time covered by any of them once, sum adds every span's duration</p>\n"
          "<table><tr><th class=\"n\">lane</th><th>clock</th><th>spans (finished)</th>"
          "<th>busy (us, union of all spans)</th><th>sum (us, all spans)</th></tr>\n",
          f);
    put_tables(r);
    fwrite(late, 1, nlate, f);
    if (rc == 0) {
        /* data for the script */
        fprintf(f, "<div id=\"tip\"></div>\n<script type=\"application/json\" id=\"stint-data\">{\"span_ns\":%" PRId64
                   ",\"max_rows\":24,\"names\":[",
                r->span);
        put_data_names(r);
        put_data_timeline(r);
        put_data_flame(r);
        fputs("]}</script>\n<script>", f);
        for (size_t k = 0; stint_report_js[k]; k++)
            fputs(stint_report_js[k], f);
        fputs("</script>\n</body></html>\n", f);
    }
    free(r->name_ix);
    free(r->row_of);
    free(r->fkeep);
    free(r->pick);
    free(r->dev_origin);
    free(r->lane_of_track);
    free(r->track_depth);
    stint_calltree_free(&r->t);
    return rc;
}

int stint_write_report_html(const struct stint_model *m, const struct stint_tally *T, FILE *f,
                            const struct stint_report_opts *o)
{
    struct report r = {.m = m, .T = T, .f = f, .o = o, .n = stint_model_nslices(m)};
    /* the steps and GPU sections first, into memory (a few tables): their work arrays
     * (~40 bytes a slice) are gone before the call tree's are made */
    char *late = NULL;
    size_t nlate = 0;
    FILE *mf = open_memstream(&late, &nlate);
    if (!mf)
        return -1;
    int rc = stint_report_steps_section(mf, m, o->step, o->step_columns);
    stint_report_gpu_section(mf, m); /* (nothing without device work) */
    if (fclose(mf) != 0 || stint_calltree_build_sums(&r.t, m, NULL) != 0) {
        free(late);
        return -1;
    }
    stint_report_tree_drop_per_span(&r.t); /* (before the picks' index array is made) */
    pick_slices(&r, o->max_slices ? o->max_slices : 200000);
    time_span(&r);
    rc = write_page(&r, late, nlate, rc);
    free(late);
    return rc;
}

int stint_write_report_html_parts(const struct stint_model *m, const struct stint_tally *T, FILE *f,
                                  const struct stint_report_opts *o, struct stint_report_parts *p)
{
    struct report r = {.m = m, .T = T, .f = f, .o = o, .n = p->nslices, .t = p->tree.tree, .pick = p->pick,
                       .npick = p->npick, .left_out = p->left_out, .h0 = p->h0, .h1 = p->h1, .span = p->span,
                       .dev_origin = p->dev_origin, .trimmed = 1, .paths = p->tree.paths,
                       .flame_out = p->tree.left_out, .root_total = p->tree.root_total};
    memset(&p->tree, 0, sizeof p->tree); /* (now r's, as are the arrays) */
    p->pick = NULL;
    p->dev_origin = NULL;
    int rc = write_page(&r, p->late, p->nlate, p->late_rc);
    free(p->late);
    p->late = NULL;
    return rc;
}
