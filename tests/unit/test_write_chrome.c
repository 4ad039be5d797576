/* SPDX-License-Identifier: MIT */
/*
 * test_write_chrome.c - the Chrome writer's invariants on random traces
 * (fixed seeds): improperly overlapping spans are moved to extra tracks so
 * that reading the output back finds no overlap repair; every span survives
 * with its ts, dur and name; moved spans are counted; ts/dur have exactly
 * three decimals; rebasing subtracts the earliest ts, of each clock on its
 * own (host and device-clock lanes are not aligned).
 */
#include "check.h"
#include "read/readers.h"
#include "write/writers.h"

#include <ctype.h>
#include <unistd.h>

static uint64_t rng = 1;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

struct key {
    int64_t ts, dur;
    uint32_t name;
};
static int key_cmp(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur < b->dur ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

static int key_cmp_pair(const void *pa, const void *pb)
{
    const int64_t *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Spans (finished, thread tracks) of m as sorted keys; names as the numeric
 * suffix of "n<k>". */
static size_t keys_of(const struct stint_model *m, struct key *out, int64_t shift)
{
    size_t k = 0;
    for (size_t i = 0; i < stint_model_nslices(m); i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        out[k].ts = s->ts_ns - shift;
        out[k].dur = s->dur_ns;
        out[k].name = (uint32_t)atoi(stint_model_str(m, s->name, NULL) + 1);
        k++;
    }
    qsort(out, k, sizeof *out, key_cmp);
    return k;
}

/* m written as rebased Chrome JSON to path, its stats in *st. */
static void write_rebased(const struct stint_model *m, const char *path, struct stint_write_stats *st)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    struct stint_write_opts wo = {.rebase = 1};
    CHECK(stint_write_chrome(m, f, &wo, st) == 0);
    fclose(f);
}

static void one_round(int seed, const char *dir)
{
    rng = (uint64_t)seed * 2654435761u + 7;
    struct stint_model m;
    REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_ARGS) == 0);
    enum { N = 400 };
    for (int i = 0; i < N; i++) {
        uint32_t lane = stint_model_lane(&m, 1, (int64_t)(1 + next() % 3), STINT_CLOCK_HOST);
        char nm[16];
        int nl = snprintf(nm, sizeof nm, "n%d", (int)(next() % 20));
        struct stint_slice s = {0};
        s.track = stint_model_lane_at(&m, lane)->track;
        s.name = stint_model_intern(&m, nm, (size_t)nl);
        s.ts_ns = 1000000 + (int64_t)(next() % 100000);
        s.dur_ns = (int64_t)(next() % 20000);
        s.args = STINT_NO_ID;
        s.flags = STINT_SLICE_COMPLETE;
        stint_model_add_slice(&m, &s);
    }
    stint_model_finish(&m);
    CHECK(m.repairs[STINT_REPAIR_OVERLAP] > 0); /* the input does overlap improperly */
    char path[512];
    snprintf(path, sizeof path, "%s/out%d.json", dir, seed);
    struct stint_write_stats st;
    write_rebased(&m, path, &st);
    CHECK_EQ_U64(st.slices, N);
    CHECK(st.moved_overlap > 0);
    CHECK_EQ_I64(st.origin_ns, stint_model_origins(&m).host);

    struct stint_model back;
    REQUIRE(stint_model_init(&back, 0) == 0);
    struct stint_read_opts ro = {.quiet = 1};
    CHECK_EQ_I64(stint_read_trace(path, &back, &ro), 0);
    CHECK_EQ_U64(back.repairs[STINT_REPAIR_OVERLAP], 0); /* strictly nested now */
    CHECK_EQ_U64(stint_model_nslices(&back), N);
    struct key *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b); /* zeroed: padding is compared */
    REQUIRE(a && b);
    size_t na = keys_of(&m, a, st.origin_ns), nb = keys_of(&back, b, 0);
    CHECK_EQ_U64(na, nb);
    CHECK(na == nb && memcmp(a, b, na * sizeof *a) == 0);
    free(a);
    free(b);
    /* three decimals on every ts and dur */
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    char line[4096];
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        for (const char *p = line; (p = strstr(p, "\"ts\":")) || 0;) {
            p += 5;
            const char *dot = strchr(p, '.');
            if (!dot || !isdigit((unsigned char)dot[1]) || !isdigit((unsigned char)dot[2]) ||
                !isdigit((unsigned char)dot[3]) || isdigit((unsigned char)dot[4]))
                bad++;
        }
    }
    fclose(f);
    CHECK_EQ_I64(bad, 0);
    unlink(path);
    stint_model_free(&back);
    stint_model_free(&m);
}

/* A host lane from 5e12 ns and a device-clock lane from 100 ns: each is
 * rebased by its own earliest ts (one origin over both, 100, left the host
 * spans unrebased; the host's origin alone would put the device spans below
 * 0, where Perfetto drops them); the counter sample goes with the host. */
static void device_origins(const char *dir)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_SAMPLES) == 0);
    uint32_t host = stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST), dev = stint_model_lane(&m, 1, 1, STINT_CLOCK_DEVICE);
    const struct {
        uint32_t lane;
        int64_t ts, dur;
    } in[] = {{host, 5000000000000, 900}, {host, 5000000000200, 300}, {dev, 100, 50}, {dev, 400, 20}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        struct stint_slice s = {.track = stint_model_lane_at(&m, in[i].lane)->track,
                                .name = stint_model_intern(&m, "x", 1), .ts_ns = in[i].ts, .dur_ns = in[i].dur,
                                .args = STINT_NO_ID,
                                .flags = STINT_SLICE_COMPLETE};
        stint_model_add_slice(&m, &s);
    }
    stint_model_counter(&m, 1, stint_model_intern(&m, "c value", 7), 5000000000100, 1.0);
    stint_model_finish(&m);
    char path[512];
    snprintf(path, sizeof path, "%s/dev.json", dir);
    struct stint_write_stats st;
    write_rebased(&m, path, &st);
    CHECK_EQ_I64(st.origin_ns, 5000000000000);
    CHECK_EQ_I64(st.device_origin_ns, 100);
    struct stint_model back;
    REQUIRE(stint_model_init(&back, STINT_MODEL_KEEP_SAMPLES) == 0);
    struct stint_read_opts ro = {.quiet = 1};
    CHECK_EQ_I64(stint_read_trace(path, &back, &ro), 0);
    REQUIRE(stint_model_nslices(&back) == 4);
    int64_t want[4][2] = {{0, 50}, {0, 900}, {200, 300}, {300, 20}}, got[4][2];
    for (size_t i = 0; i < 4; i++) {
        got[i][0] = stint_model_slice(&back, i)->ts_ns;
        got[i][1] = stint_model_slice(&back, i)->dur_ns;
    }
    qsort(got, 4, sizeof got[0], key_cmp_pair);
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ_I64(got[i][0], want[i][0]);
        CHECK_EQ_I64(got[i][1], want[i][1]);
    }
    REQUIRE(back.samples.len == 1);
    CHECK_EQ_I64(STINT_BA_AT(&back.samples, struct stint_counter_sample, 0).ts_ns, 100);
    CHECK(back.metadata.len > 0);
    unlink(path);
    stint_model_free(&back);
    stint_model_free(&m);
}

int main(void)
{
    char dir[] = "/tmp/stint_test_write_chrome_XXXXXX";
    REQUIRE(mkdtemp(dir));
    for (int seed = 1; seed <= 5; seed++)
        one_round(seed, dir);
    device_origins(dir);
    rmdir(dir);
    CHECK_DONE();
}
