/* SPDX-License-Identifier: MIT */
// Compile test: the public header as C++ with -Wpedantic -Werror, with
// STINT_ENABLED at 0 and at 1.
#include <stint/stint.h>

int stint_compile_probe_cxx(int x);
int stint_compile_probe_cxx(int x)
{
#include "probe_body.h"
    stint_stats st;
    (void)st;
    return x;
}
