/* SPDX-License-Identifier: MIT */
/*
 * thread.h - per-thread state shared by span.c (the producer) and writer.c
 * (the consumer).
 *
 * Each thread owns one single-producer/single-consumer byte ring. The
 * producer is the thread itself; the consumer is whoever holds the drain
 * lock. head and tail count bytes since the ring was created; the producer
 * publishes a record by storing head with release order after writing its
 * bytes, the consumer frees space by storing tail with release order after
 * reading them. A record never wraps: a PAD record fills the end instead.
 */
#ifndef STINT_THREAD_H
#define STINT_THREAD_H

#include "internal.h"

typedef struct stint_i_frame {
    const stint_loc *loc; /* NULL when the name was copied into copy[] */
    int64_t start;    /* raw clock value */
    uint16_t attr_begin;
    uint16_t str_begin;
    uint8_t clock;
    uint8_t flags;
    uint8_t copied; /* name is in copy[] */
    uint8_t pad_;
    uint32_t token;   /* its handle: depth + 1, and the thread's span count when it opened (mod 2^24) */
    char copy[STINT_NAME_COPY_MAX];
} stint_i_frame;

#define STINT_I_ATTR_STACK 256
#define STINT_I_STR_STACK (16 * 1024)

/* Levels past STINT_MAX_DEPTH whose spans' handles carry a generation, so
 * that a stale one is told apart from the span open at its level now. */
#define STINT_I_DEEP_CHECKED 127

typedef struct stint_i_thread stint_i_thread;
struct stint_i_thread {
    /* producer side */
    uint8_t *buf;
    uint64_t cap; /* power of two */
    uint64_t mask;
    _Atomic uint64_t head;
    uint64_t cached_tail;
    uint32_t depth;
    uint32_t deep;   /* spans open past STINT_MAX_DEPTH, above frames[depth - 1]: not recorded */
    uint32_t deep_opens; /* spans opened past the limit (wraps): their generations */
    uint32_t gen;    /* spans opened (wraps) */
    uint32_t nattr;  /* attributes in use on attrs[] */
    uint32_t nstr;   /* bytes in use on strs[] */
    uint64_t inv;
    uint64_t hid;
    _Atomic uint64_t dropped;
    /* raw clock values of the first and last dropped span since the last
     * report, one slot per clock (STINT_I_CLOCK_*): spans are timed on the
     * TSC once it is calibrated, other records on CLOCK_MONOTONIC, and a
     * value is only ever converted with the clock it was read from (a clock
     * kept beside the value could be overwritten between the drain's two
     * loads) */
    _Atomic int64_t drop_first[STINT_I_NCLOCKS];
    _Atomic int64_t drop_last[STINT_I_NCLOCKS];
    _Atomic uint64_t autoclosed;
    _Atomic uint64_t too_deep;
    _Atomic uint64_t attrs_dropped;
    _Atomic uint64_t truncated;
    /* spans begun by a signal handler that interrupted this thread inside
     * the library (stint_i_busy): not recorded, counted with the dropped
     * ones; atomic read-modify-write, since a handler may interrupt another */
    _Atomic uint64_t sig_dropped;
    stint_i_frame frames[STINT_MAX_DEPTH];
    /* the generation (deep_opens mod 2^15) of the span open at each level
     * past the limit, levels 1..STINT_I_DEEP_CHECKED (span.c) */
    uint16_t deep_gen[STINT_I_DEEP_CHECKED];
    stint_i_attr attrs[STINT_I_ATTR_STACK];
    char strs[STINT_I_STR_STACK];

    /* consumer side (drain lock) */
    _Atomic uint64_t tail;
    uint64_t dropped_reported;
    uint64_t written;
    uint64_t discarded; /* records drained with no sink left (after stint_shutdown): dropped, not recorded */

    /* identity and list membership (registry lock) */
    int32_t tid;
    uint64_t handle; /* pthread_self(), for the reference logger's [T0x...] prefix */
    char name[32];
    _Atomic int dead; /* the thread exited; free once drained */
    stint_i_thread *next;
};

/* Nonzero while the calling thread is inside the library where a signal
 * handler on the same thread must not enter it: writing its own frames or
 * ring (span.c, set to 1 and back to 0), or holding a library lock or
 * inside the allocator or the one-time init (counted up and down). A span
 * call that finds it set was made by a handler that interrupted the
 * library: it is dropped and counted, never waits and never writes. */
extern _Thread_local uint32_t stint_i_busy __attribute__((tls_model("initial-exec")));

/* Counts up / down stint_i_busy around a region a handler must not enter
 * (a lock held, an allocation); the signal fences keep the compiler from
 * moving the region's accesses out of it. */
static inline void stint_i_busy_inc(void)
{
    stint_i_busy++;
    atomic_signal_fence(memory_order_seq_cst);
}
static inline void stint_i_busy_dec(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    stint_i_busy--;
}

/* Spans begun by a handler on a thread without a state of its own yet
 * (it interrupted the thread's first span): counted with the dropped ones. */
extern _Atomic uint64_t stint_i_dropped_reentrant;

/* The registry of live threads (writer.c). */
extern pthread_mutex_t stint_i_registry_lock;
extern stint_i_thread *stint_i_threads;

/* Allocates, or reuses, a thread state for the calling thread (span.c). */
stint_i_thread *stint_i_thread_register(void);
/* Returns a drained dead thread's state to the free list (registry lock held). */
void stint_i_thread_recycle(stint_i_thread *t);

#endif
