/*
 * sinkpipe.h - a span sink (model.h) run on a second thread.
 *
 * The model's finish walk (nesting the spans of every track, in track order)
 * and the consumer of its span stream (summary's fold) each take about half
 * of the time after parsing, and both are serial. With a pipe in between they
 * overlap on two cores: the walk copies each span event into a block, full
 * blocks go to a thread that calls the real sink on them, in the same order
 * and with the same model pointer, so the consumer sees exactly the calls it
 * would have seen on one thread.
 *
 * The consumer runs while the walk goes on, so through the model pointer it
 * may only read what the finish step leaves alone: strings, processes, lanes
 * and tracks (the walk writes slices, flows and repairs and frees lean
 * records).
 *
 * The thread is started when the first block fills (a short stream is
 * delivered on the caller's thread at close); when it cannot be started the
 * blocks are delivered on the caller's thread. Memory: a fixed ring of blocks
 * (STINT_SINKPIPE_NBLOCKS x STINT_SINKPIPE_BLOCK events, 160 KiB).
 */
#ifndef STINT_CLI_SINKPIPE_H
#define STINT_CLI_SINKPIPE_H

#include "model.h"

#include <pthread.h>
#include <stddef.h>

#define STINT_SINKPIPE_BLOCK 512
#define STINT_SINKPIPE_NBLOCKS 8

struct stint_sinkpipe {
    stint_span_sink fn;
    void *ctx;
    const struct stint_model *m; /* the model of the events in the ring */
    struct stint_span_ev (*blocks)[STINT_SINKPIPE_BLOCK];
    size_t fill[STINT_SINKPIPE_NBLOCKS]; /* events in each published block */
    size_t head;  /* blocks published (the producer fills block head % NBLOCKS) */
    size_t tail;  /* blocks consumed */
    size_t cur_n; /* events in the block being filled */
    int state;    /* SINKPIPE_* (sinkpipe.c) */
    int done;     /* no more blocks will be published */
    int producer_waits, consumer_waits; /* a side sleeps (sinkpipe.c) */
    int flush;    /* the producer waits for the ring to empty */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
};

/* Prepares p to pass events to fn(ctx, ...). Starts no thread yet. Returns 0,
 * or -1 when out of memory (p is then unusable: call fn directly). */
int stint_sinkpipe_init(struct stint_sinkpipe *p, stint_span_sink fn, void *ctx);

/* A stint_span_sink (ctx: the pipe): queues a copy of ev for fn. Called by
 * one thread only (the model's). */
void stint_sinkpipe_sink(void *pipe, const struct stint_model *m, const struct stint_span_ev *ev);

/* Delivers every queued event, waits until fn has returned on all of them,
 * stops the thread and frees p's memory. After it, fn's ctx may be used
 * freely again. */
void stint_sinkpipe_close(struct stint_sinkpipe *p);

#endif
