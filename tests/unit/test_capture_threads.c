/* SPDX-License-Identifier: MIT */
/*
 * test_capture_threads.c - the binary capture sink, written and read back.
 *
 * Two threads record nested spans with attributes under a test clock that
 * gives each thread its own exact times (thread k: k * 10^9 + 10 * its
 * n-th clock read), flushed in several drains so the file holds several
 * blocks. Checked against what the threads did, computed here:
 *   - the decoder (read/read_capture.h) gives every span once: count per
 *     thread, names, depth, exact ts and dur, attribute values, inv and
 *     thread names; sums hold, nothing torn;
 *   - stint_read_trace (what every command reads) finds the format by its
 *     magic and models the same spans, with the call tree from depth;
 *   - a file cut at every byte from the header on keeps exactly the span
 *     records that end before the cut (their offsets from the whole read)
 *     and counts the torn entries: the cut block's count less those kept;
 *   - a damaged byte in the first block skips that block (counted) and
 *     keeps the later ones;
 *   - a write error (/dev/full) is sticky and returned by close;
 *   - a process forked while a capture runs writes PATH.<pid> of its own
 *     (its own header and strings), the parent's file keeps the parent's.
 */
#include "check.h"

#include "internal.h"
#include "model/model.h"
#include "read/read_capture.h"
#include "read/readers.h"
#include "stint/session.h"

#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ROUNDS = 40, BATCHES = 3 };

static _Thread_local int64_t t_base, t_reads;

static int64_t test_clock(void) { return t_base + 10 * t_reads++; }

static pthread_barrier_t g_bar;

/* Thread k (1 or 2): per batch, ROUNDS outer spans each holding one inner
 * span with two attributes; a flush between batches (after both threads'
 * batch: the barrier) makes blocks. Clock reads per round: 4. */
static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "cap-w%d", k);
    pthread_setname_np(pthread_self(), name);
    t_base = (int64_t)k * 1000000000;
    t_reads = 0;
    for (int b = 0; b < BATCHES; b++) {
        for (int r = 0; r < ROUNDS; r++) {
            static const stint_loc outer = {"outer", "site=a", __FILE__, "worker", __LINE__};
            stint_span o = stint_span_begin(&outer);
            stint_span i = stint_span_begin_copy("inner span", 10);
            stint_attr_i64("round", b * ROUNDS + r);
            stint_attr_str("who", k == 1 ? "one" : "two words");
            stint_span_end(i);
            stint_span_end(o);
        }
        pthread_barrier_wait(&g_bar);
        if (k == 1)
            REQUIRE(stint_flush() == STINT_OK);
        pthread_barrier_wait(&g_bar);
    }
    return NULL;
}

/* ---- what the decoder gives -------------------------------------------------------------- */

struct got {
    int n[3];           /* spans per thread index */
    int bad;            /* spans that are not what the thread recorded */
    int names[3];       /* thread entries naming cap-w1/cap-w2 */
    int32_t tid[3];
    uint64_t *offs;     /* every span's offset, in file order */
    size_t noffs, cap;
};

static void got_span(void *ctx, const struct stint_cap_span *s)
{
    struct got *g = ctx;
    if (g->noffs == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 256;
        g->offs = realloc(g->offs, g->cap * sizeof *g->offs);
    }
    g->offs[g->noffs++] = s->offset;
    int k = s->tid == g->tid[1] ? 1 : s->tid == g->tid[2] ? 2 : 0;
    if (!k) {
        g->bad++;
        return;
    }
    /* the m-th span of thread k: inner (even m) or outer (odd m) of round m / 2 */
    int m = g->n[k]++;
    int64_t round = m / 2, t0 = (int64_t)k * 1000000000 + 40 * round;
    int inner = m % 2 == 0;
    int ok = inner ? s->name.len == 10 && !memcmp(s->name.ptr, "inner span", 10) && s->depth == 1 &&
                         s->ts_ns == t0 + 10 && s->dur_ns == 10 && s->nattr == 2 && s->static_attrs.len == 0
                   : s->name.len == 5 && !memcmp(s->name.ptr, "outer", 5) && s->depth == 0 && s->ts_ns == t0 &&
                         s->dur_ns == 30 && s->nattr == 0 && s->static_attrs.len == 6 &&
                         !memcmp(s->static_attrs.ptr, "site=a", 6);
    if (ok && inner) {
        const char *who = k == 1 ? "one" : "two words";
        ok = s->attrs[0].type == STINT_CAP_A_I64 && (int64_t)s->attrs[0].v == round &&
             s->attrs[0].key.len == 5 && !memcmp(s->attrs[0].key.ptr, "round", 5) &&
             s->attrs[1].type == STINT_CAP_A_STR && s->attrs[1].s.len == strlen(who) &&
             !memcmp(s->attrs[1].s.ptr, who, strlen(who));
    }
    if (!ok) {
        if (g->bad < 5)
            fprintf(stderr, "span %d of thread %d: ts %lld dur %lld depth %d name %.*s\n", m, k, (long long)s->ts_ns,
                    (long long)s->dur_ns, s->depth, (int)s->name.len, s->name.ptr);
        g->bad++;
    }
}

static void got_thread(void *ctx, int32_t pid, int32_t tid, struct stint_cap_text name)
{
    struct got *g = ctx;
    (void)pid;
    for (int k = 1; k <= 2; k++) {
        char want[16];
        snprintf(want, sizeof want, "cap-w%d", k);
        if (name.len == strlen(want) && !memcmp(name.ptr, want, name.len)) {
            g->names[k]++;
            g->tid[k] = tid;
        }
    }
}

static const struct stint_cap_stats *decode(struct stint_cap_dec **d, struct got *g, const uint8_t *buf, size_t len)
{
    struct stint_cap_callbacks cb = {.ctx = g, .span = got_span, .thread = got_thread};
    *d = stint_cap_dec_new(&cb);
    const char *why = NULL;
    long used = stint_cap_dec_feed(*d, buf, len, 0, 1, &why);
    if (used < 0)
        return NULL;
    return stint_cap_dec_stats(*d);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len + 1);
    REQUIRE(fread(b, 1, *len, f) == *len);
    fclose(f);
    return b;
}

int main(void)
{
    char path[] = "/tmp/stint_capture_testXXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    stint_markers_off();
    stint_i_clock_set_test(test_clock);
    stint_capture *cap = NULL;
    char err[256];
    REQUIRE(stint_capture_open(path, &cap, err, sizeof err) == STINT_OK);
    pthread_barrier_init(&g_bar, NULL, 2);
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&th[k], NULL, worker, (void *)(intptr_t)(k + 1));
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    REQUIRE(stint_capture_close(cap) == STINT_OK);

    /* the whole file */
    size_t len;
    uint8_t *buf = slurp(path, &len);
    struct got g = {0};
    struct stint_cap_dec *d;
    const struct stint_cap_stats *st = decode(&d, &g, buf, len);
    REQUIRE(st != NULL);
    const int per_thread = 2 * ROUNDS * BATCHES;
    CHECK_EQ_I64(g.n[1], per_thread);
    CHECK_EQ_I64(g.n[2], per_thread);
    CHECK_EQ_I64(g.bad, 0);
    CHECK_EQ_I64(st->spans, 2 * per_thread);
    CHECK(g.names[1] == 1 && g.names[2] == 1);
    CHECK(st->blocks >= BATCHES); /* a flush per batch */
    CHECK_EQ_U64(st->torn_entries, 0);
    CHECK_EQ_U64(st->bad_blocks, 0);
    CHECK_EQ_U64(st->bad_entries, 0);
    CHECK_EQ_U64(st->strings, 5); /* outer, site=a, inner span, round, who: each once */
    size_t nall = g.noffs;
    uint64_t *offs = malloc(nall * sizeof *offs);
    memcpy(offs, g.offs, nall * sizeof *offs);
    uint64_t blocks = st->blocks;
    stint_cap_dec_free(d);
    free(g.offs);

    /* what every command reads */
    struct stint_model m;
    stint_model_init(&m, 0);
    struct stint_read_opts o = {0};
    o.quiet = 1;
    CHECK_EQ_I64(stint_read_trace(path, &m, &o), 0);
    CHECK_STR(m.format, "capture");
    CHECK_EQ_U64(m.slices.len, 2 * per_thread);
    CHECK_EQ_U64(m.events, 2 * per_thread);
    int depth1 = 0, repairs = 0;
    for (size_t i = 0; i < m.slices.len; i++)
        depth1 += STINT_BA_AT(&m.slices, struct stint_slice, i).depth == 1;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        repairs += (int)m.repairs[k];
    CHECK_EQ_I64(depth1, per_thread); /* every inner span under its outer one */
    CHECK_EQ_I64(repairs, 0);
    stint_model_free(&m);

    /* cut at every byte: exactly the spans that end before the cut */
    int cut_bad = 0;
    for (size_t cut = 64; cut <= len; cut++) {
        struct got gc = {.tid = {0, g.tid[1], g.tid[2]}};
        st = decode(&d, &gc, buf, cut);
        size_t want = 0;
        for (size_t i = 0; i < nall; i++) {
            /* a span's end: the next span's offset, or found from its size */
            uint32_t size;
            memcpy(&size, buf + offs[i], 4);
            want += offs[i] + size <= cut;
        }
        int ok = st && st->spans == want && gc.bad == 0 && st->bad_blocks == 0 && st->bad_entries == 0;
        /* torn: entries claimed by the cut block less those kept (0 at a block's end) */
        if (ok && cut < len && st->torn_entries == 0 && st->torn_bytes == 0 && st->blocks == blocks)
            ok = 0;
        if (!ok && cut_bad++ < 5)
            fprintf(stderr, "cut at %zu: %llu spans, want %zu\n", cut, st ? (unsigned long long)st->spans : 0ULL,
                    want);
        stint_cap_dec_free(d);
        free(gc.offs);
    }
    CHECK_EQ_I64(cut_bad, 0);

    /* the file cut in the middle of its second block, through stint_read_trace: kept and counted */
    {
        uint32_t first_plen;
        memcpy(&first_plen, buf + 64 + 4, 4);
        size_t cut = 64 + 32 + first_plen + 32 + 200;
        REQUIRE(cut < len);
        char cpath[64];
        snprintf(cpath, sizeof cpath, "%s.cut", path);
        FILE *f = fopen(cpath, "wb");
        REQUIRE(f && fwrite(buf, 1, cut, f) == cut);
        fclose(f);
        size_t want = 0;
        for (size_t i = 0; i < nall; i++) {
            uint32_t size;
            memcpy(&size, buf + offs[i], 4);
            want += offs[i] + size <= cut;
        }
        stint_model_init(&m, 0);
        CHECK_EQ_I64(stint_read_trace(cpath, &m, &o), 0); /* (a drop, not an error without --strict) */
        CHECK_EQ_U64(m.slices.len, want);
        CHECK(m.repairs[STINT_REPAIR_TORN_RECORD] > 0);
        stint_model_free(&m);
        unlink(cpath);
    }

    /* one damaged byte in the first block's payload: that block skipped, the rest kept */
    {
        uint32_t first_plen, first_n;
        memcpy(&first_plen, buf + 64 + 4, 4);
        memcpy(&first_n, buf + 64 + 8, 4);
        uint8_t *bad = malloc(len);
        memcpy(bad, buf, len);
        bad[64 + 32 + first_plen / 2] ^= 0x40;
        struct got gd = {.tid = {0, g.tid[1], g.tid[2]}};
        st = decode(&d, &gd, bad, len);
        size_t want = 0;
        for (size_t i = 0; i < nall; i++)
            want += offs[i] >= 64 + 32 + first_plen;
        CHECK(st != NULL);
        if (st) {
            CHECK_EQ_U64(st->bad_blocks, 1);
            /* spans whose strings the skipped block defined cannot be read: counted, never wrong */
            CHECK(st->spans + st->bad_entries == want);
            CHECK_EQ_I64(gd.bad, 0);
        }
        stint_cap_dec_free(d);
        free(gd.offs);
        free(bad);
    }

    /* a write error is sticky and returned by close */
    {
        stint_capture *full = NULL;
        if (stint_capture_open("/dev/full", &full, err, sizeof err) == STINT_OK) {
            static const stint_loc l = {"x", NULL, __FILE__, "main", __LINE__};
            for (int i = 0; i < 10; i++)
                stint_span_end(stint_span_begin(&l));
            CHECK(stint_flush() == STINT_E_IO);
            CHECK(stint_capture_close(full) == STINT_E_IO);
        } else {
            CHECK(strstr(err, "/dev/full") != NULL); /* the header's write failed at open */
        }
    }
    /* fork: the child's spans go to PATH.<pid>, the parent's stay in PATH */
    {
        stint_i_clock_set_test(NULL);
        char fpath[64];
        snprintf(fpath, sizeof fpath, "%s.fork", path);
        stint_capture *fc = NULL;
        REQUIRE(stint_capture_open(fpath, &fc, err, sizeof err) == STINT_OK);
        static const stint_loc pl = {"parent", NULL, __FILE__, "main", __LINE__};
        static const stint_loc cl = {"child", NULL, __FILE__, "main", __LINE__};
        for (int i = 0; i < 3; i++)
            stint_span_end(stint_span_begin(&pl));
        REQUIRE(stint_flush() == STINT_OK);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            for (int i = 0; i < 7; i++)
                stint_span_end(stint_span_begin(&cl));
            _exit(stint_flush() == STINT_OK ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        stint_span_end(stint_span_begin(&pl));
        REQUIRE(stint_capture_close(fc) == STINT_OK);
        char cpath[96];
        snprintf(cpath, sizeof cpath, "%s.%d", fpath, (int)pid);
        size_t n1, n2;
        uint8_t *b1 = slurp(fpath, &n1), *b2 = slurp(cpath, &n2);
        struct got g1 = {0}, g2 = {0};
        struct stint_cap_dec *d1, *d2;
        const struct stint_cap_stats *s1 = decode(&d1, &g1, b1, n1), *s2 = decode(&d2, &g2, b2, n2);
        CHECK(s1 && s2);
        if (s1 && s2) {
            CHECK_EQ_U64(s1->spans, 4);
            CHECK_EQ_U64(s2->spans, 7);
            CHECK_EQ_U64(s2->strings, 1); /* "child": the parent's strings are not assumed */
            CHECK_EQ_U64(s1->torn_entries + s2->torn_entries + s1->bad_blocks + s2->bad_blocks, 0);
        }
        stint_cap_dec_free(d1);
        stint_cap_dec_free(d2);
        free(g1.offs);
        free(g2.offs);
        free(b1);
        free(b2);
        unlink(fpath);
        unlink(cpath);
    }
    free(offs);
    free(buf);
    unlink(path);
    CHECK_DONE();
}
