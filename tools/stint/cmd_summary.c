/*
 * cmd_summary.c - `stint summary FILE [--json]`: per-lane, per-category and
 * per-name time, with the union ("busy") next to the plain sum.
 *
 * Spans are thread-track slices made by X or matched B/E (and JSONL/marker
 * spans); instants, async slices and unfinished spans (dur -1) are not spans
 * here: instants and async slices get their own sections, unfinished spans
 * are counted in repairs. Device-clock lanes (markers clk=dev) are keyed
 * apart (clock "device") and never unioned with host spans.
 *
 * The model's slices are grouped by track and sorted by start (model.h), so
 * each lane's union, each name's per-lane union and each span's self time
 * (duration minus the union of its direct children, clipped to it) come
 * from one pass with a stack. Categories are unioned across lanes by walking
 * every span in global start order (a k-way merge of the tracks). Per span,
 * only 8 bytes of duration (for the quantiles) and a 4-byte name index are
 * kept (docs/formats/summary-json.md).
 */
#include "cmdopts.h"
#include "commands.h"
#include "hmem.h"
#include "intervals.h"
#include "readers.h"
#include "selftrace.h"
#include "textout.h"
#include "tsparse.h"
#include "umap.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: stint summary FILE [--json] [--strict] [--format chrome|jsonl|markers] [filters]\n"
    "  per lane, per category and per name: spans, sum (double-counts overlap) and busy/total\n"
    "  (union of intervals), self time and duration quantiles; counters, instants, repairs\n";

struct lane_row {
    uint64_t spans;
    int64_t sum_ns;
    struct stint_union_acc busy;
};

#define RUN_SHIFT 13
#define RUN_BLOCK ((size_t)1 << RUN_SHIFT)
#define RUN_MASK (RUN_BLOCK - 1)

struct cat_row {
    uint32_t cat;
    uint8_t clock;
    uint64_t spans;
    int64_t sum_ns, busy_ns;
    int64_t run_start, run_end; /* the current track's merged run */
    int run_open;
    int run_cont;               /* a run of the current track is kept already, starting at run_prev */
    int64_t run_prev;
    /* finished runs of every track, unioned at the end, packed in 8-byte
     * slots (intervals.h: most runs take one): slot i is
     * ivb[i >> RUN_SHIFT][i & RUN_MASK]; block 0 doubles up to RUN_BLOCK
     * slots, the others are RUN_BLOCK slots (64 KiB) each, so large
     * categories take the same blocks as the span records they outlive */
    uint64_t **ivb;
    size_t niv, iv0cap, nivb;
    size_t *seg, nseg, segcap;  /* where each track's slots end in ivb (each track's runs are sorted) */
};

/* A block of a name's durations. Blocks double from DUR_FIRST values to
 * DUR_BLOCK (64 KiB, the size of a full segment of span records, whose
 * memory the walk frees as it goes: hmem.h hands it on as it is), then stay
 * at DUR_BLOCK; nothing is copied as a list grows, and joining two lists
 * moves block pointers only. The smaller blocks are cut in turn from slabs
 * of DUR_SLAB bytes (hmem.h too) and freed with them at the end: from
 * malloc, the ~2,000 lists of a large trace took some 7 MiB of 4 KiB pages,
 * each ~10 us at its first touch here. */
#define DUR_FIRST 16u
#define DUR_BLOCK ((uint32_t)16384)
#define DUR_SLAB ((size_t)64 << 10)
_Static_assert(DUR_SLAB == DUR_BLOCK * sizeof(uint32_t), "a full block takes a slab's size");
struct dur_blk {
    uint32_t *v;
    uint32_t n, cap;
};

/* The slabs the small duration blocks of one walker's rows are cut from. */
struct dur_slab {
    char *at;   /* the current slab's free part */
    size_t left;
    char **all;
    size_t n, cap;
};

struct name_row {
    /* what every span of the name updates first (the row's first 64 bytes) */
    uint64_t spans;
    int64_t sum_ns, min_ns, max_ns;
    /* every duration, for the quantiles (d_len in all): 4 bytes each while
     * all fit in 32 bits (4.29 s), in blocks (dt the last one, dt_n of its
     * dt_cap used; the earlier ones in dblk), then 8 bytes each in one array
     * (d) once one does not */
    uint32_t *dt;
    uint32_t dt_n, dt_cap;
    int64_t *d;
    size_t d_len;
    struct dur_blk *dblk;
    size_t ndblk, dblk_cap, d_cap;
    uint32_t crow;       /* its category row */
    uint32_t stamp;      /* lane of the running union below */
    struct stint_union_acc acc;
    int64_t self_ns, total_ns;
    /* set when the row is made, and at the end */
    uint32_t cat, name;
    uint8_t clock;
    int64_t p50, p90, p99, mean_ns;
};

struct async_row {
    uint32_t cat, name;
    uint64_t spans, unfinished;
    int64_t sum_ns;
};

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    return p;
}

static void *xrealloc2(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    return q;
}

struct frame {
    uint32_t row;    /* name row of a counted span, STINT_NO_ID for anything else */
    int64_t ts_ns, dur_ns;
    struct stint_union_acc kids;
    uint32_t xa, xb; /* an explicit parent's children: summary.xk[xa, xb) */
};

/* A child of an explicit parent (JSONL parent ids), clipped to the parent. */
struct xkid {
    uint32_t parent; /* the parent's slice index */
    int64_t start, end;
};

struct summary {
    const struct stint_filter *f;
    int filtering;            /* any filter option given */
    struct lane_row *lanes;   /* by lane index */
    struct cat_row *cats;
    size_t ncats, ccap;
    struct name_row *names;
    size_t nnames, ncap;
    struct async_row *asyncs;
    size_t nasync;
    uint64_t spans, unfinished;
    int64_t sum_ns;
    struct stint_umap cmap, nmap;
    struct frame *frames;     /* the current track's open spans, by level */
    size_t sn, fcap;
    uint32_t track;           /* the track being streamed */
    struct xkid *xk;          /* the children of explicit parents, by parent and start */
    uint32_t *xfirst;         /* by slice: where its children start in xk (n + 1 entries; NULL: not built) */
    size_t nxk;
    /* with filters, the instants and counter samples that pass them (the
     * model's own tallies count everything): */
    uint64_t *icount;         /* per m->instants row */
    struct stint_umap imap[4]; /* (cat, name) -> m->instants row, per track kind */
    struct ctally {
        uint64_t samples;
        double min, max;
        long double sum;
    } *ctally;                /* per m->counters row, with --pid or --time-range */
    struct dur_slab slab;     /* the small blocks of the names' durations */
    uint32_t *prow;           /* by lean pair (stint_span_ev.pair1 - 1): name row + 1, 0 = not seen yet */
    size_t nprow;
#define RCACHE 1024
    struct rcache_ent {
        uint64_t key;
        uint32_t row1;        /* name row + 1, 0 = empty */
    } rcache[RCACHE];
};

/* Nearest-rank index of quantile num/den among n sorted values: ceil(q*n)-1. */
static size_t rank_of(size_t n, uint64_t num, uint64_t den)
{
    size_t r = (size_t)((num * n + den - 1) / den);
    return r ? r - 1 : 0;
}

/* Appends slot v to the category's runs. */
static void cat_slot_push(struct cat_row *c, uint64_t v)
{
    size_t b = c->niv >> RUN_SHIFT, at = c->niv & RUN_MASK;
    if (b == 0 && at == c->iv0cap) { /* block 0 grows */
        size_t old = c->iv0cap;
        c->iv0cap = c->iv0cap ? c->iv0cap * 2 : 16;
        if (!c->ivb) {
            c->ivb = xrealloc2(NULL, sizeof *c->ivb);
            c->ivb[0] = NULL;
            c->nivb = 1;
        }
        c->ivb[0] = stint_hmem_xrealloc(c->ivb[0], old * sizeof **c->ivb, c->iv0cap * sizeof **c->ivb);
    } else if (b > 0 && at == 0) { /* a new block */
        c->ivb = xrealloc2(c->ivb, (b + 1) * sizeof *c->ivb);
        c->ivb[b] = stint_hmem_xrealloc(NULL, 0, RUN_BLOCK * sizeof **c->ivb);
        c->nivb = b + 1;
    }
    c->ivb[b][at] = v;
    c->niv++;
}

/* The category's intervals of the current track are folded into one run as
 * they come (start order); a run ends when a later span starts after it and
 * is kept, packed, for the union across lanes at the end. */
static void cat_run_flush(struct cat_row *c)
{
    if (!c->run_open)
        return;
    uint64_t slot[3];
    unsigned k = stint_pack_interval(slot, !c->run_cont, c->run_prev, c->run_start, c->run_end);
    for (unsigned i = 0; i < k; i++)
        cat_slot_push(c, slot[i]);
    c->run_cont = 1;
    c->run_prev = c->run_start;
    c->run_open = 0;
}

/* Appends end to the category's list of track ends (seg). */
static void cat_seg_push(struct cat_row *c, size_t end)
{
    if (c->nseg == c->segcap) {
        size_t old = c->segcap;
        c->segcap = c->segcap ? c->segcap * 2 : 16;
        c->seg = stint_hmem_xrealloc(c->seg, old * sizeof *c->seg, c->segcap * sizeof *c->seg);
    }
    c->seg[c->nseg++] = end;
}

static void cat_runs_free(struct cat_row *c)
{
    for (size_t b = 0; b < c->nivb; b++)
        stint_hmem_free(c->ivb[b], (b ? RUN_BLOCK : c->iv0cap) * sizeof **c->ivb);
    free(c->ivb);
    c->ivb = NULL;
    c->nivb = 0;
}

/* Frees a category's runs and track ends (after cat_finish, or once joined). */
static void cat_free(struct cat_row *cr)
{
    cat_runs_free(cr);
    stint_hmem_free(cr->seg, cr->segcap * sizeof *cr->seg);
    cr->seg = NULL;
}

static void frame_end(struct summary *S, struct frame *fr)
{
    if (fr->row == STINT_NO_ID)
        return;
    for (uint32_t k = fr->xa; k < fr->xb; k++) /* (in start order, as the union takes them) */
        stint_union_acc_add(&fr->kids, S->xk[k].start, S->xk[k].end);
    S->names[fr->row].self_ns = stint_sum_add(S->names[fr->row].self_ns, fr->dur_ns - stint_union_acc_total(&fr->kids));
}

static int xkid_cmp(const void *pa, const void *pb)
{
    const struct xkid *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

/* Collects the finished spans whose explicit parent is a finished span
 * (JSONL sessions: the span tree comes from parent ids, and a step's workers
 * may run on other threads), each clipped to its parent, by parent and
 * start: their union is what counts against the parent's self time, as in
 * `tree`, whatever the track and whatever order the walk streams them in.
 * Built once, by the walk that streams the first slice with an explicit
 * parent (those are streamed on one thread). */
static void xkids_build(struct summary *S, const struct stint_model *m)
{
    size_t n = stint_model_nslices(m), cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *c = stint_model_slice(m, i);
        if (!(c->flags & STINT_SLICE_EXPLICIT_PARENT) || c->parent >= n || c->dur_ns < 0 ||
            (c->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC)))
            continue;
        const struct stint_slice *p = stint_model_slice(m, c->parent);
        if (p->dur_ns < 0)
            continue;
        int64_t start = c->ts_ns > p->ts_ns ? c->ts_ns : p->ts_ns;
        int64_t end = c->ts_ns + c->dur_ns, pend = p->ts_ns + p->dur_ns;
        if (end > pend)
            end = pend;
        if (end <= start)
            continue;
        if (S->nxk == cap) {
            cap = cap ? cap * 2 : 64;
            S->xk = xrealloc2(S->xk, cap * sizeof *S->xk);
        }
        S->xk[S->nxk++] = (struct xkid){c->parent, start, end};
    }
    /* grouped by parent (a counting sort), each parent's in start order */
    S->xfirst = xcalloc(n + 1, sizeof *S->xfirst);
    for (size_t k = 0; k < S->nxk; k++)
        S->xfirst[S->xk[k].parent + 1]++;
    for (size_t i = 0; i < n; i++)
        S->xfirst[i + 1] += S->xfirst[i];
    struct xkid *by = xrealloc2(NULL, (S->nxk ? S->nxk : 1) * sizeof *by);
    for (size_t k = 0; k < S->nxk; k++)
        by[S->xfirst[S->xk[k].parent]++] = S->xk[k];
    for (size_t i = n; i > 0; i--) /* each entry moved to its parent's end: back to the starts */
        S->xfirst[i] = S->xfirst[i - 1];
    S->xfirst[0] = 0;
    free(S->xk);
    S->xk = by;
    for (size_t i = 0; i < n; i++)
        if (S->xfirst[i + 1] - S->xfirst[i] > 1)
            qsort(S->xk + S->xfirst[i], S->xfirst[i + 1] - S->xfirst[i], sizeof *S->xk, xkid_cmp);
}

/* Points the frame of explicit-parent slice idx at its children. */
static void frame_xkids(struct summary *S, const struct stint_model *m, struct frame *fr, uint32_t idx)
{
    if (!S->xfirst)
        xkids_build(S, m);
    fr->xa = S->xfirst[idx];
    fr->xb = S->xfirst[idx + 1];
}

/* The end of a track's stream: its open frames and category runs end. */
static void track_end(struct summary *S)
{
    while (S->sn)
        frame_end(S, &S->frames[--S->sn]);
    for (size_t c = 0; c < S->ncats; c++) {
        struct cat_row *cr = &S->cats[c];
        cat_run_flush(cr);
        size_t mark = cr->nseg ? cr->seg[cr->nseg - 1] : 0;
        if (cr->niv > mark)
            cat_seg_push(cr, cr->niv); /* where this track's runs end */
        cr->run_cont = 0;              /* (the next track's first run takes three slots) */
    }
}

static uint32_t cat_row_of(struct summary *S, uint32_t cat, uint8_t clk)
{
    int isnew;
    uint32_t c = stint_umap_get(&S->cmap, ((uint64_t)clk << 32) | cat, (uint32_t)S->ncats, &isnew);
    if (isnew) {
        if (S->ncats == S->ccap) {
            S->ccap = S->ccap ? S->ccap * 2 : 64;
            S->cats = xrealloc2(S->cats, S->ccap * sizeof *S->cats);
        }
        memset(&S->cats[c], 0, sizeof S->cats[c]);
        S->cats[c].cat = cat;
        S->cats[c].clock = clk;
        S->ncats++;
    }
    return c;
}

static uint32_t name_row_of(struct summary *S, uint32_t cat, uint32_t name, uint8_t clk)
{
    int isnew;
    /* (cat, name, clock) key: cat and name ids are < 2^31 in practice; fold the clock in */
    uint64_t nk = ((uint64_t)cat << 32) ^ name ^ ((uint64_t)clk << 63);
    /* names repeat: a direct-mapped cache in front of the map */
    struct rcache_ent *ce = &S->rcache[(nk * 0x9e3779b97f4a7c15ULL) >> 54]; /* (RCACHE is 1024) */
    if (ce->row1 && ce->key == nk)
        return ce->row1 - 1;
    uint32_t r = stint_umap_get(&S->nmap, nk, (uint32_t)S->nnames, &isnew);
    ce->key = nk;
    ce->row1 = r + 1;
    if (isnew) {
        if (S->nnames == S->ncap) { /* (hmem.h: a walker's rows can take half a megabyte) */
            size_t old = S->ncap;
            S->ncap = S->ncap ? S->ncap * 2 : 256;
            S->names = stint_hmem_xrealloc(S->names, old * sizeof *S->names, S->ncap * sizeof *S->names);
        }
        struct name_row *nr = &S->names[r];
        memset(nr, 0, sizeof *nr);
        nr->cat = cat;
        nr->name = name;
        nr->clock = clk;
        nr->crow = cat_row_of(S, cat, clk);
        nr->min_ns = INT64_MAX;
        nr->stamp = STINT_NO_ID;
        S->nnames++;
    }
    return r;
}

/* The name row of a span: by its lean pair when it has one (the pair's row,
 * found once by name_row_of), else name_row_of. */
static uint32_t span_row_of(struct summary *S, const struct stint_model *m, const struct stint_span_ev *ev)
{
    size_t pair = (size_t)ev->pair1 - 1;
    if (ev->pair1 && pair < S->nprow && S->prow[pair])
        return S->prow[pair] - 1;
    uint32_t row = name_row_of(S, ev->cat, ev->name, stint_model_lane_at(m, ev->lane)->clock);
    if (ev->pair1) {
        if (pair >= S->nprow) {
            size_t n = S->nprow ? S->nprow : 256;
            while (n <= pair)
                n *= 2;
            S->prow = xrealloc2(S->prow, n * sizeof *S->prow);
            memset(S->prow + S->nprow, 0, (n - S->nprow) * sizeof *S->prow);
            S->nprow = n;
        }
        S->prow[pair] = row + 1;
    }
    return row;
}

/* Puts block (v, n, cap) on the name's list of earlier blocks. */
static void dur_keep(struct name_row *nr, uint32_t *v, uint32_t n, uint32_t cap)
{
    if (nr->ndblk == nr->dblk_cap) {
        nr->dblk_cap = nr->dblk_cap ? nr->dblk_cap * 2 : 8;
        nr->dblk = xrealloc2(nr->dblk, nr->dblk_cap * sizeof *nr->dblk);
    }
    nr->dblk[nr->ndblk++] = (struct dur_blk){v, n, cap};
}

/* Adds slab p to sl's list. */
static void slab_add(struct dur_slab *sl, char *p)
{
    if (sl->n == sl->cap) {
        sl->cap = sl->cap ? sl->cap * 2 : 16;
        sl->all = xrealloc2(sl->all, sl->cap * sizeof *sl->all);
    }
    sl->all[sl->n++] = p;
}

/* bytes (at most DUR_SLAB, a multiple of 8) from the current slab, or from a new one. */
static void *slab_take(struct dur_slab *sl, size_t bytes)
{
    if (bytes > sl->left) {
        sl->at = stint_hmem_xrealloc(NULL, 0, DUR_SLAB);
        slab_add(sl, sl->at);
        sl->left = DUR_SLAB;
    }
    void *p = sl->at;
    sl->at += bytes;
    sl->left -= bytes;
    return p;
}

/* Moves from's slabs to to (whose rows now hold blocks cut from them). */
static void slab_move(struct dur_slab *to, struct dur_slab *from)
{
    for (size_t k = 0; k < from->n; k++)
        slab_add(to, from->all[k]);
    free(from->all);
    memset(from, 0, sizeof *from);
}

/* Frees every slab (once no row holds a block cut from one). */
static void slab_free(struct dur_slab *sl)
{
    for (size_t k = 0; k < sl->n; k++)
        stint_hmem_free(sl->all[k], DUR_SLAB);
    free(sl->all);
    memset(sl, 0, sizeof *sl);
}

/* The name's last block is full (or there is none): a new one, twice as
 * large up to DUR_BLOCK values, takes its place (cut from sl while smaller). */
static void dur_block(struct dur_slab *sl, struct name_row *nr)
{
    uint32_t cap = nr->dt_cap ? (nr->dt_cap < DUR_BLOCK ? nr->dt_cap * 2 : DUR_BLOCK) : DUR_FIRST;
    if (nr->dt)
        dur_keep(nr, nr->dt, nr->dt_n, nr->dt_cap);
    nr->dt = cap < DUR_BLOCK ? slab_take(sl, cap * sizeof *nr->dt) : stint_hmem_xrealloc(NULL, 0, DUR_SLAB);
    nr->dt_n = 0;
    nr->dt_cap = cap;
}

/* Frees the name's narrow blocks but those cut from slabs (its list is then empty). */
static void dur_blocks_free(struct name_row *nr)
{
    for (size_t k = 0; k < nr->ndblk; k++)
        if (nr->dblk[k].cap == DUR_BLOCK)
            stint_hmem_free(nr->dblk[k].v, DUR_SLAB);
    if (nr->dt_cap == DUR_BLOCK)
        stint_hmem_free(nr->dt, DUR_SLAB);
    free(nr->dblk);
    nr->dblk = NULL;
    nr->ndblk = nr->dblk_cap = 0;
    nr->dt = NULL;
    nr->dt_n = nr->dt_cap = 0;
}

/* Makes room for cap wide durations (no less than now) in the name's array. */
static void dur_reserve(struct name_row *nr, size_t cap)
{
    if (cap <= nr->d_cap)
        return;
    nr->d = stint_hmem_xrealloc(nr->d, nr->d_cap * sizeof *nr->d, cap * sizeof *nr->d);
    nr->d_cap = cap;
}

/* Writes the values of r's narrow blocks (all r holds while not wide) to at. */
static void dur_narrow_copy(const struct name_row *r, int64_t *at)
{
    for (size_t k = 0; k < r->ndblk; k++)
        for (uint32_t i = 0; i < r->dblk[k].n; i++)
            *at++ = r->dblk[k].v[i];
    for (uint32_t i = 0; i < r->dt_n; i++)
        *at++ = r->dt[i];
}

/* Turns the name's narrow blocks into one wide array with room for extra
 * more (once a duration needs 64 bits). */
static void dur_widen(struct name_row *nr, size_t extra)
{
    dur_reserve(nr, nr->d_len + extra);
    dur_narrow_copy(nr, nr->d);
    dur_blocks_free(nr);
}

/* Frees a name row's durations (after name_finish, or once appended elsewhere). */
static void name_free(struct name_row *nr)
{
    dur_blocks_free(nr);
    stint_hmem_free(nr->d, nr->d_cap * sizeof *nr->d);
    nr->d = NULL;
    nr->d_len = nr->d_cap = 0;
}

/* Appends one duration to the name's list (narrow while every value fits). */
static void dur_push(struct dur_slab *sl, struct name_row *nr, int64_t dur)
{
    if (!nr->d && (uint64_t)dur <= UINT32_MAX) {
        if (nr->dt_n == nr->dt_cap)
            dur_block(sl, nr);
        nr->dt[nr->dt_n++] = (uint32_t)dur;
    } else {
        if (!nr->d)
            dur_widen(nr, 16);
        else if (nr->d_len == nr->d_cap)
            dur_reserve(nr, nr->d_cap + nr->d_cap / 2);
        nr->d[nr->d_len] = dur;
    }
    nr->d_len++;
}

/* With filters: indexes the model's instant tallies for instant_pass(). */
static void instants_index(struct summary *S, const struct stint_model *m)
{
    if (S->icount || !S->filtering)
        return;
    S->icount = xcalloc(m->instants.len + 1, sizeof *S->icount);
    for (size_t k = 0; k < m->instants.len; k++) {
        const struct stint_instant_stat *st = &STINT_BA_AT(&m->instants, struct stint_instant_stat, k);
        int isnew;
        stint_umap_get(&S->imap[st->kind & 3], ((uint64_t)st->cat << 32) | st->name, (uint32_t)k, &isnew);
    }
}

/* With filters: one instant of track kind kind that passes them. */
static void instant_pass(struct summary *S, const struct stint_model *m, enum stint_track_kind kind, uint32_t cat,
                         uint32_t name)
{
    int isnew;
    uint32_t k = stint_umap_get(&S->imap[kind & 3], ((uint64_t)cat << 32) | name, (uint32_t)m->instants.len, &isnew);
    if (k < m->instants.len)
        S->icount[k]++;
}

/* The span sink (model.h): one thread-track slice at a time, per track in
 * start order with its nesting level. Instants, unfinished and filtered-out
 * slices take a frame too (so levels line up) but count for nothing, except
 * that a filtered-out span still covers its parent: self time is a property
 * of the call tree, the same whatever the filters select (as in `tree`). */
static void on_slice(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct summary *S = ctx;
    if (!S->lanes) {
        S->lanes = xcalloc(m->lanes.len, sizeof *S->lanes);
        for (size_t i = 0; i < m->lanes.len; i++)
            stint_union_acc_init(&S->lanes[i].busy);
        S->track = STINT_NO_ID;
        instants_index(S, m);
    }
    if (ev->track != S->track) {
        track_end(S);
        S->track = ev->track;
    }
    while (S->sn > ev->level)
        frame_end(S, &S->frames[--S->sn]);
    uint32_t row = STINT_NO_ID;
    int pass = 1;
    if (S->filtering) {
        struct stint_slice s = {.ts_ns = ev->ts_ns, .dur_ns = ev->dur_ns, .track = ev->track, .cat = ev->cat,
                                .name = ev->name, .flags = ev->flags};
        pass = stint_filter_slice(S->f, m, &s);
    }
    if (S->icount && pass && (ev->flags & STINT_SLICE_INSTANT) && !(ev->flags & STINT_SLICE_ASYNC))
        instant_pass(S, m, STINT_TRACK_THREAD, ev->cat, ev->name);
    if (pass && !(ev->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC))) {
        if (ev->dur_ns < 0)
            S->unfinished++;
        else
            row = span_row_of(S, m, ev);
    }
    if (ev->level && ev->parent_on_top && !ev->slice1 && ev->level <= S->sn &&
        S->frames[ev->level - 1].row != STINT_NO_ID && !(ev->flags & (STINT_SLICE_INSTANT | STINT_SLICE_ASYNC)) &&
        ev->dur_ns >= 0) {
        /* a direct child, counted or filtered out: clipped into the parent's child union
         * (explicit parents take theirs from S->xk at frame_end) */
        struct frame *p = &S->frames[ev->level - 1];
        int64_t end = ev->ts_ns + ev->dur_ns, pend = p->ts_ns + p->dur_ns;
        stint_union_acc_add(&p->kids, ev->ts_ns, end < pend ? end : pend);
    }
    if (row != STINT_NO_ID) {
        int64_t ts = ev->ts_ns, dur = ev->dur_ns, end = ts + dur;
        struct lane_row *lr = &S->lanes[ev->lane];
        lr->spans++;
        lr->sum_ns = stint_sum_add(lr->sum_ns, dur);
        stint_union_acc_add(&lr->busy, ts, end);
        struct name_row *nr = &S->names[row];
        nr->spans++;
        nr->sum_ns = stint_sum_add(nr->sum_ns, dur);
        if (dur < nr->min_ns)
            nr->min_ns = dur;
        if (dur > nr->max_ns)
            nr->max_ns = dur;
        if (nr->stamp != ev->lane) {
            if (nr->stamp != STINT_NO_ID)
                nr->total_ns = stint_sum_add(nr->total_ns, stint_union_acc_total(&nr->acc));
            stint_union_acc_init(&nr->acc);
            nr->stamp = ev->lane;
        }
        stint_union_acc_add(&nr->acc, ts, end);
        dur_push(&S->slab, nr, dur);
        struct cat_row *cr = &S->cats[nr->crow];
        cr->spans++;
        cr->sum_ns = stint_sum_add(cr->sum_ns, dur);
        if (cr->run_open && ts <= cr->run_end) {
            if (end > cr->run_end)
                cr->run_end = end;
        } else {
            cat_run_flush(cr);
            cr->run_start = ts;
            cr->run_end = end;
            cr->run_open = 1;
        }
        S->spans++;
        S->sum_ns = stint_sum_add(S->sum_ns, dur);
    }
    if (S->sn == S->fcap) {
        S->fcap = S->fcap ? S->fcap * 2 : 64;
        S->frames = xrealloc2(S->frames, S->fcap * sizeof *S->frames);
    }
    struct frame *fr = &S->frames[S->sn++];
    fr->row = row;
    fr->ts_ns = ev->ts_ns;
    fr->dur_ns = ev->dur_ns;
    stint_union_acc_init(&fr->kids);
    fr->xa = fr->xb = 0;
    if (ev->slice1 && row != STINT_NO_ID)
        frame_xkids(S, m, fr, ev->slice1 - 1);
}

/* ---- the walk on two threads (struct stint_span_split) ---------------------------------
 * The second walker tallies its tracks into a summary of its own; join folds
 * it into the first. Every tally is per lane (lanes, the per-lane name
 * unions), per track (self time, category runs) or a plain count, sum,
 * minimum or maximum, and the durations are only selected from, so the
 * result is the one a single walker gives. */

static void *summary_fork(void *ctx, const struct stint_model *m)
{
    const struct summary *S = ctx;
    struct summary *T = xcalloc(1, sizeof *T);
    (void)m;
    T->f = S->f;
    T->filtering = S->filtering;
    return T;
}

/* Appends from's durations to nr's (widening nr when either is wide) and
 * frees from's: narrow, from's blocks join nr's list as they are. */
static void dur_append(struct name_row *nr, struct name_row *from)
{
    if (!nr->d && !from->d) {
        for (size_t k = 0; k < from->ndblk; k++)
            dur_keep(nr, from->dblk[k].v, from->dblk[k].n, from->dblk[k].cap);
        if (from->dt)
            dur_keep(nr, from->dt, from->dt_n, from->dt_cap);
        nr->d_len += from->d_len;
        from->ndblk = 0; /* (the blocks are nr's now: name_free frees only the list) */
        from->dt = NULL;
        from->dt_n = from->dt_cap = 0;
        name_free(from);
        return;
    }
    if (!nr->d)
        dur_widen(nr, from->d_len);
    dur_reserve(nr, nr->d_len + from->d_len);
    int64_t *at = nr->d + nr->d_len;
    if (from->d)
        memcpy(at, from->d, from->d_len * sizeof *at);
    else
        dur_narrow_copy(from, at);
    nr->d_len += from->d_len;
    name_free(from);
}

static void summary_join(void *ctx, void *forked, const struct stint_model *m)
{
    struct summary *S = ctx, *T = forked;
    track_end(S);
    track_end(T);
    if (T->lanes) {
        if (!S->lanes) {
            S->lanes = T->lanes;
            T->lanes = NULL;
        } else /* a lane has one thread track: T's lanes are not S's */
            for (size_t i = 0; i < m->lanes.len; i++)
                if (T->lanes[i].spans)
                    S->lanes[i] = T->lanes[i];
    }
    for (size_t r = 0; r < T->nnames; r++) {
        struct name_row *tr = &T->names[r];
        if (tr->stamp != STINT_NO_ID)
            tr->total_ns = stint_sum_add(tr->total_ns, stint_union_acc_total(&tr->acc));
        uint32_t q = name_row_of(S, tr->cat, tr->name, tr->clock); /* (may move S->names) */
        struct name_row *nr = &S->names[q];
        nr->spans += tr->spans;
        nr->sum_ns = stint_sum_add(nr->sum_ns, tr->sum_ns);
        nr->total_ns = stint_sum_add(nr->total_ns, tr->total_ns);
        nr->self_ns = stint_sum_add(nr->self_ns, tr->self_ns);
        if (tr->min_ns < nr->min_ns)
            nr->min_ns = tr->min_ns;
        if (tr->max_ns > nr->max_ns)
            nr->max_ns = tr->max_ns;
        dur_append(nr, tr);
    }
    for (size_t c = 0; c < T->ncats; c++) {
        struct cat_row *tc = &T->cats[c];
        uint32_t q = cat_row_of(S, tc->cat, tc->clock); /* (may move S->cats) */
        struct cat_row *sc = &S->cats[q];
        sc->spans += tc->spans;
        sc->sum_ns = stint_sum_add(sc->sum_ns, tc->sum_ns);
        /* T's runs after S's, each of T's tracks still a sorted segment */
        size_t base = sc->niv;
        for (size_t i = 0; i < tc->niv; i++) /* (each track's slots begin with a three-slot run) */
            cat_slot_push(sc, tc->ivb[i >> RUN_SHIFT][i & RUN_MASK]);
        for (size_t k = 0; k < tc->nseg; k++)
            cat_seg_push(sc, base + tc->seg[k]);
        cat_free(tc);
    }
    slab_move(&S->slab, &T->slab); /* (T's durations are S's now) */
    S->spans += T->spans;
    S->unfinished += T->unfinished;
    S->sum_ns = stint_sum_add(S->sum_ns, T->sum_ns);
    if (T->icount) {
        instants_index(S, m);
        for (size_t k = 0; k < m->instants.len; k++)
            S->icount[k] += T->icount[k];
    }
    for (int k = 0; k < 4; k++)
        stint_umap_free(&T->imap[k]);
    stint_umap_free(&T->cmap);
    stint_umap_free(&T->nmap);
    free(T->icount);
    free(T->lanes);
    free(T->cats);
    stint_hmem_free(T->names, T->ncap * sizeof *T->names);
    free(T->frames);
    free(T->prow);
    free(T);
}

/* A name row's totals once its spans are in: the last lane's union, the
 * quantiles and the exact mean (name_free frees its durations). */
static void name_finish(struct name_row *nr)
{
    if (nr->stamp != STINT_NO_ID)
        nr->total_ns = stint_sum_add(nr->total_ns, stint_union_acc_total(&nr->acc));
    if (nr->d_len) {
        /* three selections instead of a sort: each one narrows the next (r50 <= r90 <= r99) */
        size_t n = nr->d_len, r99 = rank_of(n, 99, 100), r90 = rank_of(n, 90, 100), r50 = rank_of(n, 50, 100);
#define SELECT3(sel, v)                                                                                                \
    do {                                                                                                               \
        sel(v, n, r99);                                                                                                \
        sel(v, r99 + 1, r90);                                                                                          \
        sel(v, r90 + 1, r50);                                                                                          \
        nr->p50 = (int64_t)v[r50];                                                                                     \
        nr->p90 = (int64_t)v[r90];                                                                                     \
        nr->p99 = (int64_t)v[r99];                                                                                     \
    } while (0)
        /* exact, from the durations: sum_ns may be capped (tsparse.h, stint_sum_add) */
        stint_i128 sum = 0;
        if (nr->d) {
            SELECT3(stint_select_i64, nr->d);
            for (size_t i = 0; i < n; i++)
                sum += nr->d[i];
        } else {
            size_t nruns = 0;
            struct stint_u32_run *runs = xrealloc2(NULL, (nr->ndblk + 1) * sizeof *runs);
            for (size_t k = 0; k < nr->ndblk; k++)
                runs[nruns++] = (struct stint_u32_run){nr->dblk[k].v, nr->dblk[k].n};
            if (nr->dt_n)
                runs[nruns++] = (struct stint_u32_run){nr->dt, nr->dt_n};
            size_t ranks[3] = {r50, r90, r99};
            uint32_t q[3];
            if (stint_select_ranks_u32_runs(runs, nruns, ranks, 3, q) != 0) {
                fprintf(stderr, "stint: out of memory\n");
                exit(3);
            }
            nr->p50 = q[0];
            nr->p90 = q[1];
            nr->p99 = q[2];
            for (size_t k = 0; k < nruns; k++) {
                uint64_t part = 0; /* (a run holds at most 2^32 values of 32 bits: no overflow) */
                for (size_t i = 0; i < runs[k].n; i++)
                    part += runs[k].v[i];
                sum += part;
            }
            free(runs);
        }
#undef SELECT3
        nr->mean_ns = (int64_t)((sum + (stint_i128)(n / 2)) / (stint_i128)n); /* rounded half up */
    }
}

/* A category's union across the tracks (its runs, each track's sorted;
 * cat_free frees them). */
static void cat_finish(struct cat_row *cr)
{
    /* seg[] holds each track's end: turn it into run starts */
    size_t nruns = cr->nseg;
    for (size_t k = nruns; k-- > 0;)
        cr->seg[k] = k ? cr->seg[k - 1] : 0;
    cr->busy_ns =
        stint_intervals_union_packed((const uint64_t *const *)cr->ivb, RUN_SHIFT, cr->niv, cr->seg, nruns);
    if (cr->busy_ns < 0) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
}

/* From this many runs and durations (all categories and names) on, the
 * tail work is done on two threads. */
#define TAIL_SPLIT_MIN ((size_t)1 << 16)

/* The work left once every span is in: the categories' unions and the
 * names' totals and quantiles, one item per row, taken in turn through an
 * atomic index by every thread that works on it, biggest first (so that the
 * threads end together). Each item touches its own row only. */
struct tail_work {
    struct summary *S;
    uint32_t *items; /* row k < ncats: category k; else name k - ncats */
    size_t n;
    size_t next;     /* the next item to take (atomic) */
};

static void *tail_worker(void *arg)
{
    struct tail_work *W = arg;
    SELF_SCOPE_CPU("tail: unions and quantiles");
    for (size_t i; (i = __atomic_fetch_add(&W->next, 1, __ATOMIC_RELAXED)) < W->n;) {
        uint32_t k = W->items[i];
        if (k < W->S->ncats)
            cat_finish(&W->S->cats[k]);
        else
            name_finish(&W->S->names[k - W->S->ncats]);
    }
    return NULL;
}

static void *tail_thread(void *arg)
{
    stint_i_self_thread("stint tail");
    return tail_worker(arg);
}

/* cat_finish and name_finish on every row: on two threads when a second is
 * allowed and there is enough work. */
static void tail_finish(struct summary *S)
{
    struct tail_work W = {.S = S, .n = S->ncats + S->nnames};
    W.items = xcalloc(W.n, sizeof *W.items);
    size_t *wt = xcalloc(W.n, sizeof *wt), total = 0;
    for (size_t k = 0; k < W.n; k++) {
        W.items[k] = (uint32_t)k;
        wt[k] = k < S->ncats ? S->cats[k].niv : S->names[k - S->ncats].d_len;
        total += wt[k];
    }
    pthread_t t;
    int threaded = 0;
    if (total >= TAIL_SPLIT_MIN && stint_threads_wanted() > 1 && stint_order_heaviest(wt, W.n, W.items) == 0)
        threaded = pthread_create(&t, NULL, tail_thread, &W) == 0;
    free(wt);
    tail_worker(&W);
    if (threaded)
        pthread_join(t, NULL);
    free(W.items);
    /* freed on one thread once the other is gone: two threads freeing at
     * once contend for the allocator's lock, and each page given back while
     * both run costs a TLB flush on the other CPU too */
    if (stint_cli_exits_after_command) /* the big blocks are left to the exit */
        stint_hmem_final();
    for (size_t k = 0; k < S->ncats; k++)
        cat_free(&S->cats[k]);
    for (size_t k = 0; k < S->nnames; k++)
        name_free(&S->names[k]);
    slab_free(&S->slab);
}

/* After the model streamed its spans: async rows, category unions across
 * lanes, per-lane name totals and the quantiles. */
static void compute(struct summary *S, const struct stint_model *m)
{
    track_end(S);
    if (!S->lanes)
        S->lanes = xcalloc(m->lanes.len ? m->lanes.len : 1, sizeof *S->lanes);
    size_t acap = 0;
    struct stint_umap amap = {0};
    instants_index(S, m);
    for (size_t i = 0; i < stint_model_nslices(m); i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (S->icount && (s->flags & STINT_SLICE_INSTANT)) {
            /* instants off thread tracks (those came through on_slice) */
            enum stint_track_kind kind = (enum stint_track_kind)stint_model_track_at(m, s->track)->kind;
            if (kind != STINT_TRACK_THREAD && stint_filter_slice(S->f, m, s))
                instant_pass(S, m, kind, s->cat, s->name);
            continue;
        }
        if (!(s->flags & STINT_SLICE_ASYNC) || (s->flags & STINT_SLICE_INSTANT) || !stint_filter_slice(S->f, m, s))
            continue;
        int isnew;
        uint32_t a = stint_umap_get(&amap, ((uint64_t)s->cat << 32) | s->name, (uint32_t)S->nasync, &isnew);
        if (isnew) {
            if (S->nasync == acap) {
                acap = acap ? acap * 2 : 64;
                S->asyncs = xrealloc2(S->asyncs, acap * sizeof *S->asyncs);
            }
            memset(&S->asyncs[a], 0, sizeof S->asyncs[a]);
            S->asyncs[a].cat = s->cat;
            S->asyncs[a].name = s->name;
            S->nasync++;
        }
        if (s->dur_ns < 0)
            S->asyncs[a].unfinished++;
        else {
            S->asyncs[a].spans++;
            S->asyncs[a].sum_ns = stint_sum_add(S->asyncs[a].sum_ns, s->dur_ns);
        }
    }
    stint_umap_free(&amap);
    for (int k = 0; k < 4; k++)
        stint_umap_free(&S->imap[k]);
    if (S->f->has_pid || S->f->has_range) {
        /* counter samples at their process and time (the samples were kept) */
        S->ctally = xcalloc(m->counters.len + 1, sizeof *S->ctally);
        for (size_t k = 0; k < m->samples.len; k++) {
            const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
            const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
            if (!stint_filter_point(S->f, c->pid, cs->ts_ns))
                continue;
            struct ctally *t = &S->ctally[cs->series];
            if (!t->samples || cs->value < t->min)
                t->min = cs->value;
            if (!t->samples || cs->value > t->max)
                t->max = cs->value;
            t->sum += cs->value;
            t->samples++;
        }
    }
    tail_finish(S);
    free(S->frames);
    free(S->xk);
    free(S->xfirst);
    stint_umap_free(&S->cmap);
    stint_umap_free(&S->nmap);
}

/* ---- output ----------------------------------------------------------------------- */

/* Counter series k as reported (its name matching --name, the samples that
 * pass --pid and --time-range when given): 0 when it is left out. */
static int counter_view(const struct summary *S, const struct stint_model *m, size_t k, uint64_t *n, double *mn,
                        double *mx, double *mean)
{
    const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, k);
    if (!stint_filter_name(S->f, stint_model_str(m, c->name, NULL)))
        return 0; /* --name: the series' name, as in `stint counters` */
    long double sum = c->sum;
    *n = c->samples;
    *mn = c->min;
    *mx = c->max;
    if (S->ctally) {
        *n = S->ctally[k].samples;
        *mn = S->ctally[k].min;
        *mx = S->ctally[k].max;
        sum = S->ctally[k].sum;
    }
    *mean = *n ? (double)(sum / (long double)*n) : 0.0;
    return *n != 0 || !S->ctally;
}

/* How many instants of tally k are reported (those passing the filters, when given). */
static uint64_t instant_count(const struct summary *S, const struct stint_model *m, size_t k)
{
    return S->icount ? S->icount[k] : STINT_BA_AT(&m->instants, struct stint_instant_stat, k).count;
}

static const struct stint_model *sort_model;

static int str_cmp_ids(uint32_t a, uint32_t b)
{
    return strcmp(stint_model_str(sort_model, a, NULL), stint_model_str(sort_model, b, NULL));
}

static int cat_cmp(const void *pa, const void *pb)
{
    const struct cat_row *a = pa, *b = pb;
    if (a->clock != b->clock)
        return a->clock - b->clock;
    if (a->busy_ns != b->busy_ns)
        return a->busy_ns > b->busy_ns ? -1 : 1;
    return str_cmp_ids(a->cat, b->cat);
}

static int name_cmp(const void *pa, const void *pb)
{
    const struct name_row *a = pa, *b = pb;
    if (a->clock != b->clock)
        return a->clock - b->clock;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    int c = str_cmp_ids(a->cat, b->cat);
    return c ? c : str_cmp_ids(a->name, b->name);
}

static int async_cmp(const void *pa, const void *pb)
{
    const struct async_row *a = pa, *b = pb;
    if (a->sum_ns != b->sum_ns)
        return a->sum_ns > b->sum_ns ? -1 : 1;
    int c = str_cmp_ids(a->cat, b->cat);
    return c ? c : str_cmp_ids(a->name, b->name);
}

static int lane_cmp(const void *pa, const void *pb)
{
    const struct stint_lane *a = stint_model_lane_at(sort_model, *(const uint32_t *)pa);
    const struct stint_lane *b = stint_model_lane_at(sort_model, *(const uint32_t *)pb);
    if (a->clock != b->clock)
        return a->clock - b->clock;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void jstr(FILE *f, const struct stint_model *m, uint32_t id)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    stint_out_json_str(f, s, n);
}

/* Writes v in decimal at p (at least `digits` digits, zero-padded); returns
 * the end. */
static char *put_dec(char *p, uint64_t v, int digits)
{
    char t[20];
    int k = 0;
    do
        t[k++] = (char)('0' + v % 10);
    while ((v /= 10) || k < digits);
    while (k)
        *p++ = t[--k];
    return p;
}

/* ns as text in a unit chosen by size: below 10 us in ns, else us, ms or s
 * with 3 decimals, rounded half away from zero from the exact integer (no
 * double: large values keep every digit). buf holds at least 32 bytes. */
static void fmt_dur(char *buf, int64_t ns)
{
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    char *p = buf;
    if (ns < 0)
        *p++ = '-';
    const char *unit = " ns";
    if (a < 10000) {
        p = put_dec(p, a, 1);
    } else {
        uint64_t div = a < 10000000 ? 1 : a < 10000000000ULL ? 1000 : 1000000; /* ns per thousandth */
        unit = div == 1 ? " us" : div == 1000 ? " ms" : " s";
        uint64_t q = a / div + (div > 1 && a % div >= (div + 1) / 2); /* thousandths of the unit */
        p = put_dec(p, q / 1000, 1);
        *p++ = '.';
        p = put_dec(p, q % 1000, 3);
    }
    memcpy(p, unit, strlen(unit) + 1);
}

static void print_json(FILE *f, const struct summary *S, const struct stint_model *m, const uint32_t *lane_order,
                       size_t nl, const char *path)
{
    fputs("{\"schema\":\"stint.summary/1\",\"input\":", f);
    stint_out_json_str(f, path, strlen(path));
    fprintf(f, ",\"format\":\"%s\",\"events\":%" PRIu64 ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\n\"lanes\":[",
            m->format ? m->format : "unknown", m->events, S->spans, S->sum_ns);
    int first = 1;
    for (size_t k = 0; k < nl; k++) {
        uint32_t i = lane_order[k];
        const struct lane_row *lr = &S->lanes[i];
        if (!lr->spans)
            continue;
        const struct stint_lane *l = stint_model_lane_at(m, i);
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"clock\":\"%s\",\"name\":", first ? "" : ",", l->pid,
                l->tid, l->clock ? "device" : "host");
        first = 0;
        jstr(f, m, l->name);
        fprintf(f, ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 "}", lr->spans, lr->sum_ns,
                stint_union_acc_total(&lr->busy));
    }
    fputs("],\n\"categories\":[", f);
    for (size_t c = 0; c < S->ncats; c++) {
        const struct cat_row *cr = &S->cats[c];
        fprintf(f, "%s\n{\"cat\":", c ? "," : "");
        jstr(f, m, cr->cat);
        fprintf(f, ",\"clock\":\"%s\",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 "}",
                cr->clock ? "device" : "host", cr->spans, cr->sum_ns, cr->busy_ns);
    }
    fputs("],\n\"names\":[", f);
    for (size_t k = 0; k < S->nnames; k++) {
        const struct name_row *nr = &S->names[k];
        fprintf(f, "%s\n{\"cat\":", k ? "," : "");
        jstr(f, m, nr->cat);
        fputs(",\"name\":", f);
        jstr(f, m, nr->name);
        fprintf(f,
                ",\"clock\":\"%s\",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"total_ns\":%" PRId64
                ",\"self_ns\":%" PRId64 ",\"min_ns\":%" PRId64 ",\"p50_ns\":%" PRId64 ",\"p90_ns\":%" PRId64
                ",\"p99_ns\":%" PRId64 ",\"max_ns\":%" PRId64 ",\"mean_ns\":%" PRId64 "}",
                nr->clock ? "device" : "host", nr->spans, nr->sum_ns, nr->total_ns, nr->self_ns, nr->min_ns, nr->p50,
                nr->p90, nr->p99, nr->max_ns, nr->mean_ns);
    }
    fputs("],\n\"async\":[", f);
    for (size_t k = 0; k < S->nasync; k++) {
        const struct async_row *a = &S->asyncs[k];
        fprintf(f, "%s\n{\"cat\":", k ? "," : "");
        jstr(f, m, a->cat);
        fputs(",\"name\":", f);
        jstr(f, m, a->name);
        fprintf(f, ",\"spans\":%" PRIu64 ",\"sum_ns\":%" PRId64 ",\"unfinished\":%" PRIu64 "}", a->spans, a->sum_ns,
                a->unfinished);
    }
    fputs("],\n\"counters\":[", f);
    first = 1;
    for (size_t k = 0; k < m->counters.len; k++) {
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, k);
        uint64_t n;
        double mn, mx, mean;
        if (!counter_view(S, m, k, &n, &mn, &mx, &mean))
            continue;
        fprintf(f, "%s\n{\"pid\":%" PRId64 ",\"name\":", first ? "" : ",", c->pid);
        first = 0;
        jstr(f, m, c->name);
        fprintf(f, ",\"samples\":%" PRIu64 ",\"min\":%.17g,\"max\":%.17g,\"mean\":%.17g}", n, mn, mx, mean);
    }
    fputs("],\n\"instants\":[", f);
    first = 1;
    for (size_t k = 0; k < m->instants.len; k++) {
        const struct stint_instant_stat *st = &STINT_BA_AT(&m->instants, struct stint_instant_stat, k);
        uint64_t n = instant_count(S, m, k);
        if (!n)
            continue;
        fprintf(f, "%s\n{\"scope\":\"%s\",\"cat\":", first ? "" : ",",
                stint_track_kind_name((enum stint_track_kind)st->kind));
        first = 0;
        jstr(f, m, st->cat);
        fputs(",\"name\":", f);
        jstr(f, m, st->name);
        fprintf(f, ",\"count\":%" PRIu64 "}", n);
    }
    fputs("],\n\"repairs\":{", f);
    first = 1;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
        if (!m->repairs[k])
            continue;
        fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", stint_repair_name((enum stint_repair)k), m->repairs[k]);
        first = 0;
    }
    fprintf(f, "},\n\"flow_events\":%" PRIu64 ",\"flows\":%zu,\"dropped\":%" PRIu64 ",\"partial\":%s", m->flow_events,
            m->flows.len, m->dropped, m->partial ? "true" : "false");
    if (m->error) {
        fputs(",\"error\":", f);
        stint_out_json_str(f, m->error, strlen(m->error));
    }
    fputs("}\n", f);
}

/* Names in the human tables: control bytes escaped (textout.h), so a name
 * holding a newline or a tab cannot break a row. esc_name: the escaped name
 * into buf (cut at cap - 1 bytes: the columns that use it cut at fewer);
 * put_name_padded: the whole escaped name, padded with blanks to width. */
static const char *esc_name(char *buf, size_t cap, const struct stint_model *m, uint32_t id)
{
    size_t len;
    const char *s = stint_model_str(m, id, &len);
    stint_out_text_esc(buf, cap, s, len);
    return buf;
}

static void put_name_padded(FILE *f, const struct stint_model *m, uint32_t id, int width)
{
    size_t len;
    const char *s = stint_model_str(m, id, &len);
    stint_out_text_str(f, s, len);
    for (size_t w = stint_out_text_len(s, len); w < (size_t)width; w++)
        putc(' ', f);
}

static void print_human(FILE *f, const struct summary *S, const struct stint_model *m, const uint32_t *lane_order,
                        size_t nl, const char *path)
{
    char en[128], ec[128], el[48]; /* (el: + " [device clock]" fits nm) */
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32], i9[32], j9[32];
    fprintf(f, "%s%s: %s, %" PRIu64 " events, %" PRIu64 " spans\n", m->partial ? "PARTIAL " : "", path,
            m->format ? m->format : "?", m->events, S->spans);
    fprintf(f, "\nlanes  (busy = union of the lane's span intervals; sum double-counts nesting and overlap)\n");
    fprintf(f, "%10s %10s %-24s %10s %14s %14s\n", "pid", "tid", "name", "spans", "sum", "busy");
    for (size_t k = 0; k < nl; k++) {
        uint32_t li = lane_order[k];
        const struct lane_row *lr = &S->lanes[li];
        if (!lr->spans)
            continue;
        const struct stint_lane *l = stint_model_lane_at(m, li);
        fmt_dur(a, lr->sum_ns);
        fmt_dur(b, stint_union_acc_total(&lr->busy));
        char nm[64];
        snprintf(nm, sizeof nm, "%s%s", esc_name(el, sizeof el, m, l->name), l->clock ? " [device clock]" : "");
        fprintf(f, "%10" PRId64 " %10" PRId64 " %-24.24s %10" PRIu64 " %14s %14s\n", l->pid, l->tid, nm, lr->spans, a,
                b);
    }
    fprintf(f, "\ncategories  (busy = union across all lanes, overlap counted once; sum double-counts overlap)\n");
    fprintf(f, "%-32s %10s %14s %14s\n", "cat", "spans", "sum", "busy");
    for (size_t k = 0; k < S->ncats; k++) {
        const struct cat_row *cr = &S->cats[k];
        fmt_dur(a, cr->sum_ns);
        fmt_dur(b, cr->busy_ns);
        char nm[64];
        snprintf(nm, sizeof nm, "%s%s", cr->cat ? esc_name(el, sizeof el, m, cr->cat) : "(none)",
                 cr->clock ? " [device clock]" : "");
        fprintf(f, "%-32.32s %10" PRIu64 " %14s %14s\n", nm, cr->spans, a, b);
    }
    fprintf(f, "\nnames  (total = union of the name's spans per lane, summed over lanes, recursion counted once;\n"
               "        self = duration minus the union of direct children; sum double-counts recursion;\n"
               "        quantiles are nearest-rank over span durations)\n");
    int nw = 4; /* the name column fits the longest name, up to 64 */
    for (size_t k = 0; k < S->nnames; k++) {
        size_t len;
        const char *s = stint_model_str(m, S->names[k].name, &len);
        len = stint_out_text_len(s, len);
        if ((int)len > nw)
            nw = len > 64 ? 64 : (int)len;
    }
    fprintf(f, "%-16s %-*s %8s %12s %12s %12s %12s %12s %12s %12s %12s\n", "cat", nw, "name", "spans", "sum", "total",
            "self", "min", "p50", "p90", "p99", "max");
    for (size_t k = 0; k < S->nnames; k++) {
        const struct name_row *nr = &S->names[k];
        fmt_dur(a, nr->sum_ns);
        fmt_dur(b, nr->total_ns);
        fmt_dur(c, nr->self_ns);
        fmt_dur(d, nr->min_ns);
        fmt_dur(e, nr->p50);
        fmt_dur(g, nr->p90);
        fmt_dur(h, nr->p99);
        fmt_dur(i9, nr->max_ns);
        (void)j9;
        fprintf(f, "%-16.16s %-*.*s %8" PRIu64 " %12s %12s %12s %12s %12s %12s %12s %12s\n",
                nr->cat ? esc_name(ec, sizeof ec, m, nr->cat) : "", nw, nw, esc_name(en, sizeof en, m, nr->name),
                nr->spans, a, b, c, d, e, g, h, i9);
    }
    if (S->nasync) {
        fprintf(f, "\nasync spans  (own tracks keyed by cat + id; not part of lane, category or name time)\n");
        fprintf(f, "%-16s %-28s %8s %14s %10s\n", "cat", "name", "spans", "sum", "unfinished");
        for (size_t k = 0; k < S->nasync; k++) {
            const struct async_row *r = &S->asyncs[k];
            fmt_dur(a, r->sum_ns);
            fprintf(f, "%-16.16s %-28.28s %8" PRIu64 " %14s %10" PRIu64 "\n", esc_name(ec, sizeof ec, m, r->cat),
                    esc_name(en, sizeof en, m, r->name), r->spans, a, r->unfinished);
        }
    }
    int head = 0;
    for (size_t k = 0; k < m->counters.len; k++) {
        const struct stint_counter_series *cs = &STINT_BA_AT(&m->counters, struct stint_counter_series, k);
        uint64_t n;
        double mn, mx, mean;
        if (!counter_view(S, m, k, &n, &mn, &mx, &mean))
            continue;
        if (!head++)
            fprintf(f, "\ncounters  (per series: samples, min, max, mean of the sample values)\n");
        fprintf(f, "  pid %-8" PRId64 " ", cs->pid);
        put_name_padded(f, m, cs->name, 32);
        fprintf(f, " %8" PRIu64 " samples  min %g  max %g  mean %g\n", n, mn, mx, mean);
    }
    head = 0;
    for (size_t k = 0; k < m->instants.len; k++) {
        const struct stint_instant_stat *st = &STINT_BA_AT(&m->instants, struct stint_instant_stat, k);
        uint64_t n = instant_count(S, m, k);
        if (!n)
            continue;
        if (!head++)
            fprintf(f, "\ninstants  (count per scope, cat and name)\n");
        fprintf(f, "  %-8s ", stint_track_kind_name((enum stint_track_kind)st->kind));
        put_name_padded(f, m, st->cat, 16);
        putc(' ', f);
        put_name_padded(f, m, st->name, 32);
        fprintf(f, " %8" PRIu64 "\n", n);
    }
    int any = 0;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        any |= m->repairs[k] != 0;
    if (m->flow_events)
        fprintf(f, "\nflows  %" PRIu64 " flow events, %zu arrows bound to slices\n", m->flow_events, m->flows.len);
    if (any || m->dropped) {
        fprintf(f, "\nrepairs and drops  (kept and flagged; --strict makes them errors)\n");
        for (int k = 0; k < STINT_REPAIR_COUNT; k++)
            if (m->repairs[k])
                fprintf(f, "  %-24s %10" PRIu64 "\n", stint_repair_name((enum stint_repair)k), m->repairs[k]);
        if (m->dropped)
            fprintf(f, "  %-24s %10" PRIu64 "\n", "dropped", m->dropped);
    }
}

int stint_cmd_summary(int argc, char **argv)
{
    struct stint_cmd_opts o;
    int rc = stint_cmd_parse(argc, argv, usage, &o);
    if (rc >= 0)
        return rc;
    if (o.csv) {
        fprintf(stderr, "stint summary: --csv is not supported (use --json)\n");
        return 2;
    }
    struct stint_model m;
    struct summary S;
    memset(&S, 0, sizeof S);
    S.f = &o.filter;
    S.filtering = stint_filter_active(&o.filter);
    /* STINT_SUMMARY_NO_LEAN=1 keeps every span as a full slice (the same
     * results with more memory; the differential test compares the two) */
    const char *nl = getenv("STINT_SUMMARY_NO_LEAN");
    unsigned flags = (nl && *nl == '1' ? 0 : STINT_MODEL_LEAN) |
                     (o.filter.has_pid || o.filter.has_range ? STINT_MODEL_KEEP_SAMPLES : 0);
    /* the finish walk on two threads from this many spans on (STINT_FINISH_SPLIT_MIN
     * overrides it, for tests) */
    const char *fs = getenv("STINT_FINISH_SPLIT_MIN");
    struct stint_span_split split = {summary_fork, summary_join,
                                     fs && *fs ? (size_t)strtoull(fs, NULL, 10) : (size_t)1 << 16};
    rc = stint_cmd_load_sink(&o, &m, flags, on_slice, &S, &split);
    if (stint_no_report(rc, &m)) {
        stint_model_free(&m);
        return rc;
    }
    SELF_BEGIN(cp, "summary: unions and quantiles");
    compute(&S, &m);
    SELF_END(cp);
    SELF_BEGIN(out, "summary: output");
    sort_model = &m;
    if (S.ncats > 1)
        qsort(S.cats, S.ncats, sizeof *S.cats, cat_cmp);
    if (S.nnames > 1)
        qsort(S.names, S.nnames, sizeof *S.names, name_cmp);
    if (S.nasync > 1)
        qsort(S.asyncs, S.nasync, sizeof *S.asyncs, async_cmp);
    uint32_t *lane_order = xcalloc(m.lanes.len, sizeof *lane_order);
    for (size_t i = 0; i < m.lanes.len; i++)
        lane_order[i] = (uint32_t)i;
    if (m.lanes.len > 1)
        qsort(lane_order, m.lanes.len, sizeof *lane_order, lane_cmp);
    if (o.json)
        print_json(stdout, &S, &m, lane_order, m.lanes.len, o.path);
    else
        print_human(stdout, &S, &m, lane_order, m.lanes.len, o.path);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "stint summary: write error on stdout\n");
        rc = 3;
    }
    SELF_END(out);
    free(lane_order);
    free(S.lanes);
    free(S.cats);
    stint_hmem_free(S.names, S.ncap * sizeof *S.names);
    free(S.asyncs);
    free(S.prow);
    free(S.icount);
    free(S.ctally);
    stint_model_free(&m);
    return rc;
}
