/* SPDX-License-Identifier: MIT */
/*
 * timing_chrome.c - `stint timing --trace-out`: the timing model's spans as
 * a Chrome trace, in the reference's layout.
 *
 * Invariants: one process lane per invocation, numbered from 1 in (pid, inv)
 * order and named "<bucket label> inv=<inv> (pid=<pid>)"; host spans on tid
 * 0, clk=dev spans on tid 1; each invocation's spans in input order; times
 * as exact decimal microseconds (stint_tout_json_us); strings in json.dumps'
 * ASCII form. The model must keep spans and attrs.
 */
#include "timing/timing_int.h"
#include "base/xalloc.h"
#include "write/outfile.h"

#include <errno.h>
#include <stdlib.h>

int stint_tout_chrome(const struct stint_tm_model *m, const char *path)
{
    struct stint_outfile of; /* (written whole or not at all; messages printed there: outfile.h) */
    int oerr = stint_outfile_open(&of, "timing", path);
    if (oerr)
        return oerr;
    FILE *f = of.f;
    uint32_t *bucket_of = stint_xmalloc(((size_t)m->nstr + 1) * sizeof *bucket_of);
    for (uint32_t i = 0; i < m->nstr; i++)
        bucket_of[i] = TM_NONE;
    for (uint32_t b = 0; b < m->nbuckets; b++)
        bucket_of[m->buckets[b].hid] = b;
    fputs("{\"traceEvents\": [", f);
    int first = 1;
    for (uint32_t i = 0; i < m->ninvs; i++) {
        const struct stint_tm_inv *iv = &m->invs[m->order[i]];
        uint32_t lane = i + 1;
        char label[16];
        stint_tm_bucket_label(m, bucket_of[iv->hid], label);
        fprintf(f,
                "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %u, \"tid\": 0, \"args\": {\"name\": ",
                first ? "" : ", ", lane);
        first = 0;
        char pname[96];
        snprintf(pname, sizeof pname, "%s inv=%llu (pid=%llu)", label, (unsigned long long)iv->inv,
                 (unsigned long long)iv->pid);
        stint_tout_json_cstr(f, pname);
        fprintf(f,
                "}}, {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %u, \"tid\": 0, \"args\": "
                "{\"name\": \"host\"}}, {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %u, \"tid\": 1, "
                "\"args\": {\"name\": \"device (clk=dev)\"}}",
                lane, lane);
        for (uint32_t s = iv->first; s != TM_NONE; s = m->spans[s].next) {
            const struct stint_tm_span *sp = &m->spans[s];
            fputs(", {\"name\": ", f);
            stint_out_json_ascii(f, stint_tm_str(m, sp->name), stint_tm_str_len(m, sp->name));
            fputs(", \"ph\": \"X\", \"ts\": ", f);
            stint_tout_json_us(f, sp->ts_ns);
            fputs(", \"dur\": ", f);
            stint_tout_json_us(f, sp->dur_ns);
            fprintf(f, ", \"pid\": %u, \"tid\": %u, \"args\": {\"inv\": %llu, \"hid\": ", lane, sp->dev ? 1u : 0u,
                    (unsigned long long)iv->inv);
            stint_tout_json_id(f, m, sp->hid);
            fprintf(f, ", \"depth\": %u, \"attrs\": ", sp->depth);
            struct stint_mparse_text a = stint_tm_attrs(m, s);
            stint_out_json_ascii(f, a.ptr, a.len);
            fputs("}}", f);
        }
    }
    fputs("], \"displayTimeUnit\": \"ms\"}", f);
    free(bucket_of);
    return stint_outfile_commit(&of, "timing") ? EIO : 0;
}
