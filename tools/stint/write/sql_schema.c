/* SPDX-License-Identifier: MIT */
/*
 * sql_schema.c - the column lists of `stint sql`'s tables (sql_schema.h),
 * the same for every engine: a column's name, its type (integer, real or
 * text) and whether it may hold NULL. Adding a column means adding it here,
 * in the row walk (sql_rows.c) and in docs/cli/sql.md, at the same place.
 */
#include "write/sql_schema.h"

#define I STINT_SQL_INT
#define R STINT_SQL_REAL
#define T STINT_SQL_TEXT
#define N(a) (unsigned)(sizeof(a) / sizeof(a)[0])

static const struct stint_sql_col c_process[] = {
    {"upid", I, 0}, {"pid", I, 0}, {"name", T, 1}, {"file", T, 0},
    {"rank", I, 0}, {"arg_set_id", I, 1}, {"sort_index", I, 1},
};
static const struct stint_sql_col c_thread[] = {
    {"utid", I, 0}, {"tid", I, 0}, {"name", T, 1}, {"upid", I, 0}, {"arg_set_id", I, 1}, {"sort_index", I, 1},
};
static const struct stint_sql_col c_lane[] = {
    {"id", I, 0}, {"utid", I, 1}, {"pid", I, 0}, {"tid", I, 0}, {"clock", T, 0},
    {"name", T, 1}, {"track_id", I, 0}, {"host_tid", I, 1},
};
static const struct stint_sql_col c_track[] = {
    {"id", I, 0}, {"name", T, 1}, {"type", T, 0}, {"kind", T, 0}, {"pid", I, 1},
    {"tid", I, 1}, {"upid", I, 1}, {"utid", I, 1}, {"clock", T, 1}, {"category", T, 1},
};
static const struct stint_sql_col c_slice[] = {
    {"id", I, 0}, {"ts", I, 0}, {"dur", I, 0}, {"track_id", I, 0}, {"category", T, 1},
    {"name", T, 1}, {"depth", I, 0}, {"parent_id", I, 1}, {"arg_set_id", I, 1}, {"thread_ts", I, 1},
    {"thread_dur", I, 1}, {"pid", I, 1}, {"tid", I, 1}, {"self", I, 1}, {"flags", I, 0},
};
static const struct stint_sql_col c_args[] = {
    {"id", I, 0}, {"arg_set_id", I, 0}, {"flat_key", T, 0}, {"key", T, 0}, {"int_value", I, 1},
    {"string_value", T, 1}, {"real_value", R, 1}, {"value_type", T, 0}, {"display_value", T, 1},
};
static const struct stint_sql_col c_flow[] = {
    {"id", I, 0}, {"slice_out", I, 0}, {"slice_in", I, 0}, {"arg_set_id", I, 1},
};
static const struct stint_sql_col c_counter[] = {
    {"id", I, 0}, {"ts", I, 0}, {"track_id", I, 0}, {"value", R, 0},
};
static const struct stint_sql_col c_metadata[] = {
    {"name", T, 0}, {"key_type", T, 0}, {"int_value", I, 1}, {"str_value", T, 1},
};
static const struct stint_sql_col c_repair[] = {
    {"file", T, 0}, {"kind", T, 0}, {"count", I, 0}, {"first_message", T, 1},
};
static const struct stint_sql_col c_lost[] = {
    {"file", T, 0}, {"pid", I, 0}, {"tid", I, 1}, {"count", I, 0}, {"first_ts", I, 1}, {"last_ts", I, 1},
};
static const struct stint_sql_col c_invocation[] = {
    {"pid", I, 0}, {"inv", I, 0}, {"hid", T, 1}, {"host_wall", I, 1}, {"device_wall", I, 1},
};

const struct stint_sql_table stint_sql_tables[STINT_SQL_NTABLES] = {
    [STINT_SQL_PROCESS] = {"process", c_process, N(c_process), "(pid, upid)"},
    [STINT_SQL_THREAD] = {"thread", c_thread, N(c_thread), "(upid, tid)"},
    [STINT_SQL_LANE] = {"lane", c_lane, N(c_lane), "(pid, tid)"},
    [STINT_SQL_TRACK] = {"track", c_track, N(c_track), "(ifNull(pid, 0), ifNull(tid, 0), id)"},
    [STINT_SQL_SLICE] = {"slice", c_slice, N(c_slice), "(ifNull(pid, 0), ifNull(tid, 0), ts)"},
    [STINT_SQL_ARGS] = {"args", c_args, N(c_args), "(arg_set_id, id)"},
    [STINT_SQL_FLOW] = {"flow", c_flow, N(c_flow), "(slice_out, slice_in)"},
    [STINT_SQL_COUNTER] = {"counter", c_counter, N(c_counter), "(track_id, ts)"},
    [STINT_SQL_METADATA] = {"metadata", c_metadata, N(c_metadata), "(name)"},
    [STINT_SQL_REPAIR] = {"repair", c_repair, N(c_repair), "(file, kind)"},
    [STINT_SQL_LOST] = {"lost", c_lost, N(c_lost), "(pid, ifNull(tid, 0))"},
    [STINT_SQL_INVOCATION] = {"invocation", c_invocation, N(c_invocation), "(pid, inv)"},
};

uint64_t stint_sql_count_total(const struct stint_sql_count *c)
{
    uint64_t n = 0;
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++)
        n += c->rows[t];
    return n;
}
