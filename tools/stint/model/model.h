/* SPDX-License-Identifier: MIT */
/*
 * model.h - the one trace model every stint reader fills and every analysis reads.
 *
 * Readers (Chrome JSON, JSONL sessions, [STRACE] marker logs) turn their input
 * into this model; analyses (slices, summary, tree, steps, counters, memory,
 * diff, convert, report) are functions over it. Data flows one way: a reader
 * calls the stint_model_add_* / begin / end functions while it streams, then
 * stint_model_finish() once; after that the model is read-only.
 *
 * Vocabulary
 *   string id   uint32 index into the interning table; 0 is always "" (absent).
 *   process     one per pid seen (pid as int64; a string pid becomes a fresh
 *               synthetic pid and the string its name, as Perfetto does).
 *               Synthetic pids and tids are STINT_SYNTHETIC_ID0 and down:
 *               below every 32-bit id, so they never meet one a program
 *               wrote (negative ones such as -1 included); the Chrome
 *               reader drops events whose written ids lie that low.
 *   lane        one thread: (pid, tid), plus a clock domain. Device-clock lanes
 *               (markers with clk=dev) are separate lanes keyed (pid, inv) and
 *               are never unioned or nested with host lanes.
 *   track       where slices live: a lane's thread track, an async track
 *               (keyed by scope + cat + id), a process track (process-scoped
 *               instants), or the global track.
 *   slice       one span or instant: ts_ns, dur_ns (-1 = never finished),
 *               track, cat, name, args; after finish also depth and parent.
 *   counter     a series (pid, name "<event name> <arg key>", or "<event name> id: <id> <arg key>")
 *               of (ts, value); values that are not finite are dropped and counted
 *               samples.
 *   repair      something the input got wrong that we kept anyway: counted by
 *               kind (enum stint_repair), the first occurrence's message kept.
 *   drop        something we could not keep at all: counted by kind where it
 *               has one (the enum stint_repair kinds for which
 *               stint_repair_is_drop is 1: unbound_flow, unmatched_end...),
 *               else in `dropped` (e.g. an invalid ts). Drops are never
 *               called repairs in output.
 *   partial     the input ended in an error; everything before it is here.
 *
 * Time: every timestamp and duration is int64 nanoseconds. Readers parse
 * decimal text exactly (tsparse.h); nothing goes through a double.
 *
 * Ordering contract after stint_model_finish():
 *   - slices[] is sorted by (ts asc, dur desc with -1 as +infinity, then
 *     input order); depth/parent are computed per track with Perfetto's
 *     nesting rule: a new slice nests under the innermost open slice that
 *     has not ended before it (an ended slice whose end equals the new ts is
 *     closed, but for a zero-duration one when the new slice is zero-duration
 *     too: two instants at one ts stack, a B or X at an instant's ts does not
 *     nest under it). A slice that starts inside its
 *     parent but ends after it is still nested (Perfetto spills it to another
 *     track) and counted as STINT_REPAIR_OVERLAP.
 *   - Device work is a queue, not a call stack: a complete slice whose
 *     category is device work (kernel, gpu_memcpy, gpu_memset, memcpy,
 *     memset, mtia_ccp_events; any case) never nests under another one on
 *     its track; the device work on top of the stack is closed first (one
 *     that had not ended yet is counted as STINT_REPAIR_STREAM_OVERLAP), so
 *     it nests under what is left (an annotation range) or is a root.
 *   - B/E pairs are matched in finish(), per thread track, in Perfetto's
 *     event order, not file order: by ts; at equal ts E events first, then
 *     slices whose duration was known when read (X, markers, JSONL) longest
 *     first, then B events and instants in file order. An E closes the
 *     innermost open B with the same name (an E without a name closes the
 *     innermost open B) and, when the E has a category, the same category;
 *     B slices still open above it are cut to its end and counted
 *     (STINT_REPAIR_MISPLACED_END, Perfetto's misplaced_end_event). An E matching
 *     nothing is counted (STINT_REPAIR_E_UNMATCHED). A B never closed keeps
 *     dur_ns = -1 (STINT_REPAIR_UNFINISHED). Async b/e match the same way on
 *     their own track (unmatched e: STINT_REPAIR_ASYNC_UNMATCHED). One
 *     exception to Perfetto's order: a zero-length pair written B then E at
 *     one ts is paired (dur 0) rather than left unmatched.
 *   - Args of an end event (E, e, F) are merged into the slice it closes,
 *     after the begin's args: a key the begin already has takes the end's
 *     value in place, new keys are appended (Chrome and Perfetto merge them
 *     the same way). An end that closes nothing loses its args, as in
 *     Perfetto (it is counted as unmatched).
 *
 * Chrome phases beyond the spec's core (trace-formats-and-peers.md 1.3):
 * where Perfetto drops an event stint keeps it, flags it and counts a
 * repair; nothing is dropped silently.
 *   - T with dur: Perfetto's thread-state interval; kept as a slice flagged
 *     STINT_SLICE_THREAD_STATE (see there). Not a repair.
 *   - S, F: legacy async begin / end, which Perfetto ignores: kept as an
 *     async slice like b/e (keyed by cat + id), STINT_REPAIR_LEGACY_ASYNC.
 *   - T without dur, p: legacy async steps (step-into / step-past), which
 *     Perfetto ignores: kept as instants on the async track of their id
 *     (where the S/F slice of that id lives), STINT_REPAIR_ASYNC_STEP.
 *   - P: sample events. Perfetto reads only V8 CPU-profile payloads into its
 *     own profile tables and ignores the rest; stint models no samples, so
 *     every P is kept as an instant on its thread with its args,
 *     STINT_REPAIR_SAMPLE_EVENT.
 *   - Phases with no model at all (N/O/D objects, V/v memory dumps, c clock
 *     sync, ( ) contexts, = links): counted as STINT_REPAIR_UNKNOWN_PHASE.
 *
 * Memory: the model keeps one struct stint_slice (64 bytes) per slice, plus
 * args only when STINT_MODEL_KEEP_ARGS is set, plus counter samples only when
 * STINT_MODEL_KEEP_SAMPLES is set (otherwise per-series aggregates only).
 * Everything else grows with lanes, tracks, distinct strings and open B spans.
 * Arrays of 4 KiB and up come from hmem.h (stint_bigarray): transparent huge
 * pages once the run is not small, as a fresh 4 KiB page costs ~10 us at
 * its first touch here.
 *
 * Lean mode (STINT_MODEL_LEAN, used by `summary`): complete (X) spans on host
 * thread tracks are not kept as slices but as 12-byte records per lane
 * (start as a 32-bit offset from a base the lane's list sets, 40-bit
 * duration, 24-bit (cat, name) pair); spans that do not fit
 * (duration >= 2^40 ns, more than 2^24 pairs, a slice index needed for a v2
 * flow) stay ordinary slices. finish() then streams every thread-track slice,
 * lean or not, to the span sink (stint_model_set_span_sink) in nesting order
 * and frees each lane's records once streamed; slices[] holds only the other
 * slices, whose parent/depth are not computed on thread tracks. Repairs and
 * flow bindings are the same as without lean mode (arrows that touch a lean
 * span carry STINT_LEAN_SLICE instead of an index).
 */
#ifndef STINT_CLI_MODEL_H
#define STINT_CLI_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STINT_NO_ID UINT32_MAX   /* "none" for parent, args, lane ... */
#define STINT_TS_NONE INT64_MIN  /* absent optional timestamp (tts, tdur) */
#define STINT_LEAN_SLICE (UINT32_MAX - 1) /* lean mode: a flow end on a span kept as a lean record */

/* A growable array backed by mmap + MADV_HUGEPAGE once it is large. */
struct stint_bigarray {
    void *data;
    size_t len;      /* elements in use */
    size_t cap;      /* elements allocated */
    size_t elem;     /* element size in bytes */
};
void stint_bigarray_init(struct stint_bigarray *a, size_t elem_size);
/* Appends one zeroed element and returns it, or NULL when out of memory. */
void *stint_bigarray_push(struct stint_bigarray *a);
/* Makes room for n more elements; 0 ok, -1 out of memory. */
int stint_bigarray_reserve(struct stint_bigarray *a, size_t n); /* (the room is not zeroed) */
void stint_bigarray_free(struct stint_bigarray *a);
#define STINT_BA_AT(a, type, i) (((type *)(a)->data)[i])

enum stint_track_kind {
    STINT_TRACK_THREAD = 0,
    STINT_TRACK_ASYNC = 1,   /* b/e/n (and S/F) spans, keyed by scope+cat+id */
    STINT_TRACK_PROCESS = 2, /* process-scoped instants */
    STINT_TRACK_GLOBAL = 3,  /* global-scoped instants and global async */
};
const char *stint_track_kind_name(enum stint_track_kind k);

enum stint_async_scope { STINT_ASYNC_PROCESS = 0, STINT_ASYNC_GLOBAL = 1 };

enum stint_clock { STINT_CLOCK_HOST = 0, STINT_CLOCK_DEVICE = 1 };

/* Slice flags: which event made the slice. */
enum {
    STINT_SLICE_COMPLETE = 1u << 0, /* X */
    STINT_SLICE_BEGIN_END = 1u << 1, /* B/E, or a JSONL/marker span */
    STINT_SLICE_INSTANT = 1u << 2,  /* i/I/R/n: dur 0, not a span */
    STINT_SLICE_ASYNC = 1u << 3,    /* b/e, S/F */
    STINT_SLICE_OVERLAP = 1u << 4,  /* nested although it ends after its parent */
    /* The reader set parent to the input index (as returned by add/begin) of
     * the parent slice, which may be on another track (JSONL parent ids).
     * finish() maps it to the sorted index and derives depth from the parent
     * chain instead of from nesting on the track. */
    STINT_SLICE_EXPLICIT_PARENT = 1u << 5,
    STINT_SLICE_FROM_B = 1u << 6,   /* opened by a B event: its end came from an E (finish) */
    STINT_SLICE_NEEDS_INDEX = 1u << 7, /* the reader uses the returned index (v2 flows): never lean */
    /* A Chrome T event with a dur: Perfetto's thread-state interval (name =
     * the state, e.g. "Running"), not a span of work. It lives on its
     * thread's state track, an async-kind track keyed (pid, cat, id
     * "thread_state tid <tid>"), so it never nests with the thread's slices
     * and `summary` lists it with the async spans by (cat, state). */
    STINT_SLICE_THREAD_STATE = 1u << 8,
    /* The slice has a thread time (tts) in the model's side table, found by
     * its seq (stint_model_slice_tt). Set by the model only. */
    STINT_SLICE_THREAD_TIME = 1u << 9,
};

/* A slice's thread time and thread duration, kept beside the slices in
 * ascending seq (model.c: the side table), 16 bytes: tdur is the duration in
 * ns when it fits 32 bits, else STINT_TDUR_NONE (none) or STINT_TDUR_BIG (in
 * the model's map of the others, by seq). */
struct stint_thread_time {
    uint32_t seq;
    uint32_t tdur;
    int64_t tts_ns;
};
#define STINT_TDUR_NONE UINT32_MAX
#define STINT_TDUR_BIG (UINT32_MAX - 1)

enum stint_repair {
    STINT_REPAIR_UNFINISHED = 0,   /* B (or b, or JSONL begin) without an end: dur -1 */
    STINT_REPAIR_E_UNMATCHED,      /* E closing nothing (name differs or stack empty) */
    STINT_REPAIR_OVERLAP,          /* X partially overlapping its parent (Perfetto spills) */
    STINT_REPAIR_NEGATIVE_DUR,     /* dur < 0 given: kept as 0 */
    STINT_REPAIR_TRAILING_COMMA,   /* Chrome: trailing comma in an array/object */
    STINT_REPAIR_MISSING_CLOSE,    /* Chrome: array/object not closed at end of input */
    STINT_REPAIR_UNKNOWN_PHASE,    /* ph we do not model: counted, not kept */
    STINT_REPAIR_STRING_NUMBER,    /* numeric field given as a string */
    STINT_REPAIR_ASYNC_UNMATCHED,  /* e/F without a matching b/S */
    STINT_REPAIR_TORN_RECORD,      /* marker log: record cut before its last field */
    STINT_REPAIR_UNKNOWN_VERSION,  /* marker log: v != 1 */
    STINT_REPAIR_CONTROL_CHAR,     /* Chrome: raw control byte inside a string */
    STINT_REPAIR_X_WITHOUT_DUR,    /* Chrome: X without dur (Perfetto drops it): kept with dur 0 */
    STINT_REPAIR_UNBOUND_FLOW,     /* a flow event with no slice to bind to, or no start */
    STINT_REPAIR_ASYNC_STEP,       /* Chrome: legacy async step T (without dur) or p (Perfetto ignores
                                      them): kept as an instant on the async track of its id */
    STINT_REPAIR_SAMPLE_EVENT,     /* Chrome: P sample (Perfetto reads only V8 cpuProfile ones): kept as
                                      a thread instant; its stack (sf, cpuProfile) is not modelled */
    STINT_REPAIR_LONE_SURROGATE,   /* Chrome: a \u escape with an unpaired surrogate: decoded as U+FFFD */
    STINT_REPAIR_LEGACY_ASYNC,     /* Chrome: legacy async S/F (Perfetto ignores them): kept as an async slice */
    STINT_REPAIR_ID_NOT_INTEGER,   /* Chrome: a numeric pid/tid that is no integer (1.5, 1e30): kept on a lane
                                    * named by its text, as a string id is */
    STINT_REPAIR_MISPLACED_END,    /* B still open when an E closed a B below it: cut to that end (Perfetto's
                                      misplaced_end_event) */
    STINT_REPAIR_INSTANT_SCOPE,    /* Chrome: an instant's "s" other than g, p or t (Perfetto drops the event): read by
                                      its first letter */
    STINT_REPAIR_ASYNC_WITHOUT_ID, /* Chrome: b/e/n without id or id2 (Perfetto drops it): kept on a process track */
    STINT_REPAIR_BAD_THREAD_TIME,  /* Chrome: a tts or tdur that is no time (Perfetto drops the event): ignored */
    STINT_REPAIR_NEGATIVE_TS,      /* Chrome: ts < 0 (Perfetto's sorter drops it): kept */
    STINT_REPAIR_FLOW_INVALID_ID,  /* Chrome: a flow id missing, or a string that is no hex number (Perfetto drops
                                      the event): kept, keyed by its text */
    STINT_REPAIR_FLOW_NO_DIRECTION, /* Chrome: bind_id without flow_in or flow_out (Perfetto counts it): no arrow */
    STINT_REPAIR_BAD_LOSS_RECORD,   /* a writer's report of lost spans that cannot be read (marker log
                                       `[STINT] v=1 dropped` line cut or malformed, JSONL `dropped` record
                                       without a count): the loss is known, its size is not */
    STINT_REPAIR_SUBNS_TS,          /* Chrome: a time with digits below 1 ns (4+ decimals of us): truncated to ns,
                                       as Perfetto does */
    STINT_REPAIR_DEPTH_OUTSIDE_PARENT, /* marker log: a record's depth parent (the call tree from depth) does
                                          not contain it in time: kept under it, as its depth says */
    STINT_REPAIR_STREAM_OVERLAP,    /* device work (kernel, memcpy, memset) starting before the previous
                                       device work on its lane ended: a queue, not a call stack, so it is
                                       kept beside it (a root of the lane), never nested under it */
    STINT_REPAIR_COUNT
};
const char *stint_repair_name(enum stint_repair r);
/* 1 when kind r counts events (or records) that were dropped, not kept: an
 * end that closes nothing, a phase with no model, a flow end with no start,
 * a torn record... (printed apart from repairs, as "dropped");
 * 0 when the event was kept and repaired. */
int stint_repair_is_drop(enum stint_repair r);
/* 1 when a counter series' name is one the Chrome reader makes from Kineto
 * [memory] instants ("[memory] DEVICE Bytes|Total Allocated|Total
 * Reserved", read/chrome_phase.c): a Chrome writer leaves such series out,
 * as the instants it writes make them again when read. */
int stint_counter_from_memory_record(const char *name, size_t len);
/* The kind named name (stint_repair_name), or -1. */
int stint_repair_by_name(const char *name);
/* Whether kind r is on the allow-list of well-known benign drops and repairs
 * that `--strict` skips when `--allow KIND` names it: unbound_flow (Kineto
 * writes flow ends whose start it never wrote) and subns_ts (times finer
 * than 1 ns, truncated as Perfetto does). */
int stint_repair_allowable(enum stint_repair r);

/* JSONL session records that are read and validated but not carried by the
 * model (stint memory reads memory and tensor records itself): counted per
 * kind so that summary and convert can say what they leave out. */
enum stint_unmodelled { STINT_UNMODELLED_OP, STINT_UNMODELLED_TENSOR, STINT_UNMODELLED_MEMORY,
                        STINT_UNMODELLED_GRADIENT, STINT_UNMODELLED_FORK, STINT_UNMODELLED_EDGE,
                        STINT_UNMODELLED_KINDS };

/* The record kind of u ("op", "tensor", ...), static. */
const char *stint_unmodelled_name(enum stint_unmodelled u);


struct stint_process {
    int64_t pid;
    uint32_t name;       /* string id, 0 = unnamed */
    int32_t sort_index;
    uint8_t has_sort_index;
    uint32_t id_text;    /* a synthetic pid: the string it was made from (0: the pid as written) */
};

struct stint_lane {
    int64_t pid;
    int64_t tid;         /* for device lanes: the inv (invocation / stream) */
    uint32_t process;    /* index into processes */
    uint32_t name;       /* thread name, string id */
    int32_t sort_index;
    uint8_t has_sort_index;
    uint8_t clock;       /* enum stint_clock */
    uint32_t track;      /* its thread track */
    uint32_t tid_text;   /* a synthetic tid: the string it was made from (0: the tid as written) */
    int64_t host_tid;    /* device lanes: the host thread of their first span (markers' tid); */
    uint8_t host_tids;   /* 0: none known, 1: all spans from host_tid, 2: several threads
                          * (stint_model_slice_thread tells each span's own) */
    /* Marker device lanes (one per invocation): what the host side says of it. */
    uint32_t hid;        /* the invocation's callable hash as written (string id), 0: none */
    int64_t host_wall_ns; /* its outermost host span (depth 0, same pid, thread and inv), 0: none */
};

struct stint_track {
    uint8_t kind;        /* enum stint_track_kind */
    uint8_t scope;       /* async: enum stint_async_scope */
    uint32_t lane;       /* thread tracks: lane index, else STINT_NO_ID */
    int64_t pid;         /* process/async-process tracks: the pid */
    uint32_t name;       /* async tracks: the first event's name */
    uint32_t cat;        /* async key part */
    uint32_t id;         /* async key part: the id text as a string id */
};

/* One slice: 48 bytes (a model holds millions). Its thread time, which few
 * traces carry, lives in the model's side table (STINT_SLICE_THREAD_TIME;
 * stint_model_slice_tt). */
struct stint_slice {
    int64_t ts_ns;
    int64_t dur_ns;      /* -1: never finished */
    uint32_t track;
    uint32_t name;
    uint32_t cat;
    uint32_t args;       /* first index into args, STINT_NO_ID = none */
    uint32_t depth;      /* after finish */
    uint32_t parent;     /* index in slices after finish, STINT_NO_ID at the root */
    uint32_t seq;        /* input order (slices and E events share it); ties in the sort */
    uint16_t nargs;      /* at most 65535 args per slice; more are dropped and counted */
    uint16_t flags;      /* STINT_SLICE_* */
};

/* One flow arrow between two slices (indexes into slices, after finish). */
struct stint_flow {
    uint32_t slice_out;
    uint32_t slice_in;
};

/* Flow event phases for stint_model_flow(). */
enum stint_flow_phase {
    STINT_FLOW_V1_START = 's', /* binds to the enclosing slice */
    STINT_FLOW_V1_STEP = 't',  /* binds to the enclosing slice */
    STINT_FLOW_V1_END = 'f',   /* binds to the next slice beginning on the thread (enclosing with bp=e) */
    STINT_FLOW_V2 = '2',       /* bind_id on the slice itself (flow_in / flow_out flags) */
};

enum stint_arg_kind { STINT_ARG_INT, STINT_ARG_UINT, STINT_ARG_REAL, STINT_ARG_STRING, STINT_ARG_BOOL, STINT_ARG_JSON };

/* One flattened arg: key "args.a.b" (Perfetto's flat key). REAL keeps the
 * number's text (sval) so it prints exactly as written. */
struct stint_arg {
    uint32_t key;        /* string id of the flat key */
    uint32_t kind;       /* enum stint_arg_kind */
    int64_t ival;        /* INT/UINT/BOOL */
    uint32_t sval;       /* STRING/REAL/JSON: string id */
};

/* Spans that the program's tracer lost before they reached the file (its
 * thread buffers were full), as the file itself reports them: a marker log's
 * `[STINT] v=1 dropped` lines, a JSONL session's `dropped` records, the
 * `metadata.dropped_ranges` of a Chrome trace that libstint wrote. They are
 * not events of the model, and no event stands for them: counts, sums and
 * unions on their threads are low by what they held. After
 * stint_model_finish: one per (pid, tid), in that order. */
struct stint_loss {
    int64_t pid, tid;
    uint64_t count;    /* spans lost (saturating) */
    int64_t first_ns;  /* the lost spans' start times lie in [first_ns, last_ns], in the */
    int64_t last_ns;   /* trace's own time base, when flags has STINT_LOSS_RANGE */
    unsigned flags;    /* STINT_LOSS_RANGE, STINT_LOSS_THREAD (else: thread not known) */
};
#define STINT_LOSS_RANGE 1u
#define STINT_LOSS_THREAD 2u

struct stint_counter_series {
    int64_t pid;
    uint32_t name;       /* "<event name> [id: <id> ]<arg key>" (Perfetto's track name) */
    uint64_t samples;
    double min, max;
    long double sum;     /* (long double: finite samples cannot overflow it) */
    uint32_t first_sample; /* with KEEP_SAMPLES: samples chain head, else STINT_NO_ID */
};

struct stint_counter_sample {
    int64_t ts_ns;
    double value;
    uint32_t series;
};

struct stint_instant_stat {
    uint32_t name;
    uint32_t cat;
    uint8_t kind;        /* track kind the instant lives on */
    uint64_t count;
};

enum {
    STINT_MODEL_KEEP_ARGS = 1u << 0,    /* keep slice args (slices, convert, report) */
    STINT_MODEL_KEEP_SAMPLES = 1u << 1, /* keep every counter sample (counters) */
    STINT_MODEL_LEAN = 1u << 2,         /* X spans as 12-byte records, streamed to the sink (summary) */
    STINT_MODEL_SIZES = 1u << 3,        /* Chrome events are measured into m->sizes, not modelled (sizes.h) */
    /* with KEEP_ARGS, Chrome JSON: of a slice's args only the top-level member
     * "correlation" is kept (args.correlation, `gpu`); the others are skipped
     * unread, so they are neither interned nor counted */
    STINT_MODEL_ARGS_CORRELATION = 1u << 4,
    /* with LEAN: thread instants are counted (m->instants), not kept as
     * slices: 12 bytes each until finish, then forgotten, but on a track
     * with flow events (a flow may bind to one), ordinary slices or E events
     * (an instant after a B's end cuts what is open above it), where they
     * become slices; they reach the span sink only there (summary without
     * filters) */
    STINT_MODEL_LEAN_INSTANTS = 1u << 5,
    /* flow events are counted (m->flow_events), not kept: no arrows are
     * bound, so none is unbound either (gpu, which links kernels to their
     * launches by args.correlation and draws no arrow) */
    STINT_MODEL_FLOWS_COUNTED = 1u << 6,
};

struct stint_model;

/* One thread-track slice as finish() streams it to a span sink: per track in
 * the model's slice order (start, then longest first). level is how many of
 * its ancestors are on its track: the consumer keeps one frame per level,
 * ends the frames at >= level, and when parent_on_top is set the frame at
 * level-1 is its parent (else the parent is elsewhere, e.g. a JSONL parent on
 * another thread). Every thread-track slice is streamed (instants and
 * unfinished spans too), so levels stay consistent for a consumer that skips
 * some. */
struct stint_span_ev {
    int64_t ts_ns;
    int64_t dur_ns;      /* -1: never finished */
    uint32_t track, lane, cat, name;
    uint32_t level;
    uint32_t pair1;      /* lean records: 1 + a dense id of (cat, name), the same for every span
                          * of the pair (a sink may index its rows by it); 0 for other spans */
    uint32_t slice1;     /* slices with explicit parents (STINT_SLICE_EXPLICIT_PARENT): 1 + the
                          * slice's index in the model (a sink may look up its children by it,
                          * on whatever track they are); 0 for other spans */
    uint32_t seq;        /* the slice's input seq (stint_slice.seq; stint_model_slice_thread
                          * finds a device-lane span's thread by it); 0 for lean records */
    uint16_t flags;      /* STINT_SLICE_* */
    uint8_t parent_on_top;
};
typedef void (*stint_span_sink)(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev);
/* A span sink whose work can be split over two threads by track: fork makes
 * a second, empty context for the same sink (called on the finishing thread
 * before the second walker starts); the two walkers take the tracks in turn
 * (heaviest first), each streaming the tracks it takes to its context (the
 * sink's own, or the forked one); join (on the finishing thread, after both
 * walkers are done) folds the second context into the first and frees it;
 * it may read the model but not change it (the flows are bound meanwhile).
 * The sink then sees every track exactly once, each whole and in its own
 * order, but not in track order and some in another context, so its
 * results must not depend on which context a track went to or in what
 * order (per-track or order-free tallies). */
struct stint_span_split {
    void *(*fork)(void *ctx, const struct stint_model *m);
    void (*join)(void *ctx, void *forked, const struct stint_model *m);
    size_t min_spans; /* walk on one thread under this many spans in all */
};

struct stint_intern; /* string table, model.c */
struct stint_lean;   /* lean span records, model_lean.c */
struct stint_sizes;  /* the byte tally of sizes mode (read/sizes.h) */

/* A tally that a reader keeps beside the model, which the model carries
 * without knowing what it is (sizes mode's byte tally is one): it frees it
 * with itself and merges a part's into the whole's in stint_model_merge,
 * through these hooks, and calls nothing else of it. */
struct stint_model_attached_ops {
    void (*free)(void *tally);
    /* src's tally added into dst's; smap maps src's string ids to dst's */
    void (*merge)(void *dst, const void *src, const uint32_t *smap);
};
/* A reader's context for one part of a file read on several threads (the
 * Chrome reader's correlation hook, read/readers.h), which the model
 * carries without knowing what it is: stint_model_merge hands src's to
 * merge once src's strings, lanes and tracks are in dst (smap, lmap, tmap:
 * src's string ids, lanes and tracks by src index, to dst's), which folds
 * it into dst_part (dst's) and frees it; stint_model_free frees one never
 * merged. NULL maps: the same ids. */
struct stint_model_part_ops {
    void (*merge)(void *dst_part, void *src_part, const struct stint_model *dst, const uint32_t *smap,
                  const uint32_t *lmap, const uint32_t *tmap);
    void (*free)(void *part);
};
struct stint_seqmap;  /* a value for some slices, by seq, model.c */
struct stint_open;   /* open B stacks, model.c */

struct stint_model {
    unsigned flags;
    struct stint_intern *strings;
    struct stint_bigarray processes; /* struct stint_process */
    struct stint_bigarray lanes;     /* struct stint_lane */
    struct stint_bigarray tracks;    /* struct stint_track */
    struct stint_bigarray slices;    /* struct stint_slice */
    struct stint_bigarray tts;       /* struct stint_thread_time, ascending seq (THREAD_TIME slices) */
    struct stint_bigarray args;      /* struct stint_arg */
    struct stint_bigarray counters;  /* struct stint_counter_series */
    struct stint_bigarray samples;   /* struct stint_counter_sample (KEEP_SAMPLES) */
    struct stint_bigarray instants;  /* struct stint_instant_stat, per (kind, cat, name) */
    struct stint_bigarray metadata;  /* struct stint_arg: top-level "metadata" keys */
    struct stint_bigarray ends;      /* pending E events until finish (internal) */
    int end_dropped;                 /* the last end was dropped: its args go nowhere (internal) */
    struct stint_open *open;
    uint64_t repairs[STINT_REPAIR_COUNT];
    char *repair_first[STINT_REPAIR_COUNT]; /* first message per kind (owned) */
    uint64_t repair_seq[STINT_REPAIR_COUNT]; /* when each kind's first message was recorded (repair_clock):
                                              * input order for the read's repairs, then the finish's */
    uint64_t repair_clock;
    uint64_t dropped;
    char *dropped_first;   /* first drop message (owned) */
    struct stint_bigarray losses; /* struct stint_loss: what the writer lost, per thread (see there) */
    uint64_t lost;         /* the sum of their counts (saturating) */
    uint64_t events;       /* input events/records seen */
    uint64_t flow_events;  /* Chrome s/t/f flow events and flow bindings (bind_id) read */
    uint64_t unmodelled[STINT_UNMODELLED_KINDS]; /* valid JSONL records the model does not carry */
    struct stint_bigarray flows;     /* struct stint_flow, after finish */
    struct stint_bigarray flow_evs;  /* pending flow events until finish (internal) */
    struct stint_flowkeys *flowkeys; /* flow identities until finish (internal, made on first use) */
    uint64_t seq;          /* next input sequence number */
    int partial;           /* input ended in an error */
    char *error;           /* that error's message (owned) */
    int finished;
    const char *format;    /* "chrome-json", "jsonl", "markers" (static) */
    struct stint_lean *lean;  /* STINT_MODEL_LEAN records until finish */
    struct stint_sizes *sizes; /* STINT_MODEL_SIZES: the byte tally, attached by the reader (read/sizes.h) */
    const struct stint_model_attached_ops *sizes_ops; /* how the model frees and merges it */
    struct stint_seqmap *origins; /* stint_model_slice_thread / _pid (made on first use) */
    struct stint_seqmap *tt_big;  /* side-table durations of STINT_TDUR_BIG (made on first use) */
    stint_span_sink span_sink;
    void *span_sink_ctx;
    const struct stint_span_split *span_split; /* optional (stint_model_set_span_split) */
    void *part_ctx;        /* a part's reader context (stint_model_part_ops), NULL: none */
    const struct stint_model_part_ops *part_ops;
};

/* Records that slice idx (an input index: before finish), on a device-clock
 * lane, came from host thread tid. The lane keeps the first such thread
 * (host_tid, host_tids); a slice from another thread is remembered by its
 * seq, so that stint_model_slice_thread tells each slice's own thread even
 * when several threads feed one device lane (one invocation). */
void stint_model_slice_from_thread(struct stint_model *m, uint32_t idx, int64_t tid);

/* The host thread a slice on a device-clock lane came from (as recorded by
 * stint_model_slice_from_thread; before or after finish): 1 and *tid, or 0
 * when none was recorded (s is not on such a lane, or its reader gave none). */
int stint_model_slice_thread(const struct stint_model *m, const struct stint_slice *s, int64_t *tid);

/* Records that slice idx (an input index: before finish) was begun by an
 * event of process pid. Only slices on a global async track need it: such a
 * track belongs to no process (Perfetto), and its pid is that of its first
 * event; a slice begun by another process is remembered by its seq. */
void stint_model_slice_from_process(struct stint_model *m, uint32_t idx, int64_t pid);

/* The process a slice belongs to (before or after finish): its track's pid,
 * or for a slice on a global async track the pid of the event that began it
 * (stint_model_slice_from_process). The global instant track has none: 0. */
int64_t stint_model_slice_pid(const struct stint_model *m, const struct stint_slice *s);

/* The total of m->unmodelled. */
uint64_t stint_model_unmodelled(const struct stint_model *m);

/* Writes "1 op, 2 memory" (the nonzero kinds of m->unmodelled, in enum
 * order) to f; nothing when there are none. */
void stint_model_put_unmodelled(FILE *f, const struct stint_model *m);

/* Initialises an empty model; flags are STINT_MODEL_*. Returns 0 (out of
 * memory exits, base/xalloc.h). */
int stint_model_init(struct stint_model *m, unsigned flags);
void stint_model_free(struct stint_model *m);

/* Interns len bytes; returns the string id (0 for the empty string). Ids are
 * stable for the model's lifetime. Out of memory aborts the process with a
 * message, exit code 5 (base/xalloc.h: the CLI cannot continue without its
 * string table). */
uint32_t stint_model_intern(struct stint_model *m, const char *s, size_t len);
/* The interned string for id, NUL-terminated; *len_out gets its length if non-NULL. */
const char *stint_model_str(const struct stint_model *m, uint32_t id, size_t *len_out);

/* Process / lane / track lookup-or-create. All return an index. */
uint32_t stint_model_process(struct stint_model *m, int64_t pid);
uint32_t stint_model_lane(struct stint_model *m, int64_t pid, int64_t tid, enum stint_clock clk);
uint32_t stint_model_track_process(struct stint_model *m, int64_t pid);
uint32_t stint_model_track_global(struct stint_model *m);
uint32_t stint_model_track_async(struct stint_model *m, enum stint_async_scope scope, int64_t pid,
                                 uint32_t cat, uint32_t id, uint32_t name);
/* The first synthetic pid or tid (-2^32); later ones count down from it. */
#define STINT_SYNTHETIC_ID0 (-((int64_t)1 << 32))
/* A fresh pid for a string pid (Perfetto interns string pids). Same string -> same pid. */
int64_t stint_model_synthetic_pid(struct stint_model *m, uint32_t name);
int64_t stint_model_synthetic_tid(struct stint_model *m, int64_t pid, uint32_t name);

/* Appends a finished slice (X, an instant, a JSONL span...). Returns its index,
 * or STINT_NO_ID when lean mode kept it as a lean record (no index) or when
 * its ts or end lies outside the kept range (tsparse.h, STINT_TS_LIMIT: the
 * slice is dropped and counted). Thread times outside that range are
 * forgotten (STINT_TS_NONE). Ends, async ends, flows and counter samples
 * outside the range are dropped and counted the same way. */
uint32_t stint_model_add_slice(struct stint_model *m, const struct stint_slice *s);
/* stint_model_add_slice with a thread time tts_ns and thread duration
 * tdur_ns (STINT_TS_NONE: none; a duration without a time is forgotten). A
 * lean record keeps no thread time. */
uint32_t stint_model_add_slice_tt(struct stint_model *m, const struct stint_slice *s, int64_t tts_ns, int64_t tdur_ns);
/* The thread time and thread duration of slice s of m (either may be
 * STINT_TS_NONE). Returns 1 when s has a thread time, else 0 (both NONE). */
int stint_model_slice_tt(const struct stint_model *m, const struct stint_slice *s, int64_t *tts_ns, int64_t *tdur_ns);
/* Gives slice child (an input index, as add returned it; before finish) the
 * explicit parent parent (an input index, or STINT_NO_ID: a root), on any
 * track (STINT_SLICE_EXPLICIT_PARENT): for a reader that learns a slice's
 * parent only after adding it (marker logs: the parent is written after its
 * children). finish() derives depth from the parent chain. */
void stint_model_set_parent(struct stint_model *m, uint32_t child, uint32_t parent);
/* Args for the slice just added: appended args are attached to slice index idx
 * (they must be appended right after that slice, before any other slice). */
void stint_model_add_arg(struct stint_model *m, uint32_t slice, const struct stint_arg *a);

/* B: opens a slice on the lane's thread track (dur -1 until matched); E:
 * records an end event that finish() matches (see the ordering contract
 * above; name 0 = the innermost open B). end returns STINT_NO_ID: the match
 * is only known after finish. */
uint32_t stint_model_begin(struct stint_model *m, uint32_t lane, const struct stint_slice *s);
/* stint_model_begin with the B event's thread time (STINT_TS_NONE: none). */
uint32_t stint_model_begin_tt(struct stint_model *m, uint32_t lane, const struct stint_slice *s, int64_t tts_ns);
uint32_t stint_model_end_cat(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name, uint32_t cat,
                             int64_t tts_ns);
uint32_t stint_model_end(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name,
                         int64_t tts_ns);
/* An arg of the end event just recorded (end or async_end), merged into the
 * slice it closes at finish() (see the ordering contract). Only kept with
 * STINT_MODEL_KEEP_ARGS; must follow that end before any other model call
 * that records an end. */
void stint_model_end_arg(struct stint_model *m, const struct stint_arg *a);
/* Async b/e on a track: e closes the innermost open slice with that name on
 * the track. */
uint32_t stint_model_async_begin(struct stint_model *m, uint32_t track, const struct stint_slice *s);
/* stint_model_async_begin with the begin event's thread time (STINT_TS_NONE: none). */
uint32_t stint_model_async_begin_tt(struct stint_model *m, uint32_t track, const struct stint_slice *s,
                                    int64_t tts_ns);
uint32_t stint_model_async_end(struct stint_model *m, uint32_t track, int64_t ts_ns, uint32_t name);

void stint_model_counter(struct stint_model *m, int64_t pid, uint32_t series_name, int64_t ts_ns,
                         double value);
void stint_model_instant_stat(struct stint_model *m, enum stint_track_kind kind, uint32_t cat,
                              uint32_t name);

/* Records a flow event, bound to slices in finish() (Perfetto's rules):
 * v1 (s/t/f on a thread at ts, identity key from stint_model_flow_key) binds s and t to
 * the slice enclosing ts and f to the next slice beginning at or after ts
 * (the enclosing one when enclosing is set, bp=e); s->t->f chains become
 * arrows. v2: slice (an index returned by add/begin) carries bind key with
 * flow_in/flow_out flags; an in-slice gets an arrow from the last out-slice of
 * that key (so one out can fan out to several ins). Unbound ones are counted
 * as repairs (unbound_flow). */
void stint_model_flow(struct stint_model *m, enum stint_flow_phase phase, uint32_t track, int64_t ts_ns, uint32_t key,
                      int enclosing, uint32_t slice, int flow_in, int flow_out);

/* Bit 63 of a flow id: the rest is a string id (see stint_model_flow_key). */
#define STINT_FLOW_ID_STR (1ULL << 63)
/* The key stint_model_flow takes for a flow identity: v1 events by (cat,
 * name, id), v2 bindings by id alone (cat = name = STINT_NO_ID). id is the
 * number itself when the id's text is a canonical decimal (no sign, no
 * leading zero) below 2^63, else STINT_FLOW_ID_STR | the string id of the
 * text; so two ids are one exactly when their texts are. Keys are dense from
 * 0 and say nothing outside the model. Out of memory exits. */
uint32_t stint_model_flow_key(struct stint_model *m, uint32_t cat, uint32_t name, uint64_t id);

/* Counts one repair of a kind; the first message of each kind is kept
 * (printf-style). */
void stint_model_repair(struct stint_model *m, enum stint_repair kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The kind of the first repair recorded (the read's in input order, then
 * the finish's), or -1 when there is none: what --strict reports. */
int stint_model_first_repair(const struct stint_model *m);
/* The first kind recorded (as stint_model_first_repair) among those whose
 * bit (1 << kind) is in mask, or -1. */
int stint_model_first_kind(const struct stint_model *m, uint64_t mask);
/* Writes `"repairs":{"kind":n,...},"drops":{"kind":n,...}` to f: the
 * nonzero kinds in enum order, kept ones and dropped ones apart
 * (stint_repair_is_drop); the model's other drops are its "dropped" count. */
void stint_model_put_kinds_json(FILE *f, const struct stint_model *m);
/* Bits (1 << kind) of every kept-and-repaired kind, and of every drop kind. */
uint64_t stint_repair_mask_repairs(void);
uint64_t stint_repair_mask_drops(void);
void stint_model_drop(struct stint_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records that the writer lost count spans on thread (pid, tid), their
 * starts in [first_ns, last_ns] (flags: STINT_LOSS_RANGE, STINT_LOSS_THREAD;
 * see struct stint_loss). A count of 0 records nothing. Out of memory exits
 * (base/xalloc.h) like every model allocation. */
void stint_model_loss(struct stint_model *m, int64_t pid, int64_t tid, uint64_t count, int64_t first_ns,
                      int64_t last_ns, unsigned flags);
/* Marks the model partial with an error message (the first one is kept). */
void stint_model_fail(struct stint_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Moves everything src read into dst (both not finished): strings, processes,
 * lanes and tracks are mapped, src's slices and end events come after dst's in
 * input order. Used to join the halves of a file read on two threads; src
 * must be freed afterwards. 0 ok; -1 when src's lean records cannot join
 * dst's (more than 2^24 distinct (cat, name) pairs in all). Out of memory
 * exits (base/xalloc.h). */
int stint_model_merge(struct stint_model *dst, struct stint_model *src);

/* Lean mode, for a reader that decides itself which spans are lean records
 * (the marker reader: a group whose depth tree is its nesting in time):
 * stint_model_lean_pair gives the record pair of (cat, name), UINT32_MAX when
 * the model keeps no lean records (not lean, or KEEP_ARGS) or the pair table
 * is full; stint_model_lean_put appends a span of that pair to host thread
 * lane's records (0 <= dur_ns < 2^40, in range), streamed with flags
 * (STINT_SLICE_*; the same for every record of the model). Such records may
 * share tracks with slices whose parents are explicit: finish() then
 * resolves those first and streams each track's slices and records merged
 * by start, which is the nesting order only where the reader kept the two
 * apart in time (no slice within a record's group's range on its track). */
uint32_t stint_model_lean_pair(struct stint_model *m, uint32_t cat, uint32_t name);
void stint_model_lean_put(struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns, uint32_t pair,
                          uint16_t flags);

/* Puts what a part read in the order finish() wants, while the part is
 * small: its flow events, which a generated or recorded trace often writes
 * well out of time order (an arrow's end after later events). Merged parts
 * are then in order but where they overlap, and finish() sorts them with
 * scratch for those strays only, not for all flow events at once. Nothing
 * else changes; optional. */
void stint_model_presort(struct stint_model *m);

/* Has finish() stream every thread-track slice to fn (see struct
 * stint_span_ev); set it before reading. In lean mode it is the only way to
 * see the lean spans. */
void stint_model_set_span_sink(struct stint_model *m, stint_span_sink fn, void *ctx);
/* Lets a lean finish (STINT_MODEL_LEAN, no KEEP_ARGS) walk the tracks on two
 * threads, the set span sink split as sp says (sp must outlive the finish);
 * NULL or never set: one thread. Results are the same either way: repairs
 * keep their counts and first messages as on one thread. */
void stint_model_set_span_split(struct stint_model *m, const struct stint_span_split *sp);

/* Closes the reading phase: counts unfinished spans, sorts slices, computes
 * depth and parent. Safe to call once; analyses call it through the readers. */
void stint_model_finish(struct stint_model *m);

/* Accessors (valid after finish unless noted). */
static inline size_t stint_model_nslices(const struct stint_model *m) { return m->slices.len; }
static inline const struct stint_slice *stint_model_slice(const struct stint_model *m, size_t i)
{
    return &((const struct stint_slice *)m->slices.data)[i];
}
static inline const struct stint_track *stint_model_track_at(const struct stint_model *m, uint32_t i)
{
    return &((const struct stint_track *)m->tracks.data)[i];
}
static inline const struct stint_lane *stint_model_lane_at(const struct stint_model *m, uint32_t i)
{
    return &((const struct stint_lane *)m->lanes.data)[i];
}
/* Whether t is a thread track of a device-clock lane (marker spans with clk=dev). */
static inline int stint_model_track_device(const struct stint_model *m, const struct stint_track *t)
{
    return t->kind == STINT_TRACK_THREAD && stint_model_lane_at(m, t->lane)->clock == STINT_CLOCK_DEVICE;
}
static inline const struct stint_process *stint_model_process_at(const struct stint_model *m, uint32_t i)
{
    return &((const struct stint_process *)m->processes.data)[i];
}
static inline const struct stint_arg *stint_model_arg_at(const struct stint_model *m, uint32_t i)
{
    return &((const struct stint_arg *)m->args.data)[i];
}

#endif
