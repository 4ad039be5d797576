/* SPDX-License-Identifier: MIT */
/*
 * model_int.h - what the model's own files share; not for readers or
 * analyses (they use model.h).
 *
 * The model is one set of files, one job each: model.c (lifecycle, repairs,
 * read-side queries), model_intern.c (strings and the key maps),
 * model_lanes.c (processes, lanes, tracks), model_add.c (what readers add),
 * model_flow.c (flow identities and binding), model_finish.c and
 * model_walk.c (the finish: order, nesting, B/E matching), model_merge.c
 * (joining parts read on two threads), model_lean.c and model_lean_walk.c
 * (lean mode), model_loss.c (the writer's losses). What a reader calls per
 * event and what it calls per event in turn stays in one file or is static
 * inline here, so that splitting the files costs no call.
 */
#ifndef STINT_CLI_MODEL_INT_H
#define STINT_CLI_MODEL_INT_H

#include "model/model.h"
#include "base/hash.h"
#include "base/tsparse.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <string.h>

/* Appends one zeroed element to a and returns it; out of memory exits
 * (xalloc.h). Every append of the model goes through it. */
static inline void *stint_i_xpush(struct stint_bigarray *a)
{
    if (__builtin_expect(a->len == a->cap, 0) && stint_bigarray_reserve(a, 1) != 0)
        stint_die_nomem();
    char *p = (char *)a->data + a->len * a->elem;
    memset(p, 0, a->elem);
    a->len++;
    return p;
}

/* ---- key maps (model_intern.c) ---------------------------------------------- */

/* A map from a 3-word key to a uint32 value: open addressing, linear
 * probing, at most three quarters full. */
struct kmap_slot {
    uint64_t k[3];
    uint32_t v;
    uint32_t used;
};
struct kmap {
    struct kmap_slot *slots;
    size_t cap, len;
};

static inline uint64_t stint_i_kmap_hash(const uint64_t k[3])
{
    return stint_hash_fmix64(k[0] ^ stint_hash_fmix64(k[1] ^ stint_hash_fmix64(k[2] + 7)));
}

/* Doubles t (64 slots when empty). */
void stint_i_kmap_grow(struct kmap *t);

/* Returns the slot for key (a, b, c), made (used, v 0) when new; *found
 * says whether it was there. */
static inline struct kmap_slot *stint_i_kmap_get(struct kmap *t, uint64_t a, uint64_t b, uint64_t c, int *found)
{
    if ((t->len + 1) * 4 >= t->cap * 3)
        stint_i_kmap_grow(t);
    uint64_t k[3] = {a, b, c};
    size_t j = stint_i_kmap_hash(k) & (t->cap - 1);
    while (t->slots[j].used) {
        if (t->slots[j].k[0] == a && t->slots[j].k[1] == b && t->slots[j].k[2] == c) {
            *found = 1;
            return &t->slots[j];
        }
        j = (j + 1) & (t->cap - 1);
    }
    *found = 0;
    t->slots[j].used = 1;
    memcpy(t->slots[j].k, k, sizeof k);
    t->len++;
    return &t->slots[j];
}

/* The maps that find what readers name while they stream (until the model
 * is freed; merging reads them too). */
struct stint_open {
    struct kmap procs, lanes, tracks, counters, instants, synth;
    int64_t next_synthetic;
    uint32_t global_track;
};

/* Doubles an open-addressing table of ids (*table: *tcap slots, each id + 1
 * or 0 for empty; none yet: 1024 slots) and places ids 0..n-1 in it again,
 * each by linear probing from home(ctx, id, mask). */
void stint_i_table_regrow(uint32_t **table, size_t *tcap, size_t n, size_t (*home)(const void *, size_t, size_t),
                          const void *ctx);

/* A new string table holding only id 0 (""). */
struct stint_intern *stint_i_intern_new(void);
/* Frees a string table (NULL: nothing). */
void stint_i_intern_free(struct stint_intern *t);
/* How many strings m's table holds (ids 0..n-1). */
size_t stint_i_nstrings(const struct stint_model *m);

/* ---- lanes (model_lanes.c) --------------------------------------------------- */

/* The synthetic id of key (k0, name, k2) in m's map of them, made (the next
 * number) when new, which *isnew then says. */
int64_t stint_i_synth_id(struct stint_model *m, uint64_t k0, uint32_t name, uint64_t k2, int *isnew);

/* ---- thread times (model.c) ---------------------------------------------------- */

/* Records thread time tts_ns and duration tdur_ns for slice s (its seq set,
 * the model's highest yet) and flags it STINT_SLICE_THREAD_TIME. */
void stint_i_tt_put(struct stint_model *m, struct stint_slice *s, int64_t tts_ns, int64_t tdur_ns);
/* An E event with thread time end_tts_ns closed s: its thread duration is
 * the difference, when s has a thread time and the E one. */
void stint_i_tt_end(struct stint_model *m, const struct stint_slice *s, int64_t end_tts_ns);
/* src's thread times after dst's, their seqs moved by seq0 (stint_model_merge:
 * every seq of src's past dst's); src's table is freed. */
void stint_i_tt_merge(struct stint_model *dst, struct stint_model *src, uint64_t seq0);

/* ---- events (model_add.c) ------------------------------------------------------ */

/* A pending E event, matched in finish(). */
struct end_ev {
    int64_t ts_ns;
    int64_t tts_ns;
    uint32_t seq;
    uint32_t track;
    uint32_t name;
    /* Its args (KEEP_ARGS), STINT_NO_ID = none: index in m->args of a count
     * record (key 0, INT, ival = n) followed by the n args. The count lives
     * in m->args so that this record stays small. */
    uint32_t args;
    uint32_t cat; /* 0: none; else only a B of this category is closed */
};

/* Drops an end, flow or counter event whose ts lies outside the kept range
 * and counts it; returns 0. */
int stint_i_event_ts_drop(struct stint_model *m, const char *what, uint32_t name, int64_t ts_ns);

/* 1 when an end, flow or counter timestamp is in the kept range; else drops
 * the event and counts it (0). */
static inline int stint_i_event_ts_ok(struct stint_model *m, const char *what, uint32_t name, int64_t ts_ns)
{
    if (__builtin_expect(stint_ts_in_range(ts_ns), 1))
        return 1;
    return stint_i_event_ts_drop(m, what, name, ts_ns);
}

/* A pending flow event, bound in finish(). */
struct flow_ev {
    int64_t ts_ns;
    uint32_t track;
    uint32_t key;
    uint32_t slice; /* v2: input index of the slice */
    uint32_t seq;
    uint32_t bound; /* v1, lean mode: what the track walk bound it to (slice, STINT_LEAN_SLICE or STINT_NO_ID) */
    uint8_t phase;
    uint8_t enclosing;
    uint8_t in, out;
};

/* One flow identity (stint_model_flow_key) and the table that finds it: a
 * key's id is its index in keys (model_flow.c says how the table is laid
 * out). */
struct flowkey {
    uint32_t cat, name;
    uint64_t id;
    int64_t last_ts; /* the start of its last event so far (stint_i_flow_seen) */
};

struct stint_flowkeys {
    struct stint_bigarray keys; /* struct flowkey, by key */
    uint32_t *table;            /* key + 1, 0 = empty; tcap slots, a power of two >= 16 */
    size_t tcap;
    int unordered;              /* some key's events are not in time order in flow_evs (stint_i_flow_seen) */
};

/* Notes that the next event of key (in flow_evs order) starts at ts: a key
 * whose events come in time order in flow_evs is bound in that order
 * (model_flow.c), without putting all events in order first. */
static inline void stint_i_flow_seen(struct stint_flowkeys *f, uint32_t key, int64_t ts)
{
    struct flowkey *k = &STINT_BA_AT(&f->keys, struct flowkey, key);
    if (ts < k->last_ts)
        f->unordered = 1;
    else
        k->last_ts = ts;
}

/* Frees the flow identities (NULL: nothing). */
void stint_i_flowkeys_free(struct stint_flowkeys *f);

/* ---- repairs (model.c) ------------------------------------------------------------ */

/* The repairs of the finish's walkers when two run (stint_model_finish):
 * counted per walker, each kind's first message being that of the lowest
 * track the walker met it on (its first there), and added to the model
 * after both, the lower track's message first: counts and first messages
 * come out as on one thread, which walks the tracks in order. */
struct repair_log {
    uint64_t n[STINT_REPAIR_COUNT];
    char *first[STINT_REPAIR_COUNT];
    size_t first_track[STINT_REPAIR_COUNT];
};
/* Sends the calling thread's repairs to l from now on (NULL: to the model
 * again). */
void stint_i_repair_log_to(struct repair_log *l);
/* The track the calling thread's walker is on now (what first_track keeps). */
void stint_i_repair_log_track(size_t track);
/* Adds the two walkers' logs to m (the lower track's first message first)
 * and frees their messages. */
void stint_i_repair_logs_join(struct stint_model *m, struct repair_log *a, struct repair_log *b);

/* ---- lean mode (model_lean.c, model_lean_walk.c) ------------------------------- */

/* Keeps s as a lean record when lean mode is on and s qualifies (a complete
 * span on a host thread track whose duration and (cat, name) pair fit).
 * Returns 1 when kept (the caller assigns no index), 0 when s must become an
 * ordinary slice. Out of memory exits like every model allocation. */
int stint_i_lean_add(struct stint_model *m, const struct stint_slice *s);
/* Notes an ordinary slice s (its seq assigned) that lean mode could not keep
 * as a record, when it lies on a host thread track and may tie with records
 * (not B-made, not an instant): how many records its lane held when it came
 * decides, at an exact tie in start and duration, which came first (records
 * keep no sequence number). No-op outside lean mode. */
void stint_i_lean_note(struct stint_model *m, const struct stint_slice *s);
/* The start times of lane's lean records, sorted (malloc'd, *n of them; NULL
 * when none): for the rare checks of the B/E matching, before the lane's
 * walk. Out of memory exits like every model allocation. */
int64_t *stint_i_lean_starts(const struct stint_model *m, uint32_t lane, size_t *n);
/* Whether any lean record was kept (lean finish needed). */
int stint_i_lean_active(const struct stint_model *m);
/* Moves src's lean records and notes into dst (src is being merged into dst):
 * smap maps src string ids, lmap src lanes to dst lanes, seq0 is what src's
 * sequence numbers are moved by. 0 ok, -1 out of memory. */
int stint_i_lean_merge(struct stint_model *dst, struct stint_model *src, const uint32_t *smap, const uint32_t *lmap,
                       uint64_t seq0);
void stint_i_lean_free(struct stint_model *m);
/* Lean mode, at the start of finish (parts merged, nothing more added):
 * frees the lookup of (cat, name) pairs (the walks need only the pairs);
 * with STINT_MODEL_LEAN_INSTANTS, the thread instants kept on a track with
 * flow events, ordinary slices or E events become slices (their seq, dur 0,
 * no thread time; v2 flow events' input indexes move past them), the others
 * are forgotten (m->instants counted them). */
void stint_i_lean_finish_begin(struct stint_model *m);

/* The losses' part of stint_model_finish (model_loss.c): takes a Chrome
 * trace's losses from its metadata (libstint's `dropped_ranges`, or a flight
 * recorder's `lost_in_thread_buffers`), then merges the losses into one per
 * thread, sorted by (pid, tid), threads not known last. */
void stint_i_losses_finish(struct stint_model *m);

/* One walker of the finish (stint_model_finish runs one, or two that take
 * the tracks in turn): the span sink it streams to and its scratch, reused
 * across tracks. Zero-initialize; free with stint_i_walker_free. */
struct lean_frame;
struct lean_overlap;
struct stint_i_walker {
    stint_span_sink fn; /* NULL: nothing is streamed */
    void *ctx;
    struct lean_frame *frames;
    size_t fcap;
    struct lean_overlap *ovl;
    size_t novl, ocap;
};
void stint_i_walker_free(struct stint_i_walker *w);
/* The lean records lane holds (what its walk will stream). */
size_t stint_i_lean_count(const struct stint_model *m, uint32_t lane);
/* Lean finish of thread track t: merges its ordinary slices sl[a..b)
 * (sorted, B/E already matched) with the lane's lean records in slice order,
 * nests them with Perfetto's rule, counts overlap repairs, streams each to
 * w's sink, binds the track's v1 flow events fe[idx[0..nfe)] (in ts order;
 * sets their bound field) and frees the lane's records. Touches only track
 * t's slices, flow events and records, and w: two walkers may run at once
 * on different tracks (repairs aside, see stint_model_finish). */
void stint_i_lean_track(struct stint_model *m, struct stint_i_walker *w, uint32_t t, size_t a, size_t b,
                        struct flow_ev *fe, const uint32_t *idx, size_t nfe);

/* Streams the finished (not lean) model's thread-track slices to the sink. */
void stint_i_stream_finished(struct stint_model *m);
/* The same for a model whose lean records share tracks with slices that
 * have explicit parents (stint_model_lean_put): after finish() has nested
 * and resolved the slices, each thread track's slice events (in
 * stint_i_stream_finished's order) merged by start with its records' lean
 * walk, a slice first only when it starts before the record. */
void stint_i_stream_mixed(struct stint_model *m);

/* ---- the finish (model_finish.c, model_walk.c, model_flow.c) ----------------------- */

/* Where each track's items start when n items of size bytes, whose
 * uint32_t track field is at offset off, are grouped by track: an array of
 * ntracks + 1 offsets (the last is n), malloc'd. Out of memory exits. */
size_t *stint_i_track_starts(const void *items, size_t n, size_t size, size_t off, size_t ntracks);

/* For each input index (the order slices were appended in, which is seq
 * order), the slice's index now (after finish moved them): n entries,
 * malloc'd. Out of memory exits. */
uint32_t *stint_i_input_positions(const struct stint_model *m);

/* Counts an E (or async e) event that closes nothing. */
void stint_i_end_unmatched(struct stint_model *m, const struct end_ev *ev);

/* What the finish's track walkers share (struct finish_walker). */
struct finish_share {
    struct stint_model *m;
    struct end_ev *ends;         /* sorted by track: track t's are [estart[t], estart[t + 1]) */
    const size_t *estart;
    const size_t *start;         /* each track's slices: [start[t], start[t + 1]) */
    int lean;
    struct flow_ev *lfe;         /* lean: v1 flow events, by track through lidx/lstart */
    const uint32_t *lidx;
    const size_t *lstart;
    const uint32_t *order;       /* the tracks in the order they are taken (NULL: 0, 1, ...) */
    size_t n;                    /* tracks */
    size_t next;                 /* the next one to take (atomic) */
};

/* One walker: its sink and scratch, and what it found. */
struct finish_walker {
    struct finish_share *sh;
    struct stint_i_walker w;
    int any_explicit;
    int logged;                  /* repairs go to log (two walkers) */
    struct repair_log log;
};

/* Takes tracks until none is left: nests them, matches their E events
 * (those that match nothing counted as repairs) and (lean) streams them.
 * Touches only the tracks' own slices, ends and flow events, the walker
 * and the repair counts (its log when logged). The _thread form is for
 * pthread_create. */
void stint_i_walk_tracks(struct finish_walker *W);
void *stint_i_walk_tracks_thread(void *W);

/* The order two walkers take the tracks in (heaviest first: slices and lean
 * records, so that they end together), or NULL when one walks them all: no
 * split sink, too few spans, or E events that carry args (merging those
 * appends to the model's args). */
uint32_t *stint_i_walk_split_order(const struct stint_model *m, const size_t *start, const struct end_ev *ends,
                                   size_t nends);

/* The lean flow events put in order for the track walks and the binding
 * (model_flow.c says how): lidx holds each track's indexes in (ts, seq)
 * order (track t's are [lstart[t], lstart[t + 1])); the binding takes them
 * as they stand (as_is) or in the order ord (NULL: they are in it); last
 * is the binding's scratch. With a thread of its own (threaded), the walks
 * may start once ready is set (under mu). */
struct flow_prep {
    struct stint_model *m;
    size_t n, ntracks;
    uint32_t *lidx;
    size_t *lstart;
    uint32_t *ord, *last;
    int as_is;
    int threaded, ready;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};
/* Fills fp (m, n, ntracks and threaded set); the _thread form is for
 * pthread_create. */
void stint_i_flow_prep(struct flow_prep *fp);
void *stint_i_flow_prep_thread(void *fp);
/* The size of the binding's scratch (flow_prep's last) for m's flow keys. */
size_t stint_i_flow_last_bytes(const struct stint_model *m);

/* Binds the pending flow events to slices (after nesting; start[] as in
 * struct finish_share, or NULL when the v1 events carry their binding in
 * bound) and frees them: each key's events taken in (ts, seq) order, from
 * fe[ord[0]], fe[ord[1]], ... when ord is given; fe as it stands when as_is;
 * else sorted in place first. last: from flow_prep (freed here), or NULL. */
void stint_i_bind_flows(struct stint_model *m, const size_t *start, const uint32_t *ord, int as_is, uint32_t *last);

/* stint_i_bind_flows of a lean model (whose walks bound the v1 events) on a
 * thread of its own (stint_i_bind_flows_thread, for pthread_create). */
struct bind_job {
    struct stint_model *m;
    const uint32_t *ord;
    int as_is;
    uint32_t *last;
};
void *stint_i_bind_flows_thread(void *bind_job);

#endif
