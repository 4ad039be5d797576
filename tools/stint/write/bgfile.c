/* SPDX-License-Identifier: MIT */
/*
 * bgfile.c - a stdio stream written on a thread (bgfile.h): a glibc/musl
 * cookie stream whose write hook copies stdio's buffer into the thread's
 * blocks (base/bgwrite.c), and a sink that fwrites each block to the
 * other stream.
 */
#include "write/bgfile.h"

#include "base/bgwrite.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>

struct stint_bgfile {
    struct stint_bgwrite *bg;
    FILE *out;
};

/* The thread's sink: fwrite to the other stream. */
static int out_sink(void *ctx, const void *p, size_t n)
{
    FILE *out = ctx;
    errno = 0;
    if (fwrite(p, 1, n, out) == n)
        return 0;
    return errno ? errno : EIO;
}

/* The cookie stream's write hook: every byte taken (the thread keeps any
 * error for close). */
static ssize_t cookie_write(void *c, const char *p, size_t n)
{
    struct stint_bgfile *bf = c;
    stint_bgwrite_put(bf->bg, p, n);
    return (ssize_t)n;
}

FILE *stint_bgfile_open(FILE *out, struct stint_bgfile **bf)
{
    struct stint_bgfile *b = stint_xcalloc(1, sizeof *b);
    b->out = out;
    cookie_io_functions_t io = {.write = cookie_write};
    FILE *f = fopencookie(b, "w", io);
    if (f && (b->bg = stint_bgwrite_start(out_sink, out)) != NULL && setvbuf(f, NULL, _IOFBF, (size_t)1 << 16) == 0) {
        *bf = b;
        return f;
    }
    if (b->bg)
        (void)stint_bgwrite_end(b->bg);
    if (f)
        fclose(f); /* (nothing written to it: nothing reaches out) */
    free(b);
    *bf = NULL;
    return NULL;
}

int stint_bgfile_close(FILE *f, struct stint_bgfile *bf)
{
    fclose(f); /* (its write hook cannot fail: the flush goes to the blocks) */
    int err = stint_bgwrite_end(bf->bg);
    free(bf);
    if (err)
        errno = err;
    return err;
}
