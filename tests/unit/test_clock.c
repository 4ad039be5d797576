/* SPDX-License-Identifier: MIT */
/* The clock: whatever source the library chose (calibrated TSC or
 * CLOCK_MONOTONIC), a span's converted ts/dur must lie inside the
 * CLOCK_MONOTONIC readings taken around it, on every CPU, over time. */
#include "check.h"
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

enum { SPANS_PER_CPU = 2000 };

typedef struct {
    int64_t before, after;
} bracket;

static bracket brackets[CPU_SETSIZE][SPANS_PER_CPU];
static int ncpus;
static int64_t worst_ns;
static long bad;
static long seen;

static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    (void)len;
    int cpu, i;
    long long ts, dur;
    const char *n = strstr(line, " name=c");
    if (!n || sscanf(n, " name=c%d.%d ts=%lld dur=%lld", &cpu, &i, &ts, &dur) != 4)
        return;
    seen++;
    const bracket *b = &brackets[cpu][i];
    /* allow 1 us for the interpolation between calibration points */
    int64_t early = b->before - ts, late = (ts + dur) - b->after;
    int64_t e = early > late ? early : late;
    if (e > worst_ns)
        worst_ns = e;
    if (e > 1000)
        bad++;
}

static const stint_loc *loc_for(int cpu, int i)
{
    static stint_loc locs[CPU_SETSIZE][SPANS_PER_CPU];
    static char names[CPU_SETSIZE][SPANS_PER_CPU][24];
    snprintf(names[cpu][i], sizeof names[cpu][i], "c%d.%d", cpu, i);
    locs[cpu][i].name = names[cpu][i];
    return &locs[cpu][i];
}

int main(void)
{
    /* the capture callback keeps plain globals: only this thread drains */
    setenv("STINT_FLUSH_MS", "600000", 1);
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    { STINT_SCOPE("warmup"); }
    REQUIRE(stint_flush() == STINT_OK);
    struct timespec settle = {0, 100000000}; /* let the writer run its TSC proof */
    nanosleep(&settle, NULL);
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int c = 0; c < CPU_SETSIZE && c < 64; c++) {
        if (!CPU_ISSET(c, &allowed))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            continue;
        ncpus++;
        for (int i = 0; i < SPANS_PER_CPU; i++) {
            const stint_loc *loc = loc_for(c, i);
            brackets[c][i].before = stint_i_mono_ns();
            stint_span s = stint_span_begin(loc);
            if (i % 100 == 0) {
                struct timespec p = {0, 200000};
                nanosleep(&p, NULL);
            }
            stint_span_end(s);
            brackets[c][i].after = stint_i_mono_ns();
        }
        REQUIRE(stint_flush() == STINT_OK);
    }
    sched_setaffinity(0, sizeof allowed, &allowed);
    REQUIRE(stint_flush() == STINT_OK);
    stint_stats st;
    stint_get_stats(&st);
    printf("clock: %s; %d CPUs, %ld spans checked, worst excursion %lld ns, %ld beyond 1 us\n",
           st.clock_tsc ? "calibrated TSC" : "CLOCK_MONOTONIC", ncpus, seen, (long long)worst_ns, bad);
    CHECK_EQ_I64(seen, (long)ncpus * SPANS_PER_CPU);
    CHECK_EQ_I64(bad, 0);
    CHECK_DONE();
}
