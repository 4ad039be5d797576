/* SPDX-License-Identifier: MIT */
/*
 * test_calltree_merge.c - names that differ only by a trailing number taken
 * as one (analysis.h): the stem of a name, the families given one name at a
 * time, and a merged call tree whose calls, totals and self times add up to
 * the source tree's, with one node per family under each parent.
 */
#include "check.h"
#include "analyze/analysis.h"

static void add(struct stint_model *m, uint32_t lane, const char *name, int64_t ts, int64_t dur)
{
    struct stint_slice s = {.ts_ns = ts, .dur_ns = dur};
    s.track = stint_model_lane_at(m, lane)->track;
    s.name = stint_model_intern(m, name, strlen(name));
    s.flags = STINT_SLICE_COMPLETE;
    stint_model_add_slice(m, &s);
}

int main(void)
{
    CHECK_EQ_I64(stint_name_number_stem("ProfilerStep#12", 15), 13);
    CHECK_EQ_I64(stint_name_number_stem("layer_3", 7), 6);
    CHECK_EQ_I64(stint_name_number_stem("conv", 4), 4);
    CHECK_EQ_I64(stint_name_number_stem("1234", 4), 4); /* all digits: no stem */
    CHECK_EQ_I64(stint_name_number_stem("", 0), 0);

    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t lane = stint_model_lane(&m, 1, 1, STINT_CLOCK_HOST);
    /* 100 steps, each with a numbered child (two members) and a plain one */
    int64_t total = 0;
    for (int i = 0; i < 100; i++) {
        char nm[32], ch[32];
        snprintf(nm, sizeof nm, "ProfilerStep#%d", i);
        snprintf(ch, sizeof ch, "layer_%d", i % 2);
        add(&m, lane, nm, i * 1000, 100 + i);
        add(&m, lane, ch, i * 1000 + 1, 10);
        add(&m, lane, "conv", i * 1000 + 20, 5);
        total += 100 + i;
    }
    stint_model_finish(&m);

    struct stint_name_families *f = stint_name_families_new();
    uint32_t s0 = stint_model_intern(&m, "ProfilerStep#0", 14), s7 = stint_model_intern(&m, "ProfilerStep#7", 14);
    uint32_t conv = stint_model_intern(&m, "conv", 4);
    CHECK_EQ_I64(stint_name_family(f, &m, s7), s7); /* the first seen names its family */
    CHECK_EQ_I64(stint_name_family(f, &m, s0), s7);
    CHECK_EQ_I64(stint_name_family(f, &m, conv), conv);
    stint_name_families_free(f);

    struct stint_calltree t, mt;
    REQUIRE(stint_calltree_build(&t, &m, NULL) == 0);
    CHECK_EQ_I64(t.n, 2 + 100 * 3); /* each step its own path node, and its children under it */
    stint_calltree_merge_numbered(&mt, &t, &m);
    CHECK_EQ_I64(mt.n, 2 + 3); /* ProfilerStep#N, and under it layer_N and conv */
    uint32_t root = mt.nodes[0].first_child;
    REQUIRE(root != STINT_NO_ID);
    CHECK_EQ_I64(mt.nodes[root].next_sibling, STINT_NO_ID); /* one root */
    CHECK_EQ_I64((int64_t)mt.nodes[root].calls, 100);
    CHECK_EQ_I64(mt.nodes[root].total_ns, total);
    CHECK_EQ_I64(mt.nodes[root].self_ns, total - 100 * 15);
    CHECK_EQ_I64(mt.nodes[root].max_ns, 199);
    CHECK_EQ_I64((int64_t)mt.nodes[root].ndurs, 100);
    /* pooled (100..199 ns) and arranged for the quantiles: p50 the 50th value, p90 the 90th */
    CHECK_EQ_I64(stint_an_quantile_rank(mt.nodes[root].durs, 100, 50).num, 149);
    CHECK_EQ_I64(stint_an_quantile_rank(mt.nodes[root].durs, 100, 90).num, 189);
    int64_t lo = INT64_MAX, hi = INT64_MIN, sum = 0;
    for (size_t k = 0; k < 100; k++) {
        lo = mt.nodes[root].durs[k] < lo ? mt.nodes[root].durs[k] : lo;
        hi = mt.nodes[root].durs[k] > hi ? mt.nodes[root].durs[k] : hi;
        sum += mt.nodes[root].durs[k];
    }
    CHECK_EQ_I64(lo, 100);
    CHECK_EQ_I64(hi, 199);
    CHECK_EQ_I64(sum, total);
    int64_t kids = 0;
    for (uint32_t c = mt.nodes[root].first_child; c != STINT_NO_ID; c = mt.nodes[c].next_sibling) {
        CHECK_EQ_I64((int64_t)mt.nodes[c].calls, 100);
        CHECK_EQ_I64((int64_t)mt.nodes[c].depth, 2);
        kids++;
    }
    CHECK_EQ_I64(kids, 2);
    CHECK_EQ_I64((int64_t)mt.spans, (int64_t)t.spans);

    size_t k;
    struct stint_flat_row *rows = stint_calltree_flat(&t, &m, &k);
    REQUIRE(rows != NULL);
    CHECK_EQ_I64((int64_t)k, 100 + 2 + 1);
    rows = stint_flat_merge_numbered(rows, &k, &m);
    CHECK_EQ_I64((int64_t)k, 3);
    uint64_t calls = 0;
    for (size_t i = 0; i < k; i++)
        calls += rows[i].calls;
    CHECK_EQ_I64((int64_t)calls, 300);
    free(rows);
    stint_calltree_free(&mt);
    stint_calltree_free(&t);
    stint_model_free(&m);
    CHECK_DONE();
}
