/* SPDX-License-Identifier: MIT */
/*
 * json_shape.h - skipping JSON objects by the shapes of ones already checked.
 *
 * The Chrome reader skips one "args" object per event, and a trace's args
 * come in few shapes: the same keys, strings and punctuation, with other
 * numbers (the 1 GB test trace has 884 shapes among 3.48 M objects). A shape
 * is an object with each run of digits collapsed to one '0': the object's
 * skeleton. A cache records the skeletons of objects the fast skip of json.h
 * accepted; an object whose skeleton, up to one of its '}', equals a recorded
 * one is skipped there without validating it again, which takes a fraction
 * of the validating walk's instructions.
 *
 * Why that gives what the fast skip gives: only objects of printable ASCII
 * (0x20-0x7E) without a backslash are recorded. An object with the same
 * skeleton has the same bytes but for its digits, and a digit run (non-empty)
 * wherever the recorded one has one. So its strings end where the recorded
 * object's do, and digits inside a string are plain characters; outside
 * strings digits only occur in numbers, whose signs, points and exponents are
 * the recorded ones; what can still differ is a leading zero (`05`), which
 * JSON allows in a fraction or an exponent but not in a number's integer part,
 * and each shape records which of its runs are integer parts. An object that
 * has a leading zero there is not taken (the fast skip then decides). The
 * same nesting and tokens end the object at the same '}', and the fast skip,
 * which accepts a subset of what the general skip does and counts no
 * leniency, would have accepted it. Bytes past the window end are read as
 * zeros, which no recorded object holds, so an object cut by the window end
 * never matches.
 *
 * The shape path needs AVX-512 (BW, DQ, VBMI and VBMI2: byte permutes and
 * compression, 64-bit multiplies for the hash); elsewhere, and when
 * STINT_JSON_SHAPES=0, STINT_JSON_SKIP or STINT_NO_AVX2 is set,
 * stint_i_jshape_new() gives NULL and callers use the fast skip as before
 * (STINT_JSON_SHAPES=collide, for tests, gives every shape the same hash, so
 * that each lookup goes by the full compare). Memory is bounded (a few
 * hundred KiB per cache; the cache starts over when full); a cache whose
 * lookups mostly miss stops looking for a while. One cache per thread:
 * nothing here is shared.
 * Not a public header.
 */
#ifndef STINT_CLI_JSON_SHAPE_H
#define STINT_CLI_JSON_SHAPE_H

#include <stdint.h>

struct stint_jshape;

/* A new, empty cache; NULL where the shape path does not run (above) or
 * memory is short. */
struct stint_jshape *stint_i_jshape_new(void);

/* Frees c (NULL is fine). */
void stint_i_jshape_free(struct stint_jshape *c);

/* Skips the object at p (*p == '{') in the window [p, end), which is followed
 * by STINT_JSON_PAD readable bytes: by its shape when c knows it, else by the
 * fast skip of json.h (recording the object's shape when it qualifies).
 * Returns the position after the object, or NULL where the fast skip gives up
 * (the caller then runs the general skip). c may be NULL: the fast skip. */
const char *stint_i_jshape_skip(struct stint_jshape *c, const char *p, const char *end);

/* What the cache did so far (tests and measurements). */
struct stint_jshape_stats {
    uint64_t lookups, hits, added, resets, dormant;
};
void stint_i_jshape_stats(const struct stint_jshape *c, struct stint_jshape_stats *out);

#endif
