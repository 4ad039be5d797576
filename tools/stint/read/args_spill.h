/* SPDX-License-Identifier: MIT */
/*
 * args_spill.h - a Chrome read's slice args kept out of memory: each
 * slice's args object is copied, as its text, to a temporary file while the
 * trace is read (readers.h, args_fn), and flattened again, one slice at a
 * time, when a writer asks for it (writers.h, ext_args). Memory: per
 * track, the list of its chunks (12 bytes per 64 KiB of its args text); the
 * tracks' write buffers (at most 8 MiB in all); 64 chunks read back (at
 * most 4 MiB, more only for longer args); one slice's args at a time.
 *
 * Invariants: the file lies under $TMPDIR (else /tmp) and is unlinked as
 * soon as it is made; it is written through a 1 MiB buffer (one write per
 * MiB, never one per event) and read back a 64 KiB chunk per call; args
 * read back flatten exactly as the reader would have flattened them into
 * the model (the same walk, chrome_args.c).
 */
#ifndef STINT_CLI_ARGS_SPILL_H
#define STINT_CLI_ARGS_SPILL_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

struct stint_args_spill;

/* A new, empty spill with its temporary file; NULL when the file cannot be
 * made (errno set). */
struct stint_args_spill *stint_args_spill_new(void);

/* readers.h's args_fn: copies slice idx's args text [a, b) to the spill
 * (ctx: the spill). A write error is kept and told by _done. */
void stint_args_spill_take(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b);

/* Ends the writing: writes what the buffers hold. Returns 0, or -1 (errno
 * set) when a write failed. */
int stint_args_spill_done(struct stint_args_spill *sp);

/* writers.h's ext_args: slice s's args from the spill (ctx), flattened into
 * a scratch model (*sm, whose strings they name), valid until the next call;
 * NULL and *n = 0 when it had none. */
const struct stint_arg *stint_args_spill_get(void *ctx, const struct stint_model *m, const struct stint_slice *s,
                                             size_t *n, const struct stint_model **sm);

/* 0, or the errno of a read back that failed (its slice then had no args
 * written: the output is not whole). */
int stint_args_spill_failed(const struct stint_args_spill *sp);

/* How many bytes of args text the spill holds. */
uint64_t stint_args_spill_bytes(const struct stint_args_spill *sp);

/* How many args read back were left out so far: those past a slice's
 * 65535th, which the model would not have kept either (it counts them as
 * dropped while it reads; here they are met only as slices are written). */
uint64_t stint_args_spill_dropped(const struct stint_args_spill *sp);

/* Frees the spill and closes its file (NULL: nothing). */
void stint_args_spill_free(struct stint_args_spill *sp);

#endif
