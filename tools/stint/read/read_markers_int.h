/* SPDX-License-Identifier: MIT */
/*
 * read_markers_int.h - what the marker reader's files share: the reading
 * context (read_markers.c) and the records the depth tree is built from
 * (read_markers_depth.c).
 *
 * Invariants: every kept record has one struct stint_mrec, in input order,
 * naming its slice (an input index into m->slices, whose ts and dur it does
 * not copy) and its group, one per (pid, tid, inv, clock) in the order the
 * groups first came; so 12 bytes per record, and the group table grows with
 * (thread, invocation) pairs, not with records. A lean read keeps 8 more
 * bytes per record (struct stint_mpend) and makes slices only of the
 * groups that cannot be lean records (read_markers_depth.c).
 */
#ifndef STINT_CLI_READ_MARKERS_INT_H
#define STINT_CLI_READ_MARKERS_INT_H

#include "model/model.h"
#include "model/filters.h"

#include <stddef.h>
#include <stdint.h>

/* One record as the depth tree needs it. */
struct stint_mrec {
    uint32_t idx;   /* the slice's input index (a lean read: its name until the slices are made) */
    uint32_t gid;   /* its group (struct stint_mgroup) */
    uint32_t depth; /* saturated at UINT32_MAX - 1 */
};

/* A record kept back (a lean read, struct stint_mctx.lean): its times
 * (its name is in its struct stint_mrec, its lane its group's), until the
 * links say whether its group becomes lean records or slices. 8 bytes: the
 * start as an offset from the start of the first record of its page of
 * MPEND_PAGE records (stint_mctx.pbase), the duration as is; either one
 * that does not fit 32 bits is MPEND_WIDE, its value in stint_mctx.wts or
 * .wdur. Written in record order only (stint_i_mpend_put). */
struct stint_mpend {
    int32_t ts;   /* the start less pbase[k / MPEND_PAGE] */
    uint32_t dur; /* MPEND_WIDE: 2^32 - 1 ns (4.3 s) or more */
};
_Static_assert(sizeof(struct stint_mpend) == 8, "a pending record takes 8 bytes");
#define MPEND_WIDE UINT32_MAX
#define MPEND_WIDE_TS INT32_MIN
#define MPEND_PAGE_BITS 16
#define MPEND_PAGE ((size_t)1 << MPEND_PAGE_BITS)

/* A pending record's start or duration that does not fit 32 bits. */
struct stint_mwide {
    size_t k; /* the record */
    int64_t v;
};

/* The wide values of one field, in record order. */
struct stint_mwides {
    struct stint_mwide *v;
    size_t n, cap;
};

/* The records of one pid, tid, inv and clock. */
struct stint_mgroup {
    uint64_t pid, tid, inv;
    uint32_t dev; /* clk=dev */
    uint32_t n;   /* records (scratch while linking) */
};

struct stint_mctx {
    struct stint_model *m;
    struct stint_mrec *recs; /* every kept record, in input order */
    size_t nrecs, rcap;
    /* a lean read (a lean model without args nor sizes): no record is a
     * slice yet; pend[k] is record k's (NULL once the slices are made) */
    int lean;
    struct stint_mpend *pend;
    int64_t *pbase; /* per page of MPEND_PAGE records: its first record's start */
    size_t pcap;
    struct stint_mwides wts, wdur;
    struct stint_mgroup *groups;
    size_t ngroups, gcap;
    uint32_t *gslot;         /* open addressing over groups: gid + 1, 0 empty */
    size_t gslots;           /* a power of two, or 0 */
    uint32_t last_gid;       /* the group of the record before (UINT32_MAX: none) */
    int saw_dev;             /* a clk=dev record was read */
    /* the lane of the record before (lane_ok: set), and names already
     * interned, direct-mapped by length and end bytes (id1: 1 + the id) */
    int64_t lane_pid, lane_tid;
    int lane_dev, lane_ok;
    uint32_t lane;
    struct {
        uint32_t id1, len;
    } names[256];
    /* the lane and group of the last record of each thread seen lately,
     * direct-mapped by (pid, tid) (lane1, gid1: 1 + the lane, the group; 0
     * not known, lane1 0: an empty entry): a log
     * interleaves its threads line by line, so the record before is of
     * another thread, but a thread's next record is mostly of its group */
    struct mthread {
        uint64_t pid, tid, inv;
        uint32_t dev, lane1, gid1;
    } threads[1024];
    const char *path;
    const struct stint_filter *filter; /* sizes mode: the events' filter, or NULL */
    /* a lean read: readers.h's lean_seq_fn and its ctx (NULL: none) */
    void (*seq_fn)(void *ctx, const struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns,
                   uint32_t name, uint32_t seq);
    void *seq_ctx;
    uint32_t clk[2], none, attrs;      /* sizes mode: the string ids of "host", "dev", "" and "attrs" */
};

/* Makes room in c->recs for need records, doubling (hmem.h memory: on a
 * big input 2 MiB pages, which fault in some 50 times cheaper per byte than
 * malloc's 4 KiB ones); out of memory exits. */
void stint_i_mrecs_room(struct stint_mctx *c, size_t need);

/* The group of (pid, tid, inv, dev), made on first use. */
uint32_t stint_i_mgroup(struct stint_mctx *c, uint64_t pid, uint64_t tid, uint64_t inv, uint32_t dev);

/* Appends src's records and groups to dst's (a part read after dst's: its
 * slices start at input index slice0), then frees src's. */
void stint_i_mctx_append(struct stint_mctx *dst, struct stint_mctx *src, uint32_t slice0);

/* Sets the depth tree's parents of c's records (read_markers.c's head says
 * how) and counts the children that lie outside their depth parent. */
void stint_i_markers_link_depth(struct stint_mctx *c);

/* Writes pending record k (c->nrecs: records are written in order; room
 * made) as [ts, ts + dur). */
void stint_i_mpend_put(struct stint_mctx *c, size_t k, int64_t ts, int64_t dur);

/* The value of a wide field of record k (every MPEND_WIDE has its entry). */
int64_t stint_i_mwide(const struct stint_mwides *w, size_t k);

/* The start of pending record k. */
static inline int64_t stint_i_mpend_ts(const struct stint_mctx *c, size_t k)
{
    int32_t t = c->pend[k].ts;
    return t != MPEND_WIDE_TS ? c->pbase[k >> MPEND_PAGE_BITS] + t : stint_i_mwide(&c->wts, k);
}

/* The duration of pending record k. */
static inline int64_t stint_i_mpend_dur(const struct stint_mctx *c, size_t k)
{
    uint32_t d = c->pend[k].dur;
    return d != MPEND_WIDE ? (int64_t)d : stint_i_mwide(&c->wdur, k);
}

/* A lean read: makes pending record k a slice on lane (the next input
 * index) and returns its index. */
uint32_t stint_i_markers_slice(struct stint_mctx *c, size_t k, uint32_t lane);

/* Frees what c holds (not c). */
void stint_i_mctx_free(struct stint_mctx *c);

#endif
