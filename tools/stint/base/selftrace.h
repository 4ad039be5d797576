/* SPDX-License-Identifier: MIT */
/*
 * selftrace.h - stint tracing its own run with libstint (STINT_SELF_TRACE).
 *
 * With STINT_SELF_TRACE=PATH set, the CLI records its phases (reading,
 * inflating, each block it waits for, the finish walks, the summary's tail)
 * as libstint spans on the threads that run them, into libstint's flight
 * recorder, and writes them as Chrome JSON to PATH when the command ends:
 * `stint summary PATH` then says where stint's own time went, per thread.
 * Without it the spans cost a load and a predicted branch each, and
 * libstint is never initialized (no writer thread, no atexit handler), so
 * programs and tests that link the CLI's modules without the CLI's main are
 * not traced either.
 */
#ifndef STINT_CLI_SELFTRACE_H
#define STINT_CLI_SELFTRACE_H

#include <stint/stint.h>

/* Whether this run is traced: set once by stint_i_selftrace_start(), before
 * any other thread exists; read only after. */
extern int stint_i_self_on;

/* Starts the self trace when STINT_SELF_TRACE names a file (a warning on
 * stderr when the recorder cannot start); names the calling thread. */
void stint_i_selftrace_start(const char *command);

/* Ends the command's span, stops the recorder and writes PATH; says on
 * stderr how many spans were written (and dropped). A no-op when not
 * tracing. Returns 0, or 3 when PATH could not be written. */
int stint_i_selftrace_finish(void);

/* Names the calling thread (as Chrome JSON's thread_name) when tracing. */
void stint_i_self_thread(const char *name);

/* Adds an integer attribute to the calling thread's innermost span when tracing. */
static inline void stint_i_self_attr(const char *key, int64_t v)
{
    if (__builtin_expect(stint_i_self_on, 0))
        stint_attr_i64(key, v);
}

/* Adds the process's resident memory now (KiB, "rss_kib") to the calling
 * thread's innermost span when tracing. */
void stint_i_self_rss(void);

/* The calling thread's CPU time in ns when tracing (else 0). */
int64_t stint_i_self_cpu_ns(void);

static inline stint_span stint_i_self_begin(const stint_loc *loc)
{
    stint_span s = {0};
    if (__builtin_expect(stint_i_self_on, 0))
        s = stint_span_begin(loc);
    return s;
}

static inline void stint_i_self_end(stint_span *s)
{
    if (s->token)
        stint_span_end(*s);
}

/* A span that also records the CPU time its thread spent in it ("cpu_us"),
 * added when it ends (its inner spans are closed by then, so the attribute
 * lands on it). */
struct stint_i_self_cspan {
    stint_span span;
    int64_t cpu0;
};

static inline struct stint_i_self_cspan stint_i_self_cbegin(const stint_loc *loc)
{
    struct stint_i_self_cspan c;
    c.span = stint_i_self_begin(loc);
    c.cpu0 = c.span.token ? stint_i_self_cpu_ns() : 0;
    return c;
}

/* Ends c (once: a second call does nothing), with its cpu_us. */
void stint_i_self_cend(struct stint_i_self_cspan *c);

#define STINT_I_SELF_CAT2(a, b) a##b
#define STINT_I_SELF_CAT(a, b) STINT_I_SELF_CAT2(a, b)
#define STINT_I_SELF_LOC(id, name)                                                                  \
    static const stint_loc STINT_I_SELF_CAT(self_loc_, id) = {name, NULL, __FILE__, __func__, __LINE__}

/* A span from here to the end of the enclosing block (name: a literal). */
#define SELF_SCOPE(name) SELF_SCOPE_I(__COUNTER__, name)
#define SELF_SCOPE_I(id, name)                                                                      \
    STINT_I_SELF_LOC(id, name);                                                                     \
    __attribute__((cleanup(stint_i_self_end), unused)) stint_span STINT_I_SELF_CAT(self_span_, id) = \
        stint_i_self_begin(&STINT_I_SELF_CAT(self_loc_, id))

/* A span between SELF_BEGIN(var, "name") and SELF_END(var) in one function. */
#define SELF_BEGIN(var, name)                                                                      \
    STINT_I_SELF_LOC(var, name);                                                                   \
    stint_span var = stint_i_self_begin(&STINT_I_SELF_CAT(self_loc_, var))
#define SELF_END(var) stint_i_self_end(&(var))

/* The same with the thread's CPU time on the span (struct stint_i_self_cspan). */
#define SELF_SCOPE_CPU(name) SELF_SCOPE_CPU_I(__COUNTER__, name)
#define SELF_SCOPE_CPU_I(id, name)                                                                  \
    STINT_I_SELF_LOC(id, name);                                                                     \
    __attribute__((cleanup(stint_i_self_cend), unused)) struct stint_i_self_cspan                   \
        STINT_I_SELF_CAT(self_span_, id) = stint_i_self_cbegin(&STINT_I_SELF_CAT(self_loc_, id))
#define SELF_BEGIN_CPU(var, name)                                                                  \
    STINT_I_SELF_LOC(var, name);                                                                   \
    struct stint_i_self_cspan var = stint_i_self_cbegin(&STINT_I_SELF_CAT(self_loc_, var))
#define SELF_END_CPU(var) stint_i_self_cend(&(var))

#endif
