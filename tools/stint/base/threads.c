/*
 * threads.c - the analyzer's thread budget (threads.h): read once from the
 * environment or the process's CPU affinity, clamped to [1, STINT_MAX_THREADS].
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
