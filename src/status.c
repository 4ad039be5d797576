/* SPDX-License-Identifier: MIT */
/*
 * status.c - status strings, version and the allocator hook.
 *
 * Invariant: every allocation the library makes goes through stint_i_alloc /
 * stint_i_free, so tests can fail the Nth allocation and count leaks; the
 * one exception is the thread buffers' growth chunks, mapped by chain.c
 * (a signal handler may need one: no allocator lock may be taken there).
 */
#include "thread.h"

#include <stdlib.h>

const char *stint_strerror(stint_status status)
{
    switch (status) {
    case STINT_OK: return "ok";
    case STINT_E_NOMEM: return "out of memory";
    case STINT_E_INVAL: return "invalid argument";
    case STINT_E_IO: return "I/O error";
    case STINT_E_BUSY: return "busy: already running";
    case STINT_E_STATE: return "not valid in the current state";
    case STINT_E_SPAN_MISMATCH: return "span is not the innermost open span";
    case STINT_E_SPANS_OPEN: return "spans are still open";
    case STINT_E_TRUNCATED: return "value truncated";
    case STINT_E_UNSUPPORTED: return "not supported";
    case STINT_E_TIMEOUT: return "timed out";
    case STINT_E_NOT_FOUND: return "not found";
    }
    return "unknown status";
}

const char *stint_version(void) { return STINT_VERSION_STRING; }

static void *default_alloc(size_t size, void *user)
{
    (void)user;
    return malloc(size);
}

static void default_free(void *ptr, size_t size, void *user)
{
    (void)size;
    (void)user;
    free(ptr);
}

static stint_allocator g_alloc = {default_alloc, default_free, NULL};

void stint_set_allocator(const stint_allocator *a)
{
    if (a && a->alloc && a->free)
        g_alloc = *a;
    else
        g_alloc = (stint_allocator){default_alloc, default_free, NULL};
}

/* Allocations run with the thread marked inside the library (thread.h): a
 * signal handler on this thread then never registers the thread, which
 * would allocate inside this allocation. */
void *stint_i_alloc(size_t size)
{
    stint_i_busy_inc();
    void *p = g_alloc.alloc(size, g_alloc.user);
    stint_i_busy_dec();
    return p;
}

void *stint_i_calloc(size_t size)
{
    void *p = stint_i_alloc(size);
    if (p)
        memset(p, 0, size);
    return p;
}

void stint_i_free(void *ptr, size_t size)
{
    if (!ptr)
        return;
    stint_i_busy_inc();
    g_alloc.free(ptr, size, g_alloc.user);
    stint_i_busy_dec();
}
