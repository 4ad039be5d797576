/*
 * test_analysis.c - interval unions and overlap (seed 003's numbers),
 * quantiles, and the call tree's self time on a small model.
 */
#include "analysis.h"
#include "check.h"

#include <math.h>

static void test_seed003_union(void)
{
    /* [0,10], [2,7], [8,12] us: union 12 us, sum 19 us */
    struct stint_iv iv[3] = {{0, 10000}, {2000, 7000}, {8000, 12000}};
    int64_t sum = 0;
    for (int i = 0; i < 3; i++)
        sum += iv[i].end_ns - iv[i].start_ns;
    int64_t ov;
    int64_t u = stint_an_union_overlap(iv, 3, &ov);
    CHECK_EQ_I64(u, 12000);
    CHECK_EQ_I64(sum, 19000);
    CHECK_EQ_I64(ov, 5000 + 2000); /* [2,7] inside [0,10], [8,10] shared */
    /* the vllm-omni fixture: [(0,10),(3,5),(6,12),(20,25)] -> 17 */
    struct stint_iv v2[4] = {{0, 10}, {3, 5}, {6, 12}, {20, 25}};
    CHECK_EQ_I64(stint_an_union(v2, 4), 17);
    /* touching intervals merge; empty and inverted add nothing */
    struct stint_iv v3[4] = {{0, 5}, {5, 9}, {7, 7}, {20, 10}};
    CHECK_EQ_I64(stint_an_union_overlap(v3, 4, &ov), 9);
    CHECK_EQ_I64(ov, 0);
    CHECK_EQ_I64(stint_an_union(NULL, 0), 0);
    /* three deep: covered by >= 2 counted once */
    struct stint_iv v4[3] = {{0, 10}, {0, 10}, {0, 10}};
    CHECK_EQ_I64(stint_an_union_overlap(v4, 3, &ov), 10);
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
    s.tts_ns = s.tdur_ns = STINT_TS_NONE;
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

int main(void)
{
    test_seed003_union();
    test_quantiles();
    test_tree_self();
    CHECK_DONE();
}
