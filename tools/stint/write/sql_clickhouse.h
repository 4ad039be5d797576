/* SPDX-License-Identifier: MIT */
/*
 * sql_clickhouse.h - loading traces into a ClickHouse server for `stint sql
 * --clickhouse URL` and `stint convert --to clickhouse URL`: the tables of
 * sql_schema.h as MergeTree tables, rows inserted in batches over the HTTP
 * interface (FORMAT TabSeparated), with plain sockets.
 *
 * URL: http://HOST[:PORT][/?database=NAME] (port 8123, database "default"
 * when absent). Tables are created when missing and loads append: the ids
 * of a load start after the largest the tables hold, so the traces of many
 * loads (many machines) share one database.
 *
 * Errors (a server that cannot be reached, a statement it refuses) are
 * kept with the server's message; stint_ch_report_failure prints it with
 * the rows that went in, and records the failed load in the repair table
 * when the server still answers.
 */
#ifndef STINT_CLI_SQL_CLICKHOUSE_H
#define STINT_CLI_SQL_CLICKHOUSE_H

#include "write/sql_schema.h"

#include <stdio.h>

struct stint_ch;

/* Parses url; NULL (with "stint: clickhouse: ..." on stderr) when it is not
 * an http URL. Connects to nothing yet. */
struct stint_ch *stint_ch_open(const char *url);

/* Creates the database's tables and views where missing, and reads the ids
 * the tables already hold. 0, or -1 (the error is kept). */
int stint_ch_begin(struct stint_ch *ch);

/* Streams finished model m into the server as file f (in batches: some may
 * still be buffered). 0, or -1 (the error is kept). */
int stint_ch_add(struct stint_ch *ch, const struct stint_model *m, const struct stint_sql_file *f);

/* Sends what is still buffered. 0, or -1 (the error is kept). */
int stint_ch_flush(struct stint_ch *ch);

/* Prints the kept error, with the rows that went in and those that did not,
 * on stderr, and marks the load as failed in the repair table (kind
 * "load failed") when the server answers. */
void stint_ch_report_failure(struct stint_ch *ch);

/* Runs sql on the server with output format fmt (CH's name: PrettyCompact,
 * CSVWithNames, JSON...) and copies the answer to out. STINT_EXIT_OK; on an
 * error the server's message on stderr and STINT_EXIT_USAGE (the server
 * refused the query) or STINT_EXIT_IO (it could not be reached). */
int stint_ch_query(struct stint_ch *ch, const char *sql, const char *fmt, FILE *out);

/* The rows handed to the server in all (inserted, or buffered to be). */
uint64_t stint_ch_rows(const struct stint_ch *ch);

void stint_ch_close(struct stint_ch *ch);

#endif
