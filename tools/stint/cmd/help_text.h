/*
 * help_text.h - the text of `stint help <command>`, generated into
 * help_text.c by scripts/gen_manual.py from docs/cli/manual.txt (the same
 * source as the man pages stint(1) and libstint(3)).
 */
#ifndef STINT_CLI_HELP_TEXT_H
#define STINT_CLI_HELP_TEXT_H

#include <stdio.h>

/* The manual of command as a NULL-terminated array of lines (static), or
 * NULL when the manual has no such command. */
const char *const *stint_help_lines(const char *command);

/* Prints the manual of command to out. Returns 0, or -1 when there is no
 * such command or the write failed. */
int stint_help_print(FILE *out, const char *command);

#endif
