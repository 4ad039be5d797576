/* SPDX-License-Identifier: MIT */
/*
 * stint.h - the instrumentation API of libstint.
 *
 * This header is the manual. Everything an instrumented program needs is here:
 * scoped spans, attributes, invocation ids, callable hashes, device phases and
 * the marker sink configuration. Session sinks (JSONL session, flight-recorder
 * ring, Chrome JSON writer) live in <stint/session.h>.
 *
 * Threading: every function may be called from any thread unless its comment
 * says otherwise. Span functions act on the calling thread's span stack.
 *
 * Hot path: span begin/end and the attribute setters take no lock, allocate
 * nothing after the calling thread's first span and format no text. They never
 * report errors; what they cannot record they count (see stint_get_stats()).
 *
 * Signal handlers: these functions are async-signal-safe and may be called
 * from a signal handler: stint_span_begin, stint_span_begin_copy,
 * stint_span_end, the stint_attr_* setters, stint_invocation_begin,
 * stint_set_invocation, stint_current_invocation, stint_set_hid,
 * stint_device_span, stint_set_enabled, stint_is_enabled, stint_now_ns,
 * stint_cycles_to_ns, stint_fnv1a64, stint_strerror, stint_version, and the
 * STINT_SCOPE / STINT_BEGIN / STINT_END macros. A handler that interrupts
 * one of them (or the library's init, or a library lock held) on its own
 * thread finds the thread marked as inside the library: its span is not
 * recorded and is counted in spans_dropped, its attributes in
 * attrs_dropped, its stint_span_end and id setters do nothing; it never
 * waits and never corrupts the interrupted call. A handler that runs
 * between calls records its span like any other, nested in the span the
 * thread has open. Conditions: (1) the process's first span (which
 * initialises the library and starts the writer thread) is not made in a
 * handler; (2) a handler whose span may be the first on its thread (the
 * thread's buffer is allocated then) needs an async-signal-safe allocator
 * (stint_set_allocator; the default, malloc, is not), or the thread records
 * one span before the handler can run. Every other function (stint_flush,
 * stint_shutdown, stint_get_stats, the sink setters, <stint/session.h>)
 * takes locks and is not async-signal-safe.
 *
 * Compile-time switch: define STINT_ENABLED to 0 and every STINT_ macro
 * expands to nothing and evaluates none of its arguments; all types and
 * function declarations stay visible so code that calls them still compiles.
 * Runtime switch: environment STINT=0, or stint_set_enabled(0); a disabled
 * span costs one relaxed atomic load.
 *
 * Environment (read once, at the first call into the library):
 *   STINT=0|1                     runtime switch (default 1)
 *   STINT_MARKERS=stderr|off|<path>  marker sink destination (default stderr);
 *                                 a path is opened O_APPEND and shared safely
 *                                 by several processes; it is opened without
 *                                 blocking (a FIFO with no reader is an error,
 *                                 ENXIO), and a path that cannot be opened
 *                                 makes every span line lost, counted in
 *                                 sink_spans_lost, with the path and the
 *                                 errno text said at exit
 *                                 (default off when STINT_CAPTURE is set)
 *   STINT_CAPTURE=<path>          also write every span to a binary capture
 *                                 (docs/formats/capture.md, stint_capture_open
 *                                 in <stint/session.h>); opened at the first
 *                                 drain, an open failure is said on stderr
 *   STINT_MARKERS_PREFIX=1        prefix each line like the reference logger
 *   STINT_BUFFER_KB=<n>           size of each chunk of a thread's record
 *                                 buffer, KiB (default 1024); set alone, a
 *                                 fixed buffer of that size (no growth)
 *   STINT_BUFFER_MAX_MB=<n>       growth of the thread buffers past their
 *                                 first chunk, all threads together, MiB
 *                                 (default 1024; 0: none); past it spans are
 *                                 dropped and counted. Growth chunks come
 *                                 from mmap(2), not the allocator hook
 *   STINT_CLOCK=auto|mono|tsc     timestamp source (default auto: TSC only
 *                                 after it proved itself against
 *                                 CLOCK_MONOTONIC on every CPU)
 */
#ifndef STINT_STINT_H
#define STINT_STINT_H

#include <stddef.h>
#include <stdint.h>

#include "stint/version.h"

#ifndef STINT_ENABLED
#define STINT_ENABLED 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define STINT_API __attribute__((visibility("default")))
#else
#define STINT_API
#endif
/* A status to check: warned about where a (void) cast can say "ignored on
 * purpose": clang's warn_unused_result, C++17's [[nodiscard]] with GCC.
 * GCC's warn_unused_result ignores (void), so it is not used. */
#if defined(__clang__)
#define STINT_NODISCARD __attribute__((warn_unused_result))
#elif defined(__GNUC__) && defined(__cplusplus) && __cplusplus >= 201703L
#define STINT_NODISCARD [[nodiscard]]
#else
#define STINT_NODISCARD
#endif

/* ---- status codes --------------------------------------------------------
 * Append-only: values never change meaning once released. */
typedef enum stint_status {
    STINT_OK = 0,
    STINT_E_NOMEM = 1,         /* an allocation failed */
    STINT_E_INVAL = 2,         /* an argument is out of its documented range */
    STINT_E_IO = 3,            /* a write or open failed; errno is in the message */
    STINT_E_BUSY = 4,          /* the resource is already in use (a ring already runs) */
    STINT_E_STATE = 5,         /* the call does not fit the object's state (closed, not started) */
    STINT_E_SPAN_MISMATCH = 6, /* ending a span that is not the innermost open one */
    STINT_E_SPANS_OPEN = 7,    /* finishing while spans are still open */
    STINT_E_TRUNCATED = 8,     /* a value was cut to fit a bound (flagged, not silent) */
    STINT_E_UNSUPPORTED = 9,   /* not available on this platform or build */
    STINT_E_TIMEOUT = 10,      /* a bounded wait ran out */
    STINT_E_NOT_FOUND = 11     /* the thing looked up does not exist */
} stint_status;

/* Returns a static English description of status (never NULL). */
STINT_API const char *stint_strerror(stint_status status);

/* Returns the library version, "MAJOR.MINOR.PATCH" (static string): the
 * library loaded at run time, where STINT_VERSION (<stint/version.h>) is the
 * headers' at compile time. */
STINT_API const char *stint_version(void);

/* ---- spans ------------------------------------------------------------------ */

/* One per call site, static storage duration: events carry its address and
 * sinks read the strings from it, so name/attrs/file/func must outlive the
 * program's use of the library (string literals do). */
typedef struct stint_loc {
    const char *name;  /* dotted span name, e.g. "simpler_run.bind" */
    const char *attrs; /* static "k=v k=v" attribute text, or NULL */
    const char *file;
    const char *func;
    int line;
} stint_loc;

/* A span handle returned by begin and given back to end. Opaque; the value
 * 0 means "not recorded" (tracing disabled), and ending it is a no-op. A
 * span opened deeper than STINT_MAX_DEPTH is not recorded either (counted in
 * spans_too_deep of stint_get_stats()) but has a handle of its own: while it is
 * open, attributes have no recorded span to go to and are dropped (counted).
 * A handle names its own span only: ending it once that span has closed
 * (an outer span ended first) does nothing, whatever span has opened since
 * (past the depth limit this holds up to 127 levels beyond it; deeper, a
 * stale handle closes the span open at its level). */
typedef struct stint_span {
    uint32_t token;
} stint_span;

/* Opens a span named by loc on the calling thread. The start time is taken
 * here. Never fails; returns a handle to pass to stint_span_end(). */
STINT_API stint_span stint_span_begin(const stint_loc *loc);

/* Opens a span whose name is a dynamic string: up to STINT_NAME_COPY_MAX-1
 * bytes of name are copied now (the caller keeps ownership). A longer name,
 * or one with a NUL byte within its len bytes (cut there), is truncated and
 * the span carries the attribute `stint_truncated=1` (counted in
 * names_truncated). */
#define STINT_NAME_COPY_MAX 64
STINT_API stint_span stint_span_begin_copy(const char *name, size_t len);

/* Closes the span. Spans close innermost first; ending an outer span first
 * also closes the spans opened inside it (each counted as a repair in
 * spans_autoclosed of stint_get_stats()). The record is written to the thread's
 * buffer; the marker line appears when the writer drains it. */
STINT_API void stint_span_end(stint_span span);

/* Typed attributes on the calling thread's innermost open span. Keys are
 * borrowed static strings. String values are copied (up to
 * STINT_ATTR_STR_MAX-1 bytes; longer ones are cut and flagged). With no open
 * span, an innermost span past STINT_MAX_DEPTH, or beyond STINT_ATTR_MAX
 * attributes on one span, the call is counted in attrs_dropped of stint_get_stats().
 * Rendered as k=v in markers (every pair, in order); in Chrome JSON args a
 * key set again keeps its last value and the library's own keys (inv, hid,
 * depth, clk, stint_truncated) used as attribute keys become "attr.<key>". */
#define STINT_ATTR_MAX 16
#define STINT_ATTR_STR_MAX 64
STINT_API void stint_attr_i64(const char *key, int64_t value);
STINT_API void stint_attr_u64(const char *key, uint64_t value);
STINT_API void stint_attr_f64(const char *key, double value);
STINT_API void stint_attr_bool(const char *key, int value);
STINT_API void stint_attr_str(const char *key, const char *value);

/* ---- invocations and callables ----------------------------------------------- */

/* Allocates the next process-wide invocation id (1, 2, 3, ... from an atomic
 * counter) and makes it the calling thread's current invocation: spans that
 * end on this thread from now on print it as inv=. A thread that never called
 * this prints inv=0. Also sets the thread's current id for stint_set_invocation. */
STINT_API uint64_t stint_invocation_begin(void);

/* Sets the calling thread's current invocation id explicitly (for work that
 * continues one invocation on another thread). */
STINT_API void stint_set_invocation(uint64_t inv);

/* Returns the calling thread's current invocation id (0 if none). */
STINT_API uint64_t stint_current_invocation(void);

/* Sets the calling thread's current callable hash, printed as hid= by spans
 * that end on this thread from now on. */
STINT_API void stint_set_hid(uint64_t hid);

/* Callable hash of an in-memory object: if buf is an ELF64 file whose program
 * headers lie inside buf, the first PT_NOTE note of type NT_GNU_BUILD_ID (3)
 * named "GNU" with at least 8 descriptor bytes gives its first 8 bytes read
 * little-endian; every other case gives FNV-1a-64 of the whole buffer. */
STINT_API uint64_t stint_hid_of_elf(const void *buf, size_t len);

/* FNV-1a-64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3); NULL
 * hashes as no bytes. */
STINT_API uint64_t stint_fnv1a64(const void *buf, size_t len);

/* The Build-ID (first 8 bytes, little-endian) of the loaded object that
 * contains the code address fn, found through dl_iterate_phdr. Returns 0 when
 * fn is in no loaded object or that object has no GNU Build-ID note. */
STINT_API uint64_t stint_hid_of_address(const void *fn);

/* ---- device clock ---------------------------------------------------------------- */

/* One thread's stamps for one phase, in device cycles. UINT64_MAX = unset. */
typedef struct stint_cycle_rec {
    uint64_t start_cycle;
    uint64_t end_cycle;
} stint_cycle_rec;

#define STINT_CYCLE_UNSET UINT64_MAX

/* Emits device-clock phases as clk=dev spans on the calling thread.
 * recs is thread-major: recs[t * nphases + p] is thread t's record of phase p.
 * Each phase reduces to min(start)..max(end) over the threads whose record is
 * complete (both set and end > start); a phase with no complete record is
 * skipped (never printed as 0). The origin is the earliest reduced start over
 * all phases; ts is (start - origin) converted from cycles at freq_hz to ns
 * (floor, without floating point) and ts + dur is (end - origin) converted
 * the same way, so that phases and their nesting keep their order in ns
 * (dur may then differ by 1 ns from (end - start) converted alone). names[p]
 * names phase p.
 * Spans are emitted at the given depth with the caller's inv and hid.
 * Returns the number of spans emitted through *emitted (may be NULL).
 * Errors: STINT_E_INVAL for freq_hz 0, a negative depth, NULL recs/names with
 * nonzero counts. */
STINT_API STINT_NODISCARD stint_status stint_device_phases(const stint_cycle_rec *recs, size_t nthreads,
                                                           size_t nphases, uint64_t freq_hz,
                                                           const char *const *names, int depth,
                                                           size_t *emitted);

/* Emits one already-converted device-clock span (ts_ns is an offset on the
 * device clock, not CLOCK_MONOTONIC). name is borrowed and must be static.
 * A negative dur_ns is recorded as 0; an end past INT64_MAX as INT64_MAX; a
 * negative depth as 0. */
STINT_API void stint_device_span(const char *name, int64_t ts_ns, int64_t dur_ns, int depth);

/* Converts cycles at freq_hz to ns exactly (128-bit intermediate, floor). */
STINT_API int64_t stint_cycles_to_ns(uint64_t cycles, uint64_t freq_hz);

/* ---- runtime control --------------------------------------------------------------- */

/* The runtime switch as the macros read it (relaxed atomic loads); change it
 * only through stint_set_enabled(). */
STINT_API extern int stint_g_enabled;

/* Turns recording on (1) or off (0) for all threads. Spans already open when
 * recording is turned off still close normally. */
STINT_API void stint_set_enabled(int on);
STINT_API int stint_is_enabled(void);

/* Drains every thread's buffer into the sinks now, on the calling thread, and
 * flushes the sinks. Returns the first sticky sink error, if any. */
STINT_API STINT_NODISCARD stint_status stint_flush(void);

/* Flushes, stops the background writer, closes the sinks and turns
 * recording off. Safe to call more than once. Spans begun afterwards are not
 * recorded (as with stint_set_enabled(0)); if recording is turned on again,
 * spans that reach a drain with no sink open are counted as dropped. An
 * atexit handler calls it with a bounded time (STINT_EXIT_FLUSH_MS, default
 * 2000; the whole exit handler keeps to it, and 0 turns the handler off),
 * after ending the exiting thread's open spans (autoclosed), and writes to
 * a non-blocking descriptor keep to it too (the last drain and the sinks'
 * closing run on the writer thread, so a sink blocked in a write or a
 * callback that hangs holds the exit no longer than the bound; a marker
 * descriptor that is not a regular file is polled for room before each
 * write, at most 10 s per batch outside the exit); spans that end after the last
 * drain (after stint_shutdown(), or in other threads during the exit) are
 * said on stderr, not written, and a span still open in another thread is
 * never recorded (a span is recorded when it ends): the exit handler counts
 * them on stderr ("N spans still open in K threads at exit, never
 * recorded"); end or join threads before exit(). */
STINT_API stint_status stint_shutdown(void);

/* ---- the marker sink ------------------------------------------------------------------ */

/* Receives whole marker lines (each ends in '\n'; not NUL-terminated) from the
 * writer thread or stint_flush(). */
typedef void (*stint_line_fn)(const char *line, size_t len, void *user);

typedef enum stint_marker_flags {
    STINT_MARKERS_PREFIX = 1 /* prefix lines like the reference logger:
                                "[YYYY-mm-dd HH:MM:SS.uuuuuu][T0x<pthread_self hex>][TIMING] <func>: [<file>:<line>] "
                                (local time of the span end; [file:line] only for call sites) */
} stint_marker_flags;

/* Where marker lines go. Replaces the previous destination (flushing it).
 * to_fd: lines are written in whole-line batches; a regular file should be
 * opened O_APPEND. The library does not close fd. */
STINT_API STINT_NODISCARD stint_status stint_markers_to_fd(int fd, unsigned flags);
/* to_path: opens (creating, 0644) with O_APPEND and O_NONBLOCK (never
 * blocking in open: a FIFO with no reader is STINT_E_IO); the library owns
 * the fd. */
STINT_API STINT_NODISCARD stint_status stint_markers_to_path(const char *path, unsigned flags);
/* to_callback: each line goes to fn, called from the draining thread. */
STINT_API STINT_NODISCARD stint_status stint_markers_to_callback(stint_line_fn fn, void *user, unsigned flags);
/* off: no marker lines. */
STINT_API void stint_markers_off(void);

/* Counters kept by the library since start (or since the last fork in a child). */
typedef struct stint_stats {
    uint64_t spans_recorded;   /* span records written into thread buffers */
    uint64_t spans_dropped;    /* spans lost: a thread buffer was full (or could not be allocated),
                                  they were drained after stint_shutdown() with no sink open, or
                                  a signal handler began them while its thread was inside the
                                  library (see "Signal handlers" above) */
    uint64_t spans_written;    /* span records delivered to the sinks */
    uint64_t spans_autoclosed; /* spans closed because an outer span ended first */
    uint64_t spans_too_deep;   /* spans not recorded: deeper than STINT_MAX_DEPTH */
    uint64_t attrs_dropped;    /* attributes with no open span or over the limit */
    uint64_t names_truncated;  /* copied names or string values cut to fit, and marker lines whose
                                  name, keys or attributes were cut to fit (those say
                                  stint_truncated=1) */
    uint64_t threads;          /* threads that recorded at least one span */
    int64_t drop_first_ts_ns;  /* time range of dropped spans (0 when none) */
    int64_t drop_last_ts_ns;
    stint_status sink_error;   /* the first sticky sink error, STINT_OK if none */
    int clock_tsc;             /* 1 when timestamps come from the calibrated TSC */
    uint64_t sink_spans_lost;  /* spans a sink was handed (in spans_written) but could not write,
                                  summed over the sinks: marker lines and Chrome trace events lost
                                  to a sticky write error, torn lines included (JSONL sessions
                                  report their own errors to each call) */
} stint_stats;

#define STINT_MAX_DEPTH 128

/* Fills *out with a consistent-enough snapshot (each counter is exact; the
 * counters are not read atomically together). NULL: nothing. */
STINT_API void stint_get_stats(stint_stats *out);

/* Current CLOCK_MONOTONIC time in ns (what marker ts= values are on). */
STINT_API int64_t stint_now_ns(void);

/* ---- allocator hook ---------------------------------------------------------------- */

/* Every allocation the library makes goes through this hook, but for the
 * growth chunks of thread buffers (STINT_BUFFER_MAX_MB), mapped with mmap(2)
 * because a span ended in a signal handler may need one. Set it before
 * the first span (it is read without synchronisation). NULL functions restore
 * malloc/free. realloc is not used. */
typedef struct stint_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, size_t size, void *user);
    void *user;
} stint_allocator;
STINT_API void stint_set_allocator(const stint_allocator *a);

/* ---- scope macros -------------------------------------------------------------------- */

#define STINT_I_CAT2(a, b) a##b
#define STINT_I_CAT(a, b) STINT_I_CAT2(a, b)

#if STINT_ENABLED

#define STINT_I_LOC(var, name_, attrs_)                                                            \
    static const stint_loc var = {name_, attrs_, __FILE__, __func__, __LINE__}

/* Inline helpers for the macros; not for direct use. The runtime switch is
 * checked here, at the call site, so a disabled span costs one relaxed load
 * and a predicted branch, without a call. */
static inline stint_span stint_i_scope_begin(const stint_loc *loc)
{
    stint_span off;
    if (__builtin_expect(__atomic_load_n(&stint_g_enabled, __ATOMIC_RELAXED), 1))
        return stint_span_begin(loc);
    off.token = 0;
    return off;
}
static inline void stint_i_scope_end(stint_span *span)
{
    if (span->token)
        stint_span_end(*span);
}

#if defined(__GNUC__) || defined(__clang__)
#define STINT_I_SCOPE(id, name_, attrs_)                                                           \
    STINT_I_LOC(STINT_I_CAT(stint_loc_, id), name_, attrs_);                                       \
    __attribute__((cleanup(stint_i_scope_end), unused)) stint_span STINT_I_CAT(stint_scope_, id) = \
        stint_i_scope_begin(&STINT_I_CAT(stint_loc_, id))
/* A span from here to the end of the enclosing block. name must be a literal
 * or other static string. */
#define STINT_SCOPE(name) STINT_I_SCOPE(__COUNTER__, name, NULL)
/* Same, with a static attribute string "k=v k=v" appended to the marker. */
#define STINT_SCOPE_A(name, attrs) STINT_I_SCOPE(__COUNTER__, name, attrs)
#endif

/* Explicit begin/end in the same function: STINT_BEGIN(s, "x"); ... STINT_END(s); */
#define STINT_BEGIN(var, name)                                                                     \
    STINT_I_LOC(STINT_I_CAT(stint_loc_, var), name, NULL);                                         \
    stint_span var = stint_i_scope_begin(&STINT_I_CAT(stint_loc_, var))
#define STINT_END(var) stint_i_scope_end(&(var))

#else /* !STINT_ENABLED: every macro vanishes without evaluating its arguments */

#define STINT_SCOPE(name)
#define STINT_SCOPE_A(name, attrs)
#define STINT_BEGIN(var, name)
#define STINT_END(var) ((void)0)

#endif

#ifdef __cplusplus
}
#endif

#endif /* STINT_STINT_H */
