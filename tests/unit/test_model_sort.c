/* SPDX-License-Identifier: MIT */
/*
 * test_model_sort.c - stint_model_finish orders each track's slices as
 * model.h says (ts; then slices with a known duration, longest first; then
 * B-opened slices and instants in input order) for shuffled tracks of many
 * sizes with heavy ts and duration ties, so every step of the key sort and
 * the in-place permutation (long cycles, fixed points) is exercised. Each
 * slice carries its own identity in `cat` to check that records move whole.
 */
#include "check.h"
#include "model/model.h"

static uint64_t rng = 0x243F6A8885A308D3ULL;

static uint64_t next(void) { return check_xorshift(&rng); }

static int cls(const struct stint_slice *s)
{
    return (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)) ? 1 : 0;
}

/* 1 when a may come before b (or equals it) in model.h's order */
static int ordered(const struct stint_slice *a, const struct stint_slice *b)
{
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns;
    if (cls(a) != cls(b))
        return cls(a) < cls(b);
    if (cls(a) == 0 && a->dur_ns != b->dur_ns)
        return a->dur_ns > b->dur_ns;
    return a->seq <= b->seq;
}

static void check_size(size_t n, int64_t ts_range)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t lane = stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST);
    uint32_t track = stint_model_lane_at(&m, lane)->track;
    for (size_t i = 0; i < n; i++) {
        struct stint_slice s = {.track = track};
        s.ts_ns = (int64_t)(next() % (uint64_t)ts_range) * 1000;
        if (next() % 5 == 0) {
            s.flags = STINT_SLICE_INSTANT;
            s.dur_ns = 0;
        } else {
            s.flags = STINT_SLICE_COMPLETE;
            s.dur_ns = (int64_t)(next() % 4) * 500;
        }
        s.cat = (uint32_t)(i + 1); /* identity: survives the move only if the record moves whole */
        s.name = s.cat ^ (uint32_t)s.ts_ns;
        stint_model_add_slice(&m, &s);
    }
    stint_model_finish(&m);
    REQUIRE(stint_model_nslices(&m) == n);
    size_t bad = 0;
    unsigned char *seen = calloc(n + 1, 1);
    REQUIRE(seen);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(&m, i);
        if (s->name != (s->cat ^ (uint32_t)s->ts_ns) || s->cat == 0 || s->cat > n || seen[s->cat])
            bad++;
        else
            seen[s->cat] = 1;
        if (i && !ordered(stint_model_slice(&m, i - 1), s))
            bad++;
    }
    if (bad)
        fprintf(stderr, "n=%zu range=%lld: %zu slices out of place\n", n, (long long)ts_range, bad);
    CHECK_EQ_I64(bad, 0);
    free(seen);
    stint_model_free(&m);
}

int main(void)
{
    static const size_t sizes[] = {2, 3, 15, 16, 17, 31, 33, 100, 1000, 4099};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_size(sizes[i], 3);                      /* nearly all ties */
        check_size(sizes[i], (int64_t)sizes[i] * 10); /* few ties */
    }
    CHECK_DONE();
}
