/* SPDX-License-Identifier: MIT */
/*
 * selftrace.c - STINT_SELF_TRACE (see selftrace.h): libstint's flight
 * recorder, started before the command runs and written out after it.
 *
 * Invariants: stint_i_self_on is written once, before any other thread
 * exists, and only read after; without STINT_SELF_TRACE libstint is never
 * started, so an untraced run pays one load per span site; a recorder that
 * cannot start is a warning, never a failure of the command.
 */
#include "base/selftrace.h"

#include <stint/session.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Spans kept at most (the recorder keeps the last ones and counts the rest
 * as dropped): a 1 GB gzip trace makes ~4,500. libstint touches the whole
 * recorder when it starts (512 bytes a span), and each thread's buffer as
 * it records; both are kept small so that the traced run holds about the
 * memory it would otherwise (STINT_SELF_TRACE_SPANS and STINT_BUFFER_KB
 * change them). */
#define SELF_SPANS 8192
#define SELF_BUFFER_KB "256"

int stint_i_self_on;
static const char *self_path;
static stint_span self_command;

void stint_i_selftrace_start(const char *command)
{
    const char *path = getenv("STINT_SELF_TRACE");
    if (!path || !*path)
        return;
    const char *sp = getenv("STINT_SELF_TRACE_SPANS");
    long spans = sp && *sp ? strtol(sp, NULL, 10) : SELF_SPANS;
    if (spans < 16 || spans > (1L << 22))
        spans = SELF_SPANS;
    setenv("STINT_BUFFER_KB", SELF_BUFFER_KB, 0); /* (read when libstint starts, below; no thread runs yet) */
    stint_markers_off(); /* libstint's default marker lines on stderr: not wanted here */
    stint_status st = stint_ring_start((size_t)spans);
    if (st != STINT_OK) {
        fprintf(stderr, "stint: warning: STINT_SELF_TRACE: the recorder did not start (%s); not tracing\n",
                stint_strerror(st));
        return;
    }
    if (!stint_is_enabled())
        fprintf(stderr, "stint: warning: STINT_SELF_TRACE: libstint is switched off (STINT=0): no spans\n");
    self_path = path;
    stint_i_self_on = 1;
    stint_i_self_thread("stint");
    char name[STINT_NAME_COPY_MAX];
    int n = snprintf(name, sizeof name, "stint %s", command);
    self_command = stint_span_begin_copy(name, n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1);
}

void stint_i_self_rss(void)
{
    if (!stint_i_self_on)
        return;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, res;
    if (f && fscanf(f, "%llu %llu", &size, &res) == 2)
        stint_attr_i64("rss_kib", (int64_t)(res * (unsigned long long)sysconf(_SC_PAGESIZE) / 1024));
    if (f)
        fclose(f);
}

int64_t stint_i_self_cpu_ns(void)
{
    struct timespec t;
    if (!stint_i_self_on || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return 0;
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void stint_i_self_cend(struct stint_i_self_cspan *c)
{
    if (!c->span.token)
        return;
    stint_attr_i64("cpu_us", (stint_i_self_cpu_ns() - c->cpu0) / 1000);
    stint_span_end(c->span);
    c->span.token = 0;
}

void stint_i_self_thread(const char *name)
{
    if (stint_i_self_on)
        pthread_setname_np(pthread_self(), name); /* (at most 15 bytes; libstint reads it at the first span) */
}

int stint_i_selftrace_finish(void)
{
    if (!stint_i_self_on)
        return 0;
    stint_i_self_rss();
    stint_i_self_end(&self_command);
    stint_ring_capture *c = NULL;
    stint_status st = stint_ring_finish(&c);
    if (st == STINT_OK)
        st = stint_ring_capture_write_chrome(c, self_path);
    if (st != STINT_OK)
        fprintf(stderr, "stint: STINT_SELF_TRACE: %s: not written (%s)\n", self_path, stint_strerror(st));
    else {
        /* dropped: the oldest, past the recorder's size, and any a thread's full buffer lost */
        stint_stats ls;
        stint_get_stats(&ls);
        fprintf(stderr, "stint: self trace: %zu spans (%llu dropped) written to %s\n", stint_ring_capture_count(c),
                (unsigned long long)(stint_ring_capture_dropped(c) + ls.spans_dropped + ls.spans_too_deep),
                self_path);
    }
    stint_ring_capture_free(c);
    stint_i_self_on = 0;
    return st == STINT_OK ? 0 : 3;
}
