/*
 * test_sinkpipe_threads.c - sinkpipe.h hands every span event to the real
 * sink exactly once, in order, with the model pointer it was given: streams
 * of every length around the block and ring sizes (nothing, less than a
 * block, exactly one, a ring's worth, many rings), with a consumer that is
 * sometimes slower than the producer (so the producer waits for free blocks)
 * and sometimes faster. Long streams must reach the sink on another thread;
 * a stream shorter than a block on the caller's. Events of a second model
 * arrive with that model, after every event of the first. Runs under TSan
 * (make test-tsan), which checks the hand-over.
 */
#include "check.h"
#include "sinkpipe.h"

#include <pthread.h>
#include <time.h>

struct seen {
    const struct stint_model *m, *m2; /* m2: the model from event `switch_at` on */
    uint64_t switch_at;
    uint64_t n, bad_order, bad_model;
    int slow;
    int on_caller, on_other;
    pthread_t caller;
};

static void sink(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct seen *s = ctx;
    /* event k carries ts k, and its fields derived from k */
    if (ev->ts_ns != (int64_t)s->n || ev->dur_ns != (int64_t)(s->n * 3) || ev->name != (uint32_t)(s->n ^ 0x5a5a) ||
        ev->level != (uint32_t)(s->n % 7))
        s->bad_order++;
    if (m != (s->m2 && s->n >= s->switch_at ? s->m2 : s->m))
        s->bad_model++;
    if (pthread_equal(pthread_self(), s->caller))
        s->on_caller = 1;
    else
        s->on_other = 1;
    if (s->slow && s->n % 97 == 0) {
        struct timespec t = {0, 20000};
        nanosleep(&t, NULL);
    }
    s->n++;
}

/* n events; from event `at` on (when two_models) they come with a second
 * model, which makes the pipe wait until the first model's are delivered */
static void run_models(size_t n, int slow, int two_models, size_t at)
{
    static struct stint_model model_storage[2]; /* only their addresses matter */
    struct seen s = {.m = &model_storage[0], .slow = slow, .caller = pthread_self()};
    if (two_models) {
        s.m2 = &model_storage[1];
        s.switch_at = at;
    }
    struct stint_sinkpipe p;
    REQUIRE(stint_sinkpipe_init(&p, sink, &s) == 0);
    for (size_t k = 0; k < n; k++) {
        struct stint_span_ev ev = {.ts_ns = (int64_t)k,
                                   .dur_ns = (int64_t)(k * 3),
                                   .name = (uint32_t)(k ^ 0x5a5a),
                                   .level = (uint32_t)(k % 7)};
        stint_sinkpipe_sink(&p, &model_storage[two_models && k >= at], &ev);
    }
    stint_sinkpipe_close(&p);
    if (s.n != n || s.bad_order || s.bad_model)
        fprintf(stderr, "n=%zu slow=%d models=%d: delivered %llu, %llu out of order, %llu with another model\n", n,
                slow, 1 + two_models, (unsigned long long)s.n, (unsigned long long)s.bad_order,
                (unsigned long long)s.bad_model);
    CHECK(s.n == n);
    CHECK(s.bad_order == 0);
    CHECK(s.bad_model == 0);
    if (n < STINT_SINKPIPE_BLOCK)
        CHECK(!s.on_other); /* no thread for a stream that never fills a block */
    if (n >= 2 * STINT_SINKPIPE_BLOCK)
        CHECK(s.on_other); /* the sink ran on the pipe's thread */
}

static void run(size_t n, int slow) { run_models(n, slow, 0, 0); }

int main(void)
{
    const size_t B = STINT_SINKPIPE_BLOCK, R = STINT_SINKPIPE_NBLOCKS * STINT_SINKPIPE_BLOCK;
    const size_t lens[] = {0, 1, B - 1, B, B + 1, 2 * B, R - 1, R, R + 1, 3 * R + B / 2, 40 * R};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        run(lens[i], 0);
        if (lens[i] <= 3 * R + B)
            run(lens[i], 1);
    }
    /* a second model: before the thread starts, mid-block, at a block's
     * end, with the ring half full and full */
    const size_t at[] = {100, B + 17, 2 * B, R / 2 + 3, R + 1, 5 * R};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        run_models(at[i] + 3 * B + 5, 0, 1, at[i]);
        run_models(at[i] + R, 1, 1, at[i]);
    }
    CHECK_DONE();
}
