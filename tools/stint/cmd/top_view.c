/* SPDX-License-Identifier: MIT */
/*
 * top_view.c - `stint top`'s frame as text lines and its tick as JSON
 * (top_view.h).
 *
 * Invariants: the frame depends only on the tally and the show settings
 * (no clock, no terminal state), so --once output is reproducible; names are
 * escaped (write/textout.h) before they reach a terminal; rows are sorted by
 * the chosen column, descending, ties by key ascending, so the order is total.
 */
#include "cmd/top_view.h"

#include "base/cmp.h"
#include "base/term.h"
#include "base/xalloc.h"
#include "write/textout.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void stint_top_fmt_ns(char *buf, size_t cap, int64_t ns)
{
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    if (ns < 1000 && ns > -1000) {
        snprintf(buf, cap, "%" PRId64 "ns", ns);
        return;
    }
    double x = (double)ns;
    int u = 0;
    while (u < 3 && (x >= 1000 || x <= -1000)) {
        x /= 1000;
        u++;
    }
    double ax = x < 0 ? -x : x;
    snprintf(buf, cap, ax < 9.995 ? "%.2f%s" : ax < 99.95 ? "%.1f%s" : "%.0f%s", x, unit[u]);
}

/* Appends one formatted line. */
__attribute__((format(printf, 2, 3))) static void addf(struct stint_top_lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        stint_die_nomem();
    va_end(ap);
    l->line = stint_xgrow(l->line, &l->cap, l->n + 1, sizeof *l->line, 64);
    l->line[l->n++] = s;
}

void stint_top_lines_free(struct stint_top_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    memset(l, 0, sizeof *l);
}

/* ---- rows ------------------------------------------------------------------------ */

/* The value of column c of figure f, for sorting. */
static double col_value(const struct stint_top_fig *f, enum stint_top_col c)
{
    switch (c) {
    case STINT_TOP_COL_CALLS: return (double)f->calls;
    case STINT_TOP_COL_RATE: return f->rate;
    case STINT_TOP_COL_MEAN: return (double)f->mean;
    case STINT_TOP_COL_P50: return (double)f->p50;
    case STINT_TOP_COL_P90: return (double)f->p90;
    case STINT_TOP_COL_P99: return (double)f->p99;
    case STINT_TOP_COL_MAX: return (double)f->max;
    case STINT_TOP_COL_BUSY: return f->busy_pct;
    default: return 0;
    }
}

struct sort_ctx {
    enum stint_top_col col;
    int since;
};

static int row_cmp(const void *a, const void *b, void *vctx)
{
    const struct sort_ctx *c = vctx;
    const struct stint_top_row *x = a, *y = b;
    if (c->col != STINT_TOP_COL_KEY) {
        double vx = col_value(c->since ? &x->all : &x->win, c->col);
        double vy = col_value(c->since ? &y->all : &y->win, c->col);
        if (vx != vy)
            return vx < vy ? 1 : -1;
    }
    return strcmp(x->key, y->key);
}

/* The rows of the grouping, filtered and sorted; returns their count. */
static size_t sorted_rows(struct stint_top *t, enum stint_top_by by, const struct stint_top_show *s, int since,
                          enum stint_top_col col, struct stint_top_row **rows, size_t *cap)
{
    size_t n;
    stint_top_rows(t, by, rows, cap, &n);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        struct stint_top_row *r = &(*rows)[i];
        if (s->filter[0] && fnmatch(s->filter, r->key, 0) != 0)
            continue;
        if (!(since ? r->all.calls : r->win.calls) && !r->lost && !since)
            continue; /* nothing in the window: the window table shows what is live */
        (*rows)[w++] = *r;
    }
    struct sort_ctx c = {col, since};
    if (w > 1) /* (an empty array may have a NULL base) */
        stint_xqsort_r(*rows, w, sizeof **rows, row_cmp, &c);
    return w;
}

/* ---- the frame ------------------------------------------------------------------- */

static const char *const col_names[STINT_TOP_COL_COUNT] = {"key", "calls", "calls/s", "mean", "p50",
                                                             "p90", "p99", "max", "busy%"};

/* One table: a title, the heading, the rows. */
static void table(struct stint_top *t, const struct stint_top_tick *k, const struct stint_top_show *s, int since,
                  struct stint_top_lines *out, int head_slot)
{
    struct stint_top_row *rows = NULL;
    size_t cap = 0;
    int lane = s->by == STINT_TOP_BY_LANE;
    enum stint_top_col col = s->sort == STINT_TOP_COL_BUSY && !lane ? STINT_TOP_COL_CALLS : s->sort;
    size_t n = sorted_rows(t, s->by, s, since, col, &rows, &cap);
    char span[32];
    stint_top_fmt_ns(span, sizeof span, since ? k->tc.since_ns : k->tc.covered_ns);
    addf(out, "%s (%s), by %s, %zu group%s%s%s%s", since ? "since start" : "window", span, stint_top_by_name(s->by),
         n, n == 1 ? "" : "s", s->filter[0] ? ", filter '" : "", s->filter, s->filter[0] ? "'" : "");
    int keyw = (int)strlen(stint_top_by_heading(s->by));
    char esc[1024];
    for (size_t i = 0; i < n; i++) {
        int len = (int)stint_term_width(rows[i].key, strlen(rows[i].key));
        if (len > keyw)
            keyw = len;
    }
    int fixed = 9 + 10 + 6 * 9 + (lane ? 8 + 10 : 0);
    int maxw = s->width > 0 ? s->width - fixed - 1 : 60;
    if (maxw < 8)
        maxw = 8;
    if (maxw > 200)
        maxw = 200;
    if (keyw > maxw)
        keyw = maxw;
    char head[512];
    int hl = snprintf(head, sizeof head, "%-*s %8s %9s %8s %8s %8s %8s %8s", keyw, stint_top_by_heading(s->by),
                      col_names[1], col_names[2], col_names[3], col_names[4], col_names[5], col_names[6], col_names[7]);
    if (lane && hl > 0 && (size_t)hl < sizeof head)
        snprintf(head + hl, sizeof head - (size_t)hl, " %7s %9s", "busy%", "lost");
    out->heads[head_slot] = (int)out->n;
    addf(out, "%s", head);
    size_t shown = s->rows_max > 0 && (size_t)s->rows_max < n ? (size_t)s->rows_max : n;
    for (size_t i = 0; i < shown; i++) {
        const struct stint_top_fig *f = since ? &rows[i].all : &rows[i].win;
        char tm[5][24];
        stint_top_fmt_ns(tm[0], sizeof tm[0], f->mean);
        stint_top_fmt_ns(tm[1], sizeof tm[1], f->p50);
        stint_top_fmt_ns(tm[2], sizeof tm[2], f->p90);
        stint_top_fmt_ns(tm[3], sizeof tm[3], f->p99);
        stint_top_fmt_ns(tm[4], sizeof tm[4], f->max);
        /* escaped, cut in the middle past keyw columns (start and end kept, so two
         * keys sharing a long prefix stay apart), padded by display width */
        size_t w = 0, eb = stint_term_fit(esc, sizeof esc - 256, rows[i].key, strlen(rows[i].key), (size_t)keyw, &w);
        for (; w < (size_t)keyw; w++)
            esc[eb++] = ' ';
        esc[eb] = 0;
        if (!f->calls)
            tm[0][0] = tm[1][0] = tm[2][0] = tm[3][0] = tm[4][0] = '-', tm[0][1] = tm[1][1] = tm[2][1] =
                tm[3][1] = tm[4][1] = 0;
        if (lane)
            addf(out, "%s %8" PRIu64 " %9.1f %8s %8s %8s %8s %8s %6.1f%% %9" PRIu64, esc, f->calls, f->rate,
                 tm[0], tm[1], tm[2], tm[3], tm[4], f->busy_pct, rows[i].lost);
        else
            addf(out, "%s %8" PRIu64 " %9.1f %8s %8s %8s %8s %8s", esc, f->calls, f->rate, tm[0], tm[1],
                 tm[2], tm[3], tm[4]);
    }
    if (shown < n)
        addf(out, "(%zu more)", n - shown);
    free(rows);
}

/* The TPOT line. */
static void tpot_line(const struct stint_top_tick *k, struct stint_top_lines *out)
{
    const struct stint_top_tpot *tp = &k->tpot;
    if (!tp->have) {
        addf(out, "TPOT -  (no depth-0 span with a hid: marker logs have them)");
        return;
    }
    char m[24], p50[24], p99[24], am[24];
    stint_top_fmt_ns(m, sizeof m, tp->win.mean);
    stint_top_fmt_ns(p50, sizeof p50, tp->win.p50);
    stint_top_fmt_ns(p99, sizeof p99, tp->win.p99);
    stint_top_fmt_ns(am, sizeof am, tp->all.mean);
    char hid[64];
    snprintf(hid, sizeof hid, "decode hid 0x%016" PRIx64 " of %" PRIu64, tp->hid, tp->buckets);
    if (tp->win.calls)
        addf(out, "TPOT %s  p50 %s  p99 %s  %.1f tok/s  %s  since start %s x%" PRIu64, m, p50, p99, tp->win.rate,
             hid, am, tp->all.calls);
    else
        addf(out, "TPOT -  (none in window)  %s  since start %s x%" PRIu64, hid, am, tp->all.calls);
}

/* The lanes' busy shares, busiest first, on one line (when not grouped by lane). */
static void lanes_line(struct stint_top *t, const struct stint_top_show *s, struct stint_top_lines *out)
{
    struct stint_top_row *rows = NULL;
    size_t cap = 0, n;
    struct stint_top_show all = *s;
    all.filter[0] = 0;
    n = sorted_rows(t, STINT_TOP_BY_LANE, &all, s->since_start, STINT_TOP_COL_BUSY, &rows, &cap);
    char buf[512];
    size_t o = (size_t)snprintf(buf, sizeof buf, "lanes busy (pid/tid, %s):", s->since_start ? "since start" : "window");
    size_t i;
    for (i = 0; i < n && o < 400; i++) {
        const struct stint_top_fig *f = s->since_start ? &rows[i].all : &rows[i].win;
        char key[160];
        stint_term_fit(key, sizeof key, rows[i].key, strlen(rows[i].key), 40, NULL);
        o += (size_t)snprintf(buf + o, sizeof buf - o, " %s %.1f%%", key, f->busy_pct);
    }
    if (i < n)
        snprintf(buf + o, sizeof buf - o, " (%zu more)", n - i);
    addf(out, "%s", n ? buf : "lanes busy: -");
    free(rows);
}

void stint_top_render(struct stint_top *t, const struct stint_top_tick *k, const struct stint_top_show *s,
                      struct stint_top_lines *out)
{
    char win[24], since[24];
    stint_top_fmt_ns(win, sizeof win, k->window_ns);
    stint_top_fmt_ns(since, sizeof since, k->tc.since_ns);
    out->heads[0] = out->heads[1] = -1;
    char path[160];
    stint_out_text_esc(path, sizeof path, k->path, strlen(k->path));
    addf(out, "stint top  %s (%s)  window %s  since start %s  sort %s%s", path, stint_top_fmt_name(k->fmt), win, since,
         col_names[s->sort], s->paused ? "  PAUSED" : "");
    const struct stint_follow_stats *fs = k->fs;
    addf(out,
         "spans %" PRIu64 " (late %" PRIu64 ")  lost %" PRIu64 "  torn %" PRIu64 "  cut %" PRIu64 "  held %" PRIu64
         " B  bad %" PRIu64 "  unmatched %" PRIu64 "  truncated %" PRIu64 "  rotated %" PRIu64,
         k->tc.spans, k->tc.late, k->tc.lost, k->fc.torn, fs ? fs->cut_lines : 0, (fs ? fs->held_bytes : 0) + k->fc.held_bytes,
         k->fc.bad_lines, k->fc.unmatched, fs ? fs->truncations : 0, fs ? fs->rotations : 0);
    tpot_line(k, out);
    if (s->by != STINT_TOP_BY_LANE)
        lanes_line(t, s, out);
    addf(out, "%s", "");
    if (s->both) {
        table(t, k, s, 0, out, 0);
        addf(out, "%s", "");
        table(t, k, s, 1, out, 1);
    } else {
        table(t, k, s, s->since_start, out, 0);
    }
}

/* ---- JSON ------------------------------------------------------------------------- */

static void json_fig(FILE *f, const char *name, const struct stint_top_fig *g, int lane)
{
    fprintf(f,
            "\"%s\":{\"calls\":%" PRIu64 ",\"calls_per_s\":%.3f,\"mean_ns\":%" PRId64 ",\"p50_ns\":%" PRId64
            ",\"p90_ns\":%" PRId64 ",\"p99_ns\":%" PRId64 ",\"max_ns\":%" PRId64,
            name, g->calls, g->rate, g->mean, g->p50, g->p90, g->p99, g->max);
    if (lane)
        fprintf(f, ",\"busy_pct\":%.2f", g->busy_pct);
    fputc('}', f);
}

/* The groups of one grouping, as a JSON array (all of them, filtered, by calls since start). */
static void json_groups(FILE *f, struct stint_top *t, enum stint_top_by by, const struct stint_top_show *s)
{
    struct stint_top_row *rows = NULL;
    size_t cap = 0;
    size_t n = sorted_rows(t, by, s, 1, STINT_TOP_COL_CALLS, &rows, &cap);
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",{\"key\":" : "{\"key\":", f);
        stint_out_json_str(f, rows[i].key, strlen(rows[i].key));
        fputc(',', f);
        json_fig(f, "window", &rows[i].win, by == STINT_TOP_BY_LANE);
        fputc(',', f);
        json_fig(f, "since_start", &rows[i].all, by == STINT_TOP_BY_LANE);
        if (by == STINT_TOP_BY_LANE)
            fprintf(f, ",\"lost\":%" PRIu64, rows[i].lost);
        fputc('}', f);
    }
    fputc(']', f);
    free(rows);
}

void stint_top_json(FILE *f, struct stint_top *t, const struct stint_top_tick *k, const struct stint_top_show *s)
{
    const struct stint_follow_stats *fs = k->fs;
    fputs("{\"schema\":\"stint.top/1\",\"file\":", f);
    stint_out_json_str(f, k->path, strlen(k->path));
    fprintf(f,
            ",\"format\":\"%s\",\"tick\":%" PRIu64 ",\"clock\":\"writer\",\"now_ns\":%" PRId64 ",\"window_ns\":%" PRId64
            ",\"covered_ns\":%" PRId64 ",\"since_ns\":%" PRId64 ",\"by\":\"%s\"",
            stint_top_fmt_name(k->fmt), k->tick, k->tc.spans ? k->tc.now_ns : 0, k->window_ns, k->tc.covered_ns,
            k->tc.since_ns, stint_top_by_name(s->by));
    fprintf(f,
            ",\"counts\":{\"spans\":%" PRIu64 ",\"late\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"torn\":%" PRIu64
            ",\"cut_lines\":%" PRIu64 ",\"held_bytes\":%" PRIu64 ",\"bad_lines\":%" PRIu64 ",\"bad_losses\":%" PRIu64
            ",\"unmatched\":%" PRIu64 ",\"skipped\":%" PRIu64 ",\"device_spans\":%" PRIu64
            ",\"unknown_version\":%" PRIu64 ",\"other\":%" PRIu64 ",\"retired\":%" PRIu64 ",\"truncations\":%" PRIu64
            ",\"rotations\":%" PRIu64 ",\"bytes_read\":%" PRIu64 "}",
            k->tc.spans, k->tc.late, k->tc.lost, k->fc.torn, fs ? fs->cut_lines : 0, (fs ? fs->held_bytes : 0) + k->fc.held_bytes,
            k->fc.bad_lines, k->fc.bad_losses, k->fc.unmatched, k->fc.skipped, k->fc.device, k->fc.unknown_version,
            k->tc.other, k->tc.retired, fs ? fs->truncations : 0, fs ? fs->rotations : 0, fs ? fs->bytes : 0);
    fputs(",\"tpot\":", f);
    if (k->tpot.have) {
        fprintf(f, "{\"hid\":\"0x%016" PRIx64 "\",\"hids_at_depth0\":%" PRIu64 ",", k->tpot.hid, k->tpot.buckets);
        json_fig(f, "window", &k->tpot.win, 0);
        fputc(',', f);
        json_fig(f, "since_start", &k->tpot.all, 0);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs(",\"groups\":", f);
    json_groups(f, t, s->by, s);
    struct stint_top_show all = *s;
    all.filter[0] = 0;
    fputs(",\"lanes\":", f);
    json_groups(f, t, STINT_TOP_BY_LANE, &all);
    fputs("}\n", f);
}
