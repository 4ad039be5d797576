/* SPDX-License-Identifier: MIT */
/*
 * filters_explain.c - what a command says when its filters select nothing
 * (filters.h, stint_filter_explain): for each value that alone selects
 * nothing in the trace, the values the trace holds that come closest (its
 * categories, names, pids and tids), and a --time-range that lies outside
 * the trace's events.
 *
 * Invariants: it reads a finished model that keeps every slice and changes
 * nothing; it runs once, on the error path, so its passes over the slices
 * and its edit distances (cut at 64 bytes a side) need not be fast; every
 * string from the trace goes out escaped (control bytes as \xHH).
 */
#include "model/filters.h"

#include "base/cmp.h"
#include "base/term.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN 6  /* closest values named per option */
#define CUT 64   /* bytes of each side an edit distance looks at */

/* Writes s (n bytes) to f through the terminal escaper (base/term.h: C0,
 * DEL, C1, bidi controls and invalid UTF-8 escaped). */
static void put_esc(FILE *f, const char *s, size_t n) { stint_term_fputs(f, s, n); }

/* The case-blind edit distance of a and b, each cut at CUT bytes. */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t na = strnlen(a, CUT), nb = strnlen(b, CUT);
    unsigned row[CUT + 1];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= na; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= nb; j++) {
            unsigned up = row[j];
            unsigned sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            unsigned best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[nb];
}

/* A glob's literal text (its wildcards and escapes left out) into buf. */
static void glob_literal(char *buf, size_t cap, const char *g)
{
    size_t k = 0;
    for (; *g && k + 1 < cap; g++)
        if (!strchr("*?[]\\", *g))
            buf[k++] = *g;
    buf[k] = 0;
}

struct cand {
    unsigned score;
    uint32_t id; /* string id, or index */
};

static int cand_cmp(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    int c = stint_cmp_u32(a->score, b->score);
    return c ? c : stint_cmp_u32(a->id, b->id);
}

static int u32_cmp(const void *a, const void *b)
{
    return stint_cmp_u32(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* The distinct string ids of m's slices' categories (cats 1) or names. */
static uint32_t *distinct_ids(const struct stint_model *m, int cats, size_t *n_out)
{
    size_t n = stint_model_nslices(m), k = 0;
    uint32_t *ids = stint_xmalloc((n ? n : 1) * sizeof *ids);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        ids[k++] = cats ? s->cat : s->name;
    }
    if (k > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(ids, k, sizeof *ids, u32_cmp);
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
        if (!w || ids[w - 1] != ids[i])
            ids[w++] = ids[i];
    *n_out = w;
    return ids;
}

/* Whether any of the strings ids[0..n) passes value v (a category, or a glob). */
static int any_passes(const struct stint_model *m, const uint32_t *ids, size_t n, const char *v, int glob)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = stint_model_str(m, ids[i], NULL);
        if (glob ? fnmatch(v, s, 0) == 0 : stint_filter_cat(&(struct stint_filter){.cat = v}, s))
            return 1;
    }
    return 0;
}

/* Prints the SHOWN strings of ids closest to v: a case-blind match first,
 * then by edit distance to v's literal text. */
static void put_closest(FILE *err, const struct stint_model *m, const uint32_t *ids, size_t n, const char *v,
                        int glob, const char *what)
{
    char lit[CUT + 1];
    glob_literal(lit, sizeof lit, v);
    struct cand *c = stint_xmalloc((n ? n : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        const char *s = stint_model_str(m, ids[i], NULL);
        unsigned d = glob && fnmatch(v, s, FNM_CASEFOLD) == 0 ? 0 : 1 + edit_distance(glob ? lit : v, s);
        c[i] = (struct cand){d, ids[i]};
    }
    if (n > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(c, n, sizeof *c, cand_cmp);
    fprintf(err, "    %s seen (%zu, closest first): ", what, n);
    for (size_t i = 0; i < n && i < SHOWN; i++) {
        size_t len;
        const char *s = stint_model_str(m, c[i].id, &len);
        fputs(i ? ", '" : "'", err);
        put_esc(err, s, len);
        putc('\'', err);
    }
    fputs(n > SHOWN ? ", ...\n" : n ? "\n" : "none\n", err);
    free(c);
}

/* Per text value of list l (or the hand-set one) selecting nothing alone:
 * a line, and the closest values. Returns how many selected nothing. */
static int explain_list(FILE *err, const struct stint_model *m, const struct stint_filter *f,
                        const struct stint_filter_list *l, const char *one, const char *opt, int cats)
{
    if (!one)
        return 0;
    size_t n;
    uint32_t *ids = distinct_ids(m, cats, &n);
    int bad = 0;
    for (uint32_t k = 0; k < (l->n ? l->n : 1); k++) {
        const char *v = l->n ? f->text + l->off[k] : one;
        if (any_passes(m, ids, n, v, !cats))
            continue;
        bad++;
        fprintf(err, "  %s '", opt);
        put_esc(err, v, strlen(v));
        fprintf(err, "' matches no %s in the trace\n", cats ? "category" : "span or instant name");
        put_closest(err, m, ids, n, v, !cats, cats ? "categories" : "names");
    }
    free(ids);
    return bad;
}

/* The pids (tids 0) or tids (tids 1) m holds closest to x: up to SHOWN. */
static void put_closest_ids(FILE *err, const struct stint_model *m, int64_t x, int tids)
{
    size_t n = tids ? m->lanes.len : m->processes.len;
    struct cand *c = stint_xmalloc((n ? n : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        int64_t v = tids ? stint_model_lane_at(m, (uint32_t)i)->tid : stint_model_process_at(m, (uint32_t)i)->pid;
        uint64_t d = v > x ? (uint64_t)v - (uint64_t)x : (uint64_t)x - (uint64_t)v;
        c[i] = (struct cand){d > UINT32_MAX ? UINT32_MAX : (unsigned)d, (uint32_t)i};
    }
    if (n > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(c, n, sizeof *c, cand_cmp);
    fprintf(err, "    %s seen (%zu, closest first): ", tids ? "tids" : "pids", n);
    for (size_t i = 0; i < n && i < SHOWN; i++) {
        uint32_t name, text;
        int64_t v;
        if (tids) {
            const struct stint_lane *l = stint_model_lane_at(m, c[i].id);
            v = l->tid, name = l->name, text = l->tid_text;
        } else {
            const struct stint_process *p = stint_model_process_at(m, c[i].id);
            v = p->pid, name = p->name, text = p->id_text;
        }
        size_t len;
        const char *s = stint_model_str(m, text ? text : name, &len);
        fprintf(err, "%s%" PRId64, i ? ", " : "", v);
        if (!text && v <= STINT_SYNTHETIC_ID0) /* made from an empty string */
            fputs(" (written as '')", err);
        else if (len) {
            fputs(text ? " (written as '" : " (", err);
            put_esc(err, s, len);
            fputs(text ? "')" : ")", err);
        }
    }
    fputs(n > SHOWN ? ", ...\n" : n ? "\n" : "none\n", err);
    free(c);
}

/* Per --pid or --tid value that names no process or lane: a line and the
 * closest ones. Returns how many named none. */
static int explain_ids(FILE *err, const struct stint_model *m, const int64_t *ids, uint32_t nids, int64_t one,
                       int tids)
{
    int bad = 0;
    for (uint32_t k = 0; k < (nids ? nids : 1); k++) {
        int64_t x = nids ? ids[k] : one;
        size_t n = tids ? m->lanes.len : m->processes.len, i;
        for (i = 0; i < n; i++)
            if ((tids ? stint_model_lane_at(m, (uint32_t)i)->tid : stint_model_process_at(m, (uint32_t)i)->pid) == x)
                break;
        if (i < n)
            continue;
        bad++;
        fprintf(err, "  --%s %" PRId64 " names no %s in the trace\n", tids ? "tid" : "pid", x,
                tids ? "thread" : "process");
        put_closest_ids(err, m, x, tids);
    }
    return bad;
}

/* A --time-range that misses the trace's extent: a line. Returns 1 then. */
static int explain_range(FILE *err, const struct stint_filter *f, const struct stint_model *m)
{
    int64_t a, b;
    if (!f->has_range || !stint_filter_extent(m, &a, &b) || stint_filter_overlaps(f->t0, f->t1, a, b - a))
        return 0;
    fputs("  --time-range [", err);
    if (f->t0 == INT64_MIN)
        fputs("start", err);
    else
        fprintf(err, "%" PRId64 " ns (%+" PRId64 ")", f->t0, f->t0 - a);
    if (f->t1 == INT64_MAX)
        fputs(", end", err);
    else
        fprintf(err, ", %" PRId64 " ns (%+" PRId64 ")", f->t1, f->t1 - a);
    fprintf(err,
            ") lies outside the trace: its events run from %" PRId64 " to %" PRId64 " ns (+0 to +%" PRId64
            " ns; '+T' counts from the first event)\n",
            a, b, b - a);
    int64_t u0, u1; /* a time copied from a table in us without its unit ("ts_us"): say so */
    if (!__builtin_mul_overflow(f->t0 == INT64_MIN ? 0 : f->t0, 1000, &u0) &&
        !__builtin_mul_overflow(f->t1 == INT64_MAX ? 0 : f->t1, 1000, &u1) &&
        stint_filter_overlaps(f->t0 == INT64_MIN ? INT64_MIN : u0, f->t1 == INT64_MAX ? INT64_MAX : u1, a, b - a))
        fputs("    (a time without a unit is ns: the same numbers in us, with \"us\" after them, fall inside it)\n",
              err);
    return 1;
}

void stint_filter_explain(FILE *err, const char *cmd, const struct stint_filter *f, const struct stint_model *m)
{
    fprintf(err, "stint %s: nothing in the trace matches the filters: the tables are empty\n", cmd);
    int bad = explain_list(err, m, f, &f->cats, f->cat, "--cat", 1);
    bad += explain_list(err, m, f, &f->names, f->name_glob, "--name", 0);
    if (f->has_pid)
        bad += explain_ids(err, m, f->pids, f->npid, f->pid, 0);
    if (f->has_tid)
        bad += explain_ids(err, m, f->tids, f->ntid, f->tid, 1);
    bad += explain_range(err, f, m);
    if (!bad)
        fputs("  each value selects something alone; the options together (each must pass, an --exclude-* "
              "leaves out) select nothing\n",
              err);
}
