/* SPDX-License-Identifier: MIT */
/*
 * session_int.h - what the JSONL session's two files share: the session
 * object, its entry and commit steps, and the inline helpers that build one
 * record in `line` (session.c: open, spans, flush, finish; session_records.c:
 * the observation records).
 *
 * Every record goes through the same steps: stint_i_sess_enter (checks, takes
 * the lock), sess_line_begin, the sess_kv_* fields, stint_i_sess_commit (the
 * line whole or nothing), stint_i_sess_leave (drops the lock). Argument
 * errors are found before enter, so a record is never half built.
 */
#ifndef STINT_SESSION_INT_H
#define STINT_SESSION_INT_H

#include "stint/session.h"

#include "internal.h"
#include "jsonbuf.h"

#include <pthread.h>

typedef struct stint_i_sess_stack {
    int32_t tid;
    size_t n, cap;
    uint64_t *ids;
    int64_t *starts; /* ns since open */
} stint_i_sess_stack;

struct stint_session {
    pthread_mutex_t lock;
    int fd;
    char *path;
    size_t path_size;
    char *device;
    size_t device_size;
    stint_i_jbuf out;
    stint_i_jbuf line;
    int64_t t0_ns; /* CLOCK_MONOTONIC at open */
    uint64_t next_id;
    uint64_t next_grad;
    uint64_t offset; /* bytes already handed to write() successfully */
    int measured_used;
    int ended; /* finished or failed for good: no more writes */
    stint_status sticky;
    stint_i_sess_stack *stacks;
    size_t nstacks, stacks_cap;
    stint_session_stats stats;
    unsigned fork_gen; /* g_fork_gen at open: another value means a forked child */
    stint_i_sink drops; /* reports spans lost in thread buffers as `dropped` lines */
    _Atomic int drops_linked;
    char msg[512];
};

/* Common entry checks for every writing call: STINT_OK with the lock taken,
 * or the status to return (no lock held): NULL session, forked child,
 * sticky error, finished session. */
stint_status stint_i_sess_enter(stint_session *s);

/* Drops the lock taken by stint_i_sess_enter and returns st (clearing the
 * message on success). */
stint_status stint_i_sess_leave(stint_session *s, stint_status st);

/* Ends the record in `line` and queues it whole (lock held): STINT_OK, or
 * STINT_E_NOMEM / STINT_E_IO with the message set. */
stint_status stint_i_sess_commit(stint_session *s);

/* Nanoseconds since the session was opened (CLOCK_MONOTONIC). */
int64_t stint_i_sess_since_open(const stint_session *s);

/* The calling thread's kernel tid (cached; re-read after a fork). */
int32_t stint_i_sess_tid(void);

/* Writes a `dropped` line (lock held); first_ns and last_ns are
 * CLOCK_MONOTONIC times, 0 for none. */
stint_status stint_i_sess_write_dropped(stint_session *s, int32_t tid, uint64_t count, int64_t first_ns,
                                        int64_t last_ns);

/* Starts a record: `{"kind":"<kind>"`. */
static inline void sess_line_begin(stint_session *s, const char *kind)
{
    stint_i_jb_reset(&s->line);
    STINT_I_JB_LIT(&s->line, "{\"kind\":\"");
    stint_i_jb_lit(&s->line, kind);
    stint_i_jb_char(&s->line, '"');
}

static inline void sess_key(stint_session *s, const char *k)
{
    STINT_I_JB_LIT(&s->line, ",\"");
    stint_i_jb_lit(&s->line, k);
    STINT_I_JB_LIT(&s->line, "\":");
}

static inline void sess_kv_str(stint_session *s, const char *k, const char *v)
{
    sess_key(s, k);
    stint_i_jb_cstr(&s->line, v);
}

static inline void sess_kv_i64(stint_session *s, const char *k, int64_t v)
{
    sess_key(s, k);
    stint_i_jb_i64(&s->line, v);
}

static inline void sess_kv_u64(stint_session *s, const char *k, uint64_t v)
{
    sess_key(s, k);
    stint_i_jb_u64(&s->line, v);
}

static inline void sess_kv_bool(stint_session *s, const char *k, int v)
{
    sess_key(s, k);
    stint_i_jb_lit(&s->line, v ? "true" : "false");
}

static inline void sess_kv_span(stint_session *s, const char *k, uint64_t id)
{
    sess_key(s, k);
    STINT_I_JB_LIT(&s->line, "\"s");
    stint_i_jb_u64(&s->line, id);
    stint_i_jb_char(&s->line, '"');
}

static inline void sess_kv_shape(stint_session *s, const uint64_t *shape, size_t ndim)
{
    sess_key(s, "shape");
    stint_i_jb_char(&s->line, '[');
    for (size_t i = 0; i < ndim; i++) {
        if (i)
            stint_i_jb_char(&s->line, ',');
        stint_i_jb_u64(&s->line, shape[i]);
    }
    stint_i_jb_char(&s->line, ']');
}

#endif /* STINT_SESSION_INT_H */
