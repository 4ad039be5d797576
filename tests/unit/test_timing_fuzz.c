/* SPDX-License-Identifier: MIT */
/*
 * test_timing_fuzz.c - randomized robustness of the marker parser and the
 * timing views: mutated logs (flipped, dropped, inserted bytes; line breaks,
 * brackets and digits where they hurt) fed in random chunk sizes must give the
 * same records as one whole feed, keep records + torn + foreign == heads, and run every
 * view without a crash (the sanitizer builds turn a bad access into a
 * failure). Deterministic: a fixed seed.
 */
#include "check.h"
#include "read/markers_parse.h"
#include "timing/timing_model.h"
#include "timing/timing_out.h"

#include <unistd.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

struct digest {
    uint64_t n;
    uint64_t sum; /* a running hash of every field of every record */
};

static void mix(struct digest *d, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        d->sum = (d->sum ^ b[i]) * 1099511628211ull;
}

static int on_rec(void *ctx, const struct stint_mparse_record *r)
{
    struct digest *d = ((struct digest **)ctx)[0];
    struct stint_tm_model *m = ((struct stint_tm_model **)ctx)[1];
    d->n++;
    mix(d, &r->pid, sizeof r->pid);
    mix(d, &r->inv, sizeof r->inv);
    mix(d, &r->ts_ns, sizeof r->ts_ns);
    mix(d, &r->dur_ns, sizeof r->dur_ns);
    mix(d, &r->offset, sizeof r->offset);
    mix(d, r->name.ptr, r->name.len);
    mix(d, r->attrs.ptr, r->attrs.len);
    mix(d, r->hid_text.ptr, r->hid_text.len);
    return m ? stint_tm_add(m, r) : 0;
}

static struct stint_mparse_stats run(const char *buf, size_t len, size_t step, struct digest *d, struct stint_tm_model *m)
{
    memset(d, 0, sizeof *d);
    void *ctx[2] = {d, m};
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_rec;
    o.ctx = ctx;
    struct stint_mparse *p = stint_mparse_new(&o);
    REQUIRE(p);
    for (size_t i = 0; i < len;) {
        size_t k = step ? step : 1 + rnd(97);
        k = k < len - i ? k : len - i;
        CHECK(stint_mparse_feed(p, buf + i, k) == 0);
        i += k;
    }
    CHECK(stint_mparse_finish(p) == 0);
    struct stint_mparse_stats st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    return st;
}

static const char *const SEED_LINES[] = {
    "[2026-07-29 10:15:02.000000][T0x7f3a5c1fe640][TIMING] ~StraceScope: [strace.h:131] [STRACE] v=1 pid=4242 "
    "tid=4242 inv=1 hid=9f3a2c1b7e6d5a40 depth=2 name=simpler_run.bind.args ts=8100000060000 dur=360000 \n",
    "[STRACE] v=1 pid=4242 tid=4242 inv=1 hid=9f3a2c1b7e6d5a40 depth=2 name=simpler_run.runner_run.device_wall "
    "ts=0 dur=2820000 clk=dev\n",
    "[STRACE] v=1 pid=4242 tid=4242 inv=1 hid=9f3a2c1b7e6d5a40 depth=3 name=simpler_run.runner_run.device_wall.orch "
    "ts=510000 dur=1200000 clk=dev\n",
    "[STRACE] v=1 pid=4242 tid=4242 inv=1 hid=9f3a2c1b7e6d5a40 depth=3 name=simpler_run.runner_run.device_wall.sched "
    "ts=516000 dur=2100000 clk=dev\n",
    "[STRACE] v=1 pid=4242 tid=4242 inv=1 hid=9f3a2c1b7e6d5a40 depth=0 name=simpler_run ts=8100000000000 dur=4020000\n",
    "[mono_ns=1][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=1 tid=1 inv=2 hid=abc depth=0 name=chip.run ts=100 "
    "dur=100000 [mono_ns=2][T0x1][TIMING] emit_host_span: [STRACE] v=1 pid=1 tid=1 inv=2 hid=abc depth=2 "
    "name=chip.run.runner_run.device_wall ts=100 dur=20000 clk=dev\r\n",
    "I1130 03:10:52.694171   6019 stream_pool.cc:72] Allocated 8388608 bytes at 0x7fa522eeb85d\n",
    "Epoch 3:  50%|#####     | 500/1000 [00:10<00:10]\rEpoch 3:  51%|#####     | 510/1000\n",
    "[STRACE] v=2 pid=1 tid=2 inv=3 schema=next fields=ts,dur,name\n",
};

int main(void)
{
    static char base[1 << 16], buf[1 << 17];
    size_t blen = 0;
    for (int i = 0; i < 60; i++) {
        const char *l = SEED_LINES[rnd(sizeof SEED_LINES / sizeof SEED_LINES[0])];
        size_t n = strlen(l);
        memcpy(base + blen, l, n);
        blen += n;
    }
    static const char hot[] = "\n\r[] =.0123456789abcdefSTRACE\t\x1f\x80\xff";
    /* STINT_FUZZ_ITERS / STINT_FUZZ_SEED: longer or other runs by hand */
    int iters = getenv("STINT_FUZZ_ITERS") ? atoi(getenv("STINT_FUZZ_ITERS")) : 400;
    if (getenv("STINT_FUZZ_SEED"))
        rng_state ^= strtoull(getenv("STINT_FUZZ_SEED"), NULL, 10) * 0x2545F4914F6CDD1Dull;
    for (int iter = 0; iter < iters; iter++) {
        size_t len = 0;
        for (size_t i = 0; i < blen && len < sizeof buf - 4; i++) {
            uint32_t r = rnd(1000);
            if (r < 8)
                continue; /* drop */
            if (r < 16)
                buf[len++] = hot[rnd(sizeof hot - 1)]; /* insert */
            buf[len++] = r < 24 ? hot[rnd(sizeof hot - 1)] : base[i];
        }
        struct digest whole, pieces, bytes;
        struct stint_mparse_stats a = run(buf, len, len ? len : 1, &whole, NULL);
        struct stint_mparse_stats b = run(buf, len, 0, &pieces, NULL);
        struct stint_mparse_stats c = run(buf, len, 1, &bytes, NULL);
        CHECK_EQ_U64(a.records + a.torn + a.foreign, a.heads);
        CHECK_EQ_U64(a.records, whole.n);
        CHECK_EQ_U64(b.records, a.records);
        CHECK_EQ_U64(c.records, a.records);
        CHECK_EQ_U64(b.torn, a.torn);
        CHECK_EQ_U64(pieces.sum, whole.sum);
        CHECK_EQ_U64(bytes.sum, whole.sum);

        /* every view over the mutated log */
        struct stint_tm_model m;
        stint_tm_init(&m, TM_KEEP_ATTRS);
        struct digest d;
        struct stint_mparse_stats st = run(buf, len, 0, &d, &m);
        REQUIRE(!m.oom && stint_tm_analyze(&m) == 0);
        char *out = NULL;
        size_t olen = 0;
        FILE *f = open_memstream(&out, &olen);
        REQUIRE(f);
        for (int json = 0; json < 2; json++) {
            struct stint_tout_ctx ctx = {&m, f, (uint32_t)rnd(3), 1, json, json, &st, 0};
            stint_tout_table(&ctx);
            stint_tout_rounds(&ctx);
            stint_tout_tree(&ctx);
            ctx.tree_depth = !json;
            stint_tout_tree(&ctx);
        }
        fclose(f);
        CHECK(out != NULL);
        free(out);
        char path[] = "/tmp/stint_fuzz_XXXXXX";
        int fd = mkstemp(path);
        REQUIRE(fd >= 0);
        close(fd);
        CHECK(stint_tout_chrome(&m, path) == 0);
        unlink(path);
        stint_tm_free(&m);
    }
    CHECK_DONE();
}
