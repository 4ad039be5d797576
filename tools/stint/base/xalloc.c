/* SPDX-License-Identifier: MIT */
/*
 * xalloc.c - allocation that succeeds or ends the process (xalloc.h). The
 * message is written with one write(2), which needs no memory; exit() then
 * flushes what the command had already printed, as any other exit does.
 */
#include "base/xalloc.h"

#include "base/exitcode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void stint_die_nomem(void)
{
    static const char msg[] = "stint: out of memory\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    exit(STINT_EXIT_NOMEM);
}

void *stint_xcheck(void *p)
{
    if (!p)
        stint_die_nomem();
    return p;
}

void *stint_xmalloc(size_t size)
{
    return stint_xcheck(malloc(size ? size : 1));
}

void *stint_xcalloc(size_t n, size_t size)
{
    return stint_xcheck(calloc(n ? n : 1, size ? size : 1));
}

void *stint_xreallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        stint_die_nomem();
    if (n * size == 0) {
        free(p);
        return NULL;
    }
    return stint_xcheck(realloc(p, n * size));
}

char *stint_xstrdup(const char *s)
{
    return stint_xstrndup(s, strlen(s));
}

char *stint_xstrndup(const char *s, size_t n)
{
    char *d = stint_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void *stint_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : (first ? first : 1);
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return NULL;
        c *= 2;
    }
    if (size && c > SIZE_MAX / size)
        return NULL;
    size_t bytes = c * size;
    void *q = realloc(p, bytes ? bytes : 1);
    if (q)
        *cap = c;
    return q;
}

void *stint_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    return stint_xcheck(stint_grow(p, cap, need, size, first));
}

void *stint_xgrow_zeroed(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t old = *cap;
    char *q = stint_xgrow(p, cap, need, size, first);
    if (*cap > old)
        memset(q + old * size, 0, (*cap - old) * size);
    return q;
}
