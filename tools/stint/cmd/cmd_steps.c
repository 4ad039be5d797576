/* SPDX-License-Identifier: MIT */
/*
 * cmd_steps.c - `stint steps FILE --step NAME`: where each step's wall time went.
 *
 * A step is a finished span on a thread track whose name matches NAME (a
 * shell glob). For each step: its wall time; for each direct child name, the
 * union of that name's intervals inside the step (clipped to the step); the
 * overlap between children (time covered by two or more of them); and the
 * unattributed remainder, wall minus the union of all children. Because the
 * remainder subtracts a union of clipped intervals it is never negative, and
 * no figure adds a step to its children. Then min/median/max of every
 * column over the steps of each clock (host and device times are never mixed).
 *
 * Memory: on Chrome JSON with --step, the lean model and per step its
 * figures (steps_stream.h); else the whole model (see stint_cmd_steps).
 *
 * Output stays linear in the input: the text table shows at most --columns
 * child names (the rest make one "other" column, their union in the step),
 * and the JSON lists per step only the children that occur in it. Nothing
 * here allocates steps x names.
 */
#include "analyze/analysis.h"
#include "analyze/steps_stream.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "read/readers.h"
#include "write/textout.h"
#include "base/xalloc.h"
#include "base/term.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint steps FILE --step NAME [--columns N] [--json] [--strict] [--format chrome|jsonl|markers]"
    " [filters]\n"
    "  per step (spans named NAME, a glob matched in any case: 'ProfilerStep#*'): wall, the\n"
    "  union of each direct child name inside the step, the overlap between children (covered\n"
    "  by two or more), and the unattributed remainder (wall minus the union of all children);\n"
    "  then min/median/max over the steps of each clock. Without --step, a JSONL session's\n"
    "  measured span is the step, else a family of names like ProfilerStep#N. Steps are per\n"
    "  lane kind: same-named spans on GPU streams are left out when CPU threads have steps.\n"
    "  --columns N  the table's child columns: the N names with the most time (default 8,\n"
    "               0 = all); one 'other' column holds the union of the rest in each step\n";

#define DEFAULT_COLUMNS 8

static void put_json_stats(FILE *f, struct stint_step_stats st)
{
    char mb[64];
    fprintf(f, "{\"min_ns\":%" PRId64 ",\"median_ns\":%s,\"max_ns\":%" PRId64 "}", st.min_ns,
            stint_an_fmt_ratio(mb, st.median, 0, 1), st.max_ns);
}

/* The JSON document (stint.steps/2). */
static void put_json(FILE *f, const struct stint_model *m, const struct stint_steps_sparse *s, const char *step_glob,
                    const char *scope)
{
    struct stint_steps_stats st; /* every child is shown: --json takes no --columns */
    if (stint_steps_stats_compute(&st, s) != 0)
        stint_die_nomem();
    fprintf(f, "{\"schema\":\"stint.steps/2\",\"step\":");
    if (step_glob)
        stint_out_json_str(f, step_glob, strlen(step_glob));
    else
        fputs("\"(measured span)\"", f);
    fprintf(f, ",\"scope\":");
    stint_out_json_str(f, scope, strlen(scope));
    fprintf(f,
            ",\"steps_count\":%zu,\"unfinished_steps\":%" PRIu64 ",\"left_out_on_gpu_streams\":%" PRIu64
            ",\"partial\":%s,\n\"children\":[",
            s->nsteps, s->unfinished, s->on_streams, m->partial ? "true" : "false");
    for (size_t c = 0; c < s->nchildren; c++) {
        size_t l;
        const char *nm = stint_model_str(m, s->children[c], &l);
        if (c)
            putc(',', f);
        stint_out_json_str(f, nm, l);
    }
    fputs("],\n\"steps\":[", f);
    for (size_t k = 0; k < s->nsteps; k++) {
        const struct stint_step_row *row = &s->rows[k];
        const struct stint_lane *l = stint_model_lane_at(m, row->lane);
        fprintf(f,
                "%s\n{\"index\":%zu,\"ts_ns\":%" PRId64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                ",\"clock\":\"%s\",\"wall_ns\":%" PRId64 ",\"children_union_ns\":{",
                k ? "," : "", k, row->ts_ns, l->pid, l->tid, k >= s->nhost ? "device" : "host", row->wall_ns);
        for (size_t j = row->cell0; j < row->cell0 + row->ncells; j++) {
            if (j > row->cell0)
                putc(',', f);
            stint_out_json_model_str(f, m, s->children[s->cells[j].child]);
            fprintf(f, ":%" PRId64, s->cells[j].union_ns);
        }
        fprintf(f, "},\"overlap_ns\":%" PRId64 ",\"unattributed_ns\":%" PRId64 "}", row->overlap_ns,
                row->unattributed_ns);
    }
    fputs("],\n\"over_steps\":{", f);
    for (int dev = 0; dev < 2; dev++) {
        size_t k0 = dev ? s->nhost : 0, k1 = dev ? s->nsteps : s->nhost;
        if (k1 == k0)
            continue;
        fprintf(f, "%s\"%s\":{\"steps_count\":%zu,\"wall\":", dev && s->nhost ? ",\n" : "", dev ? "device" : "host",
                k1 - k0);
        put_json_stats(f, st.fig[dev][STINT_STEP_WALL]);
        fputs(",\"children\":{", f);
        int first = 1;
        for (size_t r = 0; r < s->nshown; r++) {
            if (!st.child[dev][r].noccur) /* the name occurs in no step of this clock */
                continue;
            if (!first)
                putc(',', f);
            first = 0;
            stint_out_json_model_str(f, m, s->children[r]);
            putc(':', f);
            put_json_stats(f, st.child[dev][r]);
        }
        fputs("},\"overlap\":", f);
        put_json_stats(f, st.fig[dev][STINT_STEP_OVERLAP]);
        fputs(",\"unattributed\":", f);
        put_json_stats(f, st.fig[dev][STINT_STEP_UNATTRIBUTED]);
        putc('}', f);
    }
    fputs("}}\n", f);
    stint_steps_stats_free(&st);
}

/* The widest a child's column gets: a longer name is cut in the middle. */
#define HEAD_COLS 40

/* One text column after ts_us: a step figure, or a shown child (rank). */
struct text_col {
    int is_child;
    enum stint_step_fig fig;
    size_t rank;
    int width;
};

/* Appends " " and text v (n bytes) right-aligned in width columns to line at
 * at (as fprintf's " %*s"); returns the new end. */
static size_t put_cell(char *line, size_t at, size_t width, const char *v, size_t n)
{
    line[at++] = ' ';
    if (n < width) {
        memset(line + at, ' ', width - n);
        at += width - n;
    }
    memcpy(line + at, v, n);
    return at + n;
}

/* The text table. */
static void put_text(FILE *f, const struct stint_model *m, const struct stint_steps_sparse *s, const char *step_glob,
                    const char *scope)
{
    size_t nshown = s->nshown, nother = s->nchildren - nshown;
    size_t ncol = nshown + 3 + (nother > 0);
    struct text_col *cols = stint_xcalloc(ncol, sizeof *cols);
    int64_t *row_v = stint_xcalloc(nshown ? nshown : 1, sizeof *row_v); /* one step's shown unions */
    struct stint_steps_stats st;
    if (stint_steps_stats_compute(&st, s) != 0)
        stint_die_nomem();
    char other_hdr[64];
    snprintf(other_hdr, sizeof other_hdr, "other (%zu name%s)", nother, nother == 1 ? "" : "s");
    size_t nc = 0;
    cols[nc++] = (struct text_col){0, STINT_STEP_WALL, 0, 12};
    /* a child's column is as wide as its name, 14 at least, HEAD_COLS at most: a longer name
     * is cut in the middle unless the cut would make it look like another's (textout.h) */
    struct stint_out_col heads;
    stint_out_col_init(&heads, nshown, HEAD_COLS, 0);
    for (size_t r = 0; r < nshown; r++) {
        size_t sl;
        const char *nm = stint_model_str(m, s->children[r], &sl);
        stint_out_col_set(&heads, r, nm, sl, NULL);
    }
    stint_out_col_plan(&heads, 0);
    for (size_t r = 0; r < nshown; r++) {
        size_t w = stint_out_text_width(heads.s[r], heads.len[r]), cut = stint_out_col_width(&heads, r);
        w = w < cut ? w : cut;
        cols[nc++] = (struct text_col){1, STINT_STEP_WALL, r, w > 14 ? (int)w : 14};
    }
    if (nother) {
        size_t w = strlen(other_hdr);
        cols[nc++] = (struct text_col){0, STINT_STEP_OTHER, 0, w > 14 ? (int)w : 14};
    }
    cols[nc++] = (struct text_col){0, STINT_STEP_OVERLAP, 0, 12};
    cols[nc++] = (struct text_col){0, STINT_STEP_UNATTRIBUTED, 0, 12};
    size_t on_dev = s->nsteps - s->nhost;

    fprintf(f, "# %zu steps named '", s->nsteps);
    if (step_glob)
        stint_out_text_str(f, step_glob, strlen(step_glob));
    else
        fputs("(measured)", f);
    fprintf(f, "' (%zu on host-clock lanes, %zu on device-clock lanes)%s; times in us\n# %s\n", s->nhost, on_dev,
            m->partial ? " - PARTIAL input" : "", scope);
    if (s->unfinished)
        fprintf(f, "# %" PRIu64 " unfinished steps left out\n", s->unfinished);
    if (s->on_streams)
        fprintf(f,
                "# %" PRIu64 " span%s of the same name%s on GPU streams left out: the CPU threads' spans are the "
                "steps (steps are per lane kind)\n",
                s->on_streams, s->on_streams == 1 ? "" : "s", s->on_streams == 1 ? "" : "s");
    if (nother)
        fprintf(f,
                "# child columns: the %zu names with the most time over all steps (ties by name); %s is the union,"
                " not the sum, of the other names' intervals clipped to the step (--columns N: N names, 0: all)\n",
                nshown, other_hdr);
    if (on_dev)
        fprintf(f, "# device-clock steps (index marked d) come after the host ones: their ts_us is an offset on "
                   "the device clock; %s\n",
                s->nhost ? "min/median/max are per clock (rows marked d: over the device-clock steps)"
                         : "min/median/max are over the device-clock steps");
    fprintf(f, "%6s %14s", "step", "ts_us");
    for (size_t c = 0; c < ncol; c++) {
        if (cols[c].is_child) {
            /* a child name as a column header: escaped (one header line), cut as planned,
             * right-aligned to its column's width by display width */
            size_t r = cols[c].rank;
            putc(' ', f);
            stint_term_cell(f, heads.s[r], heads.len[r], (size_t)cols[c].width, STINT_TERM_PAD | STINT_TERM_RIGHT);
        } else {
            static const char *const hdr[] = {"wall", NULL, "overlap", "unattributed"};
            fprintf(f, " %*s", cols[c].width, cols[c].fig == STINT_STEP_OTHER ? other_hdr : hdr[cols[c].fig]);
        }
    }
    putc('\n', f);
    char b[64];
    /* a step's row, made in one buffer (a column is at most HEAD_COLS or the other
     * header wide, a value at most 22 bytes) and written at once: as many rows as steps */
    size_t lcap = 32 + 22;
    for (size_t c = 0; c < ncol; c++)
        lcap += 1 + ((size_t)cols[c].width > 22 ? (size_t)cols[c].width : 22);
    char *line = stint_xmalloc(lcap);
    for (size_t k = 0; k < s->nsteps; k++) {
        const struct stint_step_row *row = &s->rows[k];
        size_t at = (size_t)snprintf(line, 32, k >= s->nhost ? "%5zud" : "%6zu", k);
        at = put_cell(line, at, 14, b, stint_an_us_len(b, row->ts_ns));
        /* cells are in rank order: the shown ones come first */
        for (size_t j = row->cell0; j < row->cell0 + row->ncells && s->cells[j].child < nshown; j++)
            row_v[s->cells[j].child] = s->cells[j].union_ns;
        for (size_t c = 0; c < ncol; c++) {
            int64_t v = cols[c].is_child ? row_v[cols[c].rank] : stint_step_row_fig(row, cols[c].fig);
            at = put_cell(line, at, (size_t)cols[c].width, b, stint_an_us_len(b, v));
        }
        for (size_t j = row->cell0; j < row->cell0 + row->ncells && s->cells[j].child < nshown; j++)
            row_v[s->cells[j].child] = 0;
        line[at++] = '\n';
        fwrite(line, 1, at, f);
    }
    free(line);
    static const char *const lbl[3] = {"min", "median", "max"};
    for (size_t dev = 0; dev < 2; dev++) {
        if (dev ? !on_dev : !s->nhost)
            continue;
        for (int q = 0; q < 3; q++) {
            if (dev && s->nhost) /* both clocks: the device rows are marked d, as their steps */
                fprintf(f, "%6s d%13s", lbl[q], "");
            else
                fprintf(f, "%6s %14s", lbl[q], "");
            for (size_t c = 0; c < ncol; c++) {
                const struct stint_step_stats *x =
                    cols[c].is_child ? &st.child[dev][cols[c].rank] : &st.fig[dev][cols[c].fig];
                const char *v = q == 0   ? stint_an_us(b, x->min_ns)
                                : q == 1 ? stint_an_fmt_ratio(b, x->median, 3, 3)
                                         : stint_an_us(b, x->max_ns);
                fprintf(f, " %*s", cols[c].width, v);
            }
            putc('\n', f);
        }
    }
    stint_steps_stats_free(&st);
    free(cols);
    stint_out_col_free(&heads);
    free(row_v);
}

/* --step NAME on Chrome JSON or a marker log: the steps from the spans a
 * lean model streams, without keeping them (steps_stream.h; a marker log's
 * slices, the groups that do not nest as their depths say, from the model
 * at the finish, and its lean records' input order from the reader); when
 * those cannot tell the steps' order or parents, from the whole model read
 * again. Returns 1 with m read and *sr filled, *rc the read's exit code; -1
 * when no report follows (*rc says why, m freed). */
static int load_lean(struct stint_cmd_opts *o, struct stint_model *m, const char *step_glob, size_t max_shown,
                     struct stint_steps_sparse *sr, int *rc, int markers)
{
    struct stint_steps_stream *st = stint_steps_stream_new(step_glob, &o->filter, max_shown != SIZE_MAX);
    if (markers) {
        stint_steps_stream_defer_slices(st);
        o->lean_seq_fn = stint_steps_stream_seq;
        o->lean_seq_ctx = st;
    }
    *rc = stint_cmd_load_sink(o, m, STINT_MODEL_LEAN, stint_steps_stream_span, st, NULL);
    o->lean_seq_fn = NULL;
    o->lean_seq_ctx = NULL;
    if (stint_no_report(*rc, m)) {
        stint_steps_stream_free(st);
        stint_model_free(m);
        return -1;
    }
    int fr = stint_steps_stream_finish(st, m, max_shown, sr);
    stint_steps_stream_free(st);
    if (fr < 0)
        stint_die_nomem();
    if (fr == 0)
        return 1;
    if (getenv("STINT_DEBUG_LEAN")) /* for tests: the stream could not tell */
        fprintf(stderr, "stint: steps: the whole model read again\n");
    stint_model_free(m);
    /* the first read said what it found: the same read again says nothing, with the same exit code */
    struct stint_read_opts ro = {.format = o->format, .strict = o->strict, .allow = o->allow, .quiet = 1};
    if (stint_model_init(m, 0) != 0)
        stint_die_nomem();
    *rc = stint_read_trace(o->path, m, &ro);
    if (stint_no_report(*rc, m)) {
        stint_model_free(m);
        return -1;
    }
    if (stint_steps_sparse_compute(sr, m, step_glob, &o->filter, max_shown) != 0)
        stint_die_nomem();
    return 1;
}

int stint_cmd_steps(int argc, char **argv)
{
    const char *step_glob = NULL, *columns = NULL;
    const struct stint_cmd_extra ex[] = {{"--step", NULL, &step_glob, NULL, 0},
                                         {"--columns", NULL, &columns, NULL, 0}};
    if (stint_cmd_take_extras("steps", &argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse_nocsv(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    size_t max_shown = DEFAULT_COLUMNS;
    if (columns && stint_cmd_parse_columns(columns, &max_shown) != 0) {
        fprintf(stderr, "stint steps: --columns: '%s': expected a whole number of child columns (0 = all)\n",
                columns);
        return STINT_EXIT_USAGE;
    }
    if (columns && o.json) {
        fprintf(stderr, "stint steps: --columns does not apply here: --json lists each step's children, all of "
                        "them\n");
        return STINT_EXIT_USAGE;
    }
    struct stint_model m;
    /* args are only needed to find the measured span when no --step is given */
    /* (a marker log's attrs are strings, never the measured flag: not kept) */
    const char *fmt = o.format ? o.format : strcmp(o.path, "-") ? stint_detect_format(o.path) : NULL;
    int markers = fmt && (!strcmp(fmt, "markers") || !strcmp(fmt, "capture"));
    struct stint_steps_sparse sr;
    /* --step NAME on Chrome JSON and marker logs: from the spans a lean model streams, without
     * keeping them (steps_stream.h); JSONL (explicit parents, the measured span), captures,
     * stdin, no --step (the family guess reads every slice) and STINT_STEPS_FULL=1 take the
     * whole model */
    int lean = step_glob && fmt && (!strcmp(fmt, "chrome") || !strcmp(fmt, "markers")) && !getenv("STINT_STEPS_FULL");
    if (lean) {
        if (load_lean(&o, &m, step_glob, o.json ? SIZE_MAX : max_shown, &sr, &rc, !strcmp(fmt, "markers")) < 0)
            return rc;
    }
    if (!lean) {
        if (!stint_cmd_load_report(&o, &m, step_glob || markers ? 0 : STINT_MODEL_KEEP_ARGS, &rc))
            return rc;
        if (stint_steps_sparse_compute(&sr, &m, step_glob, &o.filter, o.json ? SIZE_MAX : max_shown) != 0)
            stint_die_nomem();
    }
    char guess[256];
    if (!step_glob && sr.nsteps == 0 && stint_steps_guess(&m, guess, sizeof guess)) {
        stint_steps_sparse_free(&sr);
        step_glob = guess; /* (the family's glob, shown as the step name) */
        if (stint_steps_sparse_compute(&sr, &m, step_glob, &o.filter, o.json ? SIZE_MAX : max_shown) != 0)
            stint_die_nomem();
    }
    if (sr.nsteps == 0 && !sr.unfinished) /* (filters that select no step: say why) */
        stint_cmd_explain_empty("steps", &o, lean ? NULL : &m);
    if (!step_glob && sr.nsteps == 0) {
        fprintf(stderr, "stint steps: no --step NAME given, and the input has no measured span nor a step family like "
                        "ProfilerStep#N\n");
        fputs(usage, stderr);
        rc = STINT_EXIT_USAGE;
        goto out;
    }
    const char *scope = "host or device clock of each step's lane; child figures are unions of that child name's "
                        "intervals clipped to the step; overlap = time covered by two or more children; "
                        "unattributed = wall minus the union of all children (never a sum of nested durations)";
    if (o.json)
        put_json(stdout, &m, &sr, step_glob, scope);
    else
        put_text(stdout, &m, &sr, step_glob, scope);
    if (stint_cmd_close_out("steps", stdout, "stdout") != 0)
        rc = STINT_EXIT_IO;
out:
    stint_steps_sparse_free(&sr);
    stint_model_free(&m);
    return rc;
}
