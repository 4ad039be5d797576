/* SPDX-License-Identifier: MIT */
/*
 * cmd_summary.c - `stint summary FILE [--json]`: per-lane, per-category and
 * per-name time, with the union ("busy") next to the plain sum: the tallies
 * of summary_tally.h, printed as a table or as stint.summary/1 JSON.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "read/readers.h"
#include "base/cmp.h"
#include "base/selftrace.h"
#include "analyze/device_window.h"
#include "analyze/analysis.h"
#include "analyze/summary_tally.h"
#include "write/textout.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: stint summary FILE [--json] [--strict] [--format chrome|jsonl|markers] [filters]\n"
    "  per lane, per category and per name: spans, sum (double-counts overlap) and busy/total\n"
    "  (union of intervals), self time and duration quantiles; counters, instants, repairs\n"
    "  --wide  print names whole (else a long name is cut in the middle: start...end)\n"
    "  --top N  the first N name rows (default: all, 30 when stdout is a terminal; 0 = all)\n"
    "  --merge-numbered  names that differ only by a trailing number are one (ProfilerStep#N)\n"
    "  --sort sum|busy|self|count|p99  the order of the names (and categories), largest first\n"
    "          (default busy: a name's total, the union of its spans)\n";

/* The comparators take the model through qsort_r's context argument. */
static int str_cmp_ids(const struct stint_model *m, uint32_t a, uint32_t b)
{
    return strcmp(stint_model_str(m, a, NULL), stint_model_str(m, b, NULL));
}

/* By category text, then by name text. */
static int cat_name_cmp(const struct stint_model *m, uint32_t cat_a, uint32_t name_a, uint32_t cat_b,
                        uint32_t name_b)
{
    int c = str_cmp_ids(m, cat_a, cat_b);
    return c ? c : str_cmp_ids(m, name_a, name_b);
}

/* --sort: the column the categories and names are ordered by, largest
 * first (busy: a name's total, the union; self and p99 order the
 * categories by busy, which they have no column of). */
enum sort_key { SORT_BUSY, SORT_SUM, SORT_SELF, SORT_COUNT, SORT_P99 };
static const char *const sort_names[] = {"busy", "sum", "self", "count", "p99"};

/* qsort_r's context for the categories and names: the model and the key. */
struct sort_ctx {
    const struct stint_model *m;
    enum sort_key key;
};

/* Categories: by clock, then the --sort key (busy by default) largest first, then by text. */
static int cat_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_tally_cat *a = pa, *b = pb;
    const struct sort_ctx *sc = ctx;
    if (a->clock != b->clock)
        return a->clock - b->clock;
    int c = sc->key == SORT_SUM     ? stint_cmp_i64(b->sum_ns, a->sum_ns)
            : sc->key == SORT_COUNT ? stint_cmp_u64(b->spans, a->spans)
                                    : stint_cmp_i64(b->busy_ns, a->busy_ns);
    return c ? c : str_cmp_ids(sc->m, a->cat, b->cat);
}

/* Names: by clock, then the --sort key (total time by default) largest first, then by text. */
static int name_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_tally_name *a = pa, *b = pb;
    const struct sort_ctx *sc = ctx;
    if (a->clock != b->clock)
        return a->clock - b->clock;
    int c = sc->key == SORT_SUM     ? stint_cmp_i64(b->sum_ns, a->sum_ns)
            : sc->key == SORT_SELF  ? stint_cmp_i64(b->self_ns, a->self_ns)
            : sc->key == SORT_COUNT ? stint_cmp_u64(b->spans, a->spans)
            : sc->key == SORT_P99   ? stint_cmp_i64(b->p99, a->p99)
                                    : stint_cmp_i64(b->total_ns, a->total_ns);
    return c ? c : cat_name_cmp(sc->m, a->cat, a->name, b->cat, b->name);
}

/* --top and --sort from their text: *top (SIZE_MAX: all; when not given,
 * all unless stdout is a terminal, where DEFAULT_TOP) and *key. -1 to go
 * on, else the exit code (message printed). */
#define DEFAULT_TOP 30
static int view_opts(const char *top_s, const char *sort_s, size_t *top, enum sort_key *key)
{
    *top = isatty(STDOUT_FILENO) ? DEFAULT_TOP : SIZE_MAX;
    if (top_s && stint_cmd_parse_columns(top_s, top) != 0) {
        fprintf(stderr, "stint summary: --top: '%s': expected a whole number of name rows (0 = all)\n", top_s);
        return STINT_EXIT_USAGE;
    }
    *key = SORT_BUSY;
    for (size_t k = 0; sort_s && k < sizeof sort_names / sizeof *sort_names; k++)
        if (!strcmp(sort_s, sort_names[k])) {
            *key = (enum sort_key)k;
            return -1;
        }
    if (sort_s) {
        fprintf(stderr, "stint summary: --sort: '%s': expected sum, busy, self, count or p99\n", sort_s);
        return STINT_EXIT_USAGE;
    }
    return -1;
}

/* --merge-numbered: the span sink in front of the tally's, which gives each
 * span its name family's first name (analysis.h, stint_name_family), so
 * ProfilerStep#1 ... #1000 are tallied as one name: their union, self time
 * and quantiles over all their spans. */
struct merge_sink {
    struct stint_tally *S;
    struct stint_name_families *fam;
};

static void merge_on_slice(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct merge_sink *ms = ctx;
    struct stint_span_ev e = *ev;
    e.name = stint_name_family(ms->fam, m, ev->name);
    stint_tally_on_slice(ms->S, m, &e);
}

/* After the tally: each name row of a numbered family is named as the
 * family, its stem and "N" ("ProfilerStep#N"), a string added to m. */
static void name_families(struct stint_tally *S, struct stint_model *m)
{
    for (size_t k = 0; k < S->nnames; k++) {
        size_t len;
        const char *s = stint_model_str(m, S->names[k].name, &len);
        size_t stem = stint_name_number_stem(s, len);
        if (stem == len)
            continue;
        char *t = stint_xmalloc(stem + 1);
        memcpy(t, s, stem);
        t[stem] = 'N';
        S->names[k].name = stint_model_intern(m, t, stem + 1);
        free(t);
    }
}

/* A lane's pid or tid as the trace wrote it: the string of a synthetic id
 * (Kineto's "Spans", "stream 7"), escaped and right-aligned to 10 columns,
 * else the number. */
static void put_lane_id(FILE *f, const struct stint_model *m, uint32_t text, int64_t id)
{
    if (!text && id <= STINT_SYNTHETIC_ID0) { /* made from an empty string */
        fprintf(f, "%10s", "\"\"");
        return;
    }
    if (!text) {
        fprintf(f, "%10" PRId64, id);
        return;
    }
    size_t len;
    const char *s = stint_model_str(m, text, &len);
    for (size_t w = stint_out_text_len(s, len); w < 10; w++)
        putc(' ', f);
    stint_out_text_str(f, s, len);
}

/* A lane's pid and tid columns (put_lane_id), each followed by a blank. */
static void put_lane_ids(FILE *f, const struct stint_model *m, const struct stint_lane *l)
{
    put_lane_id(f, m, stint_model_process_at(m, l->process)->id_text, l->pid);
    putc(' ', f);
    put_lane_id(f, m, l->tid_text, l->tid);
    putc(' ', f);
}

/* ,"pid_text":...,"tid_text":... for a lane whose ids were made from strings. */
static void put_lane_texts_json(FILE *f, const struct stint_model *m, const struct stint_lane *l)
{
    uint32_t pt = stint_model_process_at(m, l->process)->id_text;
    if (pt || l->pid <= STINT_SYNTHETIC_ID0) { /* (id 0: made from an empty string) */
        fputs(",\"pid_text\":", f);
        stint_out_json_model_str(f, m, pt);
    }
    if (l->tid_text || l->tid <= STINT_SYNTHETIC_ID0) {
        fputs(",\"tid_text\":", f);
        stint_out_json_model_str(f, m, l->tid_text);
    }
}

/* Async spans: most summed time first, then by text. */
static int async_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_tally_async *a = pa, *b = pb;
    int c = stint_cmp_i64(b->sum_ns, a->sum_ns); /* the longer first */
    return c ? c : cat_name_cmp(ctx, a->cat, a->name, b->cat, b->name);
}

static int lane_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_model *m = ctx;
    const struct stint_lane *a = stint_model_lane_at(m, *(const uint32_t *)pa);
    const struct stint_lane *b = stint_model_lane_at(m, *(const uint32_t *)pb);
    if (a->clock != b->clock)
        return a->clock - b->clock;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Writes v in decimal at p (at least `digits` digits, zero-padded); returns
 * the end. */
static char *put_dec(char *p, uint64_t v, int digits)
{
    char t[20];
    int k = 0;
    do
        t[k++] = (char)('0' + v % 10);
    while ((v /= 10) || k < digits);
    while (k)
        *p++ = t[--k];
    return p;
}

/* ns as text in a unit chosen by size: below 10 us in ns, else us, ms or s
 * with 3 decimals, rounded half away from zero from the exact integer (no
 * double: large values keep every digit). buf holds at least 32 bytes. */
static void fmt_dur(char *buf, int64_t ns)
{
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    char *p = buf;
    if (ns < 0)
        *p++ = '-';
    const char *unit = " ns";
    if (a < 10000) {
        p = put_dec(p, a, 1);
    } else {
        uint64_t div = a < 10000000 ? 1 : a < 10000000000ULL ? 1000 : 1000000; /* ns per thousandth */
        unit = div == 1 ? " us" : div == 1000 ? " ms" : " s";
        uint64_t q = a / div + (div > 1 && a % div >= (div + 1) / 2); /* thousandths of the unit */
        p = put_dec(p, q / 1000, 1);
        *p++ = '.';
        p = put_dec(p, q % 1000, 3);
    }
    memcpy(p, unit, strlen(unit) + 1);
}

/* "lost":{...}: the writer's losses (struct stint_loss), per thread; null
 * where the thread or the range is not known. Not filtered: they are no
 * events. */
static void put_lost_json(FILE *f, const struct stint_model *m)
{
    fprintf(f, "\"lost\":{\"spans\":%" PRIu64 ",\"threads\":[", m->lost);
    const struct stint_loss *l = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++) {
        fputs(i ? ",{" : "{", f);
        if (l[i].flags & STINT_LOSS_THREAD)
            fprintf(f, "\"pid\":%" PRId64 ",\"tid\":%" PRId64, l[i].pid, l[i].tid);
        else
            fputs("\"pid\":null,\"tid\":null", f);
        fprintf(f, ",\"count\":%" PRIu64, l[i].count);
        if (l[i].flags & STINT_LOSS_RANGE)
            fprintf(f, ",\"first_ns\":%" PRId64 ",\"last_ns\":%" PRId64 "}", l[i].first_ns, l[i].last_ns);
        else
            fputs(",\"first_ns\":null,\"last_ns\":null}", f);
    }
    fputs("]}", f);
}

/* The text report's "lost by the writer" section, when anything was lost. */
static void put_lost_text(FILE *f, const struct stint_model *m)
{
    if (!m->lost)
        return;
    fprintf(f, "\nlost by the writer  (%" PRIu64 " spans that never reached the file: counts, sums and unions on "
               "these threads are low;\n        starts in the trace's own time base, ns)\n", m->lost);
    fprintf(f, "%10s %10s %10s  %s\n", "pid", "tid", "spans", "starts in");
    const struct stint_loss *l = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++) {
        if (l[i].flags & STINT_LOSS_THREAD)
            fprintf(f, "%10" PRId64 " %10" PRId64, l[i].pid, l[i].tid);
        else
            fprintf(f, "%10s %10s", "?", "?");
        fprintf(f, " %10" PRIu64 "  ", l[i].count);
        if (l[i].flags & STINT_LOSS_RANGE)
            fprintf(f, "[%" PRId64 ", %" PRId64 "]\n", l[i].first_ns, l[i].last_ns);
        else
            fputs("not known\n", f);
    }
}

/* A counter series the summary lists, with its samples' statistics. */
struct counter_stat {
    const struct stint_counter_series *series;
    uint64_t n;
    double mn, mx, mean;
};

/* From series *k on, the first one with samples the filters keep: its index
 * in *k and its statistics in *cs; 0 when none is left. */
static int next_counter(const struct stint_tally *S, const struct stint_model *m, size_t *k, struct counter_stat *cs)
{
    for (; *k < m->counters.len; ++*k)
        if (stint_tally_counter(S, m, *k, &cs->n, &cs->mn, &cs->mx, &cs->mean)) {
            cs->series = &STINT_BA_AT(&m->counters, struct stint_counter_series, *k);
            return 1;
        }
    return 0;
}

/* From instant kind *k on, the first one with instants the filters keep:
 * its index in *k and their count in *n; NULL when none is left. */
static const struct stint_instant_stat *next_instant(const struct stint_tally *S, const struct stint_model *m,
                                                     size_t *k, uint64_t *n)
{
    for (; *k < m->instants.len; ++*k)
        if ((*n = stint_tally_instants(S, m, *k)) != 0)
            return &STINT_BA_AT(&m->instants, struct stint_instant_stat, *k);
    return NULL;
}

/* Whether the filters left nothing to report: no span, counter sample or
 * instant passed them (the command then says why on stderr). */
static int nothing_selected(const struct stint_tally *S, const struct stint_model *m)
{
    struct counter_stat cs;
    uint64_t n;
    size_t k = 0, j = 0;
    return S->filtering && !S->spans && !S->nasync && !next_counter(S, m, &k, &cs) && !next_instant(S, m, &j, &n);
}

/* Lane i when it is listed, else NULL: every lane of the trace (one with
 * instants only, or none, shows 0 spans: the lanes `report` lists), or with
 * filters the lanes that hold spans they select. */
static const struct stint_lane *shown_lane(const struct stint_tally *S, const struct stint_model *m, uint32_t i)
{
    return S->lanes[i].spans || !S->filtering ? stint_model_lane_at(m, i) : NULL;
}

/* A "cat" value, then the "name" member. */
static void put_cat_name(FILE *f, const struct stint_model *m, uint32_t cat, uint32_t name)
{
    stint_out_json_model_str(f, m, cat);
    fputs(",\"name\":", f);
    stint_out_json_model_str(f, m, name);
}

/* The device window of each invocation of a marker log (device_window.h),
 * as JSON or text; nothing without device-clock lanes. */
static void put_device_windows(FILE *f, const struct stint_tally *S, const struct stint_model *m, int json)
{
    struct stint_devwins w;
    stint_devwins_build(&w, m, S->f);
    if (json)
        stint_devwins_put_json(f, &w, m);
    else
        stint_devwins_put_text(f, &w, m);
    stint_devwins_free(&w);
}

static void put_name_padded(FILE *f, const struct stint_model *m, uint32_t id, int width);

/* The annotations on device streams (Kineto's gpu_user_annotation), per
 * lane in lane order: left out of their lane's spans, sum and busy, which
 * count the device work alone (kernels, memcpy, memset); listed here, as
 * JSON (`,"stream_annotations":[...]`) or text. Nothing when there are none. */
static void put_stream_annotations(FILE *f, const struct stint_tally *S, const struct stint_model *m,
                                   const uint32_t *lane_order, size_t nl, int json)
{
    int first = 1;
    for (size_t k = 0; k < nl && S->lanes; k++) {
        const struct stint_tally_lane *lr = &S->lanes[lane_order[k]];
        if (!lr->annot_spans)
            continue;
        const struct stint_lane *l = stint_model_lane_at(m, lane_order[k]);
        if (json) {
            fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"name\":", first ? ",\n\"stream_annotations\":[" : ",",
                    l->pid, l->tid);
            stint_out_json_model_str(f, m, l->name);
            fprintf(f, ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 "}", lr->annot_spans,
                    lr->annot_sum_ns, stint_union_acc_total(&lr->annot));
        } else {
            if (first)
                fputs("\nannotations on device streams  (gpu_user_annotation: ranges that label device work, not "
                      "work;\n        left out of their lane's spans, sum and busy, which count kernels, memcpy and "
                      "memset alone)\n       pid        tid name                          spans            sum           "
                      "busy\n",
                      f);
            char a[32], b[32];
            fmt_dur(a, lr->annot_sum_ns);
            fmt_dur(b, stint_union_acc_total(&lr->annot));
            fprintf(f, "%10" PRId64 " %10" PRId64 " ", l->pid, l->tid);
            put_name_padded(f, m, l->name, 28);
            fprintf(f, " %10" PRIu64 " %14s %14s\n", lr->annot_spans, a, b);
        }
        first = 0;
    }
    if (json && !first)
        fputc(']', f);
}

static void print_json(FILE *f, const struct stint_tally *S, const struct stint_model *m, const uint32_t *lane_order,
                       size_t nl, const char *path)
{
    fputs("{\"schema\":\"stint.summary/1\",\"input\":", f);
    stint_out_json_str(f, path, strlen(path));
    fprintf(f, ",\"format\":\"%s\",\"events\":%" PRIu64 ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\n\"lanes\":[",
            m->format ? m->format : "unknown", m->events, S->spans, S->sum_ns);
    int first = 1;
    for (size_t k = 0; k < nl; k++) {
        const struct stint_tally_lane *lr = &S->lanes[lane_order[k]];
        const struct stint_lane *l = shown_lane(S, m, lane_order[k]);
        if (!l)
            continue;
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"tid\":%" PRId64, first ? "" : ",", l->pid, l->tid);
        put_lane_texts_json(f, m, l);
        fprintf(f, ",\"clock\":\"%s\",\"name\":", l->clock ? "device" : "host");
        first = 0;
        stint_out_json_model_str(f, m, l->name);
        fprintf(f, ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 "}", lr->spans, lr->sum_ns,
                stint_union_acc_total(&lr->busy));
    }
    fputs("],\n\"categories\":[", f);
    for (size_t c = 0; c < S->ncats; c++) {
        const struct stint_tally_cat *cr = &S->cats[c];
        fprintf(f, "%s\n{\"cat\":", c ? "," : "");
        stint_out_json_model_str(f, m, cr->cat);
        fprintf(f, ",\"clock\":\"%s\",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 "}",
                cr->clock ? "device" : "host", cr->spans, cr->sum_ns, cr->busy_ns);
    }
    fputs("],\n\"names\":[", f);
    for (size_t k = 0; k < S->nnames; k++) {
        const struct stint_tally_name *nr = &S->names[k];
        fprintf(f, "%s\n{\"cat\":", k ? "," : "");
        put_cat_name(f, m, nr->cat, nr->name);
        fprintf(f,
                ",\"clock\":\"%s\",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"total_ns\":%" PRId64
                ",\"self_ns\":%" PRId64 ",\"min_ns\":%" PRId64 ",\"p50_ns\":%" PRId64 ",\"p90_ns\":%" PRId64
                ",\"p99_ns\":%" PRId64 ",\"max_ns\":%" PRId64 ",\"mean_ns\":%" PRId64 "}",
                nr->clock ? "device" : "host", nr->spans, nr->sum_ns, nr->total_ns, nr->self_ns, nr->min_ns, nr->p50,
                nr->p90, nr->p99, nr->max_ns, nr->mean_ns);
    }
    fputs("],\n\"async\":[", f);
    for (size_t k = 0; k < S->nasync; k++) {
        const struct stint_tally_async *a = &S->asyncs[k];
        fprintf(f, "%s\n{\"cat\":", k ? "," : "");
        put_cat_name(f, m, a->cat, a->name);
        fprintf(f, ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"unfinished\":%" PRIu64 "}", a->spans, a->sum_ns,
                a->unfinished);
    }
    fputs("],\n\"counters\":[", f);
    first = 1;
    struct counter_stat cs;
    for (size_t k = 0; next_counter(S, m, &k, &cs); k++) {
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"name\":", first ? "" : ",", cs.series->pid);
        first = 0;
        stint_out_json_model_str(f, m, cs.series->name);
        fprintf(f, ",\"samples\":%" PRIu64 ",\"min\":%.17g,\"max\":%.17g,\"mean\":%.17g}", cs.n, cs.mn, cs.mx,
                cs.mean);
    }
    fputs("],\n\"instants\":[", f);
    first = 1;
    const struct stint_instant_stat *st;
    uint64_t n;
    for (size_t k = 0; (st = next_instant(S, m, &k, &n)); k++) {
        fprintf(f, "%s\n{\"scope\":\"%s\",\"cat\":", first ? "" : ",",
                stint_track_kind_name((enum stint_track_kind)st->kind));
        first = 0;
        put_cat_name(f, m, st->cat, st->name);
        fprintf(f, ",\"count\":%" PRIu64 "}", n);
    }
    fputs("]", f);
    put_device_windows(f, S, m, 1); /* (marker logs' device lanes only) */
    put_stream_annotations(f, S, m, lane_order, nl, 1);
    fputs(",\n", f);
    stint_model_put_kinds_json(f, m);
    fprintf(f, ",\n\"flow_events\":%" PRIu64 ",\"flows\":%zu,\"dropped\":%" PRIu64 ",", m->flow_events,
            m->flows.len, m->dropped);
    put_lost_json(f, m);
    fprintf(f, ",\"partial\":%s", m->partial ? "true" : "false");
    if (stint_model_unmodelled(m)) { /* JSONL records counted in events that no section summarizes */
        fputs(",\"not_summarized\":{", f);
        first = 1;
        for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
            if (m->unmodelled[k]) {
                fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", stint_unmodelled_name((enum stint_unmodelled)k),
                        m->unmodelled[k]);
                first = 0;
            }
        fputc('}', f);
    }
    if (m->error) {
        fputs(",\"error\":", f);
        stint_out_json_str(f, m->error, strlen(m->error));
    }
    fputs("}\n", f);
}

/* Names in the human tables: control bytes escaped (textout.h), so a name
 * holding a newline or a tab cannot break a row. put_name_padded: the whole
 * escaped name, padded with blanks to width. */
static void put_name_padded(FILE *f, const struct stint_model *m, uint32_t id, int width)
{
    size_t len;
    const char *s = stint_model_str(m, id, &len);
    stint_out_text_str(f, s, len);
    for (size_t w = stint_out_text_width(s, len); w < (size_t)width; w++) /* (by display width) */
        putc(' ', f);
}

/* Row i's name, or "" when id is 0 and none (a column of model strings). */
static void col_set_id(struct stint_out_col *c, size_t i, const struct stint_model *m, uint32_t id,
                       const char *suffix)
{
    size_t len;
    const char *s = stint_model_str(m, id, &len);
    stint_out_col_set(c, i, s, len, suffix);
}

/* The repairs (kept and flagged) and drops (not kept) by kind, repairs
 * first; nothing when there are none. */
static void put_repairs_text(FILE *f, const struct stint_model *m)
{
    int any = m->dropped != 0;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        any |= m->repairs[k] != 0;
    if (!any)
        return;
    fprintf(f, "\nrepairs and drops  (repaired: kept and flagged; dropped: not kept; --strict makes them errors)\n");
    for (int drops = 0; drops < 2; drops++)
        for (int k = 0; k < STINT_REPAIR_COUNT; k++)
            if (m->repairs[k] && stint_repair_is_drop((enum stint_repair)k) == drops)
                fprintf(f, "  %-8s %-24s %10" PRIu64 "\n", drops ? "dropped" : "repaired",
                        stint_repair_name((enum stint_repair)k), m->repairs[k]);
    if (m->dropped)
        fprintf(f, "  %-8s %-24s %10" PRIu64 "\n", "dropped", "other", m->dropped);
}

static void print_human(FILE *f, const struct stint_tally *S, const struct stint_model *m, const uint32_t *lane_order,
                        size_t nl, const char *path, int wide)
{
    /* name columns: cut in the middle to their width, never two names alike
     * (textout.h: stint_out_col); --wide: whole */
    struct stint_out_col col, col2;
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32], i9[32], j9[32];
    fprintf(f, "%s%s: %s, %" PRIu64 " events, %" PRIu64 " spans", m->partial ? "PARTIAL " : "", path,
            m->format ? m->format : "?", m->events, S->spans);
    if (stint_model_unmodelled(m)) {
        fputs(" (not summarized: ", f);
        stint_model_put_unmodelled(f, m);
        fputs(" record(s); `stint memory` reads memory and tensor records)", f);
    }
    if (m->lost) /* (as the header says PARTIAL: the figures below are low, and this says by how much) */
        fprintf(f, "; LOST: %" PRIu64 " more spans that the writer lost (\"lost by the writer\" below)", m->lost);
    fputc('\n', f);
    fprintf(f, "\nlanes  (busy = union of the lane's span intervals; sum double-counts nesting and overlap)\n");
    stint_out_col_init(&col, nl, 24, wide);
    for (size_t k = 0; k < nl; k++) {
        const struct stint_lane *l = shown_lane(S, m, lane_order[k]);
        if (l)
            col_set_id(&col, k, m, l->name, l->clock ? " [device clock]" : NULL);
    }
    stint_out_col_plan(&col, 0);
    fprintf(f, "%10s %10s %-*s %10s %14s %14s\n", "pid", "tid", (int)col.cols, "name", "spans", "sum", "busy");
    for (size_t k = 0; k < nl; k++) {
        const struct stint_tally_lane *lr = &S->lanes[lane_order[k]];
        const struct stint_lane *l = shown_lane(S, m, lane_order[k]);
        if (!l)
            continue;
        fmt_dur(a, lr->sum_ns);
        fmt_dur(b, stint_union_acc_total(&lr->busy));
        put_lane_ids(f, m, l);
        stint_out_col_put(f, &col, k, 0);
        fprintf(f, " %10" PRIu64 " %14s %14s\n", lr->spans, a, b);
    }
    stint_out_col_free(&col);
    fprintf(f, "\ncategories  (busy = union across all lanes, overlap counted once; sum double-counts overlap)\n");
    stint_out_col_init(&col, S->ncats, 32, wide);
    for (size_t k = 0; k < S->ncats; k++) {
        const struct stint_tally_cat *cr = &S->cats[k];
        const char *dc = cr->clock ? " [device clock]" : NULL;
        if (cr->cat)
            col_set_id(&col, k, m, cr->cat, dc);
        else
            stint_out_col_set(&col, k, "(none)", 6, dc);
    }
    stint_out_col_plan(&col, 0);
    fprintf(f, "%-*s %10s %14s %14s\n", (int)col.cols, "cat", "spans", "sum", "busy");
    for (size_t k = 0; k < S->ncats; k++) {
        const struct stint_tally_cat *cr = &S->cats[k];
        fmt_dur(a, cr->sum_ns);
        fmt_dur(b, cr->busy_ns);
        stint_out_col_put(f, &col, k, 0);
        fprintf(f, " %10" PRIu64 " %14s %14s\n", cr->spans, a, b);
    }
    stint_out_col_free(&col);
    fprintf(f, "\nnames  (total = union of the name's spans per lane, summed over lanes, recursion counted once;\n"
               "        self = duration minus the union of direct children; sum double-counts recursion;\n"
               "        quantiles are nearest-rank over span durations)\n");
    stint_out_col_init(&col, S->nnames, 16, wide);
    stint_out_col_init(&col2, S->nnames, 64, wide); /* (fits the longest name, up to 64 columns) */
    for (size_t k = 0; k < S->nnames; k++) {
        col_set_id(&col, k, m, S->names[k].cat, NULL);
        col_set_id(&col2, k, m, S->names[k].name, NULL);
    }
    stint_out_col_plan(&col, 0);
    int nw = (int)stint_out_col_plan(&col2, 1);
    if (nw < 4) {
        nw = 4;
        col2.cols = 4;
    }
    fprintf(f, "%-*s %-*s %8s %12s %12s %12s %12s %12s %12s %12s %12s\n", (int)col.cols, "cat", nw, "name", "spans",
            "sum", "total", "self", "min", "p50", "p90", "p99", "max");
    for (size_t k = 0; k < S->nnames; k++) {
        const struct stint_tally_name *nr = &S->names[k];
        fmt_dur(a, nr->sum_ns);
        fmt_dur(b, nr->total_ns);
        fmt_dur(c, nr->self_ns);
        fmt_dur(d, nr->min_ns);
        fmt_dur(e, nr->p50);
        fmt_dur(g, nr->p90);
        fmt_dur(h, nr->p99);
        fmt_dur(i9, nr->max_ns);
        (void)j9;
        stint_out_col_put(f, &col, k, 0);
        putc(' ', f);
        stint_out_col_put(f, &col2, k, 0);
        fprintf(f, " %8" PRIu64 " %12s %12s %12s %12s %12s %12s %12s %12s%s\n", nr->spans, a, b, c, d, e, g, h, i9,
                nr->clock ? "  [device clock]" : "");
    }
    stint_out_col_free(&col);
    stint_out_col_free(&col2);
    if (S->nasync) {
        fprintf(f, "\nasync spans  (own tracks keyed by cat + id; not part of lane, category or name time)\n");
        stint_out_col_init(&col, S->nasync, 16, wide);
        stint_out_col_init(&col2, S->nasync, 28, wide);
        for (size_t k = 0; k < S->nasync; k++) {
            col_set_id(&col, k, m, S->asyncs[k].cat, NULL);
            col_set_id(&col2, k, m, S->asyncs[k].name, NULL);
        }
        stint_out_col_plan(&col, 0);
        stint_out_col_plan(&col2, 0);
        fprintf(f, "%-*s %-*s %8s %14s %10s\n", (int)col.cols, "cat", (int)col2.cols, "name", "spans", "sum",
                "unfinished");
        for (size_t k = 0; k < S->nasync; k++) {
            const struct stint_tally_async *r = &S->asyncs[k];
            fmt_dur(a, r->sum_ns);
            stint_out_col_put(f, &col, k, 0);
            putc(' ', f);
            stint_out_col_put(f, &col2, k, 0);
            fprintf(f, " %8" PRIu64 " %14s %10" PRIu64 "\n", r->spans, a, r->unfinished);
        }
        stint_out_col_free(&col);
        stint_out_col_free(&col2);
    }
    int head = 0;
    struct counter_stat cs;
    for (size_t k = 0; next_counter(S, m, &k, &cs); k++) {
        if (!head++)
            fprintf(f, "\ncounters  (per series: samples, min, max, mean of the sample values)\n");
        fprintf(f, "  pid %-8" PRId64 " ", cs.series->pid);
        put_name_padded(f, m, cs.series->name, 32);
        fprintf(f, " %8" PRIu64 " samples  min %g  max %g  mean %g\n", cs.n, cs.mn, cs.mx, cs.mean);
    }
    head = 0;
    const struct stint_instant_stat *st;
    uint64_t n;
    for (size_t k = 0; (st = next_instant(S, m, &k, &n)); k++) {
        if (!head++)
            fprintf(f, "\ninstants  (count per scope, cat and name)\n");
        fprintf(f, "  %-8s ", stint_track_kind_name((enum stint_track_kind)st->kind));
        put_name_padded(f, m, st->cat, 16);
        putc(' ', f);
        put_name_padded(f, m, st->name, 32);
        fprintf(f, " %8" PRIu64 "\n", n);
    }
    if (m->flow_events)
        fprintf(f, "\nflows  %" PRIu64 " flow events, %zu arrows bound to slices\n", m->flow_events, m->flows.len);
    put_repairs_text(f, m);
    put_lost_text(f, m);
}

int stint_cmd_summary(int argc, char **argv)
{
    struct stint_cmd_opts o;
    int wide = 0;
    const struct stint_cmd_extra ex[] = {{"--wide", NULL, NULL, &wide, 1}};
    if (stint_cmd_take_extras("summary", &argc, argv, ex, 1) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    const char *top_s = NULL, *sort_s = NULL;
    int merge = 0;
    const struct stint_cmd_extra vx[] = {{"--top", NULL, &top_s, NULL, 0},
                                         {"--sort", NULL, &sort_s, NULL, 0},
                                         {"--merge-numbered", NULL, NULL, &merge, 1}};
    if (stint_cmd_take_extras("summary", &argc, argv, vx, 3) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    int rc = stint_cmd_parse_nocsv(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    size_t top;
    struct sort_ctx sc;
    if ((rc = view_opts(top_s, sort_s, &top, &sc.key)) >= 0)
        return rc;
    struct stint_model m;
    struct stint_tally S;
    stint_tally_init(&S, &o.filter);
    S.exits_after = stint_cli_exits_after_command;
    /* STINT_SUMMARY_NO_LEAN=1 keeps every span as a full slice (the same
     * results with more memory; the differential test compares the two) */
    const char *nl = getenv("STINT_SUMMARY_NO_LEAN");
    unsigned flags = (nl && *nl == '1' ? 0 : STINT_MODEL_LEAN) |
                     (o.filter.has_pid || o.filter.has_range ? STINT_MODEL_KEEP_SAMPLES : 0);
    if ((flags & STINT_MODEL_LEAN) && !S.filtering) /* thread instants: counts (the model's), not slices */
        flags |= STINT_MODEL_LEAN_INSTANTS;
    struct stint_span_split split = stint_tally_split();
    struct merge_sink ms = {&S, merge ? stint_name_families_new() : NULL}; /* (one walker: no split) */
    rc = merge ? stint_cmd_load_sink(&o, &m, flags, merge_on_slice, &ms, NULL)
               : stint_cmd_load_sink(&o, &m, flags, stint_tally_on_slice, &S, &split);
    stint_name_families_free(ms.fam);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    SELF_BEGIN(cp, "summary: unions and quantiles");
    stint_tally_compute(&S, &m);
    if (merge)
        name_families(&S, &m);
    SELF_END(cp);
    SELF_BEGIN(out, "summary: output");
    sc.m = &m;
    if (S.ncats > 1)
        stint_xqsort_r(S.cats, S.ncats, sizeof *S.cats, cat_cmp, &sc);
    if (S.nnames > 1)
        stint_xqsort_r(S.names, S.nnames, sizeof *S.names, name_cmp, &sc);
    size_t names_all = S.nnames; /* --top: the first rows only (the rest still count in every other figure) */
    if (top < S.nnames)
        S.nnames = top;
    if (S.nasync > 1)
        stint_xqsort_r(S.asyncs, S.nasync, sizeof *S.asyncs, async_cmp, &m);
    uint32_t *lane_order = stint_xcalloc(m.lanes.len ? m.lanes.len : 1, sizeof *lane_order);
    for (size_t i = 0; i < m.lanes.len; i++)
        lane_order[i] = (uint32_t)i;
    if (m.lanes.len > 1)
        stint_xqsort_r(lane_order, m.lanes.len, sizeof *lane_order, lane_cmp, &m);
    if (o.json)
        print_json(stdout, &S, &m, lane_order, m.lanes.len, o.path);
    else
        print_human(stdout, &S, &m, lane_order, m.lanes.len, o.path, wide);
    if (!o.json) {
        put_device_windows(stdout, &S, &m, 0); /* (marker logs' device lanes only) */
        put_stream_annotations(stdout, &S, &m, lane_order, m.lanes.len, 0);
    }
    if (names_all > S.nnames && !o.json)
        printf("\n# names: the first %zu of %zu rows by %s (%zu left out): --top 0 shows all, --top N the first N\n",
               S.nnames, names_all, sort_names[sc.key], names_all - S.nnames);
    else if (names_all > S.nnames)
        fprintf(stderr, "stint summary: names: the first %zu of %zu rows by %s (%zu left out): --top 0 shows all\n",
                S.nnames, names_all, sort_names[sc.key], names_all - S.nnames);
    if (stint_cmd_close_out("summary", stdout, "stdout") != 0)
        rc = STINT_EXIT_IO;
    SELF_END(out);
    if (nothing_selected(&S, &m))
        stint_cmd_explain_empty("summary", &o, NULL);
    free(lane_order);
    stint_tally_free(&S);
    stint_model_free(&m);
    return rc;
}
