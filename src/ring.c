/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the flight recorder: a bounded capture of the last N closed host
 * spans, fed as a stint_i_sink, exported as Chrome/Perfetto JSON and, on a
 * crash, dumped by a signal handler (docs/formats/session-jsonl.md, 3).
 *
 * Invariants:
 * - Each span is encoded once, when it arrives, into a fixed 512-byte slot
 *   (its Chrome X event text plus the fields stint_ring_event exposes), so
 *   the export and the crash dump only copy bytes.
 * - Slots are written with the drain lock held. A slot's text_len is set
 *   to 0 before its bytes change and published (release) after; `head`
 *   (spans ever stored) is published after the slot. The crash handler
 *   reads head and each text_len with acquire and skips a slot whose length
 *   is 0 (counted as torn).
 * - When the ring is full the oldest span goes and `dropped` grows by one:
 *   dropped == spans offered - spans kept, exactly.
 * - The crash handler uses only async-signal-safe calls (open, write,
 *   close, getpid, sigaction, raise) and no allocation, then hands the
 *   signal to the previous handler (or the default action).
 */
#include "stint/session.h"

#include "internal.h"
#include "jsonbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define RING_THREADS 64
#define RING_NAME_MAX 64

static const char k_ring_measurement[] =
    "host-observed span latency: CLOCK_MONOTONIC read at span begin and end on the recording thread, "
    "including instrumentation and scheduling overhead; not device timestamps";

typedef struct ring_slot {
    _Atomic uint32_t text_len; /* 0: empty or being written */
    int32_t pid;
    int32_t tid;
    int32_t depth;
    int64_t ts_ns; /* since the ring's start */
    int64_t dur_ns;
    char name[RING_NAME_MAX]; /* NUL-terminated, cut to fit */
    char text[STINT_RING_SLOT_BYTES - 32 - RING_NAME_MAX];
} ring_slot;
_Static_assert(sizeof(ring_slot) == STINT_RING_SLOT_BYTES, "ring slot size is part of the API");

typedef struct ring_thread {
    int32_t pid, tid;
    uint32_t len;
    char text[244]; /* its thread_name M event */
} ring_thread;

struct stint_ring_capture {
    stint_i_sink sink; /* first: callbacks cast back */
    ring_slot *slots;
    size_t cap;
    _Atomic uint64_t head; /* spans stored since start */
    _Atomic uint64_t dropped;
    uint64_t skipped_before;
    uint64_t skipped_device;
    uint64_t cut; /* spans whose text had to be shortened */
    /* spans lost in full thread buffers while the ring ran (never reached it):
     * the window's holes, said in the document */
    _Atomic uint64_t lost;
    _Atomic int64_t lost_first_ns, lost_last_ns;
    int64_t t0_ns;
    int stopped;
    ring_thread threads[RING_THREADS];
    _Atomic uint32_t nthreads;
};

static pthread_mutex_t g_ring_lock = PTHREAD_MUTEX_INITIALIZER;
static stint_ring_capture *_Atomic g_ring; /* the running ring, for the crash handler */

/* ---- recording (drain lock held) --------------------------------------------------- */

static void remember_thread(stint_ring_capture *r, const stint_i_event *ev)
{
    uint32_t n = atomic_load_explicit(&r->nthreads, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++)
        if (r->threads[i].tid == ev->tid && r->threads[i].pid == ev->pid)
            return;
    if (n == RING_THREADS)
        return; /* names are hints; the events still carry pid and tid */
    ring_thread *t = &r->threads[n];
    t->pid = ev->pid;
    t->tid = ev->tid;
    char fallback[32];
    const char *name = ev->thread_name;
    if (!name || !*name) {
        snprintf(fallback, sizeof fallback, ev->tid == ev->pid ? "main (tid %d)" : "thread %d", (int)ev->tid);
        name = fallback;
    }
    stint_i_jbuf b;
    stint_i_jb_fixed(&b, t->text, sizeof t->text);
    stint_i_chrome_meta(&b, "thread_name", ev->pid, ev->tid, "name", name, 0);
    if (!stint_i_jb_ok(&b))
        return;
    t->len = (uint32_t)b.len;
    atomic_store_explicit(&r->nthreads, n + 1, memory_order_release);
}

static void ring_event(stint_i_sink *s, const stint_i_event *ev)
{
    stint_ring_capture *r = (stint_ring_capture *)s;
    if (r->stopped)
        return;
    if (ev->kind != STINT_I_REC_SPAN) {
        r->skipped_device++;
        return;
    }
    if (ev->ts_ns < r->t0_ns) {
        r->skipped_before++;
        return;
    }
    remember_thread(r, ev);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    ring_slot *slot = &r->slots[head % r->cap];
    atomic_store_explicit(&slot->text_len, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release); /* the handler must see 0 before new bytes */
    slot->pid = ev->pid;
    slot->tid = ev->tid;
    slot->depth = ev->depth;
    slot->ts_ns = ev->ts_ns - r->t0_ns;
    slot->dur_ns = ev->dur_ns;
    size_t nl = ev->name_len < RING_NAME_MAX - 1 ? ev->name_len : RING_NAME_MAX - 1;
    memcpy(slot->name, ev->name, nl);
    slot->name[nl] = '\0';
    stint_i_jbuf b;
    stint_i_jb_fixed(&b, slot->text, sizeof slot->text);
    stint_i_chrome_x(&b, ev, r->t0_ns, -1, 1);
    if (!stint_i_jb_ok(&b)) {
        /* too long with its attributes: keep the span, cut name and args */
        stint_i_event cut = *ev;
        cut.name = slot->name;
        cut.name_len = nl < 32 ? nl : 32; /* 32 escaped bytes and no args always fit */
        stint_i_jb_fixed(&b, slot->text, sizeof slot->text);
        stint_i_chrome_x(&b, &cut, r->t0_ns, -1, 0);
        r->cut++;
    }
    if (head >= r->cap)
        atomic_store_explicit(&r->dropped, atomic_load_explicit(&r->dropped, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    atomic_store_explicit(&slot->text_len, stint_i_jb_ok(&b) ? (uint32_t)b.len : 0, memory_order_release);
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

static void ring_close(stint_i_sink *s) { ((stint_ring_capture *)s)->stopped = 1; }

static void ring_dropped(stint_i_sink *s, const stint_i_drop *d)
{
    stint_ring_capture *r = (stint_ring_capture *)s;
    if (!d->count)
        return;
    if (!atomic_load_explicit(&r->lost, memory_order_relaxed) ||
        d->first_ts_ns < atomic_load_explicit(&r->lost_first_ns, memory_order_relaxed))
        atomic_store_explicit(&r->lost_first_ns, d->first_ts_ns, memory_order_relaxed);
    if (d->last_ts_ns > atomic_load_explicit(&r->lost_last_ns, memory_order_relaxed))
        atomic_store_explicit(&r->lost_last_ns, d->last_ts_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->lost, d->count, memory_order_release);
}

static void ring_atfork_child(stint_i_sink *s)
{
    /* the parent's spans are not the child's: start the child's capture empty */
    stint_ring_capture *r = (stint_ring_capture *)s;
    atomic_store(&r->head, 0);
    atomic_store(&r->dropped, 0);
    atomic_store(&r->lost, 0);
    atomic_store(&r->nthreads, 0);
    r->skipped_before = r->skipped_device = r->cut = 0;
}

/* ---- the document (async-signal-safe) ------------------------------------------------ */

typedef struct out_buf {
    int fd;
    int err;
    size_t len;
    char buf[8192];
} out_buf;

static void ob_flush(out_buf *o)
{
    if (o->len && !o->err)
        o->err = stint_i_write_all(o->fd, o->buf, o->len);
    o->len = 0;
}

static void ob_put(out_buf *o, const char *p, size_t n)
{
    if (o->len + n > sizeof o->buf)
        ob_flush(o);
    if (n > sizeof o->buf) {
        if (!o->err)
            o->err = stint_i_write_all(o->fd, p, n);
        return;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static void ob_lit(out_buf *o, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    ob_put(o, s, n);
}

static void ob_u64(out_buf *o, uint64_t v)
{
    char tmp[24];
    ob_put(o, tmp, stint_i_fmt_u64(tmp, v));
}

/* Writes the ring as one Chrome JSON document to fd through the buffer ob;
 * crash_signal 0 for a normal export. Returns 0 or an errno. Only
 * async-signal-safe calls, and a few hundred bytes of stack (the crash
 * handler runs on whatever alternate signal stack the program gave it:
 * SIGSTKSZ is ~13 KB here, and the kernel's signal frame takes ~3.4 KB). */
static int ring_write_doc(int fd, stint_ring_capture *r, int crash_signal, out_buf *ob)
{
#define o (*ob)
    o.fd = fd;
    o.err = 0;
    o.len = 0;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t first = head > r->cap ? head - r->cap : 0;
    uint64_t torn = 0;
    for (uint64_t i = first; i < head; i++)
        if (atomic_load_explicit(&r->slots[i % r->cap].text_len, memory_order_acquire) == 0)
            torn++;
    ob_lit(&o, "{\"displayTimeUnit\":\"ns\",\"dropped_events\":");
    ob_u64(&o, atomic_load_explicit(&r->dropped, memory_order_relaxed));
    ob_lit(&o, ",\"measurement\":\"");
    ob_lit(&o, k_ring_measurement);
    ob_lit(&o, "\",\"metadata\":{\"capacity\":");
    ob_u64(&o, r->cap);
    ob_lit(&o, ",\"clock\":\"CLOCK_MONOTONIC\"");
    if (crash_signal) {
        ob_lit(&o, ",\"crash_signal\":");
        ob_u64(&o, (uint64_t)crash_signal);
    }
    uint64_t lost = atomic_load_explicit(&r->lost, memory_order_acquire);
    ob_lit(&o, ",\"lost_in_thread_buffers\":");
    ob_u64(&o, lost);
    if (lost) { /* (CLOCK_MONOTONIC ns, as origin_monotonic_ns) */
        ob_lit(&o, ",\"lost_first_ts_ns\":");
        ob_u64(&o, (uint64_t)atomic_load_explicit(&r->lost_first_ns, memory_order_relaxed));
        ob_lit(&o, ",\"lost_last_ts_ns\":");
        ob_u64(&o, (uint64_t)atomic_load_explicit(&r->lost_last_ns, memory_order_relaxed));
    }
    ob_lit(&o, ",\"origin_monotonic_ns\":");
    ob_u64(&o, (uint64_t)r->t0_ns);
    ob_lit(&o, ",\"schema\":\"stint/ring/1\",\"skipped_before_start\":");
    ob_u64(&o, r->skipped_before);
    ob_lit(&o, ",\"skipped_device\":");
    ob_u64(&o, r->skipped_device);
    ob_lit(&o, ",\"spans_cut\":");
    ob_u64(&o, r->cut);
    ob_lit(&o, ",\"torn_slots\":");
    ob_u64(&o, torn);
    ob_lit(&o, "},\"traceEvents\":[");
    int any = 0;
    uint32_t nt = atomic_load_explicit(&r->nthreads, memory_order_acquire);
    for (uint32_t i = 0; i < nt; i++) {
        ob_lit(&o, any ? ",\n" : "\n");
        ob_put(&o, r->threads[i].text, r->threads[i].len);
        any = 1;
    }
    for (uint64_t i = first; i < head; i++) {
        ring_slot *s = &r->slots[i % r->cap];
        uint32_t len = atomic_load_explicit(&s->text_len, memory_order_acquire);
        if (!len || len > sizeof s->text)
            continue;
        ob_lit(&o, any ? ",\n" : "\n");
        ob_put(&o, s->text, len);
        any = 1;
    }
    ob_lit(&o, "\n]}\n");
    ob_flush(&o);
    return o.err;
#undef o
}

/* ---- public API ------------------------------------------------------------------------- */

stint_status stint_ring_start(size_t capacity)
{
    if (capacity == 0 || capacity > SIZE_MAX / sizeof(ring_slot))
        return STINT_E_INVAL;
    stint_i_init();
    pthread_mutex_lock(&g_ring_lock);
    if (atomic_load(&g_ring)) {
        pthread_mutex_unlock(&g_ring_lock);
        return STINT_E_BUSY;
    }
    stint_ring_capture *r = stint_i_calloc(sizeof *r);
    if (r && !(r->slots = stint_i_calloc(capacity * sizeof *r->slots))) {
        stint_i_free(r, sizeof *r);
        r = NULL;
    }
    if (!r) {
        pthread_mutex_unlock(&g_ring_lock);
        return STINT_E_NOMEM;
    }
    r->cap = capacity;
    r->t0_ns = stint_now_ns();
    r->sink.event = ring_event;
    r->sink.close = ring_close;
    r->sink.dropped = ring_dropped;
    r->sink.atfork_child = ring_atfork_child;
    atomic_store(&g_ring, r);
    stint_i_sink_add(&r->sink);
    stint_i_writer_start();
    pthread_mutex_unlock(&g_ring_lock);
    return STINT_OK;
}

stint_status stint_ring_finish(stint_ring_capture **out)
{
    if (!out)
        return STINT_E_INVAL;
    *out = NULL;
    pthread_mutex_lock(&g_ring_lock);
    stint_ring_capture *r = atomic_load(&g_ring);
    if (!r) {
        pthread_mutex_unlock(&g_ring_lock);
        return STINT_E_STATE;
    }
    stint_i_sink_remove(&r->sink); /* drains what threads recorded, then closes */
    atomic_store(&g_ring, NULL);
    pthread_mutex_unlock(&g_ring_lock);
    *out = r;
    return STINT_OK;
}

size_t stint_ring_capture_count(const stint_ring_capture *c)
{
    if (!c)
        return 0;
    uint64_t head = atomic_load(&((stint_ring_capture *)c)->head);
    return (size_t)(head < c->cap ? head : c->cap);
}

uint64_t stint_ring_capture_dropped(const stint_ring_capture *c)
{
    return c ? atomic_load(&((stint_ring_capture *)c)->dropped) : 0;
}

stint_status stint_ring_capture_event(const stint_ring_capture *c, size_t i, stint_ring_event *ev)
{
    if (!c || !ev || i >= stint_ring_capture_count(c))
        return STINT_E_INVAL;
    uint64_t head = atomic_load(&((stint_ring_capture *)c)->head);
    uint64_t first = head > c->cap ? head - c->cap : 0;
    const ring_slot *s = &c->slots[(first + i) % c->cap];
    ev->name = s->name;
    ev->ts_ns = s->ts_ns;
    ev->dur_ns = s->dur_ns;
    ev->pid = s->pid;
    ev->tid = s->tid;
    ev->depth = s->depth;
    return STINT_OK;
}

stint_status stint_ring_capture_write_chrome(const stint_ring_capture *c, const char *path)
{
    if (!c || !path)
        return STINT_E_INVAL;
    out_buf *ob = stint_i_alloc(sizeof *ob);
    if (!ob)
        return STINT_E_NOMEM;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        stint_i_free(ob, sizeof *ob);
        return STINT_E_IO;
    }
    int err = ring_write_doc(fd, (stint_ring_capture *)c, 0, ob);
    stint_i_free(ob, sizeof *ob);
    if (close(fd) != 0 && !err)
        err = errno;
    return err ? STINT_E_IO : STINT_OK;
}

void stint_ring_capture_free(stint_ring_capture *c)
{
    if (!c)
        return;
    stint_i_free(c->slots, c->cap * sizeof *c->slots);
    stint_i_free(c, sizeof *c);
}

/* ---- the crash dump ------------------------------------------------------------------------- */

static const int k_crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NSIG_CRASH (sizeof k_crash_signals / sizeof k_crash_signals[0])
static struct sigaction g_prev[NSIG_CRASH];
static int g_installed;
static char g_dump_path[4096 + 24];
static pid_t g_dump_pid;
static _Atomic int g_dumping;
/* the dump's path and output buffer, static: the one handler that dumps
 * (g_dumping) owns them, and they stay off the signal stack */
static char g_crash_path[sizeof g_dump_path + 24];
static out_buf g_crash_ob;

static void crash_handler(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    if (!atomic_exchange(&g_dumping, 1)) {
        stint_ring_capture *r = atomic_load(&g_ring);
        if (r) {
            char *path = g_crash_path;
            size_t n = 0;
            while (g_dump_path[n]) {
                path[n] = g_dump_path[n];
                n++;
            }
            pid_t pid = getpid();
            if (pid != g_dump_pid) { /* a forked child must not overwrite the parent's dump */
                path[n++] = '.';
                n += stint_i_fmt_u64(path + n, (uint64_t)pid);
            }
            path[n] = '\0';
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                (void)ring_write_doc(fd, r, sig, &g_crash_ob);
                close(fd);
            }
        }
    }
    /* hand the signal on */
    size_t k = 0;
    while (k < NSIG_CRASH && k_crash_signals[k] != sig)
        k++;
    if (k < NSIG_CRASH) {
        struct sigaction *prev = &g_prev[k];
        if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
            errno = saved;
            prev->sa_sigaction(sig, info, uctx);
            return;
        }
        if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN && prev->sa_handler) {
            errno = saved;
            prev->sa_handler(sig);
            return;
        }
    }
    /* default action: restore it and deliver the signal again (it stays
     * pending until this handler returns; a fault re-executes and faults) */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

stint_status stint_ring_crash_dump_enable(const char *path)
{
    if (!path || strlen(path) > 4095)
        return STINT_E_INVAL;
    pthread_mutex_lock(&g_ring_lock);
    snprintf(g_dump_path, sizeof g_dump_path, "%s", path);
    g_dump_pid = getpid();
    stint_status st = STINT_OK;
    if (!g_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = crash_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        size_t i = 0;
        for (; i < NSIG_CRASH; i++)
            if (sigaction(k_crash_signals[i], &sa, &g_prev[i]) != 0)
                break;
        if (i < NSIG_CRASH) {
            while (i--)
                sigaction(k_crash_signals[i], &g_prev[i], NULL);
            st = STINT_E_IO;
        } else {
            g_installed = 1;
        }
    }
    pthread_mutex_unlock(&g_ring_lock);
    return st;
}

void stint_ring_crash_dump_disable(void)
{
    pthread_mutex_lock(&g_ring_lock);
    if (g_installed) {
        for (size_t i = 0; i < NSIG_CRASH; i++)
            sigaction(k_crash_signals[i], &g_prev[i], NULL);
        g_installed = 0;
    }
    pthread_mutex_unlock(&g_ring_lock);
}
