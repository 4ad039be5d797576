/* SPDX-License-Identifier: MIT */
/*
 * sql_sqlite.h - loading traces into SQLite for `stint sql`: the tables of
 * sql_schema.h with rowid keys, the Perfetto-shaped views over them, and
 * extract_arg(arg_set_id, key) as Perfetto's trace processor has it.
 *
 * A load is one transaction with one prepared INSERT per table; rows come
 * straight from the model walk (sql_schema.h: stint_sql_rows), so the
 * database is the only copy besides the model being read. Built only with
 * STINT_HAVE_SQLITE.
 */
#ifndef STINT_CLI_SQL_SQLITE_H
#define STINT_CLI_SQL_SQLITE_H

#include "write/sql_schema.h"

#include <sqlite3.h>

struct stint_sqlite_load {
    sqlite3 *db;
    sqlite3_stmt *ins[STINT_SQL_NTABLES];
    int param[STINT_SQL_NTABLES][16]; /* column -> its insert's parameter (1-based); 0: generated */
    sqlite3_stmt *extract; /* extract_arg's lookup (prepared on first use) */
    int failed;            /* a row failed: the message is sqlite3_errmsg(db) */
    struct stint_sql_ids ids;
    struct stint_sql_count count;
};

/* Creates the tables and views in db (empty), starts the transaction and
 * prepares the inserts; registers extract_arg. Returns 0, or -1 with
 * sqlite3_errmsg(db) saying why. */
int stint_sqlite_begin(struct stint_sqlite_load *l, sqlite3 *db);

/* Streams finished model m into the open load as file f. Returns 0, or -1
 * (sqlite3_errmsg(l->db) says why; the caller ends the load). */
int stint_sqlite_add(struct stint_sqlite_load *l, const struct stint_model *m, const struct stint_sql_file *f);

/* Commits (ok) or rolls back the transaction and finalizes the inserts;
 * extract_arg stays usable until stint_sqlite_close. Returns 0, or -1 when
 * the commit failed. */
int stint_sqlite_end(struct stint_sqlite_load *l, int ok);

/* Finalizes what the load still holds (extract_arg's statement) and closes
 * its database. */
void stint_sqlite_close(struct stint_sqlite_load *l);

#endif
