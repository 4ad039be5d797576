/* SPDX-License-Identifier: MIT */
/*
 * test_input_parts.c - the pieces of a file read in parts: the cut scan (the
 * event-boundary guess) and stint_input_open_gz_part, which must show exactly
 * the decompressed bytes from the first cut at or after `from` to the first
 * cut at or after `to`, flag a part with no cut at its start (no_cut) and one
 * whose stream ends before its end cut (cut_missed), whatever the reader
 * consumes between fills. The expected cuts come from a plain loop over the
 * uncompressed bytes. gzip comes from the gzip command (skipped when missing).
 */
#include "check.h"
#include "gz_files.h"
#include "read/input.h"
#include "read/json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *data;
static size_t ndata;

/* The first '{' at or after from whose previous non-blank byte is a ',' also
 * at or after from; ndata when none. */
static size_t ref_cut(size_t from)
{
    int comma = 0;
    for (size_t i = from; i < ndata; i++) {
        if (data[i] == ',')
            comma = 1;
        else if (data[i] == '{' && comma)
            return i;
        else if (!strchr(" \n\r\t", data[i]))
            comma = 0;
    }
    return ndata;
}

static void test_cut_scan(void)
{
    int c = 0;
    CHECK_EQ_I64(stint_i_cut_scan(",{", 2, &c), 1);
    c = 0;
    CHECK_EQ_I64(stint_i_cut_scan("{\"a\":1}, \n\t {", 13, &c), 12);
    c = 0;
    CHECK_EQ_I64(stint_i_cut_scan("{,x{", 4, &c), -1); /* a byte between ',' and '{' */
    CHECK_EQ_I64(c, 0);
    c = 0;
    CHECK_EQ_I64(stint_i_cut_scan("1, ", 3, &c), -1); /* the ',' carries to the next piece */
    CHECK_EQ_I64(c, 1);
    CHECK_EQ_I64(stint_i_cut_scan("\r\n{", 3, &c), 2);
    c = 0;
    CHECK_EQ_I64(stint_i_cut_scan("", 0, &c), -1);
}

/* Opens the part [from, to) of gz and checks it against data, consuming
 * `step` bytes at a time (0: everything at each fill). */
static void check_part(const char *gz, size_t from, size_t to, size_t step)
{
    size_t start = from ? ref_cut(from) : 0, end = to ? ref_cut(to) : ndata;
    struct stint_input in;
    REQUIRE(stint_input_open_gz_part(&in, gz, from, to) == 0);
    if (start >= ndata) {
        CHECK(in.no_cut);
        CHECK_EQ_I64(in.len, 0);
        stint_input_close(&in);
        return;
    }
    CHECK(!in.no_cut);
    CHECK_EQ_I64(in.base, start);
    size_t bad = 0;
    for (;;) {
        if (in.base + in.len > end || memcmp(in.buf, data + in.base, in.len) != 0)
            bad++;
        for (size_t k = 0; k < STINT_JSON_PAD; k++)
            bad += in.buf[in.len + k] != 0;
        if (bad)
            break;
        stint_input_consume(&in, step && step < in.len ? step : in.len);
        if (in.len)
            continue;
        if (stint_input_fill(&in) <= 0 && !in.len)
            break;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(in.base, end);
    CHECK_EQ_I64(in.cut_missed, to && end == ndata);
    stint_input_close(&in);
}

int main(void)
{
    test_cut_scan();
    struct gz_files g;
    gz_files_init(&g); /* (exits 77 without gzip, after the cut scan's checks) */
    const char *plain = g.plain, *gz = g.gz;
    /* 3 MiB of event-like lines with strings that hold ",{" too (a cut may
     * fall inside a string: that is for the reader to find out) */
    size_t cap = (size_t)3 << 20;
    data = malloc(cap + 200);
    REQUIRE(data != NULL);
    uint64_t x = 88172645463325252ULL;
    data[ndata++] = '[';
    while (ndata < cap) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ndata += (size_t)sprintf(data + ndata, "{\"ph\":\"X\",\"ts\":%llu,\"s\":\"%s\"},%s",
                                 (unsigned long long)(x % 100000), x % 5 ? "a" : "x,{y", x % 3 ? "\n" : " ");
    }
    ndata += (size_t)sprintf(data + ndata, "{}]\n");
    gz_files_write(&g, data, ndata);

    size_t last = ndata - 4; /* the last cut: the trailing "{}" */
    CHECK_EQ_I64(ref_cut(last - 3), last);
    const size_t pts[][2] = {{0, 1},         {0, 1000000},       {1, 1000000},    {1000000, 2000000},
                             {1500000, 0},   {2999000, 0},       {last - 3, 0},   {last, 0},
                             {last + 1, 0},  {1000000, last},    {2000000, last + 1}, {(size_t)1 << 20, (size_t)2 << 20}};
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        check_part(gz, pts[k][0], pts[k][1], 0);
        check_part(gz, pts[k][0], pts[k][1], 100003);
    }
    /* parts that meet: together they are the file, each byte once */
    size_t targets[] = {0, 700000, 1400000, 2100000, 2800000, 0};
    size_t total = 0;
    for (size_t k = 0; k + 1 < sizeof targets / sizeof targets[0]; k++) {
        size_t from = targets[k], to = targets[k + 1];
        total += (to ? ref_cut(to) : ndata) - (from ? ref_cut(from) : 0);
    }
    CHECK_EQ_I64(total, ndata);
    /* a plain file is not a gzip part */
    struct stint_input in;
    CHECK_EQ_I64(stint_input_open_gz_part(&in, plain, 0, 0), 3);
    stint_input_close(&in);

    gz_files_remove(&g);
    free(data);
    CHECK_DONE();
}
