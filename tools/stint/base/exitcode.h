/* SPDX-License-Identifier: MIT */
/*
 * exitcode.h - the analyzer's exit codes, one meaning each (CLI internal;
 * docs/cli/manual.txt lists them for users). Append only: a script that
 * tests for 3 must keep meaning I/O.
 */
#ifndef STINT_CLI_EXITCODE_H
#define STINT_CLI_EXITCODE_H

enum stint_exit {
    STINT_EXIT_OK = 0,         /* success */
    STINT_EXIT_DATA = 1,       /* bad data, or a repair under --strict (report written, marked partial) */
    STINT_EXIT_USAGE = 2,      /* unknown command or option, bad option value, missing argument, a format the command does not read */
    STINT_EXIT_IO = 3,         /* a file could not be opened, read or written */
    STINT_EXIT_REGRESSION = 4, /* stint diff --fail-on-regression: a slowdown was flagged */
    STINT_EXIT_NOMEM = 5       /* out of memory: stderr says "stint: out of memory" */
};

#endif
