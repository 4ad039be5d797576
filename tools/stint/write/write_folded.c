/* SPDX-License-Identifier: MIT */
/*
 * write_folded.c - folded stacks from the aggregated call tree (writers.h).
 *
 * One line per call path whose self time is positive: the path's names
 * joined by ';', a space, and the self time in integer nanoseconds. Summing
 * the lines gives the total of the root spans (self times partition a span's
 * wall time), so a flame graph built from it never double counts nesting.
 * Device-clock paths are prefixed with "[device clock]" so that they never
 * merge with host time. Every line repeats its whole path, so the output
 * grows with the square of the nesting depth: its size is computed from the
 * tree before anything is written and handed to o->before_write, which may
 * refuse it. Names keep the line parseable and the SVG a flame graph tool
 * makes of it valid XML: ';', line breaks, tabs, other control bytes (NUL
 * included) and invalid UTF-8 are replaced (name_esc), and the measured
 * size counts the replacements.
 */
#include "write/writers.h"

#include "analyze/analysis.h"
#include "base/term.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_PREFIX "[device clock];"

/* The text of name byte s[i] in a folded line (its length; 0 when the
 * byte(s) stand for themselves), and in *len the bytes it covers: ';'
 * separates names (':'), a line break or a tab would end or split the line
 * (' '), any other control byte, DEL or a byte that starts no valid UTF-8
 * sequence would make the SVG that flamegraph.pl draws invalid XML (\xHH). */
static size_t name_esc(const char *s, size_t n, size_t i, char e[4], size_t *len)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = (unsigned char)s[i];
    *len = 1;
    if (c >= 0x80) {
        *len = stint_term_utf8_len(s + i, n - i, NULL);
        if (*len)
            return 0;
        *len = 1;
    } else if (c >= 0x20 && c != 0x7f && c != ';')
        return 0;
    if (c == ';' || c == '\n' || c == '\r' || c == '\t') {
        e[0] = c == ';' ? ':' : ' ';
        return 1;
    }
    e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
    return 4;
}

/* Writes a name as name_esc changes it (out NULL: writes nothing). Returns
 * its length as written; *changed is set when a byte changed. */
static uint64_t put_name(FILE *out, const char *s, size_t n, int *changed)
{
    size_t run = 0, len;
    uint64_t w = n;
    char e[4];
    for (size_t i = 0; i < n; i += len) {
        size_t el = name_esc(s, n, i, e, &len);
        if (!el)
            continue;
        *changed = 1;
        w = w - len + el;
        if (out) {
            fwrite(s + run, 1, i - run, out);
            fwrite(e, 1, el, out);
        }
        run = i + len;
    }
    if (out)
        fwrite(s + run, 1, n - run, out);
    return w;
}

static size_t digits(int64_t v)
{
    size_t d = 1;
    for (; v >= 10; v /= 10)
        d++;
    return d;
}

/* plen[k]: the bytes of node k's path as written ("a;b;c", after the device
 * prefix); counts the names that need changing in *renamed and the
 * output's size in *bytes. A node is made after its parent, so its
 * parent's length is known (nodes 0 and 1 are the host and device roots). */
static void measure(const struct stint_calltree *t, const struct stint_model *m, uint64_t *plen,
                    uint64_t *renamed, uint64_t *bytes)
{
    plen[0] = 0;
    plen[1] = t->n > 1 ? sizeof DEVICE_PREFIX - 1 : 0;
    for (size_t k = 2; k < t->n; k++) {
        const struct stint_tnode *nd = &t->nodes[k];
        size_t l;
        const char *s = stint_model_str(m, nd->name, &l);
        uint32_t p = nd->parent;
        uint64_t base = p == STINT_NO_ID || p >= k ? 0 : p <= 1 ? plen[p] : plen[p] + 1;
        int changed = 0;
        plen[k] = base + put_name(NULL, s, l, &changed);
        *renamed += (uint64_t)changed;
        if (nd->self_ns > 0)
            *bytes += plen[k] + 1 + digits(nd->self_ns) + 1;
    }
}

/* Counts what has no line: zero-length spans (no weight), and by kind the
 * slices the tree leaves out (instants, async slices, unfinished spans). */
static void count_left_out(const struct stint_calltree *t, const struct stint_model *m,
                           struct stint_write_stats *st)
{
    for (size_t i = 0; i < stint_model_nslices(m); i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (t->slice_node[i] == STINT_NO_ID)
            stint_write_count_left_out(m, s, st);
        else if (s->dur_ns == 0)
            st->zero_spans++;
        else
            st->slices++;
    }
}

/* The line of node k: its path, a space, its self time. */
static void put_line(FILE *out, const struct stint_calltree *t, const struct stint_model *m, size_t k,
                     uint32_t *path)
{
    size_t d = 0;
    uint32_t c = (uint32_t)k;
    for (; c > 1 && c != STINT_NO_ID; c = t->nodes[c].parent)
        path[d++] = c;
    if (c == 1)
        fputs(DEVICE_PREFIX, out);
    while (d) {
        size_t l;
        const char *s = stint_model_str(m, t->nodes[path[--d]].name, &l);
        int changed = 0;
        put_name(out, s, l, &changed);
        if (d)
            putc(';', out);
    }
    fprintf(out, " %" PRId64 "\n", t->nodes[k].self_ns);
}

int stint_write_folded(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    struct stint_calltree t;
    if (stint_calltree_build(&t, m, NULL) != 0)
        return -1;
    uint32_t *path = malloc((t.n + 1) * sizeof *path);
    uint64_t *plen = malloc((t.n + 2) * sizeof *plen);
    if (!path || !plen) {
        free(path);
        free(plen);
        stint_calltree_free(&t);
        return -1;
    }
    measure(&t, m, plen, &st->renamed, &st->est_bytes);
    count_left_out(&t, m, st);
    st->skipped_counters = m->counters.len;
    if (o && o->before_write && o->before_write(st, o->ctx) != 0) {
        free(path);
        free(plen);
        stint_calltree_free(&t);
        return 1;
    }
    for (size_t k = 2; k < t.n; k++)
        if (t.nodes[k].self_ns > 0)
            put_line(out, &t, m, k, path);
    free(path);
    free(plen);
    stint_calltree_free(&t);
    return 0;
}
