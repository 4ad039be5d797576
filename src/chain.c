/* SPDX-License-Identifier: MIT */
/*
 * chain.c - the memory of the per-thread chunk chains (thread.h): growth
 * chunks mapped and unmapped within the process-wide cap, the consumer's
 * step from one chunk to the next, and the reset of a chain nobody writes.
 *
 * Also the settings they are sized by (STINT_BUFFER_KB, STINT_BUFFER_MAX_MB).
 *
 * Invariants: stint_i_chain_bytes is the record bytes of every mapped chunk alive
 * (in a chain or a spare slot), never above stint_i_chain_cap but for the
 * moment between a producer's add and its undo; a home chunk is never
 * unmapped (it is the allocator's, freed with nothing: thread states live as
 * long as the process). Mapping runs on the producer's rare path, possibly in
 * a signal handler: only atomics and system calls, errno kept.
 */
#include "thread.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>

uint64_t stint_i_chunk_bytes = 1u << 20;
uint64_t stint_i_chain_cap;
_Atomic uint64_t stint_i_chain_bytes;
_Atomic int stint_i_writer_hurry;

/* An integer setting from the environment: def when unset, empty or not a
 * number; a number outside [lo, hi] is taken as the nearest bound. */
long stint_i_env_long(const char *name, long def, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*end || end == v)
        return def;
    if (x < lo || (errno == ERANGE && x == LONG_MIN))
        return lo;
    if (x > hi || errno == ERANGE)
        return hi;
    return x;
}

void stint_i_chain_config(void)
{
    long kb = stint_i_env_long("STINT_BUFFER_KB", 1024, 4, 1L << 22);
    uint64_t bytes = 4096;
    while (bytes < (uint64_t)kb * 1024)
        bytes <<= 1;
    stint_i_chunk_bytes = bytes;
    /* growth past each thread's first chunk, all threads together; a buffer
     * size set alone keeps its meaning of a fixed buffer (no growth) */
    const char *kb_set = getenv("STINT_BUFFER_KB");
    long max_mb = stint_i_env_long("STINT_BUFFER_MAX_MB", kb_set && *kb_set ? 0 : STINT_I_BUFFER_MAX_MB_DEFAULT, 0,
                                   1L << 24);
    stint_i_chain_cap = (uint64_t)max_mb << 20;
}

/* Bytes a chunk of stint_i_chunk_bytes takes, header included. */
static size_t chunk_size(void) { return sizeof(stint_i_chunk) + (size_t)stint_i_chunk_bytes; }

stint_i_chunk *stint_i_chunk_map(void)
{
    size_t n = (size_t)stint_i_chunk_bytes; /* (the cap counts record bytes: a chunk's header is not counted) */
    uint64_t was = atomic_fetch_add_explicit(&stint_i_chain_bytes, n, memory_order_relaxed);
    if (was + n > stint_i_chain_cap) {
        atomic_fetch_sub_explicit(&stint_i_chain_bytes, n, memory_order_relaxed);
        return NULL;
    }
    int saved = errno;
    /* its pages made present by the one system call: faulted in one by one
     * by the recording thread's stores, 256 traps a MiB cost it 4-5 ns a
     * span more in kernel time (bench_capture, 2 vCPU AMD Zen 5) */
#ifdef MAP_POPULATE
    const int populate = MAP_POPULATE;
#else
    const int populate = 0;
#endif
    void *p = mmap(NULL, chunk_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
    errno = saved;
    if (p == MAP_FAILED) {
        atomic_fetch_sub_explicit(&stint_i_chain_bytes, n, memory_order_relaxed);
        return NULL;
    }
    stint_i_chunk *c = p; /* (zero-filled: next is NULL) */
    c->cap = stint_i_chunk_bytes;
    c->mapped = 1;
    return c;
}

void stint_i_chunk_unmap(stint_i_chunk *c)
{
    int saved = errno;
    munmap(c, chunk_size());
    errno = saved;
    atomic_fetch_sub_explicit(&stint_i_chain_bytes, stint_i_chunk_bytes, memory_order_relaxed);
}

/* Pushes c on t's stack of free chunks (the consumer's side: the only
 * pusher, so no ABA with the producer's pops). */
static void spare_push(stint_i_thread *t, stint_i_chunk *c)
{
    stint_i_chunk *top = atomic_load_explicit(&t->spare, memory_order_relaxed);
    do
        atomic_store_explicit(&c->next, top, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&t->spare, &top, c, memory_order_release, memory_order_relaxed));
    atomic_fetch_add_explicit(&t->nspare, 1, memory_order_relaxed);
}

stint_i_chunk *stint_i_spare_pop(stint_i_thread *t)
{
    /* (popping, then the top: a trim that takes the stack either sees the
     * flag or leaves this load the stack after it) */
    atomic_store_explicit(&t->popping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    stint_i_chunk *c = atomic_load_explicit(&t->spare, memory_order_acquire);
    while (c && !atomic_compare_exchange_weak_explicit(&t->spare, &c,
                                                       atomic_load_explicit(&c->next, memory_order_relaxed),
                                                       memory_order_acquire, memory_order_acquire))
        ;
    atomic_store_explicit(&t->popping, 0, memory_order_release);
    if (c) {
        atomic_fetch_sub_explicit(&t->nspare, 1, memory_order_relaxed);
        atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
    }
    return c;
}

/* Gives back a chunk the consumer has moved past (or one of a chain being
 * reset): onto the thread's stack of free chunks while it holds fewer than
 * STINT_I_SPARE_MAX, or while the thread has linked chunks lately
 * (keep_free) and the chunks mapped in the process take less than half the
 * cap (the home chunk always: it is never unmapped), else unmapped. A
 * thread whose writer fell behind (a writer without a core for a while)
 * takes its chunks again as the writer catches up, and a burst after a
 * short pause takes them again too: unmapped, each would be mapped again,
 * and its first touch costs the recording thread ~3 ms a MiB on the
 * measurement machine. */
void stint_i_chunk_release(stint_i_thread *t, stint_i_chunk *c)
{
    if (c->mapped && atomic_load_explicit(&t->nspare, memory_order_relaxed) >= STINT_I_SPARE_MAX &&
        (!t->keep_free || atomic_load_explicit(&stint_i_chain_bytes, memory_order_relaxed) >= stint_i_chain_cap / 2))
        stint_i_chunk_unmap(c);
    else
        spare_push(t, c);
}

void stint_i_chain_advance(stint_i_thread *t)
{
    stint_i_chunk *old = t->rchunk;
    stint_i_chunk *next = atomic_load_explicit(&old->next, memory_order_acquire);
    t->rchunk = next;
    t->rpos = 0;
    atomic_store_explicit(&t->released, atomic_load_explicit(&t->released, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    stint_i_chunk_release(t, old);
}

void stint_i_chain_init(stint_i_thread *t, stint_i_chunk *home)
{
    atomic_store_explicit(&home->next, NULL, memory_order_relaxed);
    home->cap = stint_i_chunk_bytes;
    home->mapped = 0;
    t->home = home;
    t->wchunk = t->rchunk = home;
    t->wbuf = home->data;
    t->wcap = home->cap;
    t->wpos = t->rpos = 0;
    atomic_store_explicit(&t->spare, NULL, memory_order_relaxed);
    atomic_store_explicit(&t->nspare, 0, memory_order_relaxed);
    atomic_store_explicit(&t->head, 0, memory_order_relaxed);
    atomic_store_explicit(&t->tail, 0, memory_order_relaxed);
}

void stint_i_chain_reset(stint_i_thread *t)
{
    while (t->rchunk != t->wchunk)
        stint_i_chain_advance(t);
    t->wpos = t->rpos = 0;
    atomic_store_explicit(&t->head, 0, memory_order_relaxed);
    atomic_store_explicit(&t->tail, 0, memory_order_relaxed);
}

void stint_i_chain_trim(stint_i_thread *t, unsigned keep)
{
    if (atomic_load_explicit(&t->nspare, memory_order_relaxed) <= keep)
        return;
    /* the whole stack taken at once (the producer meanwhile finds it empty
     * and maps a chunk: a cost, never a loss), then given back in part; but
     * when the producer is inside a pop, which may read the next of a chunk
     * it saw on top, the stack is put back as it was and nothing unmapped */
    stint_i_chunk *c = atomic_exchange_explicit(&t->spare, NULL, memory_order_seq_cst);
    if (atomic_load_explicit(&t->popping, memory_order_seq_cst)) {
        /* (only the consumer pushes, and it is here: the slot is still empty) */
        atomic_store_explicit(&t->spare, c, memory_order_release);
        return;
    }
    unsigned n = 0;
    while (c) {
        stint_i_chunk *next = atomic_load_explicit(&c->next, memory_order_relaxed);
        atomic_fetch_sub_explicit(&t->nspare, 1, memory_order_relaxed);
        if (c->mapped && n >= keep) {
            stint_i_chunk_unmap(c);
        } else {
            spare_push(t, c);
            n++;
        }
        c = next;
    }
}

/* Clears a thread state for a new thread, keeping its chunks: the chain
 * emptied (what a thread that exited, or the parent before fork, left in it
 * is discarded), the free chunks, and the flush text. */
void stint_i_thread_clear(stint_i_thread *t)
{
    stint_i_chain_reset(t);
    stint_i_chunk *home = t->home, *w = t->wchunk;
    stint_i_chunk *spare = atomic_load_explicit(&t->spare, memory_order_relaxed);
    uint32_t nspare = atomic_load_explicit(&t->nspare, memory_order_relaxed);
    char *flush_text = t->flush_text;
    memset(t, 0, sizeof *t);
    t->flush_text = flush_text;
    t->home = home;
    t->wchunk = t->rchunk = w; /* (the chunk written last, perhaps not the home one: read from its start) */
    t->wbuf = w->data;
    t->wcap = w->cap;
    atomic_store_explicit(&t->spare, spare, memory_order_relaxed);
    atomic_store_explicit(&t->nspare, nspare, memory_order_relaxed);
}

/* Records published but not yet drained (drain lock held). */
uint64_t stint_i_chain_pending(stint_i_thread *t)
{
    uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
    const stint_i_chunk *c = t->rchunk;
    uint64_t pos = t->rpos, n = 0;
    while (tail < head) {
        if (pos == c->cap) {
            c = atomic_load_explicit(&c->next, memory_order_acquire);
            pos = 0;
        }
        const stint_i_rec *r = (const stint_i_rec *)(const void *)(c->data + pos);
        n += r->kind != STINT_I_REC_PAD;
        pos += r->size;
        tail += r->size;
    }
    return n;
}

void stint_i_decode(const stint_i_thread *t, const stint_i_rec *r, stint_i_event *out,
                    stint_i_attr_view views[STINT_ATTR_MAX])
{
    stint_i_event ev;
    const uint8_t *tail = (const uint8_t *)(r + 1);
    ev.kind = r->kind;
    ev.loc = r->loc;
    if (r->flags & STINT_I_F_COPYNAME) {
        ev.name = (const char *)tail;
        ev.name_len = strlen(ev.name);
        tail += (ev.name_len + 1 + 7) & ~(size_t)7;
    } else {
        ev.name = r->loc ? r->loc->name : r->name;
        if (!ev.name)
            ev.name = "";
        ev.name_len = strlen(ev.name);
    }
    ev.static_attrs = r->loc ? r->loc->attrs : NULL;
    unsigned n = r->nattr > STINT_ATTR_MAX ? STINT_ATTR_MAX : r->nattr;
    const stint_i_attr *a = (const stint_i_attr *)(const void *)tail;
    const char *strs = (const char *)(a + r->nattr);
    for (unsigned i = 0; i < n; i++) {
        views[i].key = a[i].key;
        views[i].type = a[i].type;
        switch (a[i].type) {
        case STINT_I_ATTR_STR:
            views[i].v.s.ptr = strs + a[i].v.str_off;
            views[i].v.s.len = a[i].str_len;
            break;
        case STINT_I_ATTR_U64: views[i].v.u = a[i].v.u; break;
        case STINT_I_ATTR_F64: views[i].v.f = a[i].v.f; break;
        case STINT_I_ATTR_BOOL: views[i].v.b = (int)a[i].v.i; break;
        default: views[i].v.i = a[i].v.i; break;
        }
    }
    ev.attrs = views;
    ev.nattr = n;
    if (r->kind == STINT_I_REC_DEVICE) {
        ev.ts_ns = r->start;
        ev.dur_ns = r->end - r->start;
    } else {
        int64_t end;
        stint_i_clock_pair_to_ns(r->clock, r->start, r->end, &ev.ts_ns, &end);
        ev.dur_ns = end - ev.ts_ns;
        if (ev.dur_ns < 0)
            ev.dur_ns = 0;
    }
    ev.inv = r->inv;
    ev.hid = r->hid;
    ev.depth = r->depth;
    ev.truncated = (r->flags & STINT_I_F_TRUNC) != 0;
    ev.autoclosed = (r->flags & STINT_I_F_AUTOCLOSED) != 0;
    ev.pid = stint_i_pid();
    ev.tid = t->tid;
    ev.thread_name = t->name;
    ev.thread_handle = t->handle;
    *out = ev;
}
