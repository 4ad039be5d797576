/* SPDX-License-Identifier: MIT */
/*
 * write_chrome_int.h - what the Chrome writer's files share (write/ internal).
 */
#ifndef STINT_CLI_WRITE_CHROME_INT_H
#define STINT_CLI_WRITE_CHROME_INT_H

#include "write/writers.h"

#include <stdio.h>

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

#endif
