/* SPDX-License-Identifier: MIT */
/*
 * umap.c - the 64-bit -> 32-bit map of umap.h: linear probing over a
 * power-of-two table of keys and values + 1 (0 = empty), at most half full,
 * a key's home slot taken from the high bits of a Fibonacci hash (hash.h).
 * Values are only ever handed out by the caller: no output can depend on
 * the table's layout, which has no iteration. Out of memory ends the
 * process (xalloc.h).
 */
#include "base/umap.h"
#include "base/hash.h"
#include "base/xalloc.h"

#include <stdlib.h>

/* The home slot of key in a table of cap (a power of two >= 2) slots. */
static inline size_t home(uint64_t key, size_t cap)
{
    return stint_hash_slot(key, (unsigned)__builtin_ctzll((unsigned long long)cap));
}

uint32_t stint_umap_get(struct stint_umap *m, uint64_t key, uint32_t next, int *isnew)
{
    if ((m->len + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        uint64_t *nk = stint_xcalloc(nc, sizeof *nk);
        uint32_t *nv = stint_xcalloc(nc, sizeof *nv);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->vals[i])
                continue;
            size_t j = home(m->keys[i], nc);
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
    size_t j = home(key, m->cap);
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
    for (size_t j = home(key, m->cap); m->vals[j]; j = (j + 1) & (m->cap - 1))
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
