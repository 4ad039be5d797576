/* SPDX-License-Identifier: MIT */
/*
 * sql_rows.c - the walk from a finished model to `stint sql`'s rows
 * (sql_schema.h), table by table, each row handed to the sink as it is
 * made.
 *
 * Invariants: a row's values point into the model or into the walk's own
 * small buffers, valid only during the sink call; ids of one file are the
 * model's indexes plus the id space's base at the start of the file, but
 * for slices: their ids follow time order across tracks (ts, then the
 * model's order), as Perfetto's do, so a query without ORDER BY lists them
 * as Perfetto's would; args and arg sets take the next ids as they come.
 * The scratch is per slice one int64 (the sum of its children, for its self
 * time), one (ts, index) key and one uint32 (its id's rank), plus a sorted
 * pid index and, for marker logs, one record per invocation.
 */
#include "write/sql_schema.h"
#include "base/cmp.h"
#include "base/nearsort.h"
#include "base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCOLS 16

struct upid_ix {
    int64_t pid;
    uint32_t idx;
};

/* One invocation of a marker log, keyed (pid, inv). */
struct inv_rec {
    int64_t pid, inv;
    uint32_t hid;              /* the earliest span's hid (string id), 0 none */
    int64_t lo[2], hi[2];      /* extent per clock (host, device); lo > hi: none */
};

/* A slice's place in time order: by ts, ties in the model's order. */
struct tkey {
    int64_t ts;
    uint32_t idx;
};
static inline int tkey_less(const struct tkey *a, const struct tkey *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->idx < b->idx);
}
STINT_DEFINE_NEAR_SORT(tkey_near_sort, struct tkey, tkey_less)
static int tkey_cmp(const void *a, const void *b)
{
    return tkey_less(a, b) ? -1 : tkey_less(b, a);
}

struct walk {
    const struct stint_model *m;
    const struct stint_sql_file *f;
    struct stint_sql_ids *ids;
    struct stint_sql_ids base;
    const struct stint_sql_sink *sink;
    struct stint_sql_count *count;
    struct stint_sql_val v[MAXCOLS];
    struct upid_ix *upids;     /* processes sorted by pid */
    size_t nprocs;
    char num[3][32];           /* display texts of numbers */
    /* invocations (marker logs): records in first-seen order, an open-addressing index */
    struct inv_rec *invs;
    size_t ninvs, invcap;
    uint32_t *invix;           /* index + 1, 0 empty */
    size_t invixcap;
    uint32_t k_inv, k_hid;     /* string ids of "args.inv" and "args.hid" (0: absent) */
    uint32_t *rank;            /* slice index -> its place in time order (its id - base) */
};

static void vnull(struct stint_sql_val *v) { v->kind = STINT_SQLV_NULL; }
static void vint(struct stint_sql_val *v, int64_t i)
{
    v->kind = STINT_SQLV_INT;
    v->i = i;
}
static void vreal(struct stint_sql_val *v, double r)
{
    v->kind = STINT_SQLV_REAL;
    v->r = r;
}
static void vtext(struct stint_sql_val *v, const char *s, size_t n)
{
    v->kind = STINT_SQLV_TEXT;
    v->s = s;
    v->n = n;
}
static void vcstr(struct stint_sql_val *v, const char *s) { vtext(v, s, strlen(s)); }
/* A model string id as text; id 0 (absent) as NULL. */
static void vstr(const struct walk *w, struct stint_sql_val *v, uint32_t id)
{
    if (!id) {
        vnull(v);
        return;
    }
    size_t n;
    const char *s = stint_model_str(w->m, id, &n);
    vtext(v, s, n);
}
static void vopt(struct stint_sql_val *v, int64_t ts)
{
    if (ts == STINT_TS_NONE)
        vnull(v);
    else
        vint(v, ts);
}

/* Hands the row in w->v to the sink; -1 when it stops the walk. */
static int emit(struct walk *w, unsigned table)
{
    w->count->rows[table]++;
    return w->sink->row(w->sink->ctx, table, w->v);
}

static int upid_cmp(const void *a, const void *b)
{
    const struct upid_ix *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The upid of pid's process (0-based index + base), or -1 when none. */
static int64_t upid_of(const struct walk *w, int64_t pid)
{
    size_t lo = 0, hi = w->nprocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->upids[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < w->nprocs && w->upids[lo].pid == pid)
        return w->base.upid + w->upids[lo].idx;
    return -1;
}

static void vupid(const struct walk *w, struct stint_sql_val *v, int64_t pid)
{
    int64_t u = upid_of(w, pid);
    if (u < 0)
        vnull(v);
    else
        vint(v, u);
}

/* An arg set of one integer arg (a sort index hint); its id goes to *set. */
static int hint_args(struct walk *w, const char *key, int64_t value, int64_t *set)
{
    *set = w->ids->arg_set++;
    struct stint_sql_val *v = w->v;
    vint(&v[0], w->ids->arg++);
    vint(&v[1], *set);
    vcstr(&v[2], key);
    vcstr(&v[3], key);
    vint(&v[4], value);
    vnull(&v[5]);
    vnull(&v[6]);
    vcstr(&v[7], "int");
    snprintf(w->num[0], sizeof w->num[0], "%" PRId64, value);
    vcstr(&v[8], w->num[0]);
    return emit(w, STINT_SQL_ARGS);
}

/* process and thread rows (host lanes), with their sort index hints. */
static int walk_processes(struct walk *w)
{
    const struct stint_model *m = w->m;
    for (size_t i = 0; i < m->processes.len; i++) {
        const struct stint_process *p = stint_model_process_at(m, (uint32_t)i);
        int64_t set = -1;
        if (p->has_sort_index && hint_args(w, "process_sort_index_hint", p->sort_index, &set))
            return -1;
        struct stint_sql_val *v = w->v;
        vint(&v[0], w->base.upid + (int64_t)i);
        vint(&v[1], p->pid);
        vstr(w, &v[2], p->name);
        vcstr(&v[3], w->f->path);
        vint(&v[4], w->f->rank);
        if (set < 0)
            vnull(&v[5]), vnull(&v[6]);
        else
            vint(&v[5], set), vint(&v[6], p->sort_index);
        if (emit(w, STINT_SQL_PROCESS))
            return -1;
    }
    for (size_t i = 0; i < m->lanes.len; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        if (l->clock != STINT_CLOCK_HOST)
            continue;
        int64_t set = -1;
        if (l->has_sort_index && hint_args(w, "thread_sort_index_hint", l->sort_index, &set))
            return -1;
        struct stint_sql_val *v = w->v;
        vint(&v[0], w->base.lane + (int64_t)i);
        vint(&v[1], l->tid);
        vstr(w, &v[2], l->name);
        vint(&v[3], w->base.upid + l->process);
        if (set < 0)
            vnull(&v[4]), vnull(&v[5]);
        else
            vint(&v[4], set), vint(&v[5], l->sort_index);
        if (emit(w, STINT_SQL_THREAD))
            return -1;
    }
    return 0;
}

/* lane rows: every lane, host and device. */
static int walk_lanes(struct walk *w)
{
    const struct stint_model *m = w->m;
    for (size_t i = 0; i < m->lanes.len; i++) {
        const struct stint_lane *l = stint_model_lane_at(m, (uint32_t)i);
        int host = l->clock == STINT_CLOCK_HOST;
        struct stint_sql_val *v = w->v;
        vint(&v[0], w->base.lane + (int64_t)i);
        if (host)
            vint(&v[1], w->base.lane + (int64_t)i);
        else
            vnull(&v[1]);
        vint(&v[2], l->pid);
        vint(&v[3], l->tid);
        vcstr(&v[4], host ? "host" : "device");
        vstr(w, &v[5], l->name);
        vint(&v[6], w->base.track + l->track);
        if (!host && l->host_tids == 1)
            vint(&v[7], l->host_tid);
        else
            vnull(&v[7]);
        if (emit(w, STINT_SQL_LANE))
            return -1;
    }
    return 0;
}

static const char *track_type(const struct stint_track *t)
{
    switch (t->kind) {
    case STINT_TRACK_THREAD: return "thread";
    case STINT_TRACK_ASYNC:
        return t->scope == STINT_ASYNC_GLOBAL ? "legacy_async_global_slice" : "legacy_async_process_slice";
    case STINT_TRACK_PROCESS: return "process";
    default: return "global";
    }
}

/* One track row: id, name, type, kind, pid, tid, upid, utid, clock, category. */
static int track_row(struct walk *w, size_t i, const struct stint_track *t)
{
    const struct stint_model *m = w->m;
    struct stint_sql_val *v = w->v;
    for (unsigned c = 0; c < 10; c++)
        vnull(&v[c]);
    vint(&v[0], w->base.track + (int64_t)i);
    vcstr(&v[2], track_type(t));
    vcstr(&v[3], stint_track_kind_name((enum stint_track_kind)t->kind));
    if (t->kind == STINT_TRACK_THREAD) {
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        vint(&v[4], l->pid);
        vint(&v[5], l->tid);
        vint(&v[6], w->base.upid + l->process);
        if (l->clock == STINT_CLOCK_HOST)
            vint(&v[7], w->base.lane + t->lane);
        vcstr(&v[8], l->clock == STINT_CLOCK_HOST ? "host" : "device");
    } else if (t->kind == STINT_TRACK_PROCESS || (t->kind == STINT_TRACK_ASYNC && t->scope == STINT_ASYNC_PROCESS)) {
        vint(&v[4], t->pid);
        vupid(w, &v[6], t->pid);
        vcstr(&v[8], "host");
    } else {
        vcstr(&v[8], "host");
    }
    if (t->kind == STINT_TRACK_ASYNC) {
        vstr(w, &v[1], t->name);
        vstr(w, &v[9], t->cat);
    }
    return emit(w, STINT_SQL_TRACK);
}

/* track rows: the model's tracks, then one counter track per series. */
static int walk_tracks(struct walk *w)
{
    const struct stint_model *m = w->m;
    for (size_t i = 0; i < m->tracks.len; i++)
        if (track_row(w, i, stint_model_track_at(m, (uint32_t)i)))
            return -1;
    for (size_t i = 0; i < m->counters.len; i++) {
        const struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, i);
        struct stint_sql_val *v = w->v;
        for (unsigned k = 0; k < 10; k++)
            vnull(&v[k]);
        vint(&v[0], w->base.track + (int64_t)(m->tracks.len + i));
        vstr(w, &v[1], c->name);
        vcstr(&v[2], "process_counter");
        vcstr(&v[3], "counter");
        vint(&v[4], c->pid);
        vupid(w, &v[6], c->pid);
        vcstr(&v[8], "host");
        if (emit(w, STINT_SQL_TRACK))
            return -1;
    }
    return 0;
}

static const char *const arg_types[] = {"int", "uint", "real", "string", "bool", "json"};

/* One arg row of set `set`. */
static int arg_row(struct walk *w, int64_t set, const struct stint_arg *a)
{
    struct stint_sql_val *v = w->v;
    vint(&v[0], w->ids->arg++);
    vint(&v[1], set);
    vstr(w, &v[2], a->key);
    if (v[2].kind == STINT_SQLV_NULL)
        vcstr(&v[2], "");
    v[3] = v[2];
    vnull(&v[4]);
    vnull(&v[5]);
    vnull(&v[6]);
    vcstr(&v[7], a->kind < 6 ? arg_types[a->kind] : "string");
    switch (a->kind) {
    case STINT_ARG_UINT:
        snprintf(w->num[1], sizeof w->num[1], "%" PRIu64, (uint64_t)a->ival);
        if (a->ival >= 0)
            vint(&v[4], a->ival);
        else
            vreal(&v[6], (double)(uint64_t)a->ival);
        vcstr(&v[8], w->num[1]);
        break;
    case STINT_ARG_INT:
    case STINT_ARG_BOOL:
        vint(&v[4], a->ival);
        if (a->kind == STINT_ARG_BOOL)
            vcstr(&v[8], a->ival ? "true" : "false");
        else {
            snprintf(w->num[1], sizeof w->num[1], "%" PRId64, a->ival);
            vcstr(&v[8], w->num[1]);
        }
        break;
    case STINT_ARG_REAL: {
        const char *s = stint_model_str(w->m, a->sval, NULL);
        vreal(&v[6], strtod(s, NULL));
        vstr(w, &v[8], a->sval);
        break;
    }
    default:
        vstr(w, &v[5], a->sval);
        if (v[5].kind == STINT_SQLV_NULL)
            vcstr(&v[5], "");
        v[8] = v[5];
        break;
    }
    return emit(w, STINT_SQL_ARGS);
}

/* The pid and tid columns of slice s (v[0], v[1]): its thread's, on a thread
 * track (a device lane's span: the host thread that issued it, when known);
 * else its process's and no tid (the global instant track: neither). */
static void slice_owner(const struct walk *w, const struct stint_slice *s, struct stint_sql_val *v)
{
    const struct stint_model *m = w->m;
    const struct stint_track *t = stint_model_track_at(m, s->track);
    vnull(&v[0]);
    vnull(&v[1]);
    if (t->kind == STINT_TRACK_THREAD) {
        const struct stint_lane *l = stint_model_lane_at(m, t->lane);
        int64_t tid;
        vint(&v[0], l->pid);
        if (l->clock == STINT_CLOCK_HOST)
            vint(&v[1], l->tid);
        else if (stint_model_slice_thread(m, s, &tid))
            vint(&v[1], tid);
    } else if (!(t->kind == STINT_TRACK_GLOBAL)) {
        vint(&v[0], stint_model_slice_pid(m, s));
    }
}

/* Finds or adds the invocation (pid, inv); returns its record. */
static struct inv_rec *inv_get(struct walk *w, int64_t pid, int64_t inv)
{
    if (2 * (w->ninvs + 1) > w->invixcap) { /* grow the index to keep it at most half full */
        size_t cap = w->invixcap ? 2 * w->invixcap : 64;
        uint32_t *ix = stint_xcalloc(cap, sizeof *ix);
        for (size_t i = 0; i < w->ninvs; i++) {
            uint64_t h = ((uint64_t)w->invs[i].pid * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)w->invs[i].inv;
            size_t j = (size_t)(h * 0xff51afd7ed558ccdULL >> 17) & (cap - 1);
            while (ix[j])
                j = (j + 1) & (cap - 1);
            ix[j] = (uint32_t)i + 1;
        }
        free(w->invix);
        w->invix = ix;
        w->invixcap = cap;
    }
    uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)inv;
    size_t j = (size_t)(h * 0xff51afd7ed558ccdULL >> 17) & (w->invixcap - 1);
    for (; w->invix[j]; j = (j + 1) & (w->invixcap - 1)) {
        struct inv_rec *r = &w->invs[w->invix[j] - 1];
        if (r->pid == pid && r->inv == inv)
            return r;
    }
    if (w->ninvs == w->invcap) {
        w->invcap = w->invcap ? 2 * w->invcap : 64;
        w->invs = stint_xreallocarray(w->invs, w->invcap, sizeof *w->invs);
    }
    w->invix[j] = (uint32_t)w->ninvs + 1;
    struct inv_rec *r = &w->invs[w->ninvs++];
    *r = (struct inv_rec){.pid = pid, .inv = inv, .lo = {INT64_MAX, INT64_MAX}, .hi = {INT64_MIN, INT64_MIN}};
    return r;
}

/* A marker span's part in its invocation: its hid (the earliest span's) and
 * its extent on its clock. Spans without an args.inv are none's. */
static void inv_note(struct walk *w, const struct stint_slice *s, int64_t pid)
{
    int64_t inv = 0;
    uint32_t hid = 0;
    int has_inv = 0;
    for (uint32_t k = 0; k < s->nargs; k++) {
        const struct stint_arg *a = stint_model_arg_at(w->m, s->args + k);
        if (a->key == w->k_inv && a->kind == STINT_ARG_INT)
            inv = a->ival, has_inv = 1;
        else if (a->key == w->k_hid && a->kind == STINT_ARG_STRING)
            hid = a->sval;
    }
    if (!has_inv)
        return;
    const struct stint_track *t = stint_model_track_at(w->m, s->track);
    int dev = stint_model_track_device(w->m, t);
    struct inv_rec *r = inv_get(w, pid, inv);
    if (!r->hid)
        r->hid = hid;
    int64_t end = s->dur_ns > 0 ? s->ts_ns + s->dur_ns : s->ts_ns;
    if (s->ts_ns < r->lo[dev])
        r->lo[dev] = s->ts_ns;
    if (end > r->hi[dev])
        r->hi[dev] = end;
}

/* One slice row (and its args); childsum: its children's total dur. */
static int slice_row(struct walk *w, size_t i, const struct stint_slice *s, int64_t childsum)
{
    int64_t set = -1;
    struct stint_sql_val *v = w->v;
    if (s->nargs) {
        set = w->ids->arg_set++;
        for (uint32_t k = 0; k < s->nargs; k++)
            if (arg_row(w, set, stint_model_arg_at(w->m, s->args + k)))
                return -1;
    }
    vint(&v[0], w->base.slice + (int64_t)w->rank[i]);
    vint(&v[1], s->ts_ns);
    vint(&v[2], s->dur_ns);
    vint(&v[3], w->base.track + s->track);
    vstr(w, &v[4], s->cat);
    vstr(w, &v[5], s->name);
    vint(&v[6], s->depth);
    if (s->parent == STINT_NO_ID)
        vnull(&v[7]);
    else
        vint(&v[7], w->base.slice + w->rank[s->parent]);
    if (set < 0)
        vnull(&v[8]);
    else
        vint(&v[8], set);
    int64_t tts, tdur;
    stint_model_slice_tt(w->m, s, &tts, &tdur);
    vopt(&v[9], tts);
    vopt(&v[10], tdur);
    slice_owner(w, s, &v[11]);
    if (s->dur_ns < 0)
        vnull(&v[13]);
    else
        vint(&v[13], s->dur_ns > childsum ? s->dur_ns - childsum : 0);
    vint(&v[14], s->flags);
    if (w->k_inv && s->nargs && v[11].kind == STINT_SQLV_INT)
        inv_note(w, s, v[11].i);
    return emit(w, STINT_SQL_SLICE);
}

/* slice rows in time order (w->rank made here), each after its args. */
static int walk_slices(struct walk *w)
{
    const struct stint_model *m = w->m;
    size_t n = stint_model_nslices(m);
    int64_t *childsum = stint_xcalloc(n ? n : 1, sizeof *childsum);
    struct tkey *key = stint_xmalloc((n ? n : 1) * sizeof *key);
    w->rank = stint_xmalloc((n ? n : 1) * sizeof *w->rank);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        if (s->parent < n && s->dur_ns > 0)
            childsum[s->parent] += s->dur_ns;
        key[i] = (struct tkey){s->ts_ns, (uint32_t)i};
    }
    /* each track's slices are in order: merging those runs is cheap */
    if (n > 1 && !tkey_near_sort(key, n))
        if (n > 1) /* (an empty array may have a NULL base) */
            stint_xqsort(key, n, sizeof *key, tkey_cmp);
    for (size_t k = 0; k < n; k++)
        w->rank[key[k].idx] = (uint32_t)k;
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++)
        rc = slice_row(w, key[k].idx, stint_model_slice(m, key[k].idx), childsum[key[k].idx]);
    free(key);
    free(childsum);
    return rc;
}

/* flow and counter rows. */
static int walk_flows_counters(struct walk *w)
{
    const struct stint_model *m = w->m;
    size_t n = stint_model_nslices(m);
    struct stint_sql_val *v = w->v;
    for (size_t i = 0; i < m->flows.len; i++) {
        const struct stint_flow *f = &STINT_BA_AT(&m->flows, struct stint_flow, i);
        if (f->slice_out >= n || f->slice_in >= n)
            continue;
        vint(&v[0], w->ids->flow++);
        vint(&v[1], w->base.slice + w->rank[f->slice_out]);
        vint(&v[2], w->base.slice + w->rank[f->slice_in]);
        vnull(&v[3]);
        if (emit(w, STINT_SQL_FLOW))
            return -1;
    }
    for (size_t i = 0; i < m->samples.len; i++) {
        const struct stint_counter_sample *c = &STINT_BA_AT(&m->samples, struct stint_counter_sample, i);
        vint(&v[0], w->ids->counter++);
        vint(&v[1], c->ts_ns);
        vint(&v[2], w->base.track + (int64_t)(m->tracks.len + c->series));
        vreal(&v[3], c->value);
        if (emit(w, STINT_SQL_COUNTER))
            return -1;
    }
    return 0;
}

/* metadata rows: the trace's top-level metadata keys. */
static int walk_metadata(struct walk *w)
{
    const struct stint_model *m = w->m;
    struct stint_sql_val *v = w->v;
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        vstr(w, &v[0], a->key);
        if (v[0].kind == STINT_SQLV_NULL)
            vcstr(&v[0], "");
        vcstr(&v[1], "single");
        vnull(&v[2]);
        vnull(&v[3]);
        if (a->kind == STINT_ARG_INT || a->kind == STINT_ARG_UINT || a->kind == STINT_ARG_BOOL)
            vint(&v[2], a->ival);
        else
            vstr(w, &v[3], a->sval);
        if (emit(w, STINT_SQL_METADATA))
            return -1;
    }
    return 0;
}

/* One repair row. */
static int repair_row(struct walk *w, const char *kind, uint64_t count, const char *first)
{
    struct stint_sql_val *v = w->v;
    vcstr(&v[0], w->f->path);
    vcstr(&v[1], kind);
    vint(&v[2], count > INT64_MAX ? INT64_MAX : (int64_t)count);
    if (first)
        vcstr(&v[3], first);
    else
        vnull(&v[3]);
    return emit(w, STINT_SQL_REPAIR);
}

/* repair rows (repairs by kind, drops, leftovers, a partial read) and lost rows. */
static int walk_repairs(struct walk *w)
{
    const struct stint_model *m = w->m;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (m->repairs[k] && repair_row(w, stint_repair_name((enum stint_repair)k), m->repairs[k], m->repair_first[k]))
            return -1;
    if (m->dropped && repair_row(w, "dropped", m->dropped, m->dropped_first))
        return -1;
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++) {
        char kind[64];
        snprintf(kind, sizeof kind, "unmodelled %s", stint_unmodelled_name((enum stint_unmodelled)k));
        if (m->unmodelled[k] && repair_row(w, kind, m->unmodelled[k], NULL))
            return -1;
    }
    if (m->partial && repair_row(w, "partial", 1, m->error))
        return -1;
    struct stint_sql_val *v = w->v;
    for (size_t i = 0; i < m->losses.len; i++) {
        const struct stint_loss *l = &STINT_BA_AT(&m->losses, struct stint_loss, i);
        vcstr(&v[0], w->f->path);
        vint(&v[1], l->pid);
        if (l->flags & STINT_LOSS_THREAD)
            vint(&v[2], l->tid);
        else
            vnull(&v[2]);
        vint(&v[3], l->count > INT64_MAX ? INT64_MAX : (int64_t)l->count);
        if (l->flags & STINT_LOSS_RANGE)
            vint(&v[4], l->first_ns), vint(&v[5], l->last_ns);
        else
            vnull(&v[4]), vnull(&v[5]);
        if (emit(w, STINT_SQL_LOST))
            return -1;
    }
    return 0;
}

/* invocation rows (marker logs), in the order their earliest spans start. */
static int walk_invocations(struct walk *w)
{
    struct stint_sql_val *v = w->v;
    for (size_t i = 0; i < w->ninvs; i++) {
        const struct inv_rec *r = &w->invs[i];
        vint(&v[0], r->pid);
        vint(&v[1], r->inv);
        vstr(w, &v[2], r->hid);
        for (int c = 0; c < 2; c++) {
            if (r->lo[c] <= r->hi[c])
                vint(&v[3 + c], r->hi[c] - r->lo[c]);
            else
                vnull(&v[3 + c]);
        }
        if (emit(w, STINT_SQL_INVOCATION))
            return -1;
    }
    return 0;
}

/* The string id of key when the model interned it, else 0. */
static uint32_t find_key(const struct stint_model *m, const char *key)
{
    /* Interning would change the model: look among the args' keys instead. */
    size_t n = strlen(key);
    for (size_t i = 0; i < m->args.len; i++) {
        const struct stint_arg *a = stint_model_arg_at(m, (uint32_t)i);
        size_t kn;
        const char *k = stint_model_str(m, a->key, &kn);
        if (kn == n && !memcmp(k, key, n))
            return a->key;
        if (i >= 64) /* a marker span's fixed args come first: the first spans show them */
            break;
    }
    return 0;
}

int stint_sql_rows(const struct stint_model *m, const struct stint_sql_file *f, struct stint_sql_ids *ids,
                   const struct stint_sql_sink *sink, struct stint_sql_count *count)
{
    struct walk w = {.m = m, .f = f, .ids = ids, .base = *ids, .sink = sink, .count = count};
    w.nprocs = m->processes.len;
    w.upids = stint_xmalloc((w.nprocs ? w.nprocs : 1) * sizeof *w.upids);
    for (size_t i = 0; i < w.nprocs; i++)
        w.upids[i] = (struct upid_ix){stint_model_process_at(m, (uint32_t)i)->pid, (uint32_t)i};
    if (w.nprocs > 1) /* (an empty array may have a NULL base) */
        stint_xqsort(w.upids, w.nprocs, sizeof *w.upids, upid_cmp);
    if (m->format && (!strcmp(m->format, "markers") || !strcmp(m->format, "capture"))) {
        w.k_inv = find_key(m, "args.inv");
        w.k_hid = find_key(m, "args.hid");
    }
    int rc = walk_processes(&w);
    if (!rc)
        rc = walk_lanes(&w);
    if (!rc)
        rc = walk_tracks(&w);
    if (!rc)
        rc = walk_slices(&w);
    if (!rc)
        rc = walk_flows_counters(&w);
    if (!rc)
        rc = walk_metadata(&w);
    if (!rc)
        rc = walk_repairs(&w);
    if (!rc)
        rc = walk_invocations(&w);
    ids->upid = w.base.upid + (int64_t)m->processes.len;
    ids->lane = w.base.lane + (int64_t)m->lanes.len;
    ids->track = w.base.track + (int64_t)(m->tracks.len + m->counters.len);
    ids->slice = w.base.slice + (int64_t)stint_model_nslices(m);
    free(w.upids);
    free(w.rank);
    free(w.invs);
    free(w.invix);
    return rc;
}
