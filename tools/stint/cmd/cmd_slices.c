/* SPDX-License-Identifier: MIT */
/*
 * cmd_slices.c - `stint slices FILE [--csv|--json]`: the slice table.
 *
 * One row per slice (spans, instants, async slices), like Perfetto's `slice`
 * table: ts_ns, dur_ns (-1 when unfinished), pid, tid (empty/null off thread
 * tracks), track kind, cat, name, depth, parent row, args. Rows are sorted by
 * ts, then depth, then input order; "parent" is the parent's row number in
 * this output (empty/null for roots or when the parent was filtered out).
 * --json adds the process and thread tables, counter series with their
 * samples, the trace's top-level metadata, repairs and drops.
 *
 * CSV cells are formula-safe (textout.h: stint_out_csv_str) unless
 * --csv-raw; the args column (TSV and CSV) is one JSON object in which no
 * key repeats (put_args_object); --json lists every arg in input order.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "base/cmp.h"
#include "base/hmem.h"
#include "base/umap.h"
#include "base/xalloc.h"
#include "write/textout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint slices FILE [--csv|--csv-raw|--json] [--strict] [--format chrome|jsonl|markers] [filters]\n"
    "  the slice table sorted by ts then depth: ts_ns, dur_ns (-1 = unfinished), pid, tid,\n"
    "  track (thread|async|process|global), cat, name, depth, parent (row), args\n"
    "  --csv: a cell starting with = + - @ (not a number) gets a leading ' (formula-safe);\n"
    "  --csv-raw writes cells as they are\n";

static int order_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_model *m = ctx;
    const struct stint_slice *a = stint_model_slice(m, *(const uint32_t *)pa);
    const struct stint_slice *b = stint_model_slice(m, *(const uint32_t *)pb);
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* One TSV field: text-escaped (\t \n \r \xHH \\), so a tab, newline or other
 * control byte cannot break the row, then CSV-quoted as before when the
 * escaped text holds a comma or a double quote. */
static void put_tsv_str(FILE *f, const char *s, size_t n)
{
    size_t e = stint_out_text_len(s, n);
    if (e == n) { /* nothing to escape */
        stint_out_csv_raw(f, s, n);
        return;
    }
    char small[256], *buf = e < sizeof small ? small : malloc(e + 1);
    if (!buf) { /* out of memory: still one row per line, without the CSV quoting */
        stint_out_text_str(f, s, n);
        return;
    }
    stint_out_text_esc(buf, e + 1, s, n);
    stint_out_csv_raw(f, buf, e);
    if (buf != small)
        free(buf);
}

/* The args column in TSV: one JSON object text, kept parseable as JSON (so
 * not text-escaped, which would double its backslashes). Its strings are
 * JSON-escaped already; a raw control byte can only come from a deeply nested
 * value kept as its source text, where valid JSON has one only as whitespace
 * between tokens: \t \n \r become a space (the same JSON), any other control
 * byte or DEL becomes \u00XX, so a tab or newline cannot break the row. */
static void put_tsv_json(FILE *f, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f)
            continue;
        fwrite(s + run, 1, i - run, f);
        if (c == '\t' || c == '\n' || c == '\r')
            putc(' ', f);
        else
            fprintf(f, "\\u%04x", c);
        run = i + 1;
    }
    fwrite(s + run, 1, n - run, f);
}

/* One CSV field (csv: 1 neutralised against formulas, 2 raw), else one TSV
 * field. */
static void put_field(FILE *f, const struct stint_model *m, uint32_t id, int csv)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    if (csv == 1)
        stint_out_csv_str(f, s, n);
    else if (csv)
        stint_out_csv_raw(f, s, n);
    else
        put_tsv_str(f, s, n);
}

static void put_arg_value(FILE *f, const struct stint_model *m, const struct stint_arg *a)
{
    switch (a->kind) {
    case STINT_ARG_INT:
    case STINT_ARG_UINT:
        fprintf(f, "%" PRId64, a->ival);
        break;
    case STINT_ARG_BOOL:
        fputs(a->ival ? "true" : "false", f);
        break;
    case STINT_ARG_REAL:
    case STINT_ARG_JSON:
        fputs(stint_model_str(m, a->sval, NULL), f);
        break;
    default:
        stint_out_json_model_str(f, m, a->sval);
        break;
    }
}

/* A slice's args as one JSON object in which no key repeats: a key that a
 * marker line or an event gives twice keeps its last value (as JSON.parse
 * and Python's json.loads read a repeated key), at the place of its first.
 * Keys are interned (one id per text). Up to ARGS_SCAN args are compared
 * pairwise; more go through a map of each key's last arg. */
#define ARGS_SCAN 32
static void put_args_object(FILE *f, const struct stint_model *m, const struct stint_slice *s)
{
    struct stint_umap last = {0}, done = {0};
    int big = s->nargs > ARGS_SCAN, first = 1, isnew;
    if (big)
        for (uint32_t k = s->nargs; k-- > 0;) /* (backwards: the first insert of a key is its last arg) */
            stint_umap_get(&last, stint_model_arg_at(m, s->args + k)->key, k, &isnew);
    putc('{', f);
    for (uint32_t k = 0; k < s->nargs; k++) {
        uint32_t key = stint_model_arg_at(m, s->args + k)->key, use = k;
        if (big) {
            stint_umap_get(&done, key, 0, &isnew);
            if (!isnew)
                continue;
            use = stint_umap_find(&last, key);
        } else {
            int seen = 0;
            for (uint32_t j = 0; j < k && !seen; j++)
                seen = stint_model_arg_at(m, s->args + j)->key == key;
            if (seen)
                continue;
            for (uint32_t j = k + 1; j < s->nargs; j++)
                if (stint_model_arg_at(m, s->args + j)->key == key)
                    use = j;
        }
        const struct stint_arg *a = stint_model_arg_at(m, s->args + use);
        if (!first)
            putc(',', f);
        first = 0;
        stint_out_json_model_str(f, m, a->key);
        putc(':', f);
        put_arg_value(f, m, a);
    }
    putc('}', f);
    stint_umap_free(&last);
    stint_umap_free(&done);
}

static const char *arg_kind_name(uint32_t k)
{
    switch (k) {
    case STINT_ARG_INT: return "int";
    case STINT_ARG_UINT: return "uint";
    case STINT_ARG_REAL: return "real";
    case STINT_ARG_BOOL: return "bool";
    case STINT_ARG_JSON: return "json";
    default: return "string";
    }
}

/* args as one JSON array of {"key","type","value"} in input order */
static void put_args_json(FILE *f, const struct stint_model *m, const struct stint_slice *s)
{
    putc('[', f);
    for (uint32_t k = 0; k < s->nargs; k++) {
        const struct stint_arg *a = stint_model_arg_at(m, s->args + k);
        if (k)
            putc(',', f);
        fputs("{\"key\":", f);
        stint_out_json_model_str(f, m, a->key);
        fprintf(f, ",\"type\":\"%s\",\"value\":", arg_kind_name(a->kind));
        put_arg_value(f, m, a);
        putc('}', f);
    }
    putc(']', f);
}

/* The counter series and their samples that pass the filters, as `stint
 * summary` and `stint counters` select them: a series by --name on its own
 * name, a sample by --pid (the series' process) and --time-range; a series
 * with no sample left is left out when either selects samples. One pass
 * over the samples (each series' samples in file order). */
static void put_counters_json(FILE *f, const struct stint_model *m, const struct stint_filter *flt)
{
    size_t ns = m->counters.len, bytes = (3 * (ns + 1) + m->samples.len + 1) * sizeof(uint32_t);
    uint32_t *mem = memset(stint_hmem_xrealloc(NULL, 0, bytes), 0, bytes);
    /* per series: first and last kept sample + 1, kept count; per sample: the next + 1 (0 ends) */
    uint32_t *head = mem, *tail = head + ns + 1, *kept = tail + ns + 1, *next = kept + ns + 1;
    for (size_t k = 0; k < m->samples.len; k++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
        if (!stint_filter_point(flt, c->pid, cs->ts_ns))
            continue;
        if (tail[cs->series])
            next[tail[cs->series] - 1] = (uint32_t)k + 1;
        else
            head[cs->series] = (uint32_t)k + 1;
        tail[cs->series] = (uint32_t)k + 1;
        kept[cs->series]++;
    }
    int firsts = 1, sampling = flt->has_pid || flt->has_range;
    for (size_t i = 0; i < ns; i++) {
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, i);
        if (!stint_filter_name(flt, stint_model_str(m, c->name, NULL)) || (sampling && !kept[i]))
            continue;
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"name\":", firsts ? "" : ",", c->pid);
        firsts = 0;
        stint_out_json_model_str(f, m, c->name);
        fprintf(f, ",\"samples\":[");
        for (uint32_t k = head[i]; k; k = next[k - 1]) {
            const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k - 1);
            fprintf(f, "%s[%" PRId64 ",%.17g]", k == head[i] ? "" : ",", cs->ts_ns, cs->value);
        }
        fputs("]}", f);
    }
    stint_hmem_free(mem, bytes);
}

/* A process's or thread's "name" value (null when unnamed), then its
 * "sort_index" (null when none) and the object's closing brace. */
static void put_name_sort_index(FILE *f, const struct stint_model *m, uint32_t name, int has_sort_index,
                                int32_t sort_index)
{
    if (name)
        stint_out_json_model_str(f, m, name);
    else
        fputs("null", f);
    if (has_sort_index)
        fprintf(f, ",\"sort_index\":%d}", sort_index);
    else
        fputs(",\"sort_index\":null}", f);
}

static void put_tables_json(FILE *f, const struct stint_model *m, const uint32_t *row, const struct stint_filter *flt)
{
    fputs("],\n\"flows\":[", f);
    int firstf = 1;
    for (size_t i = 0; i < m->flows.len; i++) {
        const struct stint_flow *fl = &STINT_BA_AT(&m->flows, struct stint_flow, i);
        if (row[fl->slice_out] == STINT_NO_ID || row[fl->slice_in] == STINT_NO_ID)
            continue;
        fprintf(f, "%s[%u,%u]", firstf ? "" : ",", row[fl->slice_out], row[fl->slice_in]);
        firstf = 0;
    }
    fputs("],\n\"processes\":[", f);
    for (size_t i = 0; i < m->processes.len; i++) {
        const struct stint_process *p = stint_model_process_at(m, (uint32_t)i);
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"name\":", i ? "," : "", p->pid);
        put_name_sort_index(f, m, p->name, p->has_sort_index, p->sort_index);
    }
    fputs("],\n\"threads\":[", f);
    for (size_t i = 0; i < m->lanes.len; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"clock\":\"%s\",\"name\":", i ? "," : "", l->pid,
                l->tid, l->clock == STINT_CLOCK_DEVICE ? "device" : "host");
        put_name_sort_index(f, m, l->name, l->has_sort_index, l->sort_index);
    }
    fputs("],\n\"counters\":[", f);
    put_counters_json(f, m, flt);
    fputs("],\n\"metadata\":[", f);
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        fputs(i ? ",{\"key\":" : "{\"key\":", f);
        stint_out_json_model_str(f, m, a->key);
        fprintf(f, ",\"type\":\"%s\",\"value\":", arg_kind_name(a->kind));
        put_arg_value(f, m, a);
        putc('}', f);
    }
    fputs("],\n", f);
    stint_model_put_kinds_json(f, m);
    fprintf(f, ",\n\"dropped\":%" PRIu64 ",\n\"partial\":%s}\n", m->dropped, m->partial ? "true" : "false");
}

int stint_cmd_slices(int argc, char **argv)
{
    struct stint_cmd_opts o;
    struct stint_model m;
    int csv_raw = 0;
    const struct stint_cmd_extra ex[] = {{"--csv-raw", NULL, NULL, &csv_raw, 1}};
    if (stint_cmd_take_extras("slices", &argc, argv, ex, 1) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    int rc = stint_cmd_parse(argc, argv, usage, &o);
    if (rc < 0 && csv_raw && o.json) {
        fprintf(stderr, "stint slices: --json and --csv-raw exclude each other\n");
        return STINT_EXIT_USAGE;
    }
    if (rc >= 0 || !stint_cmd_load_report(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES, &rc))
        return rc;
    size_t n = stint_model_nslices(&m);
    uint32_t *order = stint_xreallocarray(NULL, n ? n : 1, sizeof *order);
    uint32_t *row = stint_xreallocarray(NULL, n ? n : 1, sizeof *row);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        row[i] = STINT_NO_ID;
        if (stint_filter_slice(&o.filter, &m, stint_model_slice(&m, i)))
            order[kept++] = (uint32_t)i;
    }
    stint_xqsort_r(order, kept, sizeof *order, order_cmp, &m);
    for (size_t r = 0; r < kept; r++)
        row[order[r]] = (uint32_t)r;
    FILE *f = stdout;
    static char obuf[1 << 20];
    setvbuf(f, obuf, _IOFBF, sizeof obuf);
    int json = o.json, csv = csv_raw ? 2 : o.csv; /* (put_field: 1 neutralised, 2 raw) */
    char sep = csv ? ',' : '\t';
    if (json)
        fputs("{\"schema\":\"stint.slices/1\",\n\"slices\":[", f);
    else
        fprintf(f, "row%cts_ns%cdur_ns%cpid%ctid%ctrack%ccat%cname%cdepth%cparent%cargs\n", sep, sep, sep, sep, sep,
                sep, sep, sep, sep, sep);
    for (size_t r = 0; r < kept; r++) {
        const struct stint_slice *s = stint_model_slice(&m, order[r]);
        const struct stint_track *t = stint_model_track_at(&m, s->track);
        const struct stint_lane *l = t->kind == STINT_TRACK_THREAD ? stint_model_lane_at(&m, t->lane) : NULL;
        uint32_t parent = s->parent == STINT_NO_ID ? STINT_NO_ID : row[s->parent];
        if (json) {
            fprintf(f, "%s\n{\"row\":%zu,\"ts_ns\":%" PRId64 ",\"dur_ns\":%" PRId64 ",\"pid\":", r ? "," : "", r,
                    s->ts_ns, s->dur_ns);
            if (t->kind == STINT_TRACK_GLOBAL)
                fputs("null", f);
            else
                fprintf(f, "%" PRId64, stint_model_slice_pid(&m, s));
            if (l)
                fprintf(f, ",\"tid\":%" PRId64, l->tid);
            else
                fputs(",\"tid\":null", f);
            fprintf(f, ",\"track\":\"%s\"", stint_track_kind_name((enum stint_track_kind)t->kind));
            if (t->kind == STINT_TRACK_ASYNC) {
                fprintf(f, ",\"async_scope\":\"%s\",\"track_name\":",
                        t->scope == STINT_ASYNC_GLOBAL ? "global" : "process");
                stint_out_json_model_str(f, &m, t->name);
            }
            if (l && l->clock == STINT_CLOCK_DEVICE)
                fputs(",\"clock\":\"device\"", f);
            fputs(",\"cat\":", f);
            stint_out_json_model_str(f, &m, s->cat);
            fputs(",\"name\":", f);
            stint_out_json_model_str(f, &m, s->name);
            fprintf(f, ",\"depth\":%u,\"parent\":", s->depth);
            if (parent == STINT_NO_ID)
                fputs("null", f);
            else
                fprintf(f, "%u", parent);
            fprintf(f, ",\"kind\":\"%s\"",
                    s->flags & STINT_SLICE_INSTANT ? "instant"
                    : s->flags & STINT_SLICE_THREAD_STATE ? "thread_state"
                    : s->flags & STINT_SLICE_COMPLETE ? "complete"
                    : s->flags & STINT_SLICE_ASYNC ? "async"
                                                    : "begin_end");
            int64_t tts, tdur;
            stint_model_slice_tt(&m, s, &tts, &tdur);
            if (tts != STINT_TS_NONE)
                fprintf(f, ",\"tts_ns\":%" PRId64, tts);
            if (tdur != STINT_TS_NONE)
                fprintf(f, ",\"tdur_ns\":%" PRId64, tdur);
            if (s->flags & STINT_SLICE_OVERLAP)
                fputs(",\"overlap\":true", f);
            fputs(",\"args\":", f);
            put_args_json(f, &m, s);
            putc('}', f);
        } else {
            fprintf(f, "%zu%c%" PRId64 "%c%" PRId64 "%c", r, sep, s->ts_ns, sep, s->dur_ns, sep);
            if (t->kind != STINT_TRACK_GLOBAL)
                fprintf(f, "%" PRId64, stint_model_slice_pid(&m, s));
            putc(sep, f);
            if (l)
                fprintf(f, "%" PRId64, l->tid);
            fprintf(f, "%c%s%c", sep, stint_track_kind_name((enum stint_track_kind)t->kind), sep);
            put_field(f, &m, s->cat, csv);
            putc(sep, f);
            put_field(f, &m, s->name, csv);
            fprintf(f, "%c%u%c", sep, s->depth, sep);
            if (parent != STINT_NO_ID)
                fprintf(f, "%u", parent);
            putc(sep, f);
            if (s->nargs) {
                /* args as one compact JSON object text: CSV-quoted in CSV; in TSV
                 * kept JSON, with no raw control byte (see put_tsv_json) */
                char *buf = NULL;
                size_t blen = 0;
                FILE *mf = open_memstream(&buf, &blen);
                if (mf) {
                    put_args_object(mf, &m, s);
                    fclose(mf);
                    if (csv)
                        stint_out_csv_raw(f, buf, blen); /* (a JSON object: starts with '{') */
                    else
                        put_tsv_json(f, buf, blen);
                    free(buf);
                }
            }
            putc('\n', f);
        }
    }
    if (json)
        put_tables_json(f, &m, row, &o.filter);
    if (stint_cmd_close_out("slices", f, "stdout") != 0)
        rc = STINT_EXIT_IO;
    free(order);
    free(row);
    stint_model_free(&m);
    return rc;
}
