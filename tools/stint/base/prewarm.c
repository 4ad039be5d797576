/* SPDX-License-Identifier: MIT */
/*
 * prewarm.c - a file's page cache filled before it is written (prewarm.h).
 *
 * The thread: one fallocate(2) of [0, bytes), then pread(2) of the range in
 * WARM_STEP pieces into one reused buffer (a read of allocated, unwritten
 * blocks gives zeros without any disk I/O; what it leaves behind is the page
 * cache). Before each piece it asks the kernel for the file's offset (the
 * caller's writes move it): a range the caller has written is skipped. pread
 * is used rather than readahead(2), which the kernel cuts to the device's
 * readahead window (128 KiB by default) without saying so, and which some
 * file systems refuse.
 */
#include "base/prewarm.h"

#include "base/threads.h"
#include "base/xalloc.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WARM_STEP ((size_t)256 << 10) /* a piece read at a time: 256 KiB, the thread's only memory */

struct stint_prewarm {
    pthread_t th;
    int fd;
    uint64_t bytes;
    atomic_int stop; /* set by stint_prewarm_end */
    int grown;       /* fallocate took (the thread's until joined) */
};

/* The thread: reserve, then read the range ahead of the caller's offset. */
static void *warm_main(void *arg)
{
    struct stint_prewarm *p = arg;
    if (fallocate(p->fd, 0, 0, (off_t)p->bytes) != 0)
        return NULL; /* (EOPNOTSUPP, ENOSPC, EFBIG: the writes go on as without it) */
    p->grown = 1;
    char *buf = malloc(WARM_STEP);
    if (!buf)
        return NULL;
    uint64_t at = 0;
    while (at < p->bytes && !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        off_t w = lseek(p->fd, 0, SEEK_CUR);
        if (w > 0 && (uint64_t)w > at)
            at = (uint64_t)w & ~(uint64_t)4095; /* written already: go on from the caller's page */
        uint64_t left = p->bytes - at;
        size_t n = left < WARM_STEP ? (size_t)left : WARM_STEP;
        if (n == 0 || pread(p->fd, buf, n, (off_t)at) <= 0)
            break;
        at += n;
    }
    free(buf);
    return NULL;
}

struct stint_prewarm *stint_prewarm_start(int fd, uint64_t bytes)
{
    const char *env = getenv("STINT_PREWARM");
    if (bytes == 0 || (env && !strcmp(env, "0")) || stint_threads_wanted() < 2)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || bytes > (uint64_t)INT64_MAX)
        return NULL;
    struct stint_prewarm *p = stint_xcalloc(1, sizeof *p);
    p->fd = fd;
    p->bytes = bytes;
    atomic_init(&p->stop, 0);
    if (pthread_create(&p->th, NULL, warm_main, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

int stint_prewarm_end(struct stint_prewarm *p)
{
    if (!p)
        return 0;
    atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
    pthread_join(p->th, NULL);
    int grown = p->grown;
    free(p);
    return grown;
}
