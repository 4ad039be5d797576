/* SPDX-License-Identifier: MIT */
/*
 * demo.c - the workload shape of the seed, instrumented with libstint.
 *
 * Two callables (a prefill kernel run once and a decode kernel run per
 * token), each invocation a simpler_run with bind (args, prebuilt),
 * runner_run with device phases stamped in cycles at 50 MHz and converted by
 * stint_device_phases, and validate; then a training loop of four
 * learner_step spans, each an input_wait (a real sleep) and a model_and_wait
 * (real arithmetic). The training loop also writes a JSONL session with its
 * steps, ops, memory and a loss counter. Writes under the output folder given
 * as argv[1] (default build/demo): markers.log (the marker sink), trace.json
 * (the Chrome/Perfetto sink), ring.json (a 64-span flight recorder, so its
 * dropped count is visible) and session.jsonl; prints what it wrote.
 *
 * The "device" is simulated: cycle records are synthesised from the host
 * work so the shapes are real, but no accelerator is involved.
 */
#include <stint/session.h>
#include <stint/stint.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEVICE_HZ 50000000ULL /* the device counter runs at 50 MHz */
#define NDEV_THREADS 3

enum { PH_PREAMBLE, PH_SO_LOAD, PH_GRAPH_BUILD, PH_CONFIG_VALIDATE, PH_ARENA_WIRE, PH_SM_RESET, PH_ORCH, PH_SCHED,
       PH_POST_ORCH, NPHASES };

static const char *const phase_names[NPHASES] = {
    "simpler_run.runner_run.device_wall.preamble",   "simpler_run.runner_run.device_wall.so_load",
    "simpler_run.runner_run.device_wall.graph_build", "simpler_run.runner_run.device_wall.config_validate",
    "simpler_run.runner_run.device_wall.arena_wire",  "simpler_run.runner_run.device_wall.sm_reset",
    "simpler_run.runner_run.device_wall.orch",        "simpler_run.runner_run.device_wall.sched",
    "simpler_run.runner_run.device_wall.post_orch"};
static const char *const wall_name[1] = {"simpler_run.runner_run.device_wall"};

static volatile double sink_value;

/* Real work proportional to n (so host spans have real durations). */
static void spin(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink_value = x;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

/* Synthesises one run's cycle stamps: NDEV_THREADS device threads, each with
 * its own slightly different view of every phase; orch and sched overlap. */
static void device_stamps(stint_cycle_rec recs[NDEV_THREADS][NPHASES], int first_run, unsigned seed)
{
    uint64_t base = 1000000 + (uint64_t)(seed % 97) * 13;
    for (int t = 0; t < NDEV_THREADS; t++) {
        uint64_t c = base; /* the device threads share one counter */
        for (int p = 0; p < NPHASES; p++)
            recs[t][p].start_cycle = recs[t][p].end_cycle = STINT_CYCLE_UNSET;
#define PHASE(ph, len)                                                                              \
    do {                                                                                            \
        recs[t][ph].start_cycle = c + (uint64_t)t; /* threads start a little apart */               \
        recs[t][ph].end_cycle = c + (len);                                                          \
        c += (len);                                                                                 \
    } while (0)
        PHASE(PH_PREAMBLE, 500);
        if (first_run)
            PHASE(PH_SO_LOAD, 1350); /* the kernel binary loads on the first run only */
        uint64_t gb_start = c;
        PHASE(PH_CONFIG_VALIDATE, 75);
        PHASE(PH_ARENA_WIRE, 225);
        PHASE(PH_SM_RESET, 300);
        /* orch and sched run concurrently inside graph_build */
        recs[t][PH_ORCH].start_cycle = c;
        recs[t][PH_ORCH].end_cycle = c + 6000 - (uint64_t)t * 50;
        recs[t][PH_SCHED].start_cycle = c + 30;
        recs[t][PH_SCHED].end_cycle = c + 10500 - (uint64_t)t * 40;
        c += 10600;
        recs[t][PH_GRAPH_BUILD].start_cycle = gb_start;
        recs[t][PH_GRAPH_BUILD].end_cycle = c;
        PHASE(PH_POST_ORCH, 450);
#undef PHASE
    }
    /* one device thread never stamped sm_reset: its record stays unset */
    recs[NDEV_THREADS - 1][PH_SM_RESET].start_cycle = STINT_CYCLE_UNSET;
}

static void simpler_run(int first_run, long work, unsigned seed)
{
    STINT_SCOPE("simpler_run");
    {
        STINT_SCOPE("simpler_run.bind");
        {
            STINT_SCOPE_A("simpler_run.bind.args", "ntensor=4");
            spin(work / 8);
        }
        {
            STINT_SCOPE("simpler_run.bind.prebuilt");
            stint_attr_bool("cache_hit", !first_run);
            spin(first_run ? work / 2 : work / 10);
        }
    }
    {
        STINT_SCOPE("simpler_run.runner_run");
        spin(work);
        stint_cycle_rec recs[NDEV_THREADS][NPHASES];
        device_stamps(recs, first_run, seed);
        /* the wall: each device thread's first start .. last end */
        stint_cycle_rec wall[NDEV_THREADS];
        for (int t = 0; t < NDEV_THREADS; t++) {
            wall[t].start_cycle = recs[t][PH_PREAMBLE].start_cycle;
            wall[t].end_cycle = recs[t][PH_POST_ORCH].end_cycle;
        }
        size_t n = 0;
        if (stint_device_phases(wall, NDEV_THREADS, 1, DEVICE_HZ, wall_name, 2, &n) != STINT_OK ||
            stint_device_phases(&recs[0][0], NDEV_THREADS, NPHASES, DEVICE_HZ, phase_names, 3, &n) != STINT_OK)
            fprintf(stderr, "demo: device phases rejected\n");
    }
    {
        STINT_SCOPE("simpler_run.validate");
        spin(work / 20);
    }
}

/* A fake kernel image per callable: its hash is the callable's hid. */
static uint64_t callable_hid(const char *kernel_source)
{
    return stint_hid_of_elf(kernel_source, strlen(kernel_source));
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "build/demo";
    char path[4096], markers_path[4096];
    mkdir(out, 0755);
    snprintf(markers_path, sizeof markers_path, "%s/markers.log", out);
    remove(markers_path);
    if (stint_markers_to_path(markers_path, 0) != STINT_OK) {
        fprintf(stderr, "demo: cannot open %s\n", markers_path);
        return 3;
    }
    int ndecode = argc > 2 ? atoi(argv[2]) : 8;
    char trace_path[4096], ring_path[4096], err0[256];
    snprintf(trace_path, sizeof trace_path, "%s/trace.json", out);
    snprintf(ring_path, sizeof ring_path, "%s/ring.json", out);
    stint_chrome_writer *chrome = NULL;
    if (stint_chrome_open(trace_path, &chrome, err0, sizeof err0) != STINT_OK) {
        fprintf(stderr, "demo: %s\n", err0);
        return 3;
    }
    if (stint_ring_start(64) != STINT_OK) {
        fprintf(stderr, "demo: cannot start the flight recorder\n");
        return 3;
    }
    /* opt-in: a crash would leave the ring's last spans in ring.crash.json */
    snprintf(path, sizeof path, "%s/ring.crash.json", out);
    if (stint_ring_crash_dump_enable(path) != STINT_OK)
        fprintf(stderr, "demo: crash dump not armed\n");

    /* inference: one prefill, then decode tokens, each callable its own hid */
    uint64_t prefill = callable_hid("kernel: prefill, seq=512, heads=16");
    uint64_t decode = callable_hid("kernel: decode, seq=1, heads=16");
    stint_invocation_begin();
    stint_set_hid(prefill);
    simpler_run(1, 400000, 1);
    for (int i = 0; i < ndecode; i++) {
        stint_invocation_begin();
        stint_set_hid(decode);
        simpler_run(i == 0, 200000, (unsigned)i + 2);
    }

    /* training: four learner steps, each waiting for input then computing;
     * the JSONL session records the same steps with ops, memory and a loss */
    stint_set_invocation(0);
    stint_set_hid(0);
    snprintf(path, sizeof path, "%s/session.jsonl", out);
    stint_session_options so = STINT_SESSION_OPTIONS_INIT;
    stint_tag tags[] = {{"demo", "stint"}, {"model", "toy-mlp"}};
    so.entrypoint = "demo.train";
    so.phase = STINT_PHASE_TRAIN;
    so.capture_step = 4;
    so.tags = tags;
    so.ntags = 2;
    stint_session *sess = NULL;
    char err[256];
    if (stint_session_open(path, &so, &sess, err, sizeof err) != STINT_OK) {
        fprintf(stderr, "demo: %s\n", err);
        return 3;
    }
    static const uint64_t shape[2] = {64, 64};
    const char *inputs[2] = {"x", "w"};
    int sess_ok = 1;
    for (int step = 0; step < 4; step++) {
        STINT_SCOPE("learner_step");
        stint_attr_i64("step", step);
        uint64_t sid = 0, wid = 0, mid = 0;
        /* the captured step (capture_step 4) is the session's measured region */
        if (step == 3)
            sess_ok &= stint_session_measure_begin(sess, "learner_step", &sid) == STINT_OK;
        else
            sess_ok &= stint_session_span_begin(sess, "learner_step", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &sid) == STINT_OK;
        {
            STINT_SCOPE("learner_step.input_wait");
            sess_ok &= stint_session_span_begin(sess, "input_wait", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &wid) == STINT_OK;
            sleep_us(2000 + step * 500);
            sess_ok &= stint_session_span_end(sess, wid) == STINT_OK;
        }
        {
            STINT_SCOPE("learner_step.model_and_wait");
            sess_ok &= stint_session_span_begin(sess, "model_and_wait", STINT_SPAN_MODULE, STINT_STEP_FORWARD, &mid) == STINT_OK;
            int64_t t0 = stint_now_ns();
            spin(300000);
            stint_memory_record mem = STINT_MEMORY_RECORD_INIT;
            mem.span_id = mid;
            mem.tensor_id = "act0";
            mem.op_name = "matmul";
            mem.bytes = stint_storage_bytes(shape, 2, "f32", NULL);
            mem.shape = shape;
            mem.ndim = 2;
            mem.dtype = "f32";
            mem.category = STINT_CATEGORY_ACTIVATION;
            sess_ok &= stint_session_memory(sess, &mem) == STINT_OK;
            stint_op_record op = STINT_OP_RECORD_INIT;
            op.span_id = mid;
            op.op_name = "matmul";
            op.inputs = inputs;
            op.ninputs = 2;
            op.output = "act0";
            op.shape = shape;
            op.ndim = 2;
            op.dtype = "f32";
            op.duration_ns = stint_now_ns() - t0;
            sess_ok &= stint_session_op(sess, &op) == STINT_OK;
            mem.action = STINT_MEM_FREE;
            mem.timestamp_ns = 0;
            sess_ok &= stint_session_memory(sess, &mem) == STINT_OK;
            sess_ok &= stint_session_counter(sess, "loss", 1.0 / (step + 1), "") == STINT_OK;
            double norm = 0.5 / (step + 1);
            sess_ok &= stint_session_gradient(sess, "loss", "w", STINT_GRAD_PRESENT, &norm) == STINT_OK;
            sess_ok &= stint_session_device_memory(sess, NULL, 16384u * (unsigned)(step + 1), 1u << 30, -1, 0) == STINT_OK;
            sess_ok &= stint_session_span_end(sess, mid) == STINT_OK;
        }
        sess_ok &= stint_session_span_end(sess, sid) == STINT_OK;
    }
    if (!sess_ok || stint_session_finish(sess) != STINT_OK)
        fprintf(stderr, "demo: session: %s\n", stint_session_message(sess));
    stint_session_free(sess);
    printf("demo: wrote %s\n", path);

    stint_status st = stint_flush();
    stint_ring_capture *cap = NULL;
    if (stint_ring_finish(&cap) == STINT_OK && stint_ring_capture_write_chrome(cap, ring_path) == STINT_OK)
        printf("demo: wrote %s (flight recorder: last %zu spans kept, %llu older ones dropped, counted)\n", ring_path,
               stint_ring_capture_count(cap), (unsigned long long)stint_ring_capture_dropped(cap));
    else
        fprintf(stderr, "demo: flight recorder export failed\n");
    stint_ring_capture_free(cap);
    if (stint_chrome_close(chrome) == STINT_OK)
        printf("demo: wrote %s\n", trace_path);
    else
        fprintf(stderr, "demo: Chrome trace export failed\n");
    stint_stats stats;
    stint_get_stats(&stats);
    printf("demo: wrote %s (%llu spans, %llu dropped, clock %s)\n", markers_path,
           (unsigned long long)stats.spans_written, (unsigned long long)stats.spans_dropped,
           stats.clock_tsc ? "CLOCK_MONOTONIC via calibrated TSC" : "CLOCK_MONOTONIC");
    if (st != STINT_OK) {
        fprintf(stderr, "demo: marker sink error: %s\n", stint_strerror(st));
        return 3;
    }
    return 0;
}
