/*
 * readers.c - format detection and the shared reader front end.
 *
 * Detection looks at the first bytes of the (decompressed) input only:
 * a line holding "[STRACE]" before any JSON structure means a marker log; a
 * first line that is a JSON object with a "kind" key means a JSONL session;
 * anything starting with '[' or '{' otherwise is Chrome JSON.
 */
#include "readers.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stint_i_progress(const struct stint_input *in, int done)
{
    uint64_t total = in->file_size;
    if (total < ((uint64_t)64 << 20) && !in->gz)
        return;
    if (in->gz && in->raw_read < ((uint64_t)64 << 20) && !done)
        return;
    if (!isatty(2)) /* checked per 4 MiB chunk: one cheap syscall, no shared state between threads */
        return;
    if (done) {
        fprintf(stderr, "\r%60s\r", "");
        return;
    }
    if (total && !in->gz)
        fprintf(stderr, "\rstint: reading %s: %3d%%", in->path, (int)(in->base * 100 / total));
    else
        fprintf(stderr, "\rstint: reading %s: %llu MB", in->path, (unsigned long long)(in->base >> 20));
}

static const char *detect(const struct stint_input *in)
{
    const char *p = in->buf, *end = in->buf + in->len;
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p >= end)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    size_t scan = (size_t)(end - p) < 65536 ? (size_t)(end - p) : 65536;
    if (p < end && *p == '{') {
        if (memmem(p, (size_t)(line_end - p), "\"kind\"", 6) && !memmem(p, (size_t)(line_end - p), "\"traceEvents\"", 13))
            return "jsonl";
        return "chrome";
    }
    if (p < end && *p == '[') {
        /* a Chrome array opens with '[' then '{' or ']'; a log line's prefix does not */
        const char *q = p + 1;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
            q++;
        if (q >= end || *q == '{' || *q == ']')
            return "chrome";
    }
    if (memmem(p, scan, "[STRACE]", 8))
        return "markers";
    if (p < end && *p == '[')
        return "chrome";
    return NULL;
}

/* ---- two threads on one plain file ------------------------------------------------ */

#define SPLIT_MIN_BYTES ((uint64_t)32 << 20)

struct half {
    const char *path;
    uint64_t from, to;
    int part, in_obj, rc, boundary_ok;
    const struct stint_read_opts *o;
    struct stint_model *m;
};

static void *half_main(void *arg)
{
    struct half *h = arg;
    struct stint_input in;
    h->rc = stint_input_open_range(&in, h->path, h->from, h->to);
    if (h->rc != 0)
        stint_model_fail(h->m, "%s", in.err);
    else
        h->rc = stint_i_read_chrome_part(&in, h->m, h->o, h->part, h->in_obj, &h->boundary_ok);
    stint_input_close(&in);
    return NULL;
}

/* An event boundary near the middle of a plain file: the offset of a '{'
 * that follows a ',' (blanks between). Whether it truly is one (and not
 * inside a string) is checked afterwards by the first half's parser, which
 * must arrive at that offset right after an event's ','. 0 when none found. */
static uint64_t find_split(const char *path, uint64_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    static const size_t win = (size_t)1 << 20;
    char *buf = malloc(win);
    uint64_t at = size / 2, found = 0;
    ssize_t n = buf ? pread(fd, buf, win, (off_t)at) : -1;
    for (ssize_t i = 0; i < n && !found; i++) {
        if (buf[i] != ',')
            continue;
        ssize_t k = i + 1;
        while (k < n && (buf[k] == ' ' || buf[k] == '\n' || buf[k] == '\r' || buf[k] == '\t'))
            k++;
        if (k < n && buf[k] == '{')
            found = at + (uint64_t)k;
    }
    free(buf);
    close(fd);
    return found;
}

/* Files from this size on are read on two threads (STINT_SPLIT_MIN_BYTES
 * overrides it, for tests). */
static uint64_t split_min_bytes(void)
{
    const char *e = getenv("STINT_SPLIT_MIN_BYTES");
    return e && *e ? (uint64_t)strtoull(e, NULL, 10) : SPLIT_MIN_BYTES;
}

int stint_threads_wanted(void)
{
    const char *e = getenv("STINT_THREADS");
    return e && *e ? atoi(e) : 2;
}

/* Reads a plain Chrome file on two threads. Returns -1 when the split did not
 * work out (the caller reads the file again on one thread), else the exit code. */
static int read_split(const char *path, uint64_t size, int in_obj, struct stint_model *m,
                      const struct stint_read_opts *o)
{
    uint64_t split = find_split(path, size);
    if (!split)
        return -1;
    struct stint_model m2;
    if (stint_model_init(&m2, m->flags) != 0)
        return -1;
    struct half h1 = {.path = path, .from = 0, .to = split, .part = 1, .in_obj = in_obj, .o = o, .m = m};
    struct half h2 = {.path = path, .from = split, .to = 0, .part = 2, .in_obj = in_obj, .o = o, .m = &m2};
    pthread_t t;
    if (pthread_create(&t, NULL, half_main, &h2) != 0) {
        stint_model_free(&m2);
        return -1;
    }
    half_main(&h1);
    pthread_join(t, NULL);
    int rc;
    if (h1.rc != 0 || !h1.boundary_ok) {
        /* the split was not an event boundary (or the first half has an error,
         * which may be the split's doing): read again on one thread */
        stint_model_free(&m2);
        return -1;
    } else {
        if (stint_model_merge(m, &m2) != 0) {
            stint_model_fail(m, "%s: out of memory joining the two halves", path);
            rc = 3;
        } else
            rc = h2.rc;
    }
    stint_model_free(&m2);
    return rc;
}

int stint_read_trace(const char *path, struct stint_model *m, const struct stint_read_opts *o)
{
    struct stint_read_opts defaults = {0};
    if (!o)
        o = &defaults;
    struct stint_input in;
    int rc = stint_input_open(&in, path);
    if (rc != 0) {
        stint_model_fail(m, "%s", in.err);
        stint_input_close(&in);
        stint_model_finish(m);
        return rc;
    }
    const char *fmt = o->format ? o->format : detect(&in);
    if (!fmt) {
        if (in.len == 0)
            stint_model_fail(m, "%s: the input is empty (expected a Chrome JSON trace, a JSONL session or a marker log)",
                             path);
        else
            stint_model_fail(m, "%s: byte 0: unknown format (expected '[' or '{' of Chrome JSON, a JSONL session, "
                             "or a log with [STRACE] records)", path);
        rc = 1;
    } else if (!strcmp(fmt, "chrome")) {
        rc = -1;
        if (!in.gz && in.file_size >= split_min_bytes() && strcmp(path, "-") != 0 && stint_threads_wanted() > 1) {
            const char *p = in.buf;
            while (p < in.buf + in.len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
                p++;
            int in_obj = p < in.buf + in.len && *p == '{';
            uint64_t size = in.file_size;
            stint_input_close(&in);
            rc = read_split(path, size, in_obj, m, o);
            if (rc < 0) {
                /* no usable split: start again on one thread */
                unsigned flags = m->flags;
                stint_span_sink sink = m->span_sink;
                void *sink_ctx = m->span_sink_ctx;
                stint_model_free(m);
                stint_model_init(m, flags);
                stint_model_set_span_sink(m, sink, sink_ctx);
                rc = stint_input_open(&in, path);
                if (rc == 0)
                    rc = stint_read_chrome(&in, m, o);
                else
                    stint_model_fail(m, "%s", in.err);
            } else
                memset(&in, 0, sizeof in);
        } else
            rc = stint_read_chrome(&in, m, o);
    }
    else if (!strcmp(fmt, "jsonl"))
        rc = stint_read_jsonl(&in, m, o);
    else if (!strcmp(fmt, "markers"))
        rc = stint_read_markers(&in, m, o);
    else {
        stint_model_fail(m, "unknown --format '%s' (expected chrome, jsonl or markers)", fmt);
        rc = 2;
    }
    stint_input_close(&in);
    stint_model_finish(m);
    if (rc == 0 && m->partial)
        rc = 1;
    if (rc == 0 && o->strict) {
        for (int k = 0; k < STINT_REPAIR_COUNT; k++)
            if (m->repairs[k]) {
                stint_model_fail(m, "%s: --strict: %s", path, m->repair_first[k]);
                rc = 1;
                break;
            }
        if (rc == 0 && m->dropped) {
            stint_model_fail(m, "%s: --strict: %s", path, m->dropped_first);
            rc = 1;
        }
    }
    return rc;
}

void stint_report_problems(FILE *f, const char *path, const struct stint_model *m)
{
    if (m->error)
        fprintf(f, "stint: error: %s\n", m->error);
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (m->repairs[k])
            fprintf(f, "stint: %s: repaired %llu x %s (first: %s)\n", path, (unsigned long long)m->repairs[k],
                    stint_repair_name((enum stint_repair)k), m->repair_first[k] ? m->repair_first[k] : "");
    if (m->dropped)
        fprintf(f, "stint: %s: dropped %llu event(s) (first: %s)\n", path, (unsigned long long)m->dropped,
                m->dropped_first ? m->dropped_first : "");
    if (m->partial)
        fprintf(f, "stint: %s: the report is PARTIAL (input ended in an error)\n", path);
}
