/* SPDX-License-Identifier: MIT */
/*
 * sizes.h - what a Chrome JSON trace's bytes are spent on (`stint sizes`).
 *
 * A tally the Chrome reader fills when the model is made with
 * STINT_MODEL_SIZES: instead of modelling an event, the reader hands its
 * text's length here, by phase and by (cat, name), with the length of its
 * args value and of each top-level member of that value. Every length is of
 * the text as written (inflated, for gzip): an event from its '{' to its
 * '}', a member of an event or of its args object from its key's '"' to
 * its value's last byte, a top-level key of the trace object the same way. Names, categories,
 * phases and keys are the model's string ids (the reader interns them), so
 * the tallies of a file read in parts are merged by text.
 *
 * Memory grows with distinct (cat, name) pairs, phases and keys, never with
 * events.
 */
#ifndef STINT_CLI_SIZES_H
#define STINT_CLI_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "base/umap.h"

/* A row: events and bytes under one key (a phase, a (cat, name), an args
 * key, a top-level key of the trace object). */
struct stint_size_row {
    uint32_t a, b;       /* phase: (ph, 0); name: (cat, name); key: (key, 0) */
    uint64_t events;     /* events (args keys: objects holding the key) */
    uint64_t bytes;      /* their text */
    uint64_t args_bytes; /* of those bytes, their args values (phases and names) */
    uint64_t phases;     /* names: bit k = the k-th phase row (k < 63), bit 63 = a later one */
};

struct stint_size_table {
    struct stint_size_row *rows;
    size_t n, cap;
    struct stint_umap at; /* (a << 32 | b) -> row */
};

struct stint_sizes {
    struct stint_size_table phases, names, event_keys, args_keys, top_keys;
    uint64_t events, event_bytes, args_bytes;  /* events that passed the filters */
    uint64_t filtered_events, filtered_bytes;  /* events the filters left out */
    uint64_t text_bytes;  /* every byte the reader went over (the whole input when not partial) */
    uint64_t gzip_bytes;  /* the compressed file's size when the input was gzip, else 0 */
};

/* Gives a model made with STINT_MODEL_SIZES its tally (m->sizes, freed and
 * merged with the model through m->sizes_ops) unless it has one: every
 * reader's entry point calls it, so a model needs nothing else to be
 * measured. Out of memory ends the process (exit STINT_EXIT_NOMEM), as the
 * model does. */
struct stint_model;
void stint_sizes_attach(struct stint_model *m);

/* A new, empty tally. Out of memory ends the process (base/xalloc.h). */
struct stint_sizes *stint_sizes_new(void);
void stint_sizes_free(struct stint_sizes *z);

/* Counts one event of phase ph (string id) and (cat, name) whose text is
 * bytes long, args_bytes of it its args value. Out of memory ends the
 * process (exit STINT_EXIT_NOMEM), as the model does. */
void stint_sizes_event(struct stint_sizes *z, uint32_t ph, uint32_t cat, uint32_t name, uint64_t bytes,
                       uint64_t args_bytes);
/* Counts one member of an event object (ph, name, ts, args ...): its key
 * (string id) and the member's text length. */
void stint_sizes_event_key(struct stint_sizes *z, uint32_t key, uint64_t bytes);
/* Counts one top-level member of an args object: its key (string id) and
 * the member's text length. */
void stint_sizes_arg_key(struct stint_sizes *z, uint32_t key, uint64_t bytes);
/* Counts a top-level member of the trace object other than traceEvents. */
void stint_sizes_top_key(struct stint_sizes *z, uint32_t key, uint64_t bytes);

/* Adds src's counts into dst; smap maps src's string ids to dst's (the
 * model merge's map). */
void stint_sizes_merge(struct stint_sizes *dst, const struct stint_sizes *src, const uint32_t *smap);

#endif
