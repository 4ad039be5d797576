/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - the device work of `stint gpu` (docs/cli/gpu.md): finding it by
 * category, classing it by name, and the per-device, per-stream and
 * per-kernel figures; then the entry point that runs the launch (gpu_links.c)
 * and step (gpu_steps.c) parts.
 *
 * Every union is taken from the spans' own intervals after a sort by start,
 * never from the model's nesting, so work nested or overlapping on one
 * stream lane counts once. Durations in the kernel table are whole spans;
 * unions are clipped to --time-range.
 */
#include "analyze/gpu_int.h"
#include "base/cmp.h"
#include "base/hash.h"
#include "base/selftrace.h"
#include "base/threads.h"
#include "base/xalloc.h"
#include "model/filters.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *stint_gpu_class_name(enum stint_gpu_class c)
{
    static const char *const n[] = {"compute", "communication", "memory"};
    return (unsigned)c < STINT_GPU_CLASSES ? n[c] : "?";
}

/* ---- small helpers ----------------------------------------------------- */

size_t stint_gpu_names_get(struct gpu_names *t, const char *s, size_t len)
{
    uint64_t h = stint_hash_bytes(s, len);
    for (;;) {
        int isnew;
        uint32_t v = stint_umap_get(&t->map, h, (uint32_t)t->n, &isnew);
        if (isnew) {
            if (t->n == t->cap) {
                t->cap = t->cap ? t->cap * 2 : 64;
                t->s = stint_xreallocarray(t->s, t->cap, sizeof *t->s);
                t->len = stint_xreallocarray(t->len, t->cap, sizeof *t->len);
            }
            t->s[t->n] = s;
            t->len[t->n] = len;
            return t->n++;
        }
        if (t->len[v] == len && memcmp(t->s[v], s, len) == 0)
            return v;
        h = stint_hash_splitmix64(h); /* a clash of 64-bit hashes: the next key */
    }
}

uint32_t *stint_gpu_idslot(struct gpu_idcache *c, uint32_t id)
{
    if (id >= c->n)
        c->v = stint_xgrow_zeroed(c->v, &c->n, (size_t)id + 1, sizeof *c->v, 256);
    return &c->v[id];
}

void stint_gpu_names_free(struct gpu_names *t)
{
    stint_umap_free(&t->map);
    free(t->s);
    free(t->len);
    memset(t, 0, sizeof *t);
}

/* Whether s equals lit ignoring ASCII case. */
static int eq_nocase(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    if (n != k)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != lit[i])
            return 0;
    return 1;
}

/* Whether lit (lower case) occurs in s[0..n) ignoring ASCII case. */
static int has_nocase(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k && tolower((unsigned char)s[i + j]) == lit[j])
            j++;
        if (j == k)
            return 1;
    }
    return 0;
}

enum stint_gpu_cat stint_gpu_cat_of(const char *s, size_t n)
{
    enum stint_gpu_cat k = STINT_GPU_CAT_NONE;
    if (eq_nocase(s, n, "kernel"))
        k = STINT_GPU_CAT_KERNEL;
    else if (eq_nocase(s, n, "gpu_memcpy") || eq_nocase(s, n, "gpu_memset") || eq_nocase(s, n, "memcpy") ||
             eq_nocase(s, n, "memset"))
        k = STINT_GPU_CAT_COPY;
    else if (eq_nocase(s, n, "mtia_ccp_events"))
        k = STINT_GPU_CAT_MTIA;
    else if (eq_nocase(s, n, "cuda_runtime") || eq_nocase(s, n, "cuda_driver") || eq_nocase(s, n, "runtime") ||
             eq_nocase(s, n, "mtia_runtime"))
        k = STINT_GPU_CAT_RUNTIME;
    else if (eq_nocase(s, n, "cpu_op") || eq_nocase(s, n, "operator"))
        k = STINT_GPU_CAT_CPU_OP;
    else if (eq_nocase(s, n, "gpu_user_annotation"))
        k = STINT_GPU_CAT_ANNOT;
    return k;
}

/* The kind of a category id of f's model by its text. */
static enum gpu_kind kind_of(struct gpu_file *f, uint32_t cat)
{
    size_t n;
    const char *s = stint_model_str(f->m, cat, &n);
    return (enum gpu_kind)stint_gpu_cat_of(s, n);
}

enum gpu_kind stint_gpu_cat_kind(struct gpu_file *f, uint32_t cat)
{
    if (cat < f->nkind && f->kind[cat])
        return (enum gpu_kind)(f->kind[cat] - 1);
    if (cat >= f->nkind)
        f->kind = stint_xgrow_zeroed(f->kind, &f->nkind, (size_t)cat + 1, 1, 64);
    enum gpu_kind k = kind_of(f, cat);
    f->kind[cat] = (uint8_t)(k + 1);
    return k;
}

int stint_gpu_corr(struct gpu_file *f, const struct stint_slice *s, int64_t *out)
{
    const struct stint_model *m = f->m;
    if (s->args == STINT_NO_ID)
        return 0;
    for (uint32_t i = 0; i < s->nargs; i++) {
        const struct stint_arg *a = stint_model_arg_at(m, s->args + i);
        if (a->key != f->corr_key) {
            if (f->corr_key) /* strings are interned: another id is another key */
                continue;
            size_t kn;
            const char *k = stint_model_str(m, a->key, &kn);
            if (kn != 16 || memcmp(k, "args.correlation", 16) != 0)
                continue;
            f->corr_key = a->key;
        }
        if (a->kind != STINT_ARG_INT && a->kind != STINT_ARG_UINT)
            return 0;
        *out = a->ival;
        return 1;
    }
    return 0;
}

int64_t stint_gpu_clip_len(const struct stint_interval *iv, size_t n, int64_t a, int64_t b)
{
    /* the first interval that ends after a */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (iv[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < n && iv[i].start < b; i++) {
        int64_t s = iv[i].start > a ? iv[i].start : a, e = iv[i].end < b ? iv[i].end : b;
        if (e > s)
            t += e - s;
    }
    return t;
}

/* The index of nearest-rank quantile pct among n sorted values. */
static size_t rank_index(size_t n, unsigned pct)
{
    __extension__ unsigned __int128 rank = ((unsigned __int128)pct * n + 99) / 100;
    return rank > 0 ? (size_t)(rank - 1) : 0;
}

void stint_gpu_quantiles(int64_t *v, size_t n, const unsigned *pct, size_t np, int64_t *out)
{
    size_t lo = 0; /* v[0..lo) holds nothing larger than what lies after */
    for (size_t i = 0; i < np; i++) {
        size_t k = rank_index(n, pct[i]);
        if (k >= lo) {
            stint_select_i64(v + lo, n - lo, k - lo);
            lo = k;
        }
        out[i] = v[k];
    }
}

int64_t stint_gpu_rank_q(const int64_t *v, size_t n, unsigned pct)
{
    /* rank ceil(pct * n / 100), 1-based; 128-bit so that no n overflows */
    __extension__ unsigned __int128 rank = ((unsigned __int128)pct * n + 99) / 100;
    return v[rank > 0 ? (size_t)(rank - 1) : 0];
}

/* Whether a kernel name is a collective's (docs/cli/gpu.md's list). */
static int is_comm_name(const char *s, size_t n)
{
    static const char *const pat[] = {"nccl",          "rccl",           "allreduce",      "all_reduce",
                                      "all-reduce",    "allgather",      "all_gather",     "all-gather",
                                      "reducescatter", "reduce_scatter", "reduce-scatter", "broadcast",
                                      "sendrecv",      "send_recv",      "send-recv",      "alltoall",
                                      "all_to_all",    "all-to-all"};
    for (size_t i = 0; i < sizeof pat / sizeof pat[0]; i++)
        if (has_nocase(s, n, pat[i]))
            return 1;
    return 0;
}

/* ---- collecting the device work ---------------------------------------- */

/* Per lane: 1 when its spans are XLA device work (a thread named Stream* in
 * a process named /device:GPU:N). */
uint8_t *stint_gpu_xla_lanes(const struct stint_model *m)
{
    size_t nl = m->lanes.len;
    uint8_t *x = stint_xcalloc(nl ? nl : 1, 1);
    for (size_t i = 0; i < nl; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        const struct stint_process *p = stint_model_process_at(m, l->process);
        size_t pn, ln;
        const char *ps = stint_model_str(m, p->name, &pn), *ls = stint_model_str(m, l->name, &ln);
        x[i] = pn > 12 && memcmp(ps, "/device:GPU:", 12) == 0 && ln >= 6 && memcmp(ls, "Stream", 6) == 0;
    }
    return x;
}

uint8_t stint_gpu_item_class(const struct stint_model *m, enum gpu_kind k, uint32_t name, struct gpu_idcache *comm)
{
    if (k == GK_COPY)
        return STINT_GPU_MEMORY;
    uint32_t *v = stint_gpu_idslot(comm, name); /* 1 + (a collective's name) + 2 * (MTIA's dma_request) */
    if (!*v) {
        size_t n;
        const char *s = stint_model_str(m, name, &n);
        *v = 1 + (uint32_t)is_comm_name(s, n) + 2 * (uint32_t)(n == 11 && memcmp(s, "dma_request", 11) == 0);
    }
    if (k == GK_MTIA && (*v - 1) & 2)
        return STINT_GPU_MEMORY;
    return (*v - 1) & 1 ? STINT_GPU_COMM : STINT_GPU_COMPUTE;
}

void stint_gpu_sort_runs(void *base, size_t n, size_t sz, int (*before)(const void *, const void *))
{
    char *a = base;
    size_t nr = 0, cap = 0, *run = NULL;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || before(a + i * sz, a + (i - 1) * sz)) {
            run = stint_xgrow(run, &cap, nr + 2, sizeof *run, 16);
            run[nr++] = i;
        }
    if (nr < 2) {
        free(run);
        return;
    }
    run[nr] = n;
    char *t = stint_hmem_xrealloc(NULL, 0, n * sz);
    while (nr > 1) {
        size_t w = 0;
        for (size_t k = 0; k < nr; k += 2) {
            size_t i = run[k], mid = run[k + 1], e = run[k + 2 < nr ? k + 2 : nr], o = i, j = mid;
            while (i < mid && j < e) {
                if (before(a + j * sz, a + i * sz))
                    memcpy(t + o++ * sz, a + j++ * sz, sz);
                else
                    memcpy(t + o++ * sz, a + i++ * sz, sz);
            }
            memcpy(t + o * sz, a + i * sz, (mid - i) * sz);
            o += mid - i;
            memcpy(t + o * sz, a + j * sz, (e - j) * sz);
            run[w++] = run[k];
        }
        run[w] = n;
        nr = w;
        char *x = a;
        a = t;
        t = x;
    }
    if (a != base) { /* (the last pass wrote the scratch block) */
        memcpy(base, a, n * sz);
        t = a;
    }
    stint_hmem_free(t, n * sz);
    free(run);
}

/* Device, then start. */
static int item_before(const void *x, const void *y)
{
    const struct gpu_item *a = x, *b = y;
    return a->dev != b->dev ? a->dev < b->dev : a->ts < b->ts;
}

void stint_gpu_mark_lane(struct gpu_file *f, uint32_t l)
{
    if (l >= f->nlane_work)
        f->lane_work = stint_xgrow_zeroed(f->lane_work, &f->nlane_work, (size_t)l + 1, 1, 64);
    f->lane_work[l] = 1;
}

/* The part [*c0, *c1) of item it inside the range (c0 <= c1; order by start kept). */
static inline void clip(const struct gpu_item *it, const struct stint_gpu_opts *o, int64_t *c0, int64_t *c1)
{
    int64_t end = it->ts + it->dur;
    *c0 = o->has_t0 && it->ts < o->t0 ? o->t0 : it->ts;
    *c1 = o->has_t1 && end > o->t1 ? o->t1 : end;
    if (*c1 < *c0)
        *c1 = *c0;
}

/* Sorts v[0..n) stably by start, in place (t: scratch of n): a merge of
 * its natural runs. */
static void sort_items_ts(struct gpu_item *v, size_t n, struct gpu_item *t)
{
    size_t nr = 0, cap = 0, *run = NULL;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i].ts < v[i - 1].ts) {
            run = stint_xgrow(run, &cap, nr + 2, sizeof *run, 16);
            run[nr++] = i;
        }
    struct gpu_item *a = v;
    if (nr > 1)
        run[nr] = n;
    while (nr > 1) {
        size_t w = 0;
        for (size_t k = 0; k < nr; k += 2) {
            size_t i = run[k], mid = run[k + 1], e = run[k + 2 < nr ? k + 2 : nr], o = i, j = mid;
            while (i < mid && j < e)
                t[o++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
            while (i < mid)
                t[o++] = a[i++];
            while (j < e)
                t[o++] = a[j++];
            run[w++] = run[k];
        }
        run[w] = n;
        nr = w;
        struct gpu_item *x = a;
        a = t;
        t = x;
    }
    if (a != v)
        memcpy(v, a, n * sizeof *v);
    free(run);
}

/* Sorts items v[0..n) stably by (device, start) as stint_gpu_sort_runs
 * with item_before would: the devices apart first (a stable counting
 * pass), then each one's by start (its streams' runs merged). -1 (nothing
 * done) past 64 devices. */
static int sort_by_device(struct gpu_item *v, size_t n)
{
    enum { MAXD = 64 };
    int64_t dev[MAXD];
    size_t nd = 0, cnt[MAXD + 1] = {0};
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        if (i && (v[i].dev < v[i - 1].dev || (v[i].dev == v[i - 1].dev && v[i].ts < v[i - 1].ts)))
            sorted = 0;
        if (i && v[i].dev == v[i - 1].dev)
            continue;
        size_t d = 0;
        while (d < nd && dev[d] != v[i].dev)
            d++;
        if (d == nd) {
            if (nd == MAXD)
                return -1;
            dev[nd++] = v[i].dev;
        }
    }
    if (sorted || n < 2)
        return 0;
    for (size_t a = 1; a < nd; a++) /* (insertion sort: few devices) */
        for (size_t b = a; b > 0 && dev[b] < dev[b - 1]; b--) {
            int64_t x = dev[b];
            dev[b] = dev[b - 1];
            dev[b - 1] = x;
        }
    struct gpu_item *t = stint_hmem_xrealloc(NULL, 0, n * sizeof *t);
    uint8_t *di = stint_xmalloc(n);
    for (size_t i = 0; i < n; i++) {
        size_t d = 0;
        if (i && v[i].dev == v[i - 1].dev)
            d = di[i - 1];
        else
            while (dev[d] != v[i].dev)
                d++;
        di[i] = (uint8_t)d;
        cnt[d + 1]++;
    }
    for (size_t d = 0; d < nd; d++)
        cnt[d + 1] += cnt[d];
    size_t fill[MAXD];
    memcpy(fill, cnt, nd * sizeof *fill);
    for (size_t i = 0; i < n; i++)
        t[fill[di[i]]++] = v[i];
    free(di);
    memcpy(v, t, n * sizeof *v);
    for (size_t d = 0; d < nd; d++)
        sort_items_ts(v + cnt[d], cnt[d + 1] - cnt[d], t);
    stint_hmem_free(t, n * sizeof *t);
    return 0;
}

void stint_gpu_prepare(struct gpu_file *f, const struct stint_gpu_opts *o)
{
    int64_t t0 = o->has_t0 ? o->t0 : INT64_MIN, t1 = o->has_t1 ? o->t1 : INT64_MAX;
    size_t k = 0;
    for (size_t i = 0; i < f->nitems; i++) {
        struct gpu_item it = f->items[i];
        if (!stint_filter_overlaps(t0, t1, it.ts, it.dur)) {
            if (it.has_corr) {
                f->outcorr = stint_xgrow(f->outcorr, &f->outcap, f->noutcorr + 1, sizeof *f->outcorr, 256);
                f->outcorr[f->noutcorr++] = it.corr;
            }
            continue;
        }
        f->items[k++] = it;
    }
    f->nitems = k;
    if (sort_by_device(f->items, f->nitems) != 0)
        stint_gpu_sort_runs(f->items, f->nitems, sizeof *f->items, item_before);
}

/* ---- devices and streams ----------------------------------------------- */

/* Appends [s, e) to the merged list *v (items come in start order). */
static void merge_push(struct stint_interval **v, size_t *n, size_t *cap, int64_t s, int64_t e)
{
    if (*n && s <= (*v)[*n - 1].end) {
        if (e > (*v)[*n - 1].end)
            (*v)[*n - 1].end = e;
        return;
    }
    *v = stint_xgrow(*v, cap, *n + 1, sizeof **v, 64);
    (*v)[(*n)++] = (struct stint_interval){s, e};
}

/* The length of the intersection of two merged lists. */
static int64_t inter_len(const struct stint_interval *a, size_t na, const struct stint_interval *b, size_t nb)
{
    int64_t t = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (e > s)
            t += e - s;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return t;
}

static int64_t list_len(const struct stint_interval *v, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].end - v[i].start;
    return t;
}

struct stream_acc {
    struct stint_union_acc u;
    uint64_t kernels;
    uint8_t seen;
};

/* The rows of one device: f's items [a, b). */
static void one_device(struct stint_gpu_result *r, size_t *dcap, size_t *scap, size_t *icap, struct gpu_file *f,
                       uint32_t file, size_t a, size_t b, struct stream_acc *acc, const struct stint_gpu_opts *o)
{
    const struct stint_model *m = f->m;
    struct stint_interval *cls[STINT_GPU_CLASSES] = {0};
    size_t ncls[STINT_GPU_CLASSES] = {0}, ccap[STINT_GPU_CLASSES] = {0};
    size_t iv0 = r->nivs;
    int64_t w0 = INT64_MAX, w1 = INT64_MIN;
    for (size_t i = a; i < b; i++) {
        const struct gpu_item *it = &f->items[i];
        if (it->ts < w0)
            w0 = it->ts;
        if (it->ts + it->dur > w1)
            w1 = it->ts + it->dur;
        /* the device's last interval so far (none before its first item: r->ivs may still be NULL) */
        struct stint_interval *last = r->nivs > iv0 ? &r->ivs[r->nivs - 1] : NULL;
        int64_t c0, c1;
        clip(it, o, &c0, &c1);
        if (last && c0 <= last->end) {
            if (c1 > last->end)
                last->end = c1;
        } else {
            r->ivs = stint_xgrow(r->ivs, icap, r->nivs + 1, sizeof *r->ivs, 256);
            r->ivs[r->nivs++] = (struct stint_interval){c0, c1};
        }
        merge_push(&cls[it->cls], &ncls[it->cls], &ccap[it->cls], c0, c1);
        struct stream_acc *sa = &acc[it->lane];
        stint_union_acc_add(&sa->u, c0, c1);
        sa->kernels += it->kernel;
        sa->seen = 1;
    }
    if (o->has_t0)
        w0 = o->t0;
    if (o->has_t1)
        w1 = o->t1;
    r->devices = stint_xgrow(r->devices, dcap, r->ndevices + 1, sizeof *r->devices, 16);
    struct stint_gpu_device *d = &r->devices[r->ndevices];
    memset(d, 0, sizeof *d);
    d->file = file;
    d->device = f->items[a].dev;
    d->win0 = w0;
    d->win1 = w1;
    d->iv0 = iv0;
    d->niv = r->nivs - iv0;
    d->busy_ns = list_len(r->ivs + iv0, d->niv);
    for (int c = 0; c < STINT_GPU_CLASSES; c++)
        d->cls_ns[c] = list_len(cls[c], ncls[c]);
    d->overlap_ns = inter_len(cls[STINT_GPU_COMM], ncls[STINT_GPU_COMM], cls[STINT_GPU_COMPUTE],
                              ncls[STINT_GPU_COMPUTE]);
    for (int c = 0; c < STINT_GPU_CLASSES; c++)
        free(cls[c]);
    /* its streams, by lane index (the lane's tid order is the model's) */
    for (size_t l = 0; l < m->lanes.len; l++) {
        struct stream_acc *sa = &acc[l];
        if (!sa->seen || stint_model_lane_at(m, (uint32_t)l)->pid != d->device)
            continue;
        r->streams = stint_xgrow(r->streams, scap, r->nstreams + 1, sizeof *r->streams, 16);
        struct stint_gpu_stream *st = &r->streams[r->nstreams++];
        st->file = file;
        st->device_row = (uint32_t)r->ndevices;
        st->lane = (uint32_t)l;
        st->kernels = sa->kernels;
        st->busy_ns = stint_union_acc_total(&sa->u);
        st->idle_ns = (w1 - w0) - st->busy_ns;
        d->streams++;
        memset(sa, 0, sizeof *sa);
        stint_union_acc_init(&sa->u);
    }
    r->ndevices++;
}

/* A span's part inside the range and its class, for the unions over devices. */
struct civ {
    int64_t s, e, cls;
};

static int civ_before(const void *x, const void *y)
{
    return ((const struct civ *)x)->s < ((const struct civ *)y)->s;
}

/* Devices and streams of every file, and each file's unions over its devices. */
static void devices(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o)
{
    size_t dcap = 0, scap = 0, icap = 0;
    for (size_t fi = 0; fi < n; fi++) {
        struct gpu_file *f = &fs[fi];
        size_t nl = f->m->lanes.len;
        struct stream_acc *acc = stint_xcalloc(nl ? nl : 1, sizeof *acc);
        for (size_t l = 0; l < nl; l++)
            stint_union_acc_init(&acc[l].u);
        for (size_t a = 0; a < f->nitems;) {
            size_t b = a;
            while (b < f->nitems && f->items[b].dev == f->items[a].dev)
                b++;
            one_device(r, &dcap, &scap, &icap, f, (uint32_t)fi, a, b, acc, o);
            a = b;
        }
        free(acc);
        /* the file's unions over all its devices, per class and all: the
         * devices' runs merged by start */
        struct civ *v = stint_xmalloc((f->nitems ? f->nitems : 1) * sizeof *v);
        for (size_t i = 0; i < f->nitems; i++) {
            clip(&f->items[i], o, &v[i].s, &v[i].e);
            v[i].cls = f->items[i].cls;
        }
        stint_gpu_sort_runs(v, f->nitems, sizeof *v, civ_before);
        size_t cap[STINT_GPU_CLASSES + 1] = {0};
        for (size_t i = 0; i < f->nitems; i++) {
            merge_push(&f->u[v[i].cls], &f->nu[v[i].cls], &cap[v[i].cls], v[i].s, v[i].e);
            merge_push(&f->u[STINT_GPU_CLASSES], &f->nu[STINT_GPU_CLASSES], &cap[STINT_GPU_CLASSES], v[i].s, v[i].e);
        }
        free(v);
    }
}

/* ---- kernels ------------------------------------------------------------ */

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an < bn ? -1 : an > bn);
}

static int cmp_kernel(const void *a, const void *b)
{
    const struct stint_gpu_kernel *x = a, *y = b;
    if (x->sum_ns != y->sum_ns)
        return x->sum_ns > y->sum_ns ? -1 : 1;
    int c = cmp_bytes(x->name, x->name_len, y->name, y->name_len);
    return c ? c : (int)x->cls - (int)y->cls;
}

/* The kernel table: device work by (name, class) over every file. */
static void kernels(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o)
{
    struct gpu_names names = {0};
    struct stint_umap grp = {0}; /* (name index, class) -> group */
    size_t total = 0, ng = 0;
    uint32_t **gid = stint_xcalloc(n ? n : 1, sizeof *gid);
    for (size_t fi = 0; fi < n; fi++) {
        struct gpu_file *f = &fs[fi];
        gid[fi] = stint_xmalloc((f->nitems ? f->nitems : 1) * sizeof **gid);
        struct gpu_idcache local[STINT_GPU_CLASSES] = {{0}}; /* per class: name id -> group + 1 */
        for (size_t i = 0; i < f->nitems; i++) {
            const struct gpu_item *it = &f->items[i];
            uint32_t *slot = stint_gpu_idslot(&local[it->cls], it->name);
            if (!*slot) {
                size_t ln;
                const char *s = stint_model_str(f->m, it->name, &ln);
                size_t ni = stint_gpu_names_get(&names, s, ln);
                int isnew;
                uint32_t g = stint_umap_get(&grp, (uint64_t)ni << 2 | it->cls, (uint32_t)ng, &isnew);
                if (isnew)
                    ng++;
                *slot = g + 1;
            }
            gid[fi][i] = *slot - 1;
        }
        for (int c = 0; c < STINT_GPU_CLASSES; c++)
            free(local[c].v);
        total += f->nitems;
    }
    size_t *off = stint_xcalloc(ng + 1, sizeof *off);
    struct stint_gpu_kernel *k = stint_xcalloc(ng ? ng : 1, sizeof *k);
    for (size_t fi = 0; fi < n; fi++)
        for (size_t i = 0; i < fs[fi].nitems; i++) {
            const struct gpu_item *it = &fs[fi].items[i];
            struct stint_gpu_kernel *g = &k[gid[fi][i]];
            if (!g->count) {
                g->name = stint_model_str(fs[fi].m, it->name, &g->name_len);
                g->cls = (enum stint_gpu_class)it->cls;
            }
            g->count++;
            g->sum_ns += it->dur;
            off[gid[fi][i] + 1]++;
        }
    for (size_t g = 0; g < ng; g++)
        off[g + 1] += off[g];
    int64_t *durs = stint_xmalloc((total ? total : 1) * sizeof *durs);
    size_t *fill = stint_xmalloc((ng ? ng : 1) * sizeof *fill);
    memcpy(fill, off, ng * sizeof *fill);
    for (size_t fi = 0; fi < n; fi++)
        for (size_t i = 0; i < fs[fi].nitems; i++)
            durs[fill[gid[fi][i]]++] = fs[fi].items[i].dur;
    for (size_t g = 0; g < ng; g++) {
        int64_t *v = durs + off[g];
        size_t c = off[g + 1] - off[g];
        static const unsigned q[] = {0, 50, 90, 100}; /* (rank 0 and 100: the least and the largest) */
        int64_t out[4];
        stint_gpu_quantiles(v, c, q, 4, out);
        k[g].min_ns = out[0];
        k[g].p50_ns = out[1];
        k[g].p90_ns = out[2];
        k[g].max_ns = out[3];
    }
    if (ng > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(k, ng, sizeof *k, cmp_kernel);
    r->kernel_groups = ng;
    r->nkernels = ng < o->top ? ng : o->top;
    r->kernels = k;
    for (size_t fi = 0; fi < n; fi++)
        free(gid[fi]);
    free(gid);
    free(off);
    free(fill);
    free(durs);
    stint_umap_free(&grp);
    stint_gpu_names_free(&names);
}

/* ---- entry points ------------------------------------------------------- */

void stint_gpu_file_free(struct gpu_file *f)
{
    stint_hmem_free(f->items, f->itemcap * sizeof *f->items);
    stint_hmem_free(f->calls, f->callcap * sizeof *f->calls);
    free(f->ops);
    free(f->stepc);
    free(f->lane_work);
    free(f->kind);
    free(f->step_name);
    free(f->outcorr);
    for (int c = 0; c <= STINT_GPU_CLASSES; c++)
        free(f->u[c]);
    memset(f, 0, sizeof *f);
}

/* The launch links of a result, computed on a thread of their own. */
struct links_job {
    struct stint_gpu_result *r;
    struct gpu_file *fs;
    size_t n;
    const struct stint_gpu_opts *o;
};

static void *links_thread(void *arg)
{
    struct links_job *j = arg;
    stint_i_self_thread("stint gpu links");
    SELF_SCOPE_CPU("gpu: links");
    stint_gpu_links(j->r, j->fs, j->n, j->o);
    return NULL;
}

/* Spans (device work and calls) from which the links go on a second
 * thread: 65536, or STINT_GPU_LINKS_MIN (for tests). */
static size_t links_thread_min(void)
{
    const char *e = getenv("STINT_GPU_LINKS_MIN");
    return e && *e ? (size_t)strtoull(e, NULL, 10) : (size_t)1 << 16;
}

void stint_gpu_analyze(struct stint_gpu_result *r, struct gpu_file *fs, size_t n, const struct stint_gpu_opts *o)
{
    memset(r, 0, sizeof *r);
    r->nfiles = n;
    SELF_BEGIN_CPU(prep, "gpu: prepare");
    for (size_t i = 0; i < n; i++) {
        stint_gpu_prepare(&fs[i], o);
        r->work += fs[i].nitems;
    }
    SELF_END_CPU(prep);
    /* the links read the lists and write their own fields of r only, as
     * devices, kernels and steps do theirs: on two threads when both have
     * work enough */
    size_t spans = 0;
    for (size_t i = 0; i < n; i++)
        spans += fs[i].nitems + fs[i].ncalls;
    struct stint_gpu_result lr = {0};
    struct links_job job = {&lr, fs, n, o};
    pthread_t lt;
    int threaded = spans >= links_thread_min() && stint_threads_wanted() > 1 &&
                   pthread_create(&lt, NULL, links_thread, &job) == 0;
    SELF_BEGIN_CPU(dev, "gpu: devices");
    devices(r, fs, n, o);
    SELF_END_CPU(dev);
    SELF_BEGIN_CPU(ker, "gpu: kernels");
    kernels(r, fs, n, o);
    SELF_END_CPU(ker);
    SELF_BEGIN_CPU(stp, "gpu: steps");
    stint_gpu_steps(r, fs, n, o);
    SELF_END_CPU(stp);
    if (threaded)
        pthread_join(lt, NULL);
    else
        links_thread(&job);
    r->linked = lr.linked;
    r->unlinked_kernels = lr.unlinked_kernels;
    r->unlinked_launches = lr.unlinked_launches;
    r->delay_p50_ns = lr.delay_p50_ns;
    r->delay_p90_ns = lr.delay_p90_ns;
    r->delay_p99_ns = lr.delay_p99_ns;
    r->delay_max_ns = lr.delay_max_ns;
    r->sites = lr.sites;
    r->nsites = lr.nsites;
    r->ops = lr.ops;
    r->nops = lr.nops;
    for (size_t i = 0; i < n; i++)
        stint_gpu_file_free(&fs[i]);
}

void stint_gpu_compute(struct stint_gpu_result *r, const struct stint_model *const *ms, size_t n,
                       const int64_t *ranks, const struct stint_gpu_opts *o)
{
    struct gpu_file *fs = stint_xcalloc(n ? n : 1, sizeof *fs);
    for (size_t i = 0; i < n; i++) {
        fs[i].m = ms[i];
        fs[i].rank = ranks ? ranks[i] : (int64_t)i;
        stint_gpu_collect_model(&fs[i], o);
    }
    stint_gpu_analyze(r, fs, n, o);
    free(fs);
}

void stint_gpu_result_free(struct stint_gpu_result *r)
{
    free(r->devices);
    free(r->streams);
    free(r->kernels);
    free(r->sites);
    free(r->ops);
    free(r->steps);
    free(r->ranks);
    free(r->lasts);
    free(r->ivs);
    memset(r, 0, sizeof *r);
}

void stint_gpu_util_bins(const struct stint_gpu_result *r, size_t d, size_t nbins, double *out)
{
    const struct stint_gpu_device *dv = &r->devices[d];
    int64_t w = dv->win1 - dv->win0, step = nbins ? w / (int64_t)nbins : 0;
    for (size_t b = 0; b < nbins; b++) {
        int64_t a = dv->win0 + (int64_t)b * step, e = b + 1 == nbins ? dv->win1 : a + step;
        out[b] = e > a ? (double)stint_gpu_clip_len(r->ivs + dv->iv0, dv->niv, a, e) / (double)(e - a) : 0.0;
    }
}

int stint_gpu_has_work(const struct stint_model *m)
{
    struct gpu_file f = {0};
    f.m = m;
    uint8_t *xla = stint_gpu_xla_lanes(m);
    int found = 0;
    for (size_t i = 0; i < stint_model_nslices(m) && !found; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (s->dur_ns < 0 || (s->flags & STINT_SLICE_INSTANT) || t->kind != STINT_TRACK_THREAD)
            continue;
        enum gpu_kind k = stint_gpu_cat_kind(&f, s->cat);
        found = k == GK_KERNEL || k == GK_COPY || k == GK_MTIA || (xla[t->lane] && k != GK_ANNOT);
    }
    free(f.kind);
    free(xla);
    return found;
}
