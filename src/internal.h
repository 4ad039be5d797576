/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the modules of libstint share and nothing else sees.
 *
 * Data flow: the hot path (span.c) writes fixed-layout binary records into a
 * per-thread single-producer byte ring; the drain (writer.c), run by the
 * background writer thread or by stint_flush(), decodes them into
 * stint_i_event views with timestamps in ns and hands each to every
 * registered sink (markers.c and the session sinks). Sinks are only ever
 * called with the drain lock held, so a sink needs no locking of its own
 * against other sink calls.
 *
 * Every symbol here has hidden visibility (the default of this build) and
 * the stint_i_ prefix.
 */
#ifndef STINT_INTERNAL_H
#define STINT_INTERNAL_H

#include "stint/stint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#if defined(__GNUC__)
#define STINT_I_LIKELY(x) __builtin_expect(!!(x), 1)
#define STINT_I_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STINT_I_LIKELY(x) (x)
#define STINT_I_UNLIKELY(x) (x)
#endif

/* 128-bit integers for exact cycle and tick conversions (GCC/Clang). */
__extension__ typedef __int128 stint_i_i128;
__extension__ typedef unsigned __int128 stint_i_u128;

/* ---- allocation (status.c) ----------------------------------------------- */
void *stint_i_alloc(size_t size);
void *stint_i_calloc(size_t size);
void stint_i_free(void *ptr, size_t size);

/* ---- clock (clock.c) --------------------------------------------------------
 * Raw clock values are either CLOCK_MONOTONIC ns or TSC ticks; a frame
 * remembers which one it started with so a span that straddles a switch of
 * source still reads one clock for both ends. */
enum { STINT_I_CLOCK_MONO = 0, STINT_I_CLOCK_TSC = 1, STINT_I_CLOCK_TEST = 2, STINT_I_NCLOCKS = 3 };
extern _Atomic int stint_i_clock_mode;
int64_t stint_i_clock_read_slow(int mode);
/* Reads the clock a frame started with; the TSC case is inline. */
static inline int64_t stint_i_clock_read(int mode)
{
#if defined(__x86_64__)
    if (STINT_I_LIKELY(mode == STINT_I_CLOCK_TSC))
        return (int64_t)__builtin_ia32_rdtsc();
#endif
    return stint_i_clock_read_slow(mode);
}
int64_t stint_i_mono_ns(void);
int64_t stint_i_real_ns(void); /* CLOCK_REALTIME ns */
/* Converts a raw value read with `mode` to CLOCK_MONOTONIC ns. Only called
 * with the drain lock held (it may record a calibration point). */
int64_t stint_i_clock_to_ns(int mode, int64_t raw);
/* Converts a span's two raw values a and b (read with `mode`) as two calls
 * of stint_i_clock_to_ns would, in one (drain lock held). */
void stint_i_clock_pair_to_ns(int mode, int64_t a, int64_t b, int64_t *a_ns, int64_t *b_ns);
/* Takes a fresh TSC calibration point (drain lock held). */
void stint_i_clock_calibrate_point(void);
/* Runs the TSC proof across every allowed CPU and switches the clock to TSC
 * when it passes and STINT_CLOCK allows it. Called from the writer thread. */
void stint_i_clock_try_tsc(void);
/* Test hook: every timestamp comes from fn (ns) from now on. */
void stint_i_clock_set_test(int64_t (*fn)(void));
/* Describes the clock in use, for sinks' metadata ("CLOCK_MONOTONIC", ...). */
const char *stint_i_clock_name(void);
/* Clock anchors: a (CLOCK_MONOTONIC, CLOCK_REALTIME) pair taken at init. */
void stint_i_clock_anchor(int64_t *mono_ns, int64_t *real_ns);

/* ---- records in thread buffers (span.c writes, writer.c reads) ------------- */
enum { STINT_I_REC_SPAN = 1, STINT_I_REC_DEVICE = 2, STINT_I_REC_PAD = 3 };
enum {
    STINT_I_F_COPYNAME = 1, /* a NUL-terminated copied name follows the header */
    STINT_I_F_TRUNC = 2,    /* the name or a string value was truncated */
    STINT_I_F_AUTOCLOSED = 4
};
enum { STINT_I_ATTR_I64 = 1, STINT_I_ATTR_U64, STINT_I_ATTR_F64, STINT_I_ATTR_BOOL, STINT_I_ATTR_STR };

typedef struct stint_i_rec {
    uint32_t size; /* bytes, header + tail, multiple of 8 */
    uint8_t kind;
    uint8_t nattr;
    uint8_t flags;
    uint8_t clock; /* STINT_I_CLOCK_* the start/end values were read with */
    int32_t depth;
    uint32_t pad_;
    const stint_loc *loc; /* call site, or NULL */
    const char *name;     /* static name when loc is NULL and no copy follows */
    int64_t start;        /* raw clock (device spans: ns on the device clock) */
    int64_t end;
    uint64_t inv;
    uint64_t hid;
    /* tail: [copied name, padded to 8] [nattr x stint_i_attr] [string bytes] */
} stint_i_rec;

/* An attribute's value, by its type. */
typedef union stint_i_attr_value {
    int64_t i;
    uint64_t u;
    double f;
    uint64_t str_off; /* STR: offset from the start of the string area */
} stint_i_attr_value;

typedef struct stint_i_attr {
    const char *key;
    uint8_t type;
    uint8_t pad_[3];
    uint32_t str_len; /* STR: bytes in the string area */
    stint_i_attr_value v;
} stint_i_attr;

/* ---- decoded events handed to sinks ----------------------------------------- */
typedef struct stint_i_attr_view {
    const char *key;
    int type; /* STINT_I_ATTR_* */
    union {
        int64_t i;
        uint64_t u;
        double f;
        int b;
        struct {
            const char *ptr;
            size_t len;
        } s;
    } v;
} stint_i_attr_view;

typedef struct stint_i_event {
    int kind; /* STINT_I_REC_SPAN or STINT_I_REC_DEVICE */
    const char *name;
    size_t name_len;
    const char *static_attrs; /* "k=v ..." from the call site, or NULL */
    const stint_i_attr_view *attrs;
    unsigned nattr;
    int64_t ts_ns; /* host: CLOCK_MONOTONIC ns; device: device-clock offset ns */
    int64_t dur_ns;
    uint64_t inv;
    uint64_t hid;
    int depth;
    int truncated;
    int autoclosed; /* closed because an outer span (or the thread) ended first */
    int32_t pid;
    int32_t tid;
    const char *thread_name; /* never NULL, may be "" */
    uint64_t thread_handle;  /* pthread_self() of the recording thread */
    const stint_loc *loc;    /* may be NULL */
} stint_i_event;

typedef struct stint_i_drop {
    int32_t pid;
    int32_t tid;
    uint64_t count;      /* spans lost since the previous report for this thread */
    int64_t first_ts_ns; /* time range of the lost spans (CLOCK_MONOTONIC ns) */
    int64_t last_ts_ns;
} stint_i_drop;

/* The thread a record comes from, for a sink that takes records as the
 * hot path wrote them (stint_i_sink.raw). */
typedef struct stint_i_rec_src {
    int32_t pid;
    int32_t tid;
    const char *thread_name; /* never NULL, may be "" */
    uint64_t thread_handle;
} stint_i_rec_src;

/* A sink. All callbacks are optional and run with the drain lock held. */
typedef struct stint_i_sink stint_i_sink;
struct stint_i_sink {
    /* A record as the hot path wrote it (raw clock values, its tail not
     * decoded), offered before any decoding: returns 1 when the sink took
     * it (or has nothing to do with it), 0 to be handed it as an event.
     * The drain decodes a record only when a sink asks for the event. */
    int (*raw)(stint_i_sink *s, const stint_i_rec *r, const stint_i_rec_src *src);
    void (*event)(stint_i_sink *s, const stint_i_event *ev);
    void (*dropped)(stint_i_sink *s, const stint_i_drop *d);
    void (*flush)(stint_i_sink *s); /* end of a drain: push buffered bytes out */
    void (*close)(stint_i_sink *s); /* removed or shutdown; the sink may free itself */
    void (*atfork_child)(stint_i_sink *s); /* drop bytes inherited from the parent */
    stint_status (*error)(stint_i_sink *s); /* sticky error, or STINT_OK */
    uint64_t (*lost)(stint_i_sink *s);      /* spans it was handed and could not write (or NULL) */
    stint_i_sink *next;
};

/* Changes of the sink list or of a sink's destination, counted under the
 * drain lock (writer.c): a thread that formatted marker lines without the
 * lock writes them only when none came between (stint_i_flush_own). */
extern uint64_t stint_i_sinks_gen;

/* Adds a sink (ownership stays with the caller until close is called). */
void stint_i_sink_add(stint_i_sink *s);
/* Drains pending records into it, flushes and closes it, and unlinks it. */
void stint_i_sink_remove(stint_i_sink *s);

/* Process id cached by the library (re-read after fork). */
int32_t stint_i_pid(void);

/* Closes the calling thread's open spans (thread exit), counted as autoclosed. */
void stint_i_close_all_open(void);

/* Makes sure the library is initialised (env read, atexit and atfork set). */
void stint_i_init(void);

/* ---- the writer (writer.c) --------------------------------------------------- */
/* The drain lock, for code that changes sink configuration. */
void stint_i_drain_lock(void);
void stint_i_drain_unlock(void);
/* The sink list (drain lock held). */
stint_i_sink *stint_i_sinks(void);
/* Drains with the drain lock already held. */
void stint_i_drain_locked(void);
/* Links a sink with the drain lock already held. */
void stint_i_sink_link_locked(stint_i_sink *s);
/* Drains every thread buffer into the sinks; caller must not hold the lock. */
stint_status stint_i_drain(void);
void stint_i_writer_start(void);

/* ---- the marker sink (markers.c) ---------------------------------------------- */
/* Sets up the default destination from STINT_MARKERS when no explicit one was
 * chosen yet (called by every drain, with the drain lock held). */
void stint_i_markers_default(void);
/* Why the marker sink failed, for the exit message ("cannot open PATH: the
 * errno text", "write to PATH failed: ..."): the length written into buf
 * (NUL-terminated), or 0 when it has not failed. Drain lock held. */
size_t stint_i_markers_why(char *buf, size_t cap);
/* Marker lines cut to fit (markers.c): part of names_truncated of stint_get_stats(). */
uint64_t stint_i_marker_lines_cut(void);
/* Formats one marker line into buf (cap >= 512 recommended); returns its length
 * including '\n' (like snprintf when it does not fit). */
size_t stint_i_marker_format(char *buf, size_t cap, const stint_i_event *ev, unsigned flags);
/* Room a marker line may need (stint_i_markers_format_at). */
#define STINT_I_MARKER_LINE_ROOM (4096 + 512)
/* Whether the marker sink is s and writes whole lines to a regular file
 * without the logger's prefix, error-free: what stint_i_flush_own needs to
 * format its lines without the drain lock (held here). *flags: its flags. */
int stint_i_markers_sole(const stint_i_sink *s, unsigned *flags);
/* Formats ev's marker line at p, which has STINT_I_MARKER_LINE_ROOM bytes of
 * room; returns its end. No lock needed (a thread's own line cache). */
char *stint_i_markers_format_at(char *p, const stint_i_event *ev, unsigned flags);
/* Appends n bytes of whole span lines formatted by stint_i_markers_format_at
 * to the sink's batch, writing it out as it fills, as its event callback
 * would have (drain lock held; a failed write counts the lines lost). */
void stint_i_markers_put(const char *text, size_t n);

/* ---- the capture sink (capture.c) ---------------------------------------------- */
/* Opens the capture STINT_CAPTURE names, once (called by every drain, with
 * the drain lock held, before stint_i_markers_default). */
void stint_i_capture_default(void);
/* Whether STINT_CAPTURE names a file (the marker default is then off). */
int stint_i_capture_wanted(void);

#endif /* STINT_INTERNAL_H */
