/* SPDX-License-Identifier: MIT */
/*
 * bgwrite.c - bytes written on a thread of their own (bgwrite.h).
 *
 * A ring of BGWRITE_BLOCKS blocks: the caller fills the block at tail
 * (free while fewer than all are queued), queues it when full and takes
 * the next; the thread writes the blocks [head, tail) in order, one at a
 * time, outside the lock. head and tail only grow (their block is the
 * count modulo BGWRITE_BLOCKS); the lock guards them, done and err.
 */
#include "base/bgwrite.h"

#include "base/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BGWRITE_BLOCKS 4
#define BGWRITE_BLOCK ((size_t)1 << 20)

struct stint_bgwrite {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t queued; /* a block queued, or done */
    pthread_cond_t freed;  /* a block written */
    char *blk[BGWRITE_BLOCKS];
    size_t len[BGWRITE_BLOCKS];
    size_t head, tail; /* queued: [head, tail); the caller fills tail's block */
    size_t used;       /* bytes in tail's block (the caller's alone) */
    int done;
    int err; /* the sink's first errno, 0: none */
    stint_bgwrite_sink sink;
    void *ctx;
};

/* The thread: writes queued blocks until done and none is left. */
static void *bg_main(void *arg)
{
    struct stint_bgwrite *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->head == w->tail && !w->done)
            pthread_cond_wait(&w->queued, &w->mu);
        if (w->head == w->tail)
            break;
        size_t b = w->head % BGWRITE_BLOCKS;
        int failed = w->err;
        pthread_mutex_unlock(&w->mu);
        int e = failed ? 0 : w->sink(w->ctx, w->blk[b], w->len[b]);
        pthread_mutex_lock(&w->mu);
        if (e && !w->err)
            w->err = e;
        w->head++;
        pthread_cond_signal(&w->freed);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Frees w's blocks, its lock and conditions, and w (its thread not running). */
static void bg_free(struct stint_bgwrite *w)
{
    for (size_t i = 0; i < BGWRITE_BLOCKS; i++)
        free(w->blk[i]);
    pthread_cond_destroy(&w->freed);
    pthread_cond_destroy(&w->queued);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

struct stint_bgwrite *stint_bgwrite_start(stint_bgwrite_sink sink, void *ctx)
{
    struct stint_bgwrite *w = stint_xcalloc(1, sizeof *w);
    w->sink = sink;
    w->ctx = ctx;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->queued, NULL);
    pthread_cond_init(&w->freed, NULL);
    for (size_t i = 0; i < BGWRITE_BLOCKS; i++)
        w->blk[i] = stint_xmalloc(BGWRITE_BLOCK);
    if (pthread_create(&w->th, NULL, bg_main, w) != 0) {
        bg_free(w);
        return NULL;
    }
    return w;
}

/* Queues tail's block (used bytes) and waits until the next one is free. */
static void bg_queue(struct stint_bgwrite *w)
{
    pthread_mutex_lock(&w->mu);
    w->len[w->tail % BGWRITE_BLOCKS] = w->used;
    w->tail++;
    pthread_cond_signal(&w->queued);
    while (w->tail - w->head == BGWRITE_BLOCKS)
        pthread_cond_wait(&w->freed, &w->mu);
    pthread_mutex_unlock(&w->mu);
    w->used = 0;
}

void stint_bgwrite_put(struct stint_bgwrite *w, const void *p, size_t n)
{
    while (n) {
        size_t k = BGWRITE_BLOCK - w->used < n ? BGWRITE_BLOCK - w->used : n;
        memcpy(w->blk[w->tail % BGWRITE_BLOCKS] + w->used, p, k);
        w->used += k;
        p = (const char *)p + k;
        n -= k;
        if (w->used == BGWRITE_BLOCK)
            bg_queue(w);
    }
}

int stint_bgwrite_end(struct stint_bgwrite *w)
{
    if (w->used)
        bg_queue(w);
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->queued);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    int err = w->err;
    bg_free(w);
    return err;
}

int stint_bgwrite_fd_sink(void *ctx, const void *p, size_t n)
{
    int fd = *(const int *)ctx;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p = (const char *)p + k;
        n -= (size_t)k;
    }
    return 0;
}
