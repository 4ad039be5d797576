/* SPDX-License-Identifier: MIT */
/*
 * sizes.c - the byte tally of sizes.h: rows keyed by (a, b) string ids in
 * small tables, each row made zeroed on first use.
 *
 * Invariants: a table's rows never move while a reader holds an index
 * (rows are reached by index, the array only grows); a tally merged into
 * another adds row by row, so the sum over parts is the one-thread tally;
 * out of memory ends the process (base/xalloc.h).
 */
#include "read/sizes.h"

#include "model/model.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stint_sizes *stint_sizes_new(void)
{
    return stint_xcalloc(1, sizeof(struct stint_sizes));
}

static void table_free(struct stint_size_table *t)
{
    free(t->rows);
    stint_umap_free(&t->at);
}

void stint_sizes_free(struct stint_sizes *z)
{
    if (!z)
        return;
    table_free(&z->phases);
    table_free(&z->names);
    table_free(&z->event_keys);
    table_free(&z->args_keys);
    table_free(&z->top_keys);
    free(z);
}

/* The row of (a, b), made zeroed on first use; its index in *idx. */
static struct stint_size_row *row_of(struct stint_size_table *t, uint32_t a, uint32_t b, size_t *idx)
{
    int isnew;
    uint32_t i = stint_umap_get(&t->at, (uint64_t)a << 32 | b, (uint32_t)t->n, &isnew);
    if (isnew) {
        t->rows = stint_xgrow(t->rows, &t->cap, t->n + 1, sizeof *t->rows, 64);
        t->rows[t->n] = (struct stint_size_row){.a = a, .b = b};
        t->n++;
    }
    if (idx)
        *idx = i;
    return &t->rows[i];
}

void stint_sizes_event(struct stint_sizes *z, uint32_t ph, uint32_t cat, uint32_t name, uint64_t bytes,
                       uint64_t args_bytes)
{
    size_t k;
    struct stint_size_row *p = row_of(&z->phases, ph, 0, &k);
    p->events++;
    p->bytes += bytes;
    p->args_bytes += args_bytes;
    struct stint_size_row *r = row_of(&z->names, cat, name, NULL);
    r->events++;
    r->bytes += bytes;
    r->args_bytes += args_bytes;
    r->phases |= UINT64_C(1) << (k < 63 ? k : 63);
    z->events++;
    z->event_bytes += bytes;
    z->args_bytes += args_bytes;
}

void stint_sizes_event_key(struct stint_sizes *z, uint32_t key, uint64_t bytes)
{
    struct stint_size_row *r = row_of(&z->event_keys, key, 0, NULL);
    r->events++;
    r->bytes += bytes;
}

void stint_sizes_arg_key(struct stint_sizes *z, uint32_t key, uint64_t bytes)
{
    struct stint_size_row *r = row_of(&z->args_keys, key, 0, NULL);
    r->events++;
    r->bytes += bytes;
}

void stint_sizes_top_key(struct stint_sizes *z, uint32_t key, uint64_t bytes)
{
    struct stint_size_row *r = row_of(&z->top_keys, key, 0, NULL);
    r->events++;
    r->bytes += bytes;
}

/* Adds src's rows into dst's, a and b (when map_b) mapped through smap;
 * phmap (src phase row -> dst phase row) remaps the names' phase bits. */
static void table_merge(struct stint_size_table *dst, const struct stint_size_table *src, const uint32_t *smap,
                        int map_b, const size_t *phmap)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct stint_size_row *s = &src->rows[i];
        struct stint_size_row *d = row_of(dst, smap[s->a], map_b ? smap[s->b] : s->b, NULL);
        d->events += s->events;
        d->bytes += s->bytes;
        d->args_bytes += s->args_bytes;
        if (phmap)
            for (size_t k = 0; k < 64; k++)
                if (s->phases >> k & 1)
                    d->phases |= UINT64_C(1) << (k < 63 && phmap[k] < 63 ? phmap[k] : 63);
    }
}

void stint_sizes_merge(struct stint_sizes *dst, const struct stint_sizes *src, const uint32_t *smap)
{
    size_t phmap[64];
    for (size_t k = 0; k < 64; k++)
        phmap[k] = 63;
    for (size_t k = 0; k < src->phases.n && k < 63; k++)
        row_of(&dst->phases, smap[src->phases.rows[k].a], 0, &phmap[k]);
    table_merge(&dst->phases, &src->phases, smap, 0, NULL);
    table_merge(&dst->names, &src->names, smap, 1, phmap);
    table_merge(&dst->event_keys, &src->event_keys, smap, 0, NULL);
    table_merge(&dst->args_keys, &src->args_keys, smap, 0, NULL);
    table_merge(&dst->top_keys, &src->top_keys, smap, 0, NULL);
    dst->events += src->events;
    dst->event_bytes += src->event_bytes;
    dst->args_bytes += src->args_bytes;
    dst->filtered_events += src->filtered_events;
    dst->filtered_bytes += src->filtered_bytes;
    dst->text_bytes += src->text_bytes;
}

static void attached_free(void *z)
{
    stint_sizes_free(z);
}

static void attached_merge(void *dst, const void *src, const uint32_t *smap)
{
    stint_sizes_merge(dst, src, smap);
}

static const struct stint_model_attached_ops attached_ops = {attached_free, attached_merge};

void stint_sizes_attach(struct stint_model *m)
{
    if (!(m->flags & STINT_MODEL_SIZES) || m->sizes)
        return;
    m->sizes = stint_sizes_new();
    m->sizes_ops = &attached_ops;
}
