/* SPDX-License-Identifier: MIT */
/*
 * sql_sqlite.c - the SQLite side of `stint sql` (sql_sqlite.h): DDL from the
 * shared column lists, the views that give Perfetto's table names over
 * them, one prepared INSERT per table bound from the walk's values, and
 * extract_arg().
 *
 * Invariants: the tables' integer ids are rowids (INTEGER PRIMARY KEY;
 * args is keyed (arg_set_id, id), so a slice's args are one range); ids
 * only grow within a load, so every insert appends; text is bound
 * SQLITE_STATIC, as it lives in the model until the step returns; nothing
 * is committed unless every row went in.
 */
#ifdef STINT_HAVE_SQLITE
#include "write/sql_sqlite.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Views: Perfetto's names for parts of track, and stint's span and instant. */
static const char views_sql[] =
    "CREATE VIEW thread_track AS SELECT id, name, type, utid FROM track WHERE kind = 'thread';\n"
    "CREATE VIEW process_track AS SELECT id, name, type, upid FROM track\n"
    "  WHERE kind = 'process' OR type = 'legacy_async_process_slice';\n"
    "CREATE VIEW counter_track AS SELECT id, name, type, upid FROM track WHERE kind = 'counter';\n"
    "CREATE VIEW process_counter_track AS SELECT id, name, type, upid FROM track WHERE kind = 'counter';\n"
    "CREATE VIEW instant AS SELECT s.id, s.ts, s.track_id, s.category, s.name, s.arg_set_id, s.pid, s.tid,\n"
    "  t.kind AS scope FROM slice s JOIN track t ON s.track_id = t.id WHERE s.flags & 4;\n"
    "CREATE VIEW span AS SELECT s.id, s.pid, s.tid, s.category AS cat, s.name, s.ts, s.dur, s.self, s.depth,\n"
    "  t.clock, s.track_id, s.parent_id, s.arg_set_id FROM slice s JOIN track t ON s.track_id = t.id\n"
    "  WHERE (s.flags & 4) = 0;\n";

/* Columns SQLite computes instead of storing (VIRTUAL generated columns: no
 * bytes on disk, no binding); the walk's values for them are not bound.
 * The same value as stored: key is the flat key, display_value the value as
 * text (a real as SQLite prints the double, not as the trace wrote it). */
static const struct {
    const char *table, *col, *expr;
} generated[] = {
    {"args", "key", "flat_key"},
    {"args", "display_value",
     "CASE value_type WHEN 'bool' THEN CASE WHEN int_value THEN 'true' ELSE 'false' END "
     "WHEN 'int' THEN CAST(int_value AS TEXT) WHEN 'uint' THEN CAST(coalesce(int_value, real_value) AS TEXT) "
     "WHEN 'real' THEN CAST(real_value AS TEXT) ELSE string_value END"},
};

/* The expression of t's column c when SQLite generates it, else NULL. */
static const char *generated_expr(const struct stint_sql_table *t, unsigned c)
{
    for (size_t g = 0; g < sizeof generated / sizeof generated[0]; g++)
        if (!strcmp(generated[g].table, t->name) && !strcmp(generated[g].col, t->cols[c].name))
            return generated[g].expr;
    return NULL;
}

/* Appends the text s to the growing buffer *b (length *n, capacity *cap). */
static void put(char **b, size_t *n, size_t *cap, const char *s)
{
    size_t k = strlen(s);
    if (*n + k + 1 > *cap) {
        *cap = (*n + k + 1) * 2;
        *b = stint_xreallocarray(*b, *cap, 1);
    }
    memcpy(*b + *n, s, k + 1);
    *n += k;
}

/* CREATE TABLE for table t (the caller frees the text). */
static char *create_sql(const struct stint_sql_table *t)
{
    char *b = NULL;
    size_t n = 0, cap = 0;
    put(&b, &n, &cap, "CREATE TABLE ");
    put(&b, &n, &cap, t->name);
    put(&b, &n, &cap, " (");
    static const char *const types[] = {"INTEGER", "REAL", "TEXT"};
    for (unsigned c = 0; c < t->ncols; c++) {
        put(&b, &n, &cap, c ? ", " : "");
        put(&b, &n, &cap, t->cols[c].name);
        put(&b, &n, &cap, " ");
        put(&b, &n, &cap, types[t->cols[c].type]);
        const char *gen = generated_expr(t, c);
        if (gen) {
            put(&b, &n, &cap, " GENERATED ALWAYS AS (");
            put(&b, &n, &cap, gen);
            put(&b, &n, &cap, ") VIRTUAL");
            continue;
        }
        int key = c == 0 && t->cols[c].type == STINT_SQL_INT && strcmp(t->name, "args") &&
                  (!strcmp(t->cols[c].name, "id") || !strcmp(t->cols[c].name, "upid") ||
                   !strcmp(t->cols[c].name, "utid"));
        if (key)
            put(&b, &n, &cap, " PRIMARY KEY");
        else if (!t->cols[c].nullable)
            put(&b, &n, &cap, " NOT NULL");
    }
    if (!strcmp(t->name, "slice")) /* Perfetto's older name of the id, stored nowhere */
        put(&b, &n, &cap, ", slice_id INTEGER GENERATED ALWAYS AS (id) VIRTUAL");
    if (!strcmp(t->name, "args"))
        put(&b, &n, &cap, ", PRIMARY KEY (arg_set_id, id)) WITHOUT ROWID");
    else
        put(&b, &n, &cap, ")");
    return b;
}

/* INSERT for table t with one parameter per column (the caller frees it). */
static char *insert_sql(const struct stint_sql_table *t)
{
    char *b = NULL;
    size_t n = 0, cap = 0;
    put(&b, &n, &cap, "INSERT INTO ");
    put(&b, &n, &cap, t->name);
    put(&b, &n, &cap, " (");
    unsigned k = 0;
    for (unsigned c = 0; c < t->ncols; c++) {
        if (generated_expr(t, c))
            continue;
        put(&b, &n, &cap, k++ ? ", " : "");
        put(&b, &n, &cap, t->cols[c].name);
    }
    put(&b, &n, &cap, ") VALUES (");
    for (unsigned c = 0; c < k; c++)
        put(&b, &n, &cap, c ? ", ?" : "?");
    put(&b, &n, &cap, ")");
    return b;
}

/* extract_arg(arg_set_id, key): the value of key in that arg set (its
 * integer, text or real as value_type says), NULL when absent. */
static void extract_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct stint_sqlite_load *l = sqlite3_user_data(ctx);
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    if (!l->extract &&
        sqlite3_prepare_v2(l->db,
                           "SELECT CASE WHEN value_type IN ('string', 'json') THEN string_value "
                           "WHEN value_type = 'real' THEN real_value ELSE coalesce(int_value, real_value) END "
                           "FROM args WHERE arg_set_id = ?1 AND key = ?2 ORDER BY id LIMIT 1",
                           -1, &l->extract, NULL) != SQLITE_OK) {
        sqlite3_result_error(ctx, sqlite3_errmsg(l->db), -1);
        return;
    }
    sqlite3_bind_value(l->extract, 1, argv[0]);
    sqlite3_bind_value(l->extract, 2, argv[1]);
    int rc = sqlite3_step(l->extract);
    if (rc == SQLITE_ROW)
        sqlite3_result_value(ctx, sqlite3_column_value(l->extract, 0));
    else if (rc == SQLITE_DONE)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_error(ctx, sqlite3_errmsg(l->db), -1);
    sqlite3_reset(l->extract);
}

/* The sink: binds v to table's insert and steps it. */
static int row(void *ctx, unsigned table, const struct stint_sql_val *v)
{
    struct stint_sqlite_load *l = ctx;
    sqlite3_stmt *st = l->ins[table];
    unsigned n = stint_sql_tables[table].ncols;
    for (unsigned c = 0; c < n; c++) {
        int p = l->param[table][c];
        if (!p) /* generated by SQLite */
            continue;
        switch (v[c].kind) {
        case STINT_SQLV_INT: sqlite3_bind_int64(st, p, v[c].i); break;
        case STINT_SQLV_REAL: sqlite3_bind_double(st, p, v[c].r); break;
        case STINT_SQLV_TEXT: sqlite3_bind_text64(st, p, v[c].s, v[c].n, SQLITE_STATIC, SQLITE_UTF8); break;
        default: sqlite3_bind_null(st, p); break;
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        l->failed = 1;
        return -1;
    }
    return 0;
}

int stint_sqlite_begin(struct stint_sqlite_load *l, sqlite3 *db)
{
    memset(l, 0, sizeof *l);
    l->db = db;
    if (sqlite3_create_function(db, "extract_arg", 2, SQLITE_UTF8, l, extract_arg, NULL, NULL) != SQLITE_OK)
        return -1;
    /* A fresh database written once: no rollback journal, no syncs (the
     * caller writes a file under a temporary name and renames it when done). */
    if (sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536; PRAGMA page_size = 65536;"
                         "PRAGMA locking_mode = EXCLUSIVE; BEGIN",
                     NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++) {
        char *c = create_sql(&stint_sql_tables[t]);
        int rc = sqlite3_exec(db, c, NULL, NULL, NULL);
        free(c);
        if (rc != SQLITE_OK)
            return -1;
        if (stint_sql_tables[t].ncols > sizeof l->param[t] / sizeof l->param[t][0])
            return -1;
        for (unsigned col = 0, k = 0; col < stint_sql_tables[t].ncols; col++)
            l->param[t][col] = generated_expr(&stint_sql_tables[t], col) ? 0 : (int)++k;
        char *ins = insert_sql(&stint_sql_tables[t]);
        rc = sqlite3_prepare_v3(db, ins, -1, SQLITE_PREPARE_PERSISTENT, &l->ins[t], NULL);
        free(ins);
        if (rc != SQLITE_OK)
            return -1;
    }
    return sqlite3_exec(db, views_sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int stint_sqlite_add(struct stint_sqlite_load *l, const struct stint_model *m, const struct stint_sql_file *f)
{
    struct stint_sql_sink sink = {row, l};
    return stint_sql_rows(m, f, &l->ids, &sink, &l->count);
}

int stint_sqlite_end(struct stint_sqlite_load *l, int ok)
{
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++) {
        sqlite3_finalize(l->ins[t]);
        l->ins[t] = NULL;
    }
    if (!sqlite3_get_autocommit(l->db) &&
        sqlite3_exec(l->db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    return ok ? 0 : -1;
}

void stint_sqlite_close(struct stint_sqlite_load *l)
{
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++)
        sqlite3_finalize(l->ins[t]);
    sqlite3_finalize(l->extract);
    sqlite3_close(l->db);
    memset(l, 0, sizeof *l);
}

#else
typedef int stint_sql_sqlite_unused; /* (a translation unit may not be empty) */
#endif
