/* SPDX-License-Identifier: MIT */
/*
 * summary_tail.c - the tail of `stint summary` (summary_tally.h): once the
 * walk has streamed every span, the async rows, the categories' unions
 * across lanes, the names' totals, quantiles and exact means, and the
 * filtered counter samples; then the readers of the finished rows.
 *
 * Invariants: each tail item (a category or a name row) touches its own row
 * only, so the items may run on two threads in any order and give the same
 * figures; quantiles are nearest-rank values selected from the durations,
 * never interpolated, and the mean is the exact 128-bit sum over the count,
 * rounded half up; the walk's memory is freed on one thread once the other
 * is gone. Out of memory ends the process (xalloc.h).
 */
#include "analyze/summary_tally.h"
#include "analyze/summary_tally_int.h"
#include "base/hmem.h"
#include "base/selftrace.h"
#include "base/threads.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Nearest-rank index of quantile num/den among n sorted values: ceil(q*n)-1. */
static size_t rank_of(size_t n, uint64_t num, uint64_t den)
{
    size_t r = (size_t)((num * n + den - 1) / den);
    return r ? r - 1 : 0;
}

/* A name row's totals once its spans are in: the last lane's union, the
 * quantiles and the exact mean (stint_tally_name_free frees its durations). */
static void name_finish(struct stint_tally_name *nr)
{
    if (nr->stamp != STINT_NO_ID)
        nr->total_ns = stint_sum_add(nr->total_ns, stint_union_acc_total(&nr->acc));
    /* (the figures below take the union's place in the row: it is done) */
    nr->p50 = nr->p90 = nr->p99 = nr->mean_ns = 0;
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
            struct stint_u32_run *runs = stint_xmalloc((nr->ndblk + 1) * sizeof *runs);
            for (size_t k = 0; k < nr->ndblk; k++)
                runs[nruns++] = (struct stint_u32_run){nr->dblk[k].v, nr->dblk[k].n};
            if (nr->dt_n)
                runs[nruns++] = (struct stint_u32_run){nr->dt, nr->dt_n};
            size_t ranks[3] = {r50, r90, r99};
            uint32_t q[3];
            if (stint_select_ranks_u32_runs(runs, nruns, ranks, 3, q) != 0)
                stint_die_nomem();
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
 * stint_tally_cat_free frees them). */
static void cat_finish(struct stint_tally_cat *cr)
{
    /* seg[] holds each track's end: turn it into run starts */
    size_t nruns = cr->nseg;
    for (size_t k = nruns; k-- > 0;)
        cr->seg[k] = k ? cr->seg[k - 1] : 0;
    cr->busy_ns =
        stint_intervals_union_packed((const uint64_t *const *)cr->ivb, STINT_TALLY_RUN_SHIFT, cr->niv, cr->seg, nruns);
    if (cr->busy_ns < 0)
        stint_die_nomem();
}

/* From this many runs and durations (all categories and names) on, the
 * tail work is done on two threads. */
#define TAIL_SPLIT_MIN ((size_t)1 << 16)

/* The work left once every span is in: the categories' unions and the
 * names' totals and quantiles, one item per row, taken in turn through an
 * atomic index by every thread that works on it, biggest first (so that the
 * threads end together). Each item touches its own row only. */
struct tail_work {
    struct stint_tally *S;
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
static void tail_finish(struct stint_tally *S)
{
    struct tail_work W = {.S = S, .n = S->ncats + S->nnames};
    W.items = stint_xcalloc(W.n, sizeof *W.items);
    size_t *wt = stint_xcalloc(W.n, sizeof *wt), total = 0;
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
    if (S->exits_after) /* the big blocks are left to the exit */
        stint_hmem_final();
    for (size_t k = 0; k < S->ncats; k++)
        stint_tally_cat_free(&S->cats[k]);
    for (size_t k = 0; k < S->nnames; k++)
        stint_tally_name_free(&S->names[k]);
    stint_tally_slab_free(&S->slab);
}

/* After the model streamed its spans: async rows, category unions across
 * lanes, per-lane name totals and the quantiles. */
void stint_tally_compute(struct stint_tally *S, const struct stint_model *m)
{
    stint_tally_track_end(S);
    if (!S->lanes)
        S->lanes = stint_xcalloc(m->lanes.len, sizeof *S->lanes);
    size_t acap = 0;
    struct stint_umap amap = {0};
    stint_tally_instants_index(S, m);
    for (size_t i = 0; i < stint_model_nslices(m); i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (S->icount && (s->flags & STINT_SLICE_INSTANT)) {
            /* instants off thread tracks (those came through the sink) */
            enum stint_track_kind kind = (enum stint_track_kind)stint_model_track_at(m, s->track)->kind;
            if (kind != STINT_TRACK_THREAD && stint_filter_slice(S->f, m, s))
                stint_tally_instant_pass(S, m, kind, s->cat, s->name);
            continue;
        }
        if (!(s->flags & STINT_SLICE_ASYNC) || (s->flags & STINT_SLICE_INSTANT) || !stint_filter_slice(S->f, m, s))
            continue;
        int isnew;
        uint32_t a = stint_umap_get(&amap, ((uint64_t)s->cat << 32) | s->name, (uint32_t)S->nasync, &isnew);
        if (isnew) {
            if (S->nasync == acap)
                S->asyncs = stint_xgrow(S->asyncs, &acap, S->nasync + 1, sizeof *S->asyncs, 64);
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
        S->ctally = stint_xcalloc(m->counters.len + 1, sizeof *S->ctally);
        for (size_t k = 0; k < m->samples.len; k++) {
            const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
            const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
            if (!stint_filter_point(S->f, c->pid, cs->ts_ns))
                continue;
            struct stint_tally_ctr *t = &S->ctally[cs->series];
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

/* ---- reading the rows ---------------------------------------------------------------- */

/* Counter series k as reported (its name matching --name, the samples that
 * pass --pid and --time-range when given): 0 when it is left out. */
int stint_tally_counter(const struct stint_tally *S, const struct stint_model *m, size_t k, uint64_t *n, double *mn,
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
uint64_t stint_tally_instants(const struct stint_tally *S, const struct stint_model *m, size_t k)
{
    return S->icount ? S->icount[k] : STINT_BA_AT(&m->instants, struct stint_instant_stat, k).count;
}
