/* SPDX-License-Identifier: MIT */
/*
 * test_input_hints_thread.c - the inflate thread's args hints (input.h,
 * input.c): whatever the reader keeps unconsumed between fills, every hint a
 * gzip window carries lies inside the window's last block, in ascending
 * order, starts at a '{' that follows an "args" key, and is exactly as long
 * as the strict general skip says that value is; values the fast skip gives
 * up on (a \u escape, a trailing comma, 70 levels of nesting, an object cut
 * by a block end) get no hint. With STINT_PIPE_SCAN_ALL every block is
 * scanned before the reader gets it, so nearly every args object has a hint;
 * without it the hints that come must still be right. A plain file and the
 * inflate-on-this-thread path carry none. gzip comes from the gzip command
 * (skipped when it is missing).
 */
#include "check.h"
#include "gz_files.h"
#include "read/input.h"
#include "read/json.h"

#include <stdlib.h>
#include <string.h>

static char *data;
static size_t ndata;
static size_t nargs; /* "args": { in data */

/* ~5 MB of events, one args form in 40 the fast skip gives up on. */
static void make_data(void)
{
    size_t cap = 6 << 20, n = 0;
    data = malloc(cap);
    REQUIRE(data != NULL);
    n += (size_t)snprintf(data + n, cap - n, "[\n");
    static const char *const forms[] = {
        "{\"n\": %u, \"dims\": [[512, 256], [%u, 1]], \"s\": \"a \\\"q\\\" b\"}",
        "{\"u\": \"caf\\u00e9 %u %u\"}",
        "{\"t\": [%u, %u,]}",
        "{\"d\": {\"d\": {\"d\": %u}}, \"e\": %u}",
    };
    char deep_open[71], deep_close[71];
    memset(deep_open, '[', 70);
    memset(deep_close, ']', 70);
    deep_open[70] = deep_close[70] = 0;
    for (unsigned i = 0; n + 4096 < cap - (1 << 16); i++) {
        unsigned f = i % 40 == 7 ? 1 + i / 40 % 2 : i % 5 == 3 ? 3 : 0;
        char args[256];
        snprintf(args, sizeof args, forms[f], i, i * 7);
        if (i % 997 == 0) /* nesting the block walk gives up on (past 64 levels) */
            snprintf(args, sizeof args, "{\"x\": %.70s%.70s}", deep_open, deep_close);
        n += (size_t)snprintf(data + n, cap - n,
                              "{\"ph\": \"X\", \"name\": \"op%u\", \"ts\": %u, \"dur\": 3, \"args\"%s: %s},\n", i % 50, i,
                              i % 11 == 0 ? " " : "", args);
        nargs++;
    }
    n += (size_t)snprintf(data + n, cap - n, "{}]\n");
    ndata = n;
}

struct tally {
    size_t hints, bad;
};

/* Checks the window's hints against the data and counts them. at_end: after
 * the fill that found the end, which leaves the window, its hints and what
 * the reader consumed of it as they were: hints before the window's start
 * are neither checked nor counted again. */
static void check_window(const struct stint_input *in, struct tally *t, const char *what, int at_end)
{
    uint64_t prev = 0;
    for (size_t i = 0; i < in->hint_n; i++) {
        uint64_t at = in->hint_at + in->hint_off[i];
        size_t len = in->hint_len[i];
        if (at_end && at < in->base)
            continue;
        int ok = at >= in->base && at + len <= in->base + in->len && (i == 0 || at > prev);
        const char *p = in->buf + (at - in->base);
        /* a '{' after "args" (and blanks, and ':'), which may lie before the window */
        uint64_t k = at;
        while (ok && k > 0 && data[k - 1] != '"')
            k--;
        ok = ok && *p == '{' && k >= 6 && memcmp(data + k - 6, "\"args\"", 6) == 0;
        if (ok) {
            struct stint_json j = {.p = p, .end = in->buf + in->len, .at_eof = 1};
            ok = stint_i_json_skip_general(&j) == STINT_JSON_OK && j.p == p + len;
        }
        if (!ok && t->bad++ < 5)
            fprintf(stderr, "%s: hint %zu at byte %llu (%zu bytes) is wrong (window %llu + %zu, prev %llu)\n", what, i, (unsigned long long)at, len, (unsigned long long)in->base, in->len, (unsigned long long)prev);
        prev = at;
        t->hints += !at_end;
    }
}

/* Reads path to the end keeping `keep` bytes unconsumed at each fill (0:
 * none; else the step's own amount around the ring's head room). */
static struct tally read_all(const char *path, int keep, const char *what)
{
    struct tally t = {0, 0};
    struct stint_input in;
    REQUIRE(stint_input_open(&in, path) == 0);
    for (unsigned step = 0;; step++) {
        check_window(&in, &t, what, 0);
        size_t k = !keep ? 0 : step % 3 == 0 ? 300 : step % 3 == 1 ? (size_t)200 << 10 : (size_t)300 << 10;
        if (k > in.len)
            k = in.len;
        stint_input_consume(&in, in.len - k);
        int r = stint_input_fill(&in);
        REQUIRE(r >= 0);
        if (r == 0) {
            check_window(&in, &t, what, 1);
            break;
        }
    }
    stint_input_close(&in);
    return t;
}

int main(void)
{
    struct gz_files g;
    gz_files_init(&g);
    make_data();
    gz_files_write(&g, data, ndata);

    setenv("STINT_PIPE_SCAN_ALL", "1", 1);
    struct tally t = read_all(g.gz, 0, "every block scanned");
    CHECK_EQ_I64(t.bad, 0);
    /* all but the given-up forms (1 in 20 + 1 in 997) and the objects cut by a block end */
    CHECK(t.hints > nargs * 9 / 10);
    CHECK(t.hints < nargs);
    t = read_all(g.gz, 1, "every block scanned, tails kept");
    CHECK_EQ_I64(t.bad, 0);
    CHECK(t.hints > nargs / 2); /* (windows in the owned buffer carry none) */

    unsetenv("STINT_PIPE_SCAN_ALL");
    t = read_all(g.gz, 0, "default");
    CHECK_EQ_I64(t.bad, 0);
    t = read_all(g.gz, 1, "default, tails kept");
    CHECK_EQ_I64(t.bad, 0);

    t = read_all(g.plain, 0, "plain");
    CHECK_EQ_I64(t.hints, 0);
    setenv("STINT_NO_INFLATE_THREAD", "1", 1);
    setenv("STINT_PIPE_SCAN_ALL", "1", 1);
    t = read_all(g.gz, 0, "no inflate thread");
    CHECK_EQ_I64(t.hints, 0);

    gz_files_remove(&g);
    free(data);
    CHECK_DONE();
}
