/* SPDX-License-Identifier: MIT */
/* N threads x M spans with small buffers: every span is either written or
 * counted as dropped, exactly; the dropped time ranges are reported. */
#include "check.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>

enum { NTHREADS = 8, NSPANS = 50000 };

/* The callback runs on the writer thread: it only touches atomics. */
static _Atomic uint64_t lines_seen, drop_lines_count, bad_drop_lines;

static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    (void)len;
    if (!strncmp(line, "[STRACE] v=1 ", 13)) {
        atomic_fetch_add(&lines_seen, 1);
    } else if (!strncmp(line, "[STINT] v=1 dropped ", 20)) {
        const char *c = strstr(line, " count=");
        const char *f = strstr(line, " first_ts=");
        const char *l = strstr(line, " last_ts=");
        if (!c || !f || !l || strtoll(f + 10, NULL, 10) <= 0 ||
            strtoll(l + 9, NULL, 10) < strtoll(f + 10, NULL, 10)) {
            atomic_fetch_add(&bad_drop_lines, 1);
            return;
        }
        atomic_fetch_add(&drop_lines_count, strtoull(c + 7, NULL, 10));
    }
}

static void *worker(void *arg)
{
    (void)arg;
    stint_invocation_begin();
    for (int i = 0; i < NSPANS / 2; i++) {
        STINT_SCOPE("w.outer");
        STINT_SCOPE("w.outer.inner");
        stint_attr_i64("i", i);
    }
    return NULL;
}

int main(void)
{
    setenv("STINT_BUFFER_KB", "64", 1); /* small rings so that some spans drop */
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    stint_stats before;
    stint_get_stats(&before);
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    REQUIRE(stint_flush() == STINT_OK);
    stint_stats st;
    stint_get_stats(&st);
    uint64_t emitted = (uint64_t)NTHREADS * NSPANS;
    uint64_t written = atomic_load(&lines_seen);
    uint64_t dropped = st.spans_dropped - before.spans_dropped;
    printf("emitted %llu, written %llu, dropped %llu, recorded %llu\n", (unsigned long long)emitted,
           (unsigned long long)written, (unsigned long long)dropped,
           (unsigned long long)(st.spans_recorded - before.spans_recorded));
    CHECK_EQ_U64(written + dropped, emitted);
    CHECK_EQ_U64(st.spans_recorded - before.spans_recorded, written);
    CHECK_EQ_U64(st.spans_written - before.spans_written, written);
    CHECK_EQ_U64(atomic_load(&drop_lines_count), dropped);
    CHECK_EQ_U64(atomic_load(&bad_drop_lines), 0);
    if (dropped) {
        CHECK(st.drop_first_ts_ns > 0);
        CHECK(st.drop_last_ts_ns >= st.drop_first_ts_ns);
    }
    CHECK_EQ_U64(st.threads - before.threads, NTHREADS);
    CHECK_DONE();
}
