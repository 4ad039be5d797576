/* SPDX-License-Identifier: MIT */
/*
 * test_hmem_threads.c - hmem.h, the huge-page memory for growing arrays:
 * random allocations, growths and frees of every kind (malloc, shared buddy
 * blocks, own mappings) keep their contents and never overlap; freeing
 * everything merges every chunk back whole; past the warm limit freed blocks
 * give their pages back; prefaulted regions are taken by new chunks and own
 * mappings (which then grow piece by piece) and read as zeros, and so do
 * the wholly resident pieces of a freed own mapping, kept there; two threads
 * at once, one of them prefaulting (TSan runs this test); after
 * stint_hmem_final, frees keep nothing.
 * STINT_HMEM=huge keeps the huge pages under ASan too.
 */
#include "check.h"
#include "base/hmem.h"

#include <pthread.h>
#include <stdint.h>

struct blk {
    unsigned char *p;
    size_t n;
    unsigned char tag;
};

static uint64_t rnd(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return *x >> 33;
}

/* A size of one of the three kinds; own mappings rarely (they are big). */
static size_t pick_size(uint64_t *x)
{
    unsigned k = (unsigned)(rnd(x) % 100);
    if (k < 30)
        return 1 + rnd(x) % 4095;                      /* malloc */
    if (k < 97)
        return 4096 + rnd(x) % ((1u << 20) - 4096 + 1); /* shared, up to 1 MiB */
    return (1u << 20) + 1 + rnd(x) % (3u << 20);        /* own */
}

/* Fills the first and last 64 bytes and every 4096th byte: enough to see a
 * block written over or moved wrongly, without touching every page. */
static void fill(struct blk *b)
{
    for (size_t i = 0; i < b->n; i += (i < 64 || i + 64 >= b->n) ? 1 : 4096)
        b->p[i] = (unsigned char)(b->tag + i * 7);
}

/* Whether bytes [from, upto) of p read as zeros (one byte in 4093 looked at). */
static int zeros_in(const unsigned char *p, size_t from, size_t upto)
{
    int z = 1;
    for (size_t i = from; i < upto; i += 4093)
        z &= p[i] == 0;
    return z;
}

static int intact(const struct blk *b, size_t upto)
{
    for (size_t i = 0; i < upto; i += (i < 64 || i + 64 >= b->n) ? 1 : 4096)
        if (b->p[i] != (unsigned char)(b->tag + i * 7))
            return 0;
    return 1;
}

/* Random work on nb slots; returns the number of failed checks. */
static int churn(uint64_t seed, struct blk *slot, size_t nb, int ops)
{
    int bad = 0;
    uint64_t x = seed;
    for (int op = 0; op < ops; op++) {
        struct blk *b = &slot[rnd(&x) % nb];
        unsigned what = (unsigned)(rnd(&x) % 3);
        if (!b->p) {
            b->n = pick_size(&x);
            b->tag = (unsigned char)rnd(&x);
            b->p = stint_hmem_alloc(b->n);
            if (!b->p)
                return bad + 1;
            fill(b);
        } else if (what == 0) {
            bad += !intact(b, b->n);
            stint_hmem_free(b->p, b->n);
            b->p = NULL;
        } else {
            size_t n = pick_size(&x), keep = n < b->n ? n : b->n;
            unsigned char *q = stint_hmem_realloc(b->p, b->n, n);
            if (!q)
                return bad + 1;
            b->p = q;
            size_t old = b->n;
            b->n = n;
            for (size_t i = 0; i < keep; i += (i < 64 || i + 64 >= old) ? 1 : 4096) /* where fill() wrote */
                bad += b->p[i] != (unsigned char)(b->tag + i * 7);
            fill(b);
        }
    }
    return bad;
}

static int cmp_blk(const void *pa, const void *pb)
{
    const struct blk *a = pa, *b = pb;
    return (uintptr_t)a->p < (uintptr_t)b->p ? -1 : (uintptr_t)a->p > (uintptr_t)b->p;
}

static int overlaps(struct blk *slot, size_t nb)
{
    struct blk *s = malloc(nb * sizeof *s);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        if (slot[i].p)
            s[n++] = slot[i];
    qsort(s, n, sizeof *s, cmp_blk);
    int bad = 0;
    for (size_t i = 1; i < n; i++)
        bad += s[i - 1].p + s[i - 1].n > s[i].p;
    free(s);
    return bad;
}

static void free_all(struct blk *slot, size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        if (slot[i].p) {
            stint_hmem_free(slot[i].p, slot[i].n);
            slot[i].p = NULL;
        }
}

struct job {
    uint64_t seed;
    int bad;
};

static void *thread_churn(void *arg)
{
    struct job *j = arg;
    static _Thread_local struct blk slot[64];
    j->bad = churn(j->seed, slot, 64, CHECK_ASAN_OR_TSAN ? 1500 : 6000);
    j->bad += overlaps(slot, 64);
    for (size_t i = 0; i < 64; i++)
        if (slot[i].p)
            j->bad += !intact(&slot[i], slot[i].n);
    free_all(slot, 64);
    return NULL;
}

/* Keeps the reserve topped up (and now and then drops it) until told to stop. */
static void *thread_prefault(void *arg)
{
    int *stop = arg;
    for (unsigned i = 0; !__atomic_load_n(stop, __ATOMIC_RELAXED); i++) {
        if (!stint_hmem_prefault(8u << 20) || i % 16 == 15)
            stint_hmem_prefault_drop();
    }
    return NULL;
}

int main(void)
{
    setenv("STINT_HMEM", "huge", 1); /* before the first call: the mode is read once */
    struct stint_hmem_stats st;

    /* one thread: contents kept, no overlaps, checked along the way */
    static struct blk slot[200];
    for (int round = 0; round < 8; round++) {
        CHECK_EQ_I64(churn(1000 + (uint64_t)round, slot, 200, CHECK_ASAN_OR_TSAN ? 2000 : 8000), 0);
        CHECK_EQ_I64(overlaps(slot, 200), 0);
    }
    free_all(slot, 200);
    /* everything freed: every block merged back into whole, empty chunks */
    stint_hmem_stats(&st);
    CHECK(st.chunks > 0);
    CHECK_EQ_I64((int64_t)st.empty_chunks, (int64_t)st.chunks);
    CHECK_EQ_I64((int64_t)st.warm_free, 0);
    CHECK_EQ_I64((int64_t)st.cold_free, 0);

    /* past 32 MiB of warm free memory, freed blocks go cold; what is still
     * in use is untouched by that */
    enum { NB = 1200 };
    static struct blk b64[NB];
    for (size_t i = 0; i < NB; i++) {
        b64[i].n = 64 << 10;
        b64[i].tag = (unsigned char)i;
        b64[i].p = stint_hmem_alloc(b64[i].n);
        REQUIRE(b64[i].p != NULL);
        fill(&b64[i]);
    }
    for (size_t i = 0; i < NB; i += 2) { /* no buddy of these is free: nothing merges */
        stint_hmem_free(b64[i].p, b64[i].n);
        b64[i].p = NULL;
    }
    stint_hmem_stats(&st);
    CHECK(st.warm_free <= (size_t)32 << 20);
    CHECK(st.warm_free >= ((size_t)32 << 20) - ((size_t)64 << 10));
    /* the freed half, plus what is left of the last chunk cut */
    CHECK(st.warm_free + st.cold_free >= (size_t)(NB / 2) * (64 << 10));
    CHECK(st.warm_free + st.cold_free < (size_t)(NB / 2) * (64 << 10) + ((size_t)2 << 20));
    int kept = 1;
    for (size_t i = 1; i < NB; i += 2)
        kept &= intact(&b64[i], b64[i].n);
    CHECK(kept);
    /* a cold block handed out again works like any other */
    for (size_t i = 0; i < NB; i += 2) {
        b64[i].n = 64 << 10;
        b64[i].tag = (unsigned char)(i * 3);
        b64[i].p = stint_hmem_alloc(b64[i].n);
        REQUIRE(b64[i].p != NULL);
        fill(&b64[i]);
    }
    kept = 1;
    for (size_t i = 0; i < NB; i++)
        kept &= intact(&b64[i], b64[i].n);
    CHECK(kept);
    CHECK_EQ_I64(overlaps(b64, NB), 0);
    free_all(b64, NB);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.empty_chunks, (int64_t)st.chunks);

    /* (own mappings freed above may have left regions in the reserve) */
    stint_hmem_prefault_drop();
    /* an own mapping gives a prefix back: zeros there, the rest kept */
    struct blk own = {stint_hmem_alloc(4u << 20), 4u << 20, 9};
    REQUIRE(own.p != NULL);
    memset(own.p, 0x5a, own.n);
    stint_hmem_release(own.p, own.n, 0, 2u << 20);
    CHECK_EQ_I64(own.p[0], 0);
    CHECK_EQ_I64(own.p[(2u << 20) - 1], 0);
    CHECK_EQ_I64(own.p[2u << 20], 0x5a);
    CHECK_EQ_I64(own.p[own.n - 1], 0x5a);
    /* grown past its mapping: moved, contents kept */
    own.p = stint_hmem_realloc(own.p, own.n, 9u << 20);
    REQUIRE(own.p != NULL);
    CHECK_EQ_I64(own.p[(4u << 20) - 1], 0x5a);
    CHECK_EQ_I64((int64_t)((uintptr_t)own.p & ((2u << 20) - 1)), 0); /* still 2 MiB-aligned */
    stint_hmem_free(own.p, 9u << 20);
    /* a freed own mapping: each 2 MiB of it that is wholly resident is kept
     * in the reserve, zeroed, the rest unmapped (TSan builds, without mremap,
     * keep none); a new mapping takes it and reads zeros */
    stint_hmem_prefault_drop();
    struct blk part = {stint_hmem_alloc(6u << 20), 6u << 20, 11};
    REQUIRE(part.p != NULL);
    for (size_t i = 0; i < (2u << 20); i += 4096) /* the first 2 MiB written, the rest never touched */
        part.p[i] = 0x77;
    stint_hmem_free(part.p, part.n);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, CHECK_TSAN ? 0 : 1);
    part.p = stint_hmem_alloc(3u << 20);
    part.n = 3u << 20;
    REQUIRE(part.p != NULL);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, 0);
    CHECK(zeros_in(part.p, 0, part.n));
    fill(&part);
    CHECK(intact(&part, part.n));
    stint_hmem_free(part.p, part.n);
    stint_hmem_prefault_drop();

    /* prefaulted regions (stint_hmem_prefault): as many as asked for, then
     * none; new chunks and own mappings take them, and they read as zeros */
    int added = 0;
    while (stint_hmem_prefault(6u << 20))
        added++;
    CHECK_EQ_I64(added, 3);
    CHECK_EQ_I64(stint_hmem_prefault(4u << 20), 0); /* 6 MiB held already */
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, 3);
    struct blk pf = {stint_hmem_alloc(5u << 20), 5u << 20, 21};
    REQUIRE(pf.p != NULL);
    stint_hmem_stats(&st);
    /* TSan builds grow own mappings by copying (no mremap): they take none */
    CHECK_EQ_I64((int64_t)st.reserve, CHECK_TSAN ? 3 : 0);
    CHECK(zeros_in(pf.p, 0, pf.n));
    fill(&pf);
    while (stint_hmem_prefault(4u << 20))
        ;
    /* grown: a mapping made of moved regions moves piece by piece */
    pf.p = stint_hmem_realloc(pf.p, pf.n, 13u << 20);
    REQUIRE(pf.p != NULL);
    CHECK(intact(&pf, pf.n - 64)); /* (fill wrote the last 64 bytes of the old size) */
    CHECK_EQ_I64((int64_t)((uintptr_t)pf.p & ((2u << 20) - 1)), 0);
    CHECK(zeros_in(pf.p, pf.n, 13u << 20)); /* the new part, some of it from the reserve */
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, CHECK_TSAN ? 3 : 0);
    pf.p = stint_hmem_realloc(pf.p, 13u << 20, 3u << 20); /* shrunk */
    REQUIRE(pf.p != NULL);
    CHECK_EQ_I64(pf.p[0], pf.tag);
    stint_hmem_free(pf.p, 3u << 20);
    /* a chunk for shared blocks takes one (an empty chunk's pages replaced:
     * every chunk is empty here) */
    stint_hmem_prefault_drop();
    CHECK_EQ_I64(stint_hmem_prefault(2u << 20), 1);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.empty_chunks, (int64_t)st.chunks);
    size_t chunks0 = st.chunks;
    struct blk sb = {stint_hmem_alloc(256u << 10), 256u << 10, 33};
    REQUIRE(sb.p != NULL);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, CHECK_TSAN ? 1 : 0);
    CHECK_EQ_I64((int64_t)st.chunks, (int64_t)chunks0);
    CHECK(zeros_in(sb.p, 0, sb.n));
    fill(&sb);
    CHECK(intact(&sb, sb.n));
    stint_hmem_free(sb.p, sb.n);
    stint_hmem_prefault(4u << 20);
    stint_hmem_prefault_drop();
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.reserve, 0);

    /* two threads at once, and a third filling the reserve meanwhile */
    struct job j[2] = {{77, 0}, {78, 0}};
    pthread_t t, tp;
    int pf_stop = 0;
    REQUIRE(pthread_create(&t, NULL, thread_churn, &j[1]) == 0);
    REQUIRE(pthread_create(&tp, NULL, thread_prefault, &pf_stop) == 0);
    thread_churn(&j[0]);
    pthread_join(t, NULL);
    __atomic_store_n(&pf_stop, 1, __ATOMIC_RELAXED);
    pthread_join(tp, NULL);
    stint_hmem_prefault_drop();
    CHECK_EQ_I64(j[0].bad, 0);
    CHECK_EQ_I64(j[1].bad, 0);
    stint_hmem_stats(&st);
    CHECK_EQ_I64((int64_t)st.empty_chunks, (int64_t)st.chunks);

    /* the run's end (stint_hmem_final): frees of shared blocks and own
     * mappings keep nothing for reuse; malloc'd ones are still freed */
    unsigned char *sh = stint_hmem_alloc(64u << 10), *ow = stint_hmem_alloc(3u << 20), *sm = stint_hmem_alloc(100);
    REQUIRE(sh != NULL && ow != NULL && sm != NULL);
    memset(sh, 1, 64u << 10);
    memset(ow, 2, 3u << 20);
    stint_hmem_final();
    stint_hmem_free(sh, 64u << 10);
    stint_hmem_free(ow, 3u << 20);
    stint_hmem_free(sm, 100);
    struct stint_hmem_stats fin;
    stint_hmem_stats(&fin);
    CHECK_EQ_I64((int64_t)fin.empty_chunks, (int64_t)st.empty_chunks - 1); /* the block's chunk stays taken */
    CHECK_EQ_I64((int64_t)fin.warm_free + (int64_t)fin.cold_free, (int64_t)((2u << 20) - (64u << 10))); /* its buddies */
    CHECK_EQ_I64(sh[0] + ow[(3u << 20) - 1], 3); /* still mapped, as they were */
    CHECK_DONE();
}
