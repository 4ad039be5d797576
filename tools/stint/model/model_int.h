/*
 * model_int.h - what model.c and model_lean.c share; not for readers or
 * analyses (they use model.h).
 */
#ifndef STINT_CLI_MODEL_INT_H
#define STINT_CLI_MODEL_INT_H

#include "model/model.h"

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

#endif
