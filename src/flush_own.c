/* SPDX-License-Identifier: MIT */
/*
 * flush_own.c - stint_flush()'s first step: the calling thread turns its own
 * records into marker lines without holding the drain lock, so that threads
 * that flush at once format in parallel instead of one after the other.
 *
 * Only when the marker sink, writing whole lines to a regular file without
 * the logger's prefix, is the only sink (anything else is left to the
 * drain). In rounds of at most one marker batch of text:
 *   1. drain lock: check that; convert the TSC timestamps of the thread's
 *      published records to ns in place (the conversion's cache is the drain
 *      lock's), marking them CLOCK_MONOTONIC; claim the records (a drain
 *      leaves a claimed thread's records alone);
 *   2. no lock: decode and format as many of them as fit one batch;
 *   3. drain lock: when no sink or destination changed since 1
 *      (stint_i_sinks_gen), append the text to the sink's batch as its
 *      event callback would have, consume the records (chunks given back,
 *      written counted); else leave them for the drain. Unclaim.
 * Invariants: a record is consumed only under the drain lock, in order, and
 * only after its line is in the sink's batch, so every count stays exact and
 * a thread's lines keep their order in the file; only the owning thread
 * claims its records, and only it moves its consumer position while they are
 * claimed (the producer is this thread, busy flushing).
 */
#include "thread.h"

#include <errno.h>
#include <sys/mman.h>

/* Text formatted in one round (a thread's, mapped at its first flush: a
 * thread-local array this size would be in every thread's static TLS). */
#define TEXT_BYTES (512u * 1024)
/* Record bytes claimed in one round: their lines (3072 of 64-byte records,
 * 100-170 bytes each) fit the text, so each is converted and walked once. */
#define CLAIM_BYTES (192u * 1024)

/* The records converted and claimed in step 1: bytes, from the consumer's
 * position, about CLAIM_BYTES at most. */
static uint64_t claim(stint_i_thread *t, uint64_t *gen, unsigned *flags, stint_i_sink *sinks)
{
    if (!sinks || sinks->next || !stint_i_markers_sole(sinks, flags))
        return 0;
    uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
    if (tail == head)
        return 0;
    if (head - tail > CLAIM_BYTES)
        head = tail + CLAIM_BYTES; /* (a bound, not a record boundary: the walk ends past it) */
    const stint_i_chunk *c = t->rchunk;
    uint64_t pos = t->rpos, at = tail;
    while (at < head) {
        if (pos == c->cap) {
            c = atomic_load_explicit(&c->next, memory_order_acquire);
            pos = 0;
        }
        stint_i_rec *r = (stint_i_rec *)(void *)(c->data + pos);
        if (r->kind == STINT_I_REC_SPAN && r->clock == STINT_I_CLOCK_TSC) {
            r->start = stint_i_clock_to_ns(STINT_I_CLOCK_TSC, r->start);
            r->end = stint_i_clock_to_ns(STINT_I_CLOCK_TSC, r->end);
            r->clock = STINT_I_CLOCK_MONO; /* (the ns values convert to themselves) */
        }
        pos += r->size;
        at += r->size;
    }
    *gen = stint_i_sinks_gen;
    atomic_store_explicit(&t->claimed, 1, memory_order_relaxed);
    return at - tail;
}

/* Step 2: formats records from the consumer's position into text (room
 * TEXT_BYTES), at most `avail` bytes of them; returns the record bytes
 * formatted and the text's length in *len. */
static uint64_t format_some(const stint_i_thread *t, uint64_t avail, unsigned flags, char *text, size_t *len)
{
    const stint_i_chunk *c = t->rchunk;
    uint64_t pos = t->rpos, done = 0;
    char *p = text, *end = text + TEXT_BYTES;
    while (done < avail && end - p >= STINT_I_MARKER_LINE_ROOM) {
        if (pos == c->cap) {
            c = atomic_load_explicit(&c->next, memory_order_acquire);
            pos = 0;
        }
        const stint_i_rec *r = (const stint_i_rec *)(const void *)(c->data + pos);
        if (r->kind != STINT_I_REC_PAD) {
            stint_i_attr_view views[STINT_ATTR_MAX];
            stint_i_event ev;
            stint_i_decode(t, r, &ev, views);
            p = stint_i_markers_format_at(p, &ev, flags);
        }
        pos += r->size;
        done += r->size;
    }
    *len = (size_t)(p - text);
    return done;
}

/* Step 3's consuming: moves the consumer past `bytes` of records, counting
 * the spans written (drain lock held). */
static void consume(stint_i_thread *t, uint64_t bytes)
{
    uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
    for (uint64_t done = 0; done < bytes;) {
        const stint_i_rec *r = stint_i_chain_peek(t);
        t->rpos += r->size;
        done += r->size;
        tail += r->size;
        t->written += r->kind != STINT_I_REC_PAD;
    }
    atomic_store_explicit(&t->tail, tail, memory_order_release);
}

void stint_i_flush_own(void)
{
    stint_i_thread *t = stint_i_self();
    if (!t)
        return;
    if (!t->flush_text) {
        int saved = errno;
        void *p = mmap(NULL, TEXT_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        errno = saved;
        if (p == MAP_FAILED)
            return; /* (the drain writes them, one thread after the other) */
        t->flush_text = p;
    }
    char *text = t->flush_text;
    for (;;) {
        uint64_t gen = 0;
        unsigned flags = 0;
        stint_i_drain_lock();
        stint_i_capture_default(); /* (the sinks the environment names, as a drain sets them up) */
        stint_i_markers_default();
        uint64_t avail = claim(t, &gen, &flags, stint_i_sinks());
        stint_i_drain_unlock();
        if (!avail)
            return;
        size_t len;
        uint64_t bytes = format_some(t, avail, flags, text, &len);
        stint_i_drain_lock();
        int same = gen == stint_i_sinks_gen;
        if (same) {
            stint_i_markers_put(text, len);
            consume(t, bytes);
        }
        atomic_store_explicit(&t->claimed, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->claim_seq, 1, memory_order_release);
        stint_i_drain_unlock();
        if (!same)
            return;
    }
}
