/* SPDX-License-Identifier: MIT */
/*
 * write_chrome_int.h - what the Chrome writer's files share (write/ internal).
 */
#ifndef STINT_CLI_WRITE_CHROME_INT_H
#define STINT_CLI_WRITE_CHROME_INT_H

#include "write/writers.h"
#include "base/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where a window cut a slice (the clip of stint_i_chrome_put_args). */
#define STINT_I_CLIP_START 1u
#define STINT_I_CLIP_END 2u

/* Writes `,"args":{...}` of slice s: its own args (from o->ext_args when
 * set, else the model's) and, with ext_args, the model's (an E's) merged in
 * (an E value in place of the first arg of its key, the others after);
 * clip (STINT_I_CLIP_*) adds "stint_clipped" saying where a window cut it.
 * Nothing when there is nothing to write. */
void stint_i_chrome_put_args(FILE *f, const struct stint_model *m, const struct stint_slice *s, unsigned clip,
                             const struct stint_write_opts *o);

/* ---- an event's text (write_chrome_line.c) ---- */

/* An event made in memory, then written with one call: stdio's cost per
 * call (a score of calls an event) was a sixth of a conversion's
 * instructions. */
struct stint_i_line {
    char *p;
    size_t len, cap;
};

/* Room for n more bytes on b. */
static inline char *stint_i_line_room(struct stint_i_line *b, size_t n)
{
    if (b->cap - b->len < n)
        b->p = stint_xgrow(b->p, &b->cap, b->len + n, 1, 4096);
    return b->p + b->len;
}

/* n bytes at s on b. */
static inline void stint_i_line_put(struct stint_i_line *b, const char *s, size_t n)
{
    if (!n)
        return; /* (b may have no memory yet) */
    memcpy(stint_i_line_room(b, n), s, n);
    b->len += n;
}

#define STINT_I_LINE_LIT(b, lit) stint_i_line_put((b), (lit), sizeof(lit) - 1)

/* v in decimal on b (stint_out_i64's text). */
void stint_i_line_i64(struct stint_i_line *b, int64_t v);

/* ns as microseconds with three decimals on b (stint_put_us3's text). */
void stint_i_line_us3(struct stint_i_line *b, int64_t ns);

/* The model's string id as a JSON string literal on b
 * (stint_out_json_model_str's text, its U+FFFD bytes counted the same
 * way). */
void stint_i_line_model_str(struct stint_i_line *b, const struct stint_model *m, uint32_t id);

/* The string of the synthetic pid last written (stint_i_put_pid). */
struct stint_i_pid_memo {
    int64_t pid;
    uint32_t text;
    int valid;
};

/* Writes a pid: the number, or for a synthetic pid (one made for a pid
 * written as a string) that string, so that reading the output back makes
 * the same process again rather than meet the reserved range (model.h).
 * proc: the process's index when the caller knows it, else STINT_NO_ID
 * (then pm remembers the last one looked up). */
void stint_i_put_pid(FILE *out, const struct stint_model *m, int64_t pid, uint32_t proc,
                     struct stint_i_pid_memo *pm);

/* Writes a tid of lane l (its own or a spare one), the same way. */
void stint_i_put_tid(FILE *out, const struct stint_model *m, const struct stint_lane *l, int64_t tid);

/* `"pid":P,"tid":T` for lane l written as tid. */
void stint_i_put_lane_ids(FILE *out, const struct stint_model *m, const struct stint_lane *l, int64_t tid);

/* stint_i_put_lane_ids's text on b. */
void stint_i_line_lane_ids(struct stint_i_line *b, const struct stint_model *m, const struct stint_lane *l,
                           int64_t tid);

#endif
