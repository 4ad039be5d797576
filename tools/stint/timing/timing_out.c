/* SPDX-License-Identifier: MIT */
/*
 * timing_out.c - what the views of `stint timing` share (timing_int.h):
 * the JSON framing and numbers, the per-callable loop with its --warmup
 * messages, and the name lookups. The views themselves are timing_table.c,
 * timing_rounds.c, timing_tree.c and timing_chrome.c.
 *
 * Every text view reproduces the reference `strace_timing` byte for byte.
 * Where the reference computes a float, the same double is computed here
 * (integer sums are exact, then one division, as Python's int / int does for
 * values below 2^53) and printed with glibc's "%.1f", which rounds the exact
 * binary value half-to-even like Python's format(). Averages of float lists
 * add in the reference's order (sorted ascending, left to right). Padding
 * counts code points, as Python's str.format does. Names in text views have
 * their control bytes and backslashes escaped (textout.h), where the
 * reference writes them raw (a name is `\S+`, so only bytes such as ESC or
 * DEL and a backslash can differ). JSON strings are json.dumps' ASCII form
 * (stint_out_json_ascii).
 *
 * --warmup can leave a callable, or every callable, without invocations: the
 * text views then say so in its place (which invocations were dropped), and
 * the JSON views keep its object with "invocations": 0.
 */
#include "timing/timing_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef stint_i128 i128;

/* ---- JSON helpers -------------------------------------------------------------- */

void stint_tout_json_us(FILE *f, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(a % 1000);
    fprintf(f, "%s%llu.", ns < 0 ? "-" : "", (unsigned long long)(a / 1000));
    if (!frac)
        putc('0', f);
    else if (frac % 100 == 0)
        fprintf(f, "%u", frac / 100);
    else if (frac % 10 == 0)
        fprintf(f, "%02u", frac / 10);
    else
        fprintf(f, "%03u", frac);
}

/* A double in JSON: 3 decimals (nanosecond resolution for microseconds),
 * trailing zeros trimmed; non-finite values as null. */
void stint_tout_json_num(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char b[64];
    int n = snprintf(b, sizeof b, "%.3f", v);
    while (n > 2 && b[n - 1] == '0' && b[n - 2] != '.')
        b[--n] = 0;
    if (!strcmp(b, "-0.0"))
        strcpy(b, "0.0");
    fputs(b, f);
}

/* "callable hid=<hid>", the hid escaped as a name is. */
void stint_tout_put_hid(FILE *f, const struct stint_tm_model *m, uint32_t hid)
{
    fputs("callable hid=", f);
    stint_out_text_str(f, stint_tm_str(m, hid), stint_tm_str_len(m, hid));
}


void stint_tout_json_begin(const struct stint_tout_ctx *c, const char *view)
{
    const struct stint_mparse_stats *st = c->st;
    fprintf(c->out, "{\"view\": \"%s\", \"warmup\": %u, \"partial\": %s, \"records\": {\"heads\": %llu, "
                    "\"spans\": %llu, \"torn\": %llu, \"overflow\": %llu, \"unknown_version\": %llu, \"bytes\": %llu}, ",
            view, c->warmup, c->partial ? "true" : "false", (unsigned long long)st->heads, (unsigned long long)st->records,
            (unsigned long long)st->torn, (unsigned long long)st->overflow,
            (unsigned long long)st->unknown_version, (unsigned long long)st->bytes);
}

void stint_tout_json_end(const struct stint_tout_ctx *c, const char *trace_path)
{
    if (trace_path) {
        fputs(", \"trace_out\": {\"path\": ", c->out);
        stint_tout_json_cstr(c->out, trace_path);
        fprintf(c->out, ", \"spans\": %u}", c->m->nspans);
    }
    fputs("}\n", c->out);
}


/* Summary of a list of ns values: mean, sample stdev, min, max (JSON object). */
void stint_tout_json_stats(FILE *f, const int64_t *v, uint32_t n)
{
    if (!n) {
        fputs("{\"n\": 0}", f);
        return;
    }
    i128 sum = 0;
    int64_t mn = v[0], mx = v[0];
    for (uint32_t i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    double mean = stint_tout_div_exact(sum, n);
    double ss = 0;
    for (uint32_t i = 0; i < n; i++)
        ss += ((double)v[i] - mean) * ((double)v[i] - mean);
    fprintf(f, "{\"n\": %u, \"mean_us\": ", n);
    stint_tout_json_num(f, mean / 1000.0);
    fputs(", \"stdev_us\": ", f);
    stint_tout_json_num(f, n > 1 ? sqrt(ss / (n - 1)) / 1000.0 : 0.0);
    fputs(", \"min_us\": ", f);
    stint_tout_json_us(f, mn);
    fputs(", \"max_us\": ", f);
    stint_tout_json_us(f, mx);
    fputc('}', f);
}

/* `{"hid": .., "label": .., "invocations": k, "warmup_dropped": d` of bucket b. */
void stint_tout_callable_head(const struct stint_tout_ctx *c, uint32_t b, uint32_t k)
{
    char label[16];
    fputs("{\"hid\": ", c->out);
    stint_tout_json_id(c->out, c->m, c->m->buckets[b].hid);
    fputs(", \"label\": ", c->out);
    stint_tout_json_cstr(c->out, stint_tm_bucket_label(c->m, b, label));
    fprintf(c->out, ", \"invocations\": %u, \"warmup_dropped\": %u", k, c->m->buckets[b].n - k);
}

/* ---- --warmup leaving nothing ---------------------------------------------------- */

int stint_tout_nothing_left(const struct stint_tout_ctx *c, uint64_t *dropped)
{
    const struct stint_tm_model *m = c->m;
    uint64_t d = 0;
    int any_left = 0;
    for (uint32_t b = 0; b < m->nbuckets; b++) {
        uint32_t k;
        stint_tout_kept(c, b, &k);
        any_left |= k != 0;
        d += m->buckets[b].n - k;
    }
    if (dropped)
        *dropped = d;
    return m->nbuckets && !any_left;
}

/* The text views' first line when --warmup left no invocation at all. */
void stint_tout_nothing_left_head(const struct stint_tout_ctx *c)
{
    uint64_t d;
    stint_tout_nothing_left(c, &d);
    fprintf(c->out,
            "Nothing left after --warmup %u: it drops the first %u invocation(s) of each callable, and no "
            "callable has more (%llu invocation(s) of %u callable(s) dropped).\n",
            c->warmup, c->warmup, (unsigned long long)d, c->m->nbuckets);
}

/* In the place of bucket b's table or tree when --warmup dropped all of its
 * invocations: which ones (runs of consecutive inv of one pid, the first 8
 * runs), then a blank line as after every callable. */
void stint_tout_dropped_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    const struct stint_tm_bucket *bk = &m->buckets[b];
    const uint32_t *invs = STINT_TOUT_BUCKET_INVS(m, b);
    char label[16];
    stint_tout_put_hid(f, m, bk->hid);
    fprintf(f, " (%s) \xe2\x80\x94 no invocation left: --warmup %u dropped all %u (",
            stint_tm_bucket_label(m, b, label), c->warmup, bk->n);
    uint32_t runs = 0, i = 0;
    while (i < bk->n) {
        const struct stint_tm_inv *a = &m->invs[invs[i]];
        uint32_t j = i + 1;
        while (j < bk->n && m->invs[invs[j]].pid == a->pid &&
               m->invs[invs[j]].inv == m->invs[invs[j - 1]].inv + 1)
            j++;
        if (runs == 8) {
            fprintf(f, ", and %u more", bk->n - i);
            break;
        }
        fputs(runs ? ", " : "", f);
        if (j - i > 1)
            fprintf(f, "inv=%llu..%llu", (unsigned long long)a->inv, (unsigned long long)m->invs[invs[j - 1]].inv);
        else
            fprintf(f, "inv=%llu", (unsigned long long)a->inv);
        fprintf(f, " of pid=%llu", (unsigned long long)a->pid);
        runs++;
        i = j;
    }
    fputs(")\n\n", f);
}

/* Runs one per-callable view: the JSON list `"callables": [...]`, or the text
 * of every callable, or the reference's message when there is none. */
void stint_tout_each_callable(const struct stint_tout_ctx *c, void (*json_one)(const struct stint_tout_ctx *, uint32_t),
                          void (*text_one)(const struct stint_tout_ctx *, uint32_t))
{
    const struct stint_tm_model *m = c->m;
    if (c->json) {
        fputs("\"callables\": [", c->out);
        for (uint32_t b = 0; b < m->nbuckets; b++) {
            fputs(b ? ", " : "", c->out);
            json_one(c, b);
        }
        fputs("]", c->out);
        if (!m->nbuckets)
            fprintf(stderr, "No [STRACE] markers found.\n");
        return;
    }
    if (!m->nbuckets) {
        fputs("No [STRACE] markers found.\n", c->out);
        return;
    }
    if (stint_tout_nothing_left(c, NULL))
        stint_tout_nothing_left_head(c);
    for (uint32_t b = 0; b < m->nbuckets; b++)
        text_one(c, b);
}

/* ---- names ---------------------------------------------------------------------- */

/* The leaf of interned name `id` (after its last '.'); *len its length. */
const char *stint_tout_leaf_of(const struct stint_tm_model *m, uint32_t id, size_t *len)
{
    const char *name = stint_tm_str(m, id);
    size_t n = stint_tm_str_len(m, id);
    const char *dot = memrchr(name, '.', n);
    const char *leaf = dot ? dot + 1 : name;
    *len = n - (size_t)(leaf - name);
    return leaf;
}

/* The span that names a rounds column: `<root>.<suffix>`, the root being the
 * reference's fixed name (simpler_run in early logs, chip.run later), looked
 * up by name as the reference does (an invocation whose first depth-0 span is
 * something else, a warm-up step, still times simpler_run), else the
 * invocation's own root. NULL when the invocation has none. */
const struct stint_tm_fon *stint_tout_named_span(const struct stint_tm_model *m, uint32_t inv, const char *suffix)
{
    const struct stint_tm_inv *iv = &m->invs[inv];
    const char *roots[3] = {"simpler_run", "chip.run", NULL};
    size_t rlen[3] = {11, 8, 0};
    if (iv->has_root) {
        roots[2] = stint_tm_str(m, iv->root_name);
        rlen[2] = stint_tm_str_len(m, iv->root_name);
    }
    size_t sl = strlen(suffix);
    for (int k = 0; k < 3; k++) {
        if (!roots[k] || (k == 2 && ((rlen[2] == rlen[0] && !memcmp(roots[2], roots[0], rlen[0])) ||
                                     (rlen[2] == rlen[1] && !memcmp(roots[2], roots[1], rlen[1])))))
            continue;
        char buf[512];
        if (rlen[k] + 1 + sl > sizeof buf)
            continue;
        size_t n = rlen[k];
        memcpy(buf, roots[k], n);
        if (sl) {
            buf[n++] = '.';
            memcpy(buf + n, suffix, sl);
            n += sl;
        }
        uint32_t id = stint_tm_str_find(m, buf, n);
        const struct stint_tm_fon *f = id == TM_NONE ? NULL : stint_tm_fon_find(m, inv, id);
        if (f)
            return f;
    }
    return NULL;
}

