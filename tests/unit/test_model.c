/* SPDX-License-Identifier: MIT */
/*
 * test_model.c - the trace model's matching and nesting rules (model.h):
 * B/E matched in Perfetto's event order after sorting, X ties by duration,
 * zero-length pairs, unfinished and unmatched counting, overlap flags,
 * explicit (cross-thread) parents, async tracks, merging two models, and
 * thread times in the side table (48-byte slices; durations past 32 bits).
 */
#include "check.h"
#include "model/model.h"

static uint32_t S(struct stint_model *m, const char *s) { return stint_model_intern(m, s, strlen(s)); }

static struct stint_slice mk(int64_t ts, int64_t dur, uint32_t name)
{
    struct stint_slice s = {.ts_ns = ts, .dur_ns = dur, .name = name};
    return s;
}

static void x(struct stint_model *m, uint32_t lane, int64_t ts, int64_t dur, const char *name)
{
    struct stint_slice s = mk(ts, dur, S(m, name));
    s.track = stint_model_lane_at(m, lane)->track;
    s.flags = STINT_SLICE_COMPLETE;
    stint_model_add_slice(m, &s);
}

static const struct stint_slice *find(const struct stint_model *m, const char *name)
{
    for (size_t i = 0; i < stint_model_nslices(m); i++)
        if (!strcmp(stint_model_str(m, stint_model_slice(m, i)->name, NULL), name))
            return stint_model_slice(m, i);
    return NULL;
}

/* The thread time and duration of the slice named name in m. */
static void tt_of(const struct stint_model *m, const char *name, int64_t *tts, int64_t *tdur)
{
    const struct stint_slice *s = find(m, name);
    *tts = *tdur = -7;
    if (s)
        stint_model_slice_tt(m, s, tts, tdur);
}

/* Thread times: kept beside 48-byte slices by seq, durations of every size
 * (none, 32-bit, negative, past 2^32 ns), a B's duration from its E, and
 * both across a merge (the second model's seqs moved past the first's). */
static void test_thread_times(void)
{
    CHECK_EQ_I64((int64_t)sizeof(struct stint_slice), 48);
    struct stint_model a, b;
    REQUIRE(stint_model_init(&a, 0) == 0 && stint_model_init(&b, 0) == 0);
    uint32_t la = stint_model_lane(&a, 1, 1, STINT_CLOCK_HOST);
    struct stint_slice s = mk(0, 100, S(&a, "small"));
    s.track = stint_model_lane_at(&a, la)->track;
    s.flags = STINT_SLICE_COMPLETE;
    stint_model_add_slice_tt(&a, &s, 1000, 40);
    s = (struct stint_slice){.ts_ns = 200, .dur_ns = 10, .name = S(&a, "none"), .track = s.track,
                             .flags = STINT_SLICE_COMPLETE};
    stint_model_add_slice_tt(&a, &s, STINT_TS_NONE, 5); /* (a duration without a time: forgotten) */
    s.ts_ns = 300, s.name = S(&a, "huge");
    stint_model_add_slice_tt(&a, &s, 2000, (int64_t)1 << 40);
    s.ts_ns = 400, s.name = S(&a, "negative");
    stint_model_add_slice_tt(&a, &s, 3000, -3);
    s.ts_ns = 500, s.name = S(&a, "notdur");
    stint_model_add_slice_tt(&a, &s, 4000, STINT_TS_NONE);
    uint32_t lb = stint_model_lane(&b, 2, 2, STINT_CLOCK_HOST);
    struct stint_slice bs = mk(10, 0, S(&b, "open"));
    stint_model_begin_tt(&b, lb, &bs, 500);
    stint_model_end(&b, lb, 20, bs.name, (int64_t)5 << 32); /* (thread duration past 32 bits) */
    bs = mk(30, 0, S(&b, "back"));
    stint_model_begin_tt(&b, lb, &bs, 9000);
    stint_model_end(&b, lb, 40, bs.name, 8990);
    bs = mk(50, 0, S(&b, "bare"));
    stint_model_begin(&b, lb, &bs);
    stint_model_end(&b, lb, 60, bs.name, 77);
    uint32_t at = stint_model_track_async(&b, STINT_ASYNC_PROCESS, 2, 0, S(&b, "id1"), S(&b, "async"));
    bs = mk(70, 0, S(&b, "async"));
    stint_model_async_begin_tt(&b, at, &bs, 640); /* (an async end has no thread time) */
    stint_model_async_end(&b, at, 80, bs.name);
    CHECK(stint_model_merge(&a, &b) == 0);
    stint_model_free(&b);
    stint_model_finish(&a);
    int64_t tts, tdur;
    tt_of(&a, "small", &tts, &tdur);
    CHECK_EQ_I64(tts, 1000);
    CHECK_EQ_I64(tdur, 40);
    tt_of(&a, "none", &tts, &tdur);
    CHECK_EQ_I64(tts, STINT_TS_NONE);
    CHECK_EQ_I64(tdur, STINT_TS_NONE);
    CHECK(!(find(&a, "none")->flags & STINT_SLICE_THREAD_TIME));
    tt_of(&a, "huge", &tts, &tdur);
    CHECK_EQ_I64(tts, 2000);
    CHECK_EQ_I64(tdur, (int64_t)1 << 40);
    tt_of(&a, "negative", &tts, &tdur);
    CHECK_EQ_I64(tdur, -3);
    tt_of(&a, "notdur", &tts, &tdur);
    CHECK_EQ_I64(tts, 4000);
    CHECK_EQ_I64(tdur, STINT_TS_NONE);
    tt_of(&a, "open", &tts, &tdur);
    CHECK_EQ_I64(tts, 500);
    CHECK_EQ_I64(tdur, ((int64_t)5 << 32) - 500);
    tt_of(&a, "back", &tts, &tdur);
    CHECK_EQ_I64(tdur, -10);
    tt_of(&a, "async", &tts, &tdur);
    CHECK_EQ_I64(tts, 640);
    CHECK_EQ_I64(tdur, STINT_TS_NONE);
    tt_of(&a, "bare", &tts, &tdur);
    CHECK_EQ_I64(tts, STINT_TS_NONE);
    CHECK_EQ_I64(tdur, STINT_TS_NONE);
    stint_model_free(&a);
}

int main(void)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, STINT_MODEL_KEEP_ARGS) == 0);
    uint32_t l = stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST);
    /* written out of order: E before its B */
    stint_model_end(&m, l, 90, S(&m, "outer"), STINT_TS_NONE);
    struct stint_slice b = mk(10, 0, S(&m, "outer"));
    stint_model_begin(&m, l, &b);
    /* X at equal ts: longer first becomes the parent */
    x(&m, l, 20, 5, "short");
    x(&m, l, 20, 30, "long");
    /* zero-length B/E pair at one ts, written B then E */
    struct stint_slice z = mk(60, 0, S(&m, "zero"));
    stint_model_begin(&m, l, &z);
    stint_model_end(&m, l, 60, S(&m, "zero"), STINT_TS_NONE);
    /* an E closing nothing, a B never closed */
    stint_model_end(&m, l, 95, S(&m, "nobody"), STINT_TS_NONE);
    struct stint_slice open = mk(100, 0, S(&m, "open"));
    stint_model_begin(&m, l, &open);
    /* partial overlap: starts inside "late" and ends after it */
    x(&m, l, 200, 10, "late");
    x(&m, l, 205, 10, "spill");
    /* async on its own track */
    uint32_t at = stint_model_track_async(&m, STINT_ASYNC_PROCESS, 1, S(&m, "c"), S(&m, "0x1"), S(&m, "req"));
    struct stint_slice ab = mk(5, 0, S(&m, "req"));
    stint_model_async_begin(&m, at, &ab);
    stint_model_async_end(&m, at, 50, S(&m, "req"));
    stint_model_async_end(&m, at, 60, S(&m, "req"));
    stint_model_finish(&m);

    const struct stint_slice *o = find(&m, "outer"), *lg = find(&m, "long"), *sh = find(&m, "short");
    REQUIRE(o && lg && sh);
    CHECK_EQ_I64(o->dur_ns, 80);
    CHECK_EQ_I64(o->depth, 0);
    CHECK_EQ_I64(lg->depth, 1);
    CHECK_EQ_I64(sh->depth, 2);
    CHECK(stint_model_slice(&m, sh->parent) == lg);
    CHECK_EQ_I64(find(&m, "zero")->dur_ns, 0);
    CHECK_EQ_I64(find(&m, "open")->dur_ns, -1);
    CHECK(find(&m, "spill")->flags & STINT_SLICE_OVERLAP);
    CHECK_EQ_I64(find(&m, "req")->dur_ns, 45);
    CHECK_EQ_I64(m.repairs[STINT_REPAIR_UNFINISHED], 1);
    CHECK_EQ_I64(m.repairs[STINT_REPAIR_E_UNMATCHED], 1);
    CHECK_EQ_I64(m.repairs[STINT_REPAIR_OVERLAP], 1);
    CHECK_EQ_I64(m.repairs[STINT_REPAIR_ASYNC_UNMATCHED], 1);
    /* sorted by track, then ts within a track */
    for (size_t i = 1; i < stint_model_nslices(&m); i++) {
        const struct stint_slice *p = stint_model_slice(&m, i - 1), *q = stint_model_slice(&m, i);
        CHECK(p->track < q->track || (p->track == q->track && p->ts_ns <= q->ts_ns));
    }
    stint_model_free(&m);

    /* explicit parents across threads (JSONL) */
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t l1 = stint_model_lane(&m, 5, 1, STINT_CLOCK_HOST), l2 = stint_model_lane(&m, 5, 2, STINT_CLOCK_HOST);
    struct stint_slice root = mk(0, 100, S(&m, "root"));
    root.track = stint_model_lane_at(&m, l1)->track;
    root.flags = STINT_SLICE_BEGIN_END | STINT_SLICE_EXPLICIT_PARENT;
    root.parent = STINT_NO_ID;
    uint32_t ri = stint_model_add_slice(&m, &root);
    struct stint_slice kid = mk(10, 20, S(&m, "kid"));
    kid.track = stint_model_lane_at(&m, l2)->track;
    kid.flags = STINT_SLICE_BEGIN_END | STINT_SLICE_EXPLICIT_PARENT;
    kid.parent = ri;
    stint_model_add_slice(&m, &kid);
    stint_model_finish(&m);
    const struct stint_slice *k = find(&m, "kid");
    CHECK(k && k->depth == 1 && k->parent != STINT_NO_ID);
    CHECK(k && stint_model_slice(&m, k->parent) == find(&m, "root"));
    stint_model_free(&m);

    /* merge: a B in the first model, its E in the second */
    struct stint_model a, c;
    REQUIRE(stint_model_init(&a, 0) == 0 && stint_model_init(&c, 0) == 0);
    struct stint_slice bb = mk(1, 0, S(&a, "span"));
    stint_model_begin(&a, stint_model_lane(&a, 7, 7, STINT_CLOCK_HOST), &bb);
    stint_model_counter(&a, 7, S(&a, "ctr v"), 1, 2.0);
    S(&c, "padding-so-ids-differ");
    stint_model_end(&c, stint_model_lane(&c, 7, 7, STINT_CLOCK_HOST), 11, S(&c, "span"), STINT_TS_NONE);
    stint_model_counter(&c, 7, S(&c, "ctr v"), 2, 4.0);
    int64_t sp = stint_model_synthetic_pid(&c, S(&c, "named"));
    x(&c, stint_model_lane(&c, sp, 3, STINT_CLOCK_HOST), 5, 1, "in-named");
    CHECK(stint_model_merge(&a, &c) == 0);
    stint_model_free(&c);
    stint_model_finish(&a);
    CHECK_EQ_I64(find(&a, "span")->dur_ns, 10);
    CHECK_EQ_I64(a.counters.len, 1);
    CHECK_EQ_I64(STINT_BA_AT(&a.counters, struct stint_counter_series, 0).samples, 2);
    const struct stint_slice *in = find(&a, "in-named");
    REQUIRE(in != NULL);
    const struct stint_track *tr = stint_model_track_at(&a, in->track);
    const struct stint_lane *ln = stint_model_lane_at(&a, tr->lane);
    CHECK_STR(stint_model_str(&a, stint_model_process_at(&a, ln->process)->name, NULL), "named");
    CHECK_EQ_I64(a.repairs[STINT_REPAIR_UNFINISHED], 0);
    stint_model_free(&a);
    test_thread_times();
    CHECK_DONE();
}
