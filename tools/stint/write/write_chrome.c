/* SPDX-License-Identifier: MIT */
/*
 * write_chrome.c - the Chrome Trace Event JSON writer (writers.h).
 *
 * Invariants of the output:
 *   - every ts/dur is microseconds with exactly three decimals (integer ns
 *     arithmetic, never a double), rebased to the earliest ts on request;
 *   - every (pid, tid) track is strictly nested: slices are placed greedily
 *     on the lane's own track or, when they would end after the span that
 *     contains them, on the first extra track ("<thread> (overlap N)") where
 *     they nest; each move is counted. An unfinished span (written as B
 *     without E) stays where it is: it has no end, and a reader keeps it
 *     open to the end of the track, so the spans after it nest under it
 *     there as they do in the model;
 *   - a device-clock lane (a marker log's phases of one invocation) keeps
 *     the model's tree: a phase goes on the first of the lane's sub-tracks
 *     whose open span is its parent, else one where an ancestor or nothing
 *     is open; so phases that run at the same time as a sibling (concurrent
 *     device work, not a fault) lie on sub-lanes "<lane> (N)" as Perfetto
 *     spills overlapping slices, counted in concurrent_device, and no phase
 *     nests under a sibling; device spans never go on a host tid;
 *   - processes and threads get process_name/thread_name and sort-index M
 *     events before their first event;
 *   - args keep their types; flattened keys are written flat ("a.b"), which
 *     readers flatten back to the same key;
 *   - each flow arrow between thread-track slices is a v1 's'/'f' pair with
 *     an id of its own, placed where Perfetto's binding rules (and stint's
 *     reader) bind it to the same two slices, or counted in skipped_flows
 *     where no such place exists (flow_binding).
 */
#include "write/writers.h"

#include "analyze/analysis.h"
#include "write/bgfile.h"
#include "write/textout.h"
#include "write/write_chrome_int.h"
#include "base/cmp.h"
#include "base/threads.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

void stint_put_us3(FILE *f, int64_t ns)
{
    char b[32];
    fwrite(b, 1, stint_an_us_len(b, ns), f);
}

int64_t stint_write_spare_tid(const struct stint_model *m, int64_t room)
{
    int64_t spare = 1000000;
    for (size_t i = 0; i < m->lanes.len; i++) {
        int64_t t = stint_model_lane_at(m, (uint32_t)i)->tid;
        if (t >= spare && t < INT64_MAX - room)
            spare = t + 1;
    }
    return spare;
}

struct stint_origins stint_model_origins(const struct stint_model *m)
{
    int64_t o[2] = {INT64_MAX, INT64_MAX}; /* host, device */
    for (size_t i = 0; i < stint_model_nslices(m); i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        int dev = stint_model_track_device(m, stint_model_track_at(m, s->track));
        if (s->ts_ns < o[dev])
            o[dev] = s->ts_ns;
    }
    for (size_t k = 0; k < m->samples.len; k++) {
        const struct stint_counter_sample *s = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
        if (s->ts_ns < o[0])
            o[0] = s->ts_ns;
    }
    return (struct stint_origins){o[0] == INT64_MAX ? 0 : o[0], o[1] == INT64_MAX ? 0 : o[1]};
}

#define CLIP_START STINT_I_CLIP_START
#define CLIP_END STINT_I_CLIP_END

/* One open span on an output track. */
struct open_span {
    int64_t end_ns;   /* INT64_MAX: unfinished */
    int64_t dur_ns;
    uint32_t idx;     /* the slice */
};

struct subtrack {
    struct open_span *st;
    size_t n, cap;
    int64_t tid;
    int named;
    uint32_t last; /* the slice written on it last (STINT_NO_ID: none yet) */
};

/* Where a thread-track slice went (for its flows): its sub-track, and
 * whether another slice of that sub-track starts at the same ts before it
 * (NOT_FIRST) or after it (NOT_LAST), in the order a reader puts them in. */
struct placed {
    uint32_t sub : 27; /* sub-track index in its lane; PL_NONE: not on a thread track */
    uint32_t flags : 5;
};
#define PL_NONE ((1u << 27) - 1) /* (a lane has fewer sub-tracks than slices) */

/* Where the slices that flow arrows end on went: only they need it. ends
 * lists them (sorted, each once), pl[r] is where ends[r] went, and bit i of
 * is_end says whether slice i is one. */
struct placed_map {
    uint32_t *ends;
    size_t n;
    uint64_t *is_end;
    struct placed *pl; /* NULL: no flows */
};

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* The map of m's flow ends among its n slices (empty without flows). */
static void placed_map_init(struct placed_map *pm, const struct stint_model *m, size_t n)
{
    memset(pm, 0, sizeof *pm);
    if (!m->flows.len)
        return;
    pm->ends = stint_xmalloc(2 * m->flows.len * sizeof *pm->ends);
    for (size_t k = 0; k < m->flows.len; k++) {
        const struct stint_flow *fl = &STINT_BA_AT(&m->flows, struct stint_flow, k);
        if (fl->slice_out < n)
            pm->ends[pm->n++] = fl->slice_out;
        if (fl->slice_in < n)
            pm->ends[pm->n++] = fl->slice_in;
    }
    stint_xqsort(pm->ends, pm->n, sizeof *pm->ends, u32_cmp);
    size_t u = 0;
    for (size_t i = 0; i < pm->n; i++)
        if (!u || pm->ends[i] != pm->ends[u - 1])
            pm->ends[u++] = pm->ends[i];
    pm->n = u;
    pm->is_end = stint_xcalloc(n / 64 + 1, sizeof *pm->is_end);
    for (size_t i = 0; i < u; i++)
        pm->is_end[pm->ends[i] >> 6] |= (uint64_t)1 << (pm->ends[i] & 63);
    pm->pl = stint_xcalloc(u ? u : 1, sizeof *pm->pl);
}

/* Where slice i went, or NULL when no arrow ends on it. */
static struct placed *pl_at(const struct placed_map *pm, size_t i)
{
    if (!pm->pl || !(pm->is_end[i >> 6] >> (i & 63) & 1))
        return NULL;
    size_t lo = 0, hi = pm->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pm->ends[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &pm->pl[lo];
}

static void placed_map_free(struct placed_map *pm)
{
    free(pm->ends);
    free(pm->is_end);
    free(pm->pl);
}
#define NOT_FIRST 1u
#define NOT_LAST 2u
#define CUT 4u     /* outside the window, or cut at its start: no arrow binds to its start */
#define OUTSIDE 8u /* outside the window: not written */
#define FILTERED 16u /* left out by o->select: not written */

/* Where slice s starts in the output: at the window's start when it began before. */
static inline int64_t written_ts(const struct stint_write_opts *o, const struct stint_slice *s)
{
    return o && o->window && s->ts_ns < o->t0 ? o->t0 : s->ts_ns;
}

/* Pops spans that ended by ts (a zero-length span at ts stays open, as the
 * readers nest a same-ts instant under it). */
static void sub_pop(struct subtrack *t, int64_t ts)
{
    while (t->n) {
        const struct open_span *top = &t->st[t->n - 1];
        if (top->end_ns < ts || (top->end_ns == ts && top->dur_ns > 0))
            t->n--;
        else
            break;
    }
}

static void sub_push(struct subtrack *t, int64_t end, int64_t dur, uint32_t idx)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->st = stint_xreallocarray(t->st, t->cap, sizeof *t->st);
    }
    t->st[t->n].end_ns = end;
    t->st[t->n].dur_ns = dur;
    t->st[t->n].idx = idx;
    t->n++;
}

/* `"pid":P,"tid":0,"ts":TS,"id2":{...}` of an async event of slice s at ts
 * on track t: id2.local for a process-scoped track, id2.global for a global
 * one, so that reading it back gives the same track; P is the slice's own
 * process (on a global track, the one that began it). */
static void put_async_at(FILE *out, const struct stint_model *m, const struct stint_track *t,
                         const struct stint_slice *s, int64_t ts, struct stint_i_pid_memo *pm)
{
    fputs("\"pid\":", out);
    stint_i_put_pid(out, m, stint_model_slice_pid(m, s), STINT_NO_ID, pm);
    fputs(",\"tid\":0,\"ts\":", out);
    stint_put_us3(out, ts);
    fputs(t->scope == STINT_ASYNC_GLOBAL ? ",\"id2\":{\"global\":" : ",\"id2\":{\"local\":", out);
    stint_out_json_model_str(out, m, t->id);
    putc('}', out);
}

/* Writes the JSON string naming output track k of lane l: the thread's
 * name (else "tid N", or "inv N" on a device lane), for a device lane
 * inside "device clock: ... (not host-aligned)", and for an extra track
 * (k > 0) followed by " (overlap k)", on a device lane by " (k+1)" (a
 * sub-lane). Written in pieces, never cut. */
static void put_track_name(FILE *out, const struct stint_model *m, const struct stint_lane *l, size_t k)
{
    int dev = l->clock == STINT_CLOCK_DEVICE;
    putc('"', out);
    if (dev)
        fputs("device clock: ", out);
    if (l->name) {
        size_t nl;
        const char *nm = stint_model_str(m, l->name, &nl);
        stint_out_json_body(out, nm, nl);
    } else
        fprintf(out, "%s %" PRId64, dev ? "inv" : "tid", l->tid);
    if (dev)
        fputs(" (not host-aligned)", out);
    if (k && dev)
        fprintf(out, " (%zu)", k + 1); /* a sub-lane of concurrent phases: the lane itself is (1) */
    else if (k)
        fprintf(out, " (overlap %zu)", k);
    putc('"', out);
}

/* How arrow fl is written so that a reader binds it to the same two slices,
 * as the 'f' event's binding field ("" or "\"bp\":\"e\","), or NULL when it
 * cannot be. Both ends must be thread-track slices, the start no later than
 * the end. The 's' at the start slice's ts binds to the enclosing slice
 * there: the last slice of its sub-track that starts at or before that ts,
 * which is the start slice when no other starts at the same ts after it.
 * The 'f' at the end slice's ts binds to the next slice to begin there (the
 * first of its sub-track starting at that ts), or with bp "e" to the
 * enclosing one (the last): one of the two is the end slice unless slices
 * start at its ts both before and after it. */
static const char *flow_binding(const struct stint_model *m, const struct placed_map *pm, const struct stint_flow *fl)
{
    size_t n = stint_model_nslices(m);
    if (fl->slice_out >= n || fl->slice_in >= n)
        return NULL;
    const struct placed *po = pl_at(pm, fl->slice_out), *pi = pl_at(pm, fl->slice_in);
    if (po->sub == PL_NONE || pi->sub == PL_NONE || (po->flags & NOT_LAST))
        return NULL;
    if (stint_model_slice(m, fl->slice_out)->ts_ns > stint_model_slice(m, fl->slice_in)->ts_ns)
        return NULL;
    if (!(pi->flags & NOT_FIRST))
        return "";
    if (!(pi->flags & NOT_LAST))
        return "\"bp\":\"e\",";
    return NULL;
}

/* One end of flow arrow id, after sep: the 's' event at its start slice, or
 * the 'f' at its end slice with binding field bp ("" or "\"bp\":\"e\","), at
 * the slice's ts on the output track it went to. */
static void put_flow_event(FILE *out, const struct stint_model *m, struct subtrack *const *subs,
                           const struct placed_map *pm, uint32_t slice, const char *sep, char ph, const char *bp,
                           size_t id, const struct stint_origins *org)
{
    const struct stint_slice *s = stint_model_slice(m, slice);
    int64_t origin = stint_slice_origin(m, s, org);
    uint32_t lane = stint_model_track_at(m, s->track)->lane;
    fputs(sep, out);
    fputs(ph == 's' ? "{\"ph\":\"s\"," : "{\"ph\":\"f\",", out);
    fputs(bp, out);
    fputs("\"id\":", out);
    stint_out_u64(out, id);
    fputs(",\"cat\":\"stint\",\"name\":\"flow\",", out);
    stint_i_put_lane_ids(out, m, stint_model_lane_at(m, lane), subs[lane][pl_at(pm, slice)->sub].tid);
    fputs(",\"ts\":", out);
    stint_put_us3(out, s->ts_ns - origin);
    putc('}', out);
}

/* The top-level metadata: stint's own keys (what was converted, the
 * rebase, the moved spans), then the input's metadata carried over
 * (stint_put_meta_rest): its clock anchors of ts 0 moved by the rebase, so
 * that unix times computed from the output stay the same. */
static void put_metadata(FILE *out, const struct stint_model *m, const struct stint_origins *org, int has_dev,
                         const struct stint_write_opts *o, const struct stint_write_stats *st)
{
    const char *fmt = m->format ? m->format : "unknown";
    int64_t origin = org->host;
    /* (device_origin_ns only where device-clock lanes were written; the
     * window's keys only with a window) */
    struct stint_meta_own own[8] = {{"schema", "stint/convert/1", 0},
                                    {"source_format", fmt, 0},
                                    {"origin_ns", NULL, origin},
                                    {"moved_overlap_spans", NULL, (int64_t)st->moved_overlap}};
    size_t nown = 4;
    if (has_dev)
        own[nown++] = (struct stint_meta_own){"device_origin_ns", NULL, org->device};
    if (o && o->window) {
        own[nown++] = (struct stint_meta_own){"window_start_ns", NULL, o->t0};
        own[nown++] = (struct stint_meta_own){"window_end_ns", NULL, o->t1};
        own[nown++] = (struct stint_meta_own){"clipped_spans", NULL, (int64_t)st->clipped};
    }
    fputs("\n],\n\"metadata\":{", out);
    for (size_t k = 0; k < nown; k++) {
        fprintf(out, "%s\"%s\":", k ? "," : "", own[k].key);
        if (own[k].sval)
            stint_out_json_str(out, own[k].sval, strlen(own[k].sval));
        else
            fprintf(out, "%" PRId64, own[k].ival);
    }
    const struct stint_meta_rest r = {own, nown, NULL, 0, origin};
    stint_put_meta_rest(out, m, &r);
    fputs("}}\n", out);
}

/* Whether o->select takes counter sample cs: its series' process and name
 * (filters.h: --tid, --cat and --min-dur mean nothing for a series). */
static int sample_selected(const struct stint_model *m, const struct stint_write_opts *o,
                           const struct stint_counter_sample *cs)
{
    if (!o || !o->select)
        return 1;
    const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
    return (!o->select->has_pid || c->pid == o->select->pid) &&
           stint_filter_name(o->select, stint_model_str(m, c->name, NULL));
}

/* A counter sample as a C event at ts (rebased), after sep. */
static void put_sample(FILE *out, const struct stint_model *m, const struct stint_counter_sample *cs, int64_t ts,
                       struct stint_i_pid_memo *pm, const char *sep)
{
    const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series);
    size_t nl;
    const char *nm = stint_model_str(m, c->name, &nl);
    /* series "<event name> <arg key>": split at the last space */
    const char *sp = memrchr(nm, ' ', nl);
    size_t en = sp ? (size_t)(sp - nm) : nl;
    fprintf(out, "%s{\"ph\":\"C\",\"pid\":", sep);
    stint_i_put_pid(out, m, c->pid, STINT_NO_ID, pm);
    fputs(",\"tid\":0,\"ts\":", out);
    stint_put_us3(out, ts);
    fputs(",\"name\":", out);
    stint_out_json_str(out, nm, en);
    fputs(",\"args\":{", out);
    if (sp)
        stint_out_json_str(out, sp + 1, nl - en - 1);
    else
        fputs("\"value\"", out);
    fprintf(out, ":%.17g}}", cs->value);
}

/* One run of the Chrome writer: what its steps share. */
struct chrome_run {
    const struct stint_model *m;
    FILE *out;
    const struct stint_write_opts *o;
    struct stint_write_stats *st;
    struct stint_origins org;
    size_t n;               /* slices */
    int win;                /* o->window */
    int first;              /* no event written yet (sep) */
    int has_dev;            /* a device-clock lane was written */
    int64_t spare_tid;      /* the next tid for extra tracks and device lanes */
    struct stint_i_pid_memo pm;
    struct subtrack **subs; /* per lane: its output sub-tracks (index 0 is the lane itself) */
    size_t *nsubs;
    struct placed_map ends; /* where the flows' end slices went */
    uint8_t *dropped;       /* per slice, with o->select: left out, for the parents a reader finds instead */
    struct stint_i_line line; /* the thread slice being written (put_thread_slice) */
};

/* What comes before an event: nothing before the first, else ",\n". */
static const char *sep(struct chrome_run *w)
{
    if (w->first) {
        w->first = 0;
        return "";
    }
    return ",\n";
}

/* The M events of processes and lanes (names, sort indexes); each lane's
 * first sub-track. */
static void put_names(struct chrome_run *w)
{
    const struct stint_model *m = w->m;
    FILE *out = w->out;
    for (size_t i = 0; i < m->processes.len; i++) {
        const struct stint_process *p = stint_model_process_at(m, (uint32_t)i);
        if (p->name) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", sep(w));
            stint_i_put_pid(out, m, p->pid, (uint32_t)i, NULL);
            fputs(",\"tid\":0,\"args\":{\"name\":", out);
            stint_out_json_model_str(out, m, p->name);
            fputs("}}", out);
        }
        if (p->has_sort_index) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", sep(w));
            stint_i_put_pid(out, m, p->pid, (uint32_t)i, NULL);
            fprintf(out, ",\"tid\":0,\"args\":{\"sort_index\":%d}}", p->sort_index);
        }
    }
    for (size_t i = 0; i < m->lanes.len; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        w->subs[i] = stint_xcalloc(1, sizeof **w->subs);
        w->subs[i][0].last = STINT_NO_ID;
        w->nsubs[i] = 1;
        w->subs[i][0].tid = l->clock == STINT_CLOCK_DEVICE ? w->spare_tid++ : l->tid;
        w->has_dev |= l->clock == STINT_CLOCK_DEVICE;
        if (l->name || l->clock == STINT_CLOCK_DEVICE) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",", sep(w));
            stint_i_put_lane_ids(out, m, l, w->subs[i][0].tid);
            fputs(",\"args\":{\"name\":", out);
            put_track_name(out, m, l, 0);
            fputs("}}", out);
        }
        if (l->has_sort_index) {
            fprintf(out, "%s{\"ph\":\"M\",\"name\":\"thread_sort_index\",", sep(w));
            stint_i_put_lane_ids(out, m, l, w->subs[i][0].tid);
            fprintf(out, ",\"args\":{\"sort_index\":%d}}", l->sort_index);
        }
    }
}

/* Marks slice i as on no thread track with flags (when flows need it). */
static void place_none(struct chrome_run *w, size_t i, uint8_t flags)
{
    struct placed *p = pl_at(&w->ends, i);
    if (p) {
        p->sub = PL_NONE;
        p->flags = flags & 31u;
    }
}

/* Whether slice s is written, and as what: *s_ts and *s_dur cut to the
 * window, *clip saying where (CLIP_*). A slice left out is counted. */
static int slice_written(struct chrome_run *w, size_t i, const struct stint_slice *s, int64_t *s_ts, int64_t *s_dur,
                         unsigned *clip)
{
    const struct stint_write_opts *o = w->o;
    *s_ts = s->ts_ns;
    *s_dur = s->dur_ns;
    *clip = 0;
    if (o && o->select && !stint_filter_slice(o->select, w->m, s)) {
        w->st->filtered_out++;
        w->dropped[i] = 1;
        place_none(w, i, CUT | FILTERED);
        return 0;
    }
    if (!w->win)
        return 1;
    if (!stint_filter_overlaps(o->t0, o->t1, s->ts_ns, s->dur_ns)) {
        w->st->window_out++;
        place_none(w, i, CUT | OUTSIDE);
        return 0;
    }
    if (s->ts_ns < o->t0) {
        *s_ts = o->t0;
        *clip |= CLIP_START;
    }
    int64_t e = s->dur_ns < 0 ? INT64_MAX : s->ts_ns + s->dur_ns;
    if (s->dur_ns >= 0 && e > o->t1) {
        e = o->t1;
        *clip |= CLIP_END;
    }
    if (s->dur_ns >= 0)
        *s_dur = e - *s_ts;
    w->st->clipped += *clip != 0;
    return 1;
}

/* Sub-track k of lane, made (with a spare tid) when it is one past the
 * last. Returns the lane's sub-tracks. */
static struct subtrack *sub_at(struct chrome_run *w, uint32_t lane, size_t k)
{
    struct subtrack *sv = w->subs[lane];
    if (k == w->nsubs[lane]) {
        w->subs[lane] = sv = stint_xreallocarray(w->subs[lane], k + 1, sizeof *sv);
        memset(&sv[k], 0, sizeof sv[k]);
        sv[k].tid = w->spare_tid++;
        sv[k].last = STINT_NO_ID;
        w->nsubs[lane] = k + 1;
    }
    return sv;
}

/* Whether slice a is an ancestor of slice i in the model (the parent
 * chain, walked at most as deep as the model nests). */
static int is_ancestor(const struct stint_model *m, uint32_t a, size_t i, size_t n)
{
    uint32_t p = stint_model_slice(m, i)->parent;
    for (size_t hops = 0; p < n && hops < n; hops++, p = stint_model_slice(m, p)->parent)
        if (p == a)
            return 1;
    return 0;
}

/* The sub-track of device-lane slice i (parent: its nearest kept one) that
 * ends [.., end): the first whose open span is parent and holds it, else
 * the first where an ancestor holding it or nothing is open, else a new
 * one. Every sub-track is popped to s_ts first. */
static size_t device_sub(struct chrome_run *w, size_t i, uint32_t lane, uint32_t parent, int64_t s_ts, int64_t end)
{
    struct subtrack *sv = w->subs[lane];
    size_t ns = w->nsubs[lane];
    for (size_t k = 0; k < ns; k++)
        sub_pop(&sv[k], s_ts);
    for (size_t k = 0; k < ns; k++) {
        const struct open_span *top = sv[k].n ? &sv[k].st[sv[k].n - 1] : NULL;
        if (top ? top->idx == parent && top->end_ns >= end : parent == STINT_NO_ID)
            return k;
    }
    for (size_t k = 0; k < ns; k++) {
        const struct open_span *top = sv[k].n ? &sv[k].st[sv[k].n - 1] : NULL;
        if (!top || (top->end_ns >= end && is_ancestor(w->m, top->idx, i, w->n)))
            return k;
    }
    return ns;
}

/* Places thread-track slice i (written at s_ts for s_dur) on the first
 * sub-track of its lane where it nests (a device lane: device_sub), making
 * one when none does, and writes the extra track's name the first time.
 * Returns the sub-track. */
static size_t place_on_thread(struct chrome_run *w, size_t i, const struct stint_slice *s, const struct stint_lane *l,
                              uint32_t lane, int64_t s_ts, int64_t s_dur, unsigned clip)
{
    const struct stint_model *m = w->m;
    struct subtrack *sv = w->subs[lane];
    int64_t end = s_dur < 0 ? INT64_MAX : s_ts + s_dur;
    int dev = l->clock == STINT_CLOCK_DEVICE;
    uint32_t parent = s->parent; /* (the nearest ancestor the filters kept) */
    while (w->dropped && parent < w->n && w->dropped[parent])
        parent = stint_model_slice(m, parent)->parent;
    size_t k = 0;
    if (dev)
        sv = sub_at(w, lane, k = device_sub(w, i, lane, parent, s_ts, end));
    else
        for (;; k++) {
            sv = sub_at(w, lane, k);
            sub_pop(&sv[k], s_ts);
            /* an unfinished span (B without E) has no end to overlap its
             * parent with: it stays where the readers nest it, and stays
             * open on the track to its end, as it does in the model */
            if (sv[k].n == 0 || sv[k].st[sv[k].n - 1].end_ns >= end || s_dur < 0)
                break;
        }
    /* a reader nests it under the span open on its track: another
     * parent than the model's when that one is on another thread
     * (JSONL parent ids) or moved to an extra track; a device phase at
     * the top of a sub-lane is laid there beside its siblings */
    uint32_t top = sv[k].n ? sv[k].st[sv[k].n - 1].idx : STINT_NO_ID;
    if ((k == 0 || (dev && top != STINT_NO_ID)) && top != parent)
        w->st->reparented++;
    if (dev && k > 0) {
        const struct stint_slice *p = parent < w->n ? stint_model_slice(m, parent) : NULL;
        if (!p || (p->dur_ns < 0 ? p->ts_ns <= s_ts
                                 : p->ts_ns <= s_ts && s_dur >= 0 && end <= p->ts_ns + p->dur_ns))
            w->st->concurrent_device++; /* inside its parent: concurrent with a sibling */
        else
            w->st->moved_overlap++;
    }
    sub_push(&sv[k], end, s_dur, (uint32_t)i);
    if (w->ends.pl) {
        struct placed *p = pl_at(&w->ends, i), *q = sv[k].last != STINT_NO_ID ? pl_at(&w->ends, sv[k].last) : NULL;
        if (p) {
            p->sub = (k < PL_NONE ? (uint32_t)k : PL_NONE) & PL_NONE;
            p->flags = clip & CLIP_START ? CUT : 0;
        }
        if ((p || q) && sv[k].last != STINT_NO_ID && written_ts(w->o, stint_model_slice(m, sv[k].last)) == s_ts) {
            if (q)
                q->flags |= NOT_LAST;
            if (p)
                p->flags |= NOT_FIRST;
        }
    }
    sv[k].last = (uint32_t)i;
    if (k > 0) {
        w->st->moved_overlap += !dev;
        if (!sv[k].named) {
            fprintf(w->out, "%s{\"ph\":\"M\",\"name\":\"thread_name\",", sep(w));
            stint_i_put_lane_ids(w->out, m, l, sv[k].tid);
            fputs(",\"args\":{\"name\":", w->out);
            put_track_name(w->out, m, l, k);
            fputs("}}", w->out);
            sv[k].named = 1;
        }
    }
    return k;
}

/* `,"cat":C,"name":N` of slice s. */
static void put_cat_name(FILE *out, const struct stint_model *m, const struct stint_slice *s)
{
    if (s->cat) {
        fputs(",\"cat\":", out);
        stint_out_json_model_str(out, m, s->cat);
    }
    fputs(",\"name\":", out);
    stint_out_json_model_str(out, m, s->name);
}

/* put_slice's event of slice i on thread track t (an X, B or i, at ts as
 * written; s_ts, s_dur and clip as slice_written gives them), made on
 * w->line and written with one call, two more when its args are not text
 * the spill made (the model's, a window's cut, a slice read open). */
static void put_thread_slice(struct chrome_run *w, size_t i, const struct stint_slice *s, const struct stint_track *t,
                             int64_t ts, int64_t s_ts, int64_t s_dur, unsigned clip)
{
    const struct stint_model *m = w->m;
    const struct stint_write_opts *o = w->o;
    struct stint_i_line *b = &w->line;
    const struct stint_lane *l = stint_model_lane_at(m, t->lane);
    size_t k = place_on_thread(w, i, s, l, t->lane, s_ts, s_dur, clip);
    char ph = s->flags & STINT_SLICE_INSTANT ? 'i' : s_dur < 0 ? 'B' : 'X';
    b->len = 0;
    const char *sp = sep(w);
    stint_i_line_put(b, sp, strlen(sp));
    stint_i_line_put(b, ph == 'X' ? "{\"ph\":\"X\"," : ph == 'B' ? "{\"ph\":\"B\"," : "{\"ph\":\"i\",", 10);
    stint_i_line_lane_ids(b, m, l, w->subs[t->lane][k].tid);
    STINT_I_LINE_LIT(b, ",\"ts\":");
    stint_i_line_us3(b, ts);
    if (ph == 'X') {
        STINT_I_LINE_LIT(b, ",\"dur\":");
        stint_i_line_us3(b, s_dur);
    } else if (ph == 'i')
        STINT_I_LINE_LIT(b, ",\"s\":\"t\"");
    int64_t tts, tdur;
    if (stint_model_slice_tt(m, s, &tts, &tdur) && !clip) { /* (a cut span's thread time is not known) */
        STINT_I_LINE_LIT(b, ",\"tts\":");
        stint_i_line_us3(b, tts);
        if (tdur != STINT_TS_NONE && !(s->flags & STINT_SLICE_INSTANT) && s->dur_ns >= 0) {
            STINT_I_LINE_LIT(b, ",\"tdur\":");
            stint_i_line_us3(b, tdur);
        }
    }
    if (s->cat) {
        STINT_I_LINE_LIT(b, ",\"cat\":");
        stint_i_line_model_str(b, m, s->cat);
    }
    STINT_I_LINE_LIT(b, ",\"name\":");
    stint_i_line_model_str(b, m, s->name);
    const char *text;
    size_t tl;
    uint64_t bad;
    int own = !s->nargs && !clip; /* (else stint_i_chrome_put_args merges and cuts) */
    if (own && (!o || (!o->ext_text && !o->ext_args))) {
        STINT_I_LINE_LIT(b, "}"); /* (no args at all) */
        fwrite(b->p, 1, b->len, w->out);
        return;
    }
    if (own && o->ext_text && o->ext_text(o->ext_ctx, s, &text, &tl, &bad)) { /* (the spill's render) */
        if (bad)
            stint_out_bad_utf8_add(bad);
        if (tl) {
            STINT_I_LINE_LIT(b, ",\"args\":{");
            stint_i_line_put(b, text, tl);
            STINT_I_LINE_LIT(b, "}");
        }
        STINT_I_LINE_LIT(b, "}");
        fwrite(b->p, 1, b->len, w->out);
        return;
    }
    fwrite(b->p, 1, b->len, w->out);
    stint_i_chrome_put_args(w->out, m, s, clip, o);
    putc('}', w->out);
}

/* Writes slice i (its X, B, i, n or b/e events), or counts it left out. */
static void put_slice(struct chrome_run *w, size_t i)
{
    const struct stint_model *m = w->m;
    FILE *out = w->out;
    const struct stint_slice *s = stint_model_slice(m, i);
    const struct stint_track *t = stint_model_track_at(m, s->track);
    int64_t s_ts, s_dur; /* as written: cut to the window */
    unsigned clip;
    if (!slice_written(w, i, s, &s_ts, &s_dur, &clip))
        return;
    int64_t ts = s_ts - stint_slice_origin(m, s, &w->org);
    if (t->kind == STINT_TRACK_THREAD) {
        put_thread_slice(w, i, s, t, ts, s_ts, s_dur, clip);
        w->st->slices++;
        return;
    }
    if (t->kind == STINT_TRACK_ASYNC) {
        place_none(w, i, 0);
        const char *ph = s->flags & STINT_SLICE_INSTANT ? "n" : "b";
        fprintf(out, "%s{\"ph\":\"%s\",", sep(w), ph);
        put_async_at(out, m, t, s, ts, &w->pm);
    } else {
        place_none(w, i, 0);
        fprintf(out, "%s{\"ph\":\"i\",\"s\":\"%s\",\"pid\":", sep(w), t->kind == STINT_TRACK_GLOBAL ? "g" : "p");
        stint_i_put_pid(out, m, t->kind == STINT_TRACK_GLOBAL ? (int64_t)0 : t->pid, STINT_NO_ID, &w->pm);
        fputs(",\"tid\":0,\"ts\":", out);
        stint_put_us3(out, ts);
    }
    int64_t tts, tdur;
    if (stint_model_slice_tt(m, s, &tts, &tdur) && !clip) { /* (a cut span's thread time is not known) */
        fputs(",\"tts\":", out);
        stint_put_us3(out, tts);
    }
    put_cat_name(out, m, s);
    stint_i_chrome_put_args(out, m, s, clip, w->o);
    putc('}', out);
    if (t->kind == STINT_TRACK_ASYNC && !(s->flags & STINT_SLICE_INSTANT) && s_dur >= 0) {
        fputs(",\n{\"ph\":\"e\",", out);
        put_async_at(out, m, t, s, ts + s_dur, &w->pm);
        put_cat_name(out, m, s);
        putc('}', out);
    }
    w->st->slices++;
}

/* The flow arrows: each as an s/f pair, or counted where it cannot be. */
static void put_flows(struct chrome_run *w)
{
    const struct stint_model *m = w->m;
    const struct placed_map *pm = &w->ends;
    struct stint_write_stats *st = w->st;
    size_t n = w->n;
    for (size_t k = 0; k < m->flows.len; k++) {
        const struct stint_flow *fl = &STINT_BA_AT(&m->flows, struct stint_flow, k);
        const struct placed *po = fl->slice_out < n ? pl_at(pm, fl->slice_out) : NULL;
        const struct placed *pi = fl->slice_in < n ? pl_at(pm, fl->slice_in) : NULL;
        if (po && pi && ((po->flags | pi->flags) & FILTERED)) {
            st->filtered_flows++;
            continue;
        }
        if (w->win && ((po && (po->flags & CUT)) || (pi && (pi->flags & CUT)))) {
            if (po && pi && (po->flags & pi->flags & OUTSIDE))
                st->window_out++; /* (wholly outside) */
            else
                st->window_flows++;
            continue;
        }
        const char *bp = flow_binding(m, pm, fl);
        if (!bp) {
            st->skipped_flows++;
            continue;
        }
        put_flow_event(w->out, m, w->subs, pm, fl->slice_out, sep(w), 's', "", k + 1, &w->org);
        put_flow_event(w->out, m, w->subs, pm, fl->slice_in, ",\n", 'f', bp, k + 1, &w->org);
        st->flows++;
    }
}

/* Whether cs belongs to a series the reader made from Kineto [memory]
 * instants (model.h): not written as C events, since the instants written
 * make it again when the output is read (it would count twice). */
static int from_memory_record(const struct stint_model *m, const struct stint_counter_sample *cs)
{
    size_t nl;
    const char *nm = stint_model_str(m, STINT_BA_AT(&m->counters, struct stint_counter_series, cs->series).name, &nl);
    return stint_counter_from_memory_record(nm, nl);
}

/* The counter samples: with a window, first each series' value at its
 * start (the last sample before it), then those inside it. */
static void put_samples(struct chrome_run *w)
{
    const struct stint_model *m = w->m;
    const struct stint_write_opts *o = w->o;
    struct stint_write_stats *st = w->st;
    if (w->win && m->samples.len) {
        size_t *carry = stint_xmalloc(m->counters.len * sizeof *carry);
        for (size_t c = 0; c < m->counters.len; c++)
            carry[c] = SIZE_MAX;
        for (size_t k = 0; k < m->samples.len; k++) {
            const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
            size_t *c = &carry[cs->series];
            if (cs->ts_ns < o->t0 && sample_selected(m, o, cs) && !from_memory_record(m, cs) &&
                (*c == SIZE_MAX || STINT_BA_AT(&m->samples, struct stint_counter_sample, *c).ts_ns <= cs->ts_ns))
                *c = k; /* (at one ts the last sample is the value from then on) */
        }
        for (size_t c = 0; c < m->counters.len; c++)
            if (carry[c] != SIZE_MAX) {
                put_sample(w->out, m, &STINT_BA_AT(&m->samples, struct stint_counter_sample, carry[c]),
                           o->t0 - w->org.host, &w->pm, sep(w));
                st->carried_samples++;
                st->samples++;
            }
        free(carry);
    }
    for (size_t k = 0; k < m->samples.len; k++) {
        const struct stint_counter_sample *cs = &STINT_BA_AT(&m->samples, struct stint_counter_sample, k);
        if (from_memory_record(m, cs))
            continue;
        if (!sample_selected(m, o, cs)) {
            st->filtered_out++;
            continue;
        }
        if (w->win && (cs->ts_ns < o->t0 || cs->ts_ns >= o->t1)) {
            st->window_out++;
            continue;
        }
        put_sample(w->out, m, cs, cs->ts_ns - w->org.host, &w->pm, sep(w));
        st->samples++;
    }
    if (m->counters.len && !m->samples.len)
        st->skipped_counters = m->counters.len; /* model kept aggregates only */
}

int stint_write_chrome(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st)
{
    memset(st, 0, sizeof *st);
    /* the output is written on a thread of its own while this one formats it (write/bgfile.h) */
    struct stint_bgfile *bf = NULL;
    if (stint_threads_wanted() > 1) {
        FILE *f = stint_bgfile_open(out, &bf);
        out = f ? f : out;
    }
    struct chrome_run w = {.m = m, .out = out, .o = o, .st = st, .first = 1};
    w.org = o && o->rebase ? stint_model_origins(m) : (struct stint_origins){0, 0};
    st->origin_ns = w.org.host;
    st->device_origin_ns = w.org.device;
    /* a Chrome input's losses are its metadata's, which put_metadata carries over (its origin moved by
     * the rebase); another input's have no place here */
    if (m->format && !strcmp(m->format, "chrome-json"))
        st->losses_written = m->lost;
    w.n = stint_model_nslices(m);
    size_t nlanes = m->lanes.len;
    w.win = o && o->window;
    /* a tid above every real one for extra tracks and device lanes */
    w.spare_tid = stint_write_spare_tid(m, 1000000);
    w.subs = stint_xcalloc(nlanes ? nlanes : 1, sizeof *w.subs);
    w.nsubs = stint_xcalloc(nlanes ? nlanes : 1, sizeof *w.nsubs);
    placed_map_init(&w.ends, m, w.n);
    w.dropped = o && o->select ? stint_xcalloc(w.n ? w.n : 1, 1) : NULL;
    /* this thread alone writes out meanwhile: stdio's per-call lock (taken once a process has
     * had threads) was a sixth of a conversion's CPU time */
    int locking = __fsetlocking(out, FSETLOCKING_BYCALLER);
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    put_names(&w);
    for (size_t i = 0; i < w.n; i++)
        put_slice(&w, i);
    put_flows(&w);
    put_samples(&w);
    put_metadata(out, m, &w.org, w.has_dev, o, st);
    __fsetlocking(out, locking);
    if (bf)
        (void)stint_bgfile_close(out, bf); /* (an error stays on the caller's stream, errno set to it) */
    for (size_t i = 0; i < nlanes; i++) {
        for (size_t k = 0; k < w.nsubs[i]; k++)
            free(w.subs[i][k].st);
        free(w.subs[i]);
    }
    free(w.subs);
    free(w.nsubs);
    placed_map_free(&w.ends);
    free(w.dropped);
    free(w.line.p);
    return 0;
}
