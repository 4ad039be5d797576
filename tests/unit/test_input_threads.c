/* SPDX-License-Identifier: MIT */
/*
 * test_input_threads.c - the input layer (input.c) hands out exactly the bytes of the
 * file, plain or gzip, whatever the reader consumes between fills: the
 * window always shows the bytes at [base, base + len) followed by
 * STINT_JSON_PAD zeros, for tails of every size around the gzip ring's head
 * room (256 KiB) and block (1 MiB) - the zero-copy path, the slow path into
 * the owned window, and its growth - with the inflate thread and without.
 * A window that would pass 64 MiB fails with the "longer than 64 MiB"
 * message. gzip comes from the gzip command (skipped when it is missing).
 */
#include "check.h"
#include "gz_files.h"
#include "read/input.h"
#include "read/json.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *data;
static size_t ndata;

/* Bytes that compress a little (so the gzip ring sees many blocks) and
 * differ everywhere (so a misplaced byte shows). */
static void make_data(size_t n)
{
    data = malloc(n);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (char)('a' + (x % 7 == 0 ? (int)(x >> 40) % 26 : (int)(i / 97) % 26));
    }
    ndata = n;
}

/* Reads path through stint_input, keeping `keep(step)` bytes unconsumed at
 * each fill; checks every window against data. Returns bytes seen. */
static size_t read_all(const char *path, size_t (*keep)(unsigned), const char *what)
{
    struct stint_input in;
    REQUIRE(stint_input_open(&in, path) == 0);
    unsigned step = 0;
    size_t bad = 0;
    for (;;) {
        if (in.base + in.len > ndata || memcmp(in.buf, data + in.base, in.len) != 0)
            bad++;
        for (size_t k = 0; k < STINT_JSON_PAD; k++)
            if (in.buf[in.len + k] != 0)
                bad++;
        if (bad) {
            fprintf(stderr, "%s: window at byte %llu (%zu bytes, step %u) differs from the file\n", what,
                    (unsigned long long)in.base, in.len, step);
            break;
        }
        size_t k = keep(step++);
        if (k > in.len)
            k = in.len;
        stint_input_consume(&in, in.len - k);
        int r = stint_input_fill(&in);
        REQUIRE(r >= 0);
        if (r == 0 && in.eof) {
            /* consume the rest in two steps: consume() alone never breaks the window */
            size_t half = in.len / 2;
            stint_input_consume(&in, half);
            CHECK(memcmp(in.buf, data + in.base, in.len) == 0);
            stint_input_consume(&in, in.len);
            break;
        }
    }
    CHECK_EQ_I64(bad, 0);
    size_t seen = (size_t)in.base;
    stint_input_close(&in);
    return seen;
}

static size_t keep_none(unsigned s) { (void)s; return 0; }
/* tails around the ring's head room and block, and a long run that grows the owned window */
static size_t keep_mixed(unsigned s)
{
    static const size_t k[] = {0, 1, 4095, 256 << 10, (256 << 10) + 1, 1000, (1 << 20) + 7, 3 << 20, 17, 0,
                               (256 << 10) - 1, 5 << 20, 9 << 20, 2};
    return k[s % (sizeof k / sizeof k[0])];
}

int main(void)
{
    struct gz_files g;
    gz_files_init(&g);
    const char *plain = g.plain, *gz = g.gz;
    make_data((size_t)23 << 20);
    gz_files_write(&g, data, ndata);

    for (int threaded = 1; threaded >= 0; threaded--) {
        if (!threaded)
            setenv("STINT_NO_INFLATE_THREAD", "1", 1);
        const char *t = threaded ? "inflate thread" : "inflate inline";
        char what[96];
        snprintf(what, sizeof what, "gzip, %s, consume all", t);
        CHECK_EQ_I64(read_all(gz, keep_none, what), ndata);
        snprintf(what, sizeof what, "gzip, %s, mixed tails", t);
        CHECK_EQ_I64(read_all(gz, keep_mixed, what), ndata);
    }
    unsetenv("STINT_NO_INFLATE_THREAD");
    CHECK_EQ_I64(read_all(plain, keep_none, "plain, consume all"), ndata);
    /* raw_read (the progress line's count) reaches the compressed size, on the reader's thread */
    {
        struct stat st;
        REQUIRE(stat(gz, &st) == 0);
        struct stint_input in;
        REQUIRE(stint_input_open(&in, gz) == 0);
        uint64_t last = 0;
        for (;;) {
            CHECK(in.raw_read >= last);
            last = in.raw_read;
            stint_input_consume(&in, in.len);
            if (stint_input_fill(&in) <= 0)
                break;
        }
        CHECK_EQ_I64(in.raw_read, st.st_size);
        stint_input_close(&in);
    }
    CHECK_EQ_I64(read_all(plain, keep_mixed, "plain, mixed tails"), ndata);

    /* one piece that never ends: the window stops at 64 MiB with the message */
    free(data);
    make_data((size_t)70 << 20);
    gz_files_write(&g, data, ndata);
    for (int k = 0; k < 3; k++) {
        const char *p = k == 0 ? plain : gz;
        if (k == 2)
            setenv("STINT_NO_INFLATE_THREAD", "1", 1);
        struct stint_input in;
        REQUIRE(stint_input_open(&in, p) == 0);
        int r;
        while ((r = stint_input_fill(&in)) > 0)
            CHECK(in.len <= STINT_INPUT_MAX_WINDOW);
        CHECK_EQ_I64(r, -1);
        CHECK(strstr(in.err, "longer than 64 MiB") != NULL);
        CHECK_EQ_I64(stint_input_errcode(&in), 1);
        stint_input_close(&in);
    }
    unsetenv("STINT_NO_INFLATE_THREAD");
    free(data);
    gz_files_remove(&g);
    CHECK_DONE();
}
