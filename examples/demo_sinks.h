/*
 * demo_sinks.h - the session outputs of the demo, in one place (header-only,
 * for examples/demo.c).
 *
 *   demo_sinks d;
 *   demo_sinks_begin(&d, out_dir);     before the workload: starts the Chrome
 *                                      writer (trace.json), the flight recorder
 *                                      (ring, 4096 spans, crash dump on to
 *                                      ring.crash.json) and the JSONL session
 *                                      (session.jsonl)
 *   ... workload (STINT_SCOPE spans feed trace.json and the ring) ...
 *   demo_sinks_capture(&d, fn, arg);   runs fn(arg) as the session's captured
 *                                      training step and records it (measured
 *                                      region, forward/backward/optimizer spans,
 *                                      an op, a tensor, memory, gradients)
 *   demo_sinks_end(&d);                writes ring.json, closes trace.json,
 *                                      finishes session.jsonl; 0 when all fine
 *
 * Every failure is printed with its message; the demo keeps going.
 */
#ifndef STINT_DEMO_SINKS_H
#define STINT_DEMO_SINKS_H

#include <stint/session.h>
#include <stint/stint.h>

#include <stdio.h>
#include <string.h>

typedef struct demo_sinks {
    char dir[3072];
    stint_chrome_writer *chrome;
    stint_session *session;
    int ring_on;
    int failures;
} demo_sinks;

static void demo_sinks_fail(demo_sinks *d, const char *what, stint_status st, const char *msg)
{
    fprintf(stderr, "demo: %s: %s%s%s\n", what, stint_strerror(st), msg && *msg ? ": " : "", msg ? msg : "");
    d->failures++;
}

static void demo_sinks_begin(demo_sinks *d, const char *dir)
{
    char path[4096], err[512];
    stint_status st;
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "%s", dir);

    snprintf(path, sizeof path, "%s/trace.json", dir);
    if ((st = stint_chrome_open(path, &d->chrome, err, sizeof err)) != STINT_OK)
        demo_sinks_fail(d, "trace.json", st, err);

    if ((st = stint_ring_start(4096)) != STINT_OK)
        demo_sinks_fail(d, "ring", st, NULL);
    else
        d->ring_on = 1;
    snprintf(path, sizeof path, "%s/ring.crash.json", dir);
    if ((st = stint_ring_crash_dump_enable(path)) != STINT_OK)
        demo_sinks_fail(d, "crash dump", st, NULL);

    static const stint_tag tags[] = {{"workload", "seed-demo"}, {"device_kind", "simulated"}};
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "demo::train::learner_step";
    o.capture_step = 3; /* the third learner step is the representative one */
    o.device = "cpu";
    o.tags = tags;
    o.ntags = sizeof tags / sizeof tags[0];
    snprintf(path, sizeof path, "%s/session.jsonl", dir);
    if ((st = stint_session_open(path, &o, &d->session, err, sizeof err)) != STINT_OK)
        demo_sinks_fail(d, "session.jsonl", st, err);
}

static uint64_t demo_sinks_span(demo_sinks *d, const char *name, stint_span_kind kind, stint_step step)
{
    uint64_t id = 0;
    stint_status st = stint_session_span_begin(d->session, name, kind, step, &id);
    if (st != STINT_OK)
        demo_sinks_fail(d, "session span", st, stint_session_message(d->session));
    return id;
}

static void demo_sinks_end_span(demo_sinks *d, uint64_t id)
{
    stint_status st = stint_session_span_end(d->session, id);
    if (st != STINT_OK)
        demo_sinks_fail(d, "session span_end", st, stint_session_message(d->session));
}

static void demo_sinks_capture(demo_sinks *d, void (*fn)(void *), void *arg)
{
    if (!d->session) {
        fn(arg);
        return;
    }
    stint_session *s = d->session;
    stint_status st;
    uint64_t measured = 0;
    if ((st = stint_session_measure_begin(s, "learner_step", &measured)) != STINT_OK)
        demo_sinks_fail(d, "measure", st, stint_session_message(s));

    uint64_t fwd = demo_sinks_span(d, "model.forward", STINT_SPAN_MODULE, STINT_STEP_FORWARD);
    uint64_t mm = demo_sinks_span(d, "matmul", STINT_SPAN_OP, STINT_STEP_FORWARD);
    int64_t t0 = stint_now_ns();
    fn(arg); /* the real work of the step */
    int64_t t1 = stint_now_ns();
    demo_sinks_end_span(d, mm);
    static const char *const inputs[] = {"x", "w0"};
    static const uint64_t shape[] = {8, 8};
    stint_op_record op = STINT_OP_RECORD_INIT;
    op.span_id = mm;
    op.op_name = "matmul";
    op.inputs = inputs;
    op.ninputs = 2;
    op.output = "h0";
    op.shape = shape;
    op.ndim = 2;
    op.dtype = "f32"; /* storage_bytes resolves to 8 x 8 x 4 = 256 */
    op.duration_ns = t1 - t0;
    if ((st = stint_session_op(s, &op)) != STINT_OK)
        demo_sinks_fail(d, "op", st, stint_session_message(s));
    stint_tensor_record t = STINT_TENSOR_RECORD_INIT;
    t.span_id = mm;
    t.tensor_id = "h0";
    t.shape = shape;
    t.ndim = 2;
    t.dtype = "f32";
    t.category = STINT_CATEGORY_ACTIVATION;
    if ((st = stint_session_tensor(s, &t)) != STINT_OK)
        demo_sinks_fail(d, "tensor", st, stint_session_message(s));
    stint_memory_record m = STINT_MEMORY_RECORD_INIT;
    m.span_id = mm;
    m.tensor_id = "h0";
    m.op_name = "matmul";
    m.bytes = 256;
    m.shape = shape;
    m.ndim = 2;
    m.dtype = "f32";
    m.category = STINT_CATEGORY_ACTIVATION;
    if ((st = stint_session_memory(s, &m)) != STINT_OK)
        demo_sinks_fail(d, "memory alloc", st, stint_session_message(s));
    demo_sinks_end_span(d, fwd);

    uint64_t bwd = demo_sinks_span(d, "model.backward", STINT_SPAN_MODULE, STINT_STEP_BACKWARD);
    double norm = 0.42;
    if ((st = stint_session_gradient(s, "model", "w0", STINT_GRAD_PRESENT, &norm)) != STINT_OK ||
        (st = stint_session_gradient(s, "model", "b0", STINT_GRAD_MISSING, NULL)) != STINT_OK)
        demo_sinks_fail(d, "gradient", st, stint_session_message(s));
    m.action = STINT_MEM_FREE;
    if ((st = stint_session_memory(s, &m)) != STINT_OK)
        demo_sinks_fail(d, "memory free", st, stint_session_message(s));
    demo_sinks_end_span(d, bwd);

    uint64_t opt = demo_sinks_span(d, "optimizer.step", STINT_SPAN_FUNCTION, STINT_STEP_OPTIMIZER);
    if ((st = stint_session_device_memory(s, NULL, 1u << 20, 15u << 20, -1, 0)) != STINT_OK ||
        (st = stint_session_counter(s, "learning_rate", 1e-3, "")) != STINT_OK)
        demo_sinks_fail(d, "device_memory/counter", st, stint_session_message(s));
    demo_sinks_end_span(d, opt);
    demo_sinks_end_span(d, measured);
}

/* Returns 0 when every output was written. */
static int demo_sinks_end(demo_sinks *d)
{
    char path[4096];
    stint_status st;
    if (d->ring_on) {
        stint_ring_capture *c = NULL;
        if ((st = stint_ring_finish(&c)) != STINT_OK) {
            demo_sinks_fail(d, "ring finish", st, NULL);
        } else {
            snprintf(path, sizeof path, "%s/ring.json", d->dir);
            if ((st = stint_ring_capture_write_chrome(c, path)) != STINT_OK)
                demo_sinks_fail(d, path, st, NULL);
            else
                printf("demo: wrote %s (%zu spans kept, %llu dropped)\n", path, stint_ring_capture_count(c),
                       (unsigned long long)stint_ring_capture_dropped(c));
            stint_ring_capture_free(c);
        }
        stint_ring_crash_dump_disable();
    }
    if (d->chrome) {
        if ((st = stint_chrome_close(d->chrome)) != STINT_OK)
            demo_sinks_fail(d, "trace.json", st, NULL);
        else
            printf("demo: wrote %s/trace.json\n", d->dir);
    }
    if (d->session) {
        if ((st = stint_session_finish(d->session)) != STINT_OK)
            demo_sinks_fail(d, "session.jsonl", st, stint_session_message(d->session));
        else
            printf("demo: wrote %s/session.jsonl\n", d->dir);
        stint_session_free(d->session);
    }
    return d->failures ? 1 : 0;
}

#endif
