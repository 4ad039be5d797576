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
 * record never gets a host parent: the clocks differ.
 */
#include "read/readers.h"

#include "model/filters.h"
#include "read/markers_parse.h"
#include "read/sizes.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* One record as the depth tree needs it (markers_link_depth). */
struct mrec {
    uint64_t pid, tid, inv;
    int64_t ts, end;
    uint32_t idx;   /* the slice's input index */
    uint32_t depth; /* saturated */
    uint32_t order; /* input order */
    uint32_t dev;   /* clk=dev */
};

struct mctx {
    struct stint_model *m;
    struct mrec *recs;                 /* every kept record, for the depth tree */
    size_t nrecs, rcap;
    const char *path;
    const struct stint_filter *filter; /* sizes mode: the events' filter, or NULL */
    uint32_t clk[2], none, attrs;      /* sizes mode: the string ids of "host", "dev", "" and "attrs" */
};

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
static void size_record(struct mctx *c, const struct stint_mparse_record *r)
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

static int on_record(void *ctx, const struct stint_mparse_record *r)
{
    struct mctx *c = ctx;
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
    uint32_t lane = stint_model_lane(m, (int64_t)r->pid, dev ? (int64_t)r->inv : (int64_t)r->tid,
                                     dev ? STINT_CLOCK_DEVICE : STINT_CLOCK_HOST);
    struct stint_slice s = {.ts_ns = r->ts_ns, .dur_ns = r->dur_ns, .tts_ns = STINT_TS_NONE, .tdur_ns = STINT_TS_NONE,
                            .flags = STINT_SLICE_BEGIN_END};
    s.track = stint_model_lane_at(m, lane)->track;
    s.name = stint_model_intern(m, r->name.ptr, r->name.len);
    uint32_t idx = stint_model_add_slice(m, &s);
    if (idx == STINT_NO_ID) /* (dropped: out of the kept time range) */
        return 0;
    if (dev) { /* which host thread the device span came from (--tid selects by it) */
        stint_model_slice_from_thread(m, idx, (int64_t)r->tid);
        struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, lane);
        if (!ln->hid)
            ln->hid = stint_model_intern(m, r->hid_text.ptr, r->hid_text.len);
    }
    if (c->nrecs == c->rcap)
        c->recs = stint_xgrow(c->recs, &c->rcap, c->nrecs + 1, sizeof *c->recs, 1024);
    c->recs[c->nrecs] = (struct mrec){.pid = r->pid, .tid = r->tid, .inv = r->inv, .ts = r->ts_ns,
                                      .end = r->ts_ns + r->dur_ns, .idx = idx, .order = (uint32_t)c->nrecs,
                                      .depth = r->depth > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)r->depth,
                                      .dev = (uint32_t)dev};
    c->nrecs++;
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
    struct mctx *c = ctx;
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
    struct mctx *c = ctx;
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

/* ---- the call tree from depth ------------------------------------------------------------ */

/* Records by (pid, tid, inv, clock), then input order: one group per run. */
static int mrec_cmp(const void *pa, const void *pb)
{
    const struct mrec *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->inv != b->inv)
        return a->inv < b->inv ? -1 : 1;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

static int same_group(const struct mrec *a, const struct mrec *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->inv == b->inv && a->dev == b->dev;
}

/* The name of the slice at input index idx (before finish). */
static const char *slice_name(const struct stint_model *m, uint32_t idx)
{
    return stint_model_str(m, STINT_BA_AT(&m->slices, struct stint_slice, idx).name, NULL);
}

/* Whether record c lies within record p's [ts, end]. */
static int within(const struct mrec *p, const struct mrec *c)
{
    return c->ts >= p->ts && c->end <= p->end;
}

/* Links one group g[0..n) (one pid, tid, inv and clock, in log order) by
 * depth, each reading into its own array (group positions, UINT32_MAX for
 * none). Post-order (spans written as they end): a record adopts the
 * pending records one level deeper written before it. Parent first: a
 * record's parent is the latest record before it one level up, with no
 * shallower record between. Returns the reading whose links agree with
 * time more often (a parent containing its child), prefer_pre breaking a
 * tie: so a record lost from the log (torn) does not turn a post-order log
 * into a parent-first one; the links it returns are by depth alone, in or
 * out of time. stk: scratch for n. */
static const uint32_t *link_group(const struct mrec *g, uint32_t n, uint32_t *post, uint32_t *pre, uint32_t *stk,
                                  int prefer_pre)
{
    uint32_t sp = 0, npost = 0, npre = 0;
    for (uint32_t k = 0; k < n; k++) {
        post[k] = UINT32_MAX;
        while (sp && g[stk[sp - 1]].depth > g[k].depth) {
            uint32_t j = stk[--sp];
            if (g[j].depth == g[k].depth + 1) {
                post[j] = k;
                npost += (uint32_t)within(&g[k], &g[j]);
            }
        }
        stk[sp++] = k;
    }
    sp = 0;
    for (uint32_t k = 0; k < n; k++) {
        pre[k] = UINT32_MAX;
        while (sp && g[stk[sp - 1]].depth >= g[k].depth)
            sp--;
        if (sp && g[k].depth && g[stk[sp - 1]].depth == g[k].depth - 1) {
            pre[k] = stk[sp - 1];
            npre += (uint32_t)within(&g[pre[k]], &g[k]);
        }
        stk[sp++] = k;
    }
    return npre > npost || (npre == npost && prefer_pre) ? pre : post;
}

static int same_host_group(const struct mrec *h, const struct mrec *d)
{
    return !h->dev && h->pid == d->pid && h->tid == d->tid && h->inv == d->inv;
}

/* Sets the host wall of d's device lane: the longest depth-0 record of the
 * host group that ends at r[a - 1] (the outermost host span of the same
 * pid, thread and inv). */
static void host_wall(struct stint_model *m, const struct mrec *r, size_t a, const struct mrec *d)
{
    int64_t wall = 0;
    for (size_t k = a; k-- > 0 && same_host_group(&r[k], d);)
        if (r[k].depth == 0 && r[k].end - r[k].ts > wall)
            wall = r[k].end - r[k].ts;
    uint32_t lane = stint_model_lane(m, (int64_t)d->pid, (int64_t)d->inv, STINT_CLOCK_DEVICE); /* (it exists) */
    struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, lane);
    if (wall > ln->host_wall_ns)
        ln->host_wall_ns = wall;
}

/* Sets the depth tree's parents of c's records (see the file's head) and
 * counts the children that lie outside their depth parent. */
static void markers_link_depth(struct mctx *c)
{
    struct stint_model *m = c->m;
    size_t n = c->nrecs;
    if (!n)
        return;
    struct mrec *r = c->recs;
    qsort(r, n, sizeof *r, mrec_cmp);
    uint32_t *post = stint_xmalloc(n * sizeof *post), *pre = stint_xmalloc(n * sizeof *pre);
    uint32_t *stk = stint_xmalloc(n * sizeof *stk);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && same_group(&r[a], &r[b]); b++)
            ;
        const struct mrec *g = r + a;
        uint32_t gn = (uint32_t)(b - a);
        if (g[0].dev && a && same_host_group(&r[a - 1], &g[0])) /* the host side of the invocation */
            host_wall(m, r, a, &g[0]);
        const uint32_t *up = link_group(g, gn, post, pre, stk, (int)g[0].dev);
        for (uint32_t k = 0; k < gn; k++) {
            if (up[k] == UINT32_MAX) {
                if (g[k].depth == 0) /* a root, whatever it lies in */
                    stint_model_set_parent(m, g[k].idx, STINT_NO_ID);
                continue;
            }
            const struct mrec *p = &g[up[k]];
            stint_model_set_parent(m, g[k].idx, p->idx);
            if (g[k].ts < p->ts || g[k].end > p->end)
                stint_model_repair(
                    m, STINT_REPAIR_DEPTH_OUTSIDE_PARENT,
                    "'%s' (depth %u) [%lld, %lld) ns lies outside its depth parent '%s' [%lld, %lld) ns "
                    "(pid %llu tid %llu inv %llu, %s clock): kept under it, as its depth says",
                    slice_name(m, g[k].idx), (unsigned)g[k].depth,
                    (long long)g[k].ts, (long long)g[k].end,
                    slice_name(m, p->idx), (long long)p->ts,
                    (long long)p->end, (unsigned long long)g[k].pid, (unsigned long long)g[k].tid,
                    (unsigned long long)g[k].inv, g[k].dev ? "device" : "host");
        }
    }
    free(post);
    free(pre);
    free(stk);
}

int stint_read_markers(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    stint_sizes_attach(m);
    struct mctx c = {.m = m, .path = in->path};
    if (o && o->event_filter && stint_filter_active(o->event_filter))
        c.filter = o->event_filter;
    m->format = "markers";
    if (m->sizes) {
        c.clk[0] = stint_model_intern(m, "host", 4);
        c.clk[1] = stint_model_intern(m, "dev", 3);
        c.none = stint_model_intern(m, "", 0);
        c.attrs = stint_model_intern(m, "attrs", 5);
    }
    struct stint_mparse_options opt = MARKERS_OPTIONS_INIT;
    opt.on_record = on_record;
    opt.on_torn = on_torn;
    if (!m->sizes) /* (sizes measures loss lines as other text) */
        opt.on_loss = on_loss;
    opt.ctx = &c;
    /* the callbacks return 0: the parser fails only when out of memory */
    struct stint_mparse *p = stint_xcheck(stint_mparse_new(&opt));
    int rc = 0;
    for (;;) {
        if (m->sizes)
            m->sizes->text_bytes += in->len;
        if (in->len && stint_mparse_feed(p, in->buf, in->len) != 0)
            stint_die_nomem();
        stint_input_consume(in, in->len);
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
    const struct stint_mparse_stats *st = stint_mparse_get_stats(p);
    if (st->torn && !(o && o->quiet))
        fprintf(stderr, "stint: %s: %llu of %llu records incomplete (torn; counted, not merged)\n", in->path,
                (unsigned long long)st->torn, (unsigned long long)st->heads);
    if (st->long_lines)
        stint_model_repair(m, STINT_REPAIR_TORN_RECORD, "%s: %llu line(s) longer than %zu MiB were cut", in->path,
                           (unsigned long long)st->long_lines, MARKERS_MAX_LINE_BYTES >> 20);
    stint_mparse_free(p);
    markers_link_depth(&c);
    free(c.recs);
    stint_i_progress(in, 1);
    return rc;
}

/* ---- the feed: records decoded by another reader ------------------------------------------ */

struct stint_markers_feed {
    struct mctx c;
};

struct stint_markers_feed *stint_i_markers_feed_new(struct stint_model *m, const struct stint_read_opts *o,
                                                    const char *path)
{
    stint_sizes_attach(m);
    struct stint_markers_feed *f = stint_xcalloc(1, sizeof *f);
    f->c = (struct mctx){.m = m, .path = path};
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
    markers_link_depth(&f->c);
    free(f->c.recs);
    free(f);
}
