/* SPDX-License-Identifier: MIT */
/*
 * read_markers.c - [STRACE] v=1 marker logs into the model.
 *
 * The record grammar and the splitting of glued records, torn-record and
 * unknown-version counting live in markers_parse.{c,h} (shared with
 * `stint timing`); this file maps records onto the model: a host record is a
 * span on lane (pid, tid); a device record (clk=dev in its attrs) keeps its
 * own clock on lane (pid, inv) labelled device, so it is never nested or
 * unioned with host spans. cat is "". hid, inv, the written depth and each
 * k=v attr become args when the model keeps args. A torn record is counted
 * (repair torn_record) and reported once as "K of N records incomplete".
 * libstint's loss lines become the model's losses (struct stint_loss).
 *
 * The call tree comes from the written depth, not from time containment
 * (markers_link_depth): within one (pid, tid, inv) and one clock, a record
 * at depth d is the child of the record at depth d - 1 that encloses it in
 * the log. Host records are written when their span ends (post-order: the
 * parent follows its children), device records parent first (the host
 * writes device_wall, then its phases); each group is read both ways and
 * the reading whose links agree with time more often wins (host: post-order
 * on a tie), then every link it makes is kept, in time or not.
 * Linked records and depth-0 records get explicit parents
 * (STINT_SLICE_EXPLICIT_PARENT), so device phases that run at the same time
 * stay siblings under device_wall, never nested in one another nor counted
 * as overlapping; a record that links to nothing nests by time as before.
 * A child outside its depth parent's interval keeps the depth tree and is
 * counted (repair depth_outside_parent, the first one named). A device
 * record never gets a host parent: the clocks differ. The groups and links
 * are read_markers_depth.c's.
 *
 * A lean model (summary; no args, not sizes) keeps each record back (8
 * bytes, struct stint_mpend, besides its 12 for the links) until the links
 * are made, then keeps the groups that nest as they are linked as lean
 * records and makes slices of the others only (read_markers_depth.c): a
 * slice is 48 bytes, and finish sorts and resolves the explicit parents of
 * every one of them.
 *
 * A plain log of 32 MB and more, read for a model with two threads or more,
 * is read in two halves (cut after a line end: no record crosses one), the
 * second on a thread of its own into a model of its own that is merged
 * after the first (stint_model_merge), its records' slice indexes moved
 * past the first half's; byte offsets in messages stay the file's. The
 * links are made once every record is in, so the split changes no output.
 * A half that meets a device record gives the split up and the log is read
 * again on one thread (a device lane's host thread, hid and origins do not
 * go through a merge).
 */
#include "read/readers.h"

#include "model/filters.h"
#include "read/markers_parse.h"
#include "read/read_markers_int.h"
#include "read/sizes.h"
#include "base/hash.h"
#include "base/selftrace.h"
#include "base/threads.h"
#include "base/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* sizes mode: counts each blank-separated token of text (k=v, or k alone)
 * under its k, into the event keys (args 0) or the args keys (args 1). */
static void size_tokens(struct stint_model *m, struct stint_mparse_text text, int args)
{
    struct stint_mparse_text k, v;
    while (stint_mparse_attr_next(&text, &k, &v)) {
        uint32_t key = stint_model_intern(m, k.ptr, k.len);
        uint64_t bytes = (uint64_t)((v.ptr ? v.ptr + v.len : k.ptr + k.len) - k.ptr);
        if (args)
            stint_sizes_arg_key(m->sizes, key, bytes);
        else
            stint_sizes_event_key(m->sizes, key, bytes);
    }
}

/* sizes mode (STINT_MODEL_SIZES, sizes.h): measures record r instead of
 * modelling it. Its "phase" is its clock ("host", or "dev" for clk=dev),
 * its cat "", its event keys the nine head fields (`pid=12` is 6 bytes) and
 * "attrs" (the attrs' text), its args keys the attrs' tokens by key. A
 * record the filters leave out (--pid, --tid: the record's own; --name;
 * --cat: "" ; --time-range: [ts, ts + dur) on the record's clock) is counted
 * as filtered. */
static void size_record(struct stint_mctx *c, const struct stint_mparse_record *r)
{
    struct stint_model *m = c->m;
    struct stint_sizes *z = m->sizes;
    uint32_t name = stint_model_intern(m, r->name.ptr, r->name.len);
    if (c->filter) {
        const struct stint_filter_rec w = {.pid = (int64_t)r->pid, .tid = (int64_t)r->tid, .ts = r->ts_ns,
                                           .dur = r->dur_ns, .name = stint_model_str(m, name, NULL),
                                           .has_tid = 1, .has_ts = 1};
        if (!stint_filter_rec(c->filter, &w)) {
            z->filtered_events++;
            z->filtered_bytes += r->text.len;
            return;
        }
    }
    stint_sizes_event(z, c->clk[stint_mparse_is_device(r)], c->none, name, r->text.len, r->attrs.len);
    /* the head's fields: the tokens between "[STRACE]" and the attrs */
    const char *head = r->text.ptr + 8, *head_end = r->attrs.len ? r->attrs.ptr : r->text.ptr + r->text.len;
    size_tokens(m, (struct stint_mparse_text){head, (size_t)(head_end - head)}, 0);
    if (r->attrs.len) {
        stint_sizes_event_key(z, c->attrs, r->attrs.len);
        size_tokens(m, r->attrs, 1);
    }
}

static void add_arg_str(struct stint_model *m, uint32_t idx, const char *key, const char *v, size_t n)
{
    struct stint_arg a = {.key = stint_model_intern(m, key, strlen(key)), .kind = STINT_ARG_STRING};
    a.sval = stint_model_intern(m, v, n);
    stint_model_add_arg(m, idx, &a);
}

static void add_arg_int(struct stint_model *m, uint32_t idx, const char *key, int64_t v)
{
    struct stint_arg a = {.key = stint_model_intern(m, key, strlen(key)), .kind = STINT_ARG_INT, .ival = v};
    stint_model_add_arg(m, idx, &a);
}

/* The lane of host thread (pid, tid), or of device invocation (pid, tid =
 * inv) when dev: the record before's when it is the same (a thread writes
 * its records together). */
static uint32_t record_lane(struct stint_mctx *c, int64_t pid, int64_t tid, int dev)
{
    if (!c->lane_ok || c->lane_pid != pid || c->lane_tid != tid || c->lane_dev != dev) {
        c->lane = stint_model_lane(c->m, pid, tid, dev ? STINT_CLOCK_DEVICE : STINT_CLOCK_HOST);
        c->lane_pid = pid;
        c->lane_tid = tid;
        c->lane_dev = dev;
        c->lane_ok = 1;
    }
    return c->lane;
}

/* The string id of name s[0..n) (n >= 1): from c's cache of names met
 * before, else interned (as it would be: a name gets its id when first met). */
static uint32_t record_name(struct stint_mctx *c, const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    memcpy(&a, s, n < 8 ? n : 8);
    if (n > 8)
        memcpy(&b, s + n - 8, 8);
    size_t slot = stint_hash_slot(a ^ (b * STINT_HASH_GOLDEN) ^ (uint64_t)n, 8);
    if (c->names[slot].id1 && c->names[slot].len == n &&
        !memcmp(stint_model_str(c->m, c->names[slot].id1 - 1, NULL), s, n))
        return c->names[slot].id1 - 1;
    uint32_t id = stint_model_intern(c->m, s, n);
    if (n <= UINT32_MAX) {
        c->names[slot].id1 = id + 1;
        c->names[slot].len = (uint32_t)n;
    }
    return id;
}

/* Adds a record's span [ts, ts + dur) of name on lane as the next slice;
 * its index, or STINT_NO_ID when it is dropped (out of the kept range). */
static uint32_t record_slice(struct stint_model *m, int64_t ts, int64_t dur, uint32_t name, uint32_t lane)
{
    struct stint_slice s = {.ts_ns = ts, .dur_ns = dur,
                            .flags = STINT_SLICE_BEGIN_END};
    s.track = stint_model_lane_at(m, lane)->track;
    s.name = name;
    return stint_model_add_slice(m, &s);
}

uint32_t stint_i_markers_slice(struct stint_mctx *c, size_t k, uint32_t lane)
{
    const struct stint_mgroup *g = &c->groups[c->recs[k].gid];
    uint32_t idx = record_slice(c->m, stint_i_mpend_ts(c, k), stint_i_mpend_dur(c, k), c->recs[k].idx, lane);
    if (idx != STINT_NO_ID && g->dev)
        stint_model_slice_from_thread(c->m, idx, (int64_t)g->tid);
    return idx;
}

static int on_record(void *ctx, const struct stint_mparse_record *r)
{
    struct stint_mctx *c = ctx;
    struct stint_model *m = c->m;
    m->events++;
    if (m->sizes) {
        size_record(c, r);
        return 0;
    }
    if (r->v != 1)
        stint_model_repair(m, STINT_REPAIR_UNKNOWN_VERSION, "%s: byte %llu: record with v=%llu (expected v=1), read anyway",
                           c->path, (unsigned long long)r->offset, (unsigned long long)r->v);
    int dev = stint_mparse_is_device(r);
    struct mthread *th = &c->threads[stint_hash_slot(stint_hash_pair(r->pid, r->tid), 10)];
    if (!th->lane1 || th->pid != r->pid || th->tid != r->tid || th->inv != r->inv || th->dev != (uint32_t)dev) {
        /* (the lane is made here as without the cache; the group once a record is kept) */
        *th = (struct mthread){.pid = r->pid, .tid = r->tid, .inv = r->inv, .dev = (uint32_t)dev};
        th->lane1 = record_lane(c, (int64_t)r->pid, dev ? (int64_t)r->inv : (int64_t)r->tid, dev) + 1;
    }
    uint32_t lane = th->lane1 - 1, name = record_name(c, r->name.ptr, r->name.len), idx;
    if (c->lean) { /* kept back: the links say what it becomes (the parser keeps ts, dur and
                    * their sum within the kept range, so no record would be dropped) */
        if (c->nrecs == c->rcap)
            stint_i_mrecs_room(c, c->nrecs + 1);
        stint_i_mpend_put(c, c->nrecs, (int64_t)r->ts_ns, (int64_t)r->dur_ns);
        idx = name;
    } else {
        idx = record_slice(m, r->ts_ns, r->dur_ns, name, lane);
        if (idx == STINT_NO_ID) /* (dropped: out of the kept time range) */
            return 0;
        if (dev) /* which host thread the device span came from (--tid selects by it) */
            stint_model_slice_from_thread(m, idx, (int64_t)r->tid);
    }
    if (dev) {
        struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, lane);
        if (!ln->hid)
            ln->hid = stint_model_intern(m, r->hid_text.ptr, r->hid_text.len);
        c->saw_dev = 1;
    }
    if (!th->gid1)
        th->gid1 = stint_i_mgroup(c, r->pid, r->tid, r->inv, (uint32_t)dev) + 1;
    if (c->nrecs == c->rcap)
        stint_i_mrecs_room(c, c->nrecs + 1);
    c->recs[c->nrecs++] = (struct stint_mrec){
        .idx = idx, .gid = th->gid1 - 1,
        .depth = r->depth > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)r->depth};
    if (m->flags & STINT_MODEL_KEEP_ARGS) {
        add_arg_str(m, idx, "args.hid", r->hid_text.ptr, r->hid_text.len);
        add_arg_int(m, idx, "args.inv", (int64_t)r->inv);
        add_arg_int(m, idx, "args.depth", (int64_t)r->depth);
        if (dev)
            add_arg_int(m, idx, "args.tid", (int64_t)r->tid);
        struct stint_mparse_text cur = r->attrs, k, v;
        char key[256];
        while (stint_mparse_attr_next(&cur, &k, &v)) {
            int n = snprintf(key, sizeof key, "args.%.*s", (int)(k.len > 200 ? 200 : k.len), k.ptr);
            (void)n;
            add_arg_str(m, idx, key, v.ptr ? v.ptr : "", v.ptr ? v.len : 0);
        }
    }
    return 0;
}

static void on_torn(void *ctx, uint64_t offset, uint64_t line, const char *why)
{
    struct stint_mctx *c = ctx;
    (void)line;
    c->m->events++;
    stint_model_repair(c->m, STINT_REPAIR_TORN_RECORD, "%s: byte %llu: record cut before its last field (%s missing or bad)",
                       c->path, (unsigned long long)offset, why);
}

/* A loss line (libstint's `[STINT] v=1 dropped`): the writer's loss on its
 * thread (struct stint_loss), its range on the records' own clock; one that
 * cannot be read is a repair (bad_loss_record). Not an event. */
static int on_loss(void *ctx, const struct stint_mparse_loss *l)
{
    struct stint_mctx *c = ctx;
    if (!l->ok) {
        stint_model_repair(c->m, STINT_REPAIR_BAD_LOSS_RECORD,
                           "%s: byte %llu: a loss line ([STINT] v=1 dropped) cut or malformed (%s missing or "
                           "bad): the spans it reported are not counted",
                           c->path, (unsigned long long)l->offset, l->why);
        return 0;
    }
    unsigned flags = STINT_LOSS_THREAD | (l->first_ts || l->last_ts ? STINT_LOSS_RANGE : 0u);
    stint_model_loss(c->m, (int64_t)l->pid, (int64_t)l->tid, l->count, l->first_ts, l->last_ts, flags);
    return 0;
}

/* ---- reading: the whole input, or two halves on two threads ------------------------------- */

/* c reads into m (path names the input in messages). */
static void mctx_init(struct stint_mctx *c, struct stint_model *m, const char *path, const struct stint_read_opts *o)
{
    *c = (struct stint_mctx){.m = m, .path = path, .last_gid = UINT32_MAX};
    if (o && o->event_filter && stint_filter_active(o->event_filter))
        c->filter = o->event_filter;
    c->lean = (m->flags & STINT_MODEL_LEAN) && !(m->flags & STINT_MODEL_KEEP_ARGS) && !m->sizes;
    if (c->lean && o) {
        c->seq_fn = o->lean_seq_fn;
        c->seq_ctx = o->lean_seq_ctx;
    }
    m->format = "markers";
    if (m->sizes) {
        c->clk[0] = stint_model_intern(m, "host", 4);
        c->clk[1] = stint_model_intern(m, "dev", 3);
        c->none = stint_model_intern(m, "", 0);
        c->attrs = stint_model_intern(m, "attrs", 5);
    }
}

/* Parses in (from where its window starts) to its end into c's model, the
 * parser's counts into *st; progress: show it (a read on one thread).
 * Returns 0, or the input's error code (the model failed with its message:
 * what came before the error is kept). */
static int parse_input(struct stint_input *in, struct stint_mctx *c, int progress, struct stint_mparse_stats *st)
{
    struct stint_model *m = c->m;
    struct stint_mparse_options opt = MARKERS_OPTIONS_INIT;
    opt.on_record = on_record;
    opt.on_torn = on_torn;
    if (!m->sizes) /* (sizes measures loss lines as other text) */
        opt.on_loss = on_loss;
    opt.ctx = c;
    opt.base_offset = in->base;
    /* the callbacks return 0: the parser fails only when out of memory */
    struct stint_mparse *p = stint_xcheck(stint_mparse_new(&opt));
    int rc = 0;
    for (;;) {
        if (m->sizes)
            m->sizes->text_bytes += in->len;
        if (in->len && stint_mparse_feed(p, in->buf, in->len) != 0)
            stint_die_nomem();
        stint_input_consume(in, in->len);
        if (progress)
            stint_i_progress(in, 0);
        int f = stint_input_fill(in);
        if (f < 0) {
            stint_model_fail(m, "%s", in->err);
            rc = stint_input_errcode(in);
            break;
        }
        if (f == 0 && in->len == 0)
            break;
    }
    stint_mparse_finish(p);
    *st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    return rc;
}

/* What is said and linked once every record is in (st: the parser's
 * counts over the whole input). */
static void read_end(struct stint_mctx *c, const char *path, const struct stint_read_opts *o,
                     const struct stint_mparse_stats *st)
{
    if (st->torn && !(o && o->quiet))
        fprintf(stderr, "stint: %s: %llu of %llu records incomplete (torn; counted, not merged)\n", path,
                (unsigned long long)st->torn, (unsigned long long)st->heads);
    if (st->long_lines)
        stint_model_repair(c->m, STINT_REPAIR_TORN_RECORD, "%s: %llu line(s) longer than %zu MiB were cut", path,
                           (unsigned long long)st->long_lines, MARKERS_MAX_LINE_BYTES >> 20);
    stint_i_markers_link_depth(c);
    stint_i_mctx_free(c);
}

/* A plain file from this size on is read in two halves on two threads
 * (STINT_SPLIT_MIN_BYTES overrides it, as for Chrome JSON: tests). */
#define MSPLIT_MIN_BYTES ((uint64_t)32 << 20)
#define MSPLIT_SCAN ((size_t)1 << 20) /* how far past the middle a line end is searched for */

/* Where the second half starts: just after the first '\n' at or past the
 * middle of a plain file big enough to split, read for a model (not sizes
 * mode) with two threads or more; 0 for no split. Records never cross a
 * '\n' (markers_parse.h), and the parser starts afresh after one whatever
 * it read before, so the halves read as the whole does. */
static uint64_t split_at(const struct stint_input *in, const struct stint_model *m)
{
    const char *e = getenv("STINT_SPLIT_MIN_BYTES");
    uint64_t least = e && *e ? (uint64_t)strtoull(e, NULL, 10) : MSPLIT_MIN_BYTES;
    uint64_t size = in->file_size;
    if (in->gz || !strcmp(in->path, "-") || m->sizes || size < least || size < 2 || stint_threads_wanted() < 2)
        return 0;
    char *buf = malloc(MSPLIT_SCAN);
    if (!buf)
        return 0;
    ssize_t n = pread(in->fd, buf, MSPLIT_SCAN, (off_t)(size / 2));
    const char *nl = n > 0 ? memchr(buf, '\n', (size_t)n) : NULL;
    uint64_t cut = nl ? size / 2 + (uint64_t)(nl - buf) + 1 : 0;
    free(buf);
    return cut < size ? cut : 0;
}

/* One half of a split read. */
struct mhalf {
    const char *path;
    uint64_t from, to; /* to 0: the file's end */
    struct stint_mctx c;
    struct stint_mparse_stats st;
    int rc;
};

static void read_half(struct mhalf *h)
{
    struct stint_input in;
    h->rc = stint_input_open_range(&in, h->path, h->from, h->to);
    if (h->rc != 0)
        stint_model_fail(h->c.m, "%s", in.err);
    else
        h->rc = parse_input(&in, &h->c, 0, &h->st);
    stint_input_close(&in);
}

static void *half_thread(void *arg)
{
    stint_i_self_thread("stint read");
    read_half(arg);
    return NULL;
}

/* A lean read's halves: the second's pending records name its model's
 * strings, mapped into the first's by the merge. */
static void mpart_merge(void *dst_part, void *src_part, const struct stint_model *dst, const uint32_t *smap,
                        const uint32_t *lmap, const uint32_t *tmap)
{
    struct stint_mctx *src = src_part;
    (void)dst_part;
    (void)dst;
    (void)tmap;
    (void)lmap;
    for (size_t k = 0; k < src->nrecs; k++)
        src->recs[k].idx = smap[src->recs[k].idx];
}

static void mpart_free(void *part) { (void)part; /* (the reader frees its contexts) */ }

static const struct stint_model_part_ops mpart_ops = {mpart_merge, mpart_free};

/* Reads the file in two halves, the second on a thread of its own into a
 * model of its own, merged after the first (stint_model_merge: as if one
 * thread had read both; the records' depth links are made on the whole).
 * Returns -1, m as it came, when a half holds device records (their lanes'
 * invocation data does not go through a merge): the caller reads on one
 * thread; else the exit code. */
static int read_split(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o, uint64_t cut)
{
    struct stint_model own;
    if (stint_model_init(&own, m->flags) != 0)
        stint_die_nomem();
    struct mhalf h[2] = {{.path = in->path, .from = 0, .to = cut}, {.path = in->path, .from = cut, .to = 0}};
    mctx_init(&h[0].c, m, in->path, o);
    mctx_init(&h[1].c, &own, in->path, o);
    pthread_t t;
    int two = pthread_create(&t, NULL, half_thread, &h[1]) == 0;
    read_half(&h[0]);
    if (two)
        pthread_join(t, NULL);
    else
        read_half(&h[1]);
    int rc = h[0].rc ? h[0].rc : h[1].rc, dev = h[0].c.saw_dev || h[1].c.saw_dev;
    if (getenv("STINT_DEBUG_SPLIT")) /* for tests: what the split did */
        fprintf(stderr, "stint: split read: 2 halves at byte %llu%s\n", (unsigned long long)cut,
                dev ? ", device records: read again on one thread" : "");
    if (dev) {
        unsigned flags = m->flags;
        stint_span_sink sink = m->span_sink;
        void *sink_ctx = m->span_sink_ctx;
        const struct stint_span_split *split = m->span_split;
        stint_i_mctx_free(&h[0].c);
        stint_i_mctx_free(&h[1].c);
        stint_model_free(&own);
        stint_model_free(m);
        if (stint_model_init(m, flags) != 0)
            stint_die_nomem();
        stint_model_set_span_sink(m, sink, sink_ctx);
        stint_model_set_span_split(m, split);
        return -1;
    }
    if (h[0].rc == 0) { /* (after an error in the first half, one thread reads no further) */
        uint32_t slice0 = (uint32_t)m->slices.len;
        /* (a merge fails only for lean records' pairs; marker spans are never lean records) */
        if (h[0].c.lean) { /* (the merge maps the second half's pending records) */
            m->part_ctx = &h[0].c;
            own.part_ctx = &h[1].c;
            m->part_ops = own.part_ops = &mpart_ops;
        }
        if (stint_model_merge(m, &own) != 0)
            stint_die_nomem();
        m->part_ctx = own.part_ctx = NULL;
        m->part_ops = own.part_ops = NULL;
        stint_i_mctx_append(&h[0].c, &h[1].c, slice0);
        stint_mparse_stats_add(&h[0].st, &h[1].st);
    }
    stint_i_mctx_free(&h[1].c);
    stint_model_free(&own);
    read_end(&h[0].c, in->path, o, &h[0].st);
    return rc;
}

int stint_read_markers(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    stint_sizes_attach(m);
    uint64_t cut = split_at(in, m);
    if (cut) {
        int rc = read_split(in, m, o, cut);
        if (rc >= 0)
            return rc;
    }
    struct stint_mctx c;
    mctx_init(&c, m, in->path, o);
    struct stint_mparse_stats st;
    int rc = parse_input(in, &c, 1, &st);
    read_end(&c, in->path, o, &st);
    stint_i_progress(in, 1);
    return rc;
}

/* ---- the feed: records decoded by another reader ------------------------------------------ */

struct stint_markers_feed {
    struct stint_mctx c;
};

struct stint_markers_feed *stint_i_markers_feed_new(struct stint_model *m, const struct stint_read_opts *o,
                                                    const char *path)
{
    stint_sizes_attach(m);
    struct stint_markers_feed *f = stint_xcalloc(1, sizeof *f);
    f->c = (struct stint_mctx){.m = m, .path = path, .last_gid = UINT32_MAX};
    if (o && o->event_filter && stint_filter_active(o->event_filter))
        f->c.filter = o->event_filter;
    if (m->sizes) {
        f->c.clk[0] = stint_model_intern(m, "host", 4);
        f->c.clk[1] = stint_model_intern(m, "dev", 3);
        f->c.none = stint_model_intern(m, "", 0);
        f->c.attrs = stint_model_intern(m, "attrs", 5);
    }
    return f;
}

void stint_i_markers_feed_record(struct stint_markers_feed *f, const struct stint_mparse_record *r)
{
    on_record(&f->c, r);
}

void stint_i_markers_feed_loss(struct stint_markers_feed *f, const struct stint_mparse_loss *l)
{
    if (!f->c.m->sizes)
        on_loss(&f->c, l);
}

void stint_i_markers_feed_end(struct stint_markers_feed *f)
{
    stint_i_markers_link_depth(&f->c);
    stint_i_mctx_free(&f->c);
    free(f);
}
