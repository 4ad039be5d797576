/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the thread registry, the drain, the background writer thread,
 * flush/shutdown, fork and exit handling, and the library's counters.
 *
 * Locks: the drain lock serialises every drain and every sink call; the
 * registry lock guards list insertion, the free list and the retired
 * counters. Order: drain lock before registry lock. Threads are inserted at
 * the head of the registry (registry lock) and removed only by a drain (both
 * locks), so a drain may walk the list from a snapshot of its head.
 *
 * Exit: an atexit handler drains once more with a bounded wait. Thread
 * buffers are never freed at exit, so threads still running while the
 * process exits keep writing into valid memory.
 *
 * Fork: the child keeps only the forking thread, drops every record the
 * parent had not written, re-reads pid and tid, tells the sinks, and starts
 * its own writer.
 */
#include "jsonbuf.h"
#include "thread.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern _Atomic uint64_t stint_i_dropped_noalloc;
extern _Atomic uint64_t stint_i_attrs_dropped_nothread;
void stint_i_tls_forget(void);

pthread_mutex_t stint_i_registry_lock = PTHREAD_MUTEX_INITIALIZER;
stint_i_thread *stint_i_threads;

static pthread_mutex_t g_drain_lock = PTHREAD_MUTEX_INITIALIZER;
static stint_i_thread *g_free_threads;
static stint_i_sink *g_sinks;
uint64_t stint_i_sinks_gen;
static pthread_key_t g_thread_key;
static pthread_once_t g_init_once = PTHREAD_ONCE_INIT;
static int32_t g_pid;
static long g_period_ms = 10;
/* The most record bytes of one thread a pass of the writer drains before it
 * lets the drain lock go (a burst's backlog is drained in passes). */
#define WRITER_PASS_BYTES (4u << 20)
static long g_exit_ms = 2000;

static pthread_mutex_t g_writer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_writer_cond;
static pthread_t g_writer;
static int g_writer_running;
static int g_writer_stop;
static _Atomic int g_shut_down;
/* The final drain at shutdown runs on the writer thread (g_writer_lock):
 * asked for (g_final_asked), then done, with its status. */
static pthread_cond_t g_final_cond = PTHREAD_COND_INITIALIZER;
static int g_final_asked, g_final_done;
static stint_status g_final_status;

/* The registry and writer locks, held with the thread's stint_i_busy count
 * up, so a signal handler on this thread never waits for them (thread.h). */
static void reg_lock(void)
{
    stint_i_busy_inc();
    pthread_mutex_lock(&stint_i_registry_lock);
}
static void reg_unlock(void)
{
    pthread_mutex_unlock(&stint_i_registry_lock);
    stint_i_busy_dec();
}
static void wr_lock(void)
{
    stint_i_busy_inc();
    pthread_mutex_lock(&g_writer_lock);
}
static void wr_unlock(void)
{
    pthread_mutex_unlock(&g_writer_lock);
    stint_i_busy_dec();
}

/* Counters of threads that exited and were recycled. */
static struct {
    uint64_t recorded, dropped, written, autoclosed, too_deep, attrs_dropped, truncated, threads;
    uint64_t sig_dropped; /* of dropped: begun by a handler inside the library (span.c) */
} g_retired;
static int64_t g_drop_first_ns, g_drop_last_ns; /* drain lock */

int32_t stint_i_pid(void) { return g_pid; }

static int32_t os_tid(void) { return (int32_t)syscall(SYS_gettid); }

static void thread_exit(void *p);
static void atfork_prepare(void);
static void atfork_parent(void);
static void atfork_child(void);
static void at_exit(void);

static void init_once(void)
{
    /* (STINT=0 is applied once, at load: stint_i_load below; applied here
     * again, it undid a stint_set_enabled(1) made before the first span) */
    stint_i_chain_config();
    g_period_ms = stint_i_env_long("STINT_FLUSH_MS", 10, 1, 3600000);
    g_exit_ms = stint_i_env_long("STINT_EXIT_FLUSH_MS", 2000, 0, 600000);
    g_pid = (int32_t)getpid();
    stint_i_clock_anchor(NULL, NULL);
    /* CLOCK_REALTIME deadlines: a clock step only shortens or stretches one
     * period, and sanitizers' interceptors honour this clock reliably */
    pthread_cond_init(&g_writer_cond, NULL);
    pthread_key_create(&g_thread_key, thread_exit);
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    atexit(at_exit);
}

void stint_i_init(void)
{
    stint_i_busy_inc(); /* (a handler on this thread must not wait for the once it is inside) */
    pthread_once(&g_init_once, init_once);
    stint_i_busy_dec();
}

/* Runs when the library is loaded, so STINT=0 holds before the first span. */
__attribute__((constructor)) static void stint_i_load(void)
{
    const char *on = getenv("STINT");
    if (on && !strcmp(on, "0"))
        __atomic_store_n(&stint_g_enabled, 0, __ATOMIC_RELAXED);
}

/* ---- registry ------------------------------------------------------------------ */

stint_i_thread *stint_i_thread_register(void)
{
    stint_i_init();
    reg_lock();
    stint_i_thread *t = g_free_threads;
    if (t) {
        g_free_threads = t->next;
        stint_i_thread_clear(t);
    } else {
        t = stint_i_alloc(sizeof *t);
        stint_i_chunk *home = t ? stint_i_alloc(sizeof(stint_i_chunk) + stint_i_chunk_bytes) : NULL;
        if (!home) {
            stint_i_free(t, sizeof *t);
            reg_unlock();
            return NULL;
        }
        memset(t, 0, sizeof *t);
        stint_i_chain_init(t, home);
    }
    /* each thread's span generations start elsewhere (an odd step: the
     * first 2^24 threads all differ), so the handle of one thread's span is
     * not taken for an open span of another's (every thread's first span
     * was 0x101) */
    static uint32_t thread_seq;
    t->gen = (thread_seq++ * 0x9E3779u) & 0xFFFFFFu;
    t->tid = os_tid();
    t->grew_at_ns = stint_i_mono_ns(); /* (quiet since it started: its inherited free chunks are kept a while) */
    t->handle = (uint64_t)pthread_self();
    if (pthread_getname_np(pthread_self(), t->name, sizeof t->name) != 0)
        t->name[0] = '\0';
    t->next = stint_i_threads;
    stint_i_threads = t;
    g_retired.threads++;
    reg_unlock();
    pthread_setspecific(g_thread_key, t);
    stint_i_writer_start();
    return t;
}

void stint_i_thread_recycle(stint_i_thread *t)
{
    g_retired.recorded += t->written;
    g_retired.dropped += atomic_load(&t->dropped) + atomic_load(&t->sig_dropped) + t->discarded;
    g_retired.sig_dropped += atomic_load(&t->sig_dropped);
    g_retired.written += t->written;
    g_retired.autoclosed += atomic_load(&t->autoclosed);
    g_retired.too_deep += atomic_load(&t->too_deep);
    g_retired.attrs_dropped += atomic_load(&t->attrs_dropped);
    g_retired.truncated += atomic_load(&t->truncated);
    /* its free chunks stay with the state for the next thread that
     * registers (the most recently freed state is taken first), until the
     * writer gives them back (free_states_trim) */
    t->freed_at_ns = stint_i_mono_ns();
    t->next = g_free_threads;
    g_free_threads = t;
}

/* Gives back the free chunks of thread states that have been on the free
 * list for `quiet_ns` (registry lock held): a thread that starts soon after
 * another exited records into chunks already touched. */
static void free_states_trim(int64_t now, int64_t quiet_ns)
{
    for (stint_i_thread *t = g_free_threads; t; t = t->next)
        if (atomic_load_explicit(&t->nspare, memory_order_relaxed) && now - t->freed_at_ns >= quiet_ns)
            stint_i_chain_trim(t, 0);
}

/* pthread key destructor: closes spans left open (counted as autoclosed) and
 * marks the state dead; the next drain writes what is left and recycles it. */
static void thread_exit(void *p)
{
    stint_i_thread *t = p;
    if (t->depth)
        stint_i_close_all_open();
    atomic_store_explicit(&t->dead, 1, memory_order_release);
    stint_i_tls_forget();
}

/* ---- sinks ------------------------------------------------------------------------ */

void stint_i_sink_add(stint_i_sink *s)
{
    stint_i_init();
    pthread_mutex_lock(&g_drain_lock);
    s->next = g_sinks;
    g_sinks = s;
    stint_i_sinks_gen++;
    pthread_mutex_unlock(&g_drain_lock);
}

static void drain_locked(void);
static int drain_pass(uint64_t budget, int writer);

void stint_i_drain_lock(void) { pthread_mutex_lock(&g_drain_lock); }
stint_i_sink *stint_i_sinks(void) { return g_sinks; }
void stint_i_drain_unlock(void) { pthread_mutex_unlock(&g_drain_lock); }
void stint_i_drain_locked(void) { drain_locked(); }

void stint_i_sink_link_locked(stint_i_sink *s)
{
    s->next = g_sinks;
    g_sinks = s;
    stint_i_sinks_gen++;
}

/* Spans lost by sinks removed since start (stint_i_sink_remove): their
 * count outlives them. Under g_drain_lock. */
static uint64_t g_lost_retired;

/* Closes an unlinked sink, keeping its count of lost spans. Under g_drain_lock. */
static void sink_close_locked(stint_i_sink *s)
{
    if (s->lost)
        g_lost_retired += s->lost(s);
    if (s->close)
        s->close(s);
}

void stint_i_sink_remove(stint_i_sink *s)
{
    pthread_mutex_lock(&g_drain_lock);
    drain_locked();
    for (stint_i_sink **pp = &g_sinks; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            stint_i_sinks_gen++;
            break;
        }
    }
    if (s->flush)
        s->flush(s);
    sink_close_locked(s);
    pthread_mutex_unlock(&g_drain_lock);
}

/* ---- the drain ------------------------------------------------------------------------ */

/* Hands record r of t to every sink: raw to those that take it so, decoded
 * (once, when the first sink asks) to the others. */
static void emit(stint_i_thread *t, const stint_i_rec *r, const stint_i_rec_src *src)
{
    stint_i_attr_view views[STINT_ATTR_MAX];
    stint_i_event ev;
    int decoded = 0;
    for (stint_i_sink *s = g_sinks; s; s = s->next) {
        if (s->raw && s->raw(s, r, src))
            continue;
        if (!s->event)
            continue;
        if (!decoded) {
            stint_i_decode(t, r, &ev, views);
            decoded = 1;
        }
        s->event(s, &ev);
    }
}

/* Hands t's records to the sinks, at most about `budget` bytes of them
 * (the writer's passes leave the rest for the next one, so that the drain
 * lock is let go between them), then reports its drops. With full_only, only
 * the records of chunks the producer has left (the writer's passes while
 * the thread is busy: reading right behind the producer would move the
 * cache lines it writes to and fro). Returns 1 when records were left that
 * the pass could have drained but for its budget. */
static int drain_thread(stint_i_thread *t, uint64_t budget, int full_only)
{
    uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
    uint64_t published = head;
    if (head - tail > budget)
        head = tail + budget; /* (a bound to pass, not a record boundary: the loop ends after it) */
    int open_chunk = 0;
    const stint_i_rec_src src = {g_pid, t->tid, t->name, t->handle};
    if (atomic_load_explicit(&t->claimed, memory_order_relaxed))
        head = published = tail; /* (its own flush formats them now, and writes them: stint_i_flush_own) */
    while (tail < head) {
        if (full_only && t->rpos < t->rchunk->cap && !atomic_load_explicit(&t->rchunk->next, memory_order_relaxed)) {
            open_chunk = 1;
            break;
        }
        const stint_i_rec *r = stint_i_chain_peek(t);
        t->rpos += r->size;
        if (r->kind != STINT_I_REC_PAD) {
            if (g_sinks) {
                emit(t, r, &src);
                t->written++;
            } else {
                t->discarded++; /* no sink left to take it: lost, and counted so */
            }
        }
        tail += r->size;
    }
    atomic_store_explicit(&t->tail, tail, memory_order_release);
    int left = !open_chunk && tail < published;
    /* Take the range first, then the count: a span dropped in between is in
     * the count and its time is a drop_last; its drop_first may then be left
     * set for the next report, which only widens that report's range. Each
     * clock has its own slots (thread.h); the range is the earliest first and
     * the latest last over the clocks, each converted with its own. Nothing
     * is written to the producer's lines unless it dropped since the last
     * report (the count is read first, a load only: a drop it misses is
     * seen by the next pass, its range slots still set). */
    if (atomic_load_explicit(&t->dropped, memory_order_relaxed) +
            atomic_load_explicit(&t->sig_dropped, memory_order_relaxed) == t->dropped_reported)
        return left;
    int64_t first_raw[STINT_I_NCLOCKS];
    for (int c = 0; c < STINT_I_NCLOCKS; c++)
        first_raw[c] = atomic_exchange_explicit(&t->drop_first[c], 0, memory_order_acq_rel);
    uint64_t dropped = atomic_load_explicit(&t->dropped, memory_order_acquire) +
                       atomic_load_explicit(&t->sig_dropped, memory_order_relaxed);
    if (dropped != t->dropped_reported) {
        int64_t first_ns = INT64_MAX, last_ns = INT64_MIN;
        for (int c = 0; c < STINT_I_NCLOCKS; c++) {
            int64_t last_raw = atomic_load_explicit(&t->drop_last[c], memory_order_relaxed);
            if (first_raw[c]) {
                int64_t ns = stint_i_clock_to_ns(c, first_raw[c]);
                first_ns = ns < first_ns ? ns : first_ns;
            }
            if (last_raw) {
                int64_t ns = stint_i_clock_to_ns(c, last_raw);
                last_ns = ns > last_ns ? ns : last_ns;
            }
        }
        if (last_ns == INT64_MIN) /* (a count seen before its time: cannot happen, the time is stored first) */
            last_ns = first_ns == INT64_MAX ? 0 : first_ns;
        if (first_ns > last_ns)
            first_ns = last_ns;
        stint_i_drop d = {g_pid, t->tid, dropped - t->dropped_reported, first_ns, last_ns};
        t->dropped_reported = dropped;
        /* (a report without a range, spans a signal handler began inside the
         * library, leaves the range of full buffers as it is) */
        if (d.first_ts_ns && (!g_drop_first_ns || d.first_ts_ns < g_drop_first_ns))
            g_drop_first_ns = d.first_ts_ns;
        if (d.last_ts_ns > g_drop_last_ns)
            g_drop_last_ns = d.last_ts_ns;
        for (stint_i_sink *s = g_sinks; s; s = s->next)
            if (s->dropped)
                s->dropped(s, &d);
    }
    return left;
}

/* What a pass of the writer thread found (drain_pass). */
enum {
    PASS_LEFT = 1,  /* records left for want of budget: pass again at once */
    PASS_SEALED = 2 /* a chunk a thread had filled was drained: it records fast, look again soon */
};

/* The writer's sleep while a thread fills chunks (PASS_SEALED), ms: a chunk
 * of 1 MiB holds 16,384 spans, 0.8 ms of a thread recording 20 M spans/s,
 * so that chunks are drained as they are filled and the few a thread
 * cycles through stay in the caches, instead of a period's worth (a dozen
 * at 10 ms) of memory the writer and the recording thread take from each
 * other. */
#define WRITER_BUSY_MS 1

/* One drain of every thread, at most `budget` bytes of records from each;
 * threads that exited are recycled once fully drained (drain lock held).
 * A pass of the writer thread (writer set) leaves alone the chunk a busy
 * thread writes now (one that linked a chunk within two periods): it takes
 * only the chunks that thread has filled, so that it never reads the cache
 * lines the thread is writing (each such read takes the line away from the
 * thread's core: its next store waits for it); a quiet thread's chunk is
 * drained as far as it is written. Free chunks kept for a burst are given
 * back once a thread has linked none for 25 periods (a chunk mapped again
 * costs the recording thread the first touch of its pages: ~3 ms a MiB on
 * the measurement machine). Whole drains (writer 0: a flush, the exit)
 * take everything. Returns PASS_* bits. */
static int drain_pass(uint64_t budget, int writer)
{
    int saved = errno;
    /* the destination STINT_MARKERS names, unless the program chose one: set
     * here, not only when the writer thread starts, so that a drain on another
     * thread before then (stint_flush, a new destination) writes the lines */
    stint_i_capture_default();
    stint_i_markers_default();
    stint_i_clock_calibrate_point();
    reg_lock();
    stint_i_thread *first = stint_i_threads;
    reg_unlock();
    int left = 0;
    /* a whole drain (a flush, the last one at exit) takes what every thread
     * had published when it began, all threads at once: read one thread at a
     * time, the ones read last would have had more time to add to theirs,
     * and busy threads that outrun the writer (their buffers grow) would
     * keep it going well past the moment asked for */
    if (budget == UINT64_MAX)
        for (stint_i_thread *t = first; t; t = t->next)
            t->drain_to = atomic_load_explicit(&t->head, memory_order_acquire) -
                          atomic_load_explicit(&t->tail, memory_order_relaxed);
    int64_t now = writer ? stint_i_mono_ns() : 0, period_ns = (int64_t)g_period_ms * 1000000;
    for (stint_i_thread *t = first; t; t = t->next) {
        int full_only = 0;
        if (writer) {
            uint64_t grew = atomic_load_explicit(&t->grew, memory_order_relaxed);
            if (grew != t->grew_seen) {
                t->grew_seen = grew;
                t->grew_at_ns = now;
            }
            full_only = t->grew_at_ns && now - t->grew_at_ns < 2 * period_ns;
            t->keep_free = t->grew_at_ns && now - t->grew_at_ns < 25 * period_ns;
        }
        uint64_t released = atomic_load_explicit(&t->released, memory_order_relaxed);
        if (drain_thread(t, budget == UINT64_MAX ? t->drain_to : budget, full_only))
            left |= PASS_LEFT;
        if (atomic_load_explicit(&t->released, memory_order_relaxed) != released) {
            left |= PASS_SEALED;
            /* (its quiet time starts once its backlog is drained: a thread
             * that stopped while the writer was behind keeps its chunks
             * for the next burst) */
            t->grew_at_ns = now;
        }
        if (writer && now - t->grew_at_ns >= 25 * period_ns)
            stint_i_chain_trim(t, 1);
    }
    /* recycle threads that exited and are fully written */
    reg_lock();
    if (writer)
        free_states_trim(now, 25 * period_ns);
    for (stint_i_thread **pp = &stint_i_threads; *pp;) {
        stint_i_thread *t = *pp;
        if (atomic_load_explicit(&t->dead, memory_order_acquire) && !drain_thread(t, budget, 0)) {
            *pp = t->next;
            stint_i_thread_recycle(t);
        } else {
            pp = &t->next;
        }
    }
    reg_unlock();
    for (stint_i_sink *s = g_sinks; s; s = s->next)
        if (s->flush)
            s->flush(s);
    errno = saved;
    return left;
}

/* Drains everything published so far (drain lock held). */
static void drain_locked(void) { (void)drain_pass(UINT64_MAX, 0); }

/* The spans the sinks could not write, removed ones included. Under g_drain_lock. */
static uint64_t sinks_lost(void)
{
    uint64_t n = g_lost_retired;
    for (stint_i_sink *s = g_sinks; s; s = s->next)
        n += s->lost ? s->lost(s) : 0;
    return n;
}

static stint_status sinks_error(void)
{
    for (stint_i_sink *s = g_sinks; s; s = s->next) {
        stint_status st = s->error ? s->error(s) : STINT_OK;
        if (st != STINT_OK)
            return st;
    }
    return STINT_OK;
}

stint_status stint_i_drain(void)
{
    pthread_mutex_lock(&g_drain_lock);
    drain_locked();
    stint_status st = sinks_error();
    pthread_mutex_unlock(&g_drain_lock);
    return st;
}

/* Threads whose own flush was formatting their records (claimed) while
 * this drain ran: their claim counts, to wait for (drain lock held). */
typedef struct {
    stint_i_thread *t;
    uint32_t seq;
} claim_seen;

static unsigned claims_now(claim_seen *out, unsigned cap)
{
    unsigned n = 0;
    for (stint_i_thread *t = stint_i_threads; t && n < cap; t = t->next)
        if (atomic_load_explicit(&t->claimed, memory_order_acquire))
            out[n++] = (claim_seen){t, atomic_load_explicit(&t->claim_seq, memory_order_acquire)};
    return n;
}

stint_status stint_flush(void)
{
    stint_i_init();
    stint_i_flush_own();
    /* then every thread's records; those another thread's own flush was
     * formatting meanwhile are written by it: waited for (the drain lock let
     * go: it needs it to write them), then drained again, so that whatever
     * was recorded before this call is written when it returns */
    claim_seen seen[16];
    pthread_mutex_lock(&g_drain_lock);
    drain_locked();
    reg_lock();
    unsigned n = claims_now(seen, 16);
    reg_unlock();
    if (n) {
        pthread_mutex_unlock(&g_drain_lock);
        for (unsigned i = 0; i < n; i++)
            while (atomic_load_explicit(&seen[i].t->claim_seq, memory_order_acquire) == seen[i].seq)
                sched_yield();
        pthread_mutex_lock(&g_drain_lock);
        drain_locked();
    }
    stint_status st = sinks_error();
    pthread_mutex_unlock(&g_drain_lock);
    return st;
}

/* CLOCK_REALTIME now + ms, for the pthread timed waits. */
static struct timespec deadline_in(long ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (ms % 1000) * 1000000L;
    dl.tv_sec += dl.tv_nsec / 1000000000L;
    dl.tv_nsec %= 1000000000L;
    return dl;
}

/* ---- the writer thread ------------------------------------------------------------------ */

/* The last drain: drains, then closes and unlinks every sink (their
 * trailers and close(2) are sink I/O too). Takes the drain lock, waiting
 * for it as long as it takes: run where nothing waits for it (the writer
 * thread), or bounded by timedlock (final_inline). */
static stint_status final_locked(void)
{
    drain_locked();
    stint_status st = sinks_error();
    while (g_sinks) {
        stint_i_sink *s = g_sinks;
        g_sinks = s->next;
        stint_i_sinks_gen++;
        sink_close_locked(s);
    }
    return st;
}

static void *writer_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals belong to the application */
    pthread_setname_np(pthread_self(), "stint-writer");
    /* (the default marker destination is set by the first drain, drain_locked) */
    stint_i_clock_try_tsc(); /* (takes the drain lock only to publish what it proved: drains go on meanwhile) */
    wr_lock();
    int more = 0, soon = 0;
    while (!g_writer_stop) {
        /* asleep for a period, unless the last pass left records or a
         * thread has two full chunks not drained (a burst): then at once;
         * while a thread fills chunks, for WRITER_BUSY_MS */
        if (!more) {
            struct timespec dl = deadline_in(soon && g_period_ms > WRITER_BUSY_MS ? WRITER_BUSY_MS : g_period_ms);
            pthread_cond_timedwait(&g_writer_cond, &g_writer_lock, &dl);
        }
        if (g_writer_stop)
            break;
        wr_unlock();
        atomic_store_explicit(&stint_i_writer_hurry, 0, memory_order_relaxed);
        pthread_mutex_lock(&g_drain_lock);
        int found = drain_pass(WRITER_PASS_BYTES, 1);
        pthread_mutex_unlock(&g_drain_lock);
        more = (found & PASS_LEFT) || atomic_load_explicit(&stint_i_writer_hurry, memory_order_relaxed);
        soon = (found & PASS_SEALED) != 0;
        wr_lock();
    }
    if (g_final_asked) {
        /* the shutdown's drain and close, here, so that the thread that asked
         * (the exit handler) waits for it with a bound whatever a sink does */
        wr_unlock();
        pthread_mutex_lock(&g_drain_lock);
        stint_status st = final_locked();
        pthread_mutex_unlock(&g_drain_lock);
        wr_lock();
        g_final_status = st;
        g_final_done = 1;
        pthread_cond_broadcast(&g_final_cond);
    }
    wr_unlock();
    return NULL;
}

void stint_i_writer_start(void)
{
    if (atomic_load(&g_shut_down))
        return;
    wr_lock();
    if (!g_writer_running) {
        g_writer_stop = 0;
        if (pthread_create(&g_writer, NULL, writer_main, NULL) == 0)
            g_writer_running = 1;
    }
    wr_unlock();
}

/* The last drain and close on the writer thread, waited for until dl
 * (CLOCK_REALTIME). Returns 0 when there is no writer thread to ask (or
 * the caller is it), else 1 with its status in *st: STINT_E_TIMEOUT when
 * it was not done by dl (a sink blocked in a write, a callback that
 * hangs): the writer is then detached and finishes on its own, or never. */
static int final_on_writer(const struct timespec *dl, stint_status *st)
{
    wr_lock();
    int running = g_writer_running && !pthread_equal(g_writer, pthread_self());
    if (running) {
        g_writer_stop = 1;
        g_final_asked = 1;
        pthread_cond_signal(&g_writer_cond);
        while (!g_final_done && pthread_cond_timedwait(&g_final_cond, &g_writer_lock, dl) != ETIMEDOUT)
            ;
        *st = g_final_done ? g_final_status : STINT_E_TIMEOUT;
        g_writer_running = 0;
    }
    wr_unlock();
    if (running && *st != STINT_E_TIMEOUT)
        pthread_join(g_writer, NULL); /* (it has done its work: it returns now) */
    else if (running)
        pthread_detach(g_writer);
    return running;
}

/* Stops the writer, drains and closes the sinks, all by dl: on the writer
 * thread when it runs, so that this thread never blocks in a sink; else
 * here, the drain lock waited for until dl (the sinks stay open when it is
 * not had by then). */
static stint_status shutdown_bounded(const struct timespec *dl)
{
    if (atomic_exchange(&g_shut_down, 1))
        return STINT_OK;
    stint_status st = STINT_OK;
    if (!final_on_writer(dl, &st)) {
        wr_lock();
        g_writer_stop = 1;
        wr_unlock();
        if (pthread_mutex_timedlock(&g_drain_lock, dl) != 0)
            return STINT_E_TIMEOUT;
        st = final_locked();
        pthread_mutex_unlock(&g_drain_lock);
    }
    if (st == STINT_E_TIMEOUT)
        return st;
    /* what is recorded from now on would never be written: stop recording */
    __atomic_store_n(&stint_g_enabled, 0, __ATOMIC_RELAXED);
    return st;
}

stint_status stint_shutdown(void)
{
    stint_i_init();
    struct timespec dl = deadline_in(g_exit_ms > 0 ? g_exit_ms : 1);
    return shutdown_bounded(&dl);
}

static void stats_locked(stint_stats *out);

/* Spans begun by signal handlers that interrupted the library on their
 * thread, never recorded (in spans_dropped). Drain lock held. */
static uint64_t sig_dropped_locked(void)
{
    reg_lock();
    uint64_t n = g_retired.sig_dropped + atomic_load(&stint_i_dropped_reentrant);
    for (stint_i_thread *t = stint_i_threads; t; t = t->next)
        n += atomic_load(&t->sig_dropped);
    reg_unlock();
    return n;
}

/* At exit: write what is left (bounded), then say so loudly if anything
 * was lost, since a silent gap is the worst outcome for a tracer. */
static void at_exit(void)
{
    if (g_exit_ms <= 0)
        return;
    /* one bound for all of it: a sink blocked in a write (a pipe nobody
     * reads, a callback that hangs) holds the drain lock, which the counters
     * need too */
    struct timespec dl = deadline_in(g_exit_ms);
    /* writes waiting for room keep to it too, with a fifth of it left for
     * the sinks to count what they could not write and for the message */
    atomic_store(&stint_i_write_deadline_ns, stint_i_mono_ns() + (int64_t)g_exit_ms * 800000);
    /* the exiting thread's open spans end here, flagged autoclosed, as at a
     * thread's exit (they were never written: exit() inside a span left its
     * children without their parent); not after an explicit shutdown, when
     * nothing would write them */
    if (!atomic_load(&g_shut_down))
        stint_i_close_all_open();
    stint_status st = shutdown_bounded(&dl);
    stint_stats s;
    char msg[768];
    if (pthread_mutex_timedlock(&g_drain_lock, &dl) != 0) {
        int n = snprintf(msg, sizeof msg,
                         "stint: markers not fully written at exit: a sink did not finish within "
                         "STINT_EXIT_FLUSH_MS=%ld\n", g_exit_ms);
        stint_i_exit_say(msg, n, sizeof msg); /* (the bound has passed: a moment more to say so) */
        return;
    }
    stats_locked(&s);
    uint64_t sig = sig_dropped_locked();
    char why[512];
    if (!stint_i_markers_why(why, sizeof why))
        snprintf(why, sizeof why, "%s", stint_strerror(st != STINT_OK ? st : s.sink_error));
    pthread_mutex_unlock(&g_drain_lock);
    stint_i_exit_losses(&s, sig, st, why);
    /* spans that ended after the last drain (after an explicit
     * stint_shutdown(), or in other threads while the exit drained): in
     * their buffers, never written; said, not lost silently */
    if (st == STINT_OK && s.sink_error == STINT_OK && s.spans_recorded > s.spans_written) {
        int n = snprintf(msg, sizeof msg,
                     "stint: %llu spans ended after the last drain and were not written (after stint_shutdown(), "
                     "or in other threads during the exit)\n",
                     (unsigned long long)(s.spans_recorded - s.spans_written));
        stint_i_exit_say(msg, n, sizeof msg);
    }
    stint_i_open_spans_report();
}

/* ---- fork ----------------------------------------------------------------------------------- */

static void atfork_prepare(void)
{
    wr_lock();
    pthread_mutex_lock(&g_drain_lock);
    reg_lock();
}

static void atfork_parent(void)
{
    reg_unlock();
    pthread_mutex_unlock(&g_drain_lock);
    wr_unlock();
}

static void atfork_child(void)
{
    pthread_mutex_init(&stint_i_registry_lock, NULL);
    pthread_mutex_init(&g_drain_lock, NULL);
    pthread_mutex_init(&g_writer_lock, NULL);
    pthread_cond_init(&g_final_cond, NULL);
    g_final_asked = g_final_done = 0;
    stint_i_busy_dec(); /* (the two locks atfork_prepare took, with the count up) */
    stint_i_busy_dec();
    g_pid = (int32_t)getpid();
    int32_t tid = os_tid();
    stint_i_thread *keep = NULL;
    stint_i_thread *t = stint_i_threads;
    while (t) {
        stint_i_thread *next = t->next;
        if (!keep && !atomic_load(&t->dead) && pthread_getspecific(g_thread_key) == t) {
            keep = t;
        } else {
            t->next = g_free_threads;
            g_free_threads = t;
        }
        t = next;
    }
    memset(&g_retired, 0, sizeof g_retired);
    atomic_store(&stint_i_dropped_noalloc, 0);
    atomic_store(&stint_i_dropped_reentrant, 0);
    atomic_store(&stint_i_attrs_dropped_nothread, 0);
    g_drop_first_ns = g_drop_last_ns = 0;
    g_lost_retired = 0;
    stint_i_threads = NULL;
    if (keep) {
        /* the child's records start empty; open frames and ids carry over */
        stint_i_chain_reset(keep);
        atomic_store(&keep->dropped, 0);
        atomic_store(&keep->sig_dropped, 0);
        for (int c = 0; c < STINT_I_NCLOCKS; c++) {
            atomic_store(&keep->drop_first[c], 0);
            atomic_store(&keep->drop_last[c], 0);
        }
        atomic_store(&keep->autoclosed, 0);
        atomic_store(&keep->too_deep, 0);
        atomic_store(&keep->attrs_dropped, 0);
        atomic_store(&keep->truncated, 0);
        keep->dropped_reported = 0;
        keep->written = 0;
        keep->discarded = 0;
        keep->tid = tid;
        keep->handle = (uint64_t)pthread_self();
        keep->next = NULL;
        stint_i_threads = keep;
        g_retired.threads = 1;
    }
    for (stint_i_sink *s = g_sinks; s; s = s->next)
        if (s->atfork_child)
            s->atfork_child(s);
    g_writer_running = 0;
    g_writer_stop = 0;
    if (!atomic_load(&g_shut_down) && keep)
        stint_i_writer_start();
}

/* ---- counters ----------------------------------------------------------------------------------- */

/* stint_get_stats with the drain lock held. */
static void stats_locked(stint_stats *out)
{
    memset(out, 0, sizeof *out);
    reg_lock();
    out->spans_recorded = g_retired.recorded;
    out->spans_dropped =
        g_retired.dropped + atomic_load(&stint_i_dropped_noalloc) + atomic_load(&stint_i_dropped_reentrant);
    out->spans_written = g_retired.written;
    out->spans_autoclosed = g_retired.autoclosed;
    out->spans_too_deep = g_retired.too_deep;
    out->attrs_dropped = g_retired.attrs_dropped + atomic_load(&stint_i_attrs_dropped_nothread);
    out->names_truncated = g_retired.truncated + stint_i_marker_lines_cut();
    out->threads = g_retired.threads;
    for (stint_i_thread *t = stint_i_threads; t; t = t->next) {
        out->spans_recorded += t->written + stint_i_chain_pending(t);
        out->spans_dropped += atomic_load(&t->dropped) + atomic_load(&t->sig_dropped) + t->discarded;
        out->spans_written += t->written;
        out->spans_autoclosed += atomic_load(&t->autoclosed);
        out->spans_too_deep += atomic_load(&t->too_deep);
        out->attrs_dropped += atomic_load(&t->attrs_dropped);
        out->names_truncated += atomic_load(&t->truncated);
    }
    reg_unlock();
    out->drop_first_ts_ns = g_drop_first_ns;
    out->drop_last_ts_ns = g_drop_last_ns;
    out->sink_error = sinks_error();
    out->sink_spans_lost = sinks_lost();
    out->clock_tsc = atomic_load(&stint_i_clock_mode) == STINT_I_CLOCK_TSC;
}

void stint_get_stats(stint_stats *out)
{
    if (!out)
        return;
    pthread_mutex_lock(&g_drain_lock);
    stats_locked(out);
    pthread_mutex_unlock(&g_drain_lock);
}
