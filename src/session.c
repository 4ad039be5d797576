/* SPDX-License-Identifier: MIT */
/*
 * session.c - the JSONL profiler session `stint/session/1`
 * (docs/formats/session-jsonl.md): its lifecycle (open, the meta line and
 * the root span, span begin/end, drop reports, flush, finish, free) and its
 * output. The observation records (op, tensor, memory, gradient, ...) are
 * built in session_records.c through session_int.h.
 *
 * An explicit, self-contained API: it needs neither the span hot path nor
 * the background writer. Invariants:
 * - Every write(2) carries whole lines: each record is built in `line`,
 *   then appended to `out` (256 KiB) or, if bigger, written alone; `out` is
 *   written when the next line does not fit, on flush and at finish. So a
 *   process killed at any moment leaves whole lines, but for the last one
 *   when the kill lands inside a write (the kernel stops a large write
 *   between pages); readers report that one as torn.
 * - A record is either written whole or not at all: argument and state
 *   errors are found before any byte is built.
 * - The first failed write is sticky: nothing is written afterwards and
 *   every writing call returns STINT_E_IO.
 * - One mutex guards everything, so any thread may call in; span stacks are
 *   per thread (kernel tid), and the root span s1 belongs to no stack.
 * - While open, the session is also a sink of the library (drop reports
 *   only): spans lost in thread buffers become `dropped` lines. Lock order:
 *   drain lock, then the session lock; no session call takes the drain lock
 *   while holding its own.
 * - A forked child never writes to its parent's session (its buffer is the
 *   parent's): every call there returns STINT_E_STATE.
 */
#include "session_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SESSION_OUT_CAP (256u * 1024u)



/* The kernel tid, cached per thread (a syscall costs ~1 us here); a fork
 * bumps the generation so the child's thread reads its new tid. */
static _Atomic unsigned g_fork_gen = 1;
static void bump_fork_gen(void) { atomic_fetch_add(&g_fork_gen, 1); }
static pthread_once_t g_tid_once = PTHREAD_ONCE_INIT;
static void tid_once(void) { pthread_atfork(NULL, NULL, bump_fork_gen); }
static _Thread_local int32_t t_tid;
static _Thread_local unsigned t_tid_gen;

int32_t stint_i_sess_tid(void)
{
    unsigned gen = atomic_load_explicit(&g_fork_gen, memory_order_relaxed);
    if (STINT_I_UNLIKELY(t_tid_gen != gen)) {
        pthread_once(&g_tid_once, tid_once);
        t_tid = (int32_t)syscall(SYS_gettid);
        t_tid_gen = atomic_load(&g_fork_gen);
    }
    return t_tid;
}

static void set_msg(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t cap, const char *fmt, ...)
{
    if (!msg || !cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s, size_t *size)
{
    size_t n = strlen(s) + 1;
    char *p = stint_i_alloc(n);
    if (p)
        memcpy(p, s, n);
    *size = n;
    return p;
}

/* Nonzero in a process forked after open: the file and buffer are the parent's. */
static int forked(const stint_session *s) { return atomic_load_explicit(&g_fork_gen, memory_order_relaxed) != s->fork_gen; }

/* ---- output -------------------------------------------------------------------- */

/* Records the first write failure (sticky) with path, offset and cause. */
static stint_status fail_io(stint_session *s, int err)
{
    if (s->sticky == STINT_OK) {
        s->sticky = STINT_E_IO;
        set_msg(s->msg, sizeof s->msg, "%s: write failed at byte offset %llu: %s", s->path,
                (unsigned long long)s->offset, strerror(err));
    }
    s->ended = 1;
    return STINT_E_IO;
}

static stint_status write_out(stint_session *s, const char *p, size_t n)
{
    int err = stint_i_write_all(s->fd, p, n);
    if (err)
        return fail_io(s, err);
    s->offset += n;
    return STINT_OK;
}

static stint_status flush_locked(stint_session *s)
{
    if (s->sticky)
        return s->sticky;
    if (forked(s)) {
        s->out.len = 0;
        return STINT_E_STATE;
    }
    if (s->out.len) {
        stint_status st = write_out(s, s->out.p, s->out.len);
        s->out.len = 0;
        return st;
    }
    return STINT_OK;
}

/* (see session_int.h for this file's functions shared with session_records.c) */

stint_status stint_i_sess_commit(stint_session *s)
{
    STINT_I_JB_LIT(&s->line, "}\n");
    s->stats.invalid_utf8 += s->line.bad_utf8;
    s->line.bad_utf8 = 0;
    if (!stint_i_jb_ok(&s->line)) {
        set_msg(s->msg, sizeof s->msg, "%s: out of memory building a record", s->path);
        return STINT_E_NOMEM;
    }
    if (s->out.len + s->line.len > s->out.cap) {
        stint_status st = flush_locked(s);
        if (st)
            return st;
    }
    stint_status st = STINT_OK;
    if (s->line.len > s->out.cap)
        st = write_out(s, s->line.p, s->line.len);
    else
        stint_i_jb_raw(&s->out, s->line.p, s->line.len);
    if (st == STINT_OK) {
        s->stats.lines++;
        s->stats.bytes += s->line.len;
    }
    return st;
}

stint_status stint_i_sess_enter(stint_session *s)
{
    if (!s)
        return STINT_E_INVAL;
    /* a forked child touches nothing of the parent's session, its lock
     * least of all: a thread of the parent may have held it at the fork,
     * and no thread of the child would ever let it go */
    if (STINT_I_UNLIKELY(forked(s)))
        return STINT_E_STATE;
    pthread_mutex_lock(&s->lock);
    if (s->sticky) {
        pthread_mutex_unlock(&s->lock);
        return s->sticky;
    }
    if (s->ended) {
        set_msg(s->msg, sizeof s->msg, "%s: the session is finished", s->path);
        pthread_mutex_unlock(&s->lock);
        return STINT_E_STATE;
    }
    return STINT_OK;
}

stint_status stint_i_sess_leave(stint_session *s, stint_status st)
{
    if (st == STINT_OK)
        s->msg[0] = '\0';
    pthread_mutex_unlock(&s->lock);
    return st;
}

int64_t stint_i_sess_since_open(const stint_session *s) { return stint_i_mono_ns() - s->t0_ns; }

/* ---- open ---------------------------------------------------------------------- */

static const char *phase_name(stint_phase p) { return p == STINT_PHASE_INFER ? "infer" : "train"; }

static void utc_ms(char *out, size_t cap, int64_t real)
{
    time_t secs = (time_t)(real / 1000000000);
    int ms = (int)((real % 1000000000) / 1000000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/* Orders tag indexes by key, then by position (so the last of equal keys
 * comes last); the tags come through qsort_r's context. */
static int cmp_tag_index(const void *a, const void *b, void *ctx)
{
    const stint_tag *tags = ctx;
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    int c = strcmp(tags[ia].key, tags[ib].key);
    if (c)
        return c;
    return ia < ib ? -1 : ia > ib;
}

/* Writes `"tags":{...}` sorted by key; for a repeated key the last value. */
static stint_status write_tags(stint_session *s, const stint_tag *tags, size_t n)
{
    sess_key(s, "tags");
    stint_i_jb_char(&s->line, '{');
    if (n) {
        size_t *idx = stint_i_alloc(n * sizeof *idx);
        if (!idx)
            return STINT_E_NOMEM;
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        qsort_r(idx, n, sizeof *idx, cmp_tag_index, (void *)tags);
        int first = 1;
        for (size_t i = 0; i < n; i++) {
            if (i + 1 < n && strcmp(tags[idx[i]].key, tags[idx[i + 1]].key) == 0)
                continue; /* a later duplicate wins */
            if (!first)
                stint_i_jb_char(&s->line, ',');
            first = 0;
            stint_i_jb_cstr(&s->line, tags[idx[i]].key);
            stint_i_jb_char(&s->line, ':');
            stint_i_jb_cstr(&s->line, tags[idx[i]].value);
        }
        stint_i_free(idx, n * sizeof *idx);
    }
    stint_i_jb_char(&s->line, '}');
    return STINT_OK;
}

static stint_status write_span_start(stint_session *s, uint64_t id, uint64_t parent, const char *name,
                                     int64_t start_ns, stint_span_kind kind, int measured, stint_step step,
                                     int32_t tid)
{
    static const char *const kinds[] = {"function", "op", "module"};
    static const char *const steps[] = {NULL, "forward", "backward", "optimizer"};
    sess_line_begin(s, "span_start");
    sess_kv_span(s, "id", id);
    if (parent)
        sess_kv_span(s, "parent_id", parent);
    sess_kv_str(s, "name", name);
    sess_kv_i64(s, "start_ns", start_ns);
    sess_kv_str(s, "span_kind", kinds[kind]);
    sess_kv_bool(s, "measured", measured);
    if (step != STINT_STEP_NONE)
        sess_kv_str(s, "step", steps[step]);
    sess_kv_i64(s, "tid", tid);
    return stint_i_sess_commit(s);
}

static void on_drop(stint_i_sink *k, const stint_i_drop *d);
static void on_sink_close(stint_i_sink *k);

static void session_destroy(stint_session *s)
{
    for (size_t i = 0; i < s->nstacks; i++) {
        stint_i_free(s->stacks[i].ids, s->stacks[i].cap * sizeof(uint64_t));
        stint_i_free(s->stacks[i].starts, s->stacks[i].cap * sizeof(int64_t));
    }
    stint_i_free(s->stacks, s->stacks_cap * sizeof *s->stacks);
    stint_i_jb_free(&s->out);
    stint_i_jb_free(&s->line);
    stint_i_free(s->path, s->path_size);
    stint_i_free(s->device, s->device_size);
    if (!forked(s)) /* (in a forked child the lock may be held by a thread it does not have) */
        pthread_mutex_destroy(&s->lock);
    stint_i_free(s, sizeof *s);
}

stint_status stint_session_open(const char *path, const stint_session_options *opt, stint_session **out, char *err,
                                size_t cap)
{
    if (out)
        *out = NULL;
    if (err && cap)
        err[0] = '\0';
    if (!path || !opt || !out) {
        set_msg(err, cap, "stint_session_open: NULL path, options or out");
        return STINT_E_INVAL;
    }
    if (!opt->entrypoint || !*opt->entrypoint) {
        set_msg(err, cap, "%s: the session needs an entrypoint name", path);
        return STINT_E_INVAL;
    }
    if (opt->capture_step == 0) {
        set_msg(err, cap, "%s: capture_step must be one-based and greater than zero", path);
        return STINT_E_INVAL;
    }
    if ((unsigned)opt->phase > STINT_PHASE_INFER || (unsigned)opt->timing_mode > STINT_TIMING_DEVICE_SYNCHRONIZED ||
        (opt->ntags && !opt->tags) || opt->warmup_steps < STINT_WARMUP_DEFAULT) {
        set_msg(err, cap, "%s: phase, timing_mode, warmup_steps or tags out of range", path);
        return STINT_E_INVAL;
    }
    for (size_t i = 0; i < opt->ntags; i++) {
        if (!opt->tags[i].key || !opt->tags[i].value) {
            set_msg(err, cap, "%s: tag %zu has a NULL key or value", path, i);
            return STINT_E_INVAL;
        }
    }

    stint_session *s = stint_i_calloc(sizeof *s);
    if (!s) {
        set_msg(err, cap, "%s: out of memory", path);
        return STINT_E_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->fd = -1;
    s->path = dup_str(path, &s->path_size);
    s->device = dup_str(opt->device ? opt->device : "cpu", &s->device_size);
    stint_i_jb_init(&s->out, SESSION_OUT_CAP);
    stint_i_jb_init(&s->line, 4096);
    if (!s->path || !s->device || !stint_i_jb_ok(&s->out) || !stint_i_jb_ok(&s->line)) {
        set_msg(err, cap, "%s: out of memory", path);
        session_destroy(s);
        return STINT_E_NOMEM;
    }
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        set_msg(err, cap, "%s: cannot create the session file: %s", path, strerror(errno));
        session_destroy(s);
        return STINT_E_IO;
    }

    s->t0_ns = stint_i_mono_ns();
    int64_t real = stint_i_real_ns();
    (void)stint_i_sess_tid(); /* registers the fork hook before fork_gen is read */
    s->fork_gen = atomic_load(&g_fork_gen);
    int32_t pid = (int32_t)getpid();
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    char stamp[64];
    utc_ms(stamp, sizeof stamp, real);
    /* the default correlation id, "<entrypoint>/update-<capture_step>", however long the entrypoint */
    size_t corr_size = opt->correlation_id ? 0 : strlen(opt->entrypoint) + 32;
    char *corr = corr_size ? stint_i_alloc(corr_size) : NULL, run_id[64];
    if (corr_size && !corr) {
        set_msg(err, cap, "%s: out of memory", path);
        close(s->fd);
        session_destroy(s);
        return STINT_E_NOMEM;
    }
    if (corr)
        snprintf(corr, corr_size, "%s/update-%llu", opt->entrypoint, (unsigned long long)opt->capture_step);
    if (!opt->run_id)
        snprintf(run_id, sizeof run_id, "run-%d-%lld", (int)pid, (long long)real);
    int64_t warmup =
        opt->warmup_steps == STINT_WARMUP_DEFAULT ? (int64_t)(opt->capture_step - 1) : opt->warmup_steps;

    sess_line_begin(s, "meta");
    sess_kv_str(s, "schema", "stint/session/1");
    sess_kv_str(s, "run_id", opt->run_id ? opt->run_id : run_id);
    sess_kv_str(s, "correlation_id", opt->correlation_id ? opt->correlation_id : corr);
    stint_i_free(corr, corr_size);
    sess_kv_str(s, "entrypoint", opt->entrypoint);
    sess_kv_str(s, "phase", phase_name(opt->phase));
    sess_kv_str(s, "timestamp", stamp);
    sess_kv_u64(s, "capture_step", opt->capture_step);
    sess_kv_i64(s, "warmup_steps", warmup);
    sess_kv_str(s, "device", s->device);
    sess_kv_str(s, "timing_mode", opt->timing_mode == STINT_TIMING_HOST ? "host" : "device_synchronized");
    sess_kv_bool(s, "measured_region_device_synchronized",
            opt->timing_mode == STINT_TIMING_DEVICE_SYNCHRONIZED || (opt->flags & STINT_SESSION_MEASURED_REGION_SYNC));
    stint_status st = write_tags(s, opt->tags, opt->ntags);
    sess_kv_i64(s, "pid", pid);
    sess_kv_str(s, "hostname", host);
    sess_kv_str(s, "stint_version", stint_version());
    sess_kv_i64(s, "clock_monotonic_ns", s->t0_ns);
    sess_kv_i64(s, "clock_realtime_ns", real);
    if (st == STINT_OK)
        st = stint_i_sess_commit(s);
    s->next_id = 1;
    if (st == STINT_OK)
        st = write_span_start(s, 1, 0, opt->entrypoint, 0, STINT_SPAN_FUNCTION, 0, STINT_STEP_NONE, stint_i_sess_tid());
    if (st != STINT_OK) {
        set_msg(err, cap, "%s", s->msg[0] ? s->msg : stint_strerror(st));
        close(s->fd);
        session_destroy(s);
        return st;
    }
    s->drops.dropped = on_drop;
    s->drops.close = on_sink_close;
    atomic_store(&s->drops_linked, 1);
    stint_i_sink_add(&s->drops);
    *out = s;
    return STINT_OK;
}

/* ---- spans ---------------------------------------------------------------------- */

static stint_i_sess_stack *find_stack(stint_session *s, int32_t tid, int create)
{
    for (size_t i = 0; i < s->nstacks; i++)
        if (s->stacks[i].tid == tid)
            return &s->stacks[i];
    if (!create)
        return NULL;
    if (s->nstacks == s->stacks_cap) {
        size_t ncap = s->stacks_cap ? s->stacks_cap * 2 : 4;
        stint_i_sess_stack *n = stint_i_calloc(ncap * sizeof *n);
        if (!n)
            return NULL;
        if (s->nstacks)
            memcpy(n, s->stacks, s->nstacks * sizeof *n);
        stint_i_free(s->stacks, s->stacks_cap * sizeof *s->stacks);
        s->stacks = n;
        s->stacks_cap = ncap;
    }
    stint_i_sess_stack *st = &s->stacks[s->nstacks++];
    memset(st, 0, sizeof *st);
    st->tid = tid;
    return st;
}

/* Makes room for one more entry; 0 when out of memory. */
static int stack_reserve(stint_i_sess_stack *st)
{
    if (st->n == st->cap) {
        size_t ncap = st->cap ? st->cap * 2 : 16;
        uint64_t *ids = stint_i_alloc(ncap * sizeof *ids);
        int64_t *starts = stint_i_alloc(ncap * sizeof *starts);
        if (!ids || !starts) {
            stint_i_free(ids, ncap * sizeof *ids);
            stint_i_free(starts, ncap * sizeof *starts);
            return 0;
        }
        if (st->n) {
            memcpy(ids, st->ids, st->n * sizeof *ids);
            memcpy(starts, st->starts, st->n * sizeof *starts);
        }
        stint_i_free(st->ids, st->cap * sizeof *ids);
        stint_i_free(st->starts, st->cap * sizeof *starts);
        st->ids = ids;
        st->starts = starts;
        st->cap = ncap;
    }
    return 1;
}

/* Pushes onto a stack that has room (stack_reserve succeeded). */
static void stack_push(stint_i_sess_stack *st, uint64_t id, int64_t start)
{
    st->ids[st->n] = id;
    st->starts[st->n] = start;
    st->n++;
}

static stint_status span_begin(stint_session *s, const char *name, stint_span_kind kind, stint_step step,
                               int measured, uint64_t *id)
{
    if (id)
        *id = 0;
    if (!name || !id || (unsigned)kind > STINT_SPAN_MODULE || (unsigned)step > STINT_STEP_OPTIMIZER)
        return STINT_E_INVAL;
    stint_status st = stint_i_sess_enter(s);
    if (st)
        return st;
    if (measured && s->measured_used) {
        set_msg(s->msg, sizeof s->msg, "%s: the session already has its one measured region", s->path);
        return stint_i_sess_leave(s, STINT_E_STATE);
    }
    int32_t tid = stint_i_sess_tid();
    int64_t start = stint_i_sess_since_open(s);
    stint_i_sess_stack *stack = find_stack(s, tid, 1);
    if (!stack || !stack_reserve(stack)) {
        set_msg(s->msg, sizeof s->msg, "%s: out of memory", s->path);
        return stint_i_sess_leave(s, STINT_E_NOMEM);
    }
    uint64_t parent = stack->n ? stack->ids[stack->n - 1] : 1;
    uint64_t nid = s->next_id + 1;
    st = write_span_start(s, nid, parent, name, start, kind, measured, step, tid);
    if (st)
        return stint_i_sess_leave(s, st);
    s->next_id = nid;
    stack_push(stack, nid, start);
    if (measured)
        s->measured_used = 1;
    *id = nid;
    return stint_i_sess_leave(s, STINT_OK);
}

stint_status stint_session_span_begin(stint_session *s, const char *name, stint_span_kind kind, stint_step step,
                                      uint64_t *id)
{
    return span_begin(s, name, kind, step, 0, id);
}

stint_status stint_session_measure_begin(stint_session *s, const char *name, uint64_t *id)
{
    return span_begin(s, name, STINT_SPAN_FUNCTION, STINT_STEP_NONE, 1, id);
}

stint_status stint_session_span_end(stint_session *s, uint64_t id)
{
    stint_status st = stint_i_sess_enter(s);
    if (st)
        return st;
    int64_t now = stint_i_sess_since_open(s);
    int32_t tid = stint_i_sess_tid();
    if (id == 1) {
        set_msg(s->msg, sizeof s->msg, "%s: the root span `s1` is ended by stint_session_finish", s->path);
        return stint_i_sess_leave(s, STINT_E_STATE);
    }
    stint_i_sess_stack *stack = find_stack(s, tid, 0);
    if (!stack || stack->n == 0) {
        set_msg(s->msg, sizeof s->msg, "span_end id `s%llu` does not match: thread %d has no open span", (unsigned long long)id,
                (int)tid);
        return stint_i_sess_leave(s, STINT_E_SPAN_MISMATCH);
    }
    uint64_t top = stack->ids[stack->n - 1];
    if (top != id) {
        set_msg(s->msg, sizeof s->msg, "span_end id `s%llu` does not match the innermost open span `s%llu` of thread %d",
                (unsigned long long)id, (unsigned long long)top, (int)tid);
        return stint_i_sess_leave(s, STINT_E_SPAN_MISMATCH);
    }
    sess_line_begin(s, "span_end");
    sess_kv_span(s, "id", id);
    sess_kv_i64(s, "duration_ns", now - stack->starts[stack->n - 1]);
    st = stint_i_sess_commit(s);
    if (st == STINT_OK)
        stack->n--;
    return stint_i_sess_leave(s, st);
}

/* Sink callbacks (drain lock held). */
static stint_session *of_sink(stint_i_sink *k)
{
    return (stint_session *)(void *)((char *)k - offsetof(stint_session, drops));
}

static void on_drop(stint_i_sink *k, const stint_i_drop *d)
{
    stint_session *s = of_sink(k);
    if (stint_i_sess_enter(s) == STINT_OK)
        (void)stint_i_sess_leave(s, stint_i_sess_write_dropped(s, d->tid, d->count, d->first_ts_ns, d->last_ts_ns));
}

/* Removed, or the library shuts down (at exit): push the buffered whole
 * lines out, so a program that exits without finishing keeps its records. */
static void on_sink_close(stint_i_sink *k)
{
    stint_session *s = of_sink(k);
    atomic_store(&s->drops_linked, 0);
    if (forked(s))
        return; /* (the parent writes its lines; see enter) */
    /* at exit a thread may hold the lock in a write that never ends (a
     * pipe nobody reads): the exit waits a bounded time, then leaves the
     * buffered lines (the file stays a valid prefix) */
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    if (pthread_mutex_timedlock(&s->lock, &dl) != 0)
        return;
    if (s->fd >= 0 && !s->ended)
        (void)flush_locked(s);
    pthread_mutex_unlock(&s->lock);
}

/* Unlinks the drop-report sink (delivering pending reports first). */
static void detach(stint_session *s)
{
    if (atomic_load(&s->drops_linked) && !forked(s))
        stint_i_sink_remove(&s->drops);
    atomic_store(&s->drops_linked, 0);
}

/* ---- flush, finish, free ---------------------------------------------------------- */

stint_status stint_session_flush(stint_session *s)
{
    if (!s)
        return STINT_E_INVAL;
    if (forked(s))
        return STINT_E_STATE;
    pthread_mutex_lock(&s->lock);
    stint_status st = flush_locked(s);
    pthread_mutex_unlock(&s->lock);
    return st;
}

stint_status stint_session_finish(stint_session *s)
{
    if (!s)
        return STINT_E_INVAL;
    detach(s); /* pending drop reports are written before the root ends */
    stint_status st = stint_i_sess_enter(s);
    if (st)
        return st;
    /* spans left open by a thread that has exited can never be ended (a
     * span is ended on its own thread): end them here, innermost first,
     * marked "autoclosed" (the span API closes a thread's spans at its exit);
     * the session could not be finished at all */
    int64_t now = stint_i_sess_since_open(s);
    pid_t pid = getpid();
    for (size_t i = 0; i < s->nstacks && st == STINT_OK; i++) {
        stint_i_sess_stack *stack = &s->stacks[i];
        if (!stack->n || syscall(SYS_tgkill, pid, stack->tid, 0) == 0 || errno != ESRCH)
            continue;
        while (stack->n && st == STINT_OK) {
            sess_line_begin(s, "span_end");
            sess_kv_span(s, "id", stack->ids[stack->n - 1]);
            sess_kv_i64(s, "duration_ns", now - stack->starts[stack->n - 1]);
            sess_kv_bool(s, "autoclosed", 1);
            st = stint_i_sess_commit(s);
            if (st == STINT_OK)
                stack->n--;
        }
    }
    if (st)
        return stint_i_sess_leave(s, st);
    size_t open_spans = 0;
    for (size_t i = 0; i < s->nstacks; i++)
        open_spans += s->stacks[i].n;
    if (open_spans) {
        set_msg(s->msg, sizeof s->msg, "%s: cannot finish session with %zu span%s still open", s->path, open_spans,
                open_spans == 1 ? "" : "s");
        st = stint_i_sess_leave(s, STINT_E_SPANS_OPEN);
        if (!forked(s)) { /* still open: keep reporting drops (drain lock after ours is released) */
            atomic_store(&s->drops_linked, 1);
            stint_i_sink_add(&s->drops);
        }
        return st;
    }
    sess_line_begin(s, "span_end");
    sess_kv_span(s, "id", 1);
    sess_kv_i64(s, "duration_ns", stint_i_sess_since_open(s));
    st = stint_i_sess_commit(s);
    if (st == STINT_OK)
        st = flush_locked(s);
    s->ended = 1;
    if (close(s->fd) != 0 && st == STINT_OK)
        st = fail_io(s, errno);
    s->fd = -1;
    return stint_i_sess_leave(s, st);
}

const char *stint_session_message(const stint_session *s)
{
    if (s && forked(s))
        return "this process was forked after the session was opened; open a session of its own";
    return s ? s->msg : "";
}

void stint_session_get_stats(const stint_session *s, stint_session_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (s && forked(s))
        *out = s->stats; /* (nothing in the child changes them; the lock is the parent's) */
    else if (s) {
        pthread_mutex_lock((pthread_mutex_t *)&s->lock);
        *out = s->stats;
        pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
    }
}

void stint_session_free(stint_session *s)
{
    if (!s)
        return;
    detach(s);
    if (s->fd >= 0) {
        if (!s->sticky && !forked(s))
            (void)flush_locked(s); /* whole lines only: the file stays a valid prefix */
        close(s->fd);
    }
    session_destroy(s);
}
