/*
 * readers.c - format detection and the shared reader front end.
 *
 * Detection looks at the first bytes of the (decompressed) input only:
 * a line holding "[STRACE]" before any JSON structure means a marker log; a
 * first line that is a JSON object with a "kind" key means a JSONL session;
 * anything starting with '[' or '{' otherwise is Chrome JSON.
 */
#include "readers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int progress_enabled = -1;

void stint_i_progress(const struct stint_input *in, int done)
{
    if (progress_enabled < 0)
        progress_enabled = isatty(2);
    if (!progress_enabled)
        return;
    uint64_t total = in->file_size;
    if (total < ((uint64_t)64 << 20) && !in->gz)
        return;
    if (in->gz && in->raw_read < ((uint64_t)64 << 20) && !done)
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
    } else if (!strcmp(fmt, "chrome"))
        rc = stint_read_chrome(&in, m, o);
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
