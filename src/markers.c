/* SPDX-License-Identifier: MIT */
/*
 * markers.c - the [STRACE] marker sink.
 *
 * Grammar (one line per span, written when the span ends):
 *   [STRACE] v=1 pid=<d> tid=<d> inv=<u> hid=<hex> depth=<d> name=<s> ts=<ns> dur=<ns> <attrs>\n
 * with exactly one space before the attributes even when there are none.
 * Device-clock spans start their attributes with clk=dev. Lost spans are
 * reported on lines of their own that [STRACE] consumers skip:
 *   [STINT] v=1 dropped pid=<d> tid=<d> count=<u> first_ts=<ns> last_ts=<ns>
 *
 * Lines are formatted by hand (no stdio) into one batch buffer and written
 * whole: to a regular file in batches of whole lines (a single write(2) of
 * whole lines to an O_APPEND file is not interleaved with other writers on
 * Linux local filesystems), to a pipe or terminal in batches of at most
 * PIPE_BUF bytes cut at line ends (atomic by POSIX). The first write error is
 * sticky: later lines are discarded, and sink_error of stint_get_stats() says so;
 * the span lines lost (those of the failed batch not fully written, a torn
 * one included, and every one after it) are counted in
 * sink_spans_lost of stint_get_stats() (spans_written counts spans handed to the
 * sinks). A new destination clears the error, not the count. A path that
 * cannot be opened (STINT_MARKERS) is such an error from the start: every
 * span line is counted lost, and the exit message names the path and errno.
 *
 * Never blocking without a bound (the drain lock is held here): a path is
 * opened O_NONBLOCK (a FIFO without a reader is ENXIO at once, not a hang)
 * and kept so, and on a descriptor that is not a regular file each write
 * waits for room with poll(2), at most stint_i_write_wait_ms() per batch
 * (less once the exit handler set its deadline); past it the error is
 * EAGAIN, sticky and counted like any other.
 */
#include "internal.h"
#include "jsonbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MARKER_BATCH (64 * 1024)
#define MARKER_LINE_MAX 4096

enum { DEST_UNSET = 0, DEST_OFF, DEST_FD, DEST_CALLBACK };

typedef struct marker_sink {
    stint_i_sink base;
    int dest;
    int fd;
    int own_fd;
    size_t chunk; /* largest single write: MARKER_BATCH or PIPE_BUF */
    unsigned flags;
    stint_line_fn fn;
    void *user;
    stint_status error;
    int epipe; /* the failed write was EPIPE (its SIGPIPE is pending) */
    int wait_first; /* not a regular file: poll for room before each write */
    int sys_errno;  /* the errno of the open or write that failed (0: none) */
    int open_failed; /* the error is the open's: nothing was ever written */
    uint64_t lost; /* span lines not written: the sticky error's batch and those after it */
    size_t len;
    char buf[MARKER_BATCH];
} marker_sink;

static marker_sink g_markers;
static int g_markers_added;
/* The destination named for messages: the path opened, or "fd N". */
static char g_dest_name[512];
/* Lines whose name, a key or attributes were cut to fit MARKER_LINE_MAX
 * (each also says stint_truncated=1): names_truncated of stint_get_stats(). */
static _Atomic uint64_t g_lines_cut;

uint64_t stint_i_marker_lines_cut(void) { return atomic_load_explicit(&g_lines_cut, memory_order_relaxed); }

/* ---- formatting ------------------------------------------------------------ */

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Number of decimal digits of v (1 for 0). */
static inline unsigned digits10(uint64_t v)
{
    unsigned n = 1;
    for (;;) {
        if (v < 10)
            return n;
        if (v < 100)
            return n + 1;
        if (v < 1000)
            return n + 2;
        if (v < 10000)
            return n + 3;
        v /= 10000;
        n += 4;
    }
}

/* Decimal digits of v at p, written in place from the right two at a time;
 * returns the end. */
static char *put_u64(char *p, uint64_t v)
{
    unsigned n = digits10(v);
    char *e = p + n, *q = e;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = digit_pairs[2 * r];
        q[1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        q[-2] = digit_pairs[2 * v];
        q[-1] = digit_pairs[2 * v + 1];
    } else {
        q[-1] = (char)('0' + v);
    }
    return e;
}

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static char *put_hex(char *p, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Whether s[i..n) begins with "[STRACE]", which a reader takes for the start
 * of another record (records glued on one line are split there). */
static inline int record_mark_at(const char *s, size_t i, size_t n)
{
    return n - i >= 8 && !memcmp(s + i, "[STRACE]", 8);
}

/* Copies a name or value, turning whitespace and control bytes (which would
 * break the space-separated grammar), and the '[' of a "[STRACE]" inside it,
 * into '_'; in a key (key set) '=' too, which would move the split between
 * key and value. At most max bytes. */
static char *put_token_k(char *p, const char *s, size_t n, size_t max, int key)
{
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int bad = c <= ' ' || c == 0x7f || (key && c == '=') || (c == '[' && record_mark_at(s, i, n));
        *p++ = bad ? '_' : (char)c;
    }
    return p;
}

static char *put_token(char *p, const char *s, size_t n, size_t max) { return put_token_k(p, s, n, max, 0); }

/* A call site's static attributes ("k=v k2=v2"): spaces kept as separators,
 * other control bytes (a newline would end the line) and the '[' of a
 * "[STRACE]" turned into '_'. */
/* The line's own keys: the fixed fields and the attributes the library
 * writes. A user attribute (typed or static) of one of these names is
 * written as "attr.<key>": a consumer that reads the line into a map, or
 * looks for clk=dev anywhere, must not take the user's value for the
 * library's (a user "clk=dev" put a host span on a device-clock lane). */
static const char *const own_keys[] = {"v",   "pid", "tid", "inv",             "hid",
                                       "depth", "name", "ts", "dur", "clk", "stint_truncated", "stint_autoclosed"};
#define ATTR_PREFIX STINT_I_ATTR_PREFIX
#define ATTR_PREFIX_LEN STINT_I_ATTR_PREFIX_LEN

static int own_key(const char *k, size_t n)
{
    return stint_i_key_in(k, n, own_keys, sizeof own_keys / sizeof own_keys[0]);
}

/* Whether the token of the static text s[0..n) that starts at i has an own
 * key (the bytes up to its '=', before the next blank). */
static int static_own_key(const char *s, size_t i, size_t n)
{
    size_t j = i;
    while (j < n && s[j] != '=' && s[j] != ' ')
        j++;
    return j < n && s[j] == '=' && own_key(s + i, j - i);
}

/* The bytes put_static_attrs writes for s[0..n). */
static size_t static_attrs_len(const char *s, size_t n)
{
    size_t len = n;
    for (size_t i = 0; i < n; i++)
        if ((i == 0 || s[i - 1] == ' ') && s[i] != ' ' && static_own_key(s, i, n))
            len += ATTR_PREFIX_LEN;
    return len;
}

static char *put_static_attrs(char *p, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((i == 0 || s[i - 1] == ' ') && c != ' ' && static_own_key(s, i, n)) {
            memcpy(p, ATTR_PREFIX, ATTR_PREFIX_LEN);
            p += ATTR_PREFIX_LEN;
        }
        int bad = (c < ' ' || c == 0x7f) || (c == '[' && record_mark_at(s, i, n));
        *p++ = bad ? '_' : (char)c;
    }
    return p;
}

/* Renders into a scratch buffer of at least MARKER_LINE_MAX bytes; returns
 * the end. Keys and values are cut, and attributes left out, so the whole
 * stays under the bound; then, or when cut is set (the name was cut), or
 * the record was truncated, the line says stint_truncated=1. */
static char *render_attrs(char *p, char *end, const stint_i_event *ev, int cut)
{
    char *start = p;
#define ROOM(n) ((size_t)(end - p) > (size_t)(n) + 2)
#define SEP()                                                                                      \
    do {                                                                                           \
        if (p != start)                                                                            \
            *p++ = ' ';                                                                            \
    } while (0)
    if (ev->kind == STINT_I_REC_DEVICE)
        p = put_str(p, "clk=dev");
    if (ev->static_attrs && *ev->static_attrs) {
        size_t n = strlen(ev->static_attrs);
        if (ROOM(static_attrs_len(ev->static_attrs, n) + 200)) {
            SEP();
            p = put_static_attrs(p, ev->static_attrs, n);
        } else {
            cut = 1;
        }
    }
    for (unsigned i = 0; i < ev->nattr; i++) {
        if (!ROOM(200)) {
            cut = 1;
            break;
        }
        const stint_i_attr_view *a = &ev->attrs[i];
        SEP();
        const char *key = a->key && *a->key ? a->key : "_"; /* (no empty key: "=v" reads as no attribute) */
        size_t kn = strlen(key);
        cut |= kn > 64;
        if (own_key(key, kn)) {
            memcpy(p, ATTR_PREFIX, ATTR_PREFIX_LEN);
            p += ATTR_PREFIX_LEN;
        }
        p = put_token_k(p, key, kn, 64, 1);
        *p++ = '=';
        switch (a->type) {
        case STINT_I_ATTR_I64: p = put_i64(p, a->v.i); break;
        case STINT_I_ATTR_U64: p = put_u64(p, a->v.u); break;
        case STINT_I_ATTR_BOOL: p = put_str(p, a->v.b ? "true" : "false"); break;
        case STINT_I_ATTR_F64: {
            char tmp[40];
            if (isfinite(a->v.f))
                stint_i_fmt_f64(tmp, a->v.f);
            else /* (what %g wrote before: inf, -inf, nan) */
                snprintf(tmp, sizeof tmp, "%s", isnan(a->v.f) ? "nan" : a->v.f < 0 ? "-inf" : "inf");
            p = put_str(p, tmp);
            break;
        }
        case STINT_I_ATTR_STR: p = put_token(p, a->v.s.ptr, a->v.s.len, STINT_ATTR_STR_MAX); break;
        default: *p++ = '?'; break;
        }
    }
    if (cut)
        atomic_fetch_add_explicit(&g_lines_cut, 1, memory_order_relaxed);
    if (ev->truncated || cut) { /* (room for it and the next is kept: 200 above, 20 + 20 + 2 needed) */
        SEP();
        p = put_str(p, "stint_truncated=1");
    }
    if (ev->autoclosed) {
        SEP();
        p = put_str(p, "stint_autoclosed=1");
    }
#undef ROOM
#undef SEP
    return p;
}

static char *put_prefix(char *p, const stint_i_event *ev)
{
    int64_t mono0, real0;
    stint_i_clock_anchor(&mono0, &real0);
    /* device spans carry device-clock times (any values): stamp them with now */
    int64_t real = ev->kind == STINT_I_REC_DEVICE ? real0 + (stint_i_mono_ns() - mono0)
                                                  : real0 + (ev->ts_ns + ev->dur_ns - mono0);
    time_t sec = (time_t)(real / 1000000000);
    struct tm tm;
    localtime_r(&sec, &tm);
    char tmp[96];
    int n = snprintf(tmp, sizeof tmp, "[%04d-%02d-%02d %02d:%02d:%02d.%06ld][T0x%llx][TIMING] ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     (long)((real % 1000000000) / 1000), (unsigned long long)ev->thread_handle);
    if (n > 0) {
        memcpy(p, tmp, (size_t)n);
        p += n;
    }
    const char *func = ev->loc && ev->loc->func ? ev->loc->func : "stint";
    p = put_token(p, func, strlen(func), 128);
    p = put_str(p, ": ");
    if (ev->loc && ev->loc->file) {
        /* the reference logger names the source file and line too */
        const char *base = strrchr(ev->loc->file, '/');
        base = base ? base + 1 : ev->loc->file;
        *p++ = '[';
        p = put_token(p, base, strlen(base), 128);
        *p++ = ':';
        p = put_i64(p, ev->loc->line);
        p = put_str(p, "] ");
    }
    return p;
}

#define MARKER_FORMAT_MAX (MARKER_LINE_MAX + 512)

/* Formats the line at p, which must have MARKER_FORMAT_MAX bytes of room;
 * returns the end (just past the '\n'). */
static char *format_line(char *p, const stint_i_event *ev, unsigned flags)
{
    char *start = p;
    if (flags & STINT_MARKERS_PREFIX)
        p = put_prefix(p, ev);
    /* "[STRACE] v=1 pid=P tid=T inv=" repeats for every span of a thread */
    static _Thread_local struct {
        int32_t pid, tid;
        unsigned len;
        char text[64];
    } head = {0, 0, 0, {0}};
    if (head.len == 0 || head.pid != ev->pid || head.tid != ev->tid) {
        char *h = head.text;
        memcpy(h, "[STRACE] v=1 pid=", 17);
        h = put_i64(h + 17, ev->pid);
        memcpy(h, " tid=", 5);
        h = put_i64(h + 5, ev->tid);
        memcpy(h, " inv=", 5);
        head.len = (unsigned)(h + 5 - head.text);
        head.pid = ev->pid;
        head.tid = ev->tid;
    }
    memcpy(p, head.text, head.len);
    p += head.len - 5;
    p = put_u64(p + 5, ev->inv);
    memcpy(p, " hid=", 5);
    p = put_hex(p + 5, ev->hid);
    memcpy(p, " depth=", 7);
    p = put_i64(p + 7, ev->depth);
    memcpy(p, " name=", 6);
    p += 6;
    if (ev->name_len)
        p = put_token(p, ev->name, ev->name_len, 1024);
    else /* (an empty name would make the record torn for every reader) */
        *p++ = '_';
    int cut = ev->name_len > 1024;
    memcpy(p, " ts=", 4);
    p = put_i64(p + 4, ev->ts_ns);
    memcpy(p, " dur=", 5);
    p = put_i64(p + 5, ev->dur_ns);
    *p++ = ' ';
    /* the whole line, '\n' included, within MARKER_LINE_MAX (PIPE_BUF): one atomic write to a pipe */
    if (ev->kind == STINT_I_REC_DEVICE || ev->static_attrs || ev->nattr || ev->truncated || ev->autoclosed || cut)
        p = render_attrs(p, start + MARKER_LINE_MAX - 2, ev, cut);
    *p++ = '\n';
    return p;
}

size_t stint_i_marker_format(char *buf, size_t cap, const stint_i_event *ev, unsigned flags)
{
    char line[MARKER_FORMAT_MAX];
    size_t n = (size_t)(format_line(line, ev, flags) - line);
    if (cap)
        memcpy(buf, line, n < cap ? n : cap);
    return n;
}

/* ---- output ------------------------------------------------------------------------- */

/* Waits until m->fd takes a write or *deadline_ns (CLOCK_MONOTONIC, set
 * from stint_i_write_wait_ms() at the first wait of a batch) passes: 1 when
 * it does (or reports an error the write will return), 0 at the deadline. */
static int wait_room(const marker_sink *m, int64_t *deadline_ns)
{
    if (!*deadline_ns)
        *deadline_ns = stint_i_mono_ns() + (int64_t)stint_i_write_wait_ms() * 1000000;
    for (;;) {
        int64_t left_ms = (*deadline_ns - stint_i_mono_ns() + 999999) / 1000000;
        struct pollfd pf = {.fd = m->fd, .events = POLLOUT};
        int r = poll(&pf, 1, left_ms <= 0 ? 0 : left_ms > INT32_MAX ? INT32_MAX : (int)left_ms);
        if (r > 0)
            return 1;
        if (r == 0 || errno != EINTR)
            return r != 0; /* (poll's own failure: let the write report it) */
    }
}

/* Writes n bytes of the batch, or up to the first error (sticky in m, with
 * its errno). Returns the bytes written. */
static size_t write_all(marker_sink *m, const char *p, size_t n)
{
    size_t done = 0;
    int64_t deadline_ns = 0;
    while (n && m->error == STINT_OK) {
        ssize_t w;
        if (m->wait_first && !wait_room(m, &deadline_ns)) {
            w = -1;
            errno = EAGAIN;
        } else {
            w = write(m->fd, p, n);
        }
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_room(m, &deadline_ns))
                continue; /* a non-blocking fd: room came within the bound */
            m->error = STINT_E_IO;
            m->sys_errno = errno;
            m->epipe = errno == EPIPE;
            return done;
        }
        p += w;
        n -= (size_t)w;
        done += (size_t)w;
    }
    return done;
}

/* The span lines (every line but the [STINT] reports; with the logger's
 * prefix a span line does not start with its [STRACE]) of the batch from
 * byte at on that the file did not get whole: the line at is cut in, and
 * every later one. */
static uint64_t span_lines_from(const marker_sink *m, size_t at)
{
    while (at && m->buf[at - 1] != '\n')
        at--;
    uint64_t n = 0;
    static const char tag[] = "[STINT]";
    for (size_t i = at; i < m->len;) {
        if (!(m->len - i >= sizeof tag - 1 && !memcmp(m->buf + i, tag, sizeof tag - 1)))
            n++;
        const char *nl = memchr(m->buf + i, '\n', m->len - i);
        i = nl ? (size_t)(nl - m->buf) + 1 : m->len;
    }
    return n;
}

static void markers_flush(stint_i_sink *s)
{
    marker_sink *m = (marker_sink *)s;
    if (!m->len)
        return;
    if (m->dest == DEST_FD && m->error != STINT_OK)
        m->lost += span_lines_from(m, 0); /* (formatted before the error was known) */
    else if (m->dest == DEST_FD) {
        int saved = errno;
        size_t off = 0;
        stint_i_sigpipe g; /* a closed pipe must give EPIPE, not kill the program */
        stint_i_sigpipe_block(&g);
        m->epipe = 0;
        while (off < m->len) {
            /* the largest run of whole lines that fits one write */
            size_t n = m->len - off;
            if (n > m->chunk) {
                n = m->chunk;
                while (n && m->buf[off + n - 1] != '\n')
                    n--;
                if (!n)
                    n = m->chunk; /* one line longer than a chunk: it cannot be atomic */
            }
            size_t w = write_all(m, m->buf + off, n);
            if (m->error != STINT_OK) {
                m->lost += span_lines_from(m, off + w);
                break;
            }
            off += n;
        }
        stint_i_sigpipe_restore(&g, m->epipe);
        errno = saved;
    }
    m->len = 0;
}

static void markers_append(marker_sink *m, const char *line, size_t n)
{
    if (m->dest == DEST_CALLBACK) {
        m->fn(line, n, m->user);
        return;
    }
    if (m->dest != DEST_FD)
        return;
    if (m->len + n > sizeof m->buf)
        markers_flush(&m->base);
    memcpy(m->buf + m->len, line, n);
    m->len += n;
}

static void markers_event(stint_i_sink *s, const stint_i_event *ev)
{
    marker_sink *m = (marker_sink *)s;
    if (m->dest == DEST_FD && m->error != STINT_OK) {
        m->lost++; /* the sticky error: nothing more reaches the file */
        return;
    }
    if (m->dest == DEST_FD) {
        /* format straight into the batch */
        if (m->len + MARKER_FORMAT_MAX > sizeof m->buf) {
            markers_flush(&m->base);
            if (m->error != STINT_OK) { /* that flush failed: this line goes nowhere either */
                m->lost++;
                return;
            }
        }
        m->len = (size_t)(format_line(m->buf + m->len, ev, m->flags) - m->buf);
    } else if (m->dest == DEST_CALLBACK) {
        char line[MARKER_FORMAT_MAX];
        m->fn(line, (size_t)(format_line(line, ev, m->flags) - line), m->user);
    }
}

/* Records reach no line while markers are off (or not set up yet): taken
 * as they are, so that they are not decoded for this sink. */
static int markers_raw(stint_i_sink *s, const stint_i_rec *r, const stint_i_rec_src *src)
{
    (void)r;
    (void)src;
    const marker_sink *m = (const marker_sink *)s;
    return m->dest == DEST_OFF || m->dest == DEST_UNSET;
}

_Static_assert(STINT_I_MARKER_LINE_ROOM == MARKER_FORMAT_MAX, "the room stint_i_flush_own keeps per line");

int stint_i_markers_sole(const stint_i_sink *s, unsigned *flags)
{
    const marker_sink *m = &g_markers;
    *flags = m->flags;
    return s == &m->base && g_markers_added && m->dest == DEST_FD && m->error == STINT_OK &&
           !(m->flags & STINT_MARKERS_PREFIX) && m->chunk == MARKER_BATCH && !m->wait_first;
}

char *stint_i_markers_format_at(char *p, const stint_i_event *ev, unsigned flags)
{
    return format_line(p, ev, flags);
}

/* The lines of text[0..n) (each ends with '\n'). */
static uint64_t count_lines(const char *text, size_t n)
{
    uint64_t k = 0;
    for (const char *p = text, *e = text + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        k++;
    return k;
}

void stint_i_markers_put(const char *text, size_t n)
{
    marker_sink *m = &g_markers;
    while (n) {
        if (m->dest != DEST_FD || m->error != STINT_OK) {
            m->lost += count_lines(text, n); /* (as markers_event counts them) */
            return;
        }
        size_t take = n;
        if (take > sizeof m->buf - m->len) { /* the whole lines that fit */
            const char *nl = m->len < sizeof m->buf ? memrchr(text, '\n', sizeof m->buf - m->len) : NULL;
            if (!nl) {
                markers_flush(&m->base);
                continue;
            }
            take = (size_t)(nl - text) + 1;
        }
        memcpy(m->buf + m->len, text, take);
        m->len += take;
        text += take;
        n -= take;
        if (n)
            markers_flush(&m->base);
    }
}

static void markers_dropped(stint_i_sink *s, const stint_i_drop *d)
{
    marker_sink *m = (marker_sink *)s;
    if (m->dest == DEST_OFF || m->dest == DEST_UNSET)
        return;
    char line[256];
    char *p = put_str(line, "[STINT] v=1 dropped pid=");
    p = put_i64(p, d->pid);
    p = put_str(p, " tid=");
    p = put_i64(p, d->tid);
    p = put_str(p, " count=");
    p = put_u64(p, d->count);
    p = put_str(p, " first_ts=");
    p = put_i64(p, d->first_ts_ns);
    p = put_str(p, " last_ts=");
    p = put_i64(p, d->last_ts_ns);
    *p++ = '\n';
    markers_append(m, line, (size_t)(p - line));
}

static void markers_close_dest(marker_sink *m)
{
    markers_flush(&m->base);
    if (m->dest == DEST_FD && m->own_fd)
        close(m->fd);
    m->dest = DEST_OFF;
    m->own_fd = 0;
    m->fd = -1;
}

static void markers_close(stint_i_sink *s)
{
    marker_sink *m = (marker_sink *)s;
    stint_i_sinks_gen++;
    markers_close_dest(m);
    g_markers_added = 0;
}

static void markers_atfork_child(stint_i_sink *s)
{
    ((marker_sink *)s)->len = 0; /* the parent writes its own pending lines */
    ((marker_sink *)s)->lost = 0; /* (the child's counters start at 0) */
}

static stint_status markers_error(stint_i_sink *s) { return ((marker_sink *)s)->error; }
static uint64_t markers_lost(stint_i_sink *s) { return ((marker_sink *)s)->lost; }

static void init_sink_ops(void)
{
    g_markers.base.raw = markers_raw;
    g_markers.base.event = markers_event;
    g_markers.base.dropped = markers_dropped;
    g_markers.base.flush = markers_flush;
    g_markers.base.close = markers_close;
    g_markers.base.atfork_child = markers_atfork_child;
    g_markers.base.error = markers_error;
    g_markers.base.lost = markers_lost;
}

static size_t chunk_for(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        return MARKER_BATCH;
    return PIPE_BUF;
}

/* Changes the destination under the drain lock, after writing what the old
 * destination is owed, so the writer never sees a half-changed sink. */
static void set_dest(int dest, int fd, int own_fd, stint_line_fn fn, void *user, unsigned flags)
{
    stint_i_init();
    stint_i_drain_lock();
    stint_i_drain_locked();
    marker_sink *m = &g_markers;
    stint_i_sinks_gen++; /* (lines a thread formatted for the old destination are formatted again) */
    if (g_markers_added)
        markers_close_dest(m);
    m->dest = dest;
    m->fd = fd;
    m->own_fd = own_fd;
    m->chunk = dest == DEST_FD ? chunk_for(fd) : MARKER_BATCH;
    m->fn = fn;
    m->user = user;
    m->flags = flags;
    m->error = STINT_OK;
    m->sys_errno = 0;
    m->open_failed = 0;
    m->wait_first = dest == DEST_FD && m->chunk != MARKER_BATCH;
    m->len = 0;
    if (dest == DEST_FD && fd >= 0 && !own_fd)
        snprintf(g_dest_name, sizeof g_dest_name, "fd %d", fd);
    if (!g_markers_added) {
        init_sink_ops();
        stint_i_sink_link_locked(&m->base);
        g_markers_added = 1;
    }
    stint_i_drain_unlock();
}

stint_status stint_markers_to_fd(int fd, unsigned flags)
{
    if (fd < 0)
        return STINT_E_INVAL;
    set_dest(DEST_FD, fd, 0, NULL, NULL, flags);
    return STINT_OK;
}

/* Opens a marker path for appending without ever blocking in open(2) (a
 * FIFO without a reader: ENXIO); the descriptor stays non-blocking, so a
 * write waits for room only as long as write_all allows. Returns the fd or
 * -1 with errno set. */
static int open_path(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
}

stint_status stint_markers_to_path(const char *path, unsigned flags)
{
    if (!path || !*path)
        return STINT_E_INVAL;
    int saved = errno;
    int fd = open_path(path);
    errno = saved;
    if (fd < 0)
        return STINT_E_IO;
    set_dest(DEST_FD, fd, 1, NULL, NULL, flags);
    stint_i_drain_lock();
    snprintf(g_dest_name, sizeof g_dest_name, "%s", path);
    stint_i_drain_unlock();
    return STINT_OK;
}

stint_status stint_markers_to_callback(stint_line_fn fn, void *user, unsigned flags)
{
    if (!fn)
        return STINT_E_INVAL;
    set_dest(DEST_CALLBACK, -1, 0, fn, user, flags);
    return STINT_OK;
}

void stint_markers_off(void) { set_dest(DEST_OFF, -1, 0, NULL, NULL, 0); }

/* Called by every drain (the drain lock held): applies
 * STINT_MARKERS unless the program already chose a destination. */
void stint_i_markers_default(void)
{
    if (g_markers_added || g_markers.dest != DEST_UNSET)
        return;
    const char *env = getenv("STINT_MARKERS");
    const char *pre = getenv("STINT_MARKERS_PREFIX");
    marker_sink *m = &g_markers;
    m->flags = (pre && !strcmp(pre, "1")) ? STINT_MARKERS_PREFIX : 0;
    m->dest = DEST_FD;
    m->fd = 2;
    m->own_fd = 0;
    if ((env && (!strcmp(env, "off") || !strcmp(env, "0"))) || (!env && stint_i_capture_wanted())) {
        m->dest = DEST_OFF; /* (STINT_CAPTURE alone: the capture replaces the default stderr lines) */
    } else if (env && *env && strcmp(env, "stderr") != 0) {
        int saved = errno;
        int fd = open_path(env);
        snprintf(g_dest_name, sizeof g_dest_name, "%s", env);
        if (fd >= 0) {
            m->fd = fd;
            m->own_fd = 1;
        } else {
            /* reported by stint_flush(), never fatal; every span line from
             * now on is counted lost (markers_event), the path and the
             * reason said at exit */
            m->error = STINT_E_IO;
            m->sys_errno = errno;
            m->open_failed = 1;
            m->fd = -1;
        }
        errno = saved;
    } else if (m->dest == DEST_FD) {
        snprintf(g_dest_name, sizeof g_dest_name, "stderr");
    }
    m->chunk = m->dest == DEST_FD ? chunk_for(m->fd) : MARKER_BATCH;
    m->wait_first = m->dest == DEST_FD && m->chunk != MARKER_BATCH;
    init_sink_ops();
    stint_i_sink_link_locked(&m->base);
    g_markers_added = 1;
}

size_t stint_i_markers_why(char *buf, size_t cap)
{
    const marker_sink *m = &g_markers;
    if (!cap || m->error == STINT_OK) /* (kept after the sink closed: the exit asks then) */
        return 0;
    const char *reason = m->sys_errno ? strerror(m->sys_errno) : stint_strerror(m->error);
    int n = snprintf(buf, cap, m->open_failed ? "cannot open %s: %s" : "write to %s failed: %s",
                     g_dest_name[0] ? g_dest_name : "the marker destination", reason);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}
