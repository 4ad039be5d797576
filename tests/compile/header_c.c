/* SPDX-License-Identifier: MIT */
/* Compile test: the public header as C11 with -Wpedantic -Werror, with
 * STINT_ENABLED at 0 and at 1 (the build compiles this file both ways). */
#include <stint/stint.h>

int stint_compile_probe(int x);
int stint_compile_probe(int x)
{
#include "probe_body.h"
    stint_cycle_rec rec = {1, 2};
    (void)rec;
    return x;
}
