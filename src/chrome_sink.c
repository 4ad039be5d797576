/* SPDX-License-Identifier: MIT */
/*
 * chrome_sink.c - the streaming Chrome/Perfetto JSON writer
 * (docs/formats/session-jsonl.md, section 2), fed as a stint_i_sink.
 *
 * Invariants:
 * - Every callback runs with the drain lock held (the writer's contract);
 *   stint_chrome_counter takes the same lock, so the buffer has one user
 *   at a time.
 * - Events are appended as whole lines (",\n" separated) to a 256 KiB
 *   buffer that is written when it passes 192 KiB and at the end of every
 *   drain; the first write error is sticky and stops all output. The span
 *   events lost to it (those in the failed buffer, and every later one) are
 *   counted: sink_spans_lost of stint_get_stats().
 * - A track's M events (thread_name, thread_sort_index) precede its first
 *   event; host spans of one thread arrive innermost first with both ends on
 *   one clock, so each (pid, tid) track is strictly nested. Device-clock
 *   spans get lanes of their own, one per phase name; since every
 *   invocation's device clock starts at 0, invocations are laid end to end
 *   (1 us apart) and a span never starts before its lane's previous end.
 * - close may run twice (at shutdown and from stint_chrome_close): the
 *   second time it does nothing. A forked child never writes (its copy of
 *   the buffer belongs to the parent's file).
 */
#include "stint/session.h"

#include "internal.h"
#include "jsonbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHROME_BUF_CAP (256u * 1024u)
#define CHROME_WRITE_AT (192u * 1024u)
#define CHROME_DEVICE_TID 1073741824 /* 2^30: above any Linux tid (PID_MAX_LIMIT is 2^22), so never a host thread's */
#define CHROME_DEVICE_LANES 64
#define CHROME_DEVICE_GAP_NS 1000 /* between device invocations laid end to end */

static const char k_measurement[] =
    "host-observed span latency: CLOCK_MONOTONIC read at span begin and end on the recording thread, "
    "including instrumentation and scheduling overhead; device-clock lanes carry device timestamps "
    "that are not aligned to the host clock";

typedef struct chrome_track {
    int32_t pid;
    int32_t tid;
} chrome_track;

typedef struct chrome_drop {
    int32_t pid, tid;
    uint64_t count;
    int64_t first_ns, last_ns;
} chrome_drop;

struct stint_chrome_writer {
    stint_i_sink sink; /* first: the sink callbacks cast back */
    int fd;
    int closed;
    int in_child;
    char path[1024];
    stint_i_jbuf out;
    stint_status sticky;
    int64_t origin_ns, origin_real_ns, anchor_mono_ns, anchor_real_ns;
    chrome_track *tracks;
    size_t ntracks, tracks_cap;
    int32_t *pids;
    size_t npids, pids_cap;
    char *lanes[CHROME_DEVICE_LANES]; /* device phase names, copied */
    size_t nlanes;
    int64_t lane_end[CHROME_DEVICE_LANES]; /* last end written on each lane */
    /* device invocations laid end to end: each invocation's device clock
     * starts at 0, so its spans are shifted by dev_base */
    int dev_have;
    uint64_t dev_inv;
    int64_t dev_base, dev_max_end;
    chrome_drop *drops;
    size_t ndrops, drops_cap;
    uint64_t dropped_total;
    uint64_t before_origin;
    uint64_t events;
    uint64_t pending; /* events in out, not written yet */
    uint64_t lost;    /* events lost to the sticky error: those pending when it came, and every later one */
    int first_event;
};

/* ---- shared encoders ------------------------------------------------------------ */

void stint_i_chrome_meta(stint_i_jbuf *b, const char *what, int64_t pid, int64_t tid, const char *argkey,
                         const char *str, int64_t num)
{
    STINT_I_JB_LIT(b, "{\"ph\":\"M\",\"name\":\"");
    stint_i_jb_lit(b, what);
    STINT_I_JB_LIT(b, "\",\"pid\":");
    stint_i_jb_i64(b, pid);
    STINT_I_JB_LIT(b, ",\"tid\":");
    stint_i_jb_i64(b, tid);
    STINT_I_JB_LIT(b, ",\"args\":{\"");
    stint_i_jb_lit(b, argkey);
    STINT_I_JB_LIT(b, "\":");
    if (str)
        stint_i_jb_cstr(b, str);
    else
        stint_i_jb_i64(b, num);
    STINT_I_JB_LIT(b, "}}");
}

/* The library's own keys in a span's args. A user attribute (typed or
 * static) of one of these names is written as "attr.<key>", so that the
 * object never holds a key twice and the library's value stays where readers
 * look for it. */
static const char *const own_keys[] = {"inv", "hid", "depth", "clk", "stint_truncated"};
#define ATTR_PREFIX STINT_I_ATTR_PREFIX
#define ATTR_PREFIX_LEN STINT_I_ATTR_PREFIX_LEN

static int own_key(const char *k, size_t n)
{
    return stint_i_key_in(k, n, own_keys, sizeof own_keys / sizeof own_keys[0]);
}

/* Whether user keys a[0..an) and b[0..bn) are written as the same args key
 * (own_key names take the prefix: "depth" and "attr.depth" meet). */
static int same_written_key(const char *a, size_t an, const char *b, size_t bn)
{
    size_t pa = own_key(a, an) ? ATTR_PREFIX_LEN : 0, pb = own_key(b, bn) ? ATTR_PREFIX_LEN : 0;
    if (pa + an != pb + bn)
        return 0;
    for (size_t i = 0; i < pa + an; i++) {
        char ca = i < pa ? ATTR_PREFIX[i] : a[i - pa], cb = i < pb ? ATTR_PREFIX[i] : b[i - pb];
        if (ca != cb)
            return 0;
    }
    return 1;
}

/* The next "k=v" token of a call site's static text from *s on: its key
 * [*k, *k + *kn) and value [*v, *v + *vn); tokens without '=' or with an
 * empty key are passed over. Returns 0 at the text's end. */
static int static_next(const char **s, const char **k, size_t *kn, const char **v, size_t *vn)
{
    const char *p = *s;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p) {
            *s = p;
            return 0;
        }
        const char *tok = p;
        while (*p && *p != ' ')
            p++;
        const char *eq = memchr(tok, '=', (size_t)(p - tok));
        if (eq && eq != tok) {
            *k = tok;
            *kn = (size_t)(eq - tok);
            *v = eq + 1;
            *vn = (size_t)(p - eq - 1);
            *s = p;
            return 1;
        }
    }
}

/* Whether the user key k[0..kn) is set again later on ev: in the static text
 * from s on, or by a typed attribute from index ti on. A later value replaces
 * an earlier one (the static text comes first, then typed attributes in the
 * order they were set). */
static int set_later(const stint_i_event *ev, const char *k, size_t kn, const char *s, unsigned ti)
{
    const char *k2, *v2;
    size_t kn2, vn2;
    while (s && static_next(&s, &k2, &kn2, &v2, &vn2))
        if (same_written_key(k, kn, k2, kn2))
            return 1;
    for (unsigned i = ti; i < ev->nattr; i++)
        if (ev->attrs[i].key && same_written_key(k, kn, ev->attrs[i].key, strlen(ev->attrs[i].key)))
            return 1;
    return 0;
}

/* A user attribute's key, prefixed when it is one of own_keys. */
static void user_key(stint_i_jbuf *b, const char *k, size_t kn)
{
    stint_i_jb_char(b, ',');
    if (own_key(k, kn)) {
        char tmp[ATTR_PREFIX_LEN + 16];
        memcpy(tmp, ATTR_PREFIX, ATTR_PREFIX_LEN);
        memcpy(tmp + ATTR_PREFIX_LEN, k, kn); /* own keys are short */
        stint_i_jb_str(b, tmp, ATTR_PREFIX_LEN + kn);
    } else {
        stint_i_jb_str(b, k, kn);
    }
    stint_i_jb_char(b, ':');
}

/* Is s[0..n) a JSON-compatible integer (so it can be written unquoted)? */
static int is_int_text(const char *s, size_t n)
{
    size_t i = (n && s[0] == '-') ? 1 : 0;
    if (i == n || n - i > 18 || (s[i] == '0' && n - i > 1))
        return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* The static "k=v k=v" text of a call site as args members, but for keys set
 * again later on ev. */
static void static_args(stint_i_jbuf *b, const stint_i_event *ev)
{
    const char *s = ev->static_attrs, *k, *v;
    size_t kn, vn;
    while (static_next(&s, &k, &kn, &v, &vn)) {
        if (set_later(ev, k, kn, s, 0))
            continue;
        user_key(b, k, kn);
        if (is_int_text(v, vn))
            stint_i_jb_raw(b, v, vn);
        else
            stint_i_jb_str(b, v, vn);
    }
}

void stint_i_chrome_x(stint_i_jbuf *b, const stint_i_event *ev, int64_t origin_ns, int64_t tid_override,
                      int with_args)
{
    STINT_I_JB_LIT(b, "{\"ph\":\"X\",\"name\":");
    stint_i_jb_str(b, ev->name, ev->name_len);
    STINT_I_JB_LIT(b, ",\"cat\":\"stint\",\"pid\":");
    stint_i_jb_i64(b, ev->pid);
    STINT_I_JB_LIT(b, ",\"tid\":");
    stint_i_jb_i64(b, tid_override >= 0 ? tid_override : ev->tid);
    STINT_I_JB_LIT(b, ",\"ts\":");
    stint_i_jb_us3(b, ev->ts_ns - origin_ns);
    STINT_I_JB_LIT(b, ",\"dur\":");
    stint_i_jb_us3(b, ev->dur_ns);
    if (with_args) {
        STINT_I_JB_LIT(b, ",\"args\":{\"inv\":");
        stint_i_jb_u64(b, ev->inv);
        STINT_I_JB_LIT(b, ",\"hid\":");
        stint_i_jb_hex64(b, ev->hid);
        STINT_I_JB_LIT(b, ",\"depth\":");
        stint_i_jb_i64(b, ev->depth);
        if (ev->kind == STINT_I_REC_DEVICE)
            STINT_I_JB_LIT(b, ",\"clk\":\"dev\"");
        if (ev->truncated)
            STINT_I_JB_LIT(b, ",\"stint_truncated\":true");
        if (ev->static_attrs)
            static_args(b, ev);
        for (unsigned i = 0; i < ev->nattr; i++) {
            const stint_i_attr_view *a = &ev->attrs[i];
            if (!a->key)
                continue;
            size_t kn = strlen(a->key);
            if (set_later(ev, a->key, kn, NULL, i + 1))
                continue;
            user_key(b, a->key, kn);
            switch (a->type) {
            case STINT_I_ATTR_U64: stint_i_jb_u64(b, a->v.u); break;
            case STINT_I_ATTR_F64: stint_i_jb_f64(b, a->v.f); break;
            case STINT_I_ATTR_BOOL: stint_i_jb_lit(b, a->v.b ? "true" : "false"); break;
            case STINT_I_ATTR_STR: stint_i_jb_str(b, a->v.s.ptr, a->v.s.len); break;
            default: stint_i_jb_i64(b, a->v.i); break;
            }
        }
        stint_i_jb_char(b, '}');
    }
    stint_i_jb_char(b, '}');
}

/* ---- output ------------------------------------------------------------------------ */

static void write_buffer(stint_chrome_writer *w)
{
    if (w->in_child || w->fd < 0) {
        w->out.len = 0;
        return;
    }
    if (w->sticky == STINT_OK && w->out.len) {
        int err = stint_i_write_all(w->fd, w->out.p, w->out.len);
        if (err) {
            w->sticky = STINT_E_IO;
            w->lost += w->pending;
            fprintf(stderr, "stint: %s: write failed: %s (Chrome trace output stopped)\n", w->path, strerror(err));
        }
    }
    w->out.len = 0;
    w->pending = 0;
}

/* Starts the next traceEvents element. */
static void next_element(stint_chrome_writer *w)
{
    if (!w->first_event)
        STINT_I_JB_LIT(&w->out, ",\n");
    w->first_event = 0;
}

static void element_done(stint_chrome_writer *w)
{
    if (w->out.nomem) { /* cannot happen with a preallocated buffer unless one event is huge */
        w->sticky = STINT_E_NOMEM;
        w->out.nomem = 0;
        w->out.len = 0;
        w->lost += w->pending;
        w->pending = 0;
    }
    if (w->out.len >= CHROME_WRITE_AT)
        write_buffer(w);
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 1;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = stint_i_alloc(ncap * elem);
    if (!p)
        return 0;
    if (n)
        memcpy(p, *arr, n * elem);
    stint_i_free(*arr, *cap * elem);
    *arr = p;
    *cap = ncap;
    return 1;
}

/* Writes process M events the first time pid shows up. */
static void see_process(stint_chrome_writer *w, int32_t pid)
{
    for (size_t i = 0; i < w->npids; i++)
        if (w->pids[i] == pid)
            return;
    if (!grow((void **)&w->pids, &w->pids_cap, w->npids, sizeof *w->pids))
        return; /* names are hints; the events still go out */
    w->pids[w->npids] = pid;
    char name[64];
    snprintf(name, sizeof name, "%s", program_invocation_short_name);
    next_element(w);
    stint_i_chrome_meta(&w->out, "process_name", pid, 0, "name", name, 0);
    next_element(w);
    stint_i_chrome_meta(&w->out, "process_sort_index", pid, 0, "sort_index", NULL, (int64_t)w->npids);
    w->npids++;
}

/* Writes thread M events the first time (pid, tid) shows up. */
static void see_track(stint_chrome_writer *w, int32_t pid, int32_t tid, const char *name)
{
    for (size_t i = 0; i < w->ntracks; i++)
        if (w->tracks[i].pid == pid && w->tracks[i].tid == tid)
            return;
    see_process(w, pid);
    if (!grow((void **)&w->tracks, &w->tracks_cap, w->ntracks, sizeof *w->tracks))
        return;
    w->tracks[w->ntracks].pid = pid;
    w->tracks[w->ntracks].tid = tid;
    char fallback[48];
    if (!name || !*name) {
        if (tid == pid)
            snprintf(fallback, sizeof fallback, "main (tid %d)", (int)tid);
        else
            snprintf(fallback, sizeof fallback, "thread %d", (int)tid);
        name = fallback;
    }
    next_element(w);
    stint_i_chrome_meta(&w->out, "thread_name", pid, tid, "name", name, 0);
    next_element(w);
    stint_i_chrome_meta(&w->out, "thread_sort_index", pid, tid, "sort_index", NULL, (int64_t)w->ntracks);
    w->ntracks++;
}

/* The lane (tid) of a device-clock phase name. */
static int64_t device_lane(stint_chrome_writer *w, const stint_i_event *ev)
{
    size_t k = 0;
    for (; k < w->nlanes; k++)
        if (strlen(w->lanes[k]) == ev->name_len && memcmp(w->lanes[k], ev->name, ev->name_len) == 0)
            break;
    if (k == w->nlanes) {
        if (w->nlanes == CHROME_DEVICE_LANES)
            return CHROME_DEVICE_TID + CHROME_DEVICE_LANES - 1;
        char *copy = stint_i_alloc(ev->name_len + 1);
        if (!copy)
            return CHROME_DEVICE_TID + CHROME_DEVICE_LANES - 1;
        memcpy(copy, ev->name, ev->name_len);
        copy[ev->name_len] = '\0';
        w->lanes[w->nlanes++] = copy;
        char lane_name[160];
        snprintf(lane_name, sizeof lane_name, "device clock: %s (not host-aligned)", copy);
        int64_t tid = CHROME_DEVICE_TID + (int64_t)k;
        see_track(w, ev->pid, (int32_t)tid, lane_name);
    }
    return CHROME_DEVICE_TID + (int64_t)k;
}

/* ---- sink callbacks -------------------------------------------------------------------- */

static void on_event(stint_i_sink *s, const stint_i_event *ev)
{
    stint_chrome_writer *w = (stint_chrome_writer *)s;
    if (w->closed || w->in_child)
        return;
    if (w->sticky) {
        w->lost++;
        return;
    }
    if (ev->kind == STINT_I_REC_DEVICE) {
        int64_t lane = device_lane(w, ev);
        size_t k = (size_t)(lane - CHROME_DEVICE_TID);
        if (!w->dev_have || ev->inv != w->dev_inv) {
            if (w->dev_have)
                w->dev_base = w->dev_max_end + CHROME_DEVICE_GAP_NS;
            w->dev_have = 1;
            w->dev_inv = ev->inv;
        }
        if (ev->ts_ns + w->dev_base < w->lane_end[k]) /* never overlap a lane's previous span */
            w->dev_base = w->lane_end[k] - ev->ts_ns + CHROME_DEVICE_GAP_NS;
        int64_t ts = ev->ts_ns + w->dev_base;
        w->lane_end[k] = ts + ev->dur_ns;
        if (w->lane_end[k] > w->dev_max_end)
            w->dev_max_end = w->lane_end[k];
        next_element(w);
        stint_i_chrome_x(&w->out, ev, -w->dev_base, lane, 1);
    } else {
        if (ev->ts_ns < w->origin_ns) {
            w->before_origin++;
            return;
        }
        see_track(w, ev->pid, ev->tid, ev->thread_name);
        next_element(w);
        stint_i_chrome_x(&w->out, ev, w->origin_ns, -1, 1);
    }
    w->events++;
    w->pending++;
    element_done(w);
}

static void on_dropped(stint_i_sink *s, const stint_i_drop *d)
{
    stint_chrome_writer *w = (stint_chrome_writer *)s;
    if (w->closed || w->in_child)
        return;
    w->dropped_total += d->count;
    size_t i = 0;
    for (; i < w->ndrops; i++)
        if (w->drops[i].pid == d->pid && w->drops[i].tid == d->tid)
            break;
    if (i == w->ndrops && grow((void **)&w->drops, &w->drops_cap, w->ndrops, sizeof *w->drops)) {
        memset(&w->drops[i], 0, sizeof w->drops[i]);
        w->drops[i].pid = d->pid;
        w->drops[i].tid = d->tid;
        w->drops[i].first_ns = d->first_ts_ns;
        w->ndrops++;
    }
    if (i < w->ndrops) {
        chrome_drop *cd = &w->drops[i];
        cd->count += d->count;
        if (d->first_ts_ns && (!cd->first_ns || d->first_ts_ns < cd->first_ns))
            cd->first_ns = d->first_ts_ns;
        if (d->last_ts_ns > cd->last_ns)
            cd->last_ns = d->last_ts_ns;
    }
    if (w->sticky)
        return;
    int64_t ts = d->last_ts_ns > w->origin_ns ? d->last_ts_ns : stint_i_mono_ns();
    see_process(w, d->pid);
    next_element(w);
    STINT_I_JB_LIT(&w->out, "{\"ph\":\"C\",\"name\":\"stint.spans_dropped\",\"pid\":");
    stint_i_jb_i64(&w->out, d->pid);
    STINT_I_JB_LIT(&w->out, ",\"tid\":");
    stint_i_jb_i64(&w->out, d->tid);
    STINT_I_JB_LIT(&w->out, ",\"ts\":");
    stint_i_jb_us3(&w->out, ts - w->origin_ns);
    STINT_I_JB_LIT(&w->out, ",\"args\":{\"value\":");
    stint_i_jb_u64(&w->out, w->dropped_total);
    STINT_I_JB_LIT(&w->out, "}}");
    element_done(w);
}

static void on_flush(stint_i_sink *s)
{
    stint_chrome_writer *w = (stint_chrome_writer *)s;
    if (!w->closed)
        write_buffer(w);
}

/* A JSON member of the closing metadata: its text up to the value
 * (`,"key":`), and the value, an int64 carried in a uint64 when is_signed. */
typedef struct json_field {
    const char *lead;
    uint64_t v;
    int is_signed;
} json_field;

static void put_fields(stint_i_jbuf *b, const json_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        stint_i_jb_lit(b, f[i].lead);
        if (f[i].is_signed)
            stint_i_jb_i64(b, (int64_t)f[i].v);
        else
            stint_i_jb_u64(b, f[i].v);
    }
}

static void on_close(stint_i_sink *s)
{
    stint_chrome_writer *w = (stint_chrome_writer *)s;
    if (w->closed)
        return;
    w->closed = 1;
    if (w->in_child) {
        if (w->fd >= 0)
            close(w->fd);
        w->fd = -1;
        return;
    }
    stint_i_jbuf *b = &w->out;
    STINT_I_JB_LIT(b, "\n],\n\"dropped_events\":");
    stint_i_jb_u64(b, w->dropped_total);
    STINT_I_JB_LIT(b, ",\n\"measurement\":");
    stint_i_jb_cstr(b, k_measurement);
    STINT_I_JB_LIT(b, ",\n\"metadata\":{\"schema\":\"stint/chrome/1\",\"clock\":");
    stint_i_jb_cstr(b, stint_i_clock_name());
    const json_field meta[] = {
        {",\"origin_monotonic_ns\":", (uint64_t)w->origin_ns, 1},
        {",\"origin_realtime_ns\":", (uint64_t)w->origin_real_ns, 1},
        {",\"anchor_monotonic_ns\":", (uint64_t)w->anchor_mono_ns, 1},
        {",\"anchor_realtime_ns\":", (uint64_t)w->anchor_real_ns, 1},
        {",\"events\":", w->events, 0},
        {",\"events_before_origin\":", w->before_origin, 0},
        {",\"dropped_events\":", w->dropped_total, 0},
    };
    put_fields(b, meta, sizeof meta / sizeof meta[0]);
    STINT_I_JB_LIT(b, ",\"dropped_ranges\":[");
    for (size_t i = 0; i < w->ndrops; i++) {
        const chrome_drop *d = &w->drops[i];
        const json_field range[] = {
            {"{\"pid\":", (uint64_t)(int64_t)d->pid, 1},
            {",\"tid\":", (uint64_t)(int64_t)d->tid, 1},
            {",\"count\":", d->count, 0},
            {",\"first_ns\":", (uint64_t)d->first_ns, 1},
            {",\"last_ns\":", (uint64_t)d->last_ns, 1},
        };
        if (i)
            stint_i_jb_char(b, ',');
        put_fields(b, range, sizeof range / sizeof range[0]);
        stint_i_jb_char(b, '}');
    }
    STINT_I_JB_LIT(b, "],\"stint_version\":");
    stint_i_jb_cstr(b, stint_version());
    STINT_I_JB_LIT(b, "}}\n");
    if (b->nomem && w->sticky == STINT_OK)
        w->sticky = STINT_E_NOMEM;
    write_buffer(w);
    if (close(w->fd) != 0 && w->sticky == STINT_OK)
        w->sticky = STINT_E_IO;
    w->fd = -1;
}

static void on_atfork_child(stint_i_sink *s)
{
    stint_chrome_writer *w = (stint_chrome_writer *)s;
    w->in_child = 1;
    w->out.len = 0;
}

static stint_status on_error(stint_i_sink *s) { return ((stint_chrome_writer *)s)->sticky; }
static uint64_t on_lost(stint_i_sink *s) { return ((stint_chrome_writer *)s)->lost; }

/* ---- public API ---------------------------------------------------------------------- */

static void writer_free(stint_chrome_writer *w)
{
    for (size_t i = 0; i < w->nlanes; i++)
        stint_i_free(w->lanes[i], strlen(w->lanes[i]) + 1);
    stint_i_free(w->tracks, w->tracks_cap * sizeof *w->tracks);
    stint_i_free(w->pids, w->pids_cap * sizeof *w->pids);
    stint_i_free(w->drops, w->drops_cap * sizeof *w->drops);
    stint_i_jb_free(&w->out);
    stint_i_free(w, sizeof *w);
}

stint_status stint_chrome_open(const char *path, stint_chrome_writer **out, char *err, size_t cap)
{
    if (out)
        *out = NULL;
    if (err && cap)
        err[0] = '\0';
    if (!path || !out || strlen(path) >= sizeof(((stint_chrome_writer *)0)->path)) {
        if (err && cap)
            snprintf(err, cap, "stint_chrome_open: NULL or too long path, or NULL out");
        return STINT_E_INVAL;
    }
    stint_i_init();
    stint_chrome_writer *w = stint_i_calloc(sizeof *w);
    if (!w)
        return STINT_E_NOMEM;
    stint_i_jb_init(&w->out, CHROME_BUF_CAP);
    if (!stint_i_jb_ok(&w->out)) {
        writer_free(w);
        return STINT_E_NOMEM;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        if (err && cap)
            snprintf(err, cap, "%s: cannot create the Chrome trace: %s", path, strerror(errno));
        writer_free(w);
        return STINT_E_IO;
    }
    stint_i_clock_anchor(&w->anchor_mono_ns, &w->anchor_real_ns);
    w->origin_ns = w->anchor_mono_ns;
    w->origin_real_ns = w->anchor_real_ns;
    if (atomic_load(&stint_i_clock_mode) == STINT_I_CLOCK_TEST) {
        w->origin_ns = 0; /* injected clocks start near zero */
        w->origin_real_ns = w->anchor_real_ns - w->anchor_mono_ns;
    }
    w->first_event = 1;
    STINT_I_JB_LIT(&w->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    w->sink.event = on_event;
    w->sink.dropped = on_dropped;
    w->sink.flush = on_flush;
    w->sink.close = on_close;
    w->sink.atfork_child = on_atfork_child;
    w->sink.error = on_error;
    w->sink.lost = on_lost;
    stint_i_sink_add(&w->sink);
    stint_i_writer_start();
    *out = w;
    return STINT_OK;
}

stint_status stint_chrome_counter(stint_chrome_writer *w, const char *name, double value)
{
    if (!w || !name || !isfinite(value))
        return STINT_E_INVAL;
    int64_t now = stint_now_ns();
    int32_t tid = (int32_t)syscall(SYS_gettid);
    stint_i_drain_lock();
    stint_status st = w->sticky;
    if (w->closed && st == STINT_OK)
        st = STINT_E_STATE;
    if (st == STINT_OK && !w->in_child) {
        int32_t pid = stint_i_pid() ? stint_i_pid() : (int32_t)getpid();
        see_process(w, pid);
        next_element(w);
        STINT_I_JB_LIT(&w->out, "{\"ph\":\"C\",\"name\":");
        stint_i_jb_cstr(&w->out, name);
        STINT_I_JB_LIT(&w->out, ",\"pid\":");
        stint_i_jb_i64(&w->out, pid);
        STINT_I_JB_LIT(&w->out, ",\"tid\":");
        stint_i_jb_i64(&w->out, tid);
        STINT_I_JB_LIT(&w->out, ",\"ts\":");
        stint_i_jb_us3(&w->out, now - w->origin_ns);
        STINT_I_JB_LIT(&w->out, ",\"args\":{\"value\":");
        stint_i_jb_f64(&w->out, value);
        STINT_I_JB_LIT(&w->out, "}}");
        element_done(w);
        st = w->sticky;
    }
    stint_i_drain_unlock();
    return st;
}

stint_status stint_chrome_close(stint_chrome_writer *w)
{
    if (!w)
        return STINT_E_INVAL;
    stint_i_sink_remove(&w->sink); /* drains, flushes, closes (idempotent) */
    stint_status st = w->sticky;
    writer_free(w);
    return st;
}
