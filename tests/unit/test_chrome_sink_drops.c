/* SPDX-License-Identifier: MIT */
/*
 * test_chrome_sink_drops.c - spans lost in a full thread buffer are counted
 * in the Chrome output: top-level dropped_events and metadata.dropped_events
 * equal the library's own count, metadata.dropped_ranges adds up to it, and
 * a "stint.spans_dropped" counter (C event) shows the running total.
 */
#include "check.h"
#include "mini_json.h"

#include "stint/session.h"

#include <unistd.h>

int main(void)
{
    setenv("STINT_BUFFER_KB", "4", 1); /* read at the library's first call */
    setenv("STINT_FLUSH_MS", "5000", 1);
    stint_markers_off();
    char path[256];
    snprintf(path, sizeof path, "/tmp/stint_test_chrome_drops_%d.json", (int)getpid());
    stint_chrome_writer *w = NULL;
    REQUIRE(stint_chrome_open(path, &w, NULL, 0) == STINT_OK);
    stint_stats before, after;
    stint_get_stats(&before);
    static const stint_loc loc = {"tiny", NULL, __FILE__, __func__, __LINE__};
    for (int i = 0; i < 5000; i++)
        stint_span_end(stint_span_begin(&loc));
    CHECK(stint_flush() == STINT_OK);
    stint_get_stats(&after);
    uint64_t lost = after.spans_dropped - before.spans_dropped;
    uint64_t kept = after.spans_written - before.spans_written;
    CHECK(lost > 0);
    CHECK_EQ_U64(lost + kept, 5000);
    REQUIRE(stint_chrome_close(w) == STINT_OK);

    size_t len;
    char *doc = mj_slurp(path, &len);
    REQUIRE(doc);
    REQUIRE(mj_valid(doc, len));
    long long x = -1;
    CHECK(mj_i64(doc, len, "dropped_events", &x) && (uint64_t)x == lost);
    const char *md, *arr, *it, *el;
    size_t mdn, arrn, eln;
    REQUIRE(mj_find(doc, len, "metadata", &md, &mdn));
    CHECK(mj_i64(md, mdn, "dropped_events", &x) && (uint64_t)x == lost);
    CHECK(mj_i64(md, mdn, "events", &x) && (uint64_t)x == kept);
    REQUIRE(mj_find(md, mdn, "dropped_ranges", &arr, &arrn));
    long long sum = 0;
    it = arr;
    while (mj_next(arr, arrn, &it, &el, &eln)) {
        long long c = 0, first = 0, last = 0;
        CHECK(mj_i64(el, eln, "count", &c) && mj_i64(el, eln, "first_ns", &first) && mj_i64(el, eln, "last_ns", &last));
        CHECK(first > 0 && last >= first);
        sum += c;
    }
    CHECK_EQ_U64((uint64_t)sum, lost);
    REQUIRE(mj_find(doc, len, "traceEvents", &arr, &arrn));
    long long last_counter = -1;
    int xs = 0;
    it = arr;
    while (mj_next(arr, arrn, &it, &el, &eln)) {
        char ph[4] = "", name[64] = "";
        mj_str(el, eln, "ph", ph, sizeof ph);
        mj_str(el, eln, "name", name, sizeof name);
        xs += !strcmp(ph, "X");
        if (!strcmp(ph, "C") && !strcmp(name, "stint.spans_dropped")) {
            const char *args;
            size_t an;
            REQUIRE(mj_find(el, eln, "args", &args, &an));
            CHECK(mj_i64(args, an, "value", &last_counter));
        }
    }
    CHECK_EQ_U64((uint64_t)xs, kept);
    CHECK_EQ_U64((uint64_t)last_counter, lost);
    free(doc);
    unlink(path);
    CHECK_DONE();
}
