/* SPDX-License-Identifier: MIT */
/*
 * threads.c - the analyzer's thread budget (threads.h), from STINT_THREADS
 * or else the process's CPU affinity (2 when neither says).
 *
 * Invariant: the answer is always in [1, STINT_MAX_THREADS], whatever the
 * environment holds; it keeps no state, so each caller reads it afresh.
 */
#include "base/threads.h"

#include <sched.h>
#include <stdlib.h>

int stint_threads_wanted(void)
{
    const char *e = getenv("STINT_THREADS");
    int n = 2;
    if (e && *e)
        n = atoi(e);
    else {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            n = CPU_COUNT(&set);
    }
    return n < 1 ? 1 : n > STINT_MAX_THREADS ? STINT_MAX_THREADS : n;
}
