/* SPDX-License-Identifier: MIT */
/*
 * sql_schema.h - the tables `stint sql` loads a trace into, shared by the
 * SQLite and the ClickHouse loaders, and the walk that turns a finished
 * model into their rows.
 *
 * The tables are named and shaped like Perfetto's trace processor tables
 * where the two overlap (slice, thread, process, track, counter, args,
 * flow, metadata), plus stint's own (lane, repair, lost, invocation);
 * docs/cli/sql.md documents every column. Views (thread_track, span, ...)
 * are the engines' business (sql_sqlite.c, sql_clickhouse.c).
 *
 * Invariants: the walk hands every row straight from the model to a sink,
 * one at a time (no copy of the model is made; the only scratch is one
 * int64 per slice for self times and the per-invocation tally); ids are
 * dense per table and go on across the files of one load (struct
 * stint_sql_ids), so several traces share one database; timestamps and
 * durations are the model's int64 nanoseconds.
 */
#ifndef STINT_CLI_SQL_SCHEMA_H
#define STINT_CLI_SQL_SCHEMA_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

enum stint_sql_type { STINT_SQL_INT, STINT_SQL_REAL, STINT_SQL_TEXT };

struct stint_sql_col {
    const char *name;
    unsigned char type;     /* enum stint_sql_type */
    unsigned char nullable; /* may hold NULL */
};

struct stint_sql_table {
    const char *name;
    const struct stint_sql_col *cols;
    unsigned ncols;
    const char *order_by; /* ClickHouse's MergeTree sort key, e.g. "(pid, tid, ts)" */
};

/* The tables, in this order (their index is what a sink's row gets). */
enum stint_sql_tab {
    STINT_SQL_PROCESS, STINT_SQL_THREAD, STINT_SQL_LANE, STINT_SQL_TRACK, STINT_SQL_SLICE, STINT_SQL_ARGS,
    STINT_SQL_FLOW, STINT_SQL_COUNTER, STINT_SQL_METADATA, STINT_SQL_REPAIR, STINT_SQL_LOST,
    STINT_SQL_INVOCATION, STINT_SQL_NTABLES
};
extern const struct stint_sql_table stint_sql_tables[STINT_SQL_NTABLES];

/* One value of a row: v.kind says which member holds it. */
enum stint_sql_kind { STINT_SQLV_NULL, STINT_SQLV_INT, STINT_SQLV_REAL, STINT_SQLV_TEXT };
struct stint_sql_val {
    int kind;        /* enum stint_sql_kind */
    int64_t i;
    double r;
    const char *s;   /* TEXT: s[0..n), valid until the row call returns */
    size_t n;
};

/* Where rows go: row() gets table (enum stint_sql_tab) and its ncols values;
 * it returns 0, or -1 to stop the walk (the sink keeps its own error). */
struct stint_sql_sink {
    int (*row)(void *ctx, unsigned table, const struct stint_sql_val *v);
    void *ctx;
};

/* The next id of each id space; zero it before the first file. */
struct stint_sql_ids {
    int64_t upid, lane, track, slice, arg_set, arg, flow, counter;
};

/* One input file of a load. */
struct stint_sql_file {
    const char *path;  /* what the process and repair rows' file column says */
    int64_t rank;      /* the file's place among the inputs, from 0 */
};

/* Rows per table handed to the sink (what a load reports). */
struct stint_sql_count {
    uint64_t rows[STINT_SQL_NTABLES];
};
uint64_t stint_sql_count_total(const struct stint_sql_count *c);

/* Streams every row of finished model m (read with STINT_MODEL_KEEP_ARGS and
 * STINT_MODEL_KEEP_SAMPLES, not lean) to sink, ids taken from and advanced in
 * *ids, counts added to *count. Returns 0, or -1 when the sink stopped it. */
int stint_sql_rows(const struct stint_model *m, const struct stint_sql_file *f, struct stint_sql_ids *ids,
                   const struct stint_sql_sink *sink, struct stint_sql_count *count);

#endif
