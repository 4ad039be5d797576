/* SPDX-License-Identifier: MIT */
/*
 * model_intern.c - the model's string table and the key maps that find
 * processes, lanes, tracks, counter series and instants by their keys.
 *
 * Invariants: string id 0 is ""; ids are dense and stable; interned strings
 * never move (they live in append-only arena blocks, a long one in a block
 * of its own), so stint_model_str() pointers stay valid for the model's
 * lifetime. The string table is open addressing over ids (id + 1, 0 empty)
 * at most half full; a key map (model_int.h) at most three quarters full.
 * stint_model_intern runs once per name a reader meets: its lookup and
 * copy stay in this file.
 */
#include "model/model_int.h"
#include "base/hmem.h"

#include <stdlib.h>
#include <string.h>

/* ---- key maps ------------------------------------------------------------------- */

void stint_i_kmap_grow(struct kmap *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct kmap_slot *ns = stint_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].used)
            continue;
        size_t j = stint_i_kmap_hash(t->slots[i].k) & (ncap - 1);
        while (ns[j].used)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
}

/* ---- string interning ----------------------------------------------------------- */

#define ARENA_BLOCK ((size_t)1 << 20)

struct str_entry {
    const char *s;
    uint32_t len;
    uint32_t hash32;
};

struct stint_intern {
    struct str_entry *ents; /* by id */
    size_t n, cap;
    uint32_t *table; /* id+1, 0 = empty */
    size_t tcap;
    struct arena_block {
        char *p;
        size_t size; /* ARENA_BLOCK (from hmem) or one long string's (malloc) */
    } *blocks;
    size_t nblocks, bcap;
    char *cur;
    size_t cur_left;
};

static char *arena_copy(struct stint_intern *t, const char *s, size_t len)
{
    if (len + 1 > t->cur_left) {
        size_t sz = len + 1 > ARENA_BLOCK / 4 ? len + 1 : ARENA_BLOCK;
        char *blk = stint_xcheck(sz == ARENA_BLOCK ? stint_hmem_alloc(sz) : malloc(sz));
        if (t->nblocks == t->bcap) {
            t->bcap = t->bcap ? t->bcap * 2 : 16;
            t->blocks = stint_xreallocarray(t->blocks, t->bcap, sizeof *t->blocks);
        }
        t->blocks[t->nblocks++] = (struct arena_block){blk, sz};
        if (sz == ARENA_BLOCK) {
            t->cur = blk;
            t->cur_left = sz;
        } else {
            memcpy(blk, s, len);
            blk[len] = 0;
            return blk;
        }
    }
    char *p = t->cur;
    memcpy(p, s, len);
    p[len] = 0;
    t->cur += len + 1;
    t->cur_left -= len + 1;
    return p;
}

void stint_i_table_regrow(uint32_t **table, size_t *tcap, size_t n, size_t (*home)(const void *, size_t, size_t),
                          const void *ctx)
{
    size_t ncap = *tcap ? *tcap * 2 : 1024;
    uint32_t *nt = stint_hmem_xrealloc(NULL, 0, ncap * sizeof *nt);
    memset(nt, 0, ncap * sizeof *nt);
    for (size_t id = 0; id < n; id++) {
        size_t j = home(ctx, id, ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = (uint32_t)id + 1;
    }
    stint_hmem_free(*table, *tcap * sizeof **table);
    *table = nt;
    *tcap = ncap;
}

static size_t intern_home(const void *ctx, size_t id, size_t mask)
{
    return ((const struct stint_intern *)ctx)->ents[id].hash32 & mask;
}

static void intern_rehash(struct stint_intern *t)
{
    stint_i_table_regrow(&t->table, &t->tcap, t->n, intern_home, t);
}

uint32_t stint_model_intern(struct stint_model *m, const char *s, size_t len)
{
    struct stint_intern *t = m->strings;
    if (len == 0)
        return 0;
    if ((t->n + 1) * 2 >= t->tcap)
        intern_rehash(t);
    uint32_t h = (uint32_t)stint_hash_bytes(s, len);
    size_t j = h & (t->tcap - 1);
    for (uint32_t slot; (slot = t->table[j]) != 0; j = (j + 1) & (t->tcap - 1)) {
        const struct str_entry *e = &t->ents[slot - 1];
        if (e->hash32 == h && e->len == len && memcmp(e->s, s, len) == 0)
            return slot - 1;
    }
    if (t->n == t->cap) {
        size_t old = t->cap;
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->ents = stint_hmem_xrealloc(t->ents, old * sizeof *t->ents, t->cap * sizeof *t->ents);
    }
    uint32_t id = (uint32_t)t->n++;
    t->ents[id].s = arena_copy(t, s, len);
    t->ents[id].len = (uint32_t)len;
    t->ents[id].hash32 = h;
    t->table[j] = id + 1;
    return id;
}

const char *stint_model_str(const struct stint_model *m, uint32_t id, size_t *len_out)
{
    const struct stint_intern *t = m->strings;
    if (id >= t->n) {
        if (len_out)
            *len_out = 0;
        return "";
    }
    if (len_out)
        *len_out = t->ents[id].len;
    return t->ents[id].s;
}

void stint_i_intern_free(struct stint_intern *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nblocks; i++) {
        if (t->blocks[i].size == ARENA_BLOCK)
            stint_hmem_free(t->blocks[i].p, ARENA_BLOCK);
        else
            free(t->blocks[i].p);
    }
    free(t->blocks);
    stint_hmem_free(t->ents, t->cap * sizeof *t->ents);
    stint_hmem_free(t->table, t->tcap * sizeof *t->table);
    free(t);
}

struct stint_intern *stint_i_intern_new(void)
{
    struct stint_intern *t = stint_xcalloc(1, sizeof *t);
    intern_rehash(t);
    t->cap = 1024;
    t->ents = stint_hmem_xrealloc(NULL, 0, t->cap * sizeof *t->ents);
    t->ents[0].s = ""; /* id 0 is the empty string */
    t->ents[0].len = 0;
    t->ents[0].hash32 = 0;
    t->n = 1;
    return t;
}

size_t stint_i_nstrings(const struct stint_model *m) { return m->strings->n; }
