/* SPDX-License-Identifier: MIT */
/*
 * model_merge.c - stint_model_merge: joins a part read on another thread
 * (src, the input that follows dst's) into dst, both not finished, as if
 * one thread had read both.
 *
 * Invariants: everything src names is mapped to what dst calls it (string
 * ids, synthetic pids and tids numbered in the order src made them,
 * processes, lanes and tracks made in src's order after dst's); src's
 * slices, E events and flow events come after dst's in input order (their
 * seq moved past dst's); a repair kind's first message stays dst's when it
 * has one. src's arrays are freed (or their pages given back) as they are
 * copied, so a merge needs little more memory than the two parts; src is
 * left to be freed by the caller. Out of memory exits (xalloc.h).
 */
#include "model/model_int.h"
#include "base/hmem.h"

#include <stdlib.h>

/* Gives the pages of a's first done elements back to the system once they
 * are no longer needed (a large array being copied elsewhere); *released
 * is how many bytes from the start were already given back. The array is
 * freed afterwards; the contents of given-back pages read as zeros. */
static void release_done(struct stint_bigarray *a, size_t done, size_t *released)
{
    size_t upto = done * a->elem;
    if (upto >= *released + ((size_t)1 << 20)) { /* a call per MiB at most */
        stint_hmem_release(a->data, a->cap * a->elem, *released, upto);
        *released = upto & ~(size_t)4095;
    }
}

/* Whether the pid or tid id was made synthetic by m (from a string, which
 * *name receives) rather than read as a number. */
static int synthetic_name(const struct stint_model *m, uint64_t k0, uint64_t k2, int64_t id, uint32_t *name)
{
    if (id > STINT_SYNTHETIC_ID0)
        return 0;
    const struct kmap *t = &m->open->synth;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].used && t->slots[i].k[0] == k0 && t->slots[i].k[2] == k2 &&
            STINT_SYNTHETIC_ID0 - (int64_t)t->slots[i].v == id) {
            *name = (uint32_t)t->slots[i].k[1];
            return 1;
        }
    return 0;
}

/* Numbers src's synthetic pids and tids in dst in the order src made them
 * (see stint_model_merge); smap maps src string ids. */
static void synth_reserve(struct stint_model *dst, const struct stint_model *src, const uint32_t *smap)
{
    const struct kmap *t = &src->open->synth;
    size_t n = (size_t)src->open->next_synthetic;
    if (!n)
        return;
    const struct kmap_slot **by_v = stint_xcalloc(n, sizeof *by_v);
    int64_t *dst_id = stint_xreallocarray(NULL, n, sizeof *dst_id); /* by src number: the dst id of a synthetic pid */
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].used && t->slots[i].v < n)
            by_v[t->slots[i].v] = &t->slots[i];
    for (size_t v = 0; v < n; v++) {
        const struct kmap_slot *e = by_v[v];
        int isnew;
        if (!e)
            continue;
        if (e->k[2] == 0) { /* a pid: key (0, name, 0) */
            dst_id[v] = stint_i_synth_id(dst, 0, smap[e->k[1]], 0, &isnew);
            continue;
        }
        /* a tid: key (1 + pid, name, 1), its pid made before it when synthetic */
        int64_t pid = (int64_t)(e->k[0] - 1);
        if (pid <= STINT_SYNTHETIC_ID0 && (uint64_t)(STINT_SYNTHETIC_ID0 - pid) < v)
            pid = dst_id[STINT_SYNTHETIC_ID0 - pid];
        stint_i_synth_id(dst, 1 + (uint64_t)pid, smap[e->k[1]], 1, &isnew);
    }
    free(by_v);
    free(dst_id);
}

/* src's pid as dst has it: the same number, or for a synthetic pid the one
 * dst gives its string (smap maps src string ids). */
static int64_t merge_pid(struct stint_model *dst, const struct stint_model *src, const uint32_t *smap, int64_t pid)
{
    uint32_t nm;
    return synthetic_name(src, 0, 0, pid, &nm) ? stint_model_synthetic_pid(dst, smap[nm]) : pid;
}

/* The dst lane of src's lane l (made, with its thread track, when new):
 * pidmap maps src process indices to dst pids, smap src string ids. */
static uint32_t merge_lane(struct stint_model *dst, const struct stint_model *src, const struct stint_lane *l,
                           const int64_t *pidmap, const uint32_t *smap)
{
    int64_t pid = pidmap[l->process], tid = l->tid;
    uint32_t nm;
    if (synthetic_name(src, 1 + (uint64_t)l->pid, 1, tid, &nm))
        tid = stint_model_synthetic_tid(dst, pid, smap[nm]);
    else if (tid == l->pid)
        tid = pid; /* a tid absent or 0 is the pid (read_chrome.c), which may have been renumbered */
    uint32_t d = stint_model_lane(dst, pid, tid, (enum stint_clock)l->clock);
    struct stint_lane *dl = &STINT_BA_AT(&dst->lanes, struct stint_lane, d);
    /* a string tid's lane is named by its text until an M event names it:
     * that default does not replace a name another part's M event gave */
    if (l->name && !(l->name == l->tid_text && dl->name))
        dl->name = smap[l->name];
    if (l->has_sort_index) {
        dl->sort_index = l->sort_index;
        dl->has_sort_index = 1;
    }
    if (l->tid_text)
        dl->tid_text = smap[l->tid_text];
    return d;
}

/* What src's strings, processes, lanes and tracks are in dst (by src
 * index), made by merge_strings and merge_tracks. */
struct merge_maps {
    uint32_t *smap;   /* string ids */
    int64_t *pidmap;  /* processes: dst pid */
    uint32_t *lmap;   /* lanes */
    uint32_t *tmap;   /* tracks */
};

static void merge_maps_free(struct merge_maps *mm)
{
    free(mm->smap);
    free(mm->pidmap);
    free(mm->lmap);
    free(mm->tmap);
}

/* src's strings interned in dst (smap), the attached tally merged, and
 * src's string table freed: src's pieces are freed as soon as they are
 * copied, so joining the halves of a big file needs little more memory
 * than the two halves. */
static void merge_strings(struct stint_model *dst, struct stint_model *src, struct merge_maps *mm)
{
    size_t ns = stint_i_nstrings(src);
    mm->smap = stint_xreallocarray(NULL, ns ? ns : 1, sizeof *mm->smap);
    for (size_t i = 0; i < ns; i++) {
        size_t len;
        const char *s = stint_model_str(src, (uint32_t)i, &len);
        mm->smap[i] = stint_model_intern(dst, s, len);
    }
    if (dst->sizes && src->sizes && dst->sizes_ops)
        dst->sizes_ops->merge(dst->sizes, src->sizes, mm->smap);
    stint_i_intern_free(src->strings);
    src->strings = NULL;
}

/* src's processes, lanes and tracks made in dst (pidmap, lmap, tmap) in
 * the order one thread reading both parts would have made them. */
static void merge_tracks(struct stint_model *dst, const struct stint_model *src, struct merge_maps *mm)
{
    const uint32_t *smap = mm->smap;
    mm->pidmap = stint_xreallocarray(NULL, src->processes.len + 1, sizeof *mm->pidmap);
    mm->lmap = stint_xreallocarray(NULL, src->lanes.len + 1, sizeof *mm->lmap);
    mm->tmap = stint_xreallocarray(NULL, src->tracks.len + 1, sizeof *mm->tmap);
    const struct stint_process *sp = src->processes.data;
    for (size_t i = 0; i < src->processes.len; i++) {
        int64_t pid = merge_pid(dst, src, smap, sp[i].pid);
        mm->pidmap[i] = pid;
        uint32_t p = stint_model_process(dst, pid);
        struct stint_process *dp = &STINT_BA_AT(&dst->processes, struct stint_process, p);
        if (sp[i].name && !(sp[i].name == sp[i].id_text && dp->name)) /* (as lanes' names: merge_lane) */
            dp->name = smap[sp[i].name];
        if (sp[i].has_sort_index) {
            dp->sort_index = sp[i].sort_index;
            dp->has_sort_index = 1;
        }
        if (sp[i].id_text)
            dp->id_text = smap[sp[i].id_text];
    }
    /* tracks in src's order, each lane with its thread track (a lane and
     * its track are made together): the new ones come after dst's in the
     * order one thread would have made them */
    const struct stint_lane *sl = src->lanes.data;
    for (size_t i = 0; i < src->lanes.len; i++)
        mm->lmap[i] = STINT_NO_ID;
    const struct stint_track *st = src->tracks.data;
    for (size_t i = 0; i < src->tracks.len; i++) {
        const struct stint_track *t = &st[i];
        int64_t pid = merge_pid(dst, src, smap, t->pid);
        switch (t->kind) {
        case STINT_TRACK_THREAD:
            mm->lmap[t->lane] = merge_lane(dst, src, &sl[t->lane], mm->pidmap, smap);
            mm->tmap[i] = STINT_BA_AT(&dst->lanes, struct stint_lane, mm->lmap[t->lane]).track;
            break;
        case STINT_TRACK_PROCESS:
            mm->tmap[i] = stint_model_track_process(dst, pid);
            break;
        case STINT_TRACK_GLOBAL:
            mm->tmap[i] = stint_model_track_global(dst);
            break;
        default:
            mm->tmap[i] = stint_model_track_async(dst, (enum stint_async_scope)t->scope, pid, smap[t->cat],
                                                  smap[t->id], smap[t->name]);
            break;
        }
    }
    for (size_t i = 0; i < src->lanes.len; i++) /* (every lane has its thread track: none is left) */
        if (mm->lmap[i] == STINT_NO_ID)
            mm->lmap[i] = merge_lane(dst, src, &sl[i], mm->pidmap, smap);
}

/* Appends args (n of them) to dst's array a, their string ids mapped. */
static void merge_args(struct stint_bigarray *a, const struct stint_arg *args, size_t n, const uint32_t *smap)
{
    for (size_t i = 0; i < n; i++) {
        struct stint_arg *x = stint_i_xpush(a);
        *x = args[i];
        x->key = smap[x->key];
        if (x->kind == STINT_ARG_STRING || x->kind == STINT_ARG_REAL || x->kind == STINT_ARG_JSON)
            x->sval = smap[x->sval];
    }
}

/* src's args, slices and E events after dst's (seq moved by seq0), each
 * array freed once copied. */
static void merge_events(struct stint_model *dst, struct stint_model *src, const struct merge_maps *mm, uint64_t seq0)
{
    const uint32_t *smap = mm->smap, *tmap = mm->tmap;
    size_t slice0 = dst->slices.len, arg0 = dst->args.len;
    if (stint_bigarray_reserve(&dst->slices, src->slices.len) != 0 ||
        stint_bigarray_reserve(&dst->args, src->args.len) != 0)
        stint_die_nomem();
    merge_args(&dst->args, src->args.data, src->args.len, smap);
    const struct stint_slice *ssl = src->slices.data;
    size_t released = 0;
    for (size_t i = 0; i < src->slices.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->slices, i, &released);
        /* a global async track's slice keeps the process that began it, which
         * may not be the pid the track has in dst (another part's first event) */
        int64_t pid0 = (ssl[i].flags & STINT_SLICE_ASYNC) ? stint_model_slice_pid(src, &ssl[i]) : 0;
        struct stint_slice *s = stint_i_xpush(&dst->slices);
        *s = ssl[i];
        s->track = tmap[s->track];
        s->name = smap[s->name];
        s->cat = smap[s->cat];
        s->seq += (uint32_t)seq0;
        if (s->flags & STINT_SLICE_ASYNC)
            stint_model_slice_from_process(dst, (uint32_t)(dst->slices.len - 1), pid0);
        if (s->args != STINT_NO_ID)
            s->args += (uint32_t)arg0;
        if ((s->flags & STINT_SLICE_EXPLICIT_PARENT) && s->parent != STINT_NO_ID)
            s->parent += (uint32_t)slice0;
    }
    stint_bigarray_free(&src->slices);
    stint_bigarray_free(&src->args);
    stint_i_tt_merge(dst, src, seq0);
    const struct end_ev *se = src->ends.data;
    released = 0;
    for (size_t i = 0; i < src->ends.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->ends, i, &released);
        struct end_ev *e = stint_i_xpush(&dst->ends);
        *e = se[i];
        e->track = tmap[e->track];
        e->name = smap[e->name];
        e->cat = smap[e->cat];
        e->seq += (uint32_t)seq0;
        if (e->args != STINT_NO_ID)
            e->args += (uint32_t)arg0;
    }
    stint_bigarray_free(&src->ends);
}

/* src's flow keys as dst's (the ids in them as dst's strings), and its flow
 * events after dst's (seq moved by seq0, v2 slices by slice0). */
static void merge_flows(struct stint_model *dst, struct stint_model *src, const struct merge_maps *mm, uint64_t seq0,
                        size_t slice0)
{
    const uint32_t *smap = mm->smap;
    const struct stint_flowkeys *sk = src->flowkeys;
    size_t nsk = sk ? sk->keys.len : 0;
    uint32_t *kmap = nsk ? stint_xreallocarray(NULL, nsk, sizeof *kmap) : NULL;
    for (size_t k = 0; k < nsk; k++) {
        const struct flowkey *fk = &STINT_BA_AT(&sk->keys, struct flowkey, k);
        uint64_t id = fk->id & STINT_FLOW_ID_STR ? STINT_FLOW_ID_STR | smap[(uint32_t)fk->id] : fk->id;
        kmap[k] = stint_model_flow_key(dst, fk->cat == STINT_NO_ID ? STINT_NO_ID : smap[fk->cat],
                                       fk->name == STINT_NO_ID ? STINT_NO_ID : smap[fk->name], id);
    }
    int unordered = sk && sk->unordered;
    stint_i_flowkeys_free(src->flowkeys);
    src->flowkeys = NULL;
    if (unordered)
        dst->flowkeys->unordered = 1;
    const struct flow_ev *sfe = src->flow_evs.data;
    size_t released = 0;
    for (size_t i = 0; i < src->flow_evs.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->flow_evs, i, &released);
        struct flow_ev *e = stint_i_xpush(&dst->flow_evs);
        *e = sfe[i];
        e->track = mm->tmap[e->track];
        e->key = kmap[e->key];
        stint_i_flow_seen(dst->flowkeys, e->key, e->ts_ns); /* (src's come after dst's) */
        e->seq += (uint32_t)seq0;
        if (e->phase == STINT_FLOW_V2)
            e->slice += (uint32_t)slice0;
    }
    stint_bigarray_free(&src->flow_evs);
    free(kmap);
}

/* src's counter series combined with dst's (aggregates added, samples
 * appended), its instant tallies added and its metadata appended. */
static void merge_counters(struct stint_model *dst, const struct stint_model *src, const struct merge_maps *mm)
{
    const uint32_t *smap = mm->smap;
    const struct stint_counter_series *sc = src->counters.data;
    uint32_t *cmap = stint_xreallocarray(NULL, src->counters.len + 1, sizeof *cmap);
    for (size_t i = 0; i < src->counters.len; i++) {
        int found;
        int64_t pid = merge_pid(dst, src, smap, sc[i].pid);
        struct kmap_slot *slot = stint_i_kmap_get(&dst->open->counters, (uint64_t)pid, smap[sc[i].name], 0, &found);
        if (!found) {
            struct stint_counter_series *c = stint_i_xpush(&dst->counters);
            *c = sc[i];
            c->pid = pid;
            c->name = smap[sc[i].name];
            slot->v = (uint32_t)(dst->counters.len - 1);
        } else {
            struct stint_counter_series *c = &STINT_BA_AT(&dst->counters, struct stint_counter_series, slot->v);
            c->samples += sc[i].samples;
            c->sum += sc[i].sum;
            if (sc[i].min < c->min)
                c->min = sc[i].min;
            if (sc[i].max > c->max)
                c->max = sc[i].max;
        }
        cmap[i] = slot->v;
    }
    const struct stint_counter_sample *ssm = src->samples.data;
    for (size_t i = 0; i < src->samples.len; i++) {
        struct stint_counter_sample *x = stint_i_xpush(&dst->samples);
        *x = ssm[i];
        x->series = cmap[x->series];
    }
    free(cmap);
    const struct stint_instant_stat *si = src->instants.data;
    for (size_t i = 0; i < src->instants.len; i++) {
        int found;
        struct kmap_slot *slot =
            stint_i_kmap_get(&dst->open->instants, (uint64_t)si[i].kind, smap[si[i].cat], smap[si[i].name], &found);
        if (!found) {
            struct stint_instant_stat *x = stint_i_xpush(&dst->instants);
            *x = si[i];
            x->cat = smap[si[i].cat];
            x->name = smap[si[i].name];
            x->count = 0;
            slot->v = (uint32_t)(dst->instants.len - 1);
        }
        STINT_BA_AT(&dst->instants, struct stint_instant_stat, slot->v).count += si[i].count;
    }
    merge_args(&dst->metadata, src->metadata.data, src->metadata.len, smap);
}

/* src's counts added to dst's: repairs (a kind's first message is dst's
 * when it has one: src's part of the input follows), losses, drops, events
 * and the error. */
static void merge_tallies(struct stint_model *dst, struct stint_model *src)
{
    for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
        dst->repairs[k] += src->repairs[k];
        if (!dst->repair_first[k] && src->repair_first[k]) {
            dst->repair_first[k] = src->repair_first[k];
            src->repair_first[k] = NULL;
            dst->repair_seq[k] = ++dst->repair_clock;
        }
    }
    for (size_t i = 0; i < src->losses.len; i++) {
        const struct stint_loss *l = &STINT_BA_AT(&src->losses, struct stint_loss, i);
        stint_model_loss(dst, l->pid, l->tid, l->count, l->first_ns, l->last_ns, l->flags);
    }
    dst->dropped += src->dropped;
    if (!dst->dropped_first) {
        dst->dropped_first = src->dropped_first;
        src->dropped_first = NULL;
    }
    dst->events += src->events;
    dst->flow_events += src->flow_events;
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
        dst->unmodelled[k] += src->unmodelled[k];
    if (src->partial) {
        dst->partial = 1;
        if (!dst->error) {
            dst->error = src->error;
            src->error = NULL;
        }
    }
}

int stint_model_merge(struct stint_model *dst, struct stint_model *src)
{
    struct merge_maps mm = {0};
    merge_strings(dst, src, &mm);
    /* src's synthetic ids in the order src made them (pids and tids
     * interleaved, as one thread reading both halves would have met them):
     * numbered in dst now, so the same strings get the same numbers as on
     * one thread; merge_tracks then makes the processes and lanes in src's
     * order */
    synth_reserve(dst, src, mm.smap);
    merge_tracks(dst, src, &mm);
    if (src->part_ctx && src->part_ops && dst->part_ctx) { /* the reader's part context, mapped */
        src->part_ops->merge(dst->part_ctx, src->part_ctx, dst, mm.smap, mm.lmap, mm.tmap);
        src->part_ctx = NULL;
    }
    uint64_t seq0 = dst->seq;
    size_t slice0 = dst->slices.len;
    merge_events(dst, src, &mm, seq0);
    merge_flows(dst, src, &mm, seq0, slice0);
    dst->seq += src->seq;
    if (stint_i_lean_merge(dst, src, mm.smap, mm.lmap, seq0) != 0) {
        merge_maps_free(&mm);
        return -1;
    }
    merge_counters(dst, src, &mm);
    merge_tallies(dst, src);
    merge_maps_free(&mm);
    return 0;
}
