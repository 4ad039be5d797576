/* SPDX-License-Identifier: MIT */
/*
 * session_records.c - the observation records of a JSONL session: op,
 * tensor, memory, device_memory, gradient, counter, fork and dropped lines,
 * and the dtype sizes that fill in a record's storage_bytes.
 *
 * Invariants: every argument is checked before stint_i_sess_enter, so a
 * record is written whole or not at all; a record that names a span names
 * one begun in this session (s1 .. next_id); a size that overflows int64 is
 * written as 0 and counted (size_overflows).
 */
#include "session_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- dtype sizes ------------------------------------------------------------ */

size_t stint_dtype_size(const char *dtype)
{
    static const struct {
        const char *name;
        size_t size;
    } table[] = {{"u8", 1},  {"i8", 1},  {"bool", 1}, {"f8", 1},   {"u16", 2}, {"i16", 2},
                 {"f16", 2}, {"bf16", 2}, {"u32", 4}, {"i32", 4},  {"f32", 4}, {"u64", 8},
                 {"i64", 8}, {"f64", 8}};
    if (!dtype)
        return 0;
    char low[8];
    size_t n = strlen(dtype);
    if (n >= sizeof low)
        return 0;
    for (size_t i = 0; i < n && i < sizeof low - 1; i++)
        low[i] = (char)tolower((unsigned char)dtype[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(low, table[i].name) == 0)
            return table[i].size;
    return 0;
}

uint64_t stint_storage_bytes(const uint64_t *shape, size_t ndim, const char *dtype, int *overflow)
{
    if (overflow)
        *overflow = 0;
    uint64_t bytes = stint_dtype_size(dtype);
    if (!bytes)
        return 0;
    for (size_t i = 0; i < ndim; i++)
        if (shape[i] == 0)
            return 0;
    for (size_t i = 0; i < ndim; i++) {
        if (bytes > UINT64_MAX / shape[i]) {
            if (overflow)
                *overflow = 1;
            return 0;
        }
        bytes *= shape[i];
    }
    return bytes;
}

/* ---- observations --------------------------------------------------------------- */

static const char *category_name(stint_category c)
{
    switch (c) {
    case STINT_CATEGORY_PARAMETER: return "parameter";
    case STINT_CATEGORY_ACTIVATION: return "activation";
    case STINT_CATEGORY_GRADIENT: return "gradient";
    case STINT_CATEGORY_OPTIMIZER: return "optimizer";
    case STINT_CATEGORY_NONE:
    case STINT_CATEGORY_OTHER: break;
    }
    return "other";
}

/* Checks span_id refers to a span begun in this session (lock held). */
static stint_status check_span(stint_session *s, uint64_t span_id)
{
    if (span_id == 0 || span_id > s->next_id) {
        snprintf(s->msg, sizeof s->msg, "%s: span `s%llu` was never begun in this session", s->path,
                (unsigned long long)span_id);
        return STINT_E_NOT_FOUND;
    }
    return STINT_OK;
}

/* stint_i_sess_enter, then check_span: STINT_OK with the lock held, or the
 * status to return with the lock dropped. */
static stint_status enter_span(stint_session *s, uint64_t span_id)
{
    stint_status st = stint_i_sess_enter(s);
    if (st == STINT_OK && (st = check_span(s, span_id)) != STINT_OK)
        return stint_i_sess_leave(s, st);
    return st;
}

/* enter_span, then the record's first two fields: kind and span_id. */
static stint_status open_span_record(stint_session *s, const char *kind, uint64_t span_id)
{
    stint_status st = enter_span(s, span_id);
    if (st == STINT_OK) {
        sess_line_begin(s, kind);
        sess_kv_span(s, "span_id", span_id);
    }
    return st;
}

/* stint_i_sess_enter, then the record's first two fields: kind and
 * timestamp_ns (ts_ns when positive, else now). */
static stint_status open_timed_record(stint_session *s, const char *kind, int64_t ts_ns)
{
    stint_status st = stint_i_sess_enter(s);
    if (st == STINT_OK) {
        sess_line_begin(s, kind);
        sess_kv_i64(s, "timestamp_ns", ts_ns > 0 ? ts_ns : stint_i_sess_since_open(s));
    }
    return st;
}

/* A tensor's layout, as op and tensor records give it: shape, dtype, device
 * (the session's when NULL). */
static void kv_layout(stint_session *s, const uint64_t *shape, size_t ndim, const char *dtype, const char *device)
{
    sess_kv_shape(s, shape, ndim);
    sess_kv_str(s, "dtype", dtype);
    sess_kv_str(s, "device", device ? device : s->device);
}

static int64_t resolve_bytes(stint_session *s, int64_t given, const uint64_t *shape, size_t ndim, const char *dtype)
{
    if (given >= 0)
        return given;
    int overflow = 0;
    uint64_t b = stint_storage_bytes(shape, ndim, dtype, &overflow);
    if (overflow || b > (uint64_t)INT64_MAX) {
        s->stats.size_overflows++;
        return 0;
    }
    return (int64_t)b;
}

stint_status stint_session_op(stint_session *s, const stint_op_record *op)
{
    if (!op || !op->op_name || !op->dtype || (op->ninputs && !op->inputs) || (op->ndim && !op->shape))
        return STINT_E_INVAL;
    for (size_t i = 0; i < op->ninputs; i++)
        if (!op->inputs[i])
            return STINT_E_INVAL;
    stint_status st = open_span_record(s, "op", op->span_id);
    if (st)
        return st;
    sess_kv_str(s, "op_name", op->op_name);
    sess_key(s, "inputs");
    stint_i_jb_char(&s->line, '[');
    for (size_t i = 0; i < op->ninputs; i++) {
        if (i)
            stint_i_jb_char(&s->line, ',');
        stint_i_jb_cstr(&s->line, op->inputs[i]);
    }
    stint_i_jb_char(&s->line, ']');
    if (op->output)
        sess_kv_str(s, "output", op->output);
    kv_layout(s, op->shape, op->ndim, op->dtype, op->device);
    sess_kv_i64(s, "duration_ns", op->duration_ns);
    sess_kv_i64(s, "timestamp_ns", op->timestamp_ns > 0 ? op->timestamp_ns : stint_i_sess_since_open(s));
    sess_kv_i64(s, "storage_bytes", resolve_bytes(s, op->storage_bytes, op->shape, op->ndim, op->dtype));
    sess_kv_u64(s, "input_storage_bytes", op->input_storage_bytes);
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_session_tensor(stint_session *s, const stint_tensor_record *t)
{
    if (!t || !t->tensor_id || !t->dtype || (t->ndim && !t->shape) || (unsigned)t->category > STINT_CATEGORY_OTHER)
        return STINT_E_INVAL;
    stint_status st = open_span_record(s, "tensor", t->span_id);
    if (st)
        return st;
    sess_kv_str(s, "tensor_id", t->tensor_id);
    kv_layout(s, t->shape, t->ndim, t->dtype, t->device);
    sess_kv_bool(s, "requires_grad", t->requires_grad);
    sess_kv_i64(s, "storage_bytes", resolve_bytes(s, t->storage_bytes, t->shape, t->ndim, t->dtype));
    if (t->category != STINT_CATEGORY_NONE)
        sess_kv_str(s, "category", category_name(t->category));
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_session_memory(stint_session *s, const stint_memory_record *m)
{
    if (!m || !m->tensor_id || !m->dtype || (m->ndim && !m->shape) || (unsigned)m->action > STINT_MEM_FREE ||
        (unsigned)m->category > STINT_CATEGORY_OTHER)
        return STINT_E_INVAL;
    stint_status st = enter_span(s, m->span_id);
    if (st)
        return st;
    sess_line_begin(s, "memory");
    sess_kv_i64(s, "timestamp_ns", m->timestamp_ns > 0 ? m->timestamp_ns : stint_i_sess_since_open(s));
    sess_kv_str(s, "tensor_id", m->tensor_id);
    sess_kv_span(s, "span_id", m->span_id);
    if (m->op_name)
        sess_kv_str(s, "op_name", m->op_name);
    sess_kv_str(s, "device", m->device ? m->device : s->device);
    sess_kv_u64(s, "bytes", m->bytes);
    sess_kv_str(s, "action", m->action == STINT_MEM_ALLOC ? "alloc" : "free");
    sess_kv_shape(s, m->shape, m->ndim);
    sess_kv_str(s, "dtype", m->dtype);
    sess_kv_str(s, "category", category_name(m->category));
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_session_device_memory(stint_session *s, const char *device, uint64_t used_bytes,
                                         uint64_t free_bytes, int64_t reserved_bytes, int64_t timestamp_ns)
{
    stint_status st = open_timed_record(s, "device_memory", timestamp_ns);
    if (st)
        return st;
    sess_kv_str(s, "device", device ? device : s->device);
    sess_kv_u64(s, "used_bytes", used_bytes);
    sess_kv_u64(s, "free_bytes", free_bytes);
    if (reserved_bytes >= 0)
        sess_kv_i64(s, "reserved_bytes", reserved_bytes);
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_session_gradient(stint_session *s, const char *root, const char *k, stint_grad_state state,
                                    const double *norm)
{
    static const char *const states[] = {"present", "missing", "zero", "non_finite"};
    if (!root || !k || (unsigned)state > STINT_GRAD_NON_FINITE)
        return STINT_E_INVAL;
    stint_status st = stint_i_sess_enter(s);
    if (st)
        return st;
    sess_line_begin(s, "gradient");
    sess_key(s, "event_id");
    STINT_I_JB_LIT(&s->line, "\"gradient-");
    stint_i_jb_u64(&s->line, s->next_grad + 1);
    stint_i_jb_char(&s->line, '"');
    sess_kv_str(s, "root", root);
    sess_kv_str(s, "key", k);
    sess_kv_str(s, "state", states[state]);
    if (norm) {
        sess_key(s, "norm");
        stint_i_jb_f64(&s->line, *norm);
    }
    st = stint_i_sess_commit(s);
    if (st == STINT_OK)
        s->next_grad++;
    return stint_i_sess_leave(s, st);
}

stint_status stint_session_counter(stint_session *s, const char *name, double value, const char *unit)
{
    if (!name || !isfinite(value))
        return STINT_E_INVAL;
    stint_status st = open_timed_record(s, "counter", 0);
    if (st)
        return st;
    sess_kv_str(s, "name", name);
    sess_key(s, "value");
    stint_i_jb_f64(&s->line, value);
    sess_kv_str(s, "unit", unit ? unit : "");
    sess_kv_i64(s, "tid", stint_i_sess_tid());
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_session_fork(stint_session *s, int32_t parent_pid, int32_t child_pid)
{
    stint_status st = open_timed_record(s, "fork", 0);
    if (st)
        return st;
    sess_kv_i64(s, "parent_pid", parent_pid);
    sess_kv_i64(s, "child_pid", child_pid);
    return stint_i_sess_leave(s, stint_i_sess_commit(s));
}

stint_status stint_i_sess_write_dropped(stint_session *s, int32_t tid, uint64_t count, int64_t first_ns,
                                        int64_t last_ns)
{
    sess_line_begin(s, "dropped");
    sess_kv_i64(s, "timestamp_ns", stint_i_sess_since_open(s));
    sess_kv_i64(s, "tid", tid);
    sess_kv_u64(s, "count", count);
    sess_kv_i64(s, "first_ns", first_ns ? first_ns - s->t0_ns : 0);
    sess_kv_i64(s, "last_ns", last_ns ? last_ns - s->t0_ns : 0);
    return stint_i_sess_commit(s);
}

stint_status stint_session_dropped(stint_session *s, int32_t tid, uint64_t count, int64_t first_ns, int64_t last_ns)
{
    stint_status st = stint_i_sess_enter(s);
    if (st)
        return st;
    return stint_i_sess_leave(s, stint_i_sess_write_dropped(s, tid, count, first_ns, last_ns));
}
