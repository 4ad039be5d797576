/* SPDX-License-Identifier: MIT */
/*
 * input_int.h - what the input layer's files share (read/ internal).
 *
 * input.c opens inputs, reads plain bytes and keeps the window (input.h);
 * input_gzip.c inflates gzip members on the calling thread (ISA-L, or zlib)
 * and checks their trailers; input_thread.c runs the inflate thread (the
 * gzip pipe) that hands the reader whole blocks. One call crosses files per
 * chunk or block, never per byte.
 */
#ifndef STINT_CLI_INPUT_INT_H
#define STINT_CLI_INPUT_INT_H

#include "read/input.h"
#include "base/hmem.h"

#include "read/json.h"
#include "read/json_shape.h"
#include "base/selftrace.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(STINT_HAVE_ISAL)
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#elif defined(STINT_HAVE_ZLIB)
#include <zlib.h>
#endif

/* Compressed bytes per read. 1 MiB of gzip -1 JSON inflates to ~7 MiB: few
 * reads, and one quarter of the pages a 4 MiB buffer would touch. The first
 * read of any input (the format sniff) is this size too, straight into the
 * window. */
#ifdef STINT_SMALL_BUFFERS
#define ZIN_CHUNK ((size_t)4 << 10)
#else
#define ZIN_CHUNK ((size_t)1 << 20)
#endif

/* gzip members with ISA-L:
 * ISA-L inflates each member's deflate data raw (ISAL_DEFLATE); stint reads
 * the member's header with isal_read_gzip_header() and its 8-byte trailer
 * itself, and checks the trailer: the size (mod 2^32) here, the CRC-32
 * where the output is taken. Inflating on this thread, that is here too;
 * on the inflate thread (gzip pipe) it is the reader's job (pipe_fill), so
 * the thread that bounds a .gz read only inflates (the CRC is some 3% of
 * ISA-L's time here: 19 of 595 ms on 1 GB). A member whose CRC the reader
 * is to check leaves a record with its block (struct gz_mends). */


#ifdef STINT_SMALL_BUFFERS
#define GZ_MENDS 2 /* (fuzz builds: the inline check after two member ends in a block) */
#else
#define GZ_MENDS 8
#endif

/* The member ends in one block of output whose CRC-32 the reader checks.
 * A block with more member ends than that has the members after the last
 * record checked where they are inflated, from offset inl on: the reader
 * then takes up the member the block ends in (if any) with its CRC-32 so
 * far, hand. */
struct gz_mends {
    size_t n;
    struct gz_mend {
        size_t off;   /* where the member's output ends in the block */
        uint32_t crc; /* its trailer's CRC-32 */
        uint64_t zat; /* compressed offset just past the trailer (for the message) */
    } e[GZ_MENDS];
    size_t inl;       /* SIZE_MAX: none */
    uint32_t hand;
};

/* Where piece k (0..me->n) of a block of len bytes ends: the block's CRC-32
 * is found piece by piece, [0, first end), [that end, the next), ..., up to
 * me->inl or the block's end; the inflate thread (pieces ahead) and the
 * reader (crc_take) cut the block the same way. */
static inline size_t piece_end(const struct gz_mends *me, size_t k, size_t len)
{
    return k < me->n ? me->e[k].off : me->inl < len ? me->inl : len;
}

/* read() of n bytes into dst, retried until n or the end of input (EINTR
 * retried; the STINT_TEST_EIO_AT knob applies): bytes read, -1 with errno. */
ssize_t stint_i_input_read_full(int fd, void *dst, size_t n);

/* Makes the window memory hold at least need bytes (doubling; a window in it
 * moves along). 0 ok; -1 with in->err set past STINT_INPUT_MAX_WINDOW. Out
 * of memory ends the process (base/xalloc.h: exit STINT_EXIT_NOMEM). */
int stint_i_input_grow(struct stint_input *in, size_t need);

/* Inflates into dst[0..room): bytes produced, -1 with in->err set. With
 * ISA-L, the member ends in the output whose CRC-32 the caller checks go to
 * me (NULL: checked here); zlib checks every member itself. input_gzip.c. */
ssize_t stint_i_gz_inflate(struct stint_input *in, char *dst, size_t room, struct gz_mends *me);

#if defined(STINT_HAVE_ISAL)
/* The message for a member whose output's CRC-32 got is not its trailer's
 * want (zat: the compressed offset past the trailer); -1. */
int stint_i_gz_crc_mismatch(struct stint_input *in, uint64_t zat, uint32_t got, uint32_t want);

/* The CRC-32 of A followed by B from crc_a (A's), crc_b and len_b (B's length). */
uint32_t stint_i_gz_crc_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
#endif

/* The inflate thread (input_thread.c): the compressed chunk the reader read
 * ahead for the producer, or one read now (bytes, -1 with errno); fill()
 * through the ring (1 data added, 0 end, -1 error); start (0, or -1 when the
 * thread cannot run: the caller inflates itself) and stop (joins, frees). */
ssize_t stint_i_input_pipe_zin_read(struct stint_input *in);
int stint_i_input_pipe_fill(struct stint_input *in);
int stint_i_input_pipe_start(struct stint_input *in);
void stint_i_input_pipe_stop(struct stint_input *in);

#endif
