/* SPDX-License-Identifier: MIT */
/*
 * write_chrome_line.c - the Chrome writer's pieces of an event: numbers,
 * model strings and a lane's pid and tid, on an event made in memory
 * (struct stint_i_line, written with one call) or on the stream.
 */
#include "write/write_chrome_int.h"

#include "analyze/analysis.h"
#include "read/json.h"
#include "write/textout.h"

void stint_i_line_i64(struct stint_i_line *b, int64_t v)
{
    char t[24], *e = t + sizeof t, *q = e;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--q = '-';
    stint_i_line_put(b, q, (size_t)(e - q));
}

void stint_i_line_us3(struct stint_i_line *b, int64_t ns)
{
    char *o = stint_i_line_room(b, 32);
    b->len += stint_an_us_len(o, ns);
}

void stint_i_line_model_str(struct stint_i_line *b, const struct stint_model *m, uint32_t id)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    char *o = stint_i_line_room(b, 6 * n + 2);
    uint64_t bad = 0;
    *o++ = '"';
    o = stint_json_escape_to(o, s, n, &bad);
    *o++ = '"';
    b->len = (size_t)(o - b->p);
    if (bad)
        stint_out_bad_utf8_add(bad);
}

/* The string a pid is written as (stint_i_put_pid), or 0: its number. */
static uint32_t pid_text(const struct stint_model *m, int64_t pid, uint32_t proc, struct stint_i_pid_memo *pm)
{
    if (pid > STINT_SYNTHETIC_ID0)
        return 0;
    uint32_t text = 0;
    if (proc != STINT_NO_ID)
        text = stint_model_process_at(m, proc)->id_text;
    else if (pm->valid && pm->pid == pid)
        text = pm->text;
    else {
        for (size_t i = 0; i < m->processes.len && !text; i++)
            if (stint_model_process_at(m, (uint32_t)i)->pid == pid)
                text = stint_model_process_at(m, (uint32_t)i)->id_text;
        *pm = (struct stint_i_pid_memo){pid, text, 1};
    }
    return text;
}

void stint_i_put_pid(FILE *out, const struct stint_model *m, int64_t pid, uint32_t proc, struct stint_i_pid_memo *pm)
{
    uint32_t text = pid_text(m, pid, proc, pm);
    if (text)
        stint_out_json_model_str(out, m, text);
    else
        stint_out_i64(out, pid);
}

void stint_i_put_tid(FILE *out, const struct stint_model *m, const struct stint_lane *l, int64_t tid)
{
    if (tid == l->tid && l->tid_text)
        stint_out_json_model_str(out, m, l->tid_text);
    else
        stint_out_i64(out, tid);
}

void stint_i_put_lane_ids(FILE *out, const struct stint_model *m, const struct stint_lane *l, int64_t tid)
{
    fputs("\"pid\":", out);
    stint_i_put_pid(out, m, l->pid, l->process, NULL);
    fputs(",\"tid\":", out);
    stint_i_put_tid(out, m, l, tid);
}

void stint_i_line_lane_ids(struct stint_i_line *b, const struct stint_model *m, const struct stint_lane *l,
                           int64_t tid)
{
    STINT_I_LINE_LIT(b, "\"pid\":");
    uint32_t text = pid_text(m, l->pid, l->process, NULL);
    if (text)
        stint_i_line_model_str(b, m, text);
    else
        stint_i_line_i64(b, l->pid);
    STINT_I_LINE_LIT(b, ",\"tid\":");
    if (tid == l->tid && l->tid_text)
        stint_i_line_model_str(b, m, l->tid_text);
    else
        stint_i_line_i64(b, tid);
}
