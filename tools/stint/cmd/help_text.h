/* SPDX-License-Identifier: MIT */
/*
 * help_text.h - the text of `stint help <command>`, generated into
 * help_text.c by scripts/gen_manual.py from docs/cli/manual.txt (the same
 * source as the man pages stint(1) and libstint(3)).
 */
#ifndef STINT_CLI_HELP_TEXT_H
#define STINT_CLI_HELP_TEXT_H

#include <stdio.h>

/* Whether the manual has a page for command (1) or not (0). */
int stint_help_has(const char *command);

/* Prints the manual of command to out. Returns 0, or -1 when there is no
 * such command or the write failed. */
int stint_help_print(FILE *out, const char *command);

#endif
