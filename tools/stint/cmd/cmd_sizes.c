/* SPDX-License-Identifier: MIT */
/*
 * cmd_sizes.c - `stint sizes FILE`: what a Chrome JSON trace's, a marker
 * log's or a JSONL session's bytes are spent on, so that whoever writes it
 * sees what makes it large.
 *
 * The reader measures each event's text instead of modelling it (sizes.h):
 * rows by phase, by (cat, name), by key of the event objects and by
 * top-level key of their args objects, and the trace object's keys other
 * than traceEvents. A marker log's records are measured the same way
 * (read_markers.c): by clock in place of phase, by name, by head field and
 * by attr key; its "outside" is the log's other text. A JSONL session's
 * (read_jsonl.c): by kind, by (span_kind, name or op_name) and by key. A
 * binary capture's span entries (read_capture.c): by clock, by name, by
 * entry field and by attribute key; its "outside" is the header, block
 * heads, string table and other entries. Every byte count is of
 * the text as written (inflated, for gzip); the bytes outside events are
 * the rest: those keys, whitespace, commas and brackets. Percentages are of
 * the whole text read. Rows come sorted by bytes (then events, then text);
 * the text output shows the first --top of each list (default 20, 0 = all),
 * --json gives them all.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "model/model.h"
#include "read/sizes.h"
#include "write/textout.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint sizes FILE [--top N] [--json] [--strict] [--pid N] [--tid N] [--cat C] [--name GLOB]\n"
    "                   [--time-range A:B] [--format chrome|markers|jsonl]\n"
    "  what a Chrome JSON trace's bytes are spent on: bytes and events by phase, by\n"
    "  (cat, name), by key of the events and by top-level key of their args objects, as\n"
    "  written (inflated, for gzip); a marker log's records by clock, by name, by head\n"
    "  field and by attr key; a JSONL session's by kind, by (span_kind, name) and by\n"
    "  key. The text shows the top N rows of each list (default 20, 0 = all); --json\n"
    "  gives every row.\n";

/* What row_cmp compares by (qsort_r's context). */
struct sort_ctx {
    const struct stint_model *m;
    const struct stint_size_row *rows;
    int two; /* rows keyed by (cat, name): compare name, then cat */
};

static int str_cmp(const struct stint_model *m, uint32_t a, uint32_t b)
{
    size_t na, nb;
    const char *sa = stint_model_str(m, a, &na), *sb = stint_model_str(m, b, &nb);
    int c = memcmp(sa, sb, na < nb ? na : nb);
    return c ? c : (na > nb) - (na < nb);
}

/* Most bytes first, then most events, then by text: a total order. */
static int row_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct sort_ctx *sc = ctx;
    const struct stint_size_row *a = &sc->rows[*(const size_t *)pa], *b = &sc->rows[*(const size_t *)pb];
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    if (a->events != b->events)
        return a->events < b->events ? 1 : -1;
    int c = str_cmp(sc->m, sc->two ? a->b : a->a, sc->two ? b->b : b->a);
    return c || !sc->two ? c : str_cmp(sc->m, a->a, b->a);
}

/* The rows' indexes in report order (malloc'd). */
static size_t *sorted(const struct stint_model *m, const struct stint_size_table *t, int two)
{
    size_t *ix = stint_xreallocarray(NULL, t->n ? t->n : 1, sizeof *ix);
    for (size_t i = 0; i < t->n; i++)
        ix[i] = i;
    struct sort_ctx sc = {m, t->rows, two};
    stint_xqsort_r(ix, t->n, sizeof *ix, row_cmp, &sc);
    return ix;
}

/* What the rows mean for the input's format: Chrome JSON, a marker log or a
 * JSONL session. */
struct labels {
    const char *text;      /* "JSON text" */
    const char *event;     /* "events" */
    const char *per;       /* "bytes/event" */
    const char *args_row;  /* the totals' args row ("args"), NULL: none (the format has no args) */
    const char *args;      /* its note */
    const char *args_col;  /* "args bytes" */
    const char *outside;   /* the outside line of the totals */
    const char *ph, *by;   /* the phase column and its list's heading */
    const char *names;     /* the names' heading ("(cat, name)") */
    const char *name_col;  /* the names' last column ("cat / name") */
    const char *scope[2];  /* the header's two lines on what a byte count covers */
    const char *keys[2];   /* event keys: heading, note (their columns: event, per) */
    const char *akeys[4];  /* args keys: heading, note, count column, per column */
    const char *json_name; /* --json's "format" */
    const char *json_scope; /* --json's scope: what "bytes" covers after "(inflated, for gzip): ", on to
                             * what "outside_bytes" covers before "; when partial" (put_json) */
    const char *written;    /* what a byte count is of ("the text as written"; NULL: that) */
};

static const struct labels chrome_labels = {
    "JSON text", "events", "bytes/event", "args", "their args objects (part of the events' bytes)", "args bytes",
    "the trace object's other keys, whitespace, commas, brackets", "ph", "phase", "(cat, name)", "cat / name",
    {"an event from its '{' to its '}'; an args member from its key's", "'\"' to its value's end"},
    {"event keys", " (members of event objects, args included)"},
    {"args keys", " (top-level members of args objects)", "objects", "bytes/object"},
    "chrome",
    "an event from its '{' to its '}', an args member from its key's '\\\"' to its "
    "value's end\",\"outside_bytes\":\"the trace object's other keys, whitespace, commas and brackets", NULL};

static const struct labels marker_labels = {
    "log text", "records", "bytes/record", "attrs", "their attrs (part of the records' bytes)", "attrs bytes",
    "log prefixes, other lines, line ends, blanks between glued records, torn records", "clk", "clock", "names",
    "name", {"a record from its '[' to its last field's end; a field or an attr", "from its key to its value's end"},
    {"record fields", " (the head's k=v fields, and attrs as a whole)"},
    {"attr keys", " (the attrs' k=v tokens, by key)", "tokens", "bytes/token"},
    "markers",
    "a record from its '[' to its last field's end, a head field or an attr from its "
    "key to its value's end\",\"events\":\"records\",\"phases\":\"by clock: host, or dev (clk=dev)\","
    "\"event_keys\":\"the head's fields, and attrs as a whole\",\"args_keys\":\"the attrs' tokens, by "
    "key\",\"outside_bytes\":\"log prefixes, other lines, line ends and torn records", NULL};

static const struct labels jsonl_labels = {
    "JSONL text", "records", "bytes/record", NULL, NULL, "",
    "line ends, blank lines, blanks around records, a torn last line", "kind", "kind", "(span_kind, name or op_name)",
    "span_kind / name",
    {"a record from its '{' to its '}'; a member from its key's '\"' to its", "value's end"},
    {"record keys", " (members of the records)"},
    {"", "", "", ""},
    "jsonl",
    "a record from its '{' to its '}', a member from its key's '\\\"' to its value's "
    "end\",\"events\":\"records\",\"phases\":\"by kind\",\"names\":\"(span_kind, name or op_name; a "
    "span_end's, its open span's), \\\"\\\" where the record has none\",\"event_keys\":\"the records' "
    "members\",\"outside_bytes\":\"line ends, blank lines, blanks around records and a torn last line", NULL};

static const struct labels capture_labels = {
    "binary capture", "spans", "bytes/span", "attrs", "their attribute arrays and string values (part of the "
    "spans' bytes)", "attrs bytes", "the header, block heads, the string table, thread, loss and clock entries, "
    "damaged or cut blocks", "clk", "clock", "names", "name",
    {"a span from its entry's first byte to its last (56, 16 per attribute, string values); a", "field or an "
     "attribute by its bytes in the entry"},
    {"span fields", " (the entry's fixed fields, and attrs as a whole)"},
    {"attribute keys", " (typed attributes, by key)", "attrs", "bytes/attr"},
    "capture",
    "a span entry from its first byte to its last (56 bytes, 16 per attribute, string values padded to 8), a "
    "field or an attribute by its bytes in the entry\",\"events\":\"span entries\",\"phases\":\"by clock: host, or "
    "dev (a device span)\",\"event_keys\":\"the span entry's fields, and attrs as a whole\",\"args_keys\":\"the "
    "typed attributes, by key\",\"outside_bytes\":\"the header, block heads, the string table, thread, loss and "
    "clock entries, and damaged or cut blocks",
    "the file as written"};

/* The format the tally is of: the reader's, or, when the read failed before
 * a reader started (a cut gzip header, say), the one --format named, else
 * Chrome JSON. */
static const char *format_of(const struct stint_model *m, const char *named)
{
    if (m->format)
        return m->format;
    return named && (!strcmp(named, "markers") || !strcmp(named, "jsonl") || !strcmp(named, "capture")) ? named
                                                                                                         : "chrome-json";
}

static const struct labels *labels_of(const char *fmt)
{
    if (!strcmp(fmt, "markers"))
        return &marker_labels;
    if (!strcmp(fmt, "capture"))
        return &capture_labels;
    return !strcmp(fmt, "jsonl") ? &jsonl_labels : &chrome_labels;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The phases a name's events had, as "X" or "B,E" (a '+' for any past the
 * first 63 phases seen); returns the width of the text written (not json).
 * f NULL (text only): writes nothing, only measures. */
static size_t put_phases(FILE *f, const struct stint_model *m, const struct stint_sizes *z, uint64_t bits, int json)
{
    int first = 1;
    size_t w = 0;
    for (size_t k = 0; k < 63 && k < z->phases.n; k++) {
        if (!(bits >> k & 1))
            continue;
        size_t n;
        const char *s = stint_model_str(m, z->phases.rows[k].a, &n);
        if (json) {
            fputs(first ? "" : ",", f);
            stint_out_json_str(f, s, n);
        } else {
            if (f) {
                fputs(first ? "" : ",", f);
                stint_out_text_str(f, s, n);
            }
            w += (first ? 0u : 1u) + stint_out_text_len(s, n);
        }
        first = 0;
    }
    if (bits >> 63 & 1) {
        if (json)
            fprintf(f, "%s\"+\"", first ? "" : ",");
        else if (f)
            fputs(first ? "+" : ",+", f);
        w += first ? 1u : 2u;
    }
    return w;
}

static void put_json_rows(FILE *f, const struct stint_model *m, const struct stint_sizes *z,
                          const struct stint_size_table *t, const size_t *ix, int kind)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct stint_size_row *r = &t->rows[ix[i]];
        size_t n;
        const char *s;
        fputs(i ? ",\n  {" : "\n  {", f);
        switch (kind) {
        case 0: /* phases */
            s = stint_model_str(m, r->a, &n);
            fputs("\"ph\":", f);
            stint_out_json_str(f, s, n);
            fprintf(f, ",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"args_bytes\":%" PRIu64 "}", r->events,
                    r->bytes, r->args_bytes);
            break;
        case 1: /* names */
            s = stint_model_str(m, r->a, &n);
            fputs("\"cat\":", f);
            stint_out_json_str(f, s, n);
            s = stint_model_str(m, r->b, &n);
            fputs(",\"name\":", f);
            stint_out_json_str(f, s, n);
            fputs(",\"phases\":[", f);
            put_phases(f, m, z, r->phases, 1);
            fprintf(f, "],\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"args_bytes\":%" PRIu64 "}", r->events,
                    r->bytes, r->args_bytes);
            break;
        default: /* event keys (events), args keys (objects), top-level keys */
            s = stint_model_str(m, r->a, &n);
            fputs("\"key\":", f);
            stint_out_json_str(f, s, n);
            if (kind == 2)
                fprintf(f, ",\"events\":%" PRIu64, r->events);
            else if (kind == 3)
                fprintf(f, ",\"objects\":%" PRIu64, r->events);
            fprintf(f, ",\"bytes\":%" PRIu64 "}", r->bytes);
            break;
        }
    }
}

static void put_json(FILE *f, const struct stint_model *m, const char *fmt, const struct stint_sizes *z,
                     size_t *const ix[5])
{
    uint64_t outside = z->text_bytes - z->event_bytes - z->filtered_bytes;
    const struct labels *L = labels_of(fmt);
    fprintf(f,
            "{\"schema\":\"stint.sizes/1\",\"format\":\"%s\",\"scope\":{\"bytes\":\"of %s "
            "(inflated, for gzip): %s; when partial, the %s the error cut short\"},\n",
            L->json_name, L->written ? L->written : "the text as written", L->json_scope, L->written ? "file" : "text");
    fprintf(f,
            "\"text_bytes\":%" PRIu64 ",\"gzip_bytes\":%" PRIu64 ",\"events\":%" PRIu64 ",\"event_bytes\":%" PRIu64
            ",\"args_bytes\":%" PRIu64 ",\"outside_bytes\":%" PRIu64 ",\"filtered_events\":%" PRIu64
            ",\"filtered_bytes\":%" PRIu64 ",\"partial\":%s,\n",
            z->text_bytes, z->gzip_bytes, z->events, z->event_bytes, z->args_bytes, outside, z->filtered_events,
            z->filtered_bytes, m->partial ? "true" : "false");
    static const char *const lists[5] = {"phases", "names", "event_keys", "args_keys", "top_keys"};
    const struct stint_size_table *t[5] = {&z->phases, &z->names, &z->event_keys, &z->args_keys, &z->top_keys};
    for (int k = 0; k < 5; k++) {
        fprintf(f, "\"%s\":[", lists[k]);
        put_json_rows(f, m, z, t[k], ix[k], k);
        fputs(k < 4 ? "],\n" : "]}\n", f);
    }
}

/* "top N of M" or "all M" for a list's heading. */
static void put_count(FILE *f, size_t shown, size_t n)
{
    if (shown < n)
        fprintf(f, "top %zu of %zu", shown, n);
    else
        fprintf(f, "%zu", n);
}

/* A list of keys (rows in ix order, the first top of them; 0: all) under
 * "## heading: N what by bytes", with a count column named count and its
 * bytes per count (none when count is NULL). Nothing for an empty list. */
static void put_keys(FILE *f, const struct stint_model *m, const struct stint_size_table *t, const size_t *ix,
                     size_t top, uint64_t whole, const char *heading, const char *what, const char *count,
                     const char *per)
{
    if (!t->n)
        return;
    size_t lim = top && top < t->n ? top : t->n;
    fprintf(f, "\n## %s: ", heading);
    put_count(f, lim, t->n);
    if (count) {
        int w = (int)strlen(per) + 1;
        fprintf(f, "%s by bytes\n%12s %7s %10s %*s  %s\n", what, "bytes", "% text", count, w, per, "key");
    } else
        fprintf(f, "\n%12s %7s  %s\n", "bytes", "% text", "key");
    for (size_t i = 0; i < lim; i++) {
        const struct stint_size_row *r = &t->rows[ix[i]];
        size_t n;
        const char *s = stint_model_str(m, r->a, &n);
        fprintf(f, "%12" PRIu64 " %6.1f%%  ", r->bytes, pct(r->bytes, whole));
        if (count)
            fprintf(f, "%*" PRIu64 " %*.1f  ", 9, r->events, (int)strlen(per) + 1,
                    (double)r->bytes / (double)r->events);
        stint_out_text_str(f, s, n);
        fputc('\n', f);
    }
}

static void put_text(FILE *f, const struct stint_model *m, const char *fmt, const struct stint_sizes *z,
                     size_t *const ix[5],
                     size_t top, const char *path)
{
    const struct labels *L = labels_of(fmt);
    uint64_t whole = z->text_bytes, outside = z->text_bytes - z->event_bytes - z->filtered_bytes;
    fprintf(f, "# %s: %" PRIu64 " bytes of %s", path, whole, L->text);
    if (z->gzip_bytes)
        fprintf(f, " (inflated from %" PRIu64 " bytes of gzip)", z->gzip_bytes);
    fprintf(f, "%s\n", m->partial ? " - PARTIAL input: the text up to the error" : "");
    fprintf(f, "# bytes: of %s; %s\n# %s; percentages of the whole %s\n", L->written ? L->written : "the text as written",
            L->scope[0], L->scope[1], L->written ? "file" : "text");
    fprintf(f, "%-9s%12s %7s %10s %12s\n", "", "bytes", "% text", L->event, L->per);
    fprintf(f, "%-9s%12" PRIu64 " %6.1f%% %10" PRIu64 " %12.1f\n", L->event, z->event_bytes,
            pct(z->event_bytes, whole), z->events, z->events ? (double)z->event_bytes / (double)z->events : 0.0);
    if (L->args_row)
        fprintf(f, "  %-7s%12" PRIu64 " %6.1f%%  %s\n", L->args_row, z->args_bytes, pct(z->args_bytes, whole),
                L->args);
    if (z->filtered_events)
        fprintf(f, "filtered %12" PRIu64 " %6.1f%% %10" PRIu64 " %12.1f  (left out by the filters: in no row)\n",
                z->filtered_bytes, pct(z->filtered_bytes, whole), z->filtered_events,
                (double)z->filtered_bytes / (double)z->filtered_events);
    fprintf(f, "outside  %12" PRIu64 " %6.1f%%  %s%s\n", outside, pct(outside, whole), L->outside,
            m->partial ? ";\n                               the text the error cut short" : "");

    /* by phase: the first column as wide as its widest text */
    size_t pw = strlen(L->ph) < 4 ? 4 : strlen(L->ph), lim;
    for (size_t i = 0; i < z->phases.n; i++) {
        size_t n;
        const char *s = stint_model_str(m, z->phases.rows[i].a, &n);
        size_t w = stint_out_text_len(s, n);
        pw = w > pw ? w : pw;
    }
    fprintf(f, "\n## by %s\n%-*s%12s %12s %7s %12s", L->by, (int)pw, L->ph, L->event, "bytes", "% text", L->per);
    if (L->args_row)
        fprintf(f, " %12s", L->args_col);
    fputc('\n', f);
    for (size_t i = 0; i < z->phases.n; i++) {
        const struct stint_size_row *r = &z->phases.rows[ix[0][i]];
        size_t n, w;
        const char *s = stint_model_str(m, r->a, &n);
        stint_out_text_str(f, s, n);
        w = stint_out_text_len(s, n);
        fprintf(f, "%*s%12" PRIu64 " %12" PRIu64 " %6.1f%% %12.1f", (int)(pw - w), "", r->events, r->bytes,
                pct(r->bytes, whole), (double)r->bytes / (double)r->events);
        if (L->args_row)
            fprintf(f, " %12" PRIu64, r->args_bytes);
        fputc('\n', f);
    }

    lim = top && top < z->names.n ? top : z->names.n;
    size_t nw = 6; /* the phases column: as wide as the widest shown */
    for (size_t i = 0; i < lim; i++) {
        size_t w = put_phases(NULL, m, z, z->names.rows[ix[1][i]].phases, 0);
        nw = w > nw ? w : nw;
    }
    fputs("\n## by name: ", f);
    put_count(f, lim, z->names.n);
    fprintf(f, " %s by bytes\n%12s %7s %10s %12s ", L->names, "bytes", "% text", L->event, L->per);
    if (L->args_row)
        fprintf(f, "%12s ", L->args_col);
    fprintf(f, " %-*s  %s\n", (int)nw, L->ph, L->name_col);
    for (size_t i = 0; i < lim; i++) {
        const struct stint_size_row *r = &z->names.rows[ix[1][i]];
        fprintf(f, "%12" PRIu64 " %6.1f%% %10" PRIu64 " %12.1f ", r->bytes, pct(r->bytes, whole), r->events,
                (double)r->bytes / (double)r->events);
        if (L->args_row)
            fprintf(f, "%12" PRIu64 " ", r->args_bytes);
        fputc(' ', f);
        size_t w = put_phases(f, m, z, r->phases, 0);
        fprintf(f, "%*s", (int)(nw - w) + 2, "");
        size_t n;
        const char *s = stint_model_str(m, r->a, &n);
        if (n) {
            stint_out_text_str(f, s, n);
            fputs(" / ", f);
        }
        s = stint_model_str(m, r->b, &n);
        if (n)
            stint_out_text_str(f, s, n);
        else
            fputs("\"\" (no name)", f);
        fputc('\n', f);
    }

    put_keys(f, m, &z->event_keys, ix[2], top, whole, L->keys[0], L->keys[1], L->event, L->per);
    put_keys(f, m, &z->args_keys, ix[3], top, whole, L->akeys[0], L->akeys[1], L->akeys[2], L->akeys[3]);
    put_keys(f, m, &z->top_keys, ix[4], top, whole, "trace object keys other than traceEvents", NULL, NULL, NULL);
}

int stint_cmd_sizes(int argc, char **argv)
{
    const char *top_s = NULL;
    const struct stint_cmd_extra ex[] = {{"--top", NULL, &top_s, NULL, 0}};
    int rc = stint_cmd_take_extras("sizes", &argc, argv, ex, 1);
    if (rc >= 0)
        return rc;
    const struct stint_cmd_spec spec = {
        "sizes", STINT_FILT_PID | STINT_FILT_TID | STINT_FILT_CAT | STINT_FILT_NAME | STINT_FILT_RANGE | STINT_TAKES_JSON,
        "sizes measures events as written, before any B/E matching gives them a duration (the filters here are "
        "--pid, --tid, --cat, --name and --time-range)",
        "sizes prints a text table, or JSON with --json", NULL, NULL};
    struct stint_cmd_opts o;
    rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    uint32_t top = 20;
    if (top_s && stint_cmd_parse_u32(top_s, &top) != 0) {
        fprintf(stderr, "stint sizes: --top: '%s': expected a whole count (0 = every row)\n", top_s);
        return STINT_EXIT_USAGE;
    }
    struct stint_model m;
    rc = stint_cmd_load(&o, &m, STINT_MODEL_SIZES);
    if (stint_no_report(rc, &m) || !m.sizes) {
        stint_model_free(&m);
        return rc ? rc : STINT_EXIT_IO;
    }
    const struct stint_sizes *z = m.sizes;
    size_t *ix[5] = {sorted(&m, &z->phases, 0), sorted(&m, &z->names, 1), sorted(&m, &z->event_keys, 0),
                     sorted(&m, &z->args_keys, 0), sorted(&m, &z->top_keys, 0)};
    FILE *f = stdout;
    static char obuf[1 << 18];
    setvbuf(f, obuf, _IOFBF, sizeof obuf);
    if (o.json)
        put_json(f, &m, format_of(&m, o.format), z, ix);
    else
        put_text(f, &m, format_of(&m, o.format), z, ix, top, o.path);
    if (stint_cmd_close_out("sizes", f, "stdout"))
        rc = STINT_EXIT_IO;
    for (int k = 0; k < 5; k++)
        free(ix[k]);
    stint_model_free(&m);
    return rc;
}
