/* SPDX-License-Identifier: MIT */
/*
 * gpu_links.c - launch links of `stint gpu` (docs/cli/gpu.md): each
 * device-work span joined to the runtime call with its args.correlation in
 * the same file, the launch delays, the launch sites, and the GPU time of
 * the CPU ops that made the calls.
 *
 * Invariants: a correlation maps to the earliest runtime call carrying it
 * (the model's slice order: start, then longest); nothing is linked by time
 * or guessed: work without a match is counted unlinked, a launch call
 * without work is counted too. Each op span's duration enters cpu_ns once,
 * each runtime call enters launches once per op span credited.
 */
#include "analyze/gpu_int.h"
#include "base/cmp.h"
#include "base/xalloc.h"
#include "model/filters.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Whether a runtime call's name makes it a launch call. */
static int is_launch_name(const char *s, size_t n)
{
    static const char *const pat[] = {"launch", "memcpy", "memset", "runfunction"};
    for (size_t p = 0; p < sizeof pat / sizeof pat[0]; p++) {
        size_t k = strlen(pat[p]);
        for (size_t i = 0; i + k <= n; i++) {
            size_t j = 0;
            while (j < k && tolower((unsigned char)s[i + j]) == pat[p][j])
                j++;
            if (j == k)
                return 1;
        }
    }
    return 0;
}

/* Rows keyed by name over every file (sites and ops share the shape). */
struct agg {
    struct gpu_idcache byid;   /* the current file's name id -> row + 1 */
    struct gpu_names names;
    struct stint_gpu_op *rows; /* sites use name, launches (count), gpu_ns (delay sum), cpu_ns (delay max) */
    size_t cap;
};

/* The row of name id (text s, n bytes) of the current file. */
static struct stint_gpu_op *agg_row_id(struct agg *a, uint32_t id, const char *s, size_t n);

static struct stint_gpu_op *agg_row(struct agg *a, const char *s, size_t n)
{
    size_t before = a->names.n, i = stint_gpu_names_get(&a->names, s, n);
    if (a->names.n > before) { /* a new name: its row */
        a->rows = stint_xgrow(a->rows, &a->cap, i + 1, sizeof *a->rows, 64);
        memset(&a->rows[i], 0, sizeof a->rows[i]);
        a->rows[i].name = s;
        a->rows[i].name_len = n;
    }
    return &a->rows[i];
}

static struct stint_gpu_op *agg_row_id(struct agg *a, uint32_t id, const char *s, size_t n)
{
    uint32_t *slot = stint_gpu_idslot(&a->byid, id);
    if (!*slot) {
        struct stint_gpu_op *row = agg_row(a, s, n);
        *slot = (uint32_t)(row - a->rows) + 1;
    }
    return &a->rows[*slot - 1];
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an < bn ? -1 : an > bn);
}

static int cmp_op(const void *a, const void *b)
{
    const struct stint_gpu_op *x = a, *y = b;
    if (x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    return cmp_bytes(x->name, x->name_len, y->name, y->name_len);
}

/* Credits one linked span (duration dur) to op span op (into f->ops). */
static void credit(struct agg *ops, struct gpu_file *f, uint32_t op, int64_t dur, int first_of_call,
                   uint8_t *credited)
{
    size_t n;
    const struct gpu_opspan *s = &f->ops[op];
    const char *nm = stint_model_str(f->m, s->name, &n);
    struct stint_gpu_op *row = agg_row_id(ops, s->name, nm, n);
    row->gpu_ns += dur;
    row->kernels++;
    row->launches += (uint64_t)first_of_call;
    if (!credited[op]) {
        credited[op] = 1;
        row->cpu_ns += s->dur;
    }
}

/* Correlation -> the first call carrying it: arrays over pages of 2^16
 * correlations, found by page number (the last page looked at is kept),
 * when the correlations fill few pages (Kineto numbers them in order, in a
 * range or two: no hashing, no cache miss per lookup), else a hash map. */
#define CPAGE_BITS 16
#define CPAGE ((uint64_t)1 << CPAGE_BITS)
struct corr_index {
    struct stint_umap map;   /* corr -> call (no pages) */
    struct stint_umap pages; /* page number -> index into page */
    uint32_t **page;
    size_t npage;
    uint64_t last_pg;        /* the page looked at last, and its array (NULL: none) */
    const uint32_t *last;
};

static void cidx_build(struct corr_index *x, const struct gpu_call *c, size_t n)
{
    memset(x, 0, sizeof *x);
    size_t k = 0, cap = 0;
    uint64_t last = 0;
    int isnew, any = 0;
    for (size_t i = 0; i < n; i++) /* the pages the correlations fall in */
        if (c[i].has_corr) {
            uint64_t pg = (uint64_t)c[i].corr >> CPAGE_BITS;
            k++;
            if (!any || pg != last) {
                stint_umap_get(&x->pages, pg, (uint32_t)x->npage, &isnew);
                x->npage += (size_t)isnew;
                last = pg;
                any = 1;
            }
        }
    if (k && x->npage * CPAGE < 4 * (uint64_t)k + 2 * CPAGE) {
        x->page = stint_xgrow(NULL, &cap, x->npage, sizeof *x->page, 1);
        for (size_t p = 0; p < x->npage; p++) {
            x->page[p] = stint_xmalloc(CPAGE * sizeof **x->page);
            memset(x->page[p], 0xff, CPAGE * sizeof **x->page); /* STINT_UMAP_NONE */
        }
        for (size_t i = n; i-- > 0;) /* (backwards: the first call of a correlation is the one left) */
            if (c[i].has_corr) {
                uint64_t u = (uint64_t)c[i].corr;
                x->page[stint_umap_find(&x->pages, u >> CPAGE_BITS)][u & (CPAGE - 1)] = (uint32_t)i;
            }
        x->last_pg = UINT64_MAX;
        return;
    }
    stint_umap_free(&x->pages);
    x->npage = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].has_corr)
            stint_umap_get(&x->map, (uint64_t)c[i].corr, (uint32_t)i, &isnew); /* the first (earliest) stays */
}

static uint32_t cidx_find(struct corr_index *x, int64_t corr)
{
    if (x->page) {
        uint64_t u = (uint64_t)corr, pg = u >> CPAGE_BITS;
        if (pg != x->last_pg) {
            uint32_t p = stint_umap_find(&x->pages, pg);
            x->last_pg = pg;
            x->last = p == STINT_UMAP_NONE ? NULL : x->page[p];
        }
        return x->last ? x->last[u & (CPAGE - 1)] : STINT_UMAP_NONE;
    }
    return stint_umap_find(&x->map, (uint64_t)corr);
}

static void cidx_free(struct corr_index *x)
{
    for (size_t p = 0; p < x->npage && x->page; p++)
        free(x->page[p]);
    free(x->page);
    stint_umap_free(&x->pages);
    stint_umap_free(&x->map);
}

/* One file's links: runtime calls by correlation, then every kept span. */
static void one_file(struct stint_gpu_result *r, struct gpu_file *f, struct agg *sites, struct agg *ops,
                     int64_t **delays, size_t *nd, size_t *dcap, const struct stint_gpu_opts *o)
{
    const struct stint_model *m = f->m;
    size_t nc = f->ncalls;
    struct corr_index calls;
    cidx_build(&calls, f->calls, f->ncalls);
    struct gpu_idcache launch_names = {0}; /* name id -> 1 + whether it names a launch call */
    uint8_t *call_seen = stint_xcalloc(nc ? nc : 1, 1), *credited = stint_xcalloc(f->nops ? f->nops : 1, 1);
    /* the launch calls inside the range: their correlation (has: bit 0 of the flag) */
    struct launch {
        int64_t corr;
        int has;
    } *lc = NULL;
    size_t nlc = 0, lccap = 0;
    int64_t t0 = o->has_t0 ? o->t0 : INT64_MIN, t1 = o->has_t1 ? o->t1 : INT64_MAX;
    for (size_t i = 0; i < nc; i++) {
        const struct gpu_call *s = &f->calls[i];
        uint32_t *ln = stint_gpu_idslot(&launch_names, s->name);
        if (!*ln) {
            size_t nn;
            const char *nm = stint_model_str(m, s->name, &nn);
            *ln = 1 + (uint32_t)is_launch_name(nm, nn);
        }
        if (*ln == 2 && stint_filter_overlaps(t0, t1, s->ts, s->dur)) {
            lc = stint_xgrow(lc, &lccap, nlc + 1, sizeof *lc, 256);
            lc[nlc++] = (struct launch){s->has_corr ? s->corr : 0, s->has_corr};
        }
    }
    for (size_t i = 0; i < f->nitems; i++) {
        const struct gpu_item *it = &f->items[i];
        uint32_t ri = it->has_corr ? cidx_find(&calls, it->corr) : STINT_UMAP_NONE;
        if (ri == STINT_UMAP_NONE) {
            r->unlinked_kernels++;
            continue;
        }
        r->linked++;
        const struct gpu_call *rs = &f->calls[ri];
        int64_t delay = it->ts - rs->ts;
        *delays = stint_xgrow(*delays, dcap, *nd + 1, sizeof **delays, 1024);
        (*delays)[(*nd)++] = delay;
        uint32_t op = rs->op, top = rs->top;
        struct stint_gpu_op *site;
        if (op != STINT_NO_ID) {
            size_t sn;
            uint32_t nid = f->ops[op].name;
            const char *snm = stint_model_str(m, nid, &sn);
            site = agg_row_id(sites, nid, snm, sn);
        } else
            site = agg_row(sites, "(no op)", 7);
        site->launches++;
        site->gpu_ns += delay;
        if (site->launches == 1 || delay > site->cpu_ns)
            site->cpu_ns = delay;
        int first = !call_seen[ri];
        call_seen[ri] = 1;
        if (op != STINT_NO_ID)
            credit(ops, f, op, it->dur, first, credited);
        if (top != STINT_NO_ID && top != op)
            credit(ops, f, top, it->dur, first, credited);
    }
    /* a launch call is unlinked when no device work, in the range or out of
     * it, carries its correlation (call_seen marks the first call of each
     * correlation that in-range work linked to) */
    for (size_t i = 0; i < f->noutcorr; i++) {
        uint32_t ri = cidx_find(&calls, f->outcorr[i]);
        if (ri != STINT_UMAP_NONE)
            call_seen[ri] = 1;
    }
    for (size_t i = 0; i < nlc; i++) {
        uint32_t ri = lc[i].has ? cidx_find(&calls, lc[i].corr) : STINT_UMAP_NONE;
        if (ri == STINT_UMAP_NONE || !call_seen[ri])
            r->unlinked_launches++;
    }
    free(lc);
    cidx_free(&calls);
    free(launch_names.v);
    /* the name caches are per model */
    free(sites->byid.v);
    free(ops->byid.v);
    sites->byid = (struct gpu_idcache){0};
    ops->byid = (struct gpu_idcache){0};
    free(call_seen);
    free(credited);
}

void stint_gpu_links(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o)
{
    struct agg sites = {0}, ops = {0};
    int64_t *delays = NULL;
    size_t nd = 0, dcap = 0;
    for (size_t fi = 0; fi < n; fi++)
        one_file(r, &fs[fi], &sites, &ops, &delays, &nd, &dcap, o);
    if (nd) {
        static const unsigned q[] = {50, 90, 99, 100};
        int64_t out[4];
        stint_gpu_quantiles(delays, nd, q, 4, out);
        r->delay_p50_ns = out[0];
        r->delay_p90_ns = out[1];
        r->delay_p99_ns = out[2];
        r->delay_max_ns = out[3];
    }
    free(delays);
    size_t nsite = sites.names.n, nop = ops.names.n;
    if (nsite > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(sites.rows, nsite, sizeof *sites.rows, cmp_op); /* by delay sum (kept in gpu_ns) */
    r->nsites = nsite < o->top ? nsite : o->top;
    r->sites = stint_xcalloc(r->nsites ? r->nsites : 1, sizeof *r->sites);
    for (size_t i = 0; i < r->nsites; i++)
        r->sites[i] = (struct stint_gpu_site){sites.rows[i].name, sites.rows[i].name_len, sites.rows[i].launches,
                                              sites.rows[i].gpu_ns, sites.rows[i].cpu_ns};
    if (nop > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(ops.rows, nop, sizeof *ops.rows, cmp_op);
    r->nops = nop < o->top ? nop : o->top;
    r->ops = ops.rows;
    ops.rows = NULL;
    free(sites.rows);
    stint_gpu_names_free(&sites.names);
    stint_gpu_names_free(&ops.names);
}
