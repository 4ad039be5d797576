/* SPDX-License-Identifier: MIT */
/*
 * session.h - libstint's session outputs: the JSONL profiler session
 * (`stint/session/1`), the flight-recorder ring and the streaming
 * Chrome/Perfetto JSON writer. The formats are specified in
 * docs/formats/session-jsonl.md.
 *
 * - The JSONL session is an explicit API: the program says which spans,
 *   ops, tensors, memory events and gradients make up one representative
 *   step, and each call appends whole lines to the file. It does not depend
 *   on the STINT_SCOPE spans or the background writer.
 * - The ring, the Chrome writer and the binary capture are fed by the library's spans
 *   (STINT_SCOPE, stint_span_begin/end, device spans): the background writer
 *   hands them every closed span off the hot path.
 *
 * Every fallible function returns a stint_status (see stint.h) and is
 * warn_unused_result. Strings passed in are borrowed for the call only.
 */
#ifndef STINT_SESSION_H
#define STINT_SESSION_H

#include "stint/stint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================= the JSONL session ================================== */

typedef struct stint_session stint_session;

typedef enum stint_phase { STINT_PHASE_TRAIN = 0, STINT_PHASE_INFER = 1 } stint_phase;

typedef enum stint_timing_mode {
    STINT_TIMING_HOST = 0,               /* spans are host wall time */
    STINT_TIMING_DEVICE_SYNCHRONIZED = 1 /* the program synchronised the device around spans */
} stint_timing_mode;

typedef struct stint_tag {
    const char *key;
    const char *value;
} stint_tag;

enum stint_session_flags {
    /* Only the measured region (stint_session_measure_begin) waited for the
     * device before its end was taken; nested spans stay host-timed. */
    STINT_SESSION_MEASURED_REGION_SYNC = 1
};

#define STINT_WARMUP_DEFAULT (-1)

/* What the meta line says. Start from STINT_SESSION_OPTIONS_INIT. */
typedef struct stint_session_options {
    const char *entrypoint;     /* required: also the root span's name */
    const char *correlation_id; /* NULL: "<entrypoint>/update-<capture_step>" */
    const char *run_id;         /* NULL: "run-<pid>-<realtime ns>" */
    const char *device;         /* NULL: "cpu" */
    stint_phase phase;
    stint_timing_mode timing_mode;
    uint64_t capture_step;      /* one-based; 0 is STINT_E_INVAL */
    int64_t warmup_steps;       /* STINT_WARMUP_DEFAULT: capture_step - 1 */
    unsigned flags;             /* stint_session_flags */
    const stint_tag *tags;      /* written sorted by key; duplicates: the last wins */
    size_t ntags;
} stint_session_options;

#define STINT_SESSION_OPTIONS_INIT                                                                 \
    {NULL, NULL, NULL, NULL, STINT_PHASE_TRAIN, STINT_TIMING_HOST, 1, STINT_WARMUP_DEFAULT, 0, NULL, 0}

/* Creates (truncating) path and writes the meta line and the root span s1
 * (named entrypoint). The parent folder must exist. On failure *out is NULL
 * and, when err is not NULL, a message naming the path and the cause is
 * written into err (cap bytes, NUL-terminated).
 * Errors: STINT_E_INVAL (NULL path/opt/out, no entrypoint, capture_step 0,
 * a NULL tag key/value), STINT_E_IO (the file cannot be created),
 * STINT_E_NOMEM. The lines are buffered: the first write happens when the
 * buffer fills or on flush/finish (so a write error shows there).
 * The session may be used from several threads (one lock). While it is
 * open, spans the library loses in full thread buffers are written as
 * `dropped` lines, and the library's exit handler flushes the buffered
 * lines. In a process forked after open, every call returns STINT_E_STATE
 * and writes nothing (the child opens its own session). */
STINT_API STINT_NODISCARD stint_status stint_session_open(const char *path, const stint_session_options *opt,
                                                          stint_session **out, char *err, size_t cap);

typedef enum stint_span_kind { STINT_SPAN_FUNCTION = 0, STINT_SPAN_OP = 1, STINT_SPAN_MODULE = 2 } stint_span_kind;

typedef enum stint_step {
    STINT_STEP_NONE = 0,
    STINT_STEP_FORWARD = 1,
    STINT_STEP_BACKWARD = 2,
    STINT_STEP_OPTIMIZER = 3
} stint_step;

/* Begins a span on the calling thread: its parent is the thread's innermost
 * open span (the root s1 when it has none). *id receives N of "sN".
 * Errors: STINT_E_INVAL (NULL s/name/id, kind or step out of range),
 * STINT_E_IO (sticky write error), STINT_E_STATE (finished),
 * STINT_E_NOMEM. On error nothing is written. */
STINT_API STINT_NODISCARD stint_status stint_session_span_begin(stint_session *s, const char *name,
                                                                stint_span_kind kind, stint_step step,
                                                                uint64_t *id);

/* Begins the one caller-controlled measured region (measured:true, kind
 * function). A second one in the same session is STINT_E_STATE. */
STINT_API STINT_NODISCARD stint_status stint_session_measure_begin(stint_session *s, const char *name,
                                                                   uint64_t *id);

/* Ends span id, which must be the calling thread's innermost open span:
 * writes span_end with its duration. Otherwise STINT_E_SPAN_MISMATCH, with a
 * message naming both ids (stint_session_message), and nothing is written.
 * The root s1 is ended by finish only (STINT_E_STATE). */
STINT_API STINT_NODISCARD stint_status stint_session_span_end(stint_session *s, uint64_t id);

typedef enum stint_category {
    STINT_CATEGORY_NONE = 0, /* not written (tensor) / "other" (memory) */
    STINT_CATEGORY_PARAMETER,
    STINT_CATEGORY_ACTIVATION,
    STINT_CATEGORY_GRADIENT,
    STINT_CATEGORY_OPTIMIZER,
    STINT_CATEGORY_OTHER
} stint_category;

#define STINT_BYTES_UNKNOWN (-1) /* storage_bytes: resolve from shape x dtype */

/* An op observation. Start from STINT_OP_RECORD_INIT. */
typedef struct stint_op_record {
    uint64_t span_id;
    const char *op_name;
    const char *const *inputs;
    size_t ninputs;
    const char *output; /* NULL: none */
    const uint64_t *shape;
    size_t ndim;
    const char *dtype;
    const char *device;           /* NULL: the session's device */
    int64_t duration_ns;
    int64_t timestamp_ns;         /* 0: now, since open */
    int64_t storage_bytes;        /* STINT_BYTES_UNKNOWN: resolved */
    uint64_t input_storage_bytes;
} stint_op_record;
#define STINT_OP_RECORD_INIT {0, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, 0, STINT_BYTES_UNKNOWN, 0}

/* Writes an `op` line. Never writes a memory record. Errors: STINT_E_INVAL
 * (NULL op_name/dtype, inputs NULL with ninputs > 0, shape NULL with ndim >
 * 0), STINT_E_NOT_FOUND (span_id never begun), STINT_E_IO, STINT_E_STATE. */
STINT_API STINT_NODISCARD stint_status stint_session_op(stint_session *s, const stint_op_record *op);

typedef struct stint_tensor_record {
    uint64_t span_id;
    const char *tensor_id;
    const uint64_t *shape;
    size_t ndim;
    const char *dtype;
    const char *device; /* NULL: the session's device */
    int requires_grad;  /* 0 or 1 */
    int64_t storage_bytes;
    stint_category category;
} stint_tensor_record;
#define STINT_TENSOR_RECORD_INIT {0, NULL, NULL, 0, NULL, NULL, 0, STINT_BYTES_UNKNOWN, STINT_CATEGORY_NONE}

/* Writes a `tensor` line (metadata only; no memory record). */
STINT_API STINT_NODISCARD stint_status stint_session_tensor(stint_session *s, const stint_tensor_record *t);

typedef enum stint_mem_action { STINT_MEM_ALLOC = 0, STINT_MEM_FREE = 1 } stint_mem_action;

typedef struct stint_memory_record {
    uint64_t span_id;
    const char *tensor_id;
    const char *op_name; /* NULL: absent */
    const char *device;  /* NULL: the session's device */
    uint64_t bytes;
    stint_mem_action action;
    const uint64_t *shape;
    size_t ndim;
    const char *dtype;
    stint_category category; /* NONE is written as "other" */
    int64_t timestamp_ns;     /* 0: now */
} stint_memory_record;
#define STINT_MEMORY_RECORD_INIT {0, NULL, NULL, NULL, 0, STINT_MEM_ALLOC, NULL, 0, NULL, STINT_CATEGORY_NONE, 0}

/* Writes an explicit `memory` alloc/free line. */
STINT_API STINT_NODISCARD stint_status stint_session_memory(stint_session *s, const stint_memory_record *m);

/* Writes a `device_memory` checkpoint; reserved_bytes < 0 leaves it out,
 * timestamp_ns 0 means now. device NULL: the session's device. */
STINT_API STINT_NODISCARD stint_status stint_session_device_memory(stint_session *s, const char *device,
                                                                   uint64_t used_bytes, uint64_t free_bytes,
                                                                   int64_t reserved_bytes, int64_t timestamp_ns);

typedef enum stint_grad_state {
    STINT_GRAD_PRESENT = 0,
    STINT_GRAD_MISSING = 1,
    STINT_GRAD_ZERO = 2,
    STINT_GRAD_NON_FINITE = 3
} stint_grad_state;

/* Writes a `gradient` line (event_id "gradient-N"); norm NULL leaves it out,
 * a non-finite norm is written as null. */
STINT_API STINT_NODISCARD stint_status stint_session_gradient(stint_session *s, const char *root, const char *key,
                                                              stint_grad_state state, const double *norm);

/* Writes a `counter` line at now (unit may be NULL = ""). A non-finite value
 * is STINT_E_INVAL. */
STINT_API STINT_NODISCARD stint_status stint_session_counter(stint_session *s, const char *name, double value,
                                                             const char *unit);

/* Writes a `fork` line (call it in the parent after fork()). */
STINT_API STINT_NODISCARD stint_status stint_session_fork(stint_session *s, int32_t parent_pid, int32_t child_pid);

/* Writes a `dropped` line: count records of thread tid were lost between
 * first_ns and last_ns (CLOCK_MONOTONIC ns as stint_now_ns(); 0 = unknown). */
STINT_API STINT_NODISCARD stint_status stint_session_dropped(stint_session *s, int32_t tid, uint64_t count,
                                                             int64_t first_ns, int64_t last_ns);

/* Writes the buffered lines out. Returns the sticky write error, if any. */
STINT_API STINT_NODISCARD stint_status stint_session_flush(stint_session *s);

/* Ends the root span, flushes and closes the file. With spans other than
 * the root still open: STINT_E_SPANS_OPEN (message says how many) and the
 * session stays usable. After a write error: STINT_E_IO. Either way, only a
 * STINT_OK or STINT_E_IO return has ended the session; call
 * stint_session_free afterwards in every case. */
STINT_API STINT_NODISCARD stint_status stint_session_finish(stint_session *s);

/* The message of the last error of s ("" when none). Owned by s, valid until
 * the next call on s. */
STINT_API const char *stint_session_message(const stint_session *s);

typedef struct stint_session_stats {
    uint64_t lines;          /* lines written (or buffered) */
    uint64_t bytes;          /* bytes written (or buffered) */
    uint64_t invalid_utf8;   /* bytes replaced by U+FFFD */
    uint64_t size_overflows; /* storage sizes too large for 64 bits (written as 0) */
} stint_session_stats;
STINT_API void stint_session_get_stats(const stint_session *s, stint_session_stats *out);

/* Closes the file without finishing if still open (the file then has no
 * root span_end: a reader treats it as cut short) and frees s. NULL is ok. */
STINT_API void stint_session_free(stint_session *s);

/* Bytes of one element of dtype (case-insensitive; table in the format doc);
 * 0 when unknown. */
STINT_API size_t stint_dtype_size(const char *dtype);

/* shape x dtype size in bytes: an empty shape is one element, any zero
 * dimension gives 0, an unknown dtype gives 0; *overflow (may be NULL) is
 * set to 1 when the product does not fit 64 bits (the result is then 0). */
STINT_API uint64_t stint_storage_bytes(const uint64_t *shape, size_t ndim, const char *dtype, int *overflow);

/* ======================= the flight-recorder ring ============================ */

typedef struct stint_ring_capture stint_ring_capture;

/* Starts recording the last `capacity` closed host spans of every thread.
 * Memory: capacity x STINT_RING_SLOT_BYTES, allocated now.
 * Errors: STINT_E_INVAL (capacity 0), STINT_E_BUSY (a ring already runs),
 * STINT_E_NOMEM. */
#define STINT_RING_SLOT_BYTES 512
STINT_API STINT_NODISCARD stint_status stint_ring_start(size_t capacity);

/* Stops recording (after draining what threads have recorded) and hands
 * the capture to the caller in *out (free with stint_ring_capture_free).
 * With no ring running *out is NULL and the result is STINT_E_STATE: a
 * second finish returns nothing. */
STINT_API STINT_NODISCARD stint_status stint_ring_finish(stint_ring_capture **out);

/* One captured span. ts_ns is relative to the ring's start. */
typedef struct stint_ring_event {
    const char *name; /* owned by the capture */
    int64_t ts_ns;
    int64_t dur_ns;
    int32_t pid;
    int32_t tid;
    int depth;
} stint_ring_event;

/* Events in completion order (index 0 = the oldest kept). */
STINT_API size_t stint_ring_capture_count(const stint_ring_capture *c);
STINT_API uint64_t stint_ring_capture_dropped(const stint_ring_capture *c);
/* Fills *ev for event i; STINT_E_INVAL when i >= count. */
STINT_API STINT_NODISCARD stint_status stint_ring_capture_event(const stint_ring_capture *c, size_t i,
                                                                stint_ring_event *ev);
/* Writes the capture as Chrome/Perfetto JSON (format doc, section 3): STINT_OK,
 * STINT_E_IO, or STINT_E_NOMEM (its 8 KiB output buffer). */
STINT_API STINT_NODISCARD stint_status stint_ring_capture_write_chrome(const stint_ring_capture *c,
                                                                       const char *path);
STINT_API void stint_ring_capture_free(stint_ring_capture *c);

/* Opt-in crash dump: from now on SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
 * write the running ring as Chrome JSON to path (async-signal-safe calls
 * only), then the previous handler runs. path is copied (at most 4095
 * bytes). Needs a running ring when the signal arrives (otherwise nothing is
 * written). Calling it again changes the path.
 * Errors: STINT_E_INVAL (NULL or too long path), STINT_E_IO (sigaction). */
STINT_API STINT_NODISCARD stint_status stint_ring_crash_dump_enable(const char *path);
/* Restores the previous handlers. */
STINT_API void stint_ring_crash_dump_disable(void);

/* ======================= the streaming Chrome JSON writer ===================== */

typedef struct stint_chrome_writer stint_chrome_writer;

/* Creates (truncating) path and starts writing every closed span from now
 * on (and those still pending in thread buffers) as Chrome/Perfetto JSON.
 * Several writers may run at once. Errors: STINT_E_INVAL, STINT_E_IO,
 * STINT_E_NOMEM; err/cap as stint_session_open. */
STINT_API STINT_NODISCARD stint_status stint_chrome_open(const char *path, stint_chrome_writer **out, char *err,
                                                         size_t cap);

/* Adds a counter sample ("C" event) at now on the calling thread's track. */
STINT_API STINT_NODISCARD stint_status stint_chrome_counter(stint_chrome_writer *w, const char *name, double value);

/* Drains pending spans into the file, writes the closing metadata, closes
 * the file and frees w. Returns the first write error (sticky), if any. */
STINT_API STINT_NODISCARD stint_status stint_chrome_close(stint_chrome_writer *w);

/* ======================= the binary capture ====================================== */

typedef struct stint_capture stint_capture;

/* Creates (truncating) path and writes every closed span from now on (and
 * those still pending in thread buffers), every loss report and the
 * threads' names as a binary capture (docs/formats/capture.md): raw
 * fixed-layout records and a string table, no text formatting, written in
 * blocks of about 1 MiB with one write(2) each, readable up to the last
 * whole record after a crash. `stint` reads it like any trace; `stint
 * convert` turns it into markers or Chrome JSON. STINT_CAPTURE=path (see
 * stint.h) opens one at the first drain. Several may run at once. A forked
 * child writes PATH.<pid> of its own from its first drain. Write errors are
 * sticky; the spans they lose are counted (sink_spans_lost).
 * Errors: STINT_E_INVAL, STINT_E_IO, STINT_E_NOMEM; err/cap as
 * stint_session_open. */
STINT_API STINT_NODISCARD stint_status stint_capture_open(const char *path, stint_capture **out, char *err,
                                                          size_t cap);

/* Drains pending spans into the file, writes the last block, closes the
 * file and frees c. Returns the first write error (sticky), if any. */
STINT_API STINT_NODISCARD stint_status stint_capture_close(stint_capture *c);

#ifdef __cplusplus
}
#endif

#endif /* STINT_SESSION_H */
