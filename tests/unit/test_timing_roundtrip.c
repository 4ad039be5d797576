/* SPDX-License-Identifier: MIT */
/*
 * test_timing_roundtrip.c - what libstint writes, `stint timing` reads: spans
 * recorded through the public API and emitted by the marker sink (with the
 * reference logger's prefix) come back through the streaming parser and the
 * timing model with their names, nesting depth, invocation, hid, durations,
 * attributes and device tag intact.
 */
#include "check.h"
#include "read/markers_parse.h"
#include "timing/timing_model.h"

#include <stint/stint.h>

struct sink {
    char *buf;
    size_t len, cap;
};

static void on_line(const char *line, size_t len, void *user)
{
    struct sink *s = user;
    if (s->len + len + 1 > s->cap) {
        size_t ncap = (s->cap + len + 1) * 2;
        char *nb = realloc(s->buf, ncap);
        if (!nb)
            return;
        s->buf = nb;
        s->cap = ncap;
    }
    memcpy(s->buf + s->len, line, len);
    s->len += len;
    s->buf[s->len] = 0;
}

static int add(void *ctx, const struct stint_mparse_record *r)
{
    return stint_tm_add(ctx, r);
}

int main(void)
{
    struct sink s = {0};
    REQUIRE(stint_markers_to_callback(on_line, &s, STINT_MARKERS_PREFIX) == STINT_OK);
    stint_set_enabled(1);
    uint64_t first_inv = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t inv = stint_invocation_begin();
        if (!i)
            first_inv = inv;
        stint_set_hid(0x1b2c3d4e5f607182ull);
        stint_span run = stint_span_begin_copy("simpler_run", 11);
        stint_span bind = stint_span_begin_copy("simpler_run.bind", 16);
        stint_attr_i64("ntensor", 4);
        stint_span_end(bind);
        stint_device_span("simpler_run.runner_run.device_wall", 0, 1000 + i, 2);
        stint_span_end(run);
    }
    stint_set_hid(0x9f3a2c1b7e6d5a40ull);
    stint_invocation_begin();
    stint_span_end(stint_span_begin_copy("simpler_run", 11));
    REQUIRE(stint_flush() == STINT_OK);
    stint_markers_off();
    REQUIRE(s.buf);

    struct stint_tm_model m;
    stint_tm_init(&m, TM_KEEP_ATTRS);
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = add;
    o.ctx = &m;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p);
    CHECK(stint_mparse_feed(p, s.buf, s.len) == 0);
    CHECK(stint_mparse_finish(p) == 0);
    const struct stint_mparse_stats *st = stint_mparse_get_stats(p);
    CHECK_EQ_U64(st->heads, 10);
    CHECK_EQ_U64(st->records, 10);
    CHECK_EQ_U64(st->torn, 0);
    stint_mparse_free(p);
    REQUIRE(stint_tm_analyze(&m) == 0);

    CHECK_EQ_U64(m.ninvs, 4);
    REQUIRE(m.nbuckets == 2);
    CHECK_STR(stint_tm_str(&m, m.buckets[0].hid), "1b2c3d4e5f607182");
    CHECK_EQ_U64(m.buckets[0].n, 3);
    CHECK_STR(stint_tm_str(&m, m.buckets[1].hid), "9f3a2c1b7e6d5a40");
    const uint32_t *b0 = m.bucket_invs + m.buckets[0].off;
    uint32_t wall = stint_tm_str_find(&m, "simpler_run.runner_run.device_wall", 34);
    uint32_t bind = stint_tm_str_find(&m, "simpler_run.bind", 16);
    REQUIRE(wall != TM_NONE && bind != TM_NONE);
    for (uint32_t i = 0; i < 3; i++) {
        const struct stint_tm_inv *iv = &m.invs[b0[i]];
        CHECK_EQ_U64(iv->inv, first_inv + i);
        CHECK_EQ_U64(iv->nspans, 3);
        CHECK(iv->has_root);
        CHECK_STR(stint_tm_str(&m, iv->root_name), "simpler_run");
        const struct stint_tm_fon *w = stint_tm_fon_find(&m, b0[i], wall);
        CHECK(w && w->dur_ns == 1000 + (int64_t)i && w->ts_ns == 0 && w->depth == 2);
        const struct stint_tm_fon *b = stint_tm_fon_find(&m, b0[i], bind);
        CHECK(b && b->depth == 1 && b->dur_ns >= 0 && b->dur_ns <= iv->root_dur_ns);
        for (uint32_t sp = iv->first; sp != TM_NONE; sp = m.spans[sp].next) {
            struct stint_mparse_text a = stint_tm_attrs(&m, sp);
            if (m.spans[sp].name == bind)
                CHECK(stint_mparse_text_eq(a, "ntensor=4"));
            if (m.spans[sp].name == wall) {
                CHECK(m.spans[sp].dev == 1);
                CHECK(a.len >= 7 && !memcmp(a.ptr, "clk=dev", 7));
            } else {
                CHECK(m.spans[sp].dev == 0);
            }
        }
    }
    stint_tm_free(&m);
    free(s.buf);
    CHECK_DONE();
}
