/*
 * sinkpipe.c - a span sink run on a second thread (sinkpipe.h).
 *
 * A ring of STINT_SINKPIPE_NBLOCKS blocks: the producer fills block
 * head % NBLOCKS and publishes it (head++), the consumer takes block
 * tail % NBLOCKS (tail++). One mutex and two condition variables, touched
 * once per block (512 events), not per event. A side that has to wait sleeps
 * until half the ring has moved (the producer until half is free, the
 * consumer until half is full or the stream ended), so the two threads wake
 * each other once per half ring rather than once per block.
 */
#include "sinkpipe.h"

#include <stdlib.h>

#define HALF (STINT_SINKPIPE_NBLOCKS / 2)

enum {
    SINKPIPE_IDLE,    /* no thread yet: the first block is still filling */
    SINKPIPE_RUNNING, /* the consumer thread runs */
    SINKPIPE_DIRECT   /* no thread could be started: blocks go to fn on the caller's thread */
};

int stint_sinkpipe_init(struct stint_sinkpipe *p, stint_span_sink fn, void *ctx)
{
    *p = (struct stint_sinkpipe){.fn = fn, .ctx = ctx};
    p->blocks = malloc(STINT_SINKPIPE_NBLOCKS * sizeof *p->blocks);
    if (!p->blocks)
        return -1;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->blocks);
        return -1;
    }
    if (pthread_cond_init(&p->filled, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p->blocks);
        return -1;
    }
    if (pthread_cond_init(&p->freed, NULL) != 0) {
        pthread_cond_destroy(&p->filled);
        pthread_mutex_destroy(&p->mu);
        free(p->blocks);
        return -1;
    }
    return 0;
}

/* Calls fn on the n events of block b. */
static void deliver(struct stint_sinkpipe *p, const struct stint_model *m, size_t b, size_t n)
{
    const struct stint_span_ev *ev = p->blocks[b];
    for (size_t i = 0; i < n; i++)
        p->fn(p->ctx, m, &ev[i]);
}

static void *consumer(void *arg)
{
    struct stint_sinkpipe *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->tail == p->head) {
            if (p->done)
                break; /* everything delivered */
            /* empty: sleep until half a ring is there, the stream ends, or a
             * flush wants whatever there is */
            p->consumer_waits = 1;
            while (!(p->head - p->tail >= HALF || p->done || (p->flush && p->head != p->tail)))
                pthread_cond_wait(&p->filled, &p->mu);
            p->consumer_waits = 0;
            continue;
        }
        size_t b = p->tail % STINT_SINKPIPE_NBLOCKS, n = p->fill[b];
        const struct stint_model *m = p->m;
        pthread_mutex_unlock(&p->mu);
        deliver(p, m, b, n);
        pthread_mutex_lock(&p->mu);
        p->tail++;
        if (p->producer_waits && p->head - p->tail <= HALF)
            pthread_cond_signal(&p->freed);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Hands the block being filled (cur_n events) over, and waits until the next
 * one is free. */
static void publish(struct stint_sinkpipe *p)
{
    size_t b = p->head % STINT_SINKPIPE_NBLOCKS;
    if (p->state == SINKPIPE_IDLE)
        p->state = pthread_create(&p->thread, NULL, consumer, p) == 0 ? SINKPIPE_RUNNING : SINKPIPE_DIRECT;
    if (p->state == SINKPIPE_DIRECT) {
        deliver(p, p->m, b, p->cur_n);
        p->cur_n = 0;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fill[b] = p->cur_n;
    p->head++;
    if (p->consumer_waits && p->head - p->tail >= HALF)
        pthread_cond_signal(&p->filled);
    if (p->head - p->tail == STINT_SINKPIPE_NBLOCKS) {
        p->producer_waits = 1;
        while (p->head - p->tail > HALF)
            pthread_cond_wait(&p->freed, &p->mu);
        p->producer_waits = 0;
    }
    pthread_mutex_unlock(&p->mu);
    p->cur_n = 0;
}

void stint_sinkpipe_sink(void *pipe, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stint_sinkpipe *p = pipe;
    if (p->m != m) {
        /* (one model per pipe in practice; a new one waits for the old one's events) */
        if (p->cur_n)
            publish(p);
        if (p->state == SINKPIPE_RUNNING) {
            pthread_mutex_lock(&p->mu);
            p->flush = 1; /* the consumer takes what there is instead of waiting for half a ring */
            p->producer_waits = 1;
            pthread_cond_signal(&p->filled);
            while (p->tail != p->head)
                pthread_cond_wait(&p->freed, &p->mu);
            p->producer_waits = 0;
            p->flush = 0;
            p->m = m;
            pthread_mutex_unlock(&p->mu);
        } else
            p->m = m;
    }
    p->blocks[p->head % STINT_SINKPIPE_NBLOCKS][p->cur_n++] = *ev;
    if (p->cur_n == STINT_SINKPIPE_BLOCK)
        publish(p);
}

void stint_sinkpipe_close(struct stint_sinkpipe *p)
{
    if (p->state == SINKPIPE_RUNNING) {
        if (p->cur_n)
            publish(p);
        pthread_mutex_lock(&p->mu);
        p->done = 1;
        pthread_cond_signal(&p->filled);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
    } else if (p->cur_n)
        deliver(p, p->m, p->head % STINT_SINKPIPE_NBLOCKS, p->cur_n);
    pthread_cond_destroy(&p->freed);
    pthread_cond_destroy(&p->filled);
    pthread_mutex_destroy(&p->mu);
    free(p->blocks);
    p->blocks = NULL;
}
