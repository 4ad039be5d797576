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
#include "timing/timing_out.h"
#include "write/textout.h"
#include "base/tsparse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef stint_i128 i128;

#define BUCKET_INVS(m, b) ((m)->bucket_invs + (m)->buckets[b].off)

/* The invocations of bucket b left after warmup: *n of them. */
static const uint32_t *kept(const struct stint_tout_ctx *c, uint32_t b, uint32_t *n)
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

void stint_tout_json_str(FILE *f, const char *s, size_t n)
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
                if (c < 0x20 || c == 0x7f) /* (as python's json.dump: all but printable ASCII) */
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
    stint_tout_json_str(f, s, strlen(s));
}

/* A name in a text view: control bytes and backslashes escaped. */
static void put_name(FILE *f, const char *s, size_t n)
{
    stint_out_text_str(f, s, n);
}

/* "callable hid=<hid>", the hid escaped as a name is. */
static void put_hid(FILE *f, const struct stint_tm_model *m, uint32_t hid)
{
    fputs("callable hid=", f);
    put_name(f, stint_tm_str(m, hid), stint_tm_str_len(m, hid));
}

/* An interned string (a name or hid) as a JSON string: whole, NUL bytes included. */
static void json_id(FILE *f, const struct stint_tm_model *m, uint32_t id)
{
    stint_tout_json_str(f, stint_tm_str(m, id), stint_tm_str_len(m, id));
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
    stint_tout_json_us(f, mn);
    fputs(", \"max_us\": ", f);
    stint_tout_json_us(f, mx);
    fputc('}', f);
}

/* `{"hid": .., "label": .., "invocations": k, "warmup_dropped": d` of bucket b. */
static void json_callable_head(const struct stint_tout_ctx *c, uint32_t b, uint32_t k)
{
    char label[16];
    fputs("{\"hid\": ", c->out);
    json_id(c->out, c->m, c->m->buckets[b].hid);
    fputs(", \"label\": ", c->out);
    json_cstr(c->out, stint_tm_bucket_label(c->m, b, label));
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
        kept(c, b, &k);
        any_left |= k != 0;
        d += m->buckets[b].n - k;
    }
    if (dropped)
        *dropped = d;
    return m->nbuckets && !any_left;
}

/* The text views' first line when --warmup left no invocation at all. */
static void nothing_left_head(const struct stint_tout_ctx *c)
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
static void dropped_text_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    const struct stint_tm_bucket *bk = &m->buckets[b];
    const uint32_t *invs = BUCKET_INVS(m, b);
    char label[16];
    put_hid(f, m, bk->hid);
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
static void each_callable(const struct stint_tout_ctx *c, void (*json_one)(const struct stint_tout_ctx *, uint32_t),
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
        nothing_left_head(c);
    for (uint32_t b = 0; b < m->nbuckets; b++)
        text_one(c, b);
}

/* ---- names ---------------------------------------------------------------------- */

/* The leaf of interned name `id` (after its last '.'); *len its length. */
static const char *leaf_of(const struct stint_tm_model *m, uint32_t id, size_t *len)
{
    const char *name = stint_tm_str(m, id);
    size_t n = stint_tm_str_len(m, id);
    const char *dot = memrchr(name, '.', n);
    const char *leaf = dot ? dot + 1 : name;
    *len = n - (size_t)(leaf - name);
    return leaf;
}

/* The number of '.' in interned name `id`. */
static uint32_t dots_of(const struct stint_tm_model *m, uint32_t id)
{
    const char *s = stint_tm_str(m, id);
    uint32_t d = 0;
    for (size_t i = 0, n = stint_tm_str_len(m, id); i < n; i++)
        d += s[i] == '.';
    return d;
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

/* The span that names a rounds column: `<root>.<suffix>`, the root being the
 * reference's fixed name (simpler_run in the seed era, chip.run later), looked
 * up by name as the reference does (an invocation whose first depth-0 span is
 * something else, a warm-up step, still times simpler_run), else the
 * invocation's own root. NULL when the invocation has none. */
static const struct stint_tm_fon *named_span(const struct stint_tm_model *m, uint32_t inv, const char *suffix)
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

/* Device wall of one invocation: the rounds column's span, else the first
 * span (lowest name id: first seen) whose leaf is `device_wall`, as pypto
 * reads it. 0 when there is none. */
static int64_t device_wall_ns(const struct stint_tm_model *m, uint32_t inv)
{
    const struct stint_tm_fon *f = named_span(m, inv, "runner_run.device_wall");
    const struct stint_tm_inv *iv = &m->invs[inv];
    for (uint32_t i = 0; !f && i < iv->fon_len; i++) {
        size_t ln;
        const char *leaf = leaf_of(m, iv->fon[i].name, &ln);
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

static const struct stint_tm_model *stage_model;

static int cmp_stage(const void *a, const void *b)
{
    const struct stage *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    const struct stint_tm_model *m = stage_model;
    return cmp_bytes(stint_tm_str(m, x->name), stint_tm_str_len(m, x->name), stint_tm_str(m, y->name),
                     stint_tm_str_len(m, y->name));
}

/* Per name (first span of the name per invocation, depth != 0): count and sum.
 * Returns a malloc'd array sorted by (-count, name); *ns its length. */
static struct stage *bucket_stages(const struct stint_tm_model *m, const uint32_t *invs, uint32_t k, uint32_t *ns)
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
static void table_json_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
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
        json_id(f, m, root_name);
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
    json_stats(f, v, k);
    fputs(", \"device_wall_us\": [", f);
    for (uint32_t i = 0; i < k; i++) {
        v[i] = device_wall_ns(m, invs[i]);
        fputs(i ? ", " : "", f);
        stint_tout_json_us(f, v[i]);
    }
    fputs("], \"device_wall\": ", f);
    json_stats(f, v, k);
    fputs(", \"stages\": [", f);
    uint32_t ns;
    struct stage *st = bucket_stages(m, invs, k, &ns);
    for (uint32_t i = 0; st && i < ns; i++) {
        uint32_t dots = dots_of(m, st[i].name), nv = 0;
        for (uint32_t j = 0; j < k; j++) {
            const struct stint_tm_fon *fo = stint_tm_fon_find(m, invs[j], st[i].name);
            if (fo && fo->depth != 0)
                v[nv++] = fo->dur_ns;
        }
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_id(f, m, st[i].name);
        fprintf(f, ", \"level\": %u, \"stats\": ", dots);
        json_stats(f, v, nv);
        fputc('}', f);
    }
    fputs("]}", f);
    free(st);
    free(v);
}

/* The reference's table for bucket b. */
static void table_text_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    uint32_t k;
    const uint32_t *invs = kept(c, b, &k);
    if (!k) {
        dropped_text_bucket(c, b);
        return;
    }
    put_hid(f, m, m->buckets[b].hid);
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
        put_name(f, stint_tm_str(m, root_name), stint_tm_str_len(m, root_name));
        fprintf(f, ": mean=%.1fus min=%.1fus max=%.1fus", trunc_mean_us(sum, nr), (double)mn / 1000.0,
                (double)mx / 1000.0);
        if (c->warmup_set) {
            double mean = div_exact(sum, nr), ss = 0;
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
    for (uint32_t i = 0; st && i < ns; i++) {
        fputs("  ", f);
        for (uint32_t d = dots_of(m, st[i].name); d; d--)
            fputs("  ", f);
        put_name(f, stint_tm_str(m, st[i].name), stint_tm_str_len(m, st[i].name));
        fprintf(f, ": mean=%.1fus (n=%u)\n", trunc_mean_us(st[i].sum, st[i].n), st[i].n);
    }
    free(st);
    fputc('\n', f);
}

void stint_tout_table(const struct stint_tout_ctx *c)
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
static void round_metrics(const struct stint_tm_model *m, uint32_t inv, double out[5], int64_t ns[5])
{
    const struct stint_tm_fon *dev = named_span(m, inv, "runner_run.device_wall");
    const struct stint_tm_fon *orch = named_span(m, inv, "runner_run.device_wall.orch");
    const struct stint_tm_fon *sched = named_span(m, inv, "runner_run.device_wall.sched");
    /* Host is the first span named simpler_run (or chip.run; the reference
     * looks it up by name), else the invocation's root. */
    const struct stint_tm_fon *host = named_span(m, inv, "");
    const struct stint_tm_fon *cols[5] = {host, dev, NULL, orch, sched};
    for (int i = 0; i < 5; i++) {
        ns[i] = cols[i] ? cols[i]->dur_ns : 0;
        out[i] = cols[i] ? (double)ns[i] / 1000.0 : 0.0;
    }
    if (orch || sched) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        const struct stint_tm_fon *w[2] = {orch, sched};
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

void stint_tout_rounds(const struct stint_tout_ctx *c)
{
    const struct stint_tm_model *m = c->m;
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
        json_id(f, m, m->buckets[0].hid);
        fputs(", \"label\": ", f);
        json_cstr(f, stint_tm_bucket_label(m, 0, label));
        fprintf(f, "}, \"warmup_dropped\": %u, \"rounds\": [", m->buckets[0].n - n);
        static const char *const keys[5] = {"host_us", "device_us", "effective_us", "orch_us", "sched_us"};
        for (uint32_t i = 0; i < n; i++) {
            const struct stint_tm_inv *iv = &m->invs[invs[i]];
            fprintf(f, "%s{\"round\": %u, \"pid\": %llu, \"inv\": %llu", i ? ", " : "", i,
                    (unsigned long long)iv->pid, (unsigned long long)iv->inv);
            for (int col = 0; col < 5; col++) {
                fprintf(f, ", \"%s\": ", keys[col]);
                stint_tout_json_us(f, rows_ns[5 * (size_t)i + (size_t)col]);
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
    const struct stint_tout_ctx *c;
    const uint32_t *invs;
    uint32_t k;
    double *med_us;        /* per name id: median dur in us (NAN when absent) */
    uint32_t *ref;         /* spans of the reference invocation, input order */
    uint32_t nref;
    uint32_t *key;         /* per ref position: the node key */
    uint32_t *parent;      /* per ref position: parent key or TM_NONE */
    uint32_t *by_parent;   /* ref positions by (parent key, ts, position): each node's children are one run */
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
static double *name_medians(const struct stint_tm_model *m, const uint32_t *invs, uint32_t k)
{
    double *med = malloc(((size_t)m->nstr + 1) * sizeof *med);
    uint32_t *cnt = calloc((size_t)m->nstr + 1, sizeof *cnt);
    uint32_t *off = malloc(((size_t)m->nstr + 2) * sizeof *off);
    uint64_t total = 0;
    if (!med || !cnt || !off)
        goto fail;
    for (uint32_t i = 0; i < k; i++) {
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
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
        const struct stint_tm_inv *iv = &m->invs[invs[i]];
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
    const struct stint_tm_model *m = t->c->m;
    int64_t *v = malloc(((size_t)t->k + 1) * sizeof *v);
    uint32_t n = 0;
    if (!v)
        return 0.0;
    for (uint32_t i = 0; i < t->k; i++) {
        const struct stint_tm_fon *a = stint_tm_fon_find(m, t->invs[i], orch_name), *b = stint_tm_fon_find(m, t->invs[i], sched_name);
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

/* Ref positions whose parent is `key`, by ts (ties in input order): their
 * run in t->by_parent, found by binary search. *n their count. */
static const uint32_t *kids_of(const struct tree *t, uint32_t key, uint32_t *n)
{
    uint32_t lo = 0, hi = t->nref;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->parent[t->by_parent[mid]] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < t->nref && t->parent[t->by_parent[end]] == key)
        end++;
    *n = end - lo;
    return t->by_parent + lo;
}

static int leaf_is(const struct stint_tm_model *m, uint32_t span, const char *want)
{
    size_t n;
    const char *leaf = leaf_of(m, m->spans[span].name, &n);
    return n == strlen(want) && !memcmp(leaf, want, n);
}

/* Writes the node at reference position pos and, recursively, its children
 * by ts, folding an orch/sched pair into one Effective line (text or JSON). */
static void emit_node(struct tree *t, uint32_t pos, int indent)
{
    const struct stint_tm_model *m = t->c->m;
    FILE *f = t->c->out;
    uint32_t s = t->ref[pos];
    const struct stint_tm_span *sp = &m->spans[s];
    size_t ln;
    const char *leaf = leaf_of(m, sp->name, &ln);
    double med = t->med_us[sp->name];
    if (t->c->json) {
        fputs(t->json_first ? "{\"name\": " : ", {\"name\": ", f);
        t->json_first = 0;
        json_id(f, m, sp->name);
        fputs(", \"leaf\": ", f);
        stint_tout_json_str(f, leaf, ln);
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
    const uint32_t *kids = kids_of(t, t->key[pos], &nk);
    int has_orch = 0, has_sched = 0;
    uint32_t sched_pos = TM_NONE;
    for (uint32_t i = 0; i < nk; i++) {
        if (leaf_is(m, t->ref[kids[i]], "orch"))
            has_orch = 1;
        if (leaf_is(m, t->ref[kids[i]], "sched")) {
            if (sched_pos == TM_NONE)
                sched_pos = kids[i];
            has_sched = 1;
        }
    }
    for (uint32_t i = 0; i < nk; i++) {
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
    if (t->c->json) {
        fputs("]}", f);
        t->json_first = 0;
    }
}

/* ---- the links of the reference invocation's spans ----------------------------------
 * Every step below sorts or binary-searches: O(n log n) in the invocation's
 * spans (a scan per span was quadratic: 120k spans under one root took 22 s). */

static const struct tree *link_tree; /* the tree whose positions the comparators sort */
static unsigned link_by;             /* cmp_pos_key: LINK_BY_* beyond (tid, ..., position) */
enum { LINK_BY_DEPTH = 1, LINK_BY_NAME = 2 };

static const struct stint_tm_span *ref_span(const struct tree *t, uint32_t pos)
{
    return &t->c->m->spans[t->ref[pos]];
}

/* Positions by (parent key, ts, position): kids_of's runs. */
static int cmp_by_parent(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct tree *t = link_tree;
    if (t->parent[x] != t->parent[y])
        return t->parent[x] < t->parent[y] ? -1 : 1;
    int64_t tx = ref_span(t, x)->ts_ns, ty = ref_span(t, y)->ts_ns;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return (x > y) - (x < y);
}

/* Orders position x before key (tid, depth, name, pos) (< 0), at it (0) or
 * after it (> 0); depth and name count as link_by says. */
static int pos_vs_key(uint32_t x, uint64_t tid, uint32_t depth, uint32_t name, uint32_t pos)
{
    const struct stint_tm_span *p = ref_span(link_tree, x);
    if (p->tid != tid)
        return p->tid < tid ? -1 : 1;
    if ((link_by & LINK_BY_DEPTH) && p->depth != depth)
        return p->depth < depth ? -1 : 1;
    if ((link_by & LINK_BY_NAME) && p->name != name)
        return p->name < name ? -1 : 1;
    return (x > pos) - (x < pos);
}

/* Positions by (tid, [depth, [name,]] position), as link_by says. */
static int cmp_pos_key(const void *a, const void *b)
{
    uint32_t y = *(const uint32_t *)b;
    const struct stint_tm_span *q = ref_span(link_tree, y);
    return pos_vs_key(*(const uint32_t *)a, q->tid, q->depth, q->name, y);
}

/* The first index of v[0..n) (sorted as link_by says) at or after the key. */
static uint32_t lower_bound(const uint32_t *v, uint32_t n, uint64_t tid, uint32_t depth, uint32_t name, uint32_t pos)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pos_vs_key(v[mid], tid, depth, name, pos) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether the span at position c lies within [ts, ts + dur] of the one at p. */
static int contains(const struct tree *t, uint32_t p, uint32_t c)
{
    const struct stint_tm_span *a = ref_span(t, p), *b = ref_span(t, c);
    return b->ts_ns >= a->ts_ns && (i128)b->ts_ns + b->dur_ns <= (i128)a->ts_ns + a->dur_ns;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Names mode: a span's parent is the name minus its last dotted component,
 * when the reference invocation has a span of that name. A node is a name:
 * only the first span of each name is drawn, the others get the parent
 * NAME_DUP, which no key is (a name's children were drawn again under every
 * span of the parent's name, and a repeated name's subtree once per span:
 * output quadratic in the repeats). v: scratch for nref. */
#define NAME_DUP (TM_NONE - 1)
static void name_links(struct tree *t, uint32_t *v)
{
    const struct stint_tm_model *m = t->c->m;
    for (uint32_t i = 0; i < t->nref; i++)
        v[i] = ref_span(t, i)->name;
    qsort(v, t->nref, sizeof *v, cmp_u32);
    for (uint32_t i = 0; i < t->nref; i++) {
        const struct stint_tm_span *s = ref_span(t, i);
        t->key[i] = s->name;
        t->parent[i] = TM_NONE;
        const char *nm = stint_tm_str(m, s->name), *dot = memrchr(nm, '.', stint_tm_str_len(m, s->name));
        uint32_t pid = dot ? stint_tm_str_find(m, nm, (size_t)(dot - nm)) : TM_NONE;
        if (pid != TM_NONE && bsearch(&pid, v, t->nref, sizeof *v, cmp_u32))
            t->parent[i] = pid;
    }
    uint64_t *byname = t->nref ? malloc((size_t)t->nref * sizeof *byname) : NULL;
    if (!byname)
        return; /* (out of memory: drawn as before) */
    for (uint32_t i = 0; i < t->nref; i++)
        byname[i] = (uint64_t)t->key[i] << 32 | i;
    qsort(byname, t->nref, sizeof *byname, cmp_u64);
    for (uint32_t i = 1; i < t->nref; i++)
        if (byname[i] >> 32 == byname[i - 1] >> 32)
            t->parent[(uint32_t)byname[i]] = NAME_DUP;
    free(byname);
}

/* Host spans of one tid, g[0..n) in input order. Read as post-order (spans
 * written when they end): a span adopts the pending deeper spans before it.
 * Read as pre-order (written when they start): a span's parent is the latest
 * span before it still open, one level up or more. Either way a parent must
 * contain its child in time. The reading that links more spans wins;
 * post-order on a tie (the reference's tracer writes spans as they end).
 * post, pre, stk: scratch for n. */
static void host_links(struct tree *t, const uint32_t *g, uint32_t n, uint32_t *post, uint32_t *pre, uint32_t *stk)
{
    uint32_t sp = 0, npost = 0, npre = 0;
    for (uint32_t k = 0; k < n; k++) { /* pending depths never decrease up the stack */
        uint32_t d = ref_span(t, g[k])->depth;
        post[k] = TM_NONE;
        while (sp && ref_span(t, g[stk[sp - 1]])->depth > d) {
            uint32_t j = stk[--sp];
            if (contains(t, g[k], g[j])) {
                post[j] = g[k];
                npost++;
            }
        }
        stk[sp++] = k;
    }
    sp = 0;
    for (uint32_t k = 0; k < n; k++) { /* the open spans, shallowest at the bottom */
        uint32_t d = ref_span(t, g[k])->depth;
        pre[k] = TM_NONE;
        while (sp && ref_span(t, g[stk[sp - 1]])->depth >= d)
            sp--;
        if (sp && contains(t, g[stk[sp - 1]], g[k])) {
            pre[k] = g[stk[sp - 1]];
            npre++;
        }
        stk[sp++] = k;
    }
    const uint32_t *win = npre > npost ? pre : post;
    for (uint32_t k = 0; k < n; k++)
        t->parent[g[k]] = win[k];
}

/* A device span one level below host spans (none of its own tid's device
 * spans before it is its parent): the first host span of its tid one level
 * up whose name prefixes its own (a dotted prefix), else the latest such host
 * span before it; TM_NONE without one. byname, bydepth: the host positions
 * sorted by (tid, depth, name, position) and (tid, depth, position). */
static uint32_t device_host_parent(const struct tree *t, uint32_t i, const uint32_t *byname,
                                   const uint32_t *bydepth, uint32_t nh)
{
    const struct stint_tm_model *m = t->c->m;
    const struct stint_tm_span *s = ref_span(t, i);
    uint32_t up = s->depth - 1, best = TM_NONE;
    const char *nm = stint_tm_str(m, s->name), *end = nm + stint_tm_str_len(m, s->name);
    link_by = LINK_BY_DEPTH | LINK_BY_NAME;
    for (const char *dot = memchr(nm, '.', (size_t)(end - nm)); dot;
         dot = memchr(dot + 1, '.', (size_t)(end - dot - 1))) {
        uint32_t id = stint_tm_str_find(m, nm, (size_t)(dot - nm));
        if (id == TM_NONE)
            continue;
        uint32_t at = lower_bound(byname, nh, s->tid, up, id, 0);
        if (at < nh && pos_vs_key(byname[at], s->tid, up, id, UINT32_MAX) < 0 && byname[at] < best)
            best = byname[at];
    }
    if (best != TM_NONE)
        return best;
    link_by = LINK_BY_DEPTH;
    uint32_t at = lower_bound(bydepth, nh, s->tid, up, 0, i);
    if (at && pos_vs_key(bydepth[at - 1], s->tid, up, 0, 0) >= 0)
        return bydepth[at - 1];
    return TM_NONE;
}

/* Depth mode: key = ref position. Host spans get their parents per tid
 * (host_links); device spans (clk=dev) are written parent first, so a
 * device span's parent is the latest device span before it on its tid one
 * level up, found as the nearest earlier device span less deep (a stack per
 * tid); a device span without one hangs under a host span
 * (device_host_parent). Device and host clocks differ: no time test there. */
static int depth_links(struct tree *t)
{
    uint32_t n = t->nref, nh = 0, nd = 0;
    uint32_t *host = malloc(((size_t)n + 1) * sizeof *host), *dev = malloc(((size_t)n + 1) * sizeof *dev);
    uint32_t *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
    uint32_t *stk = malloc(((size_t)n + 1) * sizeof *stk);
    int rc = -1;
    if (!host || !dev || !a || !b || !stk)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        t->key[i] = i;
        t->parent[i] = TM_NONE;
        if (ref_span(t, i)->dev)
            dev[nd++] = i;
        else
            host[nh++] = i;
    }
    link_tree = t;
    link_by = 0;
    qsort(host, nh, sizeof *host, cmp_pos_key);
    qsort(dev, nd, sizeof *dev, cmp_pos_key);
    for (uint32_t g = 0, e; g < nh; g = e) {
        for (e = g + 1; e < nh && ref_span(t, host[e])->tid == ref_span(t, host[g])->tid; e++)
            ;
        host_links(t, host + g, e - g, a, b, stk);
    }
    /* a: host by (tid, depth, name, position); b: by (tid, depth, position) */
    memcpy(a, host, nh * sizeof *a);
    memcpy(b, host, nh * sizeof *b);
    link_by = LINK_BY_DEPTH | LINK_BY_NAME;
    qsort(a, nh, sizeof *a, cmp_pos_key);
    link_by = LINK_BY_DEPTH;
    qsort(b, nh, sizeof *b, cmp_pos_key);
    uint32_t sp = 0;
    for (uint32_t k = 0; k < nd; k++) {
        const struct stint_tm_span *s = ref_span(t, dev[k]);
        if (k && ref_span(t, dev[k - 1])->tid != s->tid)
            sp = 0; /* a new tid */
        while (sp && ref_span(t, stk[sp - 1])->depth >= s->depth)
            sp--;
        if (s->depth > 0) {
            if (sp && ref_span(t, stk[sp - 1])->depth == s->depth - 1)
                t->parent[dev[k]] = stk[sp - 1];
            else
                t->parent[dev[k]] = device_host_parent(t, dev[k], a, b, nh);
        }
        stk[sp++] = dev[k];
    }
    rc = 0;
out:
    free(host);
    free(dev);
    free(a);
    free(b);
    free(stk);
    return rc;
}

/* Node keys and parents of the reference invocation's spans (names or
 * depth mode), then t->by_parent. Returns 0, or -1 out of memory. */
static int tree_links(struct tree *t, int by_depth)
{
    link_tree = t;
    if (by_depth) {
        if (depth_links(t) != 0)
            return -1;
    } else
        name_links(t, t->by_parent);
    for (uint32_t i = 0; i < t->nref; i++)
        t->by_parent[i] = i;
    qsort(t->by_parent, t->nref, sizeof *t->by_parent, cmp_by_parent);
    return 0;
}

/* The tree view of bucket b: medians over its kept invocations, drawn in the
 * shape of the last one. In text mode, when warmup left none, says so. */
static void tree_bucket(const struct stint_tout_ctx *c, uint32_t b)
{
    const struct stint_tm_model *m = c->m;
    FILE *f = c->out;
    struct tree t;
    memset(&t, 0, sizeof t);
    t.c = c;
    t.invs = kept(c, b, &t.k);
    char label[16];
    stint_tm_bucket_label(m, b, label);
    if (c->json) {
        json_callable_head(c, b, t.k);
        fputs(", \"nodes\": [", f);
    } else {
        if (!t.k) {
            dropped_text_bucket(c, b);
            return;
        }
        put_hid(f, m, m->buckets[b].hid);
        if (t.k > 1)
            fprintf(f, " (%s) \xe2\x80\x94 median of %u invocation(s)\n", label, t.k);
        else
            fprintf(f, " (%s) \xe2\x80\x94 1 invocation\n", label);
    }
    if (t.k) {
        const struct stint_tm_inv *ref = &m->invs[t.invs[t.k - 1]];
        t.med_us = name_medians(m, t.invs, t.k);
        t.ref = malloc(((size_t)ref->nspans + 1) * sizeof *t.ref);
        t.key = malloc(((size_t)ref->nspans + 1) * sizeof *t.key);
        t.parent = malloc(((size_t)ref->nspans + 1) * sizeof *t.parent);
        t.by_parent = malloc(((size_t)ref->nspans + 1) * sizeof *t.by_parent);
        if (t.med_us && t.ref && t.key && t.parent && t.by_parent) {
            for (uint32_t s = ref->first; s != TM_NONE; s = m->spans[s].next)
                t.ref[t.nref++] = s;
            if (tree_links(&t, c->tree_depth) == 0) {
                uint32_t nr;
                const uint32_t *roots = kids_of(&t, TM_NONE, &nr);
                t.json_first = 1;
                for (uint32_t i = 0; i < nr; i++)
                    emit_node(&t, roots[i], 0);
            }
        }
        free(t.med_us);
        free(t.ref);
        free(t.key);
        free(t.parent);
        free(t.by_parent);
    }
    if (c->json)
        fputs("]}", f);
    else
        fputc('\n', f);
}

void stint_tout_tree(const struct stint_tout_ctx *c)
{
    if (c->json)
        fprintf(c->out, "\"mode\": \"%s\", ", c->tree_depth ? "depth" : "names");
    each_callable(c, tree_bucket, tree_bucket);
}

/* ---- Chrome trace ------------------------------------------------------------------- */

int stint_tout_chrome(const struct stint_tm_model *m, const char *path)
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
        const struct stint_tm_inv *iv = &m->invs[m->order[i]];
        uint32_t lane = i + 1;
        char label[16];
        stint_tm_bucket_label(m, bucket_of[iv->hid], label);
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
            const struct stint_tm_span *sp = &m->spans[s];
            fputs(", {\"name\": ", f);
            stint_tout_json_str(f, stint_tm_str(m, sp->name), stint_tm_str_len(m, sp->name));
            fputs(", \"ph\": \"X\", \"ts\": ", f);
            stint_tout_json_us(f, sp->ts_ns);
            fputs(", \"dur\": ", f);
            stint_tout_json_us(f, sp->dur_ns);
            fprintf(f, ", \"pid\": %u, \"tid\": %u, \"args\": {\"inv\": %llu, \"hid\": ", lane, sp->dev ? 1u : 0u,
                    (unsigned long long)iv->inv);
            json_id(f, m, sp->hid);
            fprintf(f, ", \"depth\": %u, \"attrs\": ", sp->depth);
            struct stint_mparse_text a = stint_tm_attrs(m, s);
            stint_tout_json_str(f, a.ptr, a.len);
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
