/* SPDX-License-Identifier: MIT */
/*
 * writers.h - the output formats `stint convert` (and the report) write from
 * one finished trace model. One writer per format; each writes to a FILE the
 * caller opened and returns the count of things it had to change or leave
 * out, so the caller can say so. None of them closes the FILE.
 */
#ifndef STINT_CLI_WRITERS_H
#define STINT_CLI_WRITERS_H

#include "model/filters.h"
#include "model/model.h"

#include <stdint.h>
#include <stdio.h>

struct stint_write_stats {
    uint64_t slices;         /* slices written */
    uint64_t moved_overlap;  /* Chrome: spans moved to an extra track to keep tracks strictly nested */
    uint64_t reparented;     /* Chrome: spans left on their track that a reader nests under another
                                parent (the model's is on another thread, or was moved) */
    uint64_t concurrent_device; /* Chrome: device phases laid on a sub-lane of their device lane because
                                   they run at the same time as a sibling (normal data, not a repair) */
    uint64_t skipped;        /* not representable in the format (counted by kind below) */
    uint64_t skipped_instants, skipped_async, skipped_unfinished, skipped_counters;
    uint64_t renamed;        /* names changed to fit the format (folded ';', markers spaces) */
    uint64_t flows;          /* flow arrows written (Chrome) */
    uint64_t skipped_flows;  /* flow arrows the format cannot hold (Chrome: those it cannot bind exactly) */
    int64_t origin_ns;       /* what was subtracted from every host-clock ts */
    int64_t device_origin_ns; /* what was subtracted from every device-clock ts (Chrome, JSONL) */
    /* JSONL and markers: what has no place in the format */
    uint64_t lost_args;          /* spans whose args were left out (JSONL keeps step and measured) */
    uint64_t lost_thread_times;  /* spans whose thread time (tts, tdur) was left out */
    uint64_t lost_names;         /* thread and process names left out */
    /* JSONL: one pid and one clock per session, three span kinds */
    int64_t pid;                 /* the session's pid */
    uint64_t merged_spans, merged_procs; /* spans of (and processes other than) pid, written under it */
    uint64_t merged_counters;    /* counter series of other processes, written under pid */
    uint64_t device_spans;       /* device-clock spans written as host spans */
    uint64_t renumbered;         /* threads written with a fresh tid (from renumber_from on) so that
                                    they merge with no other thread */
    int64_t renumber_from;
    uint64_t kind_changed;       /* spans whose category is not function, op or module (span_kind
                                    function instead) */
    uint64_t unfinished_written; /* unfinished spans written (a span_start without span_end) */
    /* Chrome with a window (stint_write_opts.window) */
    uint64_t window_out;         /* slices, counter samples and flow arrows wholly outside the window */
    uint64_t clipped;            /* slices cut at the window's start or end (args "stint_clipped") */
    uint64_t window_flows;       /* flow arrows across its edge left out: an end outside the window or on a
                                    slice cut at its start (the other inside) */
    uint64_t carried_samples;    /* counter values carried to the window's start (a series' last sample before it) */
    uint64_t samples;            /* Chrome: counter samples written (carried ones included) */
    /* Chrome with o->select */
    uint64_t filtered_out;       /* slices and counter samples the filters left out */
    uint64_t filtered_flows;     /* flow arrows with an end the filters left out */
    /* folded */
    uint64_t zero_spans;         /* spans of zero length: no weight, so in no line of their own */
    uint64_t est_bytes;          /* the output's size, known before it is written */
    /* the writer's losses (struct stint_loss) carried: as JSONL dropped records, marker loss lines, or a
     * Chrome input's metadata */
    uint64_t losses_written;     /* lost spans whose report was written */
};

struct stint_write_opts {
    int rebase;              /* subtract the earliest ts (Chrome, JSONL) */
    /* called once the output's size is known, before anything is written
     * (folded: st->est_bytes), so that the caller can warn about or refuse
     * a huge output: nonzero means write nothing (the writer then returns
     * 1, st filled); NULL: none */
    int (*before_write)(const struct stint_write_stats *st, void *ctx);
    void *ctx;
    /* Chrome: write only what overlaps [t0, t1) (trace ns, each lane in its
     * own clock, as filters.h's --time-range): slices cut to the window
     * keep their place in the nesting and say so in their args, counters
     * start with the value each series had at t0; 0: everything */
    int window;
    int64_t t0, t1;
    /* Chrome: write only the slices that pass this (filters.h, its time
     * range unset: that is the window) and the counter samples of the
     * processes and names it takes; NULL: all */
    const struct stint_filter *select;
    /* Chrome, optional: the args of a slice that the model does not keep
     * (convert's spill, read/args_spill.h): ext_args(ext_ctx, m, s, &n, &sm)
     * gives s's own args, flattened, whose strings are sm's (n = 0: none);
     * the model's args of s (an E's) are written after them, an E's value in
     * place of its begin's on a key both have, as the model merges them */
    const struct stint_arg *(*ext_args)(void *ctx, const struct stint_model *m, const struct stint_slice *s,
                                        size_t *n, const struct stint_model **sm);
    void *ext_ctx;
    /* Chrome, optional, with ext_args: s's own args already as this writer
     * writes them (the members of its "args" object, without the braces):
     * ext_text(ext_ctx, s, &text, &len, &bad) returns 1 with them (len 0:
     * none; bad: bytes in them written as U+FFFD, for stint_out_bad_utf8),
     * copied as they are, or 0 when ext_args gives them */
    int (*ext_text)(void *ctx, const struct stint_slice *s, const char **text, size_t *len, uint64_t *bad_utf8);
};

/* Chrome Trace Event JSON (object form): M names and sort indexes, X spans
 * (B for unfinished ones), i instants, b/e async, C counters, s/f flows; ts
 * and dur in microseconds with exactly three decimals. Every thread track
 * is strictly nested: a span that would overlap its parent improperly goes
 * to an extra track named "<thread> (overlap N)" and is counted in
 * moved_overlap. Each flow arrow between thread-track slices is written so
 * that it binds to the same two slices again, or counted in skipped_flows
 * (an end on an async track, an arrow back in time, or slices sharing the
 * end's start both before and after it). With o->window, slices that do not
 * overlap the window are left out and the others cut to it (an unfinished
 * span stays a B, at the window's start when it began before); an arrow is
 * written only when both its slices start inside the window; each counter
 * series first gets its last value before the window, at the window's
 * start. With o->select, only what passes it (an arrow: both its slices).
 * Every count is in st. */
int stint_write_chrome(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st);
/* Folded stacks ("a;b;c <self ns>", one line per call path with self > 0),
 * for flamegraph.pl, inferno and speedscope; ';' inside names becomes ':',
 * a line break or a tab ' ', any other control byte (NUL included) or DEL
 * and a byte that starts no valid UTF-8 sequence the text \xHH (so the SVG
 * that flamegraph.pl makes stays well-formed XML); each changed name is
 * counted in st->renamed. The size grows with the square of the nesting
 * depth (each line repeats its whole path): it is computed from the call
 * tree first and handed to o->before_write; returns 1 when that refused
 * (nothing written), else 0 (-1: out of memory). */
int stint_write_folded(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st);
/* A stint/session/1 JSONL session: meta (the input's metadata carried
 * over), span_start/span_end (a parent's start before its children's,
 * ends innermost first at one time; unfinished spans without span_end),
 * counter records. Instants and async slices have no JSONL record and are
 * skipped (counted); so are args, thread times and names; processes, device
 * lanes and categories that the format cannot tell apart are counted. */
int stint_write_jsonl(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                      struct stint_write_stats *st);
/* [STRACE] v=1 marker lines, one per finished span on a thread track, with
 * its depth; device-clock lanes get clk=dev. inv, hid and a device span's
 * host tid come from the args a marker log gave (0 without them); the other
 * scalar args become k=v attributes (objects and arrays are counted in
 * lost_args). In names and attribute keys every byte <= 0x20 and 0x7f, and
 * the '[' of a "[STRACE]", become '_' (counted in renamed), as do values'. */
int stint_write_markers(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                        struct stint_write_stats *st);

/* ---- the input's trace metadata (model.h: m->metadata), for the writers */

/* a's key without its reader's prefix ("meta." of a JSONL meta line,
 * "json_metadata." of Chrome's top-level metadata); *len gets its length. */
const char *stint_meta_key(const struct stint_model *m, const struct stint_arg *a, size_t *len);
/* The first metadata arg whose key (without prefix) is key, or NULL. */
const struct stint_arg *stint_meta_find(const struct stint_model *m, const char *key);
/* 1 and *v when a (may be NULL) is an integer or a string of decimal digits, else 0. */
int stint_meta_int(const struct stint_model *m, const struct stint_arg *a, int64_t *v);
/* Whether key names a clock reading at ts 0 (clock_ or origin_, monotonic_ns
 * or realtime_ns), which a rebase of the times moves. */
int stint_meta_is_anchor(const char *key, size_t len);
/* Writes a's value as JSON (typed; REAL and JSON as their text). */
void stint_put_arg_json(FILE *f, const struct stint_model *m, const struct stint_arg *a);

/* A key the writer writes itself, with its value (sval, else ival). */
struct stint_meta_own {
    const char *key;
    const char *sval;
    int64_t ival;
};
/* What stint_put_meta_rest leaves to the writer. */
struct stint_meta_rest {
    const struct stint_meta_own *own; /* an input key among these: left out when its value
                                         is the same, else written as "source_<key>" */
    size_t nown;
    const struct stint_arg *const *taken; /* args the writer wrote already (left out) */
    size_t ntaken;
    int64_t shift_ns;                 /* added to clock anchors (stint_meta_is_anchor) */
};
/* Writes `,"key":value` for every other metadata arg, in input order; keys
 * as the reader flattened them ("a.b", "a[0]"), which it flattens back to
 * the same key. */
void stint_put_meta_rest(FILE *f, const struct stint_model *m, const struct stint_meta_rest *r);

/* Counts slice s as left out (st->skipped) by what it is: an instant (on
 * any track), an async slice, or an unfinished span. */
void stint_write_count_left_out(const struct stint_model *m, const struct stint_slice *s,
                                struct stint_write_stats *st);

/* The first tid for threads a writer makes up (extra tracks, device lanes,
 * renumbered threads): 1000000, or above every lane's tid when one is
 * higher, leaving room for room more (lanes with a tid that high are
 * passed over). */
int64_t stint_write_spare_tid(const struct stint_model *m, int64_t room);

/* Writes ns as microseconds with exactly three decimals ("-1.500"). */
void stint_put_us3(FILE *f, int64_t ns);
/* The rebase origins: host, the earliest ts of the host clock (slices off
 * device-clock lanes, counter samples); device, the earliest ts of a slice
 * on a device-clock lane; each 0 when there is none. Device-clock times are
 * not host-aligned, so each clock is rebased by its own origin (one origin
 * over both left host times unrebased under a device clock that starts near
 * 0, or put device times below 0). */
struct stint_origins {
    int64_t host, device;
};
struct stint_origins stint_model_origins(const struct stint_model *m);

/* The origin of slice s's clock. */
static inline int64_t stint_slice_origin(const struct stint_model *m, const struct stint_slice *s,
                                         const struct stint_origins *o)
{
    return stint_model_track_device(m, stint_model_track_at(m, s->track)) ? o->device : o->host;
}

#endif
