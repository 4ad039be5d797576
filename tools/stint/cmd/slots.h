/* SPDX-License-Identifier: MIT */
/*
 * slots.h - the index table of the commands' open-addressing lookups (diff's
 * groups, memory's interned strings): a power-of-two array of entry indexes,
 * STINT_SLOT_EMPTY where free, probed linearly. The table only finds
 * entries: they live in the caller's array, in the caller's order, and the
 * table is rebuilt from them when it grows (at half load, so a probe always
 * ends at an empty slot). Out of memory ends the process (xalloc.h).
 */
#ifndef STINT_CLI_SLOTS_H
#define STINT_CLI_SLOTS_H

#include "base/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STINT_SLOT_EMPTY UINT32_MAX

struct stint_slots {
    uint32_t *slot; /* cap entry indexes or STINT_SLOT_EMPTY; NULL before the first reset */
    size_t cap;     /* 0 or a power of two */
};

/* Whether adding an entry to the n held needs a larger table first. */
static inline int stint_slots_full(const struct stint_slots *t, size_t n)
{
    return (n + 1) * 2 > t->cap;
}

/* Replaces t's table by an empty one of cap slots (a power of two); the
 * caller then puts its entries back. */
static inline void stint_slots_reset(struct stint_slots *t, size_t cap)
{
    free(t->slot);
    t->slot = stint_xreallocarray(NULL, cap, sizeof *t->slot);
    memset(t->slot, 0xff, cap * sizeof *t->slot);
    t->cap = cap;
}

/* The first slot a key of hash h probes. */
static inline size_t stint_slots_home(const struct stint_slots *t, uint64_t h)
{
    return (size_t)h & (t->cap - 1);
}

/* The slot probed after k. */
static inline size_t stint_slots_next(const struct stint_slots *t, size_t k)
{
    return (k + 1) & (t->cap - 1);
}

/* Puts entry i, of hash h, in the first free slot it probes. */
static inline void stint_slots_put(struct stint_slots *t, uint64_t h, uint32_t i)
{
    size_t k = stint_slots_home(t, h);
    while (t->slot[k] != STINT_SLOT_EMPTY)
        k = stint_slots_next(t, k);
    t->slot[k] = i;
}

#endif
