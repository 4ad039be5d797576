/* SPDX-License-Identifier: MIT */
/*
 * sql_print.h - running SQL text on a loaded `stint sql` database and
 * printing what it returns: an aligned table, CSV or JSON (cmd/sql_print.c),
 * and the interactive prompt. Built only with STINT_HAVE_SQLITE.
 */
#ifndef STINT_CLI_SQL_PRINT_H
#define STINT_CLI_SQL_PRINT_H

#ifdef STINT_HAVE_SQLITE
#include <sqlite3.h>
#include <stdio.h>

enum stint_sql_style { STINT_SQL_TABLE, STINT_SQL_CSV, STINT_SQL_JSON };

/* Runs every statement of sql on db in turn, printing each one's rows to f
 * in style (a statement that returns no columns prints nothing). On the
 * first error prints "stint sql: MESSAGE" (SQLite's) on stderr and returns
 * STINT_EXIT_USAGE; a write error on f is STINT_EXIT_IO; else STINT_EXIT_OK. */
int stint_sql_run(sqlite3 *db, const char *sql, enum stint_sql_style style, FILE *f);

/* The interactive prompt on stdin/stdout: statements run as they end with
 * ';' (printed as tables, or in style); .tables, .schema [TABLE], .help and
 * .quit; line editing and history with libedit where built with it.
 * Errors are printed and the prompt goes on. Returns STINT_EXIT_OK at end of
 * input. */
int stint_sql_prompt(sqlite3 *db, enum stint_sql_style style);
#endif

#endif
