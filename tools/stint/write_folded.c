/*
 * write_folded.c - folded stacks from the aggregated call tree (writers.h).
 *
 * One line per call path whose self time is positive: the path's names
 * joined by ';', a space, and the self time in integer nanoseconds. Summing
 * the lines gives the total of the root spans (self times partition a span's
 * wall time), so a flame graph built from it never double counts nesting.
 * Device-clock paths are prefixed with "[device clock]" so that they never
 * merge with host time.
 */
#include "writers.h"

#include "analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_name(FILE *out, const char *s, size_t n, uint64_t *renamed)
{
    int changed = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ';' || c == '\n' || c == '\r') {
            c = c == ';' ? ':' : ' ';
            changed = 1;
        }
        putc(c, out);
    }
    if (changed)
        ++*renamed;
}

int stint_write_folded(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st)
{
    (void)o;
    memset(st, 0, sizeof *st);
    struct stint_calltree t;
    if (stint_calltree_build(&t, m, NULL) != 0)
        return -1;
    uint32_t *path = malloc((t.n + 1) * sizeof *path);
    if (!path) {
        stint_calltree_free(&t);
        return -1;
    }
    for (size_t k = 2; k < t.n; k++) {
        const struct stint_tnode *nd = &t.nodes[k];
        if (nd->self_ns <= 0)
            continue;
        size_t d = 0;
        uint32_t c = (uint32_t)k;
        for (; c > 1 && c != STINT_NO_ID; c = t.nodes[c].parent)
            path[d++] = c;
        if (c == 1)
            fputs("[device clock];", out);
        while (d) {
            size_t l;
            const char *s = stint_model_str(m, t.nodes[path[--d]].name, &l);
            put_name(out, s, l, &st->renamed);
            if (d)
                putc(';', out);
        }
        fprintf(out, " %" PRId64 "\n", nd->self_ns);
        st->slices += nd->calls;
    }
    st->skipped_instants = t.instants;
    st->skipped_unfinished = t.unfinished;
    st->skipped_async = t.async;
    st->skipped = t.instants + t.unfinished + t.async;
    free(path);
    stint_calltree_free(&t);
    return 0;
}
