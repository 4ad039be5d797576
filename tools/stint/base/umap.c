/*
 * umap.c - see umap.h. Linear probing over a power-of-two table.
 */
#include "base/umap.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t hkey(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    return x;
}

static void *zalloc(size_t n, size_t sz)
{
    void *p = calloc(n, sz);
    if (!p) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    return p;
}

uint32_t stint_umap_get(struct stint_umap *m, uint64_t key, uint32_t next, int *isnew)
{
    if ((m->len + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        uint64_t *nk = zalloc(nc, sizeof *nk);
        uint32_t *nv = zalloc(nc, sizeof *nv);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->vals[i])
                continue;
            size_t j = hkey(m->keys[i]) & (nc - 1);
            while (nv[j])
                j = (j + 1) & (nc - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = nc;
    }
    size_t j = hkey(key) & (m->cap - 1);
    while (m->vals[j]) {
        if (m->keys[j] == key) {
            *isnew = 0;
            return m->vals[j] - 1;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = key;
    m->vals[j] = next + 1;
    m->len++;
    *isnew = 1;
    return next;
}

uint32_t stint_umap_find(const struct stint_umap *m, uint64_t key)
{
    if (!m->cap)
        return STINT_UMAP_NONE;
    for (size_t j = hkey(key) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == key)
            return m->vals[j] - 1;
    return STINT_UMAP_NONE;
}

void stint_umap_free(struct stint_umap *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
}
