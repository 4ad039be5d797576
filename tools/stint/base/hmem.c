/* SPDX-License-Identifier: MIT */
/*
 * hmem.c - memory for the arrays that grow with the input (hmem.h): plain
 * malloc below 4 KiB, a buddy system over shared 2 MiB chunks up to 1 MiB,
 * 2 MiB-aligned mappings of their own above.
 *
 * Invariants: a block's size class follows from the byte count its caller
 * passes back, so no block carries a header; the chunks and free lists are
 * touched only under one mutex; a buddy merges with its free twin at once,
 * so no two free buddies coexist; the memory kept warm for reuse stays
 * under its cap, pages past it go back to the kernel.
 */
#include "base/hmem.h"
#include "base/umap.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define HMEM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HMEM_ASAN 1
#endif
#endif
#ifndef HMEM_ASAN
#define HMEM_ASAN 0
#endif

/* ThreadSanitizer does not follow mremap: memory moved by it keeps another
 * thread's old accesses in TSan's shadow and shows up as races. TSan builds
 * grow own mappings by map + copy instead. */
#if defined(__SANITIZE_THREAD__)
#define HMEM_NO_MREMAP 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HMEM_NO_MREMAP 1
#endif
#endif
#ifndef HMEM_NO_MREMAP
#define HMEM_NO_MREMAP 0
#endif

#define HUGE ((size_t)2 << 20)
#define MIN_SHIFT 12 /* 4 KiB: the smallest shared block */
#define TOP 9        /* orders 0..TOP: blocks of 4 KiB << order; TOP is a whole chunk */
#define SMALL_MAX (((size_t)1 << MIN_SHIFT) - 1)
#define SHARED_MAX ((size_t)1 << 20) /* larger blocks get their own mapping */
#define RELEASE_ORDER 4           /* freed blocks from 64 KiB up may give their pages back */
#define WARM_MAX ((size_t)32 << 20) /* once this much free memory is resident */

enum kind { K_MALLOC, K_SHARED, K_OWN };

/* The shared blocks are a buddy system over 2 MiB chunks: a block of order o
 * (4 KiB << o) at offset x in its chunk has its buddy at x ^ (4 KiB << o);
 * a freed block merges with its buddy when that one is free too, and so on
 * up, so memory freed by one size serves any other. Free blocks are on
 * per-order lists linked through their first bytes; a chunk that becomes
 * wholly free gives its pages back and is kept on a stack of empty chunks
 * for reuse, touched again only when handed out. */
struct fblk {
    struct fblk *next, *prev;
};

struct chunk {
    char *base;
    uint64_t free_bits[16]; /* per order o, a bit per block: bits [1024 - (1024 >> o), ...) */
    uint64_t cold_bits[16]; /* the same bits for free blocks whose pages were given back */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct fblk *free_list[2][TOP]; /* [cold][order], orders below TOP */
static struct chunk *chunks;         /* every chunk ever mapped */
static size_t nchunks, chunk_cap;
static struct stint_umap chunk_of;   /* base >> 21 -> index in chunks */
static uint32_t *empty;              /* indexes of wholly free chunks (room for chunk_cap) */
static size_t nempty;
static size_t warm; /* bytes of free blocks still resident */
static size_t own_total; /* bytes of own mappings (atomic) */
/* Regions of 2 MiB already faulted in (stint_hmem_prefault), under lock:
 * new chunks and the fresh parts of own mappings take these first. */
#define RESERVE_MAX 16
static char *reserve[RESERVE_MAX];
static size_t nreserve;
/* Huge pages only once the input or the memory in use says the run is not
 * small (atomic, 0 or 1): a huge page is zeroed whole at its first touch
 * (~0.2 ms), which a run over a few kilobytes would pay for nothing. */
static int huge;
#define HUGE_FROM ((size_t)8 << 20)
static int mode; /* 0 unknown, 1 huge pages, 2 malloc only (set once; racing threads set the same) */

static int malloc_only(void)
{
    int m = __atomic_load_n(&mode, __ATOMIC_RELAXED);
    if (!m) {
        const char *e = getenv("STINT_HMEM");
        int forced = e && !strcmp(e, "huge");
        m = e && !strcmp(e, "malloc") ? 2 : forced ? 1 : HMEM_ASAN ? 2 : 1;
        if (forced) /* and huge pages from the start, whatever the input's size */
            __atomic_store_n(&huge, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&mode, m, __ATOMIC_RELAXED);
    }
    return m == 2;
}

static enum kind kind_of(size_t bytes)
{
    if (bytes <= SMALL_MAX || malloc_only())
        return K_MALLOC;
    return bytes <= SHARED_MAX ? K_SHARED : K_OWN;
}

/* The order of a shared block of bytes (> SMALL_MAX): ceil(log2) - MIN_SHIFT. */
static unsigned order_of(size_t bytes)
{
    return 64 - (unsigned)__builtin_clzll((unsigned long long)(bytes - 1)) - MIN_SHIFT;
}

static size_t own_size(size_t bytes) { return (bytes + HUGE - 1) & ~(HUGE - 1); }

static void advise(char *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (__atomic_load_n(&huge, __ATOMIC_RELAXED))
        madvise(p, size, MADV_HUGEPAGE);
#else
    (void)p, (void)size;
#endif
}

/* Counts bytes of own mappings made (+) or unmapped (-), and checks the footprint. */
static void footprint(void);
static void own_add(ptrdiff_t d)
{
    __atomic_add_fetch(&own_total, (size_t)d, __ATOMIC_RELAXED);
    if (d > 0)
        footprint();
}

/* Huge pages from now on when the memory in use reaches HUGE_FROM. */
static void footprint(void)
{
    if (!__atomic_load_n(&huge, __ATOMIC_RELAXED) &&
        __atomic_load_n(&nchunks, __ATOMIC_RELAXED) * HUGE + __atomic_load_n(&own_total, __ATOMIC_RELAXED) >= HUGE_FROM)
        __atomic_store_n(&huge, 1, __ATOMIC_RELAXED);
}

void stint_hmem_expect(uint64_t input_bytes)
{
    if (input_bytes >= HUGE_FROM)
        __atomic_store_n(&huge, 1, __ATOMIC_RELAXED);
}

/* A fresh 2 MiB-aligned mapping of size bytes (a multiple of 2 MiB), advised
 * MADV_HUGEPAGE; NULL when out of memory. */
static char *map_aligned(size_t size)
{
    char *p = mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    size_t head = (size_t)(a - (uintptr_t)p);
    if (head)
        munmap(p, head);
    munmap((char *)a + size, HUGE - head);
    advise((char *)a, size);
    return (char *)a;
}

/* A prefaulted region from the reserve, or NULL; under lock. */
static char *reserve_take(void)
{
    return nreserve ? reserve[--nreserve] : NULL;
}

/* Moves region r (from reserve_take) onto the 2 MiB at at, whose pages it
 * replaces; 0 ok, -1 when the system refused (r is then unmapped and at
 * left as it was: fresh). */
static int reserve_place(char *r, char *at)
{
    if (mremap(r, HUGE, HUGE, MREMAP_MAYMOVE | MREMAP_FIXED, at) != MAP_FAILED)
        return 0;
    munmap(r, HUGE);
    return -1;
}

/* Puts prefaulted regions from the reserve in place of the 2 MiB pieces of
 * [p, p + size) (2 MiB-aligned, not yet touched), as many as it holds: their
 * pages move there (mremap moves page tables; nothing is copied or zeroed
 * again). Not under lock. */
static void reserve_fill(char *p, size_t size)
{
    if (HMEM_NO_MREMAP)
        return;
    for (size_t off = 0; off < size; off += HUGE) {
        pthread_mutex_lock(&lock);
        char *r = reserve_take();
        pthread_mutex_unlock(&lock);
        if (!r || reserve_place(r, p + off) != 0)
            return;
    }
}

/* Moves the pages of own mapping [p, p + size) onto [q, q + size), a
 * mapping of at least size bytes (2 MiB-aligned both); 0 ok, -1 when the
 * system refused (p then as it was). One mremap when the mapping is one
 * piece; one per 2 MiB when regions from the reserve were moved into it
 * (each stays a mapping of its own, and mremap moves within one). */
static int move_pages(char *p, size_t size, char *q)
{
    if (mremap(p, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, q) != MAP_FAILED)
        return 0;
    size_t off = 0;
    while (off < size && mremap(p + off, HUGE, HUGE, MREMAP_MAYMOVE | MREMAP_FIXED, q + off) != MAP_FAILED)
        off += HUGE;
    if (off == size)
        return 0;
    while (off) { /* back where they were (their places are free: mremap unmapped them) */
        off -= HUGE;
        if (mremap(q + off, HUGE, HUGE, MREMAP_MAYMOVE | MREMAP_FIXED, p + off) == MAP_FAILED) {
            stint_die_nomem(); /* the array is split in two: nothing to go on with */
        }
    }
    return -1;
}

int stint_hmem_prefault(size_t want)
{
    if (malloc_only() || !__atomic_load_n(&huge, __ATOMIC_RELAXED))
        return 0;
    pthread_mutex_lock(&lock);
    int room = nreserve < RESERVE_MAX && nreserve * HUGE < want;
    pthread_mutex_unlock(&lock);
    if (!room)
        return 0;
    char *p = map_aligned(HUGE);
    if (!p)
        return 0;
    for (size_t off = 0; off < HUGE; off += 4096) /* one write faults in a huge page; 4 KiB pages each */
        ((volatile char *)p)[off] = 0;
    pthread_mutex_lock(&lock);
    if (nreserve < RESERVE_MAX) {
        reserve[nreserve++] = p;
        p = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (p)
        munmap(p, HUGE);
    return 1;
}

/* Unmaps own mapping [p, p + size) (2 MiB-aligned pieces), keeping each
 * piece that is wholly resident for reuse while the reserve has room: zeroed
 * (the reserve's regions read as zeros) and added to it. Zeroing 2 MiB that
 * is resident takes ~0.1 ms; faulting in a region afresh after the host took
 * it back, some 3 ms. With huge pages off (or no mremap) everything is
 * unmapped. */
static void own_unmap(char *p, size_t size)
{
    size_t off = 0;
    if (!HMEM_NO_MREMAP && __atomic_load_n(&huge, __ATOMIC_RELAXED)) {
        unsigned char vec[HUGE / 4096];
        for (; off < size; off += HUGE) {
            pthread_mutex_lock(&lock);
            int room = nreserve < RESERVE_MAX;
            pthread_mutex_unlock(&lock);
            if (!room || mincore(p + off, HUGE, vec) != 0)
                break;
            size_t in = 0;
            while (in < sizeof vec && (vec[in] & 1))
                in++;
            if (in < sizeof vec) { /* not all resident: zeroing it would fault the rest in */
                munmap(p + off, HUGE);
                continue;
            }
            memset(p + off, 0, HUGE);
            pthread_mutex_lock(&lock);
            int kept = nreserve < RESERVE_MAX;
            if (kept)
                reserve[nreserve++] = p + off;
            pthread_mutex_unlock(&lock);
            if (!kept)
                munmap(p + off, HUGE);
        }
    }
    if (off < size)
        munmap(p + off, size - off);
}

void stint_hmem_prefault_drop(void)
{
    pthread_mutex_lock(&lock);
    while (nreserve)
        munmap(reserve[--nreserve], HUGE);
    pthread_mutex_unlock(&lock);
}

static inline size_t bit_of(unsigned order, size_t off)
{
    return (size_t)1024 - ((size_t)1024 >> order) + (off >> (MIN_SHIFT + order));
}

/* Bit b of the chunk's free bits, or from 1024 on of its cold bits. */
static inline void bit_set(struct chunk *c, size_t b, int on)
{
    uint64_t *w = b < 1024 ? &c->free_bits[b >> 6] : &c->cold_bits[(b - 1024) >> 6];
    if (on)
        *w |= 1ULL << (b & 63);
    else
        *w &= ~(1ULL << (b & 63));
}

static inline int bit_get(const struct chunk *c, size_t b)
{
    uint64_t w = b < 1024 ? c->free_bits[b >> 6] : c->cold_bits[(b - 1024) >> 6];
    return (int)(w >> (b & 63)) & 1;
}

/* Puts the block at off of chunk c on the free list of its order (< TOP),
 * cold when its pages (but the first) were given back. */
static void link_free(struct chunk *c, size_t off, unsigned order, int cold)
{
    struct fblk *f = (struct fblk *)(void *)(c->base + off);
    f->prev = NULL;
    f->next = free_list[cold][order];
    if (f->next)
        f->next->prev = f;
    free_list[cold][order] = f;
    bit_set(c, bit_of(order, off), 1);
    bit_set(c, bit_of(order, off) + 1024, cold);
    if (!cold)
        warm += (size_t)1 << (MIN_SHIFT + order);
}

/* Takes the free block at off of chunk c off its list; returns whether it was cold. */
static int unlink_free(struct chunk *c, size_t off, unsigned order)
{
    struct fblk *f = (struct fblk *)(void *)(c->base + off);
    int cold = bit_get(c, bit_of(order, off) + 1024);
    if (f->prev)
        f->prev->next = f->next;
    else
        free_list[cold][order] = f->next;
    if (f->next)
        f->next->prev = f->prev;
    bit_set(c, bit_of(order, off), 0);
    if (!cold)
        warm -= (size_t)1 << (MIN_SHIFT + order);
    return cold;
}

static struct chunk *chunk_at(const void *p)
{
    int isnew;
    uint32_t i = stint_umap_get(&chunk_of, (uint64_t)(uintptr_t)p >> 21, (uint32_t)nchunks, &isnew);
    return isnew ? NULL : &chunks[i];
}

/* A wholly free chunk to cut: an empty one kept from before, else a new
 * mapping; NULL when out of memory. */
static struct chunk *take_chunk(void)
{
    if (nempty) {
        struct chunk *c = &chunks[empty[--nempty]];
        /* its pages were given back: a prefaulted region's go in their place */
        char *r = HMEM_NO_MREMAP ? NULL : reserve_take();
        if (r)
            (void)reserve_place(r, c->base); /* (refused: the chunk stays fresh) */
        return c;
    }
    if (nchunks == chunk_cap) {
        size_t nc = chunk_cap ? 2 * chunk_cap : 64;
        struct chunk *x = realloc(chunks, nc * sizeof *x);
        uint32_t *e = realloc(empty, nc * sizeof *e);
        if (x)
            chunks = x;
        if (e)
            empty = e;
        if (!x || !e)
            return NULL;
        chunk_cap = nc;
    }
    footprint();
    char *base = reserve_take();
    if (!base && !(base = map_aligned(HUGE)))
        return NULL;
    struct chunk *c = &chunks[nchunks];
    memset(c, 0, sizeof *c);
    c->base = base;
    int isnew;
    stint_umap_get(&chunk_of, (uint64_t)(uintptr_t)base >> 21, (uint32_t)nchunks, &isnew);
    __atomic_store_n(&nchunks, nchunks + 1, __ATOMIC_RELAXED); /* (footprint() reads it without the lock) */
    return c;
}

static void *shared_alloc(size_t bytes)
{
    unsigned want = order_of(bytes), k = want;
    void *p = NULL;
    pthread_mutex_lock(&lock);
    /* a resident free block first, then one given back, then a new chunk */
    int list = 0;
    while (k < TOP && !free_list[0][k])
        k++;
    if (k == TOP)
        for (k = want, list = 1; k < TOP && !free_list[1][k];)
            k++;
    struct chunk *c;
    size_t off;
    int cold = 0;
    if (k < TOP) {
        char *blk = (char *)free_list[list][k];
        c = chunk_at(blk);
        off = (size_t)(blk - c->base);
        cold = unlink_free(c, off, k);
    } else {
        c = take_chunk();
        off = 0;
    }
    if (c) {
        while (k > want) { /* split: the upper half goes on the next list down */
            k--;
            link_free(c, off + ((size_t)1 << (MIN_SHIFT + k)), k, cold);
        }
        p = c->base + off;
    }
    pthread_mutex_unlock(&lock);
    return p;
}

static void shared_free(void *p, size_t bytes)
{
    unsigned k = order_of(bytes);
    pthread_mutex_lock(&lock);
    struct chunk *c = chunk_at(p);
    size_t off = (size_t)((char *)p - c->base);
    int cold = 0;
    while (k < TOP) {
        size_t buddy = off ^ ((size_t)1 << (MIN_SHIFT + k));
        if (!bit_get(c, bit_of(k, buddy)))
            break;
        cold |= unlink_free(c, buddy, k);
        off &= ~((size_t)1 << (MIN_SHIFT + k));
        k++;
    }
    if (k < TOP) {
        /* Past WARM_MAX of resident free blocks, freed memory goes back to the
         * system (all but the page that holds the links): while arrays grow
         * and shrink, blocks are reused warm; when a phase ends and frees a
         * lot (the records of a finished lane), the pages go back. */
        size_t size = (size_t)1 << (MIN_SHIFT + k);
        if (k >= RELEASE_ORDER && (cold || warm + size > WARM_MAX)) {
            madvise(c->base + off + 4096, size - 4096, MADV_DONTNEED);
            cold = 1;
        }
        link_free(c, off, k, cold);
    } else {
        /* its pages go back; with huge pages on, as a new mapping in its
         * place, so that it faults in as a huge page again (a zapped huge
         * page leaves a page table behind that 4 KiB pages would fill) */
        if (!__atomic_load_n(&huge, __ATOMIC_RELAXED))
            madvise(c->base, HUGE, MADV_DONTNEED);
        else {
            char *q = mmap(c->base, HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (q != MAP_FAILED)
                advise(q, HUGE);
        }
        empty[nempty++] = (uint32_t)(c - chunks);
    }
    pthread_mutex_unlock(&lock);
}

void *stint_hmem_alloc(size_t bytes)
{
    switch (kind_of(bytes)) {
    case K_MALLOC:
        return malloc(bytes);
    case K_SHARED:
        return shared_alloc(bytes);
    default: {
        /* counted first, so that a footprint it completes maps it huge */
        own_add((ptrdiff_t)own_size(bytes));
        char *p = map_aligned(own_size(bytes));
        if (!p)
            own_add(-(ptrdiff_t)own_size(bytes));
        else
            reserve_fill(p, own_size(bytes));
        return p;
    }
    }
}

static int final; /* stint_hmem_final was called (atomic) */

void stint_hmem_final(void)
{
    __atomic_store_n(&final, 1, __ATOMIC_RELAXED);
}

void stint_hmem_free(void *p, size_t bytes)
{
    if (!p)
        return;
    enum kind k = kind_of(bytes);
    if (k != K_MALLOC && __atomic_load_n(&final, __ATOMIC_RELAXED))
        return; /* left to the exit */
    switch (k) {
    case K_MALLOC:
        free(p);
        break;
    case K_SHARED:
        shared_free(p, bytes);
        break;
    default:
        own_add(-(ptrdiff_t)own_size(bytes));
        own_unmap(p, own_size(bytes));
    }
}

void *stint_hmem_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
    if (!p)
        return stint_hmem_alloc(new_bytes);
    enum kind ok = kind_of(old_bytes), nk = kind_of(new_bytes);
    if (ok == K_MALLOC && nk == K_MALLOC)
        return realloc(p, new_bytes);
    if (ok == K_SHARED && nk == K_SHARED && order_of(old_bytes) == order_of(new_bytes))
        return p;
    if (ok == K_OWN && nk == K_OWN) {
        size_t os = own_size(old_bytes), ns = own_size(new_bytes);
        if (os == ns)
            return p;
        if (ns < os) {
            own_add(-(ptrdiff_t)(os - ns));
            own_unmap((char *)p + ns, os - ns);
            return p;
        }
        if (!HMEM_NO_MREMAP) {
            /* move the pages to a new aligned place (whose range is reserved first) */
            own_add((ptrdiff_t)(ns - os));
            char *q = map_aligned(ns);
            if (!q) {
                own_add(-(ptrdiff_t)(ns - os));
                return NULL;
            }
            if (move_pages(p, os, q) != 0) {
                munmap(q, ns);
                own_add(-(ptrdiff_t)(ns - os));
                return NULL;
            }
            advise(q, ns);
            reserve_fill(q + os, ns - os);
            return q;
        }
    }
    void *q = stint_hmem_alloc(new_bytes);
    if (!q)
        return NULL;
    memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
    stint_hmem_free(p, old_bytes);
    return q;
}

void *stint_hmem_xrealloc(void *p, size_t old_bytes, size_t new_bytes)
{
    return stint_xcheck(stint_hmem_realloc(p, old_bytes, new_bytes));
}

void stint_hmem_release(void *p, size_t bytes, size_t from, size_t upto)
{
    if (!p || kind_of(bytes) != K_OWN)
        return;
    from = (from + 4095) & ~(size_t)4095;
    upto &= ~(size_t)4095;
    if (upto > from)
        madvise((char *)p + from, upto - from, MADV_DONTNEED);
}

void stint_hmem_stats(struct stint_hmem_stats *st)
{
    pthread_mutex_lock(&lock);
    st->chunks = nchunks;
    st->empty_chunks = nempty;
    st->warm_free = warm;
    size_t cold = 0;
    for (unsigned k = 0; k < TOP; k++)
        for (struct fblk *f = free_list[1][k]; f; f = f->next)
            cold += (size_t)1 << (MIN_SHIFT + k);
    st->cold_free = cold;
    st->reserve = nreserve;
    pthread_mutex_unlock(&lock);
}
