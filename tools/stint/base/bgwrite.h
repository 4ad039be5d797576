/* SPDX-License-Identifier: MIT */
/*
 * bgwrite.h - bytes written on a thread of their own (CLI internal): the
 * caller copies them into a few blocks and goes on while the thread hands
 * each full block to a sink (write(2) to a file, fwrite to a stream). On
 * this machine class a write into fresh page cache costs about as much CPU
 * as making the bytes (the host hands memory back only as it is touched),
 * so convert's output and its args' temporary file are written this way.
 *
 * Invariants: blocks reach the sink whole and in the order given; the sink
 * runs on the thread alone while the writer lives; after its first failure
 * the sink is called no more and the rest is dropped, its errno kept for
 * stint_bgwrite_end; memory: BGWRITE_BLOCKS blocks of BGWRITE_BLOCK bytes.
 */
#ifndef STINT_CLI_BGWRITE_H
#define STINT_CLI_BGWRITE_H

#include <stddef.h>

struct stint_bgwrite;

/* Writes p[0, n) in full or returns an errno (0: written). */
typedef int (*stint_bgwrite_sink)(void *ctx, const void *p, size_t n);

/* Starts the thread for sink(ctx, ...); NULL when no thread can be made
 * (the caller then writes itself). */
struct stint_bgwrite *stint_bgwrite_start(stint_bgwrite_sink sink, void *ctx);

/* Copies p[0, n) to the blocks; waits while every block waits for the
 * thread. */
void stint_bgwrite_put(struct stint_bgwrite *w, const void *p, size_t n);

/* Hands over what the blocks hold, waits for the thread to write it all,
 * joins it and frees w. Returns 0 or the errno of the sink's first failure. */
int stint_bgwrite_end(struct stint_bgwrite *w);

/* The sink for a file descriptor (ctx: a pointer to the int fd): write(2)
 * until done, EINTR retried. */
int stint_bgwrite_fd_sink(void *ctx, const void *p, size_t n);

#endif
