/*
 * model.c - the trace model: string interning, processes/lanes/tracks, slices,
 * counters, repairs, and the finish step that orders slices and nests them.
 *
 * Invariants: string id 0 is ""; interned strings never move (they live in
 * append-only arena blocks), so stint_model_str() pointers stay valid for the
 * model's lifetime. Lookup tables are open-addressing hashes keyed by up to
 * three 64-bit words. Slices are appended in input order with a sequence
 * number; stint_model_finish() groups them by track (stable counting sort),
 * sorts each track only when its input order was not already sorted, and
 * computes depth and parent with one stack pass per track.
 */
#include "model/model_int.h"
#include "base/intervals.h"
#include "base/hmem.h"
#include "base/nearsort.h"
#include "base/selftrace.h"
#include "base/tsparse.h"
#include "base/umap.h"

#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

/* A pending E event, matched in finish(). */
struct end_ev {
    int64_t ts_ns;
    int64_t tts_ns;
    uint32_t seq;
    uint32_t track;
    uint32_t name;
    /* Its args (KEEP_ARGS), STINT_NO_ID = none: index in m->args of a count
     * record (key 0, INT, ival = n) followed by the n args. The count lives
     * in m->args so that this record stays small. */
    uint32_t args;
    uint32_t cat; /* 0: none; else only a B of this category is closed */
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- big arrays ------------------------------------------------------------- */

void stint_bigarray_init(struct stint_bigarray *a, size_t elem_size)
{
    memset(a, 0, sizeof *a);
    a->elem = elem_size;
}

int stint_bigarray_reserve(struct stint_bigarray *a, size_t n)
{
    if (a->len + n <= a->cap)
        return 0;
    size_t cap = a->cap ? a->cap : 16;
    while (cap < a->len + n)
        cap *= 2;
    void *p = stint_hmem_realloc(a->data, a->cap * a->elem, cap * a->elem);
    if (!p)
        return -1;
    a->data = p;
    a->cap = cap;
    return 0;
}

void *stint_bigarray_push(struct stint_bigarray *a)
{
    if (a->len == a->cap && stint_bigarray_reserve(a, 1) != 0)
        return NULL;
    char *p = (char *)a->data + a->len * a->elem;
    memset(p, 0, a->elem);
    a->len++;
    return p;
}

void stint_bigarray_free(struct stint_bigarray *a)
{
    stint_hmem_free(a->data, a->cap * a->elem);
    a->data = NULL;
    a->len = a->cap = 0; /* (the array may be used again) */
}

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

static void *xpush(struct stint_bigarray *a)
{
    void *p = stint_bigarray_push(a);
    if (!p) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    return p;
}

/* ---- hashing ------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = mix64(h ^ w);
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return mix64(h ^ w ^ 0x1234567ULL);
}

/* A map from a 3-word key to a uint32 value. */
struct kmap_slot {
    uint64_t k[3];
    uint32_t v;
    uint32_t used;
};
struct kmap {
    struct kmap_slot *slots;
    size_t cap, len;
};

static uint64_t kmap_hash(const uint64_t k[3]) { return mix64(k[0] ^ mix64(k[1] ^ mix64(k[2] + 7))); }

static void kmap_grow(struct kmap *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct kmap_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].used)
            continue;
        size_t j = kmap_hash(t->slots[i].k) & (ncap - 1);
        while (ns[j].used)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
}

/* Returns the slot for key; *found says whether it was there. */
static struct kmap_slot *kmap_get(struct kmap *t, uint64_t a, uint64_t b, uint64_t c, int *found)
{
    if ((t->len + 1) * 4 >= t->cap * 3)
        kmap_grow(t);
    uint64_t k[3] = {a, b, c};
    size_t j = kmap_hash(k) & (t->cap - 1);
    while (t->slots[j].used) {
        if (t->slots[j].k[0] == a && t->slots[j].k[1] == b && t->slots[j].k[2] == c) {
            *found = 1;
            return &t->slots[j];
        }
        j = (j + 1) & (t->cap - 1);
    }
    *found = 0;
    t->slots[j].used = 1;
    memcpy(t->slots[j].k, k, sizeof k);
    t->len++;
    return &t->slots[j];
}

/* ---- string interning ----------------------------------------------------------- */

#define ARENA_BLOCK ((size_t)1 << 20)

struct str_entry {
    const char *s;
    uint32_t len;
    uint32_t hash32;
};

struct stint_intern {
    struct str_entry *ents; /* by id */
    size_t n, cap;
    uint32_t *table; /* id+1, 0 = empty */
    size_t tcap;
    struct arena_block {
        char *p;
        size_t size; /* ARENA_BLOCK (from hmem) or one long string's (malloc) */
    } *blocks;
    size_t nblocks, bcap;
    char *cur;
    size_t cur_left;
};

static void flowkeys_free(struct stint_flowkeys *f);

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    return q;
}

static char *arena_copy(struct stint_intern *t, const char *s, size_t len)
{
    if (len + 1 > t->cur_left) {
        size_t sz = len + 1 > ARENA_BLOCK / 4 ? len + 1 : ARENA_BLOCK;
        char *blk = sz == ARENA_BLOCK ? stint_hmem_alloc(sz) : malloc(sz);
        if (!blk) {
            fprintf(stderr, "stint: out of memory\n");
            exit(3);
        }
        if (t->nblocks == t->bcap) {
            t->bcap = t->bcap ? t->bcap * 2 : 16;
            t->blocks = xrealloc(t->blocks, t->bcap * sizeof *t->blocks);
        }
        t->blocks[t->nblocks++] = (struct arena_block){blk, sz};
        if (sz == ARENA_BLOCK) {
            t->cur = blk;
            t->cur_left = sz;
        } else {
            memcpy(blk, s, len);
            blk[len] = 0;
            return blk;
        }
    }
    char *p = t->cur;
    memcpy(p, s, len);
    p[len] = 0;
    t->cur += len + 1;
    t->cur_left -= len + 1;
    return p;
}

/* Doubles an open-addressing table of ids (*table: *tcap slots, each id + 1
 * or 0 for empty; none yet: 1024 slots) and places ids 0..n-1 in it again,
 * each by linear probing from home(ctx, id, mask). */
static void table_regrow(uint32_t **table, size_t *tcap, size_t n, size_t (*home)(const void *, size_t, size_t),
                         const void *ctx)
{
    size_t ncap = *tcap ? *tcap * 2 : 1024;
    uint32_t *nt = stint_hmem_xrealloc(NULL, 0, ncap * sizeof *nt);
    memset(nt, 0, ncap * sizeof *nt);
    for (size_t id = 0; id < n; id++) {
        size_t j = home(ctx, id, ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = (uint32_t)id + 1;
    }
    stint_hmem_free(*table, *tcap * sizeof **table);
    *table = nt;
    *tcap = ncap;
}

static size_t intern_home(const void *ctx, size_t id, size_t mask)
{
    return ((const struct stint_intern *)ctx)->ents[id].hash32 & mask;
}

static void intern_rehash(struct stint_intern *t)
{
    table_regrow(&t->table, &t->tcap, t->n, intern_home, t);
}

uint32_t stint_model_intern(struct stint_model *m, const char *s, size_t len)
{
    struct stint_intern *t = m->strings;
    if (len == 0)
        return 0;
    if ((t->n + 1) * 2 >= t->tcap)
        intern_rehash(t);
    uint32_t h = (uint32_t)hash_bytes(s, len);
    size_t j = h & (t->tcap - 1);
    for (uint32_t slot; (slot = t->table[j]) != 0; j = (j + 1) & (t->tcap - 1)) {
        const struct str_entry *e = &t->ents[slot - 1];
        if (e->hash32 == h && e->len == len && memcmp(e->s, s, len) == 0)
            return slot - 1;
    }
    if (t->n == t->cap) {
        size_t old = t->cap;
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->ents = stint_hmem_xrealloc(t->ents, old * sizeof *t->ents, t->cap * sizeof *t->ents);
    }
    uint32_t id = (uint32_t)t->n++;
    t->ents[id].s = arena_copy(t, s, len);
    t->ents[id].len = (uint32_t)len;
    t->ents[id].hash32 = h;
    t->table[j] = id + 1;
    return id;
}

const char *stint_model_str(const struct stint_model *m, uint32_t id, size_t *len_out)
{
    const struct stint_intern *t = m->strings;
    if (id >= t->n) {
        if (len_out)
            *len_out = 0;
        return "";
    }
    if (len_out)
        *len_out = t->ents[id].len;
    return t->ents[id].s;
}

/* ---- open spans ----------------------------------------------------------------- */

struct ustack {
    uint32_t *v;
    size_t n, cap;
};

struct stint_open {
    struct kmap procs, lanes, tracks, counters, instants, synth;
    int64_t next_synthetic;
    uint32_t global_track;
};

static void ustack_push(struct ustack *s, uint32_t v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = v;
}

/* ---- lifecycle ------------------------------------------------------------------- */

int stint_model_init(struct stint_model *m, unsigned flags)
{
    memset(m, 0, sizeof *m);
    m->flags = flags;
    m->strings = calloc(1, sizeof *m->strings);
    m->open = calloc(1, sizeof *m->open);
    if (!m->strings || !m->open) {
        free(m->strings);
        free(m->open);
        return -1;
    }
    stint_bigarray_init(&m->processes, sizeof(struct stint_process));
    stint_bigarray_init(&m->lanes, sizeof(struct stint_lane));
    stint_bigarray_init(&m->tracks, sizeof(struct stint_track));
    stint_bigarray_init(&m->slices, sizeof(struct stint_slice));
    stint_bigarray_init(&m->args, sizeof(struct stint_arg));
    stint_bigarray_init(&m->counters, sizeof(struct stint_counter_series));
    stint_bigarray_init(&m->samples, sizeof(struct stint_counter_sample));
    stint_bigarray_init(&m->instants, sizeof(struct stint_instant_stat));
    stint_bigarray_init(&m->metadata, sizeof(struct stint_arg));
    stint_bigarray_init(&m->losses, sizeof(struct stint_loss));
    stint_bigarray_init(&m->ends, sizeof(struct end_ev));
    stint_bigarray_init(&m->flows, sizeof(struct stint_flow));
    stint_bigarray_init(&m->flow_evs, sizeof(struct flow_ev));
    /* id 0 is the empty string */
    struct stint_intern *t = m->strings;
    intern_rehash(t);
    t->cap = 1024;
    t->ents = stint_hmem_xrealloc(NULL, 0, t->cap * sizeof *t->ents);
    t->ents[0].s = "";
    t->ents[0].len = 0;
    t->ents[0].hash32 = 0;
    t->n = 1;
    m->open->global_track = STINT_NO_ID;
    m->open->next_synthetic = 0;
    return 0;
}

static void open_free(struct stint_open *o)
{
    free(o->procs.slots);
    free(o->lanes.slots);
    free(o->tracks.slots);
    free(o->counters.slots);
    free(o->instants.slots);
    free(o->synth.slots);
    free(o);
}

static void intern_free(struct stint_intern *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nblocks; i++) {
        if (t->blocks[i].size == ARENA_BLOCK)
            stint_hmem_free(t->blocks[i].p, ARENA_BLOCK);
        else
            free(t->blocks[i].p);
    }
    free(t->blocks);
    stint_hmem_free(t->ents, t->cap * sizeof *t->ents);
    stint_hmem_free(t->table, t->tcap * sizeof *t->table);
    free(t);
}

/* Where some slices came from, by the slice's seq: the host thread of a
 * device-lane slice whose thread is not its lane's first one
 * (stint_model_slice_from_thread), or the process of a slice on a global
 * async track begun by another process than the track's first
 * (stint_model_slice_from_process). seq -> index into v. */
struct stint_origins {
    struct stint_umap by_seq;
    int64_t *v;
    size_t n, cap;
};

static void origins_free(struct stint_origins *o)
{
    if (!o)
        return;
    stint_umap_free(&o->by_seq);
    free(o->v);
    free(o);
}

/* Remembers v for the slice of sequence number seq. */
static void origin_put(struct stint_model *m, uint32_t seq, int64_t v)
{
    struct stint_origins *o = m->origins;
    if (!o)
        o = m->origins = memset(xrealloc(NULL, sizeof *o), 0, sizeof *o);
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->v = xrealloc(o->v, o->cap * sizeof *o->v);
    }
    int isnew;
    uint32_t k = stint_umap_get(&o->by_seq, seq, (uint32_t)o->n, &isnew);
    if (isnew)
        o->n++;
    o->v[k] = v;
}

/* What origin_put remembered for seq: 1 and *v, or 0. */
static int origin_get(const struct stint_model *m, uint32_t seq, int64_t *v)
{
    if (!m->origins)
        return 0;
    uint32_t k = stint_umap_find(&m->origins->by_seq, seq);
    if (k == STINT_UMAP_NONE)
        return 0;
    *v = m->origins->v[k];
    return 1;
}

void stint_model_slice_from_thread(struct stint_model *m, uint32_t idx, int64_t tid)
{
    const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, idx);
    struct stint_lane *l = &STINT_BA_AT(&m->lanes, struct stint_lane,
                                        stint_model_track_at(m, s->track)->lane);
    if (!l->host_tids) {
        l->host_tid = tid;
        l->host_tids = 1;
        return;
    }
    if (tid == l->host_tid)
        return;
    l->host_tids = 2;
    origin_put(m, s->seq, tid);
}

int stint_model_slice_thread(const struct stint_model *m, const struct stint_slice *s, int64_t *tid)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind != STINT_TRACK_THREAD)
        return 0;
    const struct stint_lane *l = stint_model_lane_at(m, t->lane);
    if (l->clock != STINT_CLOCK_DEVICE || !l->host_tids)
        return 0;
    *tid = l->host_tid;
    if (l->host_tids == 2)
        origin_get(m, s->seq, tid);
    return 1;
}

/* Whether track t is a global async track (its pid is its first event's). */
static int global_async(const struct stint_track *t)
{
    return t->kind == STINT_TRACK_ASYNC && t->scope == STINT_ASYNC_GLOBAL;
}

void stint_model_slice_from_process(struct stint_model *m, uint32_t idx, int64_t pid)
{
    const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, idx);
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (global_async(t) && pid != t->pid)
        origin_put(m, s->seq, pid);
}

int64_t stint_model_slice_pid(const struct stint_model *m, const struct stint_slice *s)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    int64_t pid = t->kind == STINT_TRACK_GLOBAL ? 0 : t->pid;
    if (global_async(t))
        origin_get(m, s->seq, &pid);
    return pid;
}

void stint_model_free(struct stint_model *m)
{
    if (m->sizes && m->sizes_ops)
        m->sizes_ops->free(m->sizes);
    m->sizes = NULL;
    intern_free(m->strings);
    if (m->open)
        open_free(m->open);
    stint_bigarray_free(&m->processes);
    stint_bigarray_free(&m->lanes);
    stint_bigarray_free(&m->tracks);
    stint_bigarray_free(&m->slices);
    stint_bigarray_free(&m->args);
    stint_bigarray_free(&m->counters);
    stint_bigarray_free(&m->samples);
    stint_bigarray_free(&m->instants);
    stint_bigarray_free(&m->metadata);
    stint_bigarray_free(&m->losses);
    stint_bigarray_free(&m->ends);
    stint_bigarray_free(&m->flows);
    stint_bigarray_free(&m->flow_evs);
    flowkeys_free(m->flowkeys);
    stint_i_lean_free(m);
    origins_free(m->origins);
    for (int i = 0; i < STINT_REPAIR_COUNT; i++)
        free(m->repair_first[i]);
    free(m->dropped_first);
    free(m->error);
    memset(m, 0, sizeof *m);
}

/* ---- names ------------------------------------------------------------------------- */

const char *stint_track_kind_name(enum stint_track_kind k)
{
    switch (k) {
    case STINT_TRACK_THREAD: return "thread";
    case STINT_TRACK_ASYNC: return "async";
    case STINT_TRACK_PROCESS: return "process";
    case STINT_TRACK_GLOBAL: return "global";
    }
    return "?";
}

const char *stint_repair_name(enum stint_repair r)
{
    static const char *const names[STINT_REPAIR_COUNT] = {
        "unfinished_span", "unmatched_end", "overlapping_complete", "negative_dur",
        "trailing_comma", "missing_close", "unknown_phase", "string_number",
        "unmatched_async_end", "torn_record", "unknown_version", "control_char_in_string", "x_without_dur", "unbound_flow",
        "async_step", "sample_event", "lone_surrogate", "legacy_async", "id_not_integer", "misplaced_end_event",
        "instant_scope", "async_without_id", "bad_thread_time", "negative_ts", "flow_invalid_id",
        "flow_without_direction", "bad_loss_record",
    };
    return (unsigned)r < STINT_REPAIR_COUNT ? names[r] : "?";
}

const char *stint_unmodelled_name(enum stint_unmodelled u)
{
    static const char *const names[STINT_UNMODELLED_KINDS] = {"op", "tensor", "memory", "gradient", "fork", "edge"};
    return (unsigned)u < STINT_UNMODELLED_KINDS ? names[u] : "?";
}

void stint_model_put_unmodelled(FILE *f, const struct stint_model *m)
{
    const char *sep = "";
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
        if (m->unmodelled[k]) {
            fprintf(f, "%s%" PRIu64 " %s", sep, m->unmodelled[k], stint_unmodelled_name((enum stint_unmodelled)k));
            sep = ", ";
        }
}

uint64_t stint_model_unmodelled(const struct stint_model *m)
{
    uint64_t n = 0;
    for (int k = 0; k < STINT_UNMODELLED_KINDS; k++)
        n += m->unmodelled[k];
    return n;
}

/* ---- processes, lanes, tracks -------------------------------------------------------- */

uint32_t stint_model_process(struct stint_model *m, int64_t pid)
{
    int found;
    struct kmap_slot *s = kmap_get(&m->open->procs, (uint64_t)pid, 0, 0, &found);
    if (found)
        return s->v;
    struct stint_process *p = xpush(&m->processes);
    p->pid = pid;
    s->v = (uint32_t)(m->processes.len - 1);
    return s->v;
}

static uint32_t new_track(struct stint_model *m, const struct stint_track *t)
{
    struct stint_track *n = xpush(&m->tracks);
    *n = *t;
    return (uint32_t)(m->tracks.len - 1);
}

uint32_t stint_model_lane(struct stint_model *m, int64_t pid, int64_t tid, enum stint_clock clk)
{
    int found;
    struct kmap_slot *s = kmap_get(&m->open->lanes, (uint64_t)pid, (uint64_t)tid, (uint64_t)clk, &found);
    if (found)
        return s->v;
    uint32_t idx = (uint32_t)m->lanes.len;
    s->v = idx; /* set before any call that may rehash the map */
    uint32_t proc = stint_model_process(m, pid);
    struct stint_track t = {.kind = STINT_TRACK_THREAD, .lane = idx, .pid = pid};
    uint32_t track = new_track(m, &t);
    struct stint_lane *l = xpush(&m->lanes);
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
    struct kmap_slot *s = kmap_get(&m->open->tracks, 1, (uint64_t)pid, 0, &found);
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
    struct kmap_slot *s = kmap_get(&m->open->tracks, k0, k1, ((uint64_t)cat << 32) | id, &found);
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

/* The synthetic id of key (k0, name, k2) in m's map of them, made (the next
 * number) when new, which *isnew then says. */
static int64_t synth_id(struct stint_model *m, uint64_t k0, uint32_t name, uint64_t k2, int *isnew)
{
    int found;
    struct kmap_slot *s = kmap_get(&m->open->synth, k0, name, k2, &found);
    if (!found)
        s->v = (uint32_t)m->open->next_synthetic++;
    *isnew = !found;
    return STINT_SYNTHETIC_ID0 - (int64_t)s->v;
}

int64_t stint_model_synthetic_pid(struct stint_model *m, uint32_t name)
{
    int isnew;
    int64_t pid = synth_id(m, 0, name, 0, &isnew);
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
    int64_t tid = synth_id(m, 1 + (uint64_t)pid, name, 1, &isnew);
    if (isnew) {
        uint32_t l = stint_model_lane(m, pid, tid, STINT_CLOCK_HOST);
        ((struct stint_lane *)m->lanes.data)[l].name = name;
        ((struct stint_lane *)m->lanes.data)[l].tid_text = name;
    }
    return tid;
}

/* ---- slices ------------------------------------------------------------------------ */

/* A duration below -1 (the "unfinished" mark) is kept as 0 and counted. */
static void fix_negative_dur(struct stint_model *m, struct stint_slice *s)
{
    if (s->dur_ns < -1) {
        stint_model_repair(m, STINT_REPAIR_NEGATIVE_DUR, "slice '%s' at ts %lld ns has dur %lld ns",
                           stint_model_str(m, s->name, NULL), (long long)s->ts_ns, (long long)s->dur_ns);
        s->dur_ns = 0;
    }
}

/* Thread times outside the kept range (tsparse.h) are forgotten: they only
 * feed tdur, never an order or a nesting. */
static int64_t tts_kept(int64_t tts)
{
    return stint_ts_in_range(tts) ? tts : STINT_TS_NONE;
}

/* add_slice's rare path: counts a slice outside the kept range as dropped. */
__attribute__((cold, noinline)) static uint32_t drop_out_of_range(struct stint_model *m, const struct stint_slice *c)
{
    stint_model_drop(m, "slice '%s' at ts %lld ns with dur %lld ns lies outside the kept time range "
                     "(|t| < 2^62 ns, about 146 years)",
                     stint_model_str(m, c->name, NULL), (long long)c->ts_ns, (long long)c->dur_ns);
    return STINT_NO_ID;
}

uint32_t stint_model_add_slice(struct stint_model *m, const struct stint_slice *s)
{
    struct stint_slice c = *s;
    fix_negative_dur(m, &c);
    if (__builtin_expect(!stint_ts_in_range(c.ts_ns) || (c.dur_ns >= 0 && !stint_end_in_range(c.ts_ns, c.dur_ns)),
                         0))
        return drop_out_of_range(m, &c);
    if (c.tts_ns != STINT_TS_NONE) {
        c.tts_ns = tts_kept(c.tts_ns);
        if (c.tdur_ns != STINT_TS_NONE && (c.tts_ns == STINT_TS_NONE || !stint_ts_in_range(c.tdur_ns)))
            c.tdur_ns = STINT_TS_NONE;
    } else
        c.tdur_ns = STINT_TS_NONE; /* no thread time: no thread duration either */
    if (stint_i_lean_add(m, &c)) {
        m->seq++;
        return STINT_NO_ID;
    }
    struct stint_slice *n = xpush(&m->slices);
    *n = c;
    n->args = STINT_NO_ID;
    n->nargs = 0;
    if (!(n->flags & STINT_SLICE_EXPLICIT_PARENT))
        n->parent = STINT_NO_ID;
    n->depth = 0;
    n->seq = (uint32_t)m->seq++;
    n->flags &= (uint16_t)~STINT_SLICE_NEEDS_INDEX;
    if (m->flags & STINT_MODEL_LEAN)
        stint_i_lean_note(m, n);
    return (uint32_t)(m->slices.len - 1);
}

void stint_model_set_span_split(struct stint_model *m, const struct stint_span_split *sp) { m->span_split = sp; }

void stint_model_set_span_sink(struct stint_model *m, stint_span_sink fn, void *ctx)
{
    m->span_sink = fn;
    m->span_sink_ctx = ctx;
}

void stint_model_add_arg(struct stint_model *m, uint32_t slice, const struct stint_arg *a)
{
    if (!(m->flags & STINT_MODEL_KEEP_ARGS) || slice == STINT_NO_ID)
        return;
    struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, slice);
    if (s->nargs == UINT16_MAX) {
        stint_model_drop(m, "slice '%s' at ts %lld ns has more than %u args: the rest are dropped",
                         stint_model_str(m, s->name, NULL), (long long)s->ts_ns, (unsigned)UINT16_MAX);
        return;
    }
    struct stint_arg *n = xpush(&m->args);
    *n = *a;
    if (s->args == STINT_NO_ID)
        s->args = (uint32_t)(m->args.len - 1);
    s->nargs++;
}

uint32_t stint_model_begin(struct stint_model *m, uint32_t lane, const struct stint_slice *s)
{
    struct stint_slice c = *s;
    c.track = STINT_BA_AT(&m->lanes, struct stint_lane, lane).track;
    c.dur_ns = -1;
    c.flags |= STINT_SLICE_BEGIN_END | STINT_SLICE_FROM_B;
    return stint_model_add_slice(m, &c);
}

/* 1 when an end, flow or counter timestamp is in the kept range; else drops
 * the event and counts it. */
static int event_ts_ok(struct stint_model *m, const char *what, uint32_t name, int64_t ts_ns)
{
    if (stint_ts_in_range(ts_ns))
        return 1;
    stint_model_drop(m, "%s '%s' at ts %lld ns lies outside the kept time range (|t| < 2^62 ns, about 146 years)", what,
                     stint_model_str(m, name, NULL), (long long)ts_ns);
    return 0;
}

uint32_t stint_model_end(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name, int64_t tts_ns)
{
    return stint_model_end_cat(m, lane, ts_ns, name, 0, tts_ns);
}

uint32_t stint_model_end_cat(struct stint_model *m, uint32_t lane, int64_t ts_ns, uint32_t name, uint32_t cat,
                             int64_t tts_ns)
{
    m->end_dropped = !event_ts_ok(m, "end event", name, ts_ns);
    if (m->end_dropped)
        return STINT_NO_ID;
    struct end_ev *e = xpush(&m->ends);
    e->ts_ns = ts_ns;
    e->tts_ns = tts_kept(tts_ns);
    e->seq = (uint32_t)m->seq++;
    e->track = STINT_BA_AT(&m->lanes, struct stint_lane, lane).track;
    e->name = name;
    e->args = STINT_NO_ID;
    e->cat = cat;
    return STINT_NO_ID;
}

void stint_model_end_arg(struct stint_model *m, const struct stint_arg *a)
{
    if (!(m->flags & STINT_MODEL_KEEP_ARGS) || m->ends.len == 0 || m->end_dropped)
        return;
    struct end_ev *e = &STINT_BA_AT(&m->ends, struct end_ev, m->ends.len - 1);
    if (e->args == STINT_NO_ID) {
        struct stint_arg *h = xpush(&m->args);
        h->kind = STINT_ARG_INT; /* key 0, ival 0: the count record */
        e->args = (uint32_t)(m->args.len - 1);
    }
    struct stint_arg *h = &STINT_BA_AT(&m->args, struct stint_arg, e->args);
    if (h->ival == UINT16_MAX) {
        stint_model_drop(m, "end event '%s' at ts %lld ns has more than %u args: the rest are dropped",
                         stint_model_str(m, e->name, NULL), (long long)e->ts_ns, (unsigned)UINT16_MAX);
        return;
    }
    h->ival++;
    *(struct stint_arg *)xpush(&m->args) = *a;
}

uint32_t stint_model_async_begin(struct stint_model *m, uint32_t track, const struct stint_slice *s)
{
    struct stint_slice c = *s;
    c.track = track;
    c.dur_ns = -1;
    c.flags |= STINT_SLICE_ASYNC | STINT_SLICE_FROM_B;
    return stint_model_add_slice(m, &c);
}

uint32_t stint_model_async_end(struct stint_model *m, uint32_t track, int64_t ts_ns, uint32_t name)
{
    m->end_dropped = !event_ts_ok(m, "async end", name, ts_ns);
    if (m->end_dropped)
        return STINT_NO_ID;
    struct end_ev *e = xpush(&m->ends);
    e->ts_ns = ts_ns;
    e->tts_ns = STINT_TS_NONE;
    e->seq = (uint32_t)m->seq++;
    e->track = track;
    e->name = name;
    e->args = STINT_NO_ID;
    e->cat = 0; /* (the track is the category's and id's) */
    return STINT_NO_ID;
}

/* ---- flow identities ------------------------------------------------------------------- */

/* One flow identity (stint_model_flow_key) and the table that finds it: a
 * key's id is its index in keys. Flow ids are mostly numbers given out in
 * sequence, and an id's s and f events come close together in the file, so
 * the low four bits of a numeric id pick the slot within a group of 16 (one
 * cache line of the table) that the rest of the key hashes to: ids in
 * sequence share lines and keys in insertion order, and a lookup mostly hits
 * the cache (a hashed table, or the string table before this, missed it on
 * nearly every flow event of a large trace). */
struct flowkey {
    uint32_t cat, name;
    uint64_t id;
    int64_t last_ts; /* the start of its last event so far (flow_seen) */
};

struct stint_flowkeys {
    struct stint_bigarray keys; /* struct flowkey, by key */
    uint32_t *table;            /* key + 1, 0 = empty; tcap slots, a power of two >= 16 */
    size_t tcap;
    int unordered;              /* some key's events are not in time order in flow_evs (flow_seen) */
};

/* Notes that the next event of key (in flow_evs order) starts at ts: a key
 * whose events come in time order in flow_evs is bound in that order
 * (bind_flows), without putting all events in order first. */
static inline void flow_seen(struct stint_flowkeys *f, uint32_t key, int64_t ts)
{
    struct flowkey *k = &STINT_BA_AT(&f->keys, struct flowkey, key);
    if (ts < k->last_ts)
        f->unordered = 1;
    else
        k->last_ts = ts;
}

/* Where key k's search starts in a table of mask + 1 slots (linear probing from there). */
static size_t flowkey_home(const struct flowkey *k, size_t mask)
{
    uint64_t pair = mix64(((uint64_t)k->cat << 32) | k->name);
    if (k->id & STINT_FLOW_ID_STR)
        return mix64(k->id ^ pair) & mask;
    return ((mix64((k->id >> 4) ^ pair) << 4) | (k->id & 15)) & mask;
}

static size_t flowkey_home_of(const void *ctx, size_t k, size_t mask)
{
    return flowkey_home(&STINT_BA_AT(&((const struct stint_flowkeys *)ctx)->keys, struct flowkey, k), mask);
}

static void flowkeys_rehash(struct stint_flowkeys *f)
{
    table_regrow(&f->table, &f->tcap, f->keys.len, flowkey_home_of, f);
}

static void flowkeys_free(struct stint_flowkeys *f)
{
    if (!f)
        return;
    stint_bigarray_free(&f->keys);
    stint_hmem_free(f->table, f->tcap * sizeof *f->table);
    free(f);
}

uint32_t stint_model_flow_key(struct stint_model *m, uint32_t cat, uint32_t name, uint64_t id)
{
    struct stint_flowkeys *f = m->flowkeys;
    if (!f) {
        if (!(f = m->flowkeys = calloc(1, sizeof *f))) {
            fprintf(stderr, "stint: out of memory\n");
            exit(3);
        }
        stint_bigarray_init(&f->keys, sizeof(struct flowkey));
    }
    if ((f->keys.len + 1) * 2 >= f->tcap)
        flowkeys_rehash(f);
    struct flowkey k = {.cat = cat, .name = name, .id = id, .last_ts = INT64_MIN};
    size_t mask = f->tcap - 1, j = flowkey_home(&k, mask);
    for (uint32_t slot; (slot = f->table[j]) != 0; j = (j + 1) & mask) {
        const struct flowkey *e = &STINT_BA_AT(&f->keys, struct flowkey, slot - 1);
        if (e->id == id && e->cat == cat && e->name == name)
            return slot - 1;
    }
    *(struct flowkey *)xpush(&f->keys) = k;
    f->table[j] = (uint32_t)f->keys.len;
    return (uint32_t)(f->keys.len - 1);
}

void stint_model_flow(struct stint_model *m, enum stint_flow_phase phase, uint32_t track, int64_t ts_ns, uint32_t key,
                      int enclosing, uint32_t slice, int flow_in, int flow_out)
{
    if (!event_ts_ok(m, "flow event", key, ts_ns))
        return;
    if (m->flowkeys && key < m->flowkeys->keys.len)
        flow_seen(m->flowkeys, key, ts_ns);
    else if (m->flowkeys)
        m->flowkeys->unordered = 1; /* (a key that is not one: bound in time order, as before) */
    struct flow_ev *e = xpush(&m->flow_evs);
    e->ts_ns = ts_ns;
    e->track = track;
    e->key = key;
    e->slice = slice;
    e->bound = STINT_NO_ID;
    e->seq = (uint32_t)m->seq++;
    e->phase = (uint8_t)phase;
    e->enclosing = (uint8_t)(enclosing != 0);
    e->in = (uint8_t)(flow_in != 0);
    e->out = (uint8_t)(flow_out != 0);
    m->flow_events++;
}

/* ---- counters and instants ------------------------------------------------------------ */

void stint_model_counter(struct stint_model *m, int64_t pid, uint32_t series_name, int64_t ts_ns, double value)
{
    if (!event_ts_ok(m, "counter sample", series_name, ts_ns))
        return;
    if (!isfinite(value)) { /* (nan, inf, or 1e999 and the like, which overflow a double) */
        stint_model_drop(m, "counter sample '%s' at ts %lld ns is not a finite number", stint_model_str(m, series_name, NULL),
                         (long long)ts_ns);
        return;
    }
    int found;
    struct kmap_slot *s = kmap_get(&m->open->counters, (uint64_t)pid, series_name, 0, &found);
    if (!found) {
        struct stint_counter_series *c = xpush(&m->counters);
        c->pid = pid;
        c->name = series_name;
        c->min = value;
        c->max = value;
        c->first_sample = STINT_NO_ID;
        s->v = (uint32_t)(m->counters.len - 1);
    }
    struct stint_counter_series *c = &STINT_BA_AT(&m->counters, struct stint_counter_series, s->v);
    c->samples++;
    if (value < c->min)
        c->min = value;
    if (value > c->max)
        c->max = value;
    c->sum += value;
    if (m->flags & STINT_MODEL_KEEP_SAMPLES) {
        struct stint_counter_sample *smp = xpush(&m->samples);
        smp->ts_ns = ts_ns;
        smp->value = value;
        smp->series = s->v;
    }
}

void stint_model_instant_stat(struct stint_model *m, enum stint_track_kind kind, uint32_t cat, uint32_t name)
{
    int found;
    struct kmap_slot *s = kmap_get(&m->open->instants, (uint64_t)kind, cat, name, &found);
    if (!found) {
        struct stint_instant_stat *st = xpush(&m->instants);
        st->name = name;
        st->cat = cat;
        st->kind = (uint8_t)kind;
        s->v = (uint32_t)(m->instants.len - 1);
    }
    STINT_BA_AT(&m->instants, struct stint_instant_stat, s->v).count++;
}

/* ---- repairs and errors ------------------------------------------------------------------ */

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return strdup(buf);
}

/* The repairs of the finish's walkers when two run (stint_model_finish):
 * counted per walker, each kind's first message being that of the lowest
 * track the walker met it on (its first there), and added to the model
 * after both, the lower track's message first: counts and first messages
 * come out as on one thread, which walks the tracks in order. */
struct repair_log {
    uint64_t n[STINT_REPAIR_COUNT];
    char *first[STINT_REPAIR_COUNT];
    size_t first_track[STINT_REPAIR_COUNT];
};
static _Thread_local struct repair_log *repair_redirect;
static _Thread_local size_t repair_track; /* the track the walker is on */

void stint_model_repair(struct stint_model *m, enum stint_repair kind, const char *fmt, ...)
{
    if ((unsigned)kind >= STINT_REPAIR_COUNT)
        return;
    if (repair_redirect) { /* (a walker takes tracks in any order: keep the lowest track's first) */
        struct repair_log *l = repair_redirect;
        if (l->n[kind]++ == 0 || repair_track < l->first_track[kind]) {
            va_list ap;
            va_start(ap, fmt);
            free(l->first[kind]);
            l->first[kind] = vformat(fmt, ap);
            va_end(ap);
            l->first_track[kind] = repair_track;
        }
        return;
    }
    if (m->repairs[kind]++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        m->repair_first[kind] = vformat(fmt, ap);
        va_end(ap);
        m->repair_seq[kind] = ++m->repair_clock;
    }
}

int stint_model_first_repair(const struct stint_model *m)
{
    int best = -1;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (m->repairs[k] && (best < 0 || m->repair_seq[k] < m->repair_seq[best]))
            best = k;
    return best;
}

void stint_model_drop(struct stint_model *m, const char *fmt, ...)
{
    if (m->dropped++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        m->dropped_first = vformat(fmt, ap);
        va_end(ap);
    }
}

void stint_model_fail(struct stint_model *m, const char *fmt, ...)
{
    m->partial = 1;
    if (!m->error) {
        va_list ap;
        va_start(ap, fmt);
        m->error = vformat(fmt, ap);
        va_end(ap);
    }
}

/* ---- finish --------------------------------------------------------------------------------- */

/* Perfetto's order within a track (model.h): ts; then slices with a known
 * duration, longest first; then B events and instants in input order. */
static int slice_class(const struct stint_slice *s)
{
    return (s->flags & (STINT_SLICE_FROM_B | STINT_SLICE_INSTANT)) ? 1 : 0;
}

static int slice_cmp(const void *pa, const void *pb)
{
    const struct stint_slice *a = pa, *b = pb;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    int ca = slice_class(a), cb = slice_class(b);
    if (ca != cb)
        return ca - cb;
    if (ca == 0) {
        uint64_t da = a->dur_ns < 0 ? UINT64_MAX : (uint64_t)a->dur_ns;
        uint64_t db = b->dur_ns < 0 ? UINT64_MAX : (uint64_t)b->dur_ns;
        if (da != db)
            return da > db ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorting one track's slices: a merge sort of 16-byte (ts, index) keys,
 * ties broken by slice_cmp, then one in-place permutation of the 64-byte
 * records along its cycles. Cheaper than qsort on the records (which
 * moves or indirects 64 bytes per step through a comparator call) and it
 * needs 32 bytes of scratch per slice instead of a copy of the records.
 * slice_cmp is a total order (seq breaks every tie), so the result is the
 * one qsort gives. */
struct skey {
    int64_t ts;
    size_t idx;
};

static inline int skey_less(const struct stint_slice *sl, const struct skey *a, const struct skey *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts;
    return slice_cmp(&sl[a->idx], &sl[b->idx]) < 0;
}

static void sort_slices(struct stint_slice *sl, size_t n)
{
    struct skey *k = xrealloc(NULL, n * sizeof *k), *t = xrealloc(NULL, n * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        k[i].ts = sl[i].ts_ns;
        k[i].idx = i;
    }
    /* insertion sort on runs of 16, then bottom-up merges */
    const size_t run = 16;
    for (size_t a = 0; a < n; a += run) {
        size_t b = a + run < n ? a + run : n;
        for (size_t i = a + 1; i < b; i++) {
            struct skey x = k[i];
            size_t j = i;
            while (j > a && skey_less(sl, &x, &k[j - 1])) {
                k[j] = k[j - 1];
                j--;
            }
            k[j] = x;
        }
    }
    for (size_t w = run; w < n; w *= 2) {
        for (size_t a = 0; a < n; a += 2 * w) {
            size_t mid = a + w < n ? a + w : n, b = a + 2 * w < n ? a + 2 * w : n;
            size_t i = a, j = mid, o = a;
            while (i < mid && j < b)
                t[o++] = skey_less(sl, &k[j], &k[i]) ? k[j++] : k[i++];
            while (i < mid)
                t[o++] = k[i++];
            while (j < b)
                t[o++] = k[j++];
        }
        struct skey *x = k;
        k = t;
        t = x;
    }
    /* new[j] = old[k[j].idx], cycle by cycle; a visited key points at itself */
    for (size_t i = 0; i < n; i++) {
        if (k[i].idx == i)
            continue;
        struct stint_slice saved = sl[i];
        size_t j = i;
        for (;;) {
            size_t src = k[j].idx;
            k[j].idx = j;
            if (src == i) {
                sl[j] = saved;
                break;
            }
            sl[j] = sl[src];
            j = src;
        }
    }
    free(k);
    free(t);
}

static int end_cmp(const void *pa, const void *pb)
{
    const struct end_ev *a = pa, *b = pb;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static inline int end_less(const struct end_ev *a, const struct end_ev *b)
{
    if (a->track != b->track)
        return a->track < b->track;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns;
    return a->seq < b->seq;
}

STINT_DEFINE_NEAR_SORT(end_near_sort, struct end_ev, end_less)

static size_t *track_starts(const void *items, size_t n, size_t size, size_t off, size_t ntracks);

/* Puts m's pending E events in (track, ts, seq) order, stably; returns
 * where each track's start (track t's are [st[t], st[t + 1]) of
 * m->ends). A trace interleaves its threads' batches, so the events are
 * first grouped by track (a counting sort into a second array, which then
 * replaces the first), each track's mostly arriving in time order, then
 * each track put in order (nearsort.h); a general sort of the whole array
 * merged its many runs in as many passes as log2 of their number. */
static size_t *sort_ends(struct stint_model *m, size_t ntracks)
{
    struct end_ev *ends = m->ends.data;
    size_t n = m->ends.len;
    int grouped = 1;
    size_t *st = track_starts(ends, n, sizeof *ends, offsetof(struct end_ev, track), ntracks);
    for (size_t i = 1; i < n && grouped; i++)
        grouped = ends[i - 1].track <= ends[i].track;
    struct end_ev *by = grouped ? NULL : stint_hmem_alloc(n * sizeof *by);
    size_t *pos = by ? malloc((ntracks + 1) * sizeof *pos) : NULL;
    if (!grouped && (!by || !pos)) { /* (out of memory for the copy: in place) */
        stint_hmem_free(by, n * sizeof *by);
        free(pos);
        if (!end_near_sort(ends, n))
            qsort(ends, n, sizeof *ends, end_cmp);
        return st;
    }
    if (by) {
        memcpy(pos, st, (ntracks + 1) * sizeof *pos);
        for (size_t i = 0; i < n; i++)
            by[pos[ends[i].track]++] = ends[i];
        free(pos);
        stint_bigarray_free(&m->ends);
        m->ends.data = ends = by;
        m->ends.len = m->ends.cap = n;
    }
    for (size_t t = 0; t < ntracks; t++)
        if (st[t + 1] - st[t] > 1 && !end_near_sort(ends + st[t], st[t + 1] - st[t]))
            qsort(ends + st[t], st[t + 1] - st[t], sizeof *ends, end_cmp);
    return st;
}

/* Merges the args of end event ev into slice c, which it closes (model.h:
 * the end's value wins on a key both have). Without begin args the slice
 * takes the end's run as it is; otherwise a fresh run is written at the end
 * of m->args (the old one stays unused: only pairs whose E has args pay). */
static void merge_end_args(struct stint_model *m, struct stint_slice *c, const struct end_ev *ev)
{
    if (ev->args == STINT_NO_ID)
        return;
    const struct stint_arg *h = &STINT_BA_AT(&m->args, struct stint_arg, ev->args);
    size_t ne = (size_t)h->ival;
    if (c->args == STINT_NO_ID || c->nargs == 0) {
        c->args = ev->args + 1;
        c->nargs = (uint16_t)ne;
        return;
    }
    size_t nb = c->nargs, at = m->args.len;
    if (stint_bigarray_reserve(&m->args, nb + ne) != 0) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    for (size_t i = 0; i < nb; i++)
        *(struct stint_arg *)xpush(&m->args) = STINT_BA_AT(&m->args, struct stint_arg, c->args + i);
    for (size_t k = 0; k < ne; k++) {
        const struct stint_arg *ea = &STINT_BA_AT(&m->args, struct stint_arg, ev->args + 1 + k);
        size_t i = at;
        while (i < m->args.len && STINT_BA_AT(&m->args, struct stint_arg, i).key != ea->key)
            i++;
        if (i < m->args.len)
            STINT_BA_AT(&m->args, struct stint_arg, i) = *ea;
        else if (m->args.len - at < UINT16_MAX)
            *(struct stint_arg *)xpush(&m->args) = *ea;
        else
            stint_model_drop(m, "slice '%s' at ts %lld ns has more than %u args with its end's: the rest are dropped",
                             stint_model_str(m, c->name, NULL), (long long)c->ts_ns, (unsigned)UINT16_MAX);
    }
    c->args = (uint32_t)at;
    c->nargs = (uint16_t)(m->args.len - at);
}

/* Whether the slice is still open at the nesting pass: a B not yet ended. */
static int is_open(const struct stint_slice *s) { return s->dur_ns < 0; }


/* Explicit parents name input indexes (== seq); map them to sorted indexes and
 * derive depth along the parent chain. */
static void resolve_explicit_parents(struct stint_model *m)
{
    SELF_SCOPE("explicit parents");
    size_t n = m->slices.len;
    struct stint_slice *sl = m->slices.data;
    uint32_t *pos = malloc(n * sizeof *pos);
    if (!pos) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    /* slices were appended in seq order, so a slice's input index is the rank
     * of its seq among the slices (E events use seq numbers too) */
    uint64_t *key = malloc(n * sizeof *key);
    if (!key) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)sl[i].seq << 32) | (uint32_t)i;
    qsort(key, n, sizeof *key, cmp_u64);
    for (size_t r = 0; r < n; r++)
        pos[r] = (uint32_t)key[r];
    free(key);
    for (size_t i = 0; i < n; i++)
        if ((sl[i].flags & STINT_SLICE_EXPLICIT_PARENT) && sl[i].parent != STINT_NO_ID)
            sl[i].parent = sl[i].parent < n ? pos[sl[i].parent] : STINT_NO_ID;
    free(pos);
    for (size_t i = 0; i < n; i++) {
        if (!(sl[i].flags & STINT_SLICE_EXPLICIT_PARENT))
            continue;
        uint32_t d = 0;
        for (uint32_t p = sl[i].parent; p != STINT_NO_ID && d <= n; p = sl[p].parent)
            d++;
        sl[i].depth = d;
    }
}

static int flow_ev_cmp(const void *pa, const void *pb)
{
    const struct flow_ev *a = pa, *b = pb;
    if (a->ts_ns != b->ts_ns)
        return a->ts_ns < b->ts_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static inline int flow_ev_less(const struct flow_ev *a, const struct flow_ev *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->seq < b->seq;
}

STINT_DEFINE_NEAR_SORT(flow_near_sort, struct flow_ev, flow_ev_less)

/* Puts the pending flow events in (ts, seq) order: they mostly arrive in
 * order (and a second call finds them sorted), so nearsort.h first. */
static void sort_flow_evs(struct stint_model *m)
{
    struct flow_ev *fe = m->flow_evs.data;
    size_t nf = m->flow_evs.len;
    if (!flow_near_sort(fe, nf))
        qsort(fe, nf, sizeof *fe, flow_ev_cmp);
}

void stint_model_presort(struct stint_model *m)
{
    sort_flow_evs(m);
}

/* Slices of track t are sl[start[t] .. start[t+1]), sorted by ts. */
static uint32_t slice_enclosing(const struct stint_slice *sl, const size_t *start, uint32_t t, int64_t ts)
{
    size_t lo = start[t], hi = start[t + 1];
    while (lo < hi) { /* first slice with ts > ts */
        size_t mid = lo + (hi - lo) / 2;
        if (sl[mid].ts_ns <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == start[t])
        return STINT_NO_ID;
    for (uint32_t c = (uint32_t)(lo - 1); c != STINT_NO_ID; c = sl[c].parent) {
        const struct stint_slice *x = &sl[c];
        if (x->dur_ns < 0 || ts < x->ts_ns + x->dur_ns || (x->dur_ns == 0 && ts == x->ts_ns))
            return c;
        if (x->flags & STINT_SLICE_EXPLICIT_PARENT)
            break;
    }
    return STINT_NO_ID;
}

static uint32_t slice_next(const struct stint_slice *sl, const size_t *start, uint32_t t, int64_t ts)
{
    size_t lo = start[t], hi = start[t + 1];
    while (lo < hi) { /* first slice with ts >= ts */
        size_t mid = lo + (hi - lo) / 2;
        if (sl[mid].ts_ns < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < start[t + 1] ? (uint32_t)lo : STINT_NO_ID;
}

static void add_flow(struct stint_model *m, uint32_t out, uint32_t in)
{
    struct stint_flow *f = xpush(&m->flows);
    f->slice_out = out;
    f->slice_in = in;
}

/* The size of flow_last_new's array for m's flow keys. */
static size_t flow_last_bytes(const struct stint_model *m)
{
    size_t nkeys = m->flowkeys ? m->flowkeys->keys.len : 0;
    return 2 * (nkeys ? nkeys : 1) * sizeof(uint32_t);
}

/* The last slice of each flow key for bind_flows, none yet: v1 and v2 keys
 * apart, keys are dense, so a plain array (slot 2 * key + v2) instead of a
 * hash map. From hmem.h (a megabyte or more for a large trace: fresh 4 KiB
 * pages cost more to touch than filling them); bind_flows frees it. */
static uint32_t *flow_last_new(const struct stint_model *m)
{
    size_t bytes = flow_last_bytes(m);
    uint32_t *last = stint_hmem_xrealloc(NULL, 0, bytes);
    for (size_t k = 0; k < bytes / sizeof *last; k++)
        last[k] = STINT_NO_ID;
    return last;
}

/* A flow event that binds to nothing or continues nothing (bind_flows):
 * counted, and the earliest in (ts, seq) order kept for the message, as
 * when the events are taken in that order. */
enum unbound_why {
    UNBOUND_NO_OUT,   /* v2: a flow_in with no flow_out before it */
    UNBOUND_NO_SLICE, /* v1: no slice to bind to */
    UNBOUND_NO_START  /* v1: a step or end that continues no started flow */
};

struct unbound {
    uint64_t n;
    const struct flow_ev *first;
    uint32_t slice; /* UNBOUND_NO_OUT: the slice the first names */
    enum unbound_why why;
};

static void unbound_note(struct unbound *u, const struct flow_ev *e, uint32_t slice, enum unbound_why why)
{
    if (u->n++ == 0 || e->ts_ns < u->first->ts_ns || (e->ts_ns == u->first->ts_ns && e->seq < u->first->seq)) {
        u->first = e;
        u->slice = slice;
        u->why = why;
    }
}

static void unbound_report(struct stint_model *m, const struct unbound *u)
{
    if (!u->n)
        return;
    const struct flow_ev *e = u->first;
    if (u->why == UNBOUND_NO_OUT) {
        const struct stint_slice *s = stint_model_slice(m, u->slice);
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow_in on '%s' at ts %lld ns has no flow_out before it",
                           stint_model_str(m, s->name, NULL), (long long)s->ts_ns);
    } else if (u->why == UNBOUND_NO_SLICE)
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow event '%c' at ts %lld ns has no slice to bind to",
                           e->phase, (long long)e->ts_ns);
    else
        stint_model_repair(m, STINT_REPAIR_UNBOUND_FLOW, "flow event '%c' at ts %lld ns continues no started flow",
                           e->phase, (long long)e->ts_ns);
    m->repairs[STINT_REPAIR_UNBOUND_FLOW] += u->n - 1;
}

/* Binds the pending flow events to slices (after nesting; start[] as above,
 * or NULL when the v1 events carry their binding in bound), taking each
 * flow key's events in (ts, seq) order (keys do not interact): fe[ord[0]],
 * fe[ord[1]], ... when ord is given (all of them, in that order); fe as it
 * stands when as_is (each key's events are in that order there:
 * flow_seen); else sorted in place first. last: from flow_last_new (freed
 * here), or NULL for one made here. The arrows (m->flows) come in the
 * order taken. */
static void bind_flows(struct stint_model *m, const size_t *start, const uint32_t *ord, int as_is, uint32_t *last)
{
    SELF_SCOPE("bind flows");
    size_t nf = m->flow_evs.len, n = m->slices.len;
    if (!nf) {
        stint_hmem_free(last, flow_last_bytes(m));
        return;
    }
    struct flow_ev *fe = m->flow_evs.data;
    struct stint_slice *sl = m->slices.data;
    if (!ord && !as_is)
        sort_flow_evs(m);
    struct unbound ub = {0};
    /* v2 names slices by input index: map those to sorted positions */
    uint32_t *pos = NULL;
    for (size_t i = 0; i < nf && !pos; i++)
        if (fe[i].phase == STINT_FLOW_V2) {
            pos = malloc((n ? n : 1) * sizeof *pos);
            uint64_t *key = malloc((n ? n : 1) * sizeof *key);
            if (!pos || !key) {
                fprintf(stderr, "stint: out of memory\n");
                exit(3);
            }
            for (size_t k = 0; k < n; k++)
                key[k] = ((uint64_t)sl[k].seq << 32) | (uint32_t)k;
            qsort(key, n, sizeof *key, cmp_u64);
            for (size_t r = 0; r < n; r++)
                pos[r] = (uint32_t)key[r];
            free(key);
        }
    if (!last)
        last = flow_last_new(m);
    for (size_t i = 0; i < nf; i++) {
        const struct flow_ev *e = &fe[ord ? ord[i] : i];
        if (e->phase == STINT_FLOW_V2) {
            if (e->slice >= n)
                continue;
            uint32_t s = pos[e->slice];
            uint32_t *k = &last[2 * (size_t)e->key + 1];
            if (e->in) {
                if (*k != STINT_NO_ID)
                    add_flow(m, *k, s);
                else
                    unbound_note(&ub, e, s, UNBOUND_NO_OUT);
            }
            if (e->out)
                *k = s;
            continue;
        }
        uint32_t s = !start ? e->bound /* bound by the lean track walks (or nothing to bind to) */
                     : (e->phase == STINT_FLOW_V1_END && !e->enclosing) ? slice_next(sl, start, e->track, e->ts_ns)
                                                                         : slice_enclosing(sl, start, e->track, e->ts_ns);
        if (s == STINT_NO_ID) {
            unbound_note(&ub, e, 0, UNBOUND_NO_SLICE);
            continue;
        }
        uint32_t *k = &last[2 * (size_t)e->key];
        if (e->phase != STINT_FLOW_V1_START) {
            if (*k != STINT_NO_ID)
                add_flow(m, *k, s);
            else
                unbound_note(&ub, e, 0, UNBOUND_NO_START);
        }
        *k = e->phase == STINT_FLOW_V1_END ? STINT_NO_ID : s;
    }
    unbound_report(m, &ub);
    stint_hmem_free(last, flow_last_bytes(m));
    free(pos);
    stint_bigarray_free(&m->flow_evs);
    flowkeys_free(m->flowkeys);
    m->flowkeys = NULL;
}

/* Counts an E (or async e) event that closes nothing. */
static void end_unmatched(struct stint_model *m, const struct end_ev *ev)
{
    const struct stint_track *tr = &STINT_BA_AT(&m->tracks, struct stint_track, ev->track);
    if (tr->kind == STINT_TRACK_THREAD) {
        const struct stint_lane *ln = &STINT_BA_AT(&m->lanes, struct stint_lane, tr->lane);
        stint_model_repair(m, STINT_REPAIR_E_UNMATCHED, "E '%s' at ts %lld ns on pid %lld tid %lld closes no open B",
                           stint_model_str(m, ev->name, NULL), (long long)ev->ts_ns, (long long)ln->pid,
                           (long long)ln->tid);
    } else
        stint_model_repair(m, STINT_REPAIR_ASYNC_UNMATCHED, "async end '%s' at ts %lld ns matches no begin",
                           stint_model_str(m, ev->name, NULL), (long long)ev->ts_ns);
}

/* bind_flows of a lean model (whose walks bound the v1 events) on a thread
 * of its own, in the order the flow prep found (struct flow_prep, below). */
struct bind_job {
    struct stint_model *m;
    const uint32_t *ord;
    int as_is;
    uint32_t *last;
};

static void *bind_flows_thread(void *arg)
{
    struct bind_job *b = arg;
    stint_i_self_thread("stint bind");
    bind_flows(b->m, NULL, b->ord, b->as_is, b->last);
    return NULL;
}

/* What the finish's track walkers share (struct finish_walker). */
struct finish_share {
    struct stint_model *m;
    struct end_ev *ends;         /* sorted by track: track t's are [estart[t], estart[t + 1]) */
    const size_t *estart;
    const size_t *start;         /* each track's slices: [start[t], start[t + 1]) */
    int lean;
    struct flow_ev *lfe;         /* lean: v1 flow events, by track through lidx/lstart */
    const uint32_t *lidx;
    const size_t *lstart;
    const uint32_t *order;       /* the tracks in the order they are taken (NULL: 0, 1, ...) */
    size_t n;                    /* tracks */
    size_t next;                 /* the next one to take (atomic) */
};

/* One walker: its sink and scratch, and what it found. */
struct finish_walker {
    struct finish_share *sh;
    struct stint_i_walker w;
    int any_explicit;
    int logged;                  /* repairs go to log (two walkers) */
    struct repair_log log;
};

/* Perfetto's rule for slices still open above a B that has ended (its E
 * closed it below the stack's top): once an event comes after that end (now
 * past it; or at it, but for an E: E events come first at one ts, so ends
 * written out of order at one ts still match), those of them that started
 * while it ran are cut to it, and one misplaced_end_event is counted. (Perfetto does the same above an ended X;
 * stint keeps those B slices' own ends and counts them overlapping, see
 * docs/speedscope-differences.md, bex-interaction.) Scans the stack from its top; returns
 * whether such an ended slice is left (with open slices above it). */
static int cut_open_above(struct stint_model *m, struct stint_slice *sl, struct ustack *st, int64_t now, int at_end,
                          uint32_t *openb)
{
    int left = 0;
    int64_t first_open = INT64_MAX; /* the earliest start of the open slices above (not cut) */
    const struct stint_slice *inner = NULL; /* the innermost open slice above */
    for (size_t j = st->n; j-- > 0;) {
        struct stint_slice *o = &sl[st->v[j]];
        if (is_open(o)) {
            if (!inner)
                inner = o;
            if (o->ts_ns < first_open)
                first_open = o->ts_ns;
            continue;
        }
        int64_t end = o->ts_ns + o->dur_ns;
        /* only slices opened while it ran are its (an X above it that outlived
         * it can carry later ones: Perfetto would have spilled that X) */
        if (!(o->flags & STINT_SLICE_FROM_B) || first_open >= end) /* (under an X: bex-interaction) */
            continue;
        if (now < end || (now == end && at_end)) {
            left = 1;
            continue;
        }
        stint_model_repair(m, STINT_REPAIR_MISPLACED_END,
                           "'%s' [%lld, %lld) ns ended below slices still open (the innermost: '%s' from %lld ns): "
                           "they are cut at its end",
                           stint_model_str(m, o->name, NULL), (long long)o->ts_ns, (long long)end,
                           stint_model_str(m, inner->name, NULL), (long long)inner->ts_ns);
        first_open = INT64_MAX;
        inner = NULL;
        for (size_t u = st->n; u-- > j + 1;) {
            struct stint_slice *c = &sl[st->v[u]];
            if (!is_open(c))
                continue;
            if (c->ts_ns < end) {
                c->dur_ns = end - c->ts_ns;
                if (openb && (c->flags & STINT_SLICE_FROM_B))
                    openb[c->name]--;
                continue;
            }
            if (!inner)
                inner = c;
            if (c->ts_ns < first_open)
                first_open = c->ts_ns;
        }
        /* (they leave the stack as ended slices do, from its top: closed X
         * above them may still run, as in the lean walk) */
    }
    return left;
}

/* Takes tracks until none is left: nests them, matches their E events
 * (those that match nothing counted as repairs) and (lean) streams them.
 * Touches only the tracks' own slices, ends and flow events, the walker
 * and the repair counts (its log when logged). */
static void walk_tracks(struct finish_walker *W)
{
    struct finish_share *sh = W->sh;
    struct stint_model *m = sh->m;
    struct end_ev *ends = sh->ends;
    const size_t *start = sh->start, *lstart = sh->lstart;
    const uint32_t *lidx = sh->lidx;
    struct flow_ev *lfe = sh->lfe;
    int lean = sh->lean, *any_explicit = &W->any_explicit;
    struct stint_i_walker *w = &W->w;
    struct stint_slice *sl = m->slices.data;
    struct ustack st = {0};
    /* open B slices on the stack per name: an E whose name has none closes
     * nothing without a look through the stack (120k unmatched E events over
     * 120k open B slices took 15 s) */
    uint32_t *openb = m->ends.len && m->strings ? calloc(m->strings->n + 1, sizeof *openb) : NULL;
    SELF_SCOPE_CPU("walk tracks");
    if (W->logged)
        repair_redirect = &W->log;
    for (size_t x; (x = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->n;) {
        size_t t = sh->order ? sh->order[x] : x;
        SELF_SCOPE("walk track");
        stint_i_self_attr("track", (int64_t)t);
        size_t a = start[t], b = start[t + 1];
        size_t ei = sh->estart[t], nends = sh->estart[t + 1]; /* (ends past the track's are never looked at) */
        repair_track = t;
        const struct stint_track *trk = &STINT_BA_AT(&m->tracks, struct stint_track, t);
        int lean_track = lean && trk->kind == STINT_TRACK_THREAD;
        if (a == b && !lean_track) { /* E events of a track without slices close nothing */
            while (ei < nends)
                end_unmatched(m, &ends[ei++]);
            continue;
        }
        /* most tracks arrive in order: one linear check, sort only when needed */
        for (size_t i = a + 1; i < b; i++)
            if (slice_cmp(&sl[i - 1], &sl[i]) > 0) {
                sort_slices(sl + a, b - a);
                break;
            }
        st.n = 0;
        int cut_pending = 0; /* an ended slice on the stack has open ones above it */
        int64_t *rts = NULL; /* lean: the track's record starts, sorted, once cut_pending was set */
        size_t nrts = 0;
        int rts_made = 0;
        size_t i = a;
        for (;;) {
            int have_end = ei < nends && ends[ei].track == t;
            if (i >= b && !have_end)
                break;
            int64_t now = (have_end && (i >= b || ends[ei].ts_ns <= sl[i].ts_ns)) ? ends[ei].ts_ns : sl[i].ts_ns;
            /* slices with a known end that has passed are closed (half-open: one
             * ending at now is closed, but for a zero-length one when what comes
             * at now is zero-length too, or an E: two dur-0 slices at one ts nest) */
            int at_end = have_end && ends[ei].ts_ns == now;
            int zero_next = at_end || sl[i].dur_ns == 0;
            /* in lean mode the track's complete spans are records, not in this
             * pass: one that starts before now (at or after an ended B's end: an
             * X at that ts comes after its E events) cuts first */
            if (cut_pending && lean_track) {
                if (!rts_made) {
                    rts = stint_i_lean_starts(m, trk->lane, &nrts);
                    rts_made = 1;
                }
                size_t lo = 0, hi = nrts; /* the records before now: rts[0..lo) */
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (rts[mid] < now)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo)
                    cut_pending = cut_open_above(m, sl, &st, rts[lo - 1], 0, openb);
            }
            if (cut_pending)
                cut_pending = cut_open_above(m, sl, &st, now, at_end, openb);
            while (st.n) {
                const struct stint_slice *top = &sl[st.v[st.n - 1]];
                if (is_open(top))
                    break;
                int64_t end = top->ts_ns + top->dur_ns;
                if (end < now || (end == now && (top->dur_ns > 0 || !zero_next)))
                    st.n--;
                else
                    break;
            }
            if (at_end) {
                /* E events first at equal ts */
                const struct end_ev *ev = &ends[ei++];
                size_t k = st.n;
                if (openb && ev->name && !openb[ev->name])
                    k = 0; /* none of its name is open */
                while (k-- > 0) {
                    const struct stint_slice *c = &sl[st.v[k]];
                    if ((c->flags & STINT_SLICE_FROM_B) && is_open(c) && (ev->name == 0 || c->name == ev->name) &&
                        (ev->cat == 0 || c->cat == ev->cat))
                        break;
                }
                if (k == (size_t)-1) {
                    /* A zero-length pair written B then E at one ts: Perfetto takes the E first
                     * and leaves both unmatched; stint pairs them (dur 0), see
                     * docs/speedscope-differences.md. */
                    size_t q = i;
                    for (; q < b && sl[q].ts_ns == ev->ts_ns; q++)
                        if ((sl[q].flags & STINT_SLICE_FROM_B) && is_open(&sl[q]) && sl[q].seq < ev->seq &&
                            (ev->name == 0 || sl[q].name == ev->name) && (ev->cat == 0 || sl[q].cat == ev->cat))
                            break;
                    if (q < b && sl[q].ts_ns == ev->ts_ns) {
                        sl[q].dur_ns = 0;
                        if (ev->tts_ns != STINT_TS_NONE && sl[q].tts_ns != STINT_TS_NONE)
                            sl[q].tdur_ns = ev->tts_ns - sl[q].tts_ns;
                        merge_end_args(m, &sl[q], ev);
                        continue;
                    }
                    end_unmatched(m, ev);
                    continue;
                }
                struct stint_slice *c = &sl[st.v[k]];
                c->dur_ns = ev->ts_ns - c->ts_ns;
                if (openb)
                    openb[c->name]--;
                if (ev->tts_ns != STINT_TS_NONE && c->tts_ns != STINT_TS_NONE)
                    c->tdur_ns = ev->tts_ns - c->tts_ns;
                merge_end_args(m, c, ev);
                /* with slices still open above it, the match stays on the stack
                 * (Perfetto pops a slice only from the top) and they are cut to its
                 * end once an event comes after that end (cut_open_above) */
                int open_above = 0; /* (slices open above it started while it ran: E first at equal ts) */
                for (size_t u = k + 1; u < st.n && !open_above; u++)
                    open_above = is_open(&sl[st.v[u]]);
                if (open_above) {
                    cut_pending = 1;
                } else { /* only closed slices above it (X that overlap it): it is done */
                    memmove(&st.v[k], &st.v[k + 1], (st.n - k - 1) * sizeof *st.v);
                    st.n--;
                }
                continue;
            }
            struct stint_slice *s = &sl[i];
            if (s->flags & STINT_SLICE_EXPLICIT_PARENT) {
                *any_explicit = 1;
            } else if (st.n) {
                struct stint_slice *top = &sl[st.v[st.n - 1]];
                s->parent = st.v[st.n - 1];
                s->depth = top->depth + 1;
                if (!lean_track && !is_open(top) && !is_open(s) && s->ts_ns + s->dur_ns > top->ts_ns + top->dur_ns) {
                    s->flags |= STINT_SLICE_OVERLAP;
                    stint_model_repair(m, STINT_REPAIR_OVERLAP,
                                       "'%s' [%lld, %lld) ns starts inside '%s' [%lld, %lld) ns but ends after it",
                                       stint_model_str(m, s->name, NULL), (long long)s->ts_ns,
                                       (long long)(s->ts_ns + s->dur_ns), stint_model_str(m, top->name, NULL),
                                       (long long)top->ts_ns, (long long)(top->ts_ns + top->dur_ns));
                }
            } else {
                s->parent = STINT_NO_ID;
                s->depth = 0;
            }
            ustack_push(&st, (uint32_t)i);
            if (openb && (s->flags & STINT_SLICE_FROM_B) && is_open(s))
                openb[s->name]++;
            i++;
        }
        if (cut_pending && lean_track) { /* records after the last event */
            if (!rts_made)
                rts = stint_i_lean_starts(m, trk->lane, &nrts);
            if (nrts)
                cut_open_above(m, sl, &st, rts[nrts - 1], 0, openb);
        }
        free(rts);
        for (size_t u = 0; openb && u < st.n; u++) /* B slices never closed: the counts start at 0 again */
            openb[sl[st.v[u]].name] = 0;
        /* a B/E child that outlived a parent (known only once its E was matched) */
        for (size_t q = a; q < b && !lean_track; q++) {
            struct stint_slice *c = &sl[q];
            if (c->parent == STINT_NO_ID || (c->flags & (STINT_SLICE_OVERLAP | STINT_SLICE_EXPLICIT_PARENT)) || is_open(c))
                continue;
            const struct stint_slice *p = &sl[c->parent];
            if (!is_open(p) && c->ts_ns + c->dur_ns > p->ts_ns + p->dur_ns) {
                c->flags |= STINT_SLICE_OVERLAP;
                stint_model_repair(m, STINT_REPAIR_OVERLAP, "'%s' [%lld, %lld) ns starts inside '%s' but ends after it",
                                   stint_model_str(m, c->name, NULL), (long long)c->ts_ns,
                                   (long long)(c->ts_ns + c->dur_ns), stint_model_str(m, p->name, NULL));
            }
        }
        for (size_t q = a; q < b; q++)
            if ((sl[q].flags & STINT_SLICE_FROM_B) && sl[q].dur_ns < 0)
                stint_model_repair(m, STINT_REPAIR_UNFINISHED, "%s '%s' at ts %lld ns never ended (dur -1)",
                                   (sl[q].flags & STINT_SLICE_ASYNC) ? "async begin" : "B",
                                   stint_model_str(m, sl[q].name, NULL), (long long)sl[q].ts_ns);
        if (lean_track) {
            if (lfe)
                stint_i_lean_track(m, w, (uint32_t)t, a, b, lfe, lidx + lstart[t], lstart[t + 1] - lstart[t]);
            else
                stint_i_lean_track(m, w, (uint32_t)t, a, b, NULL, NULL, 0);
        }
    }
    repair_redirect = NULL;
    free(st.v);
    free(openb);
}

static void *walk_tracks_thread(void *arg)
{
    stint_i_self_thread("stint walk");
    walk_tracks(arg);
    return NULL;
}

/* The order two walkers take the tracks in (heaviest first: slices and lean
 * records, so that they end together), or NULL when one walks them all: no
 * split sink, too few spans, or E events that carry args (merging those
 * appends to the model's args). */
static uint32_t *walk_split_order(const struct stint_model *m, const size_t *start, const struct end_ev *ends,
                                  size_t nends)
{
    size_t ntracks = m->tracks.len, total = 0;
    const struct stint_span_split *sp = m->span_split;
    if (!sp || !m->span_sink || (m->flags & STINT_MODEL_KEEP_ARGS) || ntracks < 2)
        return NULL;
    for (size_t k = 0; k < nends; k++)
        if (ends[k].args != STINT_NO_ID)
            return NULL;
    size_t *wt = malloc(ntracks * sizeof *wt);
    uint32_t *order = malloc(ntracks * sizeof *order);
    if (!wt || !order) {
        free(wt);
        free(order);
        return NULL;
    }
    for (size_t t = 0; t < ntracks; t++) {
        const struct stint_track *trk = &STINT_BA_AT(&m->tracks, struct stint_track, t);
        wt[t] = start[t + 1] - start[t] + (trk->kind == STINT_TRACK_THREAD ? stint_i_lean_count(m, trk->lane) : 0);
        total += wt[t];
    }
    if (total < sp->min_spans || total < 2 || stint_order_heaviest(wt, ntracks, order) != 0) {
        free(wt);
        free(order);
        return NULL;
    }
    free(wt);
    return order;
}

/* Where each track's items start when n items of size bytes, whose
 * uint32_t track field is at offset off, are grouped by track: an array of
 * ntracks + 1 offsets (the last is n), calloc'd. */
static size_t *track_starts(const void *items, size_t n, size_t size, size_t off, size_t ntracks)
{
    size_t *st = calloc(ntracks + 1, sizeof *st);
    if (!st) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t t;
        memcpy(&t, (const char *)items + k * size + off, sizeof t);
        st[t + 1]++;
    }
    for (size_t t = 0; t < ntracks; t++)
        st[t + 1] += st[t];
    return st;
}

/* A flow event's place in (ts, seq) order, and its index. */
struct flow_key {
    int64_t ts_ns;
    uint32_t seq, idx;
};

static inline int flow_key_less(const struct flow_key *a, const struct flow_key *b)
{
    return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->seq < b->seq;
}

static int flow_key_cmp(const void *pa, const void *pb)
{
    return flow_key_less(pa, pb) ? -1 : flow_key_less(pb, pa);
}

STINT_DEFINE_NEAR_SORT(flow_key_near_sort, struct flow_key, flow_key_less)

/* A track's head in the merge of the tracks' lists (flow_order). */
struct flow_head {
    struct flow_key k;
    uint32_t track;
};

static void flow_heap_down(struct flow_head *h, size_t nh, size_t i)
{
    struct flow_head x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= nh)
            break;
        if (c + 1 < nh && flow_key_less(&h[c + 1].k, &h[c].k))
            c++;
        if (!flow_key_less(&h[c].k, &x.k))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* The lean flow events put in order for the track walks and the binding,
 * without moving them (the walks write their bound while the binding's
 * order is found): lidx holds each track's indexes in (ts, seq) order
 * (track t's are [lstart[t], lstart[t + 1])). The binding takes each flow
 * key's events in (ts, seq) order: as they stand (as_is) when every key's
 * come in that order (flow_seen: the usual case, an s before its f), else
 * all of them in (ts, seq) order, ord (NULL when the events already are in
 * it). Each track's events mostly arrive in time order even where the
 * tracks' batches interleave, so the tracks are grouped in input order, a
 * track out of order is sorted, and ord merges the tracks' lists. With a
 * thread of its own, the walks start once lidx is ready (ready, under mu)
 * while ord, and the binding's last (flow_last_new), are made; without one
 * the events are sorted in place first unless as_is (one thread does it
 * all: a merge of the array's runs costs less than the binding reading them
 * in a merged order). */
struct flow_prep {
    struct stint_model *m;
    size_t n, ntracks;
    uint32_t *lidx;
    size_t *lstart;
    uint32_t *ord, *last;
    int as_is;
    int threaded, ready;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void flow_lists(struct flow_prep *fp)
{
    const struct flow_ev *fe = fp->m->flow_evs.data;
    /* (lidx and ord from hmem.h: a megabyte or more for a large trace, where
     * each fresh 4 KiB page costs ~10 us at its first touch) */
    fp->lidx = stint_hmem_xrealloc(NULL, 0, (fp->n ? fp->n : 1) * sizeof *fp->lidx);
    fp->lstart = track_starts(fe, fp->n, sizeof *fe, offsetof(struct flow_ev, track), fp->ntracks);
    size_t *pos = xrealloc(NULL, (fp->ntracks + 1) * sizeof *pos);
    memcpy(pos, fp->lstart, (fp->ntracks + 1) * sizeof *pos);
    for (size_t k = 0; k < fp->n; k++)
        fp->lidx[pos[fe[k].track]++] = (uint32_t)k;
    free(pos);
    for (size_t t = 0; t < fp->ntracks; t++) {
        uint32_t *li = fp->lidx + fp->lstart[t];
        size_t len = fp->lstart[t + 1] - fp->lstart[t], j = 1;
        while (j < len && flow_ev_less(&fe[li[j - 1]], &fe[li[j]]))
            j++;
        if (j >= len)
            continue;
        struct flow_key *k = xrealloc(NULL, len * sizeof *k);
        for (j = 0; j < len; j++)
            k[j] = (struct flow_key){fe[li[j]].ts_ns, fe[li[j]].seq, li[j]};
        if (!flow_key_near_sort(k, len))
            qsort(k, len, sizeof *k, flow_key_cmp);
        for (j = 0; j < len; j++)
            li[j] = k[j].idx;
        free(k);
    }
}

static void flow_order(struct flow_prep *fp)
{
    const struct flow_ev *fe = fp->m->flow_evs.data;
    size_t n = fp->n, nh = 0, j = 1;
    while (j < n && flow_ev_less(&fe[j - 1], &fe[j]))
        j++;
    if (j >= n)
        return; /* in order already */
    struct flow_head *h = xrealloc(NULL, fp->ntracks * sizeof *h);
    size_t *pos = xrealloc(NULL, fp->ntracks * sizeof *pos);
    for (size_t t = 0; t < fp->ntracks; t++) {
        pos[t] = fp->lstart[t];
        if (pos[t] < fp->lstart[t + 1]) {
            uint32_t i = fp->lidx[pos[t]];
            h[nh++] = (struct flow_head){{fe[i].ts_ns, fe[i].seq, i}, (uint32_t)t};
        }
    }
    for (size_t i = nh / 2; i-- > 0;)
        flow_heap_down(h, nh, i);
    uint32_t *ord = stint_hmem_xrealloc(NULL, 0, n * sizeof *ord);
    for (size_t r = 0; r < n; r++) {
        uint32_t t = h[0].track;
        ord[r] = h[0].k.idx;
        if (++pos[t] < fp->lstart[t + 1]) {
            uint32_t i = fp->lidx[pos[t]];
            h[0].k = (struct flow_key){fe[i].ts_ns, fe[i].seq, i};
        } else
            h[0] = h[--nh];
        if (nh)
            flow_heap_down(h, nh, 0);
    }
    free(h);
    free(pos);
    fp->ord = ord;
}

static void flow_prep(struct flow_prep *fp)
{
    SELF_SCOPE("flow events in order");
    fp->as_is = fp->m->flowkeys && !fp->m->flowkeys->unordered;
    if (!fp->threaded && !fp->as_is) /* nothing runs meanwhile: in place is cheaper (ord stays NULL) */
        sort_flow_evs(fp->m);
    flow_lists(fp);
    if (fp->threaded) {
        pthread_mutex_lock(&fp->mu);
        fp->ready = 1;
        pthread_cond_signal(&fp->cv);
        pthread_mutex_unlock(&fp->mu);
    }
    if (!fp->as_is)
        flow_order(fp);
    fp->last = flow_last_new(fp->m);
}

static void *flow_prep_thread(void *arg)
{
    stint_i_self_thread("stint flows");
    flow_prep(arg);
    return NULL;
}

void stint_model_finish(struct stint_model *m)
{
    if (m->finished)
        return;
    m->finished = 1;
    stint_i_losses_finish(m);
    size_t n = m->slices.len, ntracks = m->tracks.len;
    struct end_ev *ends = m->ends.data;
    size_t nends = m->ends.len;
    int lean = stint_i_lean_active(m);
    /* lean mode: v1 flow events grouped per track, bound by the track walks;
     * put in order on a second thread while this one sorts the E events and
     * groups the slices (and their order for the binding found while the
     * tracks are walked), when the walk may take two threads and there is
     * enough to sort (flow and E events, a quarter of the spans that split
     * the walk) */
    struct flow_prep fp = {.m = m, .n = lean ? m->flow_evs.len : 0, .ntracks = ntracks};
    pthread_t fpt;
    int fp_thread = 0;
    if (fp.n && m->span_split && fp.n + nends >= m->span_split->min_spans / 4) {
        fp.threaded = pthread_mutex_init(&fp.mu, NULL) == 0;
        if (fp.threaded && pthread_cond_init(&fp.cv, NULL) != 0) {
            pthread_mutex_destroy(&fp.mu);
            fp.threaded = 0;
        }
        fp_thread = fp.threaded && pthread_create(&fpt, NULL, flow_prep_thread, &fp) == 0;
        if (fp.threaded && !fp_thread) {
            pthread_cond_destroy(&fp.cv);
            pthread_mutex_destroy(&fp.mu);
            fp.threaded = 0;
        }
    }
    if (fp.n && !fp_thread)
        flow_prep(&fp);
    SELF_BEGIN(grp, "E events sorted, slices grouped");
    size_t *estart = sort_ends(m, ntracks);
    ends = m->ends.data;
    if (n == 0 && !lean) {
        free(estart);
        for (size_t k = 0; k < nends; k++)
            end_unmatched(m, &ends[k]);
        stint_bigarray_free(&m->ends);
        bind_flows(m, NULL, NULL, 0, NULL);
        if (m->span_sink)
            stint_i_stream_finished(m);
        SELF_END(grp);
        return;
    }
    /* Group by track: a stable counting sort, applied in place by following
     * the permutation's cycles (4 bytes per slice, not a second 72-byte copy). */
    size_t *start = calloc(ntracks + 1, sizeof *start);
    if (!start) {
        fprintf(stderr, "stint: out of memory\n");
        exit(3);
    }
    struct stint_slice *src = m->slices.data;
    int grouped = 1;
    for (size_t i = 0; i < n; i++) {
        start[src[i].track + 1]++;
        if (i && src[i].track < src[i - 1].track)
            grouped = 0;
    }
    for (size_t t = 0; t < ntracks; t++)
        start[t + 1] += start[t];
    if (!grouped) {
        struct stint_bigarray destv;
        stint_bigarray_init(&destv, sizeof(uint32_t));
        size_t *pos = malloc((ntracks + 1) * sizeof *pos);
        if (stint_bigarray_reserve(&destv, n) != 0 || !pos) {
            fprintf(stderr, "stint: out of memory\n");
            exit(3);
        }
        uint32_t *dest = destv.data;
        memcpy(pos, start, (ntracks + 1) * sizeof *pos);
        for (size_t i = 0; i < n; i++)
            dest[i] = (uint32_t)pos[src[i].track]++;
        free(pos);
        for (size_t i = 0; i < n; i++) {
            while (dest[i] != i) {
                uint32_t d = dest[i];
                struct stint_slice tmp = src[d];
                src[d] = src[i];
                src[i] = tmp;
                dest[i] = dest[d];
                dest[d] = d;
            }
        }
        stint_bigarray_free(&destv);
    }
    SELF_END(grp);
    if (fp_thread) { /* each track's flow events in order: the walks may start */
        SELF_SCOPE("wait: flow events");
        pthread_mutex_lock(&fp.mu);
        while (!fp.ready)
            pthread_cond_wait(&fp.cv, &fp.mu);
        pthread_mutex_unlock(&fp.mu);
    }
    uint32_t *lidx = fp.lidx; /* flow events by track, each track's in (ts, seq) order */
    size_t *lstart = fp.lstart;
    struct finish_share sh = {.m = m, .ends = ends, .estart = estart, .start = start, .lean = lean,
                              .lfe = fp.n ? m->flow_evs.data : NULL, .lidx = lidx, .lstart = lstart, .n = ntracks};
    struct finish_walker W = {.sh = &sh, .w = {.fn = m->span_sink, .ctx = m->span_sink_ctx}}, W2 = W;
    uint32_t *order = lean ? walk_split_order(m, start, ends, nends) : NULL;
    void *forked = order ? m->span_split->fork(m->span_sink_ctx, m) : NULL;
    pthread_t second, bt;
    int two = 0, bind_thread = 0;
    struct bind_job bj = {.m = m};
    if (forked) {
        sh.order = order;
        W.logged = W2.logged = 1;
        W2.w.ctx = forked;
        two = pthread_create(&second, NULL, walk_tracks_thread, &W2) == 0;
        if (two && getenv("STINT_DEBUG_SPLIT")) /* for tests: the walk was split */
            fprintf(stderr, "stint: finish walk: %zu tracks on two threads\n", ntracks);
        if (!two) /* one walker after all, in track order */
            m->span_split->join(m->span_sink_ctx, forked, m);
    }
    if (!two) {
        sh.order = NULL;
        W.logged = 0;
    }
    walk_tracks(&W);
    if (two) {
        pthread_join(second, NULL);
        for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
            struct repair_log *a = &W.log, *b = &W2.log;
            if (b->n[k] && (!a->n[k] || b->first_track[k] < a->first_track[k])) {
                struct repair_log *c = a;
                a = b;
                b = c;
            }
            /* a has the first message now: the lower track's */
            if (a->n[k] && m->repairs[k] == 0) {
                m->repair_first[k] = a->first[k];
                a->first[k] = NULL;
                m->repair_seq[k] = ++m->repair_clock;
            }
            m->repairs[k] += a->n[k] + b->n[k];
            free(a->first[k]);
            free(b->first[k]);
        }
        W.any_explicit |= W2.any_explicit;
        stint_i_walker_free(&W2.w);
        /* the flows are bound (model only) while the sink joins (sink only) */
        if (fp_thread) {
            pthread_join(fpt, NULL);
            fp_thread = 0;
        }
        bj.ord = fp.ord;
        bj.as_is = fp.as_is;
        bj.last = fp.last;
        bind_thread = pthread_create(&bt, NULL, bind_flows_thread, &bj) == 0;
        if (bind_thread)
            fp.last = NULL; /* the bind thread's now */
        SELF_SCOPE("join tallies");
        m->span_split->join(m->span_sink_ctx, forked, m);
    }
    free(order);
    free(estart);
    stint_i_walker_free(&W.w);
    int any_explicit = W.any_explicit;
    if (fp_thread) /* (it reads lidx) */
        pthread_join(fpt, NULL);
    stint_hmem_free(lidx, (fp.n ? fp.n : 1) * sizeof *lidx);
    free(lstart);
    if (bind_thread)
        pthread_join(bt, NULL);
    else
        bind_flows(m, lean ? NULL : start, fp.ord, fp.as_is, fp.last);
    if (fp.threaded) {
        pthread_cond_destroy(&fp.cv);
        pthread_mutex_destroy(&fp.mu);
    }
    stint_hmem_free(fp.ord, fp.n * sizeof *fp.ord);
    free(start);
    stint_bigarray_free(&m->ends);
    if (any_explicit)
        resolve_explicit_parents(m);
    if (m->span_sink && !lean)
        stint_i_stream_finished(m);
}

/* ---- merging (parallel reading) ------------------------------------------------------------- */

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
 * (see stint_model_merge); smap maps src string ids. 0, or -1 out of memory. */
static int synth_reserve(struct stint_model *dst, const struct stint_model *src, const uint32_t *smap)
{
    const struct kmap *t = &src->open->synth;
    size_t n = (size_t)src->open->next_synthetic;
    if (!n)
        return 0;
    const struct kmap_slot **by_v = calloc(n, sizeof *by_v);
    int64_t *dst_id = malloc(n * sizeof *dst_id); /* by src number: the dst id of a synthetic pid */
    if (!by_v || !dst_id) {
        free(by_v);
        free(dst_id);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].used && t->slots[i].v < n)
            by_v[t->slots[i].v] = &t->slots[i];
    for (size_t v = 0; v < n; v++) {
        const struct kmap_slot *e = by_v[v];
        int isnew;
        if (!e)
            continue;
        if (e->k[2] == 0) { /* a pid: key (0, name, 0) */
            dst_id[v] = synth_id(dst, 0, smap[e->k[1]], 0, &isnew);
            continue;
        }
        /* a tid: key (1 + pid, name, 1), its pid made before it when synthetic */
        int64_t pid = (int64_t)(e->k[0] - 1);
        if (pid <= STINT_SYNTHETIC_ID0 && (uint64_t)(STINT_SYNTHETIC_ID0 - pid) < v)
            pid = dst_id[STINT_SYNTHETIC_ID0 - pid];
        synth_id(dst, 1 + (uint64_t)pid, smap[e->k[1]], 1, &isnew);
    }
    free(by_v);
    free(dst_id);
    return 0;
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

int stint_model_merge(struct stint_model *dst, struct stint_model *src)
{
    const struct stint_intern *ss = src->strings;
    uint32_t *smap = malloc((ss->n ? ss->n : 1) * sizeof *smap);
    uint32_t *pmap = malloc((src->processes.len + 1) * sizeof *pmap);
    int64_t *pidmap = malloc((src->processes.len + 1) * sizeof *pidmap);
    uint32_t *lmap = malloc((src->lanes.len + 1) * sizeof *lmap);
    uint32_t *tmap = malloc((src->tracks.len + 1) * sizeof *tmap);
    if (!smap || !pmap || !pidmap || !lmap || !tmap) {
        free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
        return -1;
    }
    for (size_t i = 0; i < ss->n; i++)
        smap[i] = stint_model_intern(dst, ss->ents[i].s, ss->ents[i].len);
    if (dst->sizes && src->sizes && dst->sizes_ops)
        dst->sizes_ops->merge(dst->sizes, src->sizes, smap);
    /* src's pieces are freed as soon as they are copied: joining the halves
     * of a big file then needs little more memory than the two halves */
    intern_free(src->strings);
    src->strings = NULL;
    ss = NULL;
    /* src's synthetic ids in the order src made them (pids and tids
     * interleaved, as one thread reading both halves would have met them):
     * numbered in dst now, so the same strings get the same numbers as on
     * one thread; the loops below then make the processes and lanes in
     * src's order */
    if (synth_reserve(dst, src, smap) != 0) {
        free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
        return -1;
    }
    struct stint_process *sp = src->processes.data;
    for (size_t i = 0; i < src->processes.len; i++) {
        int64_t pid = merge_pid(dst, src, smap, sp[i].pid);
        pidmap[i] = pid;
        pmap[i] = stint_model_process(dst, pid);
        struct stint_process *dp = &STINT_BA_AT(&dst->processes, struct stint_process, pmap[i]);
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
        lmap[i] = STINT_NO_ID;
    struct stint_track *st = src->tracks.data;
    for (size_t i = 0; i < src->tracks.len; i++) {
        const struct stint_track *t = &st[i];
        int64_t pid = merge_pid(dst, src, smap, t->pid);
        switch (t->kind) {
        case STINT_TRACK_THREAD:
            lmap[t->lane] = merge_lane(dst, src, &sl[t->lane], pidmap, smap);
            tmap[i] = STINT_BA_AT(&dst->lanes, struct stint_lane, lmap[t->lane]).track;
            break;
        case STINT_TRACK_PROCESS:
            tmap[i] = stint_model_track_process(dst, pid);
            break;
        case STINT_TRACK_GLOBAL:
            tmap[i] = stint_model_track_global(dst);
            break;
        default:
            tmap[i] = stint_model_track_async(dst, (enum stint_async_scope)t->scope, pid, smap[t->cat], smap[t->id],
                                              smap[t->name]);
            break;
        }
    }
    for (size_t i = 0; i < src->lanes.len; i++) /* (every lane has its thread track: none is left) */
        if (lmap[i] == STINT_NO_ID)
            lmap[i] = merge_lane(dst, src, &sl[i], pidmap, smap);
    uint64_t seq0 = dst->seq;
    size_t slice0 = dst->slices.len, arg0 = dst->args.len;
    if (stint_bigarray_reserve(&dst->slices, src->slices.len) != 0 ||
        stint_bigarray_reserve(&dst->args, src->args.len) != 0) {
        free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
        return -1;
    }
    const struct stint_arg *sa = src->args.data;
    for (size_t i = 0; i < src->args.len; i++) {
        struct stint_arg *a = xpush(&dst->args);
        *a = sa[i];
        a->key = smap[a->key];
        if (a->kind == STINT_ARG_STRING || a->kind == STINT_ARG_REAL || a->kind == STINT_ARG_JSON)
            a->sval = smap[a->sval];
    }
    const struct stint_slice *ssl = src->slices.data;
    size_t released = 0;
    for (size_t i = 0; i < src->slices.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->slices, i, &released);
        /* a global async track's slice keeps the process that began it, which
         * may not be the pid the track has in dst (another part's first event) */
        int64_t pid0 = (ssl[i].flags & STINT_SLICE_ASYNC) ? stint_model_slice_pid(src, &ssl[i]) : 0;
        struct stint_slice *s = xpush(&dst->slices);
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
    const struct end_ev *se = src->ends.data;
    released = 0;
    for (size_t i = 0; i < src->ends.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->ends, i, &released);
        struct end_ev *e = xpush(&dst->ends);
        *e = se[i];
        e->track = tmap[e->track];
        e->name = smap[e->name];
        e->cat = smap[e->cat];
        e->seq += (uint32_t)seq0;
        if (e->args != STINT_NO_ID)
            e->args += (uint32_t)arg0;
    }
    stint_bigarray_free(&src->ends);
    /* src's flow keys as dst's (the ids in them as dst's strings) */
    const struct stint_flowkeys *sk = src->flowkeys;
    size_t nsk = sk ? sk->keys.len : 0;
    uint32_t *kmap = nsk ? xrealloc(NULL, nsk * sizeof *kmap) : NULL;
    for (size_t k = 0; k < nsk; k++) {
        const struct flowkey *fk = &STINT_BA_AT(&sk->keys, struct flowkey, k);
        uint64_t id = fk->id & STINT_FLOW_ID_STR ? STINT_FLOW_ID_STR | smap[(uint32_t)fk->id] : fk->id;
        kmap[k] = stint_model_flow_key(dst, fk->cat == STINT_NO_ID ? STINT_NO_ID : smap[fk->cat],
                                       fk->name == STINT_NO_ID ? STINT_NO_ID : smap[fk->name], id);
    }
    int unordered = sk && sk->unordered;
    flowkeys_free(src->flowkeys);
    src->flowkeys = NULL;
    if (unordered)
        dst->flowkeys->unordered = 1;
    const struct flow_ev *sfe = src->flow_evs.data;
    released = 0;
    for (size_t i = 0; i < src->flow_evs.len; i++) {
        if ((i & 4095) == 0)
            release_done(&src->flow_evs, i, &released);
        struct flow_ev *e = xpush(&dst->flow_evs);
        *e = sfe[i];
        e->track = tmap[e->track];
        e->key = kmap[e->key];
        flow_seen(dst->flowkeys, e->key, e->ts_ns); /* (src's come after dst's) */
        e->seq += (uint32_t)seq0;
        if (e->phase == STINT_FLOW_V2)
            e->slice += (uint32_t)slice0;
    }
    stint_bigarray_free(&src->flow_evs);
    free(kmap);
    dst->seq += src->seq;
    if (stint_i_lean_merge(dst, src, smap, lmap, seq0) != 0) {
        free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
        return -1;
    }
    /* counters: combine series aggregates, append samples */
    const struct stint_counter_series *sc = src->counters.data;
    uint32_t *cmap = malloc((src->counters.len + 1) * sizeof *cmap);
    if (!cmap) {
        free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
        return -1;
    }
    for (size_t i = 0; i < src->counters.len; i++) {
        int found;
        int64_t pid = merge_pid(dst, src, smap, sc[i].pid);
        struct kmap_slot *slot = kmap_get(&dst->open->counters, (uint64_t)pid, smap[sc[i].name], 0, &found);
        if (!found) {
            struct stint_counter_series *c = xpush(&dst->counters);
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
        struct stint_counter_sample *x = xpush(&dst->samples);
        *x = ssm[i];
        x->series = cmap[x->series];
    }
    free(cmap);
    const struct stint_instant_stat *si = src->instants.data;
    for (size_t i = 0; i < src->instants.len; i++) {
        int found;
        struct kmap_slot *slot =
            kmap_get(&dst->open->instants, (uint64_t)si[i].kind, smap[si[i].cat], smap[si[i].name], &found);
        if (!found) {
            struct stint_instant_stat *x = xpush(&dst->instants);
            *x = si[i];
            x->cat = smap[si[i].cat];
            x->name = smap[si[i].name];
            x->count = 0;
            slot->v = (uint32_t)(dst->instants.len - 1);
        }
        STINT_BA_AT(&dst->instants, struct stint_instant_stat, slot->v).count += si[i].count;
    }
    const struct stint_arg *md = src->metadata.data;
    for (size_t i = 0; i < src->metadata.len; i++) {
        struct stint_arg *a = xpush(&dst->metadata);
        *a = md[i];
        a->key = smap[a->key];
        if (a->kind == STINT_ARG_STRING || a->kind == STINT_ARG_REAL || a->kind == STINT_ARG_JSON)
            a->sval = smap[a->sval];
    }
    for (int k = 0; k < STINT_REPAIR_COUNT; k++) {
        dst->repairs[k] += src->repairs[k];
        if (!dst->repair_first[k] && src->repair_first[k]) { /* (src's part of the input follows dst's) */
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
    free(smap), free(pmap), free(pidmap), free(lmap), free(tmap);
    return 0;
}
