/* SPDX-License-Identifier: MIT */
/*
 * exit_report.c - what the exit handler (writer.c) says on stderr: spans
 * dropped or not written, and spans still open. Each message goes out only
 * if stderr takes it within 100 ms, so a pipe nobody reads never holds the
 * exit, and a reader that has gone never kills the process.
 */
#include "jsonbuf.h"
#include "thread.h"

#include <poll.h>
#include <stdio.h>
#include <time.h>

/* At exit, writes msg (n bytes as snprintf counted them into cap) to stderr
 * if it takes it within 100 ms: a pipe nobody reads must not hold the exit
 * (a line under PIPE_BUF goes in whole once poll says there is room), and a
 * reader that has gone must not kill the process (SIGPIPE is blocked for the
 * write). */
void stint_i_exit_say(const char *msg, int n, size_t cap)
{
    if (n <= 0)
        return;
    struct pollfd pf = {.fd = 2, .events = POLLOUT};
    if (poll(&pf, 1, 100) == 1 && (pf.revents & POLLOUT))
        (void)stint_i_write_all(2, msg, (size_t)n < cap ? (size_t)n : cap - 1);
}

/* At exit: the spans still open in the process's threads (other threads
 * running on, or the exiting one's after stint_shutdown()): never ended, so
 * never recorded, since a span is written at its end. Counted from each
 * live thread's depth (relaxed loads: a snapshot while they run on) and
 * said on stderr; nothing when none is open or the registry is held past
 * 100 ms. */
void stint_i_open_spans_report(void)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl); /* (the pthread timed waits' clock) */
    dl.tv_nsec += 100000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    stint_i_busy_inc();
    if (pthread_mutex_timedlock(&stint_i_registry_lock, &dl) != 0) {
        stint_i_busy_dec();
        return;
    }
    uint64_t spans = 0, threads = 0;
    for (stint_i_thread *t = stint_i_threads; t; t = t->next) {
        if (atomic_load_explicit(&t->dead, memory_order_acquire))
            continue;
        uint64_t n = (uint64_t)__atomic_load_n(&t->depth, __ATOMIC_RELAXED) +
                     __atomic_load_n(&t->deep, __ATOMIC_RELAXED);
        spans += n;
        threads += n != 0;
    }
    pthread_mutex_unlock(&stint_i_registry_lock);
    stint_i_busy_dec();
    if (!spans)
        return;
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "stint: %llu span%s still open in %llu thread%s at exit, never recorded (a span is written "
                     "when it ends)\n",
                     (unsigned long long)spans, spans == 1 ? "" : "s", (unsigned long long)threads,
                     threads == 1 ? "" : "s");
    stint_i_exit_say(msg, n, sizeof msg);
}

/* At exit: says on stderr what was dropped (sig of s->spans_dropped by
 * signal handlers) and what a sink could not write (why: its reason). */
void stint_i_exit_losses(const stint_stats *s, uint64_t sig, stint_status st, const char *why)
{
    char msg[768];
    uint64_t other = s->spans_dropped - sig;
    int n = 0;
    if (other && s->drop_first_ts_ns)
        n = snprintf(msg, sizeof msg,
                     "stint: %llu of %llu spans dropped (thread buffers full, between ts=%lld and ts=%lld; "
                     "raise STINT_BUFFER_MAX_MB)\n",
                     (unsigned long long)other, (unsigned long long)(s->spans_dropped + s->spans_recorded),
                     (long long)s->drop_first_ts_ns, (long long)s->drop_last_ts_ns);
    else if (other) /* only spans of threads without a buffer, or drained with no sink left */
        n = snprintf(msg, sizeof msg,
                     "stint: %llu spans dropped (no memory for a thread buffer, or recorded after stint_shutdown)\n",
                     (unsigned long long)other);
    stint_i_exit_say(msg, n, sizeof msg);
    if (sig) {
        n = snprintf(msg, sizeof msg,
                     "stint: %llu spans begun in signal handlers were not recorded (the handler interrupted the "
                     "library on its thread; counted as dropped)\n",
                     (unsigned long long)sig);
        stint_i_exit_say(msg, n, sizeof msg);
    }
    if (st != STINT_OK || s->sink_error != STINT_OK) {
        n = snprintf(msg, sizeof msg, "stint: markers not fully written at exit: %s (%llu spans lost)\n", why,
                     (unsigned long long)s->sink_spans_lost);
        stint_i_exit_say(msg, n, sizeof msg);
    }
}
