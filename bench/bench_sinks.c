/* SPDX-License-Identifier: MIT */
/*
 * bench_sinks.c - what each session sink costs per span.
 *
 * For each configuration the same thread records `spans` spans (one static
 * call site, two typed attributes) into its buffer, then drains them into the
 * sinks itself with stint_flush(). The background writer is held off
 * (STINT_FLUSH_MS=60000) so the two phases are measured separately:
 *   record ns/span  the hot path (should not depend on the sink)
 *   drain ns/span   decoding + the sink's own work, on the draining thread
 * Baseline: the same drain with no sink at all (markers off). The JSONL
 * session is an explicit API (no drain): its row is the cost of one
 * stint_session_span_begin + stint_session_span_end pair.
 * Medians over --reps runs; ratios against the baseline's drain median.
 *
 * usage: bench_sinks [--spans N] [--reps R] [--out DIR]
 */
#include "stint/session.h"
#include "stint/stint.h"

#include "bench_median.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}


static void record(long spans)
{
    static const stint_loc loc = {"bench.sink_span", "k=v", __FILE__, "record", __LINE__};
    for (long i = 0; i < spans; i++) {
        stint_span s = stint_span_begin(&loc);
        stint_attr_i64("i", i);
        stint_attr_str("s", "value");
        stint_span_end(s);
    }
}

enum { CFG_NONE, CFG_MARKERS, CFG_CHROME, CFG_RING, CFG_NCFG };
static const char *const cfg_names[] = {"no sink (baseline)", "markers -> file", "chrome JSON -> file",
                                        "ring (capacity 65536)"};

int main(int argc, char **argv)
{
    long spans = 10000;
    int reps = 7;
    const char *dir = "/tmp";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--spans"))
            spans = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--out"))
            dir = argv[i + 1];
    }
    if (spans < 1 || reps < 1 || reps > 101) {
        fprintf(stderr, "usage: bench_sinks [--spans N] [--reps R] [--out DIR]\n");
        return 2;
    }
    /* before the first call into the library: keep the writer thread out of
     * the way, and give the thread buffer room for every span of one rep */
    setenv("STINT_FLUSH_MS", "60000", 1);
    char kb[32];
    snprintf(kb, sizeof kb, "%ld", (spans * 192) / 1024 + 1024);
    setenv("STINT_BUFFER_KB", kb, 1);
    stint_markers_off();
    record(1000); /* first touch of the thread buffer outside the timings */
    if (stint_flush() != STINT_OK)
        return 1;

    char path[4096];
    double rec[CFG_NCFG][101], drain[CFG_NCFG][101], sess[101];
    stint_stats st0, st1;
    stint_get_stats(&st0);
    for (int r = 0; r < reps; r++) {
        for (int c = 0; c < CFG_NCFG; c++) {
            stint_chrome_writer *w = NULL;
            stint_markers_off();
            if (c == CFG_MARKERS) {
                snprintf(path, sizeof path, "%s/bench_sinks_markers.log", dir);
                unlink(path);
                if (stint_markers_to_path(path, 0) != STINT_OK)
                    return 1;
            } else if (c == CFG_CHROME) {
                snprintf(path, sizeof path, "%s/bench_sinks_trace.json", dir);
                if (stint_chrome_open(path, &w, NULL, 0) != STINT_OK)
                    return 1;
            } else if (c == CFG_RING) {
                if (stint_ring_start(65536) != STINT_OK)
                    return 1;
            }
            int64_t t0 = now_ns();
            record(spans);
            int64_t t1 = now_ns();
            if (stint_flush() != STINT_OK)
                return 1;
            int64_t t2 = now_ns();
            rec[c][r] = (double)(t1 - t0) / (double)spans;
            drain[c][r] = (double)(t2 - t1) / (double)spans;
            if (c == CFG_CHROME && stint_chrome_close(w) != STINT_OK)
                return 1;
            if (c == CFG_RING) {
                stint_ring_capture *cap = NULL;
                if (stint_ring_finish(&cap) != STINT_OK)
                    return 1;
                stint_ring_capture_free(cap);
            }
        }
        /* the explicit JSONL session */
        snprintf(path, sizeof path, "%s/bench_sinks_session.jsonl", dir);
        stint_session_options o = STINT_SESSION_OPTIONS_INIT;
        o.entrypoint = "bench";
        stint_session *s = NULL;
        if (stint_session_open(path, &o, &s, NULL, 0) != STINT_OK)
            return 1;
        int64_t t0 = now_ns();
        for (long i = 0; i < spans; i++) {
            uint64_t id;
            if (stint_session_span_begin(s, "bench.sink_span", STINT_SPAN_FUNCTION, STINT_STEP_NONE, &id) ||
                stint_session_span_end(s, id))
                return 1;
        }
        if (stint_session_flush(s) != STINT_OK)
            return 1;
        sess[r] = (double)(now_ns() - t0) / (double)spans;
        if (stint_session_finish(s) != STINT_OK)
            return 1;
        stint_session_free(s);
    }
    stint_markers_off();
    stint_get_stats(&st1);

    double base = bench_median(drain[CFG_NONE], reps);
    printf("bench_sinks: %ld spans x %d reps per configuration, medians (ns per span)\n", spans, reps);
    printf("%-26s %10s %10s %12s\n", "sink", "record", "drain", "drain/base");
    for (int c = 0; c < CFG_NCFG; c++) {
        double d = bench_median(drain[c], reps);
        printf("%-26s %10.1f %10.1f %11.2fx\n", cfg_names[c], bench_median(rec[c], reps), d, d / base);
    }
    printf("%-26s %10s %10.1f %12s\n", "JSONL session (explicit)", "-", bench_median(sess, reps), "(begin+end)");
    printf("spans dropped during the runs: %llu\n",
           (unsigned long long)(st1.spans_dropped - st0.spans_dropped));
    snprintf(path, sizeof path, "%s/bench_sinks_markers.log", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/bench_sinks_trace.json", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/bench_sinks_session.jsonl", dir);
    unlink(path);
    return 0;
}
