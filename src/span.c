/* SPDX-License-Identifier: MIT */
/*
 * span.c - the hot path: span begin/end, attributes, invocation ids.
 *
 * begin pushes a frame on the calling thread's stack (no record yet); end
 * pops it and writes one fixed-layout record, with the frame's attributes and
 * copied strings as its tail, into the thread's chunk chain (thread.h).
 * Nothing here locks, mallocs (after the thread's first span) or formats
 * text; once a chunk is full the next one is the spare the writer left, or
 * one mapped here (one mmap(2) per chunk, not per span). What cannot be
 * recorded is counted: with the chain at its cap the span is dropped and the
 * time range lost remembered; a stack deeper than STINT_MAX_DEPTH counts
 * too_deep.
 *
 * Tokens: a span handle is depth+1 of its frame in its low 8 bits and the
 * frame's generation (the thread's span count when it opened, mod 2^24) in
 * the rest, so ending an outer span while inner ones are open closes those
 * first (counted as autoclosed), and ending a span that was already closed
 * is a no-op even when a newer span now sits at its depth. Each thread's
 * generations start at its own offset (thread registration), so another
 * thread's handle is a no-op too (but for a 2^-24 chance). A span opened
 * past STINT_MAX_DEPTH gets TOKEN_DEEP with its level L above the limit in
 * the high 24 bits: it is not recorded (too_deep), ending it closes the deep
 * spans above it too, and while such spans are open attributes have no span
 * to go to (dropped). Up to level STINT_I_DEEP_CHECKED the handle also
 * carries the span's generation (gen << 7 | L, the thread's deep opens mod
 * 2^15, kept per level in deep_gen), so ending it again is a no-op even when
 * a newer deep span sits at its level (but for a 2^-15 chance after exactly
 * a multiple of 2^15 deep opens). Past that level (bit 23 set, L in the
 * rest) there is no generation: such a stale handle closes the span at its
 * level.
 *
 * Signal handlers: every entry that writes the thread's state sets the
 * thread's stint_i_busy flag first (thread.h) and clears it last. A handler
 * that interrupts such a call on the same thread finds the flag set: its
 * begin is not recorded (counted in sig_dropped, with the dropped spans), its
 * end and attributes are ignored (the attribute counted as dropped), so the
 * interrupted call finishes on state nobody else touched. Between calls the
 * flag is clear and a handler's spans are recorded like any others (nested
 * in the span the thread had open). The flag also covers the thread's
 * registration and the one-time init, so a handler never waits on a lock or
 * a once that its own thread holds.
 */
#include "thread.h"

#include <stdlib.h>

int stint_g_enabled = 1;
static _Atomic uint64_t g_next_inv = 1;

static _Thread_local stint_i_thread *tls_thread __attribute__((tls_model("initial-exec")));
_Thread_local uint32_t stint_i_busy __attribute__((tls_model("initial-exec")));
_Atomic uint64_t stint_i_dropped_reentrant;

/* Enters the library on the calling thread: 0 when a call of this thread is
 * already inside it (a signal handler interrupted it), else sets the flag. */
static inline __attribute__((always_inline)) int lib_enter(void)
{
    if (STINT_I_UNLIKELY(stint_i_busy))
        return 0;
    stint_i_busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    return 1;
}

static inline __attribute__((always_inline)) void lib_leave(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    stint_i_busy = 0;
}

/* Spans of threads whose state could not be allocated: counted, not kept. */
_Atomic uint64_t stint_i_dropped_noalloc;
/* Attributes set on a thread that never opened a span (it has no counters of its own yet). */
_Atomic uint64_t stint_i_attrs_dropped_nothread;

/* The calling thread's state, registering it on first use; NULL (and the
 * span counted as dropped) when its state cannot be allocated. */
static inline stint_i_thread *self_thread(void)
{
    stint_i_thread *t = tls_thread;
    if (STINT_I_UNLIKELY(!t)) {
        t = stint_i_thread_register();
        if (!t) {
            atomic_fetch_add_explicit(&stint_i_dropped_noalloc, 1, memory_order_relaxed);
            return NULL;
        }
        tls_thread = t;
    }
    return t;
}

stint_i_thread *stint_i_self(void) { return tls_thread; }

/* Called by the registry's pthread key destructor and by the fork handler. */
void stint_i_tls_forget(void);
void stint_i_tls_forget(void) { tls_thread = NULL; }

void stint_set_enabled(int on) { __atomic_store_n(&stint_g_enabled, on ? 1 : 0, __ATOMIC_RELAXED); }
int stint_is_enabled(void) { return __atomic_load_n(&stint_g_enabled, __ATOMIC_RELAXED); }

/* Sets t->depth or t->deep, which only t's own thread writes: a relaxed
 * atomic store (a plain store on x86), so that the exit report may count
 * other threads' open spans (stint_i_open_spans) without a data race. */
static inline __attribute__((always_inline)) void open_count_set(uint32_t *field, uint32_t v)
{
    __atomic_store_n(field, v, __ATOMIC_RELAXED);
}

#define TOKEN_DEPTH 0xFFu /* the low bits: depth + 1, or TOKEN_DEEP */
#define TOKEN_DEEP 0xFFu  /* (STINT_MAX_DEPTH < 0xFF) */
#define DEEP_UNCHECKED 0x800000u /* in a deep handle's high 24 bits: a level without generation */
_Static_assert(STINT_I_DEEP_CHECKED < 128, "a checked deep level fits 7 bits");

static inline __attribute__((always_inline)) stint_span push_frame(stint_i_thread *t, const stint_loc *loc)
{
    uint32_t d = t->depth;
    if (STINT_I_UNLIKELY(d >= STINT_MAX_DEPTH)) {
        atomic_store_explicit(&t->too_deep, atomic_load_explicit(&t->too_deep, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        uint32_t deep = t->deep + 1;
        open_count_set(&t->deep, deep);
        uint32_t field = DEEP_UNCHECKED | (deep & 0x7FFFFFu);
        if (deep <= STINT_I_DEEP_CHECKED) {
            uint16_t g = (uint16_t)(++t->deep_opens & 0x7FFFu);
            t->deep_gen[deep - 1] = g;
            field = (uint32_t)g << 7 | deep;
        }
        return (stint_span){field << 8 | TOKEN_DEEP};
    }
    uint32_t token = ++t->gen << 8 | (d + 1);
    stint_i_frame *f = &t->frames[d];
    f->token = token;
    int mode = atomic_load_explicit(&stint_i_clock_mode, memory_order_relaxed);
    f->loc = loc;
    f->clock = (uint8_t)mode;
    f->flags = 0;
    f->copied = 0;
    f->attr_begin = (uint16_t)t->nattr;
    f->str_begin = (uint16_t)t->nstr;
    open_count_set(&t->depth, d + 1);
    f->start = stint_i_clock_read(mode);
    return (stint_span){token};
}

/* A begin made by a signal handler while its thread was inside the
 * library: not recorded, counted (an atomic add: another handler may
 * interrupt this one). */
static __attribute__((noinline, cold)) stint_span begin_reentered(void)
{
    stint_i_thread *t = tls_thread;
    atomic_fetch_add_explicit(t ? &t->sig_dropped : &stint_i_dropped_reentrant, 1, memory_order_relaxed);
    return (stint_span){0};
}

stint_span stint_span_begin(const stint_loc *loc)
{
    if (STINT_I_UNLIKELY(!__atomic_load_n(&stint_g_enabled, __ATOMIC_RELAXED)))
        return (stint_span){0};
    if (STINT_I_UNLIKELY(!lib_enter()))
        return begin_reentered();
    stint_span s = {0};
    stint_i_thread *t = self_thread();
    if (STINT_I_LIKELY(t != NULL))
        s = push_frame(t, loc);
    lib_leave();
    return s;
}

/* Copies name[0..len) into the frame of span s: cut at STINT_NAME_COPY_MAX-1
 * bytes or at an embedded NUL (the record keeps a NUL-terminated name), either
 * flagged as truncated and counted. */
static void copy_name(stint_i_thread *t, stint_span s, const char *name, size_t len)
{
    stint_i_frame *f = &t->frames[(s.token & TOKEN_DEPTH) - 1];
    if (!name)
        len = 0;
    int cut = 0;
    if (len >= STINT_NAME_COPY_MAX) {
        len = STINT_NAME_COPY_MAX - 1;
        cut = 1;
    }
    const char *nul = len ? memchr(name, '\0', len) : NULL;
    if (nul) {
        len = (size_t)(nul - name);
        cut = 1;
    }
    if (cut) {
        f->flags |= STINT_I_F_TRUNC;
        atomic_store_explicit(&t->truncated, atomic_load_explicit(&t->truncated, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
    if (len)
        memcpy(f->copy, name, len);
    f->copy[len] = '\0';
    f->copied = 1;
}

stint_span stint_span_begin_copy(const char *name, size_t len)
{
    if (STINT_I_UNLIKELY(!__atomic_load_n(&stint_g_enabled, __ATOMIC_RELAXED)))
        return (stint_span){0};
    if (STINT_I_UNLIKELY(!lib_enter()))
        return begin_reentered();
    stint_span s = {0};
    stint_i_thread *t = self_thread();
    if (t) {
        s = push_frame(t, NULL);
        if ((s.token & TOKEN_DEPTH) != TOKEN_DEEP)
            copy_name(t, s, name, len);
    }
    lib_leave();
    return s;
}

static inline void bump(_Atomic uint64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

static void count_drop(stint_i_thread *t, int clock, int64_t ts)
{
    /* the drain takes drop_first[] (setting it to 0) at each report */
    if (atomic_load_explicit(&t->drop_first[clock], memory_order_relaxed) == 0)
        atomic_store_explicit(&t->drop_first[clock], ts, memory_order_release);
    atomic_store_explicit(&t->drop_last[clock], ts, memory_order_relaxed);
    atomic_store_explicit(&t->dropped, atomic_load_explicit(&t->dropped, memory_order_relaxed) + 1,
                          memory_order_release);
}

#ifndef STINT_I_PREFETCH_AHEAD
#define STINT_I_PREFETCH_AHEAD 1024
#endif

/* The rare path of reserve(): the record does not fit the rest of the
 * chunk. Links the spare chunk, or a newly mapped one, after it (the rest
 * filled with a PAD) and reserves the record at the start of the new one;
 * NULL (nothing changed) when the record is larger than a chunk, or no chunk
 * is to be had within the cap. No lock and no malloc: a signal handler that
 * interrupted the program outside the library may be the caller. */
static __attribute__((noinline)) uint8_t *reserve_grow(stint_i_thread *t, uint32_t size, uint64_t *new_head)
{
    if (size > stint_i_chunk_bytes)
        return NULL;
    stint_i_chunk *c = stint_i_spare_pop(t);
    if (!c && !(c = stint_i_chunk_map()))
        return NULL;
    uint64_t grew = atomic_load_explicit(&t->grew, memory_order_relaxed) + 1;
    atomic_store_explicit(&t->grew, grew, memory_order_relaxed);
    uint64_t rest = t->wcap - t->wpos;
    if (rest) {
        stint_i_rec *p = (stint_i_rec *)(void *)(t->wbuf + t->wpos);
        p->size = (uint32_t)rest;
        p->kind = STINT_I_REC_PAD;
    }
    /* published with the record's head (release): the consumer that reads
     * past the PAD finds next */
    atomic_store_explicit(&t->wchunk->next, c, memory_order_relaxed);
    t->wchunk = c;
    t->wbuf = c->data;
    t->wcap = c->cap;
    t->wpos = size;
    *new_head = atomic_load_explicit(&t->head, memory_order_relaxed) + rest + size;
    /* two full chunks not drained yet (the one just left, and one before
     * it): a burst; the writer drains at once instead of at its period */
    if (grew - atomic_load_explicit(&t->released, memory_order_relaxed) >= 2 &&
        !atomic_load_explicit(&stint_i_writer_hurry, memory_order_relaxed))
        atomic_store_explicit(&stint_i_writer_hurry, 1, memory_order_relaxed);
    return c->data;
}

/* Reserves size bytes (multiple of 8) in the thread's chunk; NULL when no
 * room is to be had (reserve_grow). Published by storing *new_head. */
static inline __attribute__((always_inline)) uint8_t *reserve(stint_i_thread *t, uint32_t size, uint64_t *new_head)
{
    uint64_t pos = t->wpos;
    if (STINT_I_UNLIKELY(pos + size > t->wcap))
        return reserve_grow(t, size, new_head);
    t->wpos = pos + size;
    *new_head = atomic_load_explicit(&t->head, memory_order_relaxed) + size;
    /* ask for the line some records ahead, for writing: a chunk the writer
     * read last is in its cache, and a store stalls until that copy is taken
     * back (a prefetch past the chunk's end does not fault). PREFETCHW says
     * so (a plain prefetch fetches a shared copy, which the store must still
     * take over); __builtin_prefetch emits it only where the target is
     * declared to have it, and every x86-64 this runs on does (the
     * instruction is a no-op on those that do not) */
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("prefetchw %0" : : "m"(*(const char *)(t->wbuf + pos + STINT_I_PREFETCH_AHEAD)));
#else
    __builtin_prefetch(t->wbuf + pos + STINT_I_PREFETCH_AHEAD, 1, 3);
#endif
    return t->wbuf + pos;
}

static inline uint32_t round8(size_t n) { return (uint32_t)((n + 7) & ~(size_t)7); }

/* Writes the record for frame f (ending at `end`) and pops its attributes. */
static inline __attribute__((always_inline)) void write_record(stint_i_thread *t, stint_i_frame *f, int32_t depth, int64_t end, uint8_t extra_flags)
{
    uint32_t nattr = t->nattr - f->attr_begin;
    uint32_t nstr = t->nstr - f->str_begin;
    size_t name_bytes = 0;
    uint32_t size = sizeof(stint_i_rec);
    if (STINT_I_UNLIKELY(nattr | nstr | f->copied)) {
        name_bytes = f->copied ? round8(strlen(f->copy) + 1) : 0;
        size = round8(sizeof(stint_i_rec) + name_bytes + nattr * sizeof(stint_i_attr) + nstr);
    }
    uint64_t new_head;
    uint8_t *dst = reserve(t, size, &new_head);
    if (STINT_I_UNLIKELY(!dst)) {
        count_drop(t, f->clock, f->start);
    } else {
        stint_i_rec *r = (stint_i_rec *)(void *)dst;
        r->size = size;
        r->kind = STINT_I_REC_SPAN;
        r->nattr = (uint8_t)nattr;
        r->flags = (uint8_t)(f->flags | extra_flags | (f->copied ? STINT_I_F_COPYNAME : 0));
        r->clock = f->clock;
        r->depth = depth;
        r->loc = f->loc;
        r->name = NULL;
        r->start = f->start;
        r->end = end;
        r->inv = t->inv;
        r->hid = t->hid;
        if (STINT_I_UNLIKELY(size != sizeof(stint_i_rec))) {
            uint8_t *tail = dst + sizeof(stint_i_rec);
            if (name_bytes) {
                memcpy(tail, f->copy, strlen(f->copy) + 1);
                tail += name_bytes;
            }
            if (nattr) {
                memcpy(tail, &t->attrs[f->attr_begin], nattr * sizeof(stint_i_attr));
                tail += nattr * sizeof(stint_i_attr);
            }
            if (nstr)
                memcpy(tail, &t->strs[f->str_begin], nstr);
        }
        atomic_store_explicit(&t->head, new_head, memory_order_release);
    }
    t->nattr = f->attr_begin;
    t->nstr = f->str_begin;
}

/* Closes the open spans of t above depth `keep`, innermost first, each one
 * flagged and counted as autoclosed. */
static void close_down_to(stint_i_thread *t, uint32_t keep)
{
    open_count_set(&t->deep, 0); /* (spans past the limit lie above any recorded one) */
    while (t->depth > keep) {
        stint_i_frame *f = &t->frames[t->depth - 1];
        int64_t now = stint_i_clock_read(f->clock);
        open_count_set(&t->depth, t->depth - 1);
        write_record(t, f, (int32_t)t->depth, now, STINT_I_F_AUTOCLOSED);
        bump(&t->autoclosed);
    }
}

/* Ends span on t (the calling thread's state, flag set). */
static inline __attribute__((always_inline)) void end_span(stint_i_thread *t, stint_span span)
{
    uint32_t d = span.token & TOKEN_DEPTH;
    if (STINT_I_UNLIKELY(d == 0 || d > t->depth || t->frames[d - 1].token != span.token)) {
        /* past the depth limit (TOKEN_DEEP > any depth): closes it and the
         * deep ones above it, unless an outer end (or its own) did; else
         * already closed (by an outer end, or before: a stale handle), a
         * foreign handle, or no handle at all (depth 0) */
        if (d == TOKEN_DEEP) {
            uint32_t field = span.token >> 8, level = field & 0x7Fu;
            if (field & DEEP_UNCHECKED)
                level = field & 0x7FFFFFu;
            else if (level > t->deep || !level || t->deep_gen[level - 1] != (uint16_t)(field >> 7))
                return; /* a stale handle: a newer span (or none) is open at its level */
            if (level && level <= t->deep)
                open_count_set(&t->deep, level - 1);
        }
        return;
    }
    if (STINT_I_UNLIKELY(t->depth > d || t->deep))
        close_down_to(t, d); /* inner spans still open: close them first */
    stint_i_frame *f = &t->frames[d - 1];
    int64_t end = stint_i_clock_read(f->clock);
    open_count_set(&t->depth, d - 1);
    write_record(t, f, (int32_t)t->depth, end, 0);
}

void stint_span_end(stint_span span)
{
    if (!span.token)
        return;
    stint_i_thread *t = tls_thread;
    if (STINT_I_UNLIKELY(!t))
        return;
    /* a handler ending a span while its thread is inside the library: left
     * open (an outer end or the thread's exit closes it, autoclosed) */
    if (STINT_I_UNLIKELY(!lib_enter()))
        return;
    end_span(t, span);
    lib_leave();
}

/* Closes every open span of the calling thread (it is exiting), each one
 * flagged and counted as autoclosed. */
void stint_i_close_all_open(void)
{
    stint_i_thread *t = tls_thread;
    if (t && lib_enter()) {
        close_down_to(t, 0);
        lib_leave();
    }
}

/* ---- attributes ------------------------------------------------------------ */

static stint_i_attr *attr_slot(stint_i_thread **out)
{
    stint_i_thread *t = tls_thread;
    if (!t || t->depth == 0 || t->deep) /* (deep: the innermost span is not recorded) */
        goto fail;
    stint_i_frame *f = &t->frames[t->depth - 1];
    if (t->nattr - f->attr_begin >= STINT_ATTR_MAX || t->nattr >= STINT_I_ATTR_STACK)
        goto fail;
    *out = t;
    return &t->attrs[t->nattr++];
fail:
    if (t)
        bump(&t->attrs_dropped);
    else
        atomic_fetch_add_explicit(&stint_i_attrs_dropped_nothread, 1, memory_order_relaxed);
    return NULL;
}

/* An attribute set by a signal handler while its thread was inside the
 * library: dropped, and counted where a handler may add atomically. */
static __attribute__((noinline, cold)) void attr_reentered(void)
{
    atomic_fetch_add_explicit(&stint_i_attrs_dropped_nothread, 1, memory_order_relaxed);
}

/* Sets a new attribute on the innermost open span; counted as dropped when
 * there is no open span or no room. */
static inline void attr_put(const char *key, uint8_t type, stint_i_attr_value v)
{
    if (STINT_I_UNLIKELY(!lib_enter())) {
        attr_reentered();
        return;
    }
    stint_i_thread *t;
    stint_i_attr *a = attr_slot(&t);
    if (a) {
        a->key = key;
        a->type = type;
        a->v = v;
    }
    lib_leave();
}

void stint_attr_i64(const char *key, int64_t value)
{
    attr_put(key, STINT_I_ATTR_I64, (stint_i_attr_value){.i = value});
}

void stint_attr_u64(const char *key, uint64_t value)
{
    attr_put(key, STINT_I_ATTR_U64, (stint_i_attr_value){.u = value});
}

void stint_attr_f64(const char *key, double value)
{
    attr_put(key, STINT_I_ATTR_F64, (stint_i_attr_value){.f = value});
}

void stint_attr_bool(const char *key, int value)
{
    attr_put(key, STINT_I_ATTR_BOOL, (stint_i_attr_value){.i = value ? 1 : 0});
}

/* stint_attr_str with the thread's flag set. */
static void attr_str(const char *key, const char *value)
{
    stint_i_thread *t;
    stint_i_attr *a = attr_slot(&t);
    if (!a)
        return;
    stint_i_frame *f = &t->frames[t->depth - 1];
    size_t len = value ? strlen(value) : 0;
    if (len >= STINT_ATTR_STR_MAX) {
        len = STINT_ATTR_STR_MAX - 1;
        f->flags |= STINT_I_F_TRUNC;
        bump(&t->truncated);
    }
    if (t->nstr + len > STINT_I_STR_STACK) {
        t->nattr--;
        bump(&t->attrs_dropped);
        return;
    }
    a->key = key;
    a->type = STINT_I_ATTR_STR;
    a->str_len = (uint32_t)len;
    a->v.str_off = t->nstr - f->str_begin;
    if (len)
        memcpy(&t->strs[t->nstr], value, len);
    t->nstr += (uint32_t)len;
}

void stint_attr_str(const char *key, const char *value)
{
    if (STINT_I_UNLIKELY(!lib_enter())) {
        attr_reentered();
        return;
    }
    attr_str(key, value);
    lib_leave();
}

/* ---- invocations and callables ------------------------------------------------ */

/* Sets the thread's current invocation (registering the thread); a
 * handler that interrupted the library on this thread sets nothing. */
static void set_inv(uint64_t inv)
{
    if (!lib_enter())
        return;
    stint_i_thread *t = self_thread();
    if (t)
        t->inv = inv;
    lib_leave();
}

uint64_t stint_invocation_begin(void)
{
    uint64_t inv = atomic_fetch_add_explicit(&g_next_inv, 1, memory_order_relaxed);
    set_inv(inv);
    return inv;
}

void stint_set_invocation(uint64_t inv) { set_inv(inv); }

uint64_t stint_current_invocation(void)
{
    stint_i_thread *t = tls_thread;
    return t ? t->inv : 0;
}

void stint_set_hid(uint64_t hid)
{
    if (!lib_enter())
        return;
    stint_i_thread *t = self_thread();
    if (t)
        t->hid = hid;
    lib_leave();
}

/* ---- device spans ---------------------------------------------------------------- */

/* stint_device_span with the thread's flag set. */
static void device_span(const char *name, int64_t ts_ns, int64_t dur_ns, int depth)
{
    stint_i_thread *t = self_thread();
    if (!t)
        return;
    uint64_t new_head;
    uint8_t *dst = reserve(t, sizeof(stint_i_rec), &new_head);
    if (!dst) {
        count_drop(t, STINT_I_CLOCK_MONO, stint_i_mono_ns());
        return;
    }
    stint_i_rec *r = (stint_i_rec *)(void *)dst;
    memset(r, 0, sizeof *r);
    r->size = sizeof(stint_i_rec);
    r->kind = STINT_I_REC_DEVICE;
    r->depth = depth < 0 ? 0 : depth; /* (a reader takes no negative depth) */
    r->name = name;
    r->start = ts_ns;
    /* a negative duration becomes 0; an end past int64 saturates (no overflow on any input) */
    if (dur_ns < 0 || __builtin_add_overflow(ts_ns, dur_ns, &r->end))
        r->end = dur_ns < 0 ? ts_ns : INT64_MAX;
    r->inv = t->inv;
    r->hid = t->hid;
    atomic_store_explicit(&t->head, new_head, memory_order_release);
}

void stint_device_span(const char *name, int64_t ts_ns, int64_t dur_ns, int depth)
{
    if (!__atomic_load_n(&stint_g_enabled, __ATOMIC_RELAXED))
        return;
    if (!lib_enter()) {
        (void)begin_reentered();
        return;
    }
    device_span(name, ts_ns, dur_ns, depth);
    lib_leave();
}
