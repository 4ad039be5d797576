/* SPDX-License-Identifier: MIT */
/*
 * clock.c - timestamps: CLOCK_MONOTONIC, a calibrated TSC, or a test clock.
 *
 * Marker ts= values promise CLOCK_MONOTONIC ns. The hot path may read the
 * TSC instead (rdtsc ~11 ns here against ~27 ns for clock_gettime) but only
 * after the TSC proved itself: the writer thread samples (TSC, MONOTONIC)
 * pairs on every allowed CPU and checks that one linear map predicts
 * MONOTONIC on all of them within STINT_I_TSC_TOL_NS. The kernel here flags
 * the TSC unstable, so nothing is assumed.
 *
 * Conversion never extrapolates far: every drain records a fresh calibration
 * point, and a raw TSC value is mapped by interpolating between the two
 * points around it, so drift between points cannot accumulate. Invariant:
 * calibration points are appended in increasing TSC and ns order, and only
 * with the drain lock held.
 */
#include "internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define STINT_I_HAVE_TSC 1
#else
#define STINT_I_HAVE_TSC 0
#endif

#define STINT_I_TSC_TOL_NS 250
#define STINT_I_CAL_POINTS 256

_Atomic int stint_i_clock_mode = STINT_I_CLOCK_MONO;

static int64_t (*g_test_clock)(void);
static _Atomic int g_clock_locked; /* set by STINT_CLOCK=mono or a test clock */

typedef struct cal_point {
    int64_t tsc;
    int64_t ns;
} cal_point;

/* Ring of calibration points, oldest first from g_cal_first. */
static cal_point g_cal[STINT_I_CAL_POINTS];
static unsigned g_cal_n, g_cal_first;
static int64_t g_anchor_mono, g_anchor_real;

int64_t stint_i_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t stint_i_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t read_tsc(void)
{
#if STINT_I_HAVE_TSC
    return (int64_t)__rdtsc();
#else
    return stint_i_mono_ns();
#endif
}

int64_t stint_i_clock_read_slow(int mode)
{
    if (mode == STINT_I_CLOCK_TSC)
        return read_tsc();
    if (mode == STINT_I_CLOCK_TEST && g_test_clock)
        return g_test_clock();
    return stint_i_mono_ns();
}

int64_t stint_now_ns(void)
{
    if (atomic_load_explicit(&stint_i_clock_mode, memory_order_relaxed) == STINT_I_CLOCK_TEST && g_test_clock)
        return g_test_clock();
    return stint_i_mono_ns();
}

void stint_i_clock_set_test(int64_t (*fn)(void))
{
    g_test_clock = fn;
    atomic_store(&g_clock_locked, 1);
    atomic_store(&stint_i_clock_mode, fn ? STINT_I_CLOCK_TEST : STINT_I_CLOCK_MONO);
}

void stint_i_clock_anchor(int64_t *mono_ns, int64_t *real)
{
    if (!g_anchor_mono) {
        g_anchor_real = stint_i_real_ns();
        g_anchor_mono = stint_i_mono_ns();
    }
    if (mono_ns)
        *mono_ns = g_anchor_mono;
    if (real)
        *real = g_anchor_real;
}

const char *stint_i_clock_name(void)
{
    switch (atomic_load(&stint_i_clock_mode)) {
    case STINT_I_CLOCK_TSC: return "CLOCK_MONOTONIC (read via calibrated TSC)";
    case STINT_I_CLOCK_TEST: return "test clock";
    default: return "CLOCK_MONOTONIC";
    }
}

/* One (TSC, MONOTONIC) pair with the TSC read bracketed by two MONOTONIC
 * reads; the narrowest of a few tries wins. Returns the bracket width. */
static int64_t sample_pair(cal_point *out)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < 7; i++) {
        int64_t a = stint_i_mono_ns();
        int64_t t = read_tsc();
        int64_t b = stint_i_mono_ns();
        if (b - a < best) {
            best = b - a;
            out->tsc = t;
            out->ns = a + (b - a) / 2;
        }
    }
    return best;
}

static inline cal_point cal_at(unsigned i) { return g_cal[(g_cal_first + i) % STINT_I_CAL_POINTS]; }

/* The segment used last: [lo_tsc, hi_tsc) maps by ns = lo_ns + ((t - lo_tsc) *
 * mult_q32 >> 32). Conversions come in runs from the same stretch of time,
 * so one cached segment turns nearly every conversion into a multiply. */
static struct {
    int64_t lo_tsc, hi_tsc, lo_ns;
    int64_t mult_q32; /* ns per tick in 32.32 fixed point (a few GHz: < 2^32) */
    unsigned gen;
} g_seg;
static unsigned g_cal_gen = 1;

static void cal_push(cal_point p)
{
    if (g_cal_n) {
        const cal_point *last = &g_cal[(g_cal_first + g_cal_n - 1) % STINT_I_CAL_POINTS];
        if (p.tsc <= last->tsc || p.ns <= last->ns)
            return; /* keep the table monotonic in both coordinates */
    }
    g_cal_gen++;
    if (g_cal_n < STINT_I_CAL_POINTS) {
        g_cal[(g_cal_first + g_cal_n) % STINT_I_CAL_POINTS] = p;
        g_cal_n++;
    } else {
        g_cal[g_cal_first] = p;
        g_cal_first = (g_cal_first + 1) % STINT_I_CAL_POINTS;
    }
}

void stint_i_clock_calibrate_point(void)
{
    if (atomic_load_explicit(&stint_i_clock_mode, memory_order_relaxed) != STINT_I_CLOCK_TSC)
        return;
    cal_point p;
    sample_pair(&p);
    if (g_cal_n) {
        /* Keep checking the proof: if the TSC stepped back, or the line
         * through the table misses CLOCK_MONOTONIC by more than 100 us (a
         * migration, a host TSC reset), new spans go back to CLOCK_MONOTONIC;
         * records already taken keep converting through the table. */
        cal_point last = cal_at(g_cal_n - 1);
        int64_t predicted = p.tsc > last.tsc ? stint_i_clock_to_ns(STINT_I_CLOCK_TSC, p.tsc) : INT64_MIN;
        int64_t err = predicted == INT64_MIN ? INT64_MAX : predicted - p.ns;
        if (err < 0)
            err = -err;
        if (err > 100000 && p.ns - last.ns < 1000000000) {
            atomic_store(&stint_i_clock_mode, STINT_I_CLOCK_MONO);
            atomic_store(&g_clock_locked, 1);
            return;
        }
    }
    cal_push(p);
}


/* ns = a.ns + (t - a.tsc) * (b.ns - a.ns) / (b.tsc - a.tsc), in 128-bit
 * (used by the proof; conversions use the cached segment below). */
static int64_t interp(cal_point a, cal_point b, int64_t t)
{
    stint_i_i128 num = (stint_i_i128)(t - a.tsc) * (b.ns - a.ns);
    return a.ns + (int64_t)(num / (b.tsc - a.tsc));
}

/* Caches the line through a and b as serving [a.tsc, hi). */
static void seg_set(cal_point a, cal_point b, int64_t hi)
{
    g_seg.lo_tsc = a.tsc;
    g_seg.lo_ns = a.ns;
    g_seg.mult_q32 = (int64_t)(((stint_i_i128)(b.ns - a.ns) << 32) / (b.tsc - a.tsc));
    g_seg.hi_tsc = hi;
    g_seg.gen = g_cal_gen;
}

int64_t stint_i_clock_to_ns(int mode, int64_t raw)
{
    if (mode != STINT_I_CLOCK_TSC || g_cal_n < 2)
        return raw;
    if (!(g_seg.gen == g_cal_gen && raw >= g_seg.lo_tsc && raw < g_seg.hi_tsc)) {
        cal_point first = cal_at(0), last = cal_at(g_cal_n - 1);
        if (raw < first.tsc) {
            /* before the table: the long-run rate, back from the first point
             * (not cached: the cached segment only serves raw >= lo_tsc) */
            seg_set(first, last, first.tsc);
            g_seg.gen = 0;
            return first.ns + (int64_t)(((stint_i_i128)(raw - first.tsc) * g_seg.mult_q32) >> 32);
        } else if (raw >= last.tsc) {
            /* after the newest point: the rate of the last stretch of at
             * least 1 ms keeps the error of a fresh point small */
            unsigned i = g_cal_n - 2;
            while (i > 0 && last.ns - cal_at(i).ns < 1000000)
                i--;
            seg_set(cal_at(i), last, INT64_MAX);
            g_seg.lo_tsc = last.tsc; /* same slope, anchored at the newest point */
            g_seg.lo_ns = last.ns;
        } else {
            unsigned lo = 0, hi = g_cal_n - 1; /* cal[lo].tsc <= raw < cal[hi].tsc */
            while (hi - lo > 1) {
                unsigned mid = (lo + hi) / 2;
                if (cal_at(mid).tsc <= raw)
                    lo = mid;
                else
                    hi = mid;
            }
            seg_set(cal_at(lo), cal_at(hi), cal_at(hi).tsc);
        }
    }
    return g_seg.lo_ns + (int64_t)(((stint_i_i128)(raw - g_seg.lo_tsc) * g_seg.mult_q32) >> 32);
}

void stint_i_clock_pair_to_ns(int mode, int64_t a, int64_t b, int64_t *a_ns, int64_t *b_ns)
{
    /* both in the cached segment (a span's two ends nearly always are): the
     * conversions stint_i_clock_to_ns would make, without its two calls */
    if (mode == STINT_I_CLOCK_TSC && g_cal_n >= 2 && g_seg.gen == g_cal_gen && a >= g_seg.lo_tsc &&
        a < g_seg.hi_tsc && b >= g_seg.lo_tsc && b < g_seg.hi_tsc) {
        *a_ns = g_seg.lo_ns + (int64_t)(((stint_i_i128)(a - g_seg.lo_tsc) * g_seg.mult_q32) >> 32);
        *b_ns = g_seg.lo_ns + (int64_t)(((stint_i_i128)(b - g_seg.lo_tsc) * g_seg.mult_q32) >> 32);
        return;
    }
    *a_ns = stint_i_clock_to_ns(mode, a);
    *b_ns = stint_i_clock_to_ns(mode, b);
}

static int cpu_has_invariant_tsc(void)
{
#if STINT_I_HAVE_TSC
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    return constant && nonstop;
#else
    return 0;
#endif
}

/* The proof: a line fitted on CPU A over ~20 ms must predict MONOTONIC on
 * every other allowed CPU, sampled in between, within the tolerance plus the
 * bracket width of the sample. */
static int tsc_proof(cal_point *first, cal_point *last)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    int cpus[CPU_SETSIZE], ncpu = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET((size_t)c, &allowed))
            cpus[ncpu++] = c;
    if (ncpu == 0)
        return 0;
    cpu_set_t one;
    int ok = 1;
    cal_point mid[CPU_SETSIZE];
    int64_t width[CPU_SETSIZE];
    CPU_ZERO(&one);
    CPU_SET((size_t)cpus[0], &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 0;
    int64_t w0 = sample_pair(first);
    for (int i = 0; i < ncpu; i++) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        CPU_ZERO(&one);
        CPU_SET((size_t)cpus[i], &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) {
            ok = 0;
            break;
        }
        width[i] = sample_pair(&mid[i]);
    }
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
    CPU_ZERO(&one);
    CPU_SET((size_t)cpus[0], &one);
    if (ok && sched_setaffinity(0, sizeof one, &one) != 0)
        ok = 0;
    int64_t w1 = sample_pair(last);
    sched_setaffinity(0, sizeof allowed, &allowed);
    if (!ok || last->tsc <= first->tsc || last->ns <= first->ns || w0 > 2000 || w1 > 2000)
        return 0;
    for (int i = 0; i < ncpu; i++) {
        int64_t predicted = interp(*first, *last, mid[i].tsc);
        int64_t err = predicted - mid[i].ns;
        if (err < 0)
            err = -err;
        if (err > STINT_I_TSC_TOL_NS + width[i] + (w0 + w1) / 2)
            return 0;
    }
    return 1;
}

void stint_i_clock_try_tsc(void)
{
    const char *env = getenv("STINT_CLOCK");
    if (atomic_load(&g_clock_locked))
        return;
    if (env && !strcmp(env, "mono"))
        return;
    int forced = env && !strcmp(env, "tsc");
    if (!forced && !cpu_has_invariant_tsc())
        return;
    cal_point a, b;
    if (!tsc_proof(&a, &b)) /* (~20 ms; without the drain lock: until the TSC mode is set no drain touches the
                              * table, calibrate_point) */
        return;
    stint_i_drain_lock();
    if (!atomic_load(&g_clock_locked)) {
        cal_push(a);
        cal_push(b);
        if (g_cal_n >= 2)
            atomic_store(&stint_i_clock_mode, STINT_I_CLOCK_TSC);
    }
    stint_i_drain_unlock();
}
