/* SPDX-License-Identifier: MIT */
/*
 * model_lanes.c - processes, lanes (threads, and device-clock lanes) and
 * tracks: looked up by their keys, made on first use.
 *
 * Invariants: one process per pid, one lane per (pid, tid, clock), and
 * each lane made together with its thread track (so a lane's track always
 * exists); process, async-process and thread tracks make their process.
 * Indexes are given out in the order things are first met and never change.
 * Synthetic pids and tids (for string ids) count down from
 * STINT_SYNTHETIC_ID0 in the order they are made, one number per string
 * (and pid, for a tid). The lookups run per event: their map probes are
 * static inline (model_int.h).
 */
#include "model/model_int.h"

uint32_t stint_model_process(struct stint_model *m, int64_t pid)
{
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->procs, (uint64_t)pid, 0, 0, &found);
    if (found)
        return s->v;
    struct stint_process *p = stint_i_xpush(&m->processes);
    p->pid = pid;
    s->v = (uint32_t)(m->processes.len - 1);
    return s->v;
}

static uint32_t new_track(struct stint_model *m, const struct stint_track *t)
{
    struct stint_track *n = stint_i_xpush(&m->tracks);
    *n = *t;
    return (uint32_t)(m->tracks.len - 1);
}

uint32_t stint_model_lane(struct stint_model *m, int64_t pid, int64_t tid, enum stint_clock clk)
{
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->lanes, (uint64_t)pid, (uint64_t)tid, (uint64_t)clk, &found);
    if (found)
        return s->v;
    uint32_t idx = (uint32_t)m->lanes.len;
    s->v = idx; /* set before any call that may rehash the map */
    uint32_t proc = stint_model_process(m, pid);
    struct stint_track t = {.kind = STINT_TRACK_THREAD, .lane = idx, .pid = pid};
    uint32_t track = new_track(m, &t);
    struct stint_lane *l = stint_i_xpush(&m->lanes);
    l->pid = pid;
    l->tid = tid;
    l->process = proc;
    l->clock = (uint8_t)clk;
    l->track = track;
    return idx;
}

uint32_t stint_model_track_process(struct stint_model *m, int64_t pid)
{
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->tracks, 1, (uint64_t)pid, 0, &found);
    if (found)
        return s->v;
    struct stint_track t = {.kind = STINT_TRACK_PROCESS, .lane = STINT_NO_ID, .pid = pid};
    s->v = (uint32_t)m->tracks.len;
    stint_model_process(m, pid);
    new_track(m, &t);
    return s->v;
}

uint32_t stint_model_track_global(struct stint_model *m)
{
    if (m->open->global_track == STINT_NO_ID) {
        struct stint_track t = {.kind = STINT_TRACK_GLOBAL, .lane = STINT_NO_ID};
        m->open->global_track = new_track(m, &t);
    }
    return m->open->global_track;
}

uint32_t stint_model_track_async(struct stint_model *m, enum stint_async_scope scope, int64_t pid,
                                 uint32_t cat, uint32_t id, uint32_t name)
{
    int found;
    uint64_t k0 = 2 + (uint64_t)scope;
    uint64_t k1 = scope == STINT_ASYNC_GLOBAL ? 0 : (uint64_t)pid;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->tracks, k0, k1, ((uint64_t)cat << 32) | id, &found);
    if (found)
        return s->v;
    struct stint_track t = {.kind = STINT_TRACK_ASYNC, .scope = (uint8_t)scope, .lane = STINT_NO_ID,
                            .pid = pid, .name = name, .cat = cat, .id = id};
    s->v = (uint32_t)m->tracks.len;
    if (scope == STINT_ASYNC_PROCESS)
        stint_model_process(m, pid);
    new_track(m, &t);
    return s->v;
}

int64_t stint_i_synth_id(struct stint_model *m, uint64_t k0, uint32_t name, uint64_t k2, int *isnew)
{
    int found;
    struct kmap_slot *s = stint_i_kmap_get(&m->open->synth, k0, name, k2, &found);
    if (!found)
        s->v = (uint32_t)m->open->next_synthetic++;
    *isnew = !found;
    return STINT_SYNTHETIC_ID0 - (int64_t)s->v;
}

int64_t stint_model_synthetic_pid(struct stint_model *m, uint32_t name)
{
    int isnew;
    int64_t pid = stint_i_synth_id(m, 0, name, 0, &isnew);
    if (isnew) {
        uint32_t p = stint_model_process(m, pid);
        ((struct stint_process *)m->processes.data)[p].name = name;
        ((struct stint_process *)m->processes.data)[p].id_text = name;
    }
    return pid;
}

int64_t stint_model_synthetic_tid(struct stint_model *m, int64_t pid, uint32_t name)
{
    int isnew;
    int64_t tid = stint_i_synth_id(m, 1 + (uint64_t)pid, name, 1, &isnew);
    if (isnew) {
        uint32_t l = stint_model_lane(m, pid, tid, STINT_CLOCK_HOST);
        ((struct stint_lane *)m->lanes.data)[l].name = name;
        ((struct stint_lane *)m->lanes.data)[l].tid_text = name;
    }
    return tid;
}

