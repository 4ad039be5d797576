/* SPDX-License-Identifier: MIT */
/*
 * prewarm.h - a file's page cache made ready before it is written (CLI
 * internal). A thread reserves the first bytes of a file that is about to
 * be written sequentially (fallocate(2)) and reads that range once, so the
 * kernel fills its page cache with zeros while the caller is still busy
 * elsewhere (convert reading its input). The writes that come later copy
 * into pages that exist. On this machine class a fresh page of page cache
 * costs the host's first touch (~2 s a GB, the free memory having been
 * handed back to the host), and the output's writing thread was 100% busy
 * for that copy after the read; warmed, the same writes take ~0.2 s a GB.
 *
 * Invariants: the thread only calls fallocate on [0, bytes) and reads; it
 * never writes data, so the caller's bytes are never changed; the file's
 * size becomes at least bytes (fallocate mode 0), so the caller must cut it
 * to what it wrote (ftruncate) before the file is used; the reading stops
 * early when stint_prewarm_end is called, when the caller's writing has
 * passed it, or at the first error (then the range is simply not warm:
 * no error is reported, the writes work as without it).
 */
#ifndef STINT_CLI_PREWARM_H
#define STINT_CLI_PREWARM_H

#include <stdint.h>

struct stint_prewarm;

/* Starts warming [0, bytes) of the regular file open on fd (its offset is
 * the caller's write position; the thread reads it, never moves it).
 * NULL when there is nothing to do: bytes 0, one thread wanted
 * (STINT_THREADS=1), fd no regular file, STINT_PREWARM=0, or no thread. */
struct stint_prewarm *stint_prewarm_start(int fd, uint64_t bytes);

/* Stops the thread (at its next step), joins it and frees p; NULL: no-op.
 * Returns 1 when the thread changed the file's size (fallocate took), so
 * the caller must cut the file to what it wrote, else 0. */
int stint_prewarm_end(struct stint_prewarm *p);

#endif
