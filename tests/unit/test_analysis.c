/* SPDX-License-Identifier: MIT */
/*
 * test_analysis.c - interval unions and overlap (the worked example of
 * intervals.h),
 * quantiles, the call tree's self time, and the sparse steps with their
 * per-clock stats on a small model.
 */
#include "analyze/analysis.h"
#include "check.h"

#include <math.h>

static void test_union_example(void)
{
    /* [0,10], [2,7], [8,12] us: union 12 us, sum 19 us */
    struct stint_interval iv[3] = {{0, 10000}, {2000, 7000}, {8000, 12000}};
    int64_t sum = 0;
    for (int i = 0; i < 3; i++)
        sum += iv[i].end - iv[i].start;
    int64_t ov;
    int64_t u = stint_intervals_union_overlap(iv, 3, &ov);
    CHECK_EQ_I64(u, 12000);
    CHECK_EQ_I64(sum, 19000);
    CHECK_EQ_I64(ov, 5000 + 2000); /* [2,7] inside [0,10], [8,10] shared */
    /* the vllm-omni fixture: [(0,10),(3,5),(6,12),(20,25)] -> 17 */
    struct stint_interval v2[4] = {{0, 10}, {3, 5}, {6, 12}, {20, 25}};
    CHECK_EQ_I64(stint_intervals_union_overlap(v2, 4, &ov), 17);
    /* touching intervals merge; empty and inverted add nothing */
    struct stint_interval v3[4] = {{0, 5}, {5, 9}, {7, 7}, {20, 10}};
    CHECK_EQ_I64(stint_intervals_union_overlap(v3, 4, &ov), 9);
    CHECK_EQ_I64(ov, 0);
    CHECK_EQ_I64(stint_intervals_union_overlap(NULL, 0, &ov), 0);
    /* three deep: covered by >= 2 counted once */
    struct stint_interval v4[3] = {{0, 10}, {0, 10}, {0, 10}};
    CHECK_EQ_I64(stint_intervals_union_overlap(v4, 3, &ov), 10);
    CHECK_EQ_I64(ov, 10);
}

static void test_quantiles(void)
{
    int64_t v[4] = {1, 2, 3, 4};
    CHECK(stint_an_quantile(v, 4, 0.5) == 2.5);
    CHECK(stint_an_quantile(v, 4, 0.0) == 1.0);
    CHECK(stint_an_quantile(v, 4, 1.0) == 4.0);
    char b[32];
    CHECK_STR(stint_an_us(b, 12345), "12.345");
    CHECK_STR(stint_an_us(b, -5), "-0.005");
    /* an infinite end (diff's unbounded ratios): the value anywhere between, never NaN */
    const double w[4] = {0.5, 0.5, INFINITY, INFINITY};
    CHECK(stint_an_quantile_f64(w, 4, 0.0) == 0.5);
    CHECK(isinf(stint_an_quantile_f64(w, 4, 0.5)));   /* between 0.5 and inf */
    CHECK(isinf(stint_an_quantile_f64(w, 4, 0.975))); /* between inf and inf (inf - inf is NaN) */
    CHECK(stint_an_quantile_f64(w, 4, 1.0 / 3) == 0.5); /* exactly at a rank */
}

static void test_tree_self(void)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t lane = stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST);
    uint32_t track = stint_model_lane_at(&m, lane)->track;
    uint32_t step = stint_model_intern(&m, "step", 4), a = stint_model_intern(&m, "a", 1),
             b = stint_model_intern(&m, "b", 1);
    struct stint_slice s = {0};
    s.track = track;
    s.args = STINT_NO_ID;
    s.flags = STINT_SLICE_COMPLETE;
    s.name = step, s.ts_ns = 0, s.dur_ns = 100;
    stint_model_add_slice(&m, &s);
    s.name = a, s.ts_ns = 10, s.dur_ns = 30;
    stint_model_add_slice(&m, &s);
    s.name = b, s.ts_ns = 50, s.dur_ns = 40;
    stint_model_add_slice(&m, &s);
    s.name = a, s.ts_ns = 60, s.dur_ns = 10; /* nested in b */
    stint_model_add_slice(&m, &s);
    stint_model_finish(&m);
    struct stint_calltree t;
    REQUIRE(stint_calltree_build(&t, &m, NULL) == 0);
    /* root 0 -> step -> {a, b -> a} */
    uint32_t nstep = t.nodes[0].first_child;
    REQUIRE(nstep != STINT_NO_ID);
    CHECK_EQ_I64(t.nodes[nstep].total_ns, 100);
    CHECK_EQ_I64(t.nodes[nstep].self_ns, 30); /* 100 - (30 + 40) */
    uint32_t na = t.nodes[nstep].first_child, nb = t.nodes[na].next_sibling;
    CHECK_EQ_I64(t.nodes[na].total_ns, 30);
    CHECK_EQ_I64(t.nodes[nb].total_ns, 40);
    CHECK_EQ_I64(t.nodes[nb].self_ns, 30);
    char *p = stint_calltree_path(&t, &m, t.nodes[nb].first_child, ';');
    CHECK_STR(p, "step;b;a");
    free(p);
    stint_calltree_free(&t);
    stint_model_free(&m);
}

/* Adds a finished slice [ts, ts + dur) named name on track to m. */
static void add_span(struct stint_model *m, uint32_t track, uint32_t name, int64_t ts, int64_t dur)
{
    struct stint_slice s = {0};
    s.track = track;
    s.args = STINT_NO_ID;
    s.flags = STINT_SLICE_COMPLETE;
    s.name = name, s.ts_ns = ts, s.dur_ns = dur;
    stint_model_add_slice(m, &s);
}

/* The median as num / den, checked exactly. */
#define CHECK_MEDIAN(st, n, d)                                                                                      \
    do {                                                                                                            \
        CHECK((st).median.num == (n) && (st).median.den == (d));                                                     \
    } while (0)

static void test_steps_sparse(void)
{
    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t host = stint_model_lane_at(&m, stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST))->track;
    uint32_t dev = stint_model_lane_at(&m, stint_model_lane(&m, 1, 2, STINT_CLOCK_DEVICE))->track;
    uint32_t step = stint_model_intern(&m, "step", 4), a = stint_model_intern(&m, "a", 1),
             b = stint_model_intern(&m, "b", 1), c = stint_model_intern(&m, "c", 1);
    /* host: [0,100) {a [10,40), b [50,90), c [90,95)}, [200,300) {a [200,210), c [210,250)};
     * device: [0,10) {b [0,4)}, [20,40) {a [20,30)}. Totals a 50, c 45, b 44: ranks a, c, b. */
    add_span(&m, host, step, 0, 100);
    add_span(&m, host, a, 10, 30);
    add_span(&m, host, b, 50, 40);
    add_span(&m, host, c, 90, 5);
    add_span(&m, host, step, 200, 100);
    add_span(&m, host, a, 200, 10);
    add_span(&m, host, c, 210, 40);
    add_span(&m, dev, step, 0, 10);
    add_span(&m, dev, b, 0, 4);
    add_span(&m, dev, step, 20, 20);
    add_span(&m, dev, a, 20, 10);
    stint_model_finish(&m);

    struct stint_steps_sparse r;
    REQUIRE(stint_steps_sparse_compute(&r, &m, "st*", NULL, 2) == 0);
    CHECK(r.nsteps == 4 && r.nhost == 2 && r.nchildren == 3 && r.nshown == 2 && r.unfinished == 0);
    CHECK(r.children[0] == a && r.children[1] == c && r.children[2] == b);
    /* per row: wall, other (b, ranked past the 2 shown), overlap, unattributed = wall - union */
    static const int64_t want[4][4] = {{100, 40, 0, 25}, {100, 0, 0, 50}, {10, 4, 0, 6}, {20, 0, 0, 10}};
    for (int k = 0; k < 4; k++)
        for (int w = 0; w < 4; w++)
            CHECK_EQ_I64(stint_step_row_fig(&r.rows[k], (enum stint_step_fig)w), want[k][w]);
    /* sparse: only the names that occur, by rank; b's cell is kept though not shown */
    CHECK(r.ncells == 7 && r.rows[0].ncells == 3 && r.rows[2].ncells == 1 && r.rows[3].ncells == 1);
    const struct stint_step_cell *c0 = &r.cells[r.rows[0].cell0];
    CHECK(c0[0].child == 0 && c0[0].union_ns == 30 && c0[1].child == 1 && c0[1].union_ns == 5);
    CHECK(c0[2].child == 2 && c0[2].union_ns == 40);
    CHECK(r.cells[r.rows[2].cell0].child == 2 && r.cells[r.rows[2].cell0].union_ns == 4);

    /* per clock, never pooled; a name absent from a step counts 0 */
    struct stint_steps_stats st;
    REQUIRE(stint_steps_stats_compute(&st, &r) == 0);
    CHECK(st.nsteps[0] == 2 && st.nsteps[1] == 2);
    const struct stint_step_stats *hw = &st.fig[0][STINT_STEP_WALL], *dw = &st.fig[1][STINT_STEP_WALL];
    CHECK(hw->min_ns == 100 && hw->max_ns == 100 && hw->noccur == 2);
    CHECK_MEDIAN(*hw, 200, 2);
    CHECK(dw->min_ns == 10 && dw->max_ns == 20);
    CHECK_MEDIAN(*dw, 30, 2); /* 15: pooled with the host steps it was 100 */
    CHECK(st.child[0][0].min_ns == 10 && st.child[0][0].max_ns == 30 && st.child[0][0].noccur == 2);
    CHECK_MEDIAN(st.child[0][0], 40, 2);
    CHECK(st.child[0][1].min_ns == 5 && st.child[0][1].max_ns == 40);
    CHECK(st.child[1][0].min_ns == 0 && st.child[1][0].max_ns == 10 && st.child[1][0].noccur == 1);
    CHECK_MEDIAN(st.child[1][0], 10, 2);
    CHECK(st.child[1][1].noccur == 0 && st.child[1][1].max_ns == 0); /* c: no device step */
    CHECK_MEDIAN(st.fig[0][STINT_STEP_OTHER], 40, 2);
    CHECK_MEDIAN(st.fig[1][STINT_STEP_OTHER], 4, 2);
    CHECK(st.fig[0][STINT_STEP_UNATTRIBUTED].min_ns == 25 && st.fig[0][STINT_STEP_UNATTRIBUTED].max_ns == 50);
    CHECK_MEDIAN(st.fig[1][STINT_STEP_UNATTRIBUTED], 16, 2);
    stint_steps_stats_free(&st);
    stint_steps_sparse_free(&r);

    /* every name shown: no other column; a glob that matches nothing: no steps, no stats */
    REQUIRE(stint_steps_sparse_compute(&r, &m, "step", NULL, SIZE_MAX) == 0);
    CHECK(r.nshown == 3 && r.rows[0].other_ns == 0);
    stint_steps_sparse_free(&r);
    REQUIRE(stint_steps_sparse_compute(&r, &m, "nothing", NULL, 8) == 0);
    CHECK(r.nsteps == 0 && r.nchildren == 0);
    REQUIRE(stint_steps_stats_compute(&st, &r) == 0);
    CHECK(st.nsteps[0] == 0 && st.nsteps[1] == 0);
    stint_steps_stats_free(&st);
    stint_steps_sparse_free(&r);
    stint_model_free(&m);
}

int main(void)
{
    test_union_example();
    test_quantiles();
    test_tree_self();
    test_steps_sparse();
    CHECK_DONE();
}
