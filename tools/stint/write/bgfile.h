/* SPDX-License-Identifier: MIT */
/*
 * bgfile.h - a stdio stream whose bytes reach another stream on a thread of
 * their own (base/bgwrite.h): a writer formats into it while the thread
 * does the other stream's writes (for convert's output, on this machine
 * class as costly as the formatting: fresh page cache).
 *
 * Invariants: while the stream is open only its thread touches the other
 * stream; the bytes arrive whole and in order; the other stream's first
 * write error stops the rest and is told by stint_bgfile_close, with that
 * stream's error flag set as a failed fwrite leaves it.
 */
#ifndef STINT_CLI_BGFILE_H
#define STINT_CLI_BGFILE_H

#include <stdio.h>

struct stint_bgfile;

/* A new stream (1 MiB buffered by the thread's blocks) writing to out on a
 * thread; NULL when none can be made (the caller writes to out itself). */
FILE *stint_bgfile_open(FILE *out, struct stint_bgfile **bf);

/* Closes f (from stint_bgfile_open with bf), waits until the thread wrote
 * everything to out, joins it. Returns 0, or the errno of out's first
 * failed write (errno set to it as well). */
int stint_bgfile_close(FILE *f, struct stint_bgfile *bf);

#endif
