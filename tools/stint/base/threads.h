/* SPDX-License-Identifier: MIT */
/*
 * threads.h - how many threads the analyzer may use (CLI internal).
 */
#ifndef STINT_CLI_THREADS_H
#define STINT_CLI_THREADS_H

/* The most threads any part of the analyzer starts for one read or walk. */
#define STINT_MAX_THREADS 16

/* STINT_THREADS when set (1 keeps the parsing, merging and summarizing on
 * the calling thread; gzip input is still inflated on a thread of its own
 * unless STINT_NO_INFLATE_THREAD is set, read/input.c), else the CPUs this
 * process may run on; always 1 to STINT_MAX_THREADS. */
int stint_threads_wanted(void);

#endif
