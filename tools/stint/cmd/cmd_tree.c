/* SPDX-License-Identifier: MIT */
/*
 * cmd_tree.c - `stint tree FILE`: the aggregated call tree by path.
 *
 * One row per distinct call path (names from the root down), over finished
 * spans on thread tracks: calls, total, self, mean, p50, p90, max. Host-clock
 * and device-clock lanes get separate trees (their clocks are not
 * comparable). Totals add the durations of the calls at one path; a path's
 * spans can never contain each other, so nothing is counted twice within a
 * row, and a parent's total already contains its children's (never add rows).
 * Self is duration minus the union of direct children, so it is never
 * negative. --flat gives one row per name instead, where total counts only
 * outermost calls (a recursive call inside a same-name call is not added
 * again). Instants are no rows (analysis.h: they make no path node). The
 * mean is exact (integer ns, 128-bit sum) up to the printed decimal, p50 and
 * p90 are nearest-rank durations as in `stint summary`, so none exceeds max. Names
 * in the text rows have their control bytes escaped (textout.h).
 *
 * Output stays linear in the tree: a text row shows its place by indentation
 * (two blanks a level, at most INDENT_LEVELS levels; a deeper row says its
 * depth), never by its whole path, and --json nests the children (the path
 * is the nesting). The default depth is DEFAULT_DEPTH, with a note saying
 * how many deeper nodes were left out; an output estimated past the limit
 * (1 GiB, or STINT_TREE_LIMIT_BYTES) is refused unless --force.
 * --merge-numbered takes names that differ only by a trailing number as one
 * (ProfilerStep#N: calltree_merge.c).
 */
#include "analyze/analysis.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "write/textout.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint tree FILE [--depth N] [--sort total|self|calls] [--flat] [--json] [--strict]\n"
    "                  [--format chrome|jsonl|markers] [filters]\n"
    "  the aggregated call tree by path: calls, total (sum of call durations at the path),\n"
    "  self (duration minus the union of direct children), mean, p50, p90, max (us)\n"
    "  --flat  one row per name; total counts outermost calls only (recursion once)\n"
    "  --depth N  levels shown (default 64, 0 = all; a note says how many nodes were left out)\n"
    "  --merge-numbered  names that differ only by a trailing number are one (ProfilerStep#N)\n"
    "  --force  write an output estimated past 1 GiB (else refused: narrow it with --depth or filters)\n";

#define DEFAULT_DEPTH 64
#define INDENT_LEVELS 32
#define LIMIT_BYTES ((uint64_t)1 << 30)

struct tree_opts {
    int depth; /* 0: every level */
    int flat;
    int merge, force;
    enum stint_tree_sort sort;
};

/* Takes the tree's own options out of argv (into *o); the rest goes to
 * stint_cmd_parse. Returns -1 to go on, else an exit code. */
static int take_opts(int *argc, char **argv, struct tree_opts *o)
{
    const char *depth = NULL, *sort = NULL;
    const struct stint_cmd_extra ex[] = {{"--depth", NULL, &depth, NULL, 0},
                                         {"--sort", NULL, &sort, NULL, 0},
                                         {"--flat", NULL, NULL, &o->flat, 1},
                                         {"--merge-numbered", NULL, NULL, &o->merge, 1},
                                         {"--force", NULL, NULL, &o->force, 1}};
    if (stint_cmd_take_extras("tree", argc, argv, ex, sizeof ex / sizeof ex[0]) == STINT_EXIT_USAGE)
        return STINT_EXIT_USAGE;
    if (depth) {
        char *end;
        long d = strtol(depth, &end, 10);
        if (*end || end == depth || d < 0 || d > 100000) {
            fprintf(stderr, "stint tree: --depth: '%s' is not a depth >= 1 (0: every level)\n", depth);
            return STINT_EXIT_USAGE;
        }
        o->depth = (int)d;
    }
    if (sort) {
        if (!strcmp(sort, "total"))
            o->sort = STINT_TREE_SORT_TOTAL;
        else if (!strcmp(sort, "self"))
            o->sort = STINT_TREE_SORT_SELF;
        else if (!strcmp(sort, "calls"))
            o->sort = STINT_TREE_SORT_CALLS;
        else {
            fprintf(stderr, "stint tree: --sort: '%s' (expected total, self or calls)\n", sort);
            return STINT_EXIT_USAGE;
        }
    }
    return -1;
}

/* The name id as shown: with merge, a numbered name as its family, its stem
 * and "N" (*n_suffix 1). */
static const char *shown_name(const struct stint_model *m, uint32_t name, int merge, size_t *len, int *n_suffix)
{
    const char *s = stint_model_str(m, name, len);
    size_t stem = merge ? stint_name_number_stem(s, *len) : *len;
    *n_suffix = stem != *len;
    *len = stem;
    return s;
}

/* The name as a JSON string (with merge: a family as "stemN"). */
static void put_name_json(FILE *f, const struct stint_model *m, uint32_t name, int merge)
{
    size_t l;
    int nsuf;
    const char *s = shown_name(m, name, merge, &l, &nsuf);
    if (!nsuf) {
        stint_out_json_str(f, s, l);
        return;
    }
    char *t = stint_xmalloc(l + 2);
    memcpy(t, s, l);
    t[l] = 'N';
    stint_out_json_str(f, t, l + 1);
    free(t);
}

/* The name as text, control bytes escaped (with merge: a family as "stemN"). */
static void put_name_text(FILE *f, const struct stint_model *m, uint32_t name, int merge)
{
    size_t l;
    int nsuf;
    const char *s = shown_name(m, name, merge, &l, &nsuf);
    stint_out_text_str(f, s, l);
    if (nsuf)
        putc('N', f);
}

static void put_row_json(FILE *f, const struct stint_model *m, const struct stint_tnode *nd, int merge)
{
    fputs("\"name\":", f);
    put_name_json(f, m, nd->name, merge);
    fprintf(f, ",\"calls\":%" PRIu64 ",\"total_ns\":%" PRId64 ",\"self_ns\":%" PRId64, nd->calls, nd->total_ns,
            nd->self_ns);
    char b[3][64];
    if (nd->calls)
        fprintf(f, ",\"mean_ns\":%s,\"p50_ns\":%s,\"p90_ns\":%s,\"max_ns\":%" PRId64,
                stint_an_fmt_ratio(b[0], stint_an_mean_exact(nd->durs, nd->ndurs), 0, 1),
                stint_an_fmt_ratio(b[1], stint_an_quantile_rank(nd->durs, nd->ndurs, 50), 0, 1),
                stint_an_fmt_ratio(b[2], stint_an_quantile_rank(nd->durs, nd->ndurs, 90), 0, 1), nd->max_ns);
    else
        fputs(",\"mean_ns\":null,\"p50_ns\":null,\"p90_ns\":null,\"max_ns\":null", f);
}

static void put_row_text(FILE *f, const struct stint_model *m, const struct stint_tnode *nd, unsigned indent,
                         int merge)
{
    char b[6][64];
    if (nd->calls)
        fprintf(f, "%8" PRIu64 " %14s %14s %12s %12s %12s %12s  ", nd->calls, stint_an_us(b[0], nd->total_ns),
                stint_an_us(b[1], nd->self_ns),
                stint_an_fmt_ratio(b[2], stint_an_mean_exact(nd->durs, nd->ndurs), 3, 3),
                stint_an_fmt_ratio(b[3], stint_an_quantile_rank(nd->durs, nd->ndurs, 50), 3, 3),
                stint_an_fmt_ratio(b[4], stint_an_quantile_rank(nd->durs, nd->ndurs, 90), 3, 3),
                stint_an_us(b[5], nd->max_ns));
    else
        fprintf(f, "%8d %14s %14s %12s %12s %12s %12s  ", 0, "-", "-", "-", "-", "-", "-");
    for (unsigned k = 0; k < indent && k < INDENT_LEVELS; k++) /* (bounded: the output stays linear) */
        fputs("  ", f);
    if (indent > INDENT_LEVELS)
        fprintf(f, "[depth %u] ", indent + 1);
    put_name_text(f, m, nd->name, merge); /* control bytes escaped: one row per line */
    putc('\n', f);
}

static void put_header(FILE *f)
{
    fprintf(f, "%8s %14s %14s %12s %12s %12s %12s  %s\n", "calls", "total_us", "self_us", "mean_us", "p50_us",
            "p90_us", "max_us", "path");
}

/* Depth-first walk (iterative: call paths can be deep). */
static void walk(FILE *f, const struct stint_model *m, const struct stint_calltree *t, uint32_t root, int max_depth,
                 int json, int merge)
{
    uint32_t *stack = stint_xreallocarray(NULL, t->n + 1, sizeof *stack);
    size_t sp = 0;
    uint32_t c = t->nodes[root].first_child;
    unsigned open_depth = 0; /* json: objects currently open below root */
    while (c != STINT_NO_ID || sp) {
        if (c == STINT_NO_ID) {
            c = stack[--sp];
            if (json) {
                fputs("]}", f);
                open_depth--;
            }
            c = t->nodes[c].next_sibling;
            if (json && c != STINT_NO_ID)
                putc(',', f);
            continue;
        }
        const struct stint_tnode *nd = &t->nodes[c];
        unsigned depth = nd->depth;
        if (json) {
            fputs("\n{", f);
            put_row_json(f, m, nd, merge);
            fprintf(f, ",\"depth\":%u,\"children\":[", depth);
            open_depth++;
        } else
            put_row_text(f, m, nd, depth - 1, merge);
        if (nd->first_child != STINT_NO_ID && (max_depth == 0 || (int)depth < max_depth)) {
            stack[sp++] = c;
            c = nd->first_child;
        } else {
            if (json) {
                fputs("]}", f);
                open_depth--;
            }
            c = nd->next_sibling;
            if (json && c != STINT_NO_ID)
                putc(',', f);
        }
    }
    (void)open_depth;
    free(stack);
}

/* The --sort key of a --flat row. */
static int64_t flat_key(const struct stint_flat_row *r, enum stint_tree_sort sort)
{
    return sort == STINT_TREE_SORT_SELF ? r->self_ns : sort == STINT_TREE_SORT_CALLS ? (int64_t)r->calls : r->total_ns;
}

/* ctx: the --sort key (enum stint_tree_sort *). */
static int flat_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct stint_flat_row *a = pa, *b = pb;
    enum stint_tree_sort sort = *(const enum stint_tree_sort *)ctx;
    int64_t ka = flat_key(a, sort), kb = flat_key(b, sort);
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (a->name != b->name)
        return (a->name > b->name) - (a->name < b->name);
    return a->device - b->device;
}

/* --flat: per name and clock over the aggregated spans; total counts a span only when
 * no aggregated ancestor has the same name. */
static void print_flat(FILE *f, const struct stint_model *m, const struct stint_calltree *t, const struct tree_opts *o,
                      int json)
{
    size_t k;
    struct stint_flat_row *rows = stint_xcheck(stint_calltree_flat(t, m, &k));
    if (o->merge)
        rows = stint_flat_merge_numbered(rows, &k, m);
    enum stint_tree_sort sort = o->sort;
    stint_xqsort_r(rows, k, sizeof *rows, flat_cmp, &sort);
    char b[4][32];
    if (!json)
        fprintf(f, "%8s %8s %14s %14s %12s  %s\n", "calls", "outer", "total_us", "self_us", "max_us", "name");
    for (size_t i = 0; i < k; i++) {
        const struct stint_flat_row *r = &rows[i];
        if (json) {
            fprintf(f, "%s\n{\"name\":", i ? "," : "");
            put_name_json(f, m, r->name, o->merge);
            fprintf(f,
                    ",\"clock\":\"%s\",\"calls\":%" PRIu64 ",\"outermost_calls\":%" PRIu64 ",\"total_ns\":%" PRId64
                    ",\"self_ns\":%" PRId64 ",\"max_ns\":%" PRId64 "}",
                    r->device ? "device" : "host", r->calls, r->outer_calls, r->total_ns, r->self_ns, r->max_ns);
        } else {
            fprintf(f, "%8" PRIu64 " %8" PRIu64 " %14s %14s %12s  ", r->calls, r->outer_calls,
                    stint_an_us(b[0], r->total_ns), stint_an_us(b[1], r->self_ns), stint_an_us(b[2], r->max_ns));
            put_name_text(f, m, r->name, o->merge);
            fputs(r->device ? "  [device clock]\n" : "\n", f);
        }
    }
    (void)b[3];
    free(rows);
}

/* The bytes the rows of t down to max_depth (0: all) would take, about
 * (fixed columns, bounded indentation, the name), and in *deeper the nodes
 * below max_depth that are left out. */
static uint64_t estimate(const struct stint_calltree *t, const struct stint_model *m, int max_depth, int json,
                         uint64_t *deeper)
{
    uint64_t bytes = 0;
    *deeper = 0;
    for (size_t k = 2; k < t->n; k++) {
        const struct stint_tnode *nd = &t->nodes[k];
        if (max_depth && nd->depth > (uint32_t)max_depth) {
            ++*deeper;
            continue;
        }
        size_t l;
        stint_model_str(m, nd->name, &l);
        uint32_t lv = nd->depth - 1;
        bytes += (json ? 200 : 100) + l + (json ? 0 : 2 * (lv < INDENT_LEVELS ? lv : INDENT_LEVELS) + 20);
    }
    return bytes;
}

/* The output limit: STINT_TREE_LIMIT_BYTES when set to a count, else 1 GiB. */
static uint64_t limit_bytes(void)
{
    const char *e = getenv("STINT_TREE_LIMIT_BYTES");
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    return e && *e && !*end && v ? (uint64_t)v : LIMIT_BYTES;
}

int stint_cmd_tree(int argc, char **argv)
{
    struct tree_opts to = {-1, 0, 0, 0, STINT_TREE_SORT_TOTAL};
    int rc = take_opts(&argc, argv, &to);
    if (rc >= 0)
        return rc;
    struct stint_cmd_opts o;
    rc = stint_cmd_parse_nocsv(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    struct stint_model m;
    struct stint_calltree t;
    /* Chrome JSON and marker logs nest by time: the tree is built from the
     * spans a lean model streams, without keeping them (a JSONL session's
     * explicit parents, stdin, and STINT_TREE_FULL=1 take the whole model) */
    const char *fmt = o.format ? o.format : strcmp(o.path, "-") ? stint_detect_format(o.path) : NULL;
    int lean = fmt && strcmp(fmt, "jsonl") && !getenv("STINT_TREE_FULL"), reread = 0;
    /* a marker log's groups that nest as their depths say are lean records, the others
     * slices with explicit parents that the sink places at its finish; a capture's
     * spans are whole slices either way: one read of the whole model */
    lean = lean && strcmp(fmt, "capture");
    if (lean) {
        struct stint_tree_sink *ts = stint_xcheck(stint_tree_sink_new(&t, &o.filter));
        if (!strcmp(fmt, "markers"))
            stint_tree_sink_defer_slices(ts);
        rc = stint_cmd_load_sink(&o, &m, STINT_MODEL_LEAN, stint_tree_sink_span, ts, NULL);
        int fr = stint_tree_sink_finish(ts, &m);
        if (stint_no_report(rc, &m) || fr != 0) {
            stint_calltree_free(&t);
            stint_model_free(&m);
            if (fr < 0)
                stint_die_nomem();
            if (fr == 0)
                return rc;
            lean = 0; /* (a parent off its track: read again, quietly) */
            reread = 1;
        }
    }
    if (!lean && reread) {
        /* the first read said what it found: the same read again says
         * nothing, with the same exit code */
        struct stint_read_opts ro = {.format = o.format, .strict = o.strict, .allow = o.allow, .quiet = 1};
        if (stint_model_init(&m, 0) != 0)
            stint_die_nomem();
        rc = stint_read_trace(o.path, &m, &ro);
        if (stint_no_report(rc, &m)) {
            stint_model_free(&m);
            return rc;
        }
        if (stint_calltree_build(&t, &m, &o.filter) != 0)
            stint_die_nomem();
    } else if (!lean) {
        if (!stint_cmd_load_report(&o, &m, 0, &rc))
            return rc;
        if (stint_calltree_build(&t, &m, &o.filter) != 0)
            stint_die_nomem();
    }
    if (to.merge && !to.flat) {
        struct stint_calltree merged;
        stint_calltree_merge_numbered(&merged, &t, &m);
        stint_calltree_free(&t);
        t = merged;
    }
    stint_calltree_sort(&t, &m, to.sort);
    int default_depth = to.depth < 0;
    if (default_depth)
        to.depth = DEFAULT_DEPTH;
    uint64_t deeper = 0, est = to.flat ? 0 : estimate(&t, &m, to.depth, o.json, &deeper);
    if (est > limit_bytes() && !to.force) {
        fprintf(stderr,
                "stint tree: the output would take about %" PRIu64 " bytes, past the limit of %" PRIu64
                " bytes: narrow it (--depth N, filters) or give --force\n",
                est, limit_bytes());
        stint_calltree_free(&t);
        stint_model_free(&m);
        return STINT_EXIT_USAGE;
    }
    if (!t.spans && !t.instants)
        stint_cmd_explain_empty("tree", &o, lean ? NULL : &m);
    FILE *f = stdout;
    static char obuf[1 << 20];
    setvbuf(f, obuf, _IOFBF, sizeof obuf);
    const char *scope_total = to.flat ? "sum of durations of outermost calls per name (a call nested in a same-name "
                                        "call is not added again); threads and processes add up"
                                      : "sum of call durations at the path; threads and processes add up; a "
                                        "row's total contains its children's, never add rows";
    const char *scope_self = "per call: duration minus the union of its direct children (clipped to the call), "
                             "summed";
    if (o.json) {
        fprintf(f, "{\"schema\":\"stint.tree/1\",\"scope\":{\"spans\":%" PRIu64 ",\"total\":", t.spans);
        stint_out_json_str(f, scope_total, strlen(scope_total));
        fputs(",\"self\":", f);
        stint_out_json_str(f, scope_self, strlen(scope_self));
        fprintf(f,
                ",\"tracks\":\"thread tracks only\",\"instants_excluded\":%" PRIu64
                ",\"unfinished_excluded\":%" PRIu64 ",\"async_excluded\":%" PRIu64 ",\"filtered_out\":%" PRIu64
                ",\"host_lanes\":%" PRIu64 ",\"device_lanes\":%" PRIu64 ",\"partial\":%s",
                t.instants, t.unfinished, t.async, t.filtered_out, t.lanes_host, t.lanes_device,
                m.partial ? "true" : "false");
        if (!to.flat)
            fprintf(f, ",\"depth_shown\":%d,\"nodes_deeper_left_out\":%" PRIu64, to.depth, deeper);
        fprintf(f, ",\"merge_numbered\":%s},\n", to.merge ? "true" : "false");
        if (to.flat) {
            fputs("\"names\":[", f);
            print_flat(f, &m, &t, &to, 1);
            fputs("]}\n", f);
        } else {
            fputs("\"host\":[", f);
            walk(f, &m, &t, 0, to.depth, 1, to.merge);
            fputs("],\n\"device\":[", f);
            walk(f, &m, &t, 1, to.depth, 1, to.merge);
            fputs("]}\n", f);
        }
    } else {
        fprintf(f, "# %" PRIu64 " spans on thread tracks (%" PRIu64 " host lanes, %" PRIu64 " device lanes)%s\n",
                t.spans, t.lanes_host, t.lanes_device, m.partial ? " - PARTIAL input" : "");
        fprintf(f, "# total: %s\n# self: %s\n", scope_total, scope_self);
        if (t.instants || t.unfinished || t.async || t.filtered_out)
            fprintf(f,
                    "# not aggregated: %" PRIu64 " instants, %" PRIu64 " unfinished spans, %" PRIu64
                    " slices off thread tracks (async; process and global instants), %" PRIu64 " filtered out\n",
                    t.instants, t.unfinished, t.async, t.filtered_out);
        if (deeper)
            fprintf(f, "# depth %s %d: %" PRIu64 " deeper path node%s not shown (--depth N shows N levels, 0 all)\n",
                    default_depth ? "capped at the default" : "limited to", to.depth, deeper, deeper == 1 ? "" : "s");
        if (to.merge)
            fputs("# names that differ only by a trailing number are one row (shown with N: ProfilerStep#N)\n", f);
        if (to.flat) {
            print_flat(f, &m, &t, &to, 0);
        } else {
            if (t.nodes[0].first_child != STINT_NO_ID) {
                fprintf(f, "## host clock\n");
                put_header(f);
                walk(f, &m, &t, 0, to.depth, 0, to.merge);
            }
            if (t.nodes[1].first_child != STINT_NO_ID) {
                fprintf(f, "## device clock (not comparable with host time)\n");
                put_header(f);
                walk(f, &m, &t, 1, to.depth, 0, to.merge);
            }
        }
    }
    if (stint_cmd_close_out("tree", f, "stdout") != 0)
        rc = STINT_EXIT_IO;
    stint_calltree_free(&t);
    stint_model_free(&m);
    return rc;
}
