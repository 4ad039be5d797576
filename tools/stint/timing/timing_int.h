/* SPDX-License-Identifier: MIT */
/*
 * timing_int.h - what the views of `stint timing` share (timing layer
 * internal): the invocations a view keeps after --warmup, Python's exact
 * division, the JSON pieces every view writes, the per-callable loop and
 * its --warmup messages, and the name lookups of the table and the rounds.
 *
 * timing_out.c defines these; timing_table.c, timing_rounds.c,
 * timing_tree.c and timing_chrome.c are the views. Nothing here is seen
 * outside timing/.
 */
#ifndef STINT_CLI_TIMING_INT_H
#define STINT_CLI_TIMING_INT_H

#include "timing/timing_out.h"
#include "write/textout.h"
#include "base/tsparse.h"

#include <string.h>

/* The invocation indices of bucket b (sorted by inv). */
#define STINT_TOUT_BUCKET_INVS(m, b) ((m)->bucket_invs + (m)->buckets[b].off)

/* The invocations of bucket b left after warmup: *n of them. */
static inline const uint32_t *stint_tout_kept(const struct stint_tout_ctx *c, uint32_t b, uint32_t *n)
{
    uint32_t all = c->m->buckets[b].n, w = c->warmup < all ? c->warmup : all;
    *n = all - w;
    return STINT_TOUT_BUCKET_INVS(c->m, b) + w;
}

/* Python's int / int for a non-negative exact sum. */
static inline double stint_tout_div_exact(stint_i128 sum, uint64_t n)
{
    if (sum >= 0 && sum < ((stint_i128)1 << 53))
        return (double)(int64_t)sum / (double)n;
    return (double)((long double)sum / (long double)n);
}

/* A C string as a JSON string (the timing views' ASCII form). */
static inline void stint_tout_json_cstr(FILE *f, const char *s)
{
    stint_out_json_ascii(f, s, strlen(s));
}

/* An interned string (a name or hid) as a JSON string: whole, NUL bytes included. */
static inline void stint_tout_json_id(FILE *f, const struct stint_tm_model *m, uint32_t id)
{
    stint_out_json_ascii(f, stint_tm_str(m, id), stint_tm_str_len(m, id));
}

/* A double in JSON: 3 decimals (nanosecond resolution for microseconds),
 * trailing zeros trimmed; non-finite values as null. */
void stint_tout_json_num(FILE *f, double v);
/* Summary of a list of ns values: mean, sample stdev, min, max (JSON object). */
void stint_tout_json_stats(FILE *f, const int64_t *v, uint32_t n);
/* `{"hid": .., "label": .., "invocations": k, "warmup_dropped": d` of bucket b. */
void stint_tout_callable_head(const struct stint_tout_ctx *c, uint32_t b, uint32_t k);
/* "callable hid=<hid>", the hid escaped as a name is. */
void stint_tout_put_hid(FILE *f, const struct stint_tm_model *m, uint32_t hid);

/* The text views' first line when --warmup left no invocation at all. */
void stint_tout_nothing_left_head(const struct stint_tout_ctx *c);
/* In the place of bucket b's table or tree when --warmup dropped all of its
 * invocations: which ones (runs of consecutive inv of one pid, the first 8
 * runs), then a blank line as after every callable. */
void stint_tout_dropped_bucket(const struct stint_tout_ctx *c, uint32_t b);
/* Runs one per-callable view: the JSON list `"callables": [...]`, or the text
 * of every callable, or the reference's message when there is none. */
void stint_tout_each_callable(const struct stint_tout_ctx *c, void (*json_one)(const struct stint_tout_ctx *, uint32_t),
                              void (*text_one)(const struct stint_tout_ctx *, uint32_t));

/* The leaf of interned name `id` (after its last '.'); *len its length. */
const char *stint_tout_leaf_of(const struct stint_tm_model *m, uint32_t id, size_t *len);
/* The span that names a rounds column: `<root>.<suffix>` (suffix "" for the
 * root itself), the root being the reference's fixed name (simpler_run, later
 * chip.run), else the invocation's own root. NULL when the invocation has
 * none. */
const struct stint_tm_fon *stint_tout_named_span(const struct stint_tm_model *m, uint32_t inv, const char *suffix);

#endif
