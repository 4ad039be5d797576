/* SPDX-License-Identifier: MIT */
/*
 * hmem.h - memory for the arrays that grow with the input (CLI internal).
 *
 * On this machine class the first touch of a fresh 4 KiB page costs about
 * 10 us (a trap into the hypervisor-aware kernel per page), while a 2 MiB
 * transparent huge page costs about 0.2 ms at its first touch: some 50 times
 * less per byte. Summarizing a 100 MB trace touches ~16 MB of fresh memory
 * (per-lane span records, category runs, durations for the quantiles, the
 * model's growing arrays), which in 4 KiB pages took a sixth of the run.
 * So these arrays come from 2 MiB-aligned memory advised MADV_HUGEPAGE
 * (once the run is not small: stint_hmem_expect below):
 *
 *   - under 4 KiB: malloc (small arrays never pay for a huge page);
 *   - 4 KiB up to 1 MiB: power-of-two blocks from a buddy system over shared
 *     2 MiB chunks: a freed block merges with its free buddy, so memory freed
 *     in one size serves any other (the span records of a finished lane
 *     become the category runs and durations of the tally);
 *   - over 1 MiB: a mapping of its own, rounded up to 2 MiB and aligned to
 *     2 MiB, grown by mremap to another aligned address (the page tables
 *     move; nothing is copied or touched again) and unmapped when freed,
 *     but for its wholly resident 2 MiB pieces, which go to the prefault
 *     reserve (below), zeroed, while it has room.
 *
 * Resident memory: the blocks in use, plus free blocks kept warm for reuse
 * up to 32 MiB; past that, a freed block of 64 KiB or more gives its pages
 * back (MADV_DONTNEED, all but its first page), and a chunk that is wholly
 * free gives all its pages back (with huge pages on, by being mapped afresh:
 * a huge page again when next used).
 * A huge page is resident as a whole: an array's partly filled last 2 MiB
 * counts in full, which is why arrays that grow with the input in many
 * places at once (one per lane) are kept as lists of 64 KiB blocks.
 *
 * Every block is freed and grown with the byte count it was asked for last
 * (the caller keeps it; the size class follows from it). Thread-safe: the
 * shared chunks and free lists are behind one mutex (taken only for blocks
 * of 4 KiB to 1 MiB, a few thousand times a run). Under AddressSanitizer,
 * or with STINT_HMEM=malloc in the environment, every block is plain
 * malloc/realloc/free (so ASan sees each block's bounds; and for
 * measurements); STINT_HMEM=huge uses huge pages from the start whatever
 * the input's size, even under ASan (for tests). None of these functions
 * zeroes memory.
 */
#ifndef STINT_CLI_HMEM_H
#define STINT_CLI_HMEM_H

#include <stddef.h>
#include <stdint.h>

/* Huge pages are used once the memory in use reaches 8 MiB, or from the
 * start when the input is that large (the caller says so here, with the
 * input's size when it knows it): a huge page is zeroed whole at its first
 * touch (~0.2 ms), which a run over a few kilobytes would pay for nothing. */
void stint_hmem_expect(uint64_t input_bytes);

/* A block of at least bytes (> 0), or NULL when out of memory. */
void *stint_hmem_alloc(size_t bytes);

/* Grows or shrinks p (from stint_hmem_alloc/realloc with old_bytes, or NULL
 * with old_bytes 0) to new_bytes (> 0), keeping the first min(old, new)
 * bytes. NULL when out of memory, p then unchanged and still valid. */
void *stint_hmem_realloc(void *p, size_t old_bytes, size_t new_bytes);

/* stint_hmem_realloc, but out of memory ends the process (xalloc.h,
 * stint_die_nomem: exit STINT_EXIT_NOMEM), for callers that cannot go on
 * without it. */
void *stint_hmem_xrealloc(void *p, size_t old_bytes, size_t new_bytes);

/* Grows array p of *cap elements of elem bytes (a block of this file's:
 * huge pages, grown by remapping) to hold need, doubling from min; free it
 * with stint_hmem_free(p, *cap * elem). Out of memory exits. */
static inline void *stint_hmem_xgrow(void *p, size_t *cap, size_t need, size_t elem, size_t min)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : min;
    while (nc < need)
        nc *= 2;
    p = stint_hmem_xrealloc(p, *cap * elem, nc * elem);
    *cap = nc;
    return p;
}

/* Frees p (NULL: nothing), which was last sized to bytes. */
void stint_hmem_free(void *p, size_t bytes);

/* For a run about to end: from now on stint_hmem_free of blocks that did
 * not come from malloc gives nothing back and keeps nothing for reuse (the
 * exit returns the memory in one go, without a system call per block or
 * the allocator's lock). Only for a process that exits soon after; frees
 * of malloc'd blocks (small ones, and every block in malloc mode) are
 * unchanged. */
void stint_hmem_final(void);

/* Gives the whole pages within bytes [from, upto) of p back to the system
 * when p (sized bytes) has a mapping of its own (they read as zeros
 * afterwards); nothing otherwise. For memory whose start is done with while
 * its end is still being read. */
void stint_hmem_release(void *p, size_t bytes, size_t from, size_t upto);

/* Fresh memory costs most at its first touch (above, and more while the
 * host takes back what the guest freed: ~2 ms per MiB), and the thread that
 * touches it is usually the one parsing. A thread with nothing else to do
 * (the inflate thread while its ring is full, the reader while the ring is
 * empty) calls stint_hmem_prefault to
 * fault in one 2 MiB region for a reserve, when the reserve holds less than
 * want bytes (at most 16 regions) and huge pages are on; it returns 1 when it
 * added one, 0 otherwise. New shared chunks and the fresh parts of own
 * mappings (new, or grown) take their pages from the reserve first (moved
 * by mremap, not copied). stint_hmem_prefault_drop gives the reserve back
 * (when no thread will fill it any more). Thread-safe. */
int stint_hmem_prefault(size_t want);
void stint_hmem_prefault_drop(void);

/* The shared chunks now (for tests and measurements). */
struct stint_hmem_stats {
    size_t chunks;       /* 2 MiB chunks mapped so far */
    size_t empty_chunks; /* of which wholly free (not resident) */
    size_t warm_free;    /* bytes of free blocks still resident */
    size_t cold_free;    /* bytes of free blocks whose pages were given back */
    size_t reserve;      /* prefaulted 2 MiB regions not yet taken (stint_hmem_prefault) */
};
void stint_hmem_stats(struct stint_hmem_stats *st);

#endif
