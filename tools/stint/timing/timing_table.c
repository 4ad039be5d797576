/* SPDX-License-Identifier: MIT */
/*
 * timing_table.c - the per-callable table of `stint timing` (the default
 * view): per callable (hid bucket), its root's mean, min and max, then each
 * stage (the first span of each name per invocation, below the root) with
 * its mean and count, as the reference prints them; or the same as JSON
 * with per-invocation host and device walls and full stats.
 *
 * Invariants: stages are ordered by count, most first, then by name bytes;
 * a mean is Python's sum / n truncated to whole ns (timing_out.c says how
 * the floats match the reference's); only the invocations --warmup kept
 * count.
 */
#include "timing/timing_int.h"
#include "analyze/device_window.h"
#include "base/cmp.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef stint_i128 i128;

/* The number of '.' in interned name `id`. */
static uint32_t dots_of(const struct stint_tm_model *m, uint32_t id)
{
    const char *s = stint_tm_str(m, id);
    uint32_t d = 0;
    for (size_t i = 0, n = stint_tm_str_len(m, id); i < n; i++)
        d += s[i] == '.';
    return d;
}

/* Orders two names by their bytes (a shorter prefix first). */
static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    return r ? r : (an < bn ? -1 : an > bn);
}

/* Device wall of one invocation: the rounds column's span, else the first
 * span (lowest name id: first seen) whose leaf is `device_wall`, as pypto
 * reads it. 0 when there is none. */
static int64_t device_wall_ns(const struct stint_tm_model *m, uint32_t inv)
{
    const struct stint_tm_fon *f = stint_tout_named_span(m, inv, "runner_run.device_wall");
    const struct stint_tm_inv *iv = &m->invs[inv];
    for (uint32_t i = 0; !f && i < iv->fon_len; i++) {
        size_t ln;
        const char *leaf = stint_tout_leaf_of(m, iv->fon[i].name, &ln);
        if (ln == 11 && !memcmp(leaf, "device_wall", 11))
            f = &iv->fon[i];
    }
    return f ? f->dur_ns : 0;
}

/* ---- the per-callable table ----------------------------------------------------- */

struct stage {
    uint32_t name;
    uint32_t n;
    i128 sum;
};

/* Stages by (-count, name bytes); ctx: the model. */
static int cmp_stage(const void *a, const void *b, void *ctx)
{
    const struct stage *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    const struct stint_tm_model *m = ctx;
    return cmp_bytes(stint_tm_str(m, x->name), stint_tm_str_len(m, x->name), stint_tm_str(m, y->name),
                     stint_tm_str_len(m, y->name));
}

/* Per name (first span of the name per invocation, depth != 0): count and sum.
 * Returns a malloc'd array sorted by (-count, name); *ns its length. */
static struct stage *bucket_stages(const struct stint_tm_model *m, const uint32_t *invs, uint32_t k, uint32_t *ns)
{
    uint32_t *slot = stint_xmalloc(((size_t)m->nstr + 1) * sizeof *slot);
    struct stage *st = stint_xmalloc(((size_t)m->nstr + 1) * sizeof *st);
    *ns = 0;
    for (uint32_t i = 0; i < m->nstr; i++)
        slot[i] = TM_NONE;
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        for (uint32_t f = 0; f < iv->fon_len; f++) {
            if (iv->fon[f].depth == 0)
                continue;
            uint32_t nm = iv->fon[f].name;
            if (slot[nm] == TM_NONE) {
                slot[nm] = (*ns)++;
                st[slot[nm]].name = nm;
                st[slot[nm]].n = 0;
                st[slot[nm]].sum = 0;
            }
            st[slot[nm]].n++;
            st[slot[nm]].sum += iv->fon[f].dur_ns;
        }
    }
    free(slot);
    stint_xqsort_r(st, *ns, sizeof *st, cmp_stage, (void *)m);
    return st;
}

/* The reference's printed mean: Python's sum / n, truncated to whole ns, in us. */
static double trunc_mean_us(i128 sum, uint32_t n)
{
    double mean = stint_tout_div_exact(sum, n);
    return (double)(int64_t)mean / 1000.0;
}

/* The device window of invocation inv (device_window.h): the union of the
 * device wall's phases (the first span of each name one dotted level below
 * it), of the phases that overlap another, and of orch and sched (-1 unless
 * both ran). All -1 without a device wall. iv: scratch for fon_len. */
static void inv_window(const struct stint_tm_model *m, uint32_t inv, struct stint_interval *iv, int64_t out[3])
{
    out[0] = out[1] = out[2] = -1;
    const struct stint_tm_fon *w = stint_tout_named_span(m, inv, "runner_run.device_wall");
    const struct stint_tm_inv *in = &m->invs[inv];
    for (uint32_t i = 0; !w && i < in->fon_len; i++) {
        size_t ln;
        const char *leaf = stint_tout_leaf_of(m, in->fon[i].name, &ln);
        if (ln == 11 && !memcmp(leaf, "device_wall", 11))
            w = &in->fon[i];
    }
    if (!w)
        return;
    const char *wn = stint_tm_str(m, w->name);
    uint32_t wl = stint_tm_str_len(m, w->name), np = 0;
    int orch = -1, sched = -1;
    for (uint32_t i = 0; i < in->fon_len; i++) {
        const struct stint_tm_fon *p = &in->fon[i];
        const char *pn = stint_tm_str(m, p->name);
        uint32_t pl = stint_tm_str_len(m, p->name);
        if (pl <= wl + 1 || memcmp(pn, wn, wl) || pn[wl] != '.' || memchr(pn + wl + 1, '.', pl - wl - 1))
            continue;
        if (pl - wl - 1 == 4 && !memcmp(pn + wl + 1, "orch", 4))
            orch = (int)np;
        if (pl - wl - 1 == 5 && !memcmp(pn + wl + 1, "sched", 5))
            sched = (int)np;
        iv[np++] = (struct stint_interval){p->ts_ns, p->ts_ns + p->dur_ns};
    }
    if (orch >= 0 && sched >= 0) {
        struct stint_interval two[2] = {iv[orch], iv[sched]};
        out[2] = stint_intervals_union(two, 2);
    }
    uint32_t nconc;
    stint_devwin_phases(iv, np, &out[0], &out[1], &nconc);
}

/* `"device_window": {...}` for the kept invocations invs[0..k) of a bucket:
 * per invocation the union of the device wall's phases, the concurrent
 * window, orch ∪ sched and the device share of the host wall, with stats
 * over the invocations that have each (device clock; the share is a ratio
 * of two durations on two clocks). */
static void json_device_window(const struct stint_tout_ctx *c, const uint32_t *invs, uint32_t k)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t most = 1;
    for (uint32_t i = 0; i < k; i++)
        if (m->invs[invs[i]].fon_len > most)
            most = m->invs[invs[i]].fon_len;
    struct stint_interval *iv = stint_xmalloc((size_t)most * sizeof *iv);
    int64_t *fig = stint_xmalloc(((size_t)k + 1) * 3 * sizeof *fig), *v = stint_xmalloc(((size_t)k + 1) * sizeof *v);
    for (uint32_t i = 0; i < k; i++)
        inv_window(m, invs[i], iv, fig + 3 * (size_t)i);
    fputs(", \"device_window\": {\"scope\": \"per invocation, device clock: phases = union of the device wall's "
          "direct children, concurrent = union of the phases that overlap another, orch_sched = union of orch and "
          "sched (null unless both ran); device_share = device wall / host wall (durations on two clocks)\"",
          f);
    static const char *const key[3] = {"phases", "concurrent", "orch_sched"};
    for (int x = 0; x < 3; x++) {
        uint32_t n = 0;
        fprintf(f, ", \"%s_us\": [", key[x]);
        for (uint32_t i = 0; i < k; i++) {
            int64_t y = fig[3 * (size_t)i + (size_t)x];
            fputs(i ? ", " : "", f);
            if (y < 0)
                fputs("null", f);
            else
                stint_tout_json_us(f, v[n++] = y);
        }
        fprintf(f, "], \"%s\": ", key[x]);
        stint_tout_json_stats(f, v, n);
    }
    fputs(", \"device_share\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *in = &m->invs[invs[i]];
        int64_t dw = device_wall_ns(m, invs[i]);
        fputs(i ? ", " : "", f);
        if (in->has_root && in->root_dur_ns > 0 && dw > 0)
            fprintf(f, "%.6f", (double)dw / (double)in->root_dur_ns);
        else
            fputs("null", f);
    }
    fputs("]}", f);
    free(iv);
    free(fig);
    free(v);
}

/* The table view of bucket b as one JSON object: root stats, per-invocation
 * host and device walls (what pypto reads), and per-stage stats. */
static void table_json_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t k;
    const uint32_t *invs = stint_tout_kept(c, b, &k);
    int64_t *v = stint_xmalloc(((size_t)k + 1) * sizeof *v);
    stint_tout_callable_head(c, b, k);
    uint32_t nr = 0;
    uint32_t root_name = TM_NONE;
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        if (!iv->has_root)
            continue;
        if (root_name == TM_NONE)
            root_name = iv->root_name;
        v[nr++] = iv->root_dur_ns;
    }
    fputs(", \"root\": ", f);
    if (root_name != TM_NONE) {
        fputs("{\"name\": ", f);
        stint_tout_json_id(f, m, root_name);
        fputs(", \"stats\": ", f);
        stint_tout_json_stats(f, v, nr);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    /* Per invocation, as pypto's benchmark reads them: host wall = root dur
     * (0 without a root), device wall = device_wall dur (0 without one). */
    fputs(", \"rounds\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        fprintf(f, "%s{\"pid\": %llu, \"inv\": %llu}", i ? ", " : "", (unsigned long long)iv->pid,
                (unsigned long long)iv->inv);
    }
    fputs("], \"host_wall_us\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        v[i] = iv->has_root ? iv->root_dur_ns : 0;
        fputs(i ? ", " : "", f);
        stint_tout_json_us(f, v[i]);
    }
    fputs("], \"host_wall\": ", f);
    stint_tout_json_stats(f, v, k);
    fputs(", \"device_wall_us\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        v[i] = device_wall_ns(m, invs[i]);
        fputs(i ? ", " : "", f);
        stint_tout_json_us(f, v[i]);
    }
    fputs("], \"device_wall\": ", f);
    stint_tout_json_stats(f, v, k);
    fputs(", \"stages\": [", f);
    uint32_t ns;
    struct stage *st = bucket_stages(m, invs, k, &ns);
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t dots = dots_of(m, st[i].name), nv = 0;
        for (uint32_t j = 0; j < k; j++) {
            const struct stint_tm_fon *fo = stint_tm_fon_find(m, invs[j], st[i].name);
            if (fo && fo->depth != 0)
                v[nv++] = fo->dur_ns;
        }
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        stint_tout_json_id(f, m, st[i].name);
        fprintf(f, ", \"level\": %u, \"stats\": ", dots);
        stint_tout_json_stats(f, v, nv);
        fputc('}', f);
    }
    fputs("]", f);
    json_device_window(c, invs, k);
    fputs("}", f);
    free(st);
    free(v);
}

/* The reference's table for bucket b. */
static void table_text_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t k;
    const uint32_t *invs = stint_tout_kept(c, b, &k);
    if (!k) {
        stint_tout_dropped_bucket(c, b);
        return;
    }
    stint_tout_put_hid(f, m, m->buckets[b].hid);
    fprintf(f, " \xe2\x80\x94 %u invocation(s)\n", k);
    i128 sum = 0;
    uint32_t nr = 0;
    int64_t mn = 0, mx = 0;
    uint32_t root_name = TM_NONE;
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
        if (!iv->has_root)
            continue;
        int64_t d = iv->root_dur_ns;
        if (root_name == TM_NONE) {
            root_name = iv->root_name;
            mn = mx = d;
        }
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        sum += d;
        nr++;
    }
    if (nr) {
        fputs("  ", f);
        stint_out_text_str(f, stint_tm_str(m, root_name), stint_tm_str_len(m, root_name));
        fprintf(f, ": mean=%.1fus min=%.1fus max=%.1fus", trunc_mean_us(sum, nr), (double)mn / 1000.0,
                (double)mx / 1000.0);
        if (c->warmup_set) {
            double mean = stint_tout_div_exact(sum, nr), ss = 0;
            for (uint32_t i = 0; i < k; i++) {
                const struct stint_tm_inv *iv = &m->invs[invs[i]];
                if (iv->has_root)
                    ss += ((double)iv->root_dur_ns - mean) * ((double)iv->root_dur_ns - mean);
            }
            fprintf(f, " stdev=%.1fus", nr > 1 ? sqrt(ss / (nr - 1)) / 1000.0 : 0.0);
        }
        fputc('\n', f);
    }
    uint32_t ns;
    struct stage *st = bucket_stages(m, invs, k, &ns);
    for (uint32_t i = 0; i < ns; i++) {
        fputs("  ", f);
        for (uint32_t d = dots_of(m, st[i].name); d; d--)
            fputs("  ", f);
        stint_out_text_str(f, stint_tm_str(m, st[i].name), stint_tm_str_len(m, st[i].name));
        fprintf(f, ": mean=%.1fus (n=%u)\n", trunc_mean_us(st[i].sum, st[i].n), st[i].n);
    }
    free(st);
    fputc('\n', f);
}

void stint_tout_table(const struct stint_tout_ctx *c)
{
    stint_tout_each_callable(c, table_json_bucket, table_text_bucket);
}
