/* SPDX-License-Identifier: MIT */
/*
 * bench_json_skip.c - throughput of stint_json_skip's paths on Chrome "args"
 * objects, the values the Chrome reader skips most. The objects come from a
 * trace (every "args" object in FILE, up to 64 MB of them) or, without FILE,
 * from a seeded generator of Kineto-like args (ints, shape lists, type names,
 * a few floats). They sit one per line in one padded buffer, and each skip
 * runs with the window ending at the buffer's end, as in the reader.
 *
 * Paths, each one followed by the general skip where it gives up (what
 * stint_json_skip does): general alone; the token walk with 8-byte strings
 * and digits (swar), with 32-byte strings (token, the fast path before this
 * bench was written) and with 32-byte strings and 8-byte digit runs (digits);
 * the 64-byte block walk on AVX2 (block) and on AVX-512BW (block512); the
 * shape cache of json_shape.h in front of the best of those (shapes: one
 * cache through all rounds, which learns the shapes in the first). Each
 * round times every path once, in turn, in thread CPU time (the machine may
 * be shared), and the medians over REPEAT rounds (default 11) are
 * printed in MB/s with the block walk's ratio to the token walk and to
 * general. A path this CPU lacks is reported as such. All paths must end
 * every value at the same byte.
 *
 * usage: bench_json_skip [FILE|-] [REPEAT] [PATH]  (PATH: only that one besides general)
 * BENCH_SKIP_MB=N takes only the first N MiB of a trace's args objects, so
 * that they stay in the caches (as the reader's freshly read blocks do).
 */
#include "read/json.h"
#include "read/json_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BYTES (64u << 20)
#define MAX_REPEAT 101

static char *buf;
static size_t len, cap;
static size_t *starts;
static size_t nvals, cap_vals;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: the machine is shared */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Appends one value (n bytes at s) and a newline to the buffer. */
static void add_value(const char *s, size_t n)
{
    if (len + n + 1 + STINT_JSON_PAD > cap) {
        cap = (len + n + 1 + STINT_JSON_PAD) * 2;
        buf = realloc(buf, cap);
    }
    if (nvals == cap_vals) {
        cap_vals = cap_vals ? cap_vals * 2 : 4096;
        starts = realloc(starts, cap_vals * sizeof *starts);
    }
    if (!buf || !starts) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    starts[nvals++] = len;
    memcpy(buf + len, s, n);
    len += n;
    buf[len++] = '\n';
}

/* Every "args" object of a trace, each one's end found by the general skip. */
static int load_trace(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)size + STINT_JSON_PAD);
    if (!t || fread(t, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        fclose(f);
        free(t);
        return -1;
    }
    fclose(f);
    memset(t + size, 0, STINT_JSON_PAD);
    const char *end = t + size;
    const char *lim = getenv("BENCH_SKIP_MB"); /* fewer bytes of args: a working set the caches hold */
    size_t max_bytes =
        lim && atoi(lim) > 0 && (size_t)atoi(lim) < (MAX_BYTES >> 20) ? (size_t)atoi(lim) << 20 : MAX_BYTES;
    for (const char *p = t; (p = strstr(p, "\"args\":")) != NULL && len < max_bytes;) {
        struct stint_json j = {.p = p + 7, .end = end, .at_eof = 1};
        if (stint_json_ws(&j) != '{') {
            p += 7;
            continue;
        }
        const char *a = j.p;
        if (stint_i_json_skip_general(&j) != STINT_JSON_OK) {
            fprintf(stderr, "%s: bad args object at byte %td\n", path, a - t);
            free(t);
            return -1;
        }
        add_value(a, (size_t)(j.p - a));
        p = j.p;
    }
    free(t);
    return 0;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* About 24 MB of Kineto-like args: CPU ops with shapes, kernels with launch
 * parameters and floats, runtime calls with ids. */
static void generate(void)
{
    static const char *types[] = {"c10::BFloat16", "float", "Scalar", "long int", "c10::Half", ""};
    char v[1024];
    for (unsigned i = 0; len < (24u << 20); i++) {
        int n;
        unsigned kind = rnd(3);
        if (kind == 0) {
            n = snprintf(v, sizeof v,
                         "{\"External id\": %u, \"Record function id\": 0, \"Sequence number\": %u, "
                         "\"Fwd thread id\": 0, \"Concrete Inputs\": [\"\", \"%u\"], \"Input type\": [\"%s\", \"%s\"], "
                         "\"Input Strides\": [[%u, 1], [%u, 1]], \"Input Dims\": [[%u, %u], [%u, %u]], \"Ev Idx\": %u}",
                         i, rnd(5000), rnd(10), types[rnd(6)], types[rnd(6)], 1u << rnd(13), 1u << rnd(13),
                         1u << rnd(11), 1u << rnd(11), 1u << rnd(11), 1u << rnd(11), i);
        } else if (kind == 1) {
            n = snprintf(v, sizeof v,
                         "{\"External id\": %u, \"queued\": 0, \"device\": %u, \"context\": 1, \"stream\": %u, "
                         "\"correlation\": %u, \"registers per thread\": %u, \"shared memory\": %u, "
                         "\"blocks per SM\": %u.%06u, \"warps per SM\": %u.%06u, \"grid\": [%u, 1, 1], "
                         "\"block\": [%u, 1, 1], \"est. achieved occupancy %%\": %u}",
                         i, rnd(8), rnd(32), 50000 + i, 16 * rnd(16), 1024u << rnd(6), rnd(8), rnd(1000000),
                         rnd(40), rnd(1000000), 1u << rnd(12), 32u << rnd(5), rnd(100));
        } else {
            n = snprintf(v, sizeof v, "{\"External id\": %u, \"cbid\": %u, \"correlation\": %u}", i, rnd(300),
                         50000 + i);
        }
        add_value(v, (size_t)n);
    }
}

enum { P_GENERAL, P_SWAR, P_TOKEN, P_DIGITS, P_BLOCK, P_BLOCK512, P_SHAPES, NPATHS };
static const char *const path_name[NPATHS] = {"general", "swar", "token", "digits", "block", "block512", "shapes"};
static const int path_id[NPATHS] = {-1,
                                    STINT_I_JSON_FAST_SWAR,
                                    STINT_I_JSON_FAST_TOKEN,
                                    STINT_I_JSON_FAST_DIGITS,
                                    STINT_I_JSON_FAST_BLOCK,
                                    STINT_I_JSON_FAST_BLOCK512,
                                    STINT_I_JSON_FAST_AUTO};

/* Skips every value with one path; returns the sum of end offsets (a check
 * that all paths agree) and counts the values the fast path gave up on. */
static uint64_t run_path(int path, size_t *gave_up)
{
    const char *end = buf + len;
    uint64_t sum = 0;
    *gave_up = 0;
    /* shapes: one cache kept from round to round, as a reader keeps it
     * through a trace (the first round learns the shapes; the median is
     * the steady state) */
    static struct stint_jshape *kept;
    if (path == P_SHAPES && !kept)
        kept = stint_i_jshape_new();
    struct stint_jshape *sh = path == P_SHAPES ? kept : NULL;
    for (size_t i = 0; i < nvals; i++) {
        struct stint_json j = {.p = buf + starts[i], .end = end, .at_eof = 1};
        const char *e = path == P_GENERAL ? NULL
                        : path == P_SHAPES ? stint_i_jshape_skip(sh, j.p, end)
                                           : stint_i_json_fast_skip(j.p, end, path_id[path]);
        if (e)
            j.p = e;
        else {
            *gave_up += path != P_GENERAL;
            if (stint_i_json_skip_general(&j) != STINT_JSON_OK) {
                fprintf(stderr, "value %zu rejected\n", i);
                exit(1);
            }
        }
        sum += (uint64_t)(j.p - buf);
    }
    return sum;
}

int main(int argc, char **argv)
{
    const char *file = argc > 1 && strcmp(argv[1], "-") != 0 ? argv[1] : NULL;
    int rep = argc > 2 ? atoi(argv[2]) : 11;
    if (rep < 1 || rep > MAX_REPEAT)
        rep = 11;
    if (file ? load_trace(file) != 0 : (generate(), 0))
        return 3;
    if (!nvals) {
        fprintf(stderr, "no args objects found\n");
        return 1;
    }
    memset(buf + len, 0, STINT_JSON_PAD);
    int have[NPATHS];
    char probe[3 + STINT_JSON_PAD] = "[] ";
    const char *only = argc > 3 ? argv[3] : NULL; /* one path (and general), e.g. for callgrind */
    for (int p = 0; p < NPATHS; p++) /* a path this CPU lacks answers NULL even on "[]" */
        have[p] = p == P_GENERAL || ((!only || !strcmp(only, path_name[p])) &&
                                     stint_i_json_fast_skip(probe, probe + 3, path_id[p]) != NULL);
    struct stint_jshape *probe_sh = stint_i_jshape_new(); /* NULL: no shape path here */
    have[P_SHAPES] = have[P_SHAPES] && probe_sh;
    stint_i_jshape_free(probe_sh);
    static double t[NPATHS][MAX_REPEAT];
    size_t gave_up[NPATHS] = {0};
    uint64_t want = 0;
    for (int r = 0; r < rep; r++) {
        for (int p = 0; p < NPATHS; p++) {
            if (!have[p])
                continue;
            double t0 = now_s();
            uint64_t sum = run_path(p, &gave_up[p]);
            t[p][r] = now_s() - t0;
            if (p == P_GENERAL)
                want = sum;
            else if (sum != want) {
                fprintf(stderr, "%s ends values elsewhere than general\n", path_name[p]);
                return 1;
            }
        }
    }
    size_t val_bytes = len - nvals; /* less the newlines */
    printf("%zu args objects, %zu bytes (%s), %d rounds\n", nvals, val_bytes, file ? file : "generated", rep);
    double mbs[NPATHS] = {0};
    for (int p = 0; p < NPATHS; p++) {
        if (!have[p]) {
            printf("%-8s not run (not on this CPU, or not asked for)\n", path_name[p]);
            continue;
        }
        qsort(t[p], (size_t)rep, sizeof t[p][0], cmp_d);
        mbs[p] = (double)val_bytes / t[p][rep / 2] / 1e6;
        printf("%-8s median %8.1f MB/s  (%.2f ns/value, gave up on %zu)\n", path_name[p], mbs[p],
               t[p][rep / 2] * 1e9 / (double)nvals, gave_up[p]);
    }
    if (mbs[P_BLOCK] > 0 && mbs[P_TOKEN] > 0)
        printf("block/token %.2fx, block/general %.2fx\n", mbs[P_BLOCK] / mbs[P_TOKEN], mbs[P_BLOCK] / mbs[P_GENERAL]);
    if (mbs[P_BLOCK512] > 0 && mbs[P_BLOCK] > 0)
        printf("block512/block %.2fx\n", mbs[P_BLOCK512] / mbs[P_BLOCK]);
    if (mbs[P_SHAPES] > 0 && mbs[P_BLOCK512] > 0)
        printf("shapes/block512 %.2fx\n", mbs[P_SHAPES] / mbs[P_BLOCK512]);
    free(buf);
    free(starts);
    return 0;
}
