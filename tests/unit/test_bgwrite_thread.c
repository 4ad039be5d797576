/* SPDX-License-Identifier: MIT */
/*
 * test_bgwrite_thread.c - base/bgwrite.h and write/bgfile.h: bytes handed
 * over in pieces of every size reach the sink whole and in order, across
 * block boundaries and with a slow sink (the caller waits for free blocks);
 * a sink's first failure stops further calls and is told at the end; a
 * bgfile stream's bytes reach the other stream the same way, and its
 * write error is told by close with the other stream's error flag set.
 * Runs under TSan too (the name holds "thread").
 */
#include "check.h"

#include "base/bgwrite.h"
#include "write/bgfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A sink into a growing buffer; fail_at: the call that fails (0: none);
 * slow: sleeps a little per call. */
struct mem_sink {
    unsigned char *p;
    size_t len, cap;
    int calls, fail_at, slow;
};

static int mem_write(void *ctx, const void *p, size_t n)
{
    struct mem_sink *s = ctx;
    s->calls++;
    if (s->fail_at && s->calls >= s->fail_at)
        return ENOSPC;
    if (s->slow) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    return 0;
}

/* Byte i of the pattern. */
static unsigned char pat(size_t i) { return (unsigned char)(i * 2654435761u >> 13); }

/* total bytes in pieces of 1 to maxpiece bytes; checks what the sink got. */
static void run_pieces(size_t total, size_t maxpiece, int slow)
{
    struct mem_sink s = {.slow = slow};
    struct stint_bgwrite *w = stint_bgwrite_start(mem_write, &s);
    REQUIRE(w != NULL);
    unsigned char *src = malloc(total);
    REQUIRE(src != NULL);
    for (size_t i = 0; i < total; i++)
        src[i] = pat(i);
    uint64_t st = 12345;
    for (size_t at = 0; at < total;) {
        size_t k = 1 + (size_t)(check_xorshift(&st) % maxpiece);
        k = k > total - at ? total - at : k;
        stint_bgwrite_put(w, src + at, k);
        at += k;
    }
    CHECK_EQ_I64(stint_bgwrite_end(w), 0);
    CHECK_EQ_U64(s.len, total);
    CHECK(s.len == total && memcmp(s.p, src, total) == 0);
    free(src);
    free(s.p);
}

int main(void)
{
    run_pieces(10, 3, 0);                      /* less than a block: written at the end */
    run_pieces((size_t)9 << 20, 70000, 0);     /* more than all blocks, pieces across their edges */
    run_pieces((size_t)6 << 20, 3 << 20, 1);   /* pieces over a block, a slow sink */
    run_pieces((size_t)1 << 20, 1 << 20, 0);   /* exactly a block */

    { /* the sink's first failure: told at the end, no call after it */
        struct mem_sink s = {.fail_at = 2};
        struct stint_bgwrite *w = stint_bgwrite_start(mem_write, &s);
        REQUIRE(w != NULL);
        char *buf = calloc(1, (size_t)1 << 20);
        REQUIRE(buf != NULL);
        for (int i = 0; i < 12; i++)
            stint_bgwrite_put(w, buf, (size_t)1 << 20);
        CHECK_EQ_I64(stint_bgwrite_end(w), ENOSPC);
        CHECK_EQ_I64(s.calls, 2);
        CHECK_EQ_U64(s.len, (size_t)1 << 20);
        free(buf);
        free(s.p);
    }

    { /* a bgfile stream into a memory stream: the same bytes, in order */
        char *mem = NULL;
        size_t mlen = 0;
        FILE *out = open_memstream(&mem, &mlen);
        REQUIRE(out != NULL);
        struct stint_bgfile *bf;
        FILE *f = stint_bgfile_open(out, &bf);
        REQUIRE(f != NULL);
        size_t n = 0;
        for (int i = 0; i < 300000; i++)
            n += (size_t)fprintf(f, "%d,", i);
        fputs("end", f);
        n += 3;
        CHECK_EQ_I64(stint_bgfile_close(f, bf), 0);
        fflush(out);
        CHECK_EQ_U64(mlen, n);
        CHECK(mlen >= 10 && memcmp(mem + mlen - 10, "299999,end", 10) == 0);
        CHECK(mlen > 8 && memcmp(mem, "0,1,2,3,", 8) == 0);
        fclose(out);
        free(mem);
    }

    { /* its write error: told by close, errno and the other stream's error flag set */
        FILE *out = fopen("/dev/full", "w");
        if (!out)
            CHECK_SKIP_PART("no /dev/full");
        else {
            struct stint_bgfile *bf;
            FILE *f = stint_bgfile_open(out, &bf);
            REQUIRE(f != NULL);
            static char big[(size_t)3 << 20];
            fwrite(big, 1, sizeof big, f);
            errno = 0;
            CHECK_EQ_I64(stint_bgfile_close(f, bf), ENOSPC);
            CHECK_EQ_I64(errno, ENOSPC);
            CHECK(ferror(out) != 0);
            fclose(out);
        }
    }
    CHECK_DONE();
}
