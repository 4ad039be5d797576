/* SPDX-License-Identifier: MIT */
/*
 * timing_model.h - the spans of a `[STRACE]` log grouped the way `stint timing`
 * (and the reference `strace_timing`) reads them: invocations keyed by
 * (pid, inv), buckets of invocations by hid, and per invocation the first span
 * of each name.
 *
 * Built by feeding struct stint_mparse_record values (stint_tm_add) and then stint_tm_analyze. Names,
 * hids and attrs are copied into the model: it owns everything it points to.
 * The per-invocation first-of-name lists are kept as records arrive, so the
 * tables need no span array; the spans themselves are kept only on request
 * (TM_KEEP_SPANS: the tree and the Chrome trace need them). Indices are
 * uint32_t: a model holds fewer than 2^32 spans.
 */
#ifndef STINT_CLI_TIMING_MODEL_H
#define STINT_CLI_TIMING_MODEL_H

#include "read/markers_parse.h"
#include "base/umap.h"

#include <stddef.h>
#include <stdint.h>

#define TM_NONE UINT32_MAX

struct stint_tm_span {
    int64_t ts_ns;
    int64_t dur_ns;
    uint64_t tid;
    uint32_t name;  /* string id */
    uint32_t hid;   /* string id of the span's own hid, lowercased */
    uint32_t inv;   /* invocation index */
    uint32_t next;  /* next span of the same invocation, input order */
    uint32_t depth; /* saturated at UINT32_MAX */
    uint32_t dev;   /* 1: attrs contain "clk=dev" */
};

/* First span of one name in one invocation (a copy of its fields). */
struct stint_tm_fon {
    int64_t ts_ns;
    int64_t dur_ns;
    uint32_t name;
    uint32_t depth;
};

struct stint_tm_inv {
    uint64_t pid;
    uint64_t inv;
    uint32_t hid;      /* hid of its first span */
    uint32_t nspans;
    uint32_t first;    /* first span (input order); TM_NONE without TM_KEEP_SPANS */
    uint32_t last;
    int has_root;      /* a depth-0 span was seen; root_* are the first one's */
    uint32_t root_name;
    int64_t root_dur_ns;
    struct stint_tm_fon *fon;       /* first span of each name (sorted by name id after stint_tm_analyze) */
    uint32_t fon_len, fon_cap;
    uint64_t seen_small; /* bit i: name id i (< 64) is in fon */
    struct stint_umap fon_map; /* the names in fon, once it holds many (timing_model.c) */
};

struct stint_tm_bucket {
    uint32_t hid;
    uint32_t n;    /* invocations */
    uint32_t off;  /* into model.bucket_invs: invocation indices sorted by inv */
};

struct stint_tm_model {
    /* strings */
    char *str;            /* arena: NUL-terminated strings */
    size_t str_len, str_cap;
    uint64_t *str_off;    /* id -> offset */
    uint32_t *str_slen;   /* id -> length */
    uint32_t nstr, str_cap_ids;
    uint32_t *str_hash;   /* open addressing: id + 1, 0 empty */
    uint32_t str_hash_cap;

    int keep_spans;
    uint32_t nrecords;    /* spans added (kept or not) */
    struct stint_tm_span *spans;
    uint32_t nspans, spans_cap;
    /* attrs, only when keep_attrs: offsets into attr_text */
    int keep_attrs;
    uint64_t *attr_off;
    uint32_t *attr_len;
    uint32_t attr_cap_ids;
    char *attr_text;
    size_t attr_text_len, attr_text_cap;

    struct stint_tm_inv *invs;
    uint32_t ninvs, invs_cap;
    uint64_t *inv_hash_keys; /* pairs (pid, inv) */
    uint32_t *inv_hash_vals; /* index + 1, 0 empty */
    uint32_t inv_hash_cap;
    uint32_t inv_cache[256];  /* cache: invocation index + 1 by (pid, inv) */
    uint32_t hid_cache[256];  /* cache: hid id + 1 by its first and last bytes */
    uint32_t name_cache[256]; /* cache: name id + 1 by a short key */

    /* after stint_tm_analyze */
    uint32_t *order;         /* invocation indices sorted by (pid, inv) */
    struct stint_tm_bucket *buckets;      /* ordered: most invocations first, stable */
    uint32_t nbuckets;
    uint32_t *bucket_invs;
    int oom;
};

enum {
    TM_KEEP_SPANS = 1, /* keep every span (the tree, the Chrome trace) */
    TM_KEEP_ATTRS = 2  /* also keep each span's attrs text (implies spans) */
};

/* Empty model; flags: TM_KEEP_*. */
void stint_tm_init(struct stint_tm_model *m, int flags);
void stint_tm_free(struct stint_tm_model *m);

/* Adds one record. Returns 0, or -1 when out of memory (m->oom is set). */
int stint_tm_add(struct stint_tm_model *m, const struct stint_mparse_record *r);

/* Groups and orders. Returns 0 or -1 on OOM. */
int stint_tm_analyze(struct stint_tm_model *m);

const char *stint_tm_str(const struct stint_tm_model *m, uint32_t id);
uint32_t stint_tm_str_len(const struct stint_tm_model *m, uint32_t id);
/* The id of an existing string, or TM_NONE. */
uint32_t stint_tm_str_find(const struct stint_tm_model *m, const char *s, size_t n);

/* The first span named `name` in invocation `inv`, or NULL. */
const struct stint_tm_fon *stint_tm_fon_find(const struct stint_tm_model *m, uint32_t inv, uint32_t name);

/* Attrs of a span ("" unless keep_attrs). */
struct stint_mparse_text stint_tm_attrs(const struct stint_tm_model *m, uint32_t span);

/* Bucket label as the reference gives it: "decode" for the first bucket when it
 * has more than one invocation, "prefill" for a bucket of one, else the first
 * 8 hex digits of the hid. Writes into buf (>= 9 bytes), returns it. */
const char *stint_tm_bucket_label(const struct stint_tm_model *m, uint32_t b, char *buf);

#endif
