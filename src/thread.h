/* SPDX-License-Identifier: MIT */
/*
 * thread.h - per-thread state shared by span.c (the producer) and writer.c
 * (the consumer).
 *
 * Each thread owns a single-producer/single-consumer chain of byte chunks.
 * The producer is the thread itself; the consumer is whoever holds the drain
 * lock. head and tail count bytes since the chain was (re)set; the producer
 * publishes a record by storing head with release order after writing its
 * bytes. A record never straddles two chunks: when the next one does not fit
 * the rest of its chunk, the producer fills that rest with a PAD record (none
 * when nothing is left), links a new chunk through the full one's next
 * pointer, and only then publishes: a consumer that reaches the end of a
 * chunk with tail < head finds next set. The consumer owns every chunk it
 * has moved past: it pushes it on the thread's stack of free chunks, which
 * the producer pops before it maps a new one, or unmaps it
 * (stint_i_chunk_release says which).
 *
 * Memory: each thread's first chunk (the home chunk, STINT_BUFFER_KB) comes
 * from the allocator when the thread registers; growth chunks of the same
 * size are mapped with mmap(2) on the producer's rare path (never malloc: a
 * span ended in a signal handler may need one, and mmap is a system call with
 * no user-space lock), at most stint_i_chain_cap bytes of them in the
 * process; past that the producer drops and counts as a full fixed ring did.
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

/* One chunk of a thread's chain: a 64-byte header, then cap bytes of
 * records (in a mapped chunk they start on a cache line, so that a plain
 * 64-byte span record fills one line, not halves of two). */
typedef struct stint_i_chunk stint_i_chunk;
struct stint_i_chunk {
    _Atomic(stint_i_chunk *) next; /* the chunk after it: set before the head that leads there is published */
    uint64_t cap;                  /* record bytes (a multiple of 8) */
    uint64_t mapped;               /* 1: a growth chunk from mmap(2); 0: the home chunk, from the allocator */
    uint64_t pad_[5];
    _Alignas(8) uint8_t data[];
};
_Static_assert(sizeof(stint_i_chunk) == 64, "a chunk's records start a cache line after its start");

typedef struct stint_i_thread stint_i_thread;
struct stint_i_thread {
    /* producer side (the thread itself) */
    uint8_t *wbuf;  /* data of the chunk written now */
    uint64_t wpos;  /* bytes of it in use */
    uint64_t wcap;  /* its size */
    stint_i_chunk *wchunk;
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

    /* records published (bytes): 64 bytes of padding keep it off the cache
     * line of the producer's other fields, so that the consumer's reads of
     * it do not take them away. (Padding, not _Alignas(64): the state comes
     * from the user's allocator hook, which promises only malloc's 16-byte
     * alignment.) */
    char pad_head_[64];
    _Atomic uint64_t head;
    /* and as much after it: the consumer writes the fields below (a chunk
     * given back, a spare pushed) while the producer stores head each span */
    char pad_head_after_[64];
    /* a stack of free chunks (linked through next) the producer takes from
     * before it maps one: pushed by the consumer only, popped by the producer
     * only (a compare-and-swap sees no ABA); the consumer's trim takes it
     * whole, and puts it back untouched while the producer pops (chain.c) */
    _Atomic(stint_i_chunk *) spare;
    _Atomic uint32_t nspare;
    _Atomic uint32_t popping; /* the producer is inside stint_i_spare_pop */
    /* chunks this thread linked (the writer trims the free ones of a thread
     * that linked none for a period) */
    _Atomic uint64_t grew;
    _Atomic uint64_t released; /* chunks the consumer moved past: grew - released + 1 chunks in the chain */

    /* consumer side (drain lock), padded off the lines above */
    char pad_tail_[64];
    _Atomic uint64_t tail;
    /* the thread's own flush is formatting its records without the drain
     * lock (stint_i_flush_own): other drains leave them; claim_seq counts
     * the claims ended, for a flush that waits on one */
    _Atomic int claimed;
    _Atomic uint32_t claim_seq;
    char *flush_text; /* its own flush's text (flush_own.c), mapped once, kept with the state */
    stint_i_chunk *rchunk; /* the chunk read now */
    uint64_t rpos;         /* bytes of it read */
    stint_i_chunk *home;   /* the allocator's chunk: in the chain or the spare slot, freed never */
    uint64_t dropped_reported;
    uint64_t drain_to; /* a whole drain's share of it: the bytes published when that drain began (writer.c) */
    uint64_t written;
    uint64_t discarded; /* records drained with no sink left (after stint_shutdown): dropped, not recorded */
    uint64_t grew_seen; /* grew at the writer's last pass */
    int64_t grew_at_ns; /* when the writer saw grew change last (CLOCK_MONOTONIC) */
    int keep_free;      /* it linked a chunk within 25 writer periods: the chunks it is done with are kept */
    int64_t freed_at_ns; /* on the free list since (CLOCK_MONOTONIC): its free chunks are kept that long */

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

/* Chain memory (writer.c): the size of every chunk (STINT_BUFFER_KB), the
 * bytes growth chunks may take in the whole process (STINT_BUFFER_MAX_MB),
 * and the bytes they take now. */
#define STINT_I_BUFFER_MAX_MB_DEFAULT 1024
extern uint64_t stint_i_chunk_bytes;
extern uint64_t stint_i_chain_cap;
extern _Atomic uint64_t stint_i_chain_bytes;
/* Set by a producer that linked a growth chunk: the writer drains again at
 * once instead of sleeping out its period. */
extern _Atomic int stint_i_writer_hurry;
/* Maps a growth chunk within stint_i_chain_cap: NULL when over it or when
 * mmap fails. Async-signal-safe (span.c calls it on the rare path). */
stint_i_chunk *stint_i_chunk_map(void);
/* Unmaps a growth chunk and takes it off stint_i_chain_bytes. */
void stint_i_chunk_unmap(stint_i_chunk *c);
/* Gives back a chunk the consumer is done with: kept as a spare of t, or unmapped. */
void stint_i_chunk_release(stint_i_thread *t, stint_i_chunk *c);
/* Producer: takes a free chunk of t (next cleared), or NULL. Async-signal-safe. */
stint_i_chunk *stint_i_spare_pop(stint_i_thread *t);
/* Consumer: moves from the chunk read now (read to its end) to the next one,
 * giving the old one back. Only when tail < head (the next is linked). */
void stint_i_chain_advance(stint_i_thread *t);
/* Makes home the whole chain of t, empty (a new thread state). */
void stint_i_chain_init(stint_i_thread *t, stint_i_chunk *home);
/* Empties the chain of a thread whose producer is not running (a reused
 * state, the child after fork): what was not read is discarded, the chunks
 * before the one written now given back. */
void stint_i_chain_reset(stint_i_thread *t);
/* Unmaps t's free mapped chunks past the first `keep` (a thread that exited,
 * or one whose burst is over). */
void stint_i_chain_trim(stint_i_thread *t, unsigned keep);
/* Reads STINT_BUFFER_KB and STINT_BUFFER_MAX_MB (at init). */
void stint_i_chain_config(void);
/* An integer setting from the environment: def when unset, empty or not a
 * number; a number outside [lo, hi] is taken as the nearest bound. */
long stint_i_env_long(const char *name, long def, long lo, long hi);
/* Clears a thread state for a new thread, keeping its chunks (registry lock). */
void stint_i_thread_clear(stint_i_thread *t);
/* Records published but not yet drained (drain lock held). */
uint64_t stint_i_chain_pending(stint_i_thread *t);
/* Decodes record r of thread t into *out (attributes in views): the
 * timestamps converted with the record's clock (drain lock held, unless the
 * record's clock is not the TSC: stint_i_flush_own converts first). */
void stint_i_decode(const stint_i_thread *t, const stint_i_rec *r, stint_i_event *out,
                    stint_i_attr_view views[STINT_ATTR_MAX]);
/* The calling thread's state, or NULL when it never recorded (span.c). */
stint_i_thread *stint_i_self(void);
/* stint_flush's first step: the calling thread formats its own records as
 * marker lines without the drain lock (threads flushing at once format in
 * parallel), when the marker sink writing to a file is the only sink;
 * writer.c then drains the rest. */
void stint_i_flush_own(void);
/* At exit (exit_report.c): writes msg (n bytes as snprintf counted them
 * into cap) to stderr if it takes it within 100 ms; says how many spans are
 * still open in live threads (never recorded); says what was dropped (sig
 * of s->spans_dropped by signal handlers) and what a sink could not write
 * (why: its reason). */
void stint_i_exit_say(const char *msg, int n, size_t cap);
void stint_i_open_spans_report(void);
void stint_i_exit_losses(const stint_stats *s, uint64_t sig, stint_status st, const char *why);
/* Free chunks a thread keeps at most for its next burst. */
#define STINT_I_SPARE_MAX 16

/* The record at the consumer's position, stepping over a chunk's end first;
 * only while tail < head. */
static inline const stint_i_rec *stint_i_chain_peek(stint_i_thread *t)
{
    if (t->rpos == t->rchunk->cap)
        stint_i_chain_advance(t);
    return (const stint_i_rec *)(const void *)(t->rchunk->data + t->rpos);
}

/* The registry of live threads (writer.c). */
extern pthread_mutex_t stint_i_registry_lock;
extern stint_i_thread *stint_i_threads;

/* Allocates, or reuses, a thread state for the calling thread (span.c). */
stint_i_thread *stint_i_thread_register(void);
/* Returns a drained dead thread's state to the free list (registry lock held). */
void stint_i_thread_recycle(stint_i_thread *t);

#endif
