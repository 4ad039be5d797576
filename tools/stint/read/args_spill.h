/* SPDX-License-Identifier: MIT */
/*
 * args_spill.h - a Chrome read's slice args kept out of memory: each
 * slice's args object goes to a temporary file as its text while the trace
 * is read (readers.h, args_fn); when the writer asks for a slice's args
 * they are read back and rendered as the Chrome writer writes args
 * (writers.h, ext_text), or, for a slice still open when read (a B: its
 * E's args merge in), flattened again into a scratch model (ext_args).
 * Memory: per track, the list of its chunks (12 bytes per 64 KiB of its
 * args text); the tracks' write buffers (at most 8 MiB in all); the file's
 * writing blocks (4 MiB); 64 chunks read back (at most 4 MiB, more only
 * for longer args); one slice's args at a time.
 *
 * Invariants: the file lies under $TMPDIR (else /tmp) and is unlinked as
 * soon as it is made; it is written a MiB per write, never one per event
 * (on a thread of its own, base/bgwrite.h, when the process may use two),
 * and read back a 64 KiB chunk per call; args rendered are the bytes the
 * Chrome writer writes from the model's args, and args flattened are the
 * model's (the same walk, chrome_args.c).
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

/* readers.h's args_fn: slice idx's args text [a, b) to the spill (ctx: the
 * spill), marked for rendering when it is written, or, for a slice still
 * open (a B or an async begin: its end's args merge in when it is
 * written), for flattening. A write error is kept and told by _done. */
void stint_args_spill_take(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b);

/* readers.h's args_part and args_part_ops: a part of a split read takes
 * its slices' args into a spill of its own (its own temporary file, ctx
 * unused); parts merge in input order, their files kept open, and at the
 * end into the spill of stint_args_spill_new. */
void *stint_args_spill_part(void *ctx);
extern const struct stint_model_part_ops stint_args_spill_part_ops;

/* Ends the writing: writes what the buffers hold. Returns 0, or -1 (errno
 * set) when a write failed. */
int stint_args_spill_done(struct stint_args_spill *sp);

/* writers.h's ext_args: slice s's args from the spill (ctx), when they were
 * kept as read (stint_args_spill_text returned 0), flattened into a scratch
 * model (*sm, whose strings they name), valid until the next call; NULL and
 * *n = 0 when it had none. */
const struct stint_arg *stint_args_spill_get(void *ctx, const struct stint_model *m, const struct stint_slice *s,
                                             size_t *n, const struct stint_model **sm);

/* writers.h's ext_text: slice s's args from the spill (ctx), rendered as
 * the Chrome writer writes them (stint_i_chrome_args_render): 1 with *text,
 * *len (valid until the next call; *len 0: none) and *bad_utf8 (bytes in
 * them written as U+FFFD); 0 for a slice that was open when read
 * (stint_args_spill_get flattens its args). Args past a slice's 65535th
 * are counted each time (stint_args_spill_dropped). */
int stint_args_spill_text(void *ctx, const struct stint_slice *s, const char **text, size_t *len, uint64_t *bad_utf8);

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
