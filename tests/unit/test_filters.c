/* SPDX-License-Identifier: MIT */
/*
 * test_filters.c - the shared filters: option parsing (units, open ranges,
 * bad values, comma lists and repeats, relative times) and their meaning on
 * slices (overlap with the time range, cat parts, globs, exclusions,
 * unfinished slices and --min-dur).
 */
#include "check.h"
#include "model/filters.h"

static int parse(struct stint_filter *f, const char *a, const char *b)
{
    char *argv[3] = {(char *)"x", (char *)a, (char *)b};
    int argc = b ? 3 : 2, i = 1;
    return stint_filter_arg(f, argc, argv, &i);
}

int main(void)
{
    struct stint_filter f;
    memset(&f, 0, sizeof f);
    CHECK_EQ_I64(parse(&f, "--time-range", "12.5ms:1s"), 1);
    CHECK_EQ_I64(f.t0, 12500000);
    CHECK_EQ_I64(f.t1, 1000000000);
    memset(&f, 0, sizeof f);
    CHECK_EQ_I64(parse(&f, "--time-range=:300us", NULL), 1);
    CHECK_EQ_I64(f.t0, INT64_MIN);
    CHECK_EQ_I64(f.t1, 300000);
    CHECK_EQ_I64(parse(&f, "--min-dur", "2us"), 1);
    CHECK_EQ_I64(f.min_dur, 2000);
    CHECK_EQ_I64(parse(&f, "--pid", "-3"), 1);
    CHECK_EQ_I64(f.pid, -3);
    CHECK_EQ_I64(parse(&f, "--json", NULL), 0);
    CHECK_EQ_I64(parse(&f, "--time-range", "5"), -1);
    CHECK_EQ_I64(parse(&f, "--time-range", "9:1"), -1);
    CHECK_EQ_I64(parse(&f, "--min-dur", "fast"), -1);
    CHECK_EQ_I64(parse(&f, "--tid", "1.5"), -1);

    struct stint_model m;
    REQUIRE(stint_model_init(&m, 0) == 0);
    uint32_t lane = stint_model_lane(&m, 1, 2, STINT_CLOCK_HOST);
    struct stint_slice s = {.ts_ns = 100, .dur_ns = 50};
    s.track = stint_model_lane_at(&m, lane)->track;
    s.name = stint_model_intern(&m, "io.read", 7);
    s.cat = stint_model_intern(&m, "disk,net", 8);
    s.flags = STINT_SLICE_COMPLETE;
    stint_model_add_slice(&m, &s);
    stint_model_finish(&m);
    const struct stint_slice *sl = stint_model_slice(&m, 0);
    struct stint_filter g;
    memset(&g, 0, sizeof g);
    CHECK(stint_filter_slice(&g, &m, sl));
    g.cat = "net";
    CHECK(stint_filter_slice(&g, &m, sl));
    g.cat = "ne";
    CHECK(!stint_filter_slice(&g, &m, sl));
    g.cat = "disk,net";
    CHECK(stint_filter_slice(&g, &m, sl));
    g.cat = NULL;
    g.name_glob = "io.*";
    CHECK(stint_filter_slice(&g, &m, sl));
    g.name_glob = "*write";
    CHECK(!stint_filter_slice(&g, &m, sl));
    g.name_glob = NULL;
    g.has_range = 1;
    g.t0 = 150; /* [100,150) ends where the range starts: no overlap */
    g.t1 = 200;
    CHECK(!stint_filter_slice(&g, &m, sl));
    g.t0 = 149;
    CHECK(stint_filter_slice(&g, &m, sl));
    g.t0 = 0;
    g.t1 = 100; /* starts where the range ends */
    CHECK(!stint_filter_slice(&g, &m, sl));
    g.has_range = 0;
    g.has_min_dur = 1;
    g.min_dur = 50;
    CHECK(stint_filter_slice(&g, &m, sl));
    g.min_dur = 51;
    CHECK(!stint_filter_slice(&g, &m, sl));
    g.has_min_dur = 0;
    g.has_pid = 1;
    g.pid = 1;
    g.has_tid = 1;
    g.tid = 2;
    CHECK(stint_filter_slice(&g, &m, sl));
    g.tid = 3;
    CHECK(!stint_filter_slice(&g, &m, sl));
    /* lists, repeats and exclusions, parsed as the options give them */
    struct stint_filter h;
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--cat", "gpu,disk"), 1);
    CHECK(stint_filter_slice(&h, &m, sl)); /* "disk" is a part of "disk,net" */
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--cat", "gpu,kernel"), 1);
    CHECK(!stint_filter_slice(&h, &m, sl));
    CHECK_EQ_I64(parse(&h, "--cat=net", NULL), 1); /* a repeat adds a value */
    CHECK(stint_filter_slice(&h, &m, sl));
    CHECK_EQ_I64(parse(&h, "--exclude-cat", "disk"), 1); /* an exclusion wins */
    CHECK(!stint_filter_slice(&h, &m, sl));
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--name", "gemm<float, 128>*,io.*"), 1); /* a comma inside <> is the glob's */
    CHECK_EQ_I64(h.names.n, 2);
    CHECK(stint_filter_name(&h, "gemm<float, 128>_kernel"));
    CHECK(stint_filter_slice(&h, &m, sl));
    CHECK_EQ_I64(parse(&h, "--exclude-name", "*.read"), 1);
    CHECK(!stint_filter_slice(&h, &m, sl));
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--pid", "5,1"), 1);
    CHECK_EQ_I64(parse(&h, "--tid", "9"), 1);
    CHECK(!stint_filter_slice(&h, &m, sl));
    CHECK_EQ_I64(parse(&h, "--tid", "2"), 1);
    CHECK(stint_filter_slice(&h, &m, sl));
    CHECK_EQ_I64(parse(&h, "--cat", "a,,b"), -1); /* an empty item */
    CHECK_EQ_I64(parse(&h, "--pid", "1,x"), -1);
    /* relative times count from the first event; "12.5 ms" as the tables print it */
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--time-range", "+40ns:+1 us"), 1);
    CHECK_EQ_I64((int64_t)h.rel, STINT_FILTER_REL_START | STINT_FILTER_REL_END);
    int64_t first, last;
    REQUIRE(stint_filter_extent(&m, &first, &last));
    CHECK_EQ_I64(first, 100);
    CHECK_EQ_I64(last, 150);
    stint_filter_resolve(&h, first);
    CHECK_EQ_I64(h.t0, 140);
    CHECK_EQ_I64(h.t1, 1100);
    CHECK(stint_filter_slice(&h, &m, sl));
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--time-range", "+50ns:"), 1);
    stint_filter_resolve(&h, first);
    CHECK(!stint_filter_slice(&h, &m, sl)); /* [150, end) starts where the slice ends */
    CHECK_EQ_I64(parse(&h, "--time-range", "+-5ns:"), -1);
    CHECK_EQ_I64(parse(&h, "--min-dur", "+5ns"), -1);
    /* a copy by value keeps its text values (offsets into its own buffer) */
    memset(&h, 0, sizeof h);
    CHECK_EQ_I64(parse(&h, "--name", "io.*"), 1);
    struct stint_filter copy = h;
    memset(&h, 0, sizeof h);
    CHECK(stint_filter_slice(&copy, &m, sl));
    CHECK(stint_filter_point(&(struct stint_filter){.has_range = 1, .t0 = 0, .t1 = 10}, 1, 9));
    CHECK(!stint_filter_point(&(struct stint_filter){.has_range = 1, .t0 = 0, .t1 = 10}, 1, 10));
    stint_model_free(&m);
    CHECK_DONE();
}
