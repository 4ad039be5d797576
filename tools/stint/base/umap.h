/* SPDX-License-Identifier: MIT */
/*
 * umap.h - a small open-addressing map from a 64-bit key to a 32-bit value,
 * for the CLI's lookups by id pairs (summary rows, lean (cat, name) pairs).
 * Values are stored + 1 so that 0 marks an empty slot; the table doubles at
 * half load. Out of memory ends the process (xalloc.h: exit STINT_EXIT_NOMEM).
 */
#ifndef STINT_CLI_UMAP_H
#define STINT_CLI_UMAP_H

#include <stddef.h>
#include <stdint.h>

struct stint_umap {
    uint64_t *keys;
    uint32_t *vals; /* value + 1, 0 = empty */
    size_t cap, len;
};

/* The value of key; when key is absent it is inserted with value next and
 * *isnew is set (else cleared). */
uint32_t stint_umap_get(struct stint_umap *m, uint64_t key, uint32_t next, int *isnew);
/* The value of key, or STINT_UMAP_NONE when it is absent (m unchanged). */
#define STINT_UMAP_NONE UINT32_MAX
uint32_t stint_umap_find(const struct stint_umap *m, uint64_t key);
void stint_umap_free(struct stint_umap *m);

#endif
