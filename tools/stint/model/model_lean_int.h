/* SPDX-License-Identifier: MIT */
/*
 * model_lean_int.h - what lean mode's two files share (model_lean.c keeps
 * the records, model_lean_walk.c walks them at finish): the record layout
 * and the iteration over a lane's segments. Not for the rest of the model
 * (model_int.h says what it may call).
 *
 * A record is (start ns, duration ns << 24 | pair), where pair indexes a
 * table of (cat, name) string-id pairs; in a lane it is kept in 12 bytes,
 * its start as a signed 32-bit offset from the current base of its
 * segment. A record whose start lies 2^31 ns (2.1 s) or more from that base
 * is preceded by a marker in the segment (12 bytes too) that makes its
 * start the base from there on.
 */
#ifndef STINT_CLI_MODEL_LEAN_INT_H
#define STINT_CLI_MODEL_LEAN_INT_H

#include "model/model_int.h"
#include "base/hmem.h"
#include "base/umap.h"

#define PAIR_BITS 24
#define PAIR_MASK ((UINT64_C(1) << PAIR_BITS) - 1)
#define DUR_MAX ((int64_t)((UINT64_C(1) << (64 - PAIR_BITS)) - 1))

/* A record as the ordering and the walk see it (16 bytes). */
struct lean_rec {
    int64_t ts_ns;
    uint64_t dp; /* dur_ns << PAIR_BITS | pair */
};

/* A record as a segment keeps it (12 bytes): its start from the current
 * base; or a marker (toff BASE_MARK) whose dp is the new base. */
struct lean_pk {
    int32_t toff;
    uint64_t dp;
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(struct lean_pk) == 12, "a kept record takes 12 bytes");
#define BASE_MARK INT32_MIN

/* A lane's segment: records and markers (slots) in input order, or, after a
 * full sort, in slice order in the sorted array (which owns the memory: cap
 * 0). Its memory is a block of cap * 12 bytes, caps chosen so that blocks
 * are powers of two (hmem.h's shared blocks are): 32 bytes (2 slots: a
 * lane of one span takes no more) to 64 KiB. 40 bytes each; a lane's list of
 * them grows from one (most lanes of a many-thread trace hold one segment). */
struct lean_seg {
    struct lean_pk *r;
    int64_t base;      /* of slot 0 */
    int64_t cur;       /* the base of the next slot appended */
    uint32_t len;      /* slots (at most 64 KiB / 12 in a block; a view: under 2^32) */
    uint32_t nrec;     /* records (slots but markers) */
    uint32_t cap;      /* slots the block holds (0: a view) */
};

#define SEG_MAX_BYTES ((size_t)64 << 10)
#define SEG_FIRST_BYTES ((size_t)32)

struct lean_lane {
    struct lean_seg *segs;
    size_t nsegs, cap;
    /* during its walk (stint_i_lean_order): the records taken out of the segments
     * to put them in order, sorted (hmem.h), to be merged back as it goes */
    struct lean_rec *strays;
    size_t nstrays;
    /* after a full sort: the sorted array the segments are views of */
    void *sorted;
    size_t sorted_bytes;
};

struct lean_frame {
    int64_t ts_ns, dur_ns;
    uint32_t name;
    uint16_t flags;
    uint8_t dev; /* device work (stint_i_cat_is_device_work) with a known duration */
};

/* Whether category cat is device work (model.h: a queue, not a call stack):
 * its text is kernel, gpu_memcpy, gpu_memset, memcpy, memset or
 * mtia_ccp_events, in any case. */
int stint_i_cat_is_device_work(const struct stint_model *m, uint32_t cat);

/* Counts one STINT_REPAIR_STREAM_OVERLAP: device work name [ts, end) came
 * before the device work prev [pts, pend) on its track had ended. */
void stint_i_stream_overlap(struct stint_model *m, uint32_t name, int64_t ts, int64_t end, uint32_t prev,
                            int64_t pts, int64_t pend);

/* A one-entry cache of stint_i_cat_is_device_work: a walk's spans of one
 * category come in runs. cat1 is the category looked at + 1 (0: none). */
struct devcat {
    uint32_t cat1;
    int is;
};

/* stint_i_cat_is_device_work(m, cat) through cache c. */
static inline int devcat_is(const struct stint_model *m, struct devcat *c, uint32_t cat)
{
    if (c->cat1 != cat + 1) {
        c->cat1 = cat + 1;
        c->is = stint_i_cat_is_device_work(m, cat);
    }
    return c->is;
}

/* An ordinary slice on a host thread track in lean mode (stint_i_lean_note):
 * which one (seq), and how many records its lane held when it came. */
struct lean_note {
    uint32_t seq, lane;
    uint64_t before;
};

struct lean_overlap { /* a B/E-related overlap, reported after its track (as finish() does) */
    int64_t ts_ns, end_ns;
    uint32_t name, parent_name;
};

struct stint_lean {
    struct lean_lane *lanes;
    size_t nlanes;
    uint32_t *pcat, *pname; /* by pair */
    size_t npairs, pcap;
    struct stint_umap pairs; /* (cat << 32 | name) -> pair */
    struct pcache_ent {     /* a direct-mapped cache in front of the hash */
        uint64_t key;
        uint32_t pair1;     /* pair + 1, 0 = empty */
    } pcache[1024];
    size_t total;
    /* STINT_MODEL_LEAN_INSTANTS: thread instants by lane, as records of
     * dp = seq << PAIR_BITS | pair (no duration), until finish settles them */
    struct lean_lane *ilanes;
    size_t nilanes;
    uint64_t ninst;
    struct lean_note *notes; /* in seq order */
    size_t nnotes, ncap;
    uint16_t rec_flags; /* the records' STINT_SLICE_* flags as streamed (0: STINT_SLICE_COMPLETE) */
};

static inline int64_t rec_dur(const struct lean_rec *r) { return (int64_t)(r->dp >> PAIR_BITS); }

/* The bytes of a segment of cap records (its block). */
static inline size_t seg_bytes(uint32_t cap) { return (size_t)cap * sizeof(struct lean_pk); }

static inline void seg_free(struct lean_seg *sg)
{
    if (sg->cap)
        stint_hmem_free(sg->r, seg_bytes(sg->cap));
    sg->r = NULL;
    sg->len = sg->nrec = 0;
    sg->cap = 0;
}

/* The model's slice order among lean records: start, then longer first. */
static inline int rec_before(const struct lean_rec *a, const struct lean_rec *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : rec_dur(a) > rec_dur(b);
}

/* The lane's records in input order, markers applied: rec_next gives the
 * next one (1) or says there is none left (0). */
struct rec_iter {
    const struct lean_lane *ll;
    size_t g, k;
    int64_t base;
};

static inline struct rec_iter rec_iter_at(const struct lean_lane *ll)
{
    return (struct rec_iter){ll, 0, 0, ll->nsegs ? ll->segs[0].base : 0};
}

static inline int rec_next(struct rec_iter *it, struct lean_rec *r)
{
    for (;;) {
        if (it->g == it->ll->nsegs)
            return 0;
        const struct lean_seg *sg = &it->ll->segs[it->g];
        if (it->k == sg->len) {
            if (++it->g < it->ll->nsegs)
                it->base = it->ll->segs[it->g].base;
            it->k = 0;
            continue;
        }
        const struct lean_pk *x = &sg->r[it->k++];
        if (x->toff == BASE_MARK) {
            it->base = (int64_t)x->dp;
            continue;
        }
        *r = (struct lean_rec){it->base + x->toff, x->dp};
        return 1;
    }
}

/* Grows array p of *cap elements of elem bytes to hold need (capacity
 * doubled, 16 at first); out of memory exits (xalloc.h). */
static inline void *stint_i_lean_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    p = stint_xreallocarray(p, nc, elem);
    *cap = nc;
    return p;
}

/* Puts the lane's records in slice order for its walk (model_lean.c says
 * how): the segments in order, or ll->strays taken out of them, sorted. */
void stint_i_lean_order(struct lean_lane *ll);

#endif
