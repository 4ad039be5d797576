/* SPDX-License-Identifier: MIT */
/*
 * cmd_sql.h - what `stint sql` lends to other commands: `stint convert IN
 * --to clickhouse -o URL` loads IN into a ClickHouse server as `stint sql
 * --clickhouse URL IN` does (cmd_sql.c).
 */
#ifndef STINT_CLI_CMD_SQL_H
#define STINT_CLI_CMD_SQL_H

#include "cmd/cmdopts.h"

/* Loads o->path (with o's --strict and --format) into the ClickHouse server
 * at url: the same tables, ids after those it holds. Prints what went in
 * (or the server's message and the rows that went in) on stderr. Returns
 * the read's exit code; STINT_EXIT_USAGE without url or with a bad one;
 * STINT_EXIT_IO when the server fails. */
int stint_sql_convert_clickhouse(const struct stint_cmd_opts *o, const char *url);

#endif
