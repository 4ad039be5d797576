/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the CLI's command entry points.
 *
 * Each command lives in tools/stint/cmd/cmd_<name>.c and is declared here once.
 * The declarations are weak so that main.c links while a command is not yet
 * built; main() reports such a command as unavailable (exit 2).
 *
 * Contract of every entry point: argv[0] is the command name; the return value
 * is the process exit code, one of enum stint_exit (base/exitcode.h).
 */
#ifndef STINT_CLI_COMMANDS_H
#define STINT_CLI_COMMANDS_H

#include "base/exitcode.h"

#define STINT_CMD(name) int stint_cmd_##name(int argc, char **argv) __attribute__((weak))
STINT_CMD(slices);
STINT_CMD(summary);
STINT_CMD(timing);
STINT_CMD(tree);
STINT_CMD(steps);
STINT_CMD(counters);
STINT_CMD(memory);
STINT_CMD(diff);
STINT_CMD(convert);
STINT_CMD(report);
STINT_CMD(sizes);
STINT_CMD(gpu);
STINT_CMD(sql);
STINT_CMD(top);
#undef STINT_CMD

#endif
