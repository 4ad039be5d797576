/*
 * timing_out.c - the views of `stint timing` (see timing_out.h).
 *
 * Text views reproduce the reference `strace_timing` byte for byte. Where the
 * reference computes a float, the same double is computed here (integer sums
 * are exact, then one division, as Python's int / int does for values below
 * 2^53) and printed with glibc's "%.1f", which rounds the exact binary value
 * half-to-even like Python's format(). Averages of float lists add in the
 * reference's order (sorted ascending, left to right). Padding counts code
 * points, as Python's str.format does. Names in text views have their
 * control bytes and backslashes escaped (textout.h), where the reference
 * writes them raw (a name is `\S+`, so only bytes such as ESC or DEL and a
 * backslash can differ).
 *
 * --warmup can leave a callable, or every callable, without invocations: the
 * text views then say so in its place (which invocations were dropped), and
 * the JSON views keep its object with "invocations": 0.
 */
#include "timing_out.h"
#include "textout.h"
#include "tsparse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef stint_i128 i128;

#define BUCKET_INVS(m, b) ((m)->bucket_invs + (m)->buckets[b].off)

/* The invocations of bucket b left after warmup: *n of them. */
static const uint32_t *kept(const tout_ctx *c, uint32_t b, uint32_t *n)
{
    uint32_t all = c->m->buckets[b].n, w = c->warmup < all ? c->warmup : all;
    *n = all - w;
    return BUCKET_INVS(c->m, b) + w;
}

/* Python's int / int for a non-negative exact sum. */
static double div_exact(i128 sum, uint64_t n)
{
    if (sum >= 0 && sum < ((i128)1 << 53))
        return (double)(int64_t)sum / (double)n;
    return (double)((long double)sum / (long double)n);
}

/* ---- JSON helpers -------------------------------------------------------------- */

void tout_json_str(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    putc('"', f);
    while (p < e) {
        unsigned c = *p;
        if (c < 0x80) {
            switch (c) {
            case '"': fputs("\\\"", f); break;
            case '\\': fputs("\\\\", f); break;
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            default:
                if (c < 0x20)
                    fprintf(f, "\\u%04x", c);
                else
                    putc((int)c, f);
            }
            p++;
            continue;
        }
        /* Decode one UTF-8 sequence; anything invalid is one U+FFFD per byte. */
        unsigned cp = 0, len = 0;
        if (c >= 0xc2 && c <= 0xdf)
            len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            len = 4, cp = c & 0x07;
        int ok = len && (size_t)(e - p) >= len;
        for (unsigned i = 1; ok && i < len; i++) {
            if ((p[i] & 0xc0) != 0x80)
                ok = 0;
            else
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
                   (len == 4 && (cp < 0x10000 || cp > 0x10ffff))))
            ok = 0;
        if (!ok) {
            fputs("\\ufffd", f);
            p++;
            continue;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            fprintf(f, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            fprintf(f, "\\u%04x", cp);
        }
        p += len;
    }
    putc('"', f);
}

void tout_json_us(FILE *f, int64_t ns)
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
static void json_num(FILE *f, double v)
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

static void json_cstr(FILE *f, const char *s)
{
    tout_json_str(f, s, strlen(s));
}

void tout_json_begin(const tout_ctx *c, const char *view)
{
    const markers_stats *st = c->st;
    fprintf(c->out, "{\"view\": \"%s\", \"warmup\": %u, \"partial\": %s, \"records\": {\"heads\": %llu, "
                    "\"spans\": %llu, \"torn\": %llu, \"overflow\": %llu, \"unknown_version\": %llu, \"bytes\": %llu}, ",
            view, c->warmup, c->partial ? "true" : "false", (unsigned long long)st->heads, (unsigned long long)st->records,
            (unsigned long long)st->torn, (unsigned long long)st->overflow,
            (unsigned long long)st->unknown_version, (unsigned long long)st->bytes);
}

void tout_json_end(const tout_ctx *c, const char *trace_path)
{
    if (trace_path) {
        fputs(", \"trace_out\": {\"path\": ", c->out);
        json_cstr(c->out, trace_path);
        fprintf(c->out, ", \"spans\": %u}", c->m->nspans);
    }
    fputs("}\n", c->out);
}

/* Summary of a list of ns values: mean, sample stdev, min, max (JSON object). */
static void json_stats(FILE *f, const int64_t *v, uint32_t n)
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
    double mean = div_exact(sum, n);
    double ss = 0;
    for (uint32_t i = 0; i < n; i++)
        ss += ((double)v[i] - mean) * ((double)v[i] - mean);
    fprintf(f, "{\"n\": %u, \"mean_us\": ", n);
    json_num(f, mean / 1000.0);
    fputs(", \"stdev_us\": ", f);
    json_num(f, n > 1 ? sqrt(ss / (n - 1)) / 1000.0 : 0.0);
    fputs(", \"min_us\": ", f);
    tout_json_us(f, mn);
    fputs(", \"max_us\": ", f);
    tout_json_us(f, mx);
    fputc('}', f);
}

/* `{"hid": .., "label": .., "invocations": k, "warmup_dropped": d` of bucket b. */
static void json_callable_head(const tout_ctx *c, uint32_t b, uint32_t k)
{
    char label[16];
    fputs("{\"hid\": ", c->out);
    json_cstr(c->out, tm_str(c->m, c->m->buckets[b].hid));
    fputs(", \"label\": ", c->out);
    json_cstr(c->out, tm_bucket_label(c->m, b, label));
    fprintf(c->out, ", \"invocations\": %u, \"warmup_dropped\": %u", k, c->m->buckets[b].n - k);
}

/* ---- --warmup leaving nothing ---------------------------------------------------- */

int tout_nothing_left(const tout_ctx *c, uint64_t *dropped)
{
    const tm_model *m = c->m;
    uint64_t d = 0;
    int any_left = 0;
    for (uint32_t b = 0; b < m->nbuckets; b++) {
        uint32_t k;
        kept(c, b, &k);
        any_left |= k != 0;
        d += m->buckets[b].n - k;
    }
    if (dropped)
        *dropped = d;
    return m->nbuckets && !any_left;
}

/* The text views' first line when --warmup left no invocation at all. */
static void nothing_left_head(const tout_ctx *c)
{
    uint64_t d;
    tout_nothing_left(c, &d);
    fprintf(c->out,
            "Nothing left after --warmup %u: it drops the first %u invocation(s) of each callable, and no "
            "callable has more (%llu invocation(s) of %u callable(s) dropped).\n",
            c->warmup, c->warmup, (unsigned long long)d, c->m->nbuckets);
}

/* In the place of bucket b's table or tree when --warmup dropped all of its
 * invocations: which ones (runs of consecutive inv of one pid, the first 8
 * runs), then a blank line as after every callable. */
static void dropped_text_bucket(const tout_ctx *c, uint32_t b)
{
    const tm_model *m = c->m;
    FILE *f = c->out;
    const tm_bucket *bk = &m->buckets[b];
    const uint32_t *invs = BUCKET_INVS(m, b);
    char label[16];
    fprintf(f, "callable hid=%s (%s) \xe2\x80\x94 no invocation left: --warmup %u dropped all %u (",
            tm_str(m, bk->hid), tm_bucket_label(m, b, label), c->warmup, bk->n);
    uint32_t runs = 0, i = 0;
    while (i < bk->n) {
        const tm_inv *a = &m->invs[invs[i]];
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
static void each_callable(const tout_ctx *c, void (*json_one)(const tout_ctx *, uint32_t),
                          void (*text_one)(const tout_ctx *, uint32_t))
{
    const tm_model *m = c->m;
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
    if (tout_nothing_left(c, NULL))
        nothing_left_head(c);
    for (uint32_t b = 0; b < m->nbuckets; b++)
        text_one(c, b);
}

/* ---- names ---------------------------------------------------------------------- */

static const char *leaf_of(const char *name, size_t *len)
{
    const char *dot = strrchr(name, '.');
    const char *leaf = dot ? dot + 1 : name;
    *len = strlen(leaf);
    return leaf;
}

/* A name in a text view: control bytes and backslashes escaped. */
static void put_name(FILE *f, const char *s, size_t n)
{
    stint_out_text_str(f, s, n);
}

/* Writes s (a name: escaped) padded to `width` code points (left-aligned, or
 * right when `right`). An escape is ASCII and stands for one ASCII byte, so
 * it adds its extra bytes to the code points. */
static void put_pad(FILE *f, const char *s, size_t n, int width, int right)
{
    size_t cps = stint_out_text_len(s, n) - n;
    for (size_t i = 0; i < n; i++)
        cps += ((unsigned char)s[i] & 0xc0) != 0x80;
    size_t pad = cps < (size_t)width ? (size_t)width - cps : 0;
    if (right)
        for (size_t i = 0; i < pad; i++)
            putc(' ', f);
    put_name(f, s, n);
    if (!right)
        for (size_t i = 0; i < pad; i++)
            putc(' ', f);
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    return r ? r : (an < bn ? -1 : an > bn);
}

/* The span that names a rounds column: `<root>.<suffix>` as the reference's
 * fixed names are, with the root taken from the invocation (simpler_run in the
 * seed era, chip.run later). NULL when the invocation has none. */
static const tm_fon *named_span(const tm_model *m, uint32_t inv, const char *suffix)
{
    const tm_inv *iv = &m->invs[inv];
    const char *roots[3] = {NULL, "simpler_run", "chip.run"};
    if (iv->has_root)
        roots[0] = tm_str(m, iv->root_name);
    for (int k = 0; k < 3; k++) {
        if (!roots[k] || (k && roots[0] && !strcmp(roots[0], roots[k])))
            continue;
        char buf[512];
        int n = snprintf(buf, sizeof buf, "%s%s%s", roots[k], *suffix ? "." : "", suffix);
        if (n < 0 || (size_t)n >= sizeof buf)
            continue;
        uint32_t id = tm_str_find(m, buf, (size_t)n);
        const tm_fon *f = id == TM_NONE ? NULL : tm_fon_find(m, inv, id);
        if (f)
            return f;
    }
    return NULL;
}

/* Device wall of one invocation: the rounds column's span, else the first
 * span (lowest name id: first seen) whose leaf is `device_wall`, as pypto
 * reads it. 0 when there is none. */
static int64_t device_wall_ns(const tm_model *m, uint32_t inv)
{
    const tm_fon *f = named_span(m, inv, "runner_run.device_wall");
    const tm_inv *iv = &m->invs[inv];
    for (uint32_t i = 0; !f && i < iv->fon_len; i++) {
        size_t ln;
        const char *leaf = leaf_of(tm_str(m, iv->fon[i].name), &ln);
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

static const tm_model *stage_model;

static int cmp_stage(const void *a, const void *b)
{
    const struct stage *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    const tm_model *m = stage_model;
    return cmp_bytes(tm_str(m, x->name), tm_str_len(m, x->name), tm_str(m, y->name),
                     tm_str_len(m, y->name));
}

/* Per name (first span of the name per invocation, depth != 0): count and sum.
 * Returns a malloc'd array sorted by (-count, name); *ns its length. */
static struct stage *bucket_stages(const tm_model *m, const uint32_t *invs, uint32_t k, uint32_t *ns)
{
    uint32_t *slot = malloc(((size_t)m->nstr + 1) * sizeof *slot);
    struct stage *st = malloc(((size_t)m->nstr + 1) * sizeof *st);
    *ns = 0;
    if (!slot || !st) {
        free(slot);
        free(st);
        return NULL;
    }
    for (uint32_t i = 0; i < m->nstr; i++)
        slot[i] = TM_NONE;
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
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
    stage_model = m;
    qsort(st, *ns, sizeof *st, cmp_stage);
    return st;
}

/* The reference's printed mean: Python's sum / n, truncated to whole ns, in us. */
static double trunc_mean_us(i128 sum, uint32_t n)
{
    double mean = div_exact(sum, n);
    return (double)(int64_t)mean / 1000.0;
}

/* The table view of bucket b as one JSON object: root stats, per-invocation
 * host and device walls (what pypto reads), and per-stage stats. */
static void table_json_bucket(const tout_ctx *c, uint32_t b)
{
    const tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t k;
    const uint32_t *invs = kept(c, b, &k);
    int64_t *v = malloc(((size_t)k + 1) * sizeof *v);
    json_callable_head(c, b, k);
    if (!v) {
        fputs("}", f);
        return;
    }
    uint32_t nr = 0;
    const char *root_name = NULL;
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        if (!iv->has_root)
            continue;
        if (!root_name)
            root_name = tm_str(m, iv->root_name);
        v[nr++] = iv->root_dur_ns;
    }
    fputs(", \"root\": ", f);
    if (root_name) {
        fputs("{\"name\": ", f);
        json_cstr(f, root_name);
        fputs(", \"stats\": ", f);
        json_stats(f, v, nr);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    /* Per invocation, as pypto's benchmark reads them: host wall = root dur
     * (0 without a root), device wall = device_wall dur (0 without one). */
    fputs(", \"rounds\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        fprintf(f, "%s{\"pid\": %llu, \"inv\": %llu}", i ? ", " : "", (unsigned long long)iv->pid,
                (unsigned long long)iv->inv);
    }
    fputs("], \"host_wall_us\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        v[i] = iv->has_root ? iv->root_dur_ns : 0;
        fputs(i ? ", " : "", f);
        tout_json_us(f, v[i]);
    }
    fputs("], \"host_wall\": ", f);
    json_stats(f, v, k);
    fputs(", \"device_wall_us\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        v[i] = device_wall_ns(m, invs[i]);
        fputs(i ? ", " : "", f);
        tout_json_us(f, v[i]);
    }
    fputs("], \"device_wall\": ", f);
    json_stats(f, v, k);
    fputs(", \"stages\": [", f);
    uint32_t ns;
    struct stage *st = bucket_stages(m, invs, k, &ns);
    for (uint32_t i = 0; st && i < ns; i++) {
        const char *name = tm_str(m, st[i].name);
        uint32_t dots = 0, nv = 0;
        for (const char *q = name; *q; q++)
            dots += *q == '.';
        for (uint32_t j = 0; j < k; j++) {
            const tm_fon *fo = tm_fon_find(m, invs[j], st[i].name);
            if (fo && fo->depth != 0)
                v[nv++] = fo->dur_ns;
        }
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_cstr(f, name);
        fprintf(f, ", \"level\": %u, \"stats\": ", dots);
        json_stats(f, v, nv);
        fputc('}', f);
    }
    fputs("]}", f);
    free(st);
    free(v);
}

/* The reference's table for bucket b. */
static void table_text_bucket(const tout_ctx *c, uint32_t b)
{
    const tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t k;
    const uint32_t *invs = kept(c, b, &k);
    if (!k) {
        dropped_text_bucket(c, b);
        return;
    }
    fprintf(f, "callable hid=%s \xe2\x80\x94 %u invocation(s)\n", tm_str(m, m->buckets[b].hid), k);
    i128 sum = 0;
    uint32_t nr = 0;
    int64_t mn = 0, mx = 0;
    const char *root_name = NULL;
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        if (!iv->has_root)
            continue;
        int64_t d = iv->root_dur_ns;
        if (!root_name) {
            root_name = tm_str(m, iv->root_name);
            mn = mx = d;
        }
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        sum += d;
        nr++;
    }
    if (nr) {
        fputs("  ", f);
        put_name(f, root_name, strlen(root_name));
        fprintf(f, ": mean=%.1fus min=%.1fus max=%.1fus", trunc_mean_us(sum, nr), (double)mn / 1000.0,
                (double)mx / 1000.0);
        if (c->warmup_set) {
            double mean = div_exact(sum, nr), ss = 0;
            for (uint32_t i = 0; i < k; i++) {
                const tm_inv *iv = &m->invs[invs[i]];
                if (iv->has_root)
                    ss += ((double)iv->root_dur_ns - mean) * ((double)iv->root_dur_ns - mean);
            }
            fprintf(f, " stdev=%.1fus", nr > 1 ? sqrt(ss / (nr - 1)) / 1000.0 : 0.0);
        }
        fputc('\n', f);
    }
    uint32_t ns;
    struct stage *st = bucket_stages(m, invs, k, &ns);
    for (uint32_t i = 0; st && i < ns; i++) {
        const char *name = tm_str(m, st[i].name);
        fputs("  ", f);
        for (const char *q = name; *q; q++)
            if (*q == '.')
                fputs("  ", f);
        put_name(f, name, tm_str_len(m, st[i].name));
        fprintf(f, ": mean=%.1fus (n=%u)\n", trunc_mean_us(st[i].sum, st[i].n), st[i].n);
    }
    free(st);
    fputc('\n', f);
}

void tout_table(const tout_ctx *c)
{
    each_callable(c, table_json_bucket, table_text_bucket);
}

/* ---- the rounds table --------------------------------------------------------------- */

static const char *const COLS[5] = {"Host", "Device", "Effective", "Orch", "Sched"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One round's five values in us, as the reference computes them. */
static void round_metrics(const tm_model *m, uint32_t inv, double out[5], int64_t ns[5])
{
    const tm_fon *dev = named_span(m, inv, "runner_run.device_wall");
    const tm_fon *orch = named_span(m, inv, "runner_run.device_wall.orch");
    const tm_fon *sched = named_span(m, inv, "runner_run.device_wall.sched");
    /* Host is the first span named like the root (the reference looks it up
     * by name), which is the root itself in every well-formed log. */
    const tm_fon *host = named_span(m, inv, "");
    const tm_fon *cols[5] = {host, dev, NULL, orch, sched};
    for (int i = 0; i < 5; i++) {
        ns[i] = cols[i] ? cols[i]->dur_ns : 0;
        out[i] = cols[i] ? (double)ns[i] / 1000.0 : 0.0;
    }
    if (orch || sched) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        const tm_fon *w[2] = {orch, sched};
        for (int i = 0; i < 2; i++) {
            if (!w[i])
                continue;
            lo = w[i]->ts_ns < lo ? w[i]->ts_ns : lo;
            hi = w[i]->ts_ns + w[i]->dur_ns > hi ? w[i]->ts_ns + w[i]->dur_ns : hi;
        }
        ns[2] = hi - lo;
        out[2] = (double)(hi - lo) / 1000.0;
    }
}

/* Left-to-right double sum: the reference's sum() over a sorted list. */
static double sum_in_order(const double *v, uint32_t n)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

void tout_rounds(const tout_ctx *c)
{
    const tm_model *m = c->m;
    FILE *f = c->out;
    if (!m->nbuckets) {
        if (c->json) {
            fputs("\"callable\": null, \"rounds\": []", f);
            fprintf(stderr, "No [STRACE] markers found.\n");
        } else {
            fputs("No [STRACE] markers found.\n", f);
        }
        return;
    }
    uint32_t n;
    const uint32_t *invs = kept(c, 0, &n);
    double *rows = malloc(((size_t)n + 1) * 5 * sizeof *rows);
    int64_t *rows_ns = malloc(((size_t)n + 1) * 5 * sizeof *rows_ns);
    double *vals = malloc(((size_t)n + 1) * 5 * sizeof *vals);
    if (!rows || !rows_ns || !vals) {
        free(rows);
        free(rows_ns);
        free(vals);
        fprintf(stderr, "stint timing: out of memory\n");
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        round_metrics(m, invs[i], rows + 5 * i, rows_ns + 5 * i);
    /* Column values sorted: host over all rows, others over nonzero rows. */
    double *sorted[5];
    uint32_t cnt[5];
    for (int col = 0; col < 5; col++) {
        sorted[col] = vals + (size_t)col * (n + 1);
        cnt[col] = 0;
        for (uint32_t i = 0; i < n; i++)
            if (col == 0 || rows[5 * (size_t)i + (size_t)col] > 0.0)
                sorted[col][cnt[col]++] = rows[5 * (size_t)i + (size_t)col];
        qsort(sorted[col], cnt[col], sizeof(double), cmp_double);
    }
    int shown[5], nshown = 0;
    shown[nshown++] = 0;
    for (int col = 1; col < 5; col++)
        if (cnt[col])
            shown[nshown++] = col;

    if (c->json) {
        char label[16];
        fputs("\"callable\": {\"hid\": ", f);
        json_cstr(f, tm_str(m, m->buckets[0].hid));
        fputs(", \"label\": ", f);
        json_cstr(f, tm_bucket_label(m, 0, label));
        fprintf(f, "}, \"warmup_dropped\": %u, \"rounds\": [", m->buckets[0].n - n);
        static const char *const keys[5] = {"host_us", "device_us", "effective_us", "orch_us", "sched_us"};
        for (uint32_t i = 0; i < n; i++) {
            const tm_inv *iv = &m->invs[invs[i]];
            fprintf(f, "%s{\"round\": %u, \"pid\": %llu, \"inv\": %llu", i ? ", " : "", i,
                    (unsigned long long)iv->pid, (unsigned long long)iv->inv);
            for (int col = 0; col < 5; col++) {
                fprintf(f, ", \"%s\": ", keys[col]);
                tout_json_us(f, rows_ns[5 * (size_t)i + (size_t)col]);
            }
            fputc('}', f);
        }
        fputs("], \"columns\": {", f);
        int64_t *v = malloc(((size_t)n + 1) * sizeof *v);
        for (int col = 0; col < 5 && v; col++) {
            uint32_t nv = 0;
            for (uint32_t i = 0; i < n; i++)
                if (col == 0 || rows_ns[5 * (size_t)i + (size_t)col] > 0)
                    v[nv++] = rows_ns[5 * (size_t)i + (size_t)col];
            fprintf(f, "%s\"%s\": {\"shown\": %s, \"stats\": ", col ? ", " : "", COLS[col],
                    (col == 0 || cnt[col]) ? "true" : "false");
            json_stats(f, v, nv);
            fputc('}', f);
        }
        free(v);
        fputs("}", f);
        free(rows);
        free(rows_ns);
        free(vals);
        return;
    }

    if (!n) { /* --warmup dropped every invocation (bucket 0 has the most) */
        nothing_left_head(c);
        dropped_text_bucket(c, 0);
        free(rows);
        free(rows_ns);
        free(vals);
        return;
    }
    char header[256];
    int hl = snprintf(header, sizeof header, "  %-6s", "Round");
    for (int i = 0; i < nshown; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%s (us)", COLS[shown[i]]);
        hl += snprintf(header + hl, sizeof header - (size_t)hl, "  %12s", lab);
    }
    fprintf(f, "%s\n  ", header);
    for (int i = 0; i < hl - 2; i++)
        putc('-', f);
    putc('\n', f);
    for (uint32_t r = 0; r < n; r++) {
        fprintf(f, "  %-6u", r);
        for (int i = 0; i < nshown; i++)
            fprintf(f, "  %12.1f", rows[5 * (size_t)r + (size_t)shown[i]]);
        putc('\n', f);
    }
    fprintf(f, "  Avg Host: %.1f us", sum_in_order(sorted[0], n) / n);
    for (int i = 1; i < nshown; i++) {
        int col = shown[i];
        fprintf(f, "  |  Avg %s: %.1f us", COLS[col], sum_in_order(sorted[col], cnt[col]) / cnt[col]);
        if (col == 1)
            fprintf(f, " [%u/%u]", cnt[1], n);
    }
    fprintf(f, "  (%u rounds)\n", n);
    const uint32_t trim = 10;
    if (n > 2 * trim) {
        uint32_t tc = n - 2 * trim;
        fprintf(f, "  Trimmed Avg Host: %.1f us", sum_in_order(sorted[0] + trim, tc) / tc);
        if (cnt[1] > 2 * trim)
            fprintf(f, "  |  Trimmed Avg Device: %.1f us",
                    sum_in_order(sorted[1] + trim, cnt[1] - 2 * trim) / (cnt[1] - 2 * trim));
        fprintf(f, "  (dropped %u low + %u high, %u rounds used)\n", trim, trim, tc);
    }
    free(rows);
    free(rows_ns);
    free(vals);
}

/* ---- the median tree ---------------------------------------------------------------- */

struct tree {
    const tout_ctx *c;
    const uint32_t *invs;
    uint32_t k;
    double *med_us;        /* per name id: median dur in us (NAN when absent) */
    uint32_t *ref;         /* spans of the reference invocation, input order */
    uint32_t nref;
    uint32_t *key;         /* per ref position: the node key */
    uint32_t *parent;      /* per ref position: parent key or TM_NONE */
    int json_first;
};

/* The reference's median of ints (v is sorted in place): the middle value,
 * or the mean of the two middle ones as a double; 0 for none. */
static double median_i64(int64_t *v, uint32_t n)
{
    if (!n)
        return 0.0;
    for (uint32_t i = 1; i < n; i++) { /* insertion sort: short lists */
        int64_t x = v[i];
        uint32_t j = i;
        while (j && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    uint32_t mid = n / 2;
    if (n % 2)
        return (double)v[mid];
    return (double)((i128)v[mid - 1] + v[mid]) / 2.0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Median per name over the kept invocations (first span of each name). */
static double *name_medians(const tm_model *m, const uint32_t *invs, uint32_t k)
{
    double *med = malloc(((size_t)m->nstr + 1) * sizeof *med);
    uint32_t *cnt = calloc((size_t)m->nstr + 1, sizeof *cnt);
    uint32_t *off = malloc(((size_t)m->nstr + 2) * sizeof *off);
    uint64_t total = 0;
    if (!med || !cnt || !off)
        goto fail;
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        for (uint32_t f = 0; f < iv->fon_len; f++)
            cnt[iv->fon[f].name]++;
        total += iv->fon_len;
    }
    int64_t *v = malloc((size_t)(total + 1) * sizeof *v);
    if (!v)
        goto fail;
    uint32_t acc = 0;
    for (uint32_t i = 0; i < m->nstr; i++) {
        off[i] = acc;
        acc += cnt[i];
        cnt[i] = 0;
    }
    for (uint32_t i = 0; i < k; i++) {
        const tm_inv *iv = &m->invs[invs[i]];
        for (uint32_t f = 0; f < iv->fon_len; f++) {
            uint32_t nm = iv->fon[f].name;
            v[off[nm] + cnt[nm]++] = iv->fon[f].dur_ns;
        }
    }
    for (uint32_t i = 0; i < m->nstr; i++) {
        if (!cnt[i]) {
            med[i] = NAN;
            continue;
        }
        qsort(v + off[i], cnt[i], sizeof *v, cmp_i64);
        med[i] = median_i64(v + off[i], cnt[i]) / 1000.0;
    }
    free(v);
    free(cnt);
    free(off);
    return med;
fail:
    free(med);
    free(cnt);
    free(off);
    return NULL;
}

/* Median over the kept invocations of the orch ∪ sched window. */
static double effective_median_us(const struct tree *t, uint32_t orch_name, uint32_t sched_name)
{
    const tm_model *m = t->c->m;
    int64_t *v = malloc(((size_t)t->k + 1) * sizeof *v);
    uint32_t n = 0;
    if (!v)
        return 0.0;
    for (uint32_t i = 0; i < t->k; i++) {
        const tm_fon *a = tm_fon_find(m, t->invs[i], orch_name), *b = tm_fon_find(m, t->invs[i], sched_name);
        if (!a || !b)
            continue;
        int64_t hi = a->ts_ns + a->dur_ns > b->ts_ns + b->dur_ns ? a->ts_ns + a->dur_ns : b->ts_ns + b->dur_ns;
        int64_t lo = a->ts_ns < b->ts_ns ? a->ts_ns : b->ts_ns;
        v[n++] = hi - lo;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    double r = median_i64(v, n) / 1000.0;
    free(v);
    return r;
}

/* Ref positions whose parent is `key`, sorted by ts (stable). *n their count. */
static uint32_t *kids_of(const struct tree *t, uint32_t key, uint32_t *n)
{
    const tm_model *m = t->c->m;
    uint32_t *out = malloc(((size_t)t->nref + 1) * sizeof *out);
    *n = 0;
    if (!out)
        return NULL;
    for (uint32_t i = 0; i < t->nref; i++)
        if (t->parent[i] == key) {
            uint32_t j = (*n)++;
            int64_t ts = m->spans[t->ref[i]].ts_ns;
            while (j && m->spans[t->ref[out[j - 1]]].ts_ns > ts) {
                out[j] = out[j - 1];
                j--;
            }
            out[j] = i;
        }
    return out;
}

static int leaf_is(const tm_model *m, uint32_t span, const char *want)
{
    size_t n;
    const char *leaf = leaf_of(tm_str(m, m->spans[span].name), &n);
    return n == strlen(want) && !memcmp(leaf, want, n);
}

/* Writes the node at reference position pos and, recursively, its children
 * by ts, folding an orch/sched pair into one Effective line (text or JSON). */
static void emit_node(struct tree *t, uint32_t pos, int indent)
{
    const tm_model *m = t->c->m;
    FILE *f = t->c->out;
    uint32_t s = t->ref[pos];
    const tm_span *sp = &m->spans[s];
    size_t ln;
    const char *leaf = leaf_of(tm_str(m, sp->name), &ln);
    double med = t->med_us[sp->name];
    if (t->c->json) {
        fputs(t->json_first ? "{\"name\": " : ", {\"name\": ", f);
        t->json_first = 0;
        json_cstr(f, tm_str(m, sp->name));
        fputs(", \"leaf\": ", f);
        tout_json_str(f, leaf, ln);
        fprintf(f, ", \"dev\": %s, \"median_us\": ", sp->dev ? "true" : "false");
        json_num(f, med);
        fputs(", \"children\": [", f);
        t->json_first = 1;
    } else {
        for (int i = 0; i < indent; i++)
            fputs("  ", f);
        put_pad(f, leaf, ln, 22, 0);
        put_pad(f, sp->dev ? " [dev]" : "", sp->dev ? 6 : 0, 6, 1);
        fprintf(f, "  %12.1f us\n", med);
    }
    uint32_t nk;
    uint32_t *kids = kids_of(t, t->key[pos], &nk);
    int has_orch = 0, has_sched = 0;
    uint32_t sched_pos = TM_NONE;
    for (uint32_t i = 0; kids && i < nk; i++) {
        if (leaf_is(m, t->ref[kids[i]], "orch"))
            has_orch = 1;
        if (leaf_is(m, t->ref[kids[i]], "sched")) {
            if (sched_pos == TM_NONE)
                sched_pos = kids[i];
            has_sched = 1;
        }
    }
    for (uint32_t i = 0; kids && i < nk; i++) {
        uint32_t cs = t->ref[kids[i]];
        if (leaf_is(m, cs, "orch") && has_sched) {
            uint32_t ss = t->ref[sched_pos];
            double eff = effective_median_us(t, m->spans[cs].name, m->spans[ss].name);
            double om = t->med_us[m->spans[cs].name], sm = t->med_us[m->spans[ss].name];
            if (t->c->json) {
                fputs(t->json_first ? "{\"name\": \"Effective\"" : ", {\"name\": \"Effective\"", f);
                t->json_first = 0;
                fputs(", \"dev\": true, \"median_us\": ", f);
                json_num(f, eff);
                fputs(", \"concurrent\": {\"orch_median_us\": ", f);
                json_num(f, om);
                fputs(", \"sched_median_us\": ", f);
                json_num(f, sm);
                fputs("}}", f);
            } else {
                for (int j = 0; j < indent + 1; j++)
                    fputs("  ", f);
                fputs("Effective              [dev]  ", f);
                fprintf(f, "%12.1f us\n", eff);
                for (int j = 0; j < indent + 1; j++)
                    fputs("  ", f);
                fprintf(f, "  orch %.1f  \xe2\x88\xa5  sched %.1f   (concurrent)\n", om, sm);
            }
        } else if (leaf_is(m, cs, "sched") && has_orch) {
            continue;
        } else {
            emit_node(t, kids[i], indent + 1);
        }
    }
    free(kids);
    if (t->c->json) {
        fputs("]}", f);
        t->json_first = 0;
    }
}

/* Node keys and parents of the reference invocation's spans.
 * names: key = name id, parent = the id of the name minus its last dotted
 * component when the reference invocation has a span of that name.
 * depth: key = ref position; spans are emitted when they end, so a host span
 * adopts the pending deeper spans of its (tid) before it; clk=dev spans are
 * emitted parent first, so a device span's parent is the latest device span
 * one level up; a device span with none hangs under the host span one level up
 * whose name prefixes its own (else the latest host span one level up). */
static void tree_links(struct tree *t, int by_depth)
{
    const tm_model *m = t->c->m;
    for (uint32_t i = 0; i < t->nref; i++) {
        const tm_span *s = &m->spans[t->ref[i]];
        t->parent[i] = TM_NONE;
        if (!by_depth) {
            t->key[i] = s->name;
            const char *nm = tm_str(m, s->name);
            const char *dot = strrchr(nm, '.');
            if (dot) {
                uint32_t pid = tm_str_find(m, nm, (size_t)(dot - nm));
                for (uint32_t j = 0; pid != TM_NONE && j < t->nref; j++)
                    if (m->spans[t->ref[j]].name == pid) {
                        t->parent[i] = pid;
                        break;
                    }
            }
        } else {
            t->key[i] = i;
        }
    }
    if (!by_depth)
        return;
    uint32_t *stack = malloc(((size_t)t->nref + 1) * sizeof *stack);
    if (!stack)
        return;
    /* host spans, per tid, post-order */
    for (uint32_t i = 0; i < t->nref; i++) {
        const tm_span *s = &m->spans[t->ref[i]];
        if (s->dev)
            continue;
        uint32_t sp = 0;
        /* rebuild the pending stack of this tid lazily: scan earlier spans */
        for (uint32_t j = 0; j < i; j++) {
            const tm_span *o = &m->spans[t->ref[j]];
            if (!o->dev && o->tid == s->tid && t->parent[j] == TM_NONE && o->depth > s->depth)
                stack[sp++] = j;
        }
        for (uint32_t j = 0; j < sp; j++)
            t->parent[stack[j]] = i;
    }
    /* device spans, per tid, pre-order */
    for (uint32_t i = 0; i < t->nref; i++) {
        const tm_span *s = &m->spans[t->ref[i]];
        if (!s->dev || s->depth == 0)
            continue;
        uint32_t best = TM_NONE;
        for (uint32_t j = i; j-- > 0;) {
            const tm_span *o = &m->spans[t->ref[j]];
            if (o->dev && o->tid == s->tid && o->depth < s->depth) {
                if (o->depth == s->depth - 1)
                    best = j;
                break;
            }
        }
        if (best == TM_NONE) {
            const char *nm = tm_str(m, s->name);
            uint32_t latest = TM_NONE;
            for (uint32_t j = 0; j < t->nref; j++) {
                const tm_span *o = &m->spans[t->ref[j]];
                if (o->dev || o->tid != s->tid || o->depth + 1 != s->depth)
                    continue;
                const char *on = tm_str(m, o->name);
                size_t ol = strlen(on);
                if (!strncmp(nm, on, ol) && nm[ol] == '.') {
                    best = j;
                    break;
                }
                if (j < i)
                    latest = j;
            }
            if (best == TM_NONE)
                best = latest;
        }
        t->parent[i] = best;
    }
    free(stack);
}

/* The tree view of bucket b: medians over its kept invocations, drawn in the
 * shape of the last one. In text mode, when warmup left none, says so. */
static void tree_bucket(const tout_ctx *c, uint32_t b)
{
    const tm_model *m = c->m;
    FILE *f = c->out;
    struct tree t;
    memset(&t, 0, sizeof t);
    t.c = c;
    t.invs = kept(c, b, &t.k);
    char label[16];
    tm_bucket_label(m, b, label);
    if (c->json) {
        json_callable_head(c, b, t.k);
        fputs(", \"nodes\": [", f);
    } else {
        if (!t.k) {
            dropped_text_bucket(c, b);
            return;
        }
        if (t.k > 1)
            fprintf(f, "callable hid=%s (%s) \xe2\x80\x94 median of %u invocation(s)\n",
                    tm_str(m, m->buckets[b].hid), label, t.k);
        else
            fprintf(f, "callable hid=%s (%s) \xe2\x80\x94 1 invocation\n", tm_str(m, m->buckets[b].hid), label);
    }
    if (t.k) {
        const tm_inv *ref = &m->invs[t.invs[t.k - 1]];
        t.med_us = name_medians(m, t.invs, t.k);
        t.ref = malloc(((size_t)ref->nspans + 1) * sizeof *t.ref);
        t.key = malloc(((size_t)ref->nspans + 1) * sizeof *t.key);
        t.parent = malloc(((size_t)ref->nspans + 1) * sizeof *t.parent);
        if (t.med_us && t.ref && t.key && t.parent) {
            for (uint32_t s = ref->first; s != TM_NONE; s = m->spans[s].next)
                t.ref[t.nref++] = s;
            tree_links(&t, c->tree_depth);
            uint32_t nr;
            uint32_t *roots = kids_of(&t, TM_NONE, &nr);
            t.json_first = 1;
            for (uint32_t i = 0; roots && i < nr; i++)
                emit_node(&t, roots[i], 0);
            free(roots);
        }
        free(t.med_us);
        free(t.ref);
        free(t.key);
        free(t.parent);
    }
    if (c->json)
        fputs("]}", f);
    else
        fputc('\n', f);
}

void tout_tree(const tout_ctx *c)
{
    if (c->json)
        fprintf(c->out, "\"mode\": \"%s\", ", c->tree_depth ? "depth" : "names");
    each_callable(c, tree_bucket, tree_bucket);
}

/* ---- Chrome trace ------------------------------------------------------------------- */

int tout_chrome(const tm_model *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return errno ? errno : EIO;
    static char buf[1 << 18];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    uint32_t *bucket_of = malloc(((size_t)m->nstr + 1) * sizeof *bucket_of);
    if (!bucket_of) {
        fclose(f);
        return ENOMEM;
    }
    for (uint32_t i = 0; i < m->nstr; i++)
        bucket_of[i] = TM_NONE;
    for (uint32_t b = 0; b < m->nbuckets; b++)
        bucket_of[m->buckets[b].hid] = b;
    fputs("{\"traceEvents\": [", f);
    int first = 1;
    for (uint32_t i = 0; i < m->ninvs; i++) {
        const tm_inv *iv = &m->invs[m->order[i]];
        uint32_t lane = i + 1;
        char label[16];
        tm_bucket_label(m, bucket_of[iv->hid], label);
        fprintf(f,
                "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %u, \"tid\": 0, \"args\": {\"name\": ",
                first ? "" : ", ", lane);
        first = 0;
        char pname[96];
        snprintf(pname, sizeof pname, "%s inv=%llu (pid=%llu)", label, (unsigned long long)iv->inv,
                 (unsigned long long)iv->pid);
        json_cstr(f, pname);
        fprintf(f,
                "}}, {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %u, \"tid\": 0, \"args\": "
                "{\"name\": \"host\"}}, {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %u, \"tid\": 1, "
                "\"args\": {\"name\": \"device (clk=dev)\"}}",
                lane, lane);
        for (uint32_t s = iv->first; s != TM_NONE; s = m->spans[s].next) {
            const tm_span *sp = &m->spans[s];
            fputs(", {\"name\": ", f);
            tout_json_str(f, tm_str(m, sp->name), tm_str_len(m, sp->name));
            fputs(", \"ph\": \"X\", \"ts\": ", f);
            tout_json_us(f, sp->ts_ns);
            fputs(", \"dur\": ", f);
            tout_json_us(f, sp->dur_ns);
            fprintf(f, ", \"pid\": %u, \"tid\": %u, \"args\": {\"inv\": %llu, \"hid\": ", lane, sp->dev ? 1u : 0u,
                    (unsigned long long)iv->inv);
            json_cstr(f, tm_str(m, sp->hid));
            fprintf(f, ", \"depth\": %u, \"attrs\": ", sp->depth);
            markers_text a = tm_attrs(m, s);
            tout_json_str(f, a.ptr, a.len);
            fputs("}}", f);
        }
    }
    fputs("], \"displayTimeUnit\": \"ms\"}", f);
    free(bucket_of);
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) && !err)
        err = errno ? errno : EIO;
    return err;
}
