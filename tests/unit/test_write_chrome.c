/*
 * test_write_chrome.c - the Chrome writer's invariants on random traces
 * (fixed seeds): improperly overlapping spans are moved to extra tracks so
 * that reading the output back finds no overlap repair; every span survives
 * with its ts, dur and name; moved spans are counted; ts/dur have exactly
 * three decimals; rebasing subtracts the earliest ts.
 */
#include "check.h"
#include "readers.h"
#include "writers.h"

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
        s.tts_ns = s.tdur_ns = STINT_TS_NONE;
        s.args = STINT_NO_ID;
        s.flags = STINT_SLICE_COMPLETE;
        stint_model_add_slice(&m, &s);
    }
    stint_model_finish(&m);
    CHECK(m.repairs[STINT_REPAIR_OVERLAP] > 0); /* the input does overlap improperly */
    char path[512];
    snprintf(path, sizeof path, "%s/out%d.json", dir, seed);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    struct stint_write_opts wo = {.rebase = 1};
    struct stint_write_stats st;
    CHECK(stint_write_chrome(&m, f, &wo, &st) == 0);
    fclose(f);
    CHECK_EQ_U64(st.slices, N);
    CHECK(st.moved_overlap > 0);
    CHECK_EQ_I64(st.origin_ns, stint_model_origin(&m));

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
    f = fopen(path, "r");
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

int main(void)
{
    char dir[] = "/tmp/stint_test_write_chrome_XXXXXX";
    REQUIRE(mkdtemp(dir));
    for (int seed = 1; seed <= 5; seed++)
        one_round(seed, dir);
    rmdir(dir);
    CHECK_DONE();
}
