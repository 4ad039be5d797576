/* SPDX-License-Identifier: MIT */
/* Golden marker lines with an injected clock: grammar, trailing space, hex
 * hid, depth numbering, inv numbering across threads, clk=dev, attributes,
 * copied and truncated names, the STINT_ENABLED runtime switch. */
#include "check.h"

#include <stdlib.h>
#include "internal.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic int64_t fake_now = 1000;
static int64_t fake_clock(void) { return atomic_fetch_add(&fake_now, 100); }

static char lines[64][1024];
static int nlines;
static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    if (nlines < 64) {
        memcpy(lines[nlines], line, len);
        lines[nlines][len] = '\0';
        nlines++;
    }
}

static int pid_, tid_;
static char want[1024];
#define WANT(...) (snprintf(want, sizeof want, __VA_ARGS__), want)

static void reset(void)
{
    nlines = 0;
    atomic_store(&fake_now, 1000);
}

static void nested(void)
{
    STINT_SCOPE("outer");
    {
        STINT_SCOPE_A("outer.inner", "ntensor=4");
        stint_attr_i64("i", -5);
        stint_attr_u64("u", 18446744073709551615ULL);
        stint_attr_bool("ok", 1);
        stint_attr_str("s", "a b");
        stint_attr_f64("f", 0.1);
    }
}

static void *other_thread(void *arg)
{
    (void)arg;
    uint64_t inv = stint_invocation_begin();
    CHECK_EQ_U64(inv, 2);
    STINT_SCOPE("thread.span");
    return NULL;
}

static void *exits_inside_a_span(void *arg)
{
    (void)arg;
    static const stint_loc loc = {"left.open", NULL, __FILE__, "exits_inside_a_span", __LINE__};
    (void)stint_span_begin(&loc); /* never ended: closed when the thread exits */
    return NULL;
}

int main(void)
{
    /* the capture callback keeps plain globals: only this thread drains */
    setenv("STINT_FLUSH_MS", "600000", 1);
    stint_i_clock_set_test(fake_clock);
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    pid_ = getpid();
    tid_ = (int)syscall(SYS_gettid);

    /* before any invocation: inv=0, hid=0 */
    reset();
    { STINT_SCOPE("bare"); }
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK_STR(lines[0], WANT("[STRACE] v=1 pid=%d tid=%d inv=0 hid=0 depth=0 name=bare ts=1000 dur=100 \n", pid_, tid_));

    /* nesting: inner printed first (it ends first), depth counts from 0 */
    reset();
    CHECK_EQ_U64(stint_invocation_begin(), 1);
    stint_set_hid(0xdeadbeef00ULL);
    nested();
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 2);
    CHECK_STR(lines[0], WANT("[STRACE] v=1 pid=%d tid=%d inv=1 hid=deadbeef00 depth=1 name=outer.inner ts=1100 dur=100 "
                             "ntensor=4 i=-5 u=18446744073709551615 ok=true s=a_b f=0.1\n", pid_, tid_));
    CHECK_STR(lines[1], WANT("[STRACE] v=1 pid=%d tid=%d inv=1 hid=deadbeef00 depth=0 name=outer ts=1000 dur=300 \n",
                             pid_, tid_));

    /* inv numbering across threads: the other thread gets 2 */
    reset();
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK(strstr(lines[0], " inv=2 hid=0 depth=0 name=thread.span ts=") != NULL);
    CHECK_EQ_U64(stint_invocation_begin(), 3);

    /* device spans: clk=dev first, device-clock offsets kept as given */
    reset();
    stint_set_hid(0xabc);
    stint_device_span("simpler_run.runner_run.device_wall", 0, 20000, 2);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK_STR(lines[0], WANT("[STRACE] v=1 pid=%d tid=%d inv=3 hid=abc depth=2 name=simpler_run.runner_run.device_wall "
                             "ts=0 dur=20000 clk=dev\n", pid_, tid_));

    /* device spans with any values: a negative duration is 0, an end past
     * int64 saturates, a start at INT64_MIN with the longest duration fits
     * (UBSan runs this) */
    reset();
    stint_device_span("dev.neg", 5, -7, 0);
    stint_device_span("dev.past", INT64_MAX - 5, 100, 0);
    stint_device_span("dev.wide", INT64_MIN, INT64_MAX, 0);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 3);
    CHECK(strstr(lines[0], " name=dev.neg ts=5 dur=0 clk=dev\n") != NULL);
    CHECK(strstr(lines[1], " name=dev.past ts=9223372036854775802 dur=5 clk=dev\n") != NULL);
    CHECK(strstr(lines[2], " name=dev.wide ts=-9223372036854775808 dur=9223372036854775807 clk=dev\n") != NULL);

    /* copied names, truncation flagged */
    reset();
    char dyn[100];
    memset(dyn, 'x', sizeof dyn);
    stint_span s = stint_span_begin_copy("dyn.name", 8);
    stint_span_end(s);
    s = stint_span_begin_copy(dyn, sizeof dyn);
    stint_span_end(s);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 2);
    CHECK(strstr(lines[0], " name=dyn.name ts=") != NULL);
    CHECK(strstr(lines[1], " stint_truncated=1\n") != NULL);
    CHECK(strstr(lines[1], "name=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx ts=") != NULL);

    /* ending an outer span closes the inner one first (counted) */
    reset();
    stint_stats st0, st1;
    stint_get_stats(&st0);
    STINT_BEGIN(a, "a");
    STINT_BEGIN(b, "a.b");
    (void)b;
    STINT_END(a);
    STINT_END(b); /* already closed: no-op */
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 2);
    CHECK(strstr(lines[0], "depth=1 name=a.b ") != NULL);
    CHECK(strstr(lines[0], " stint_autoclosed=1\n") != NULL);
    CHECK(strstr(lines[1], "depth=0 name=a ") != NULL);
    stint_get_stats(&st1);
    CHECK_EQ_U64(st1.spans_autoclosed - st0.spans_autoclosed, 1);

    /* a thread that exits inside a span: the span is closed and flagged */
    reset();
    stint_get_stats(&st0);
    pthread_create(&th, NULL, exits_inside_a_span, NULL);
    pthread_join(th, NULL);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK(strstr(lines[0], "depth=0 name=left.open ") != NULL);
    CHECK(strstr(lines[0], " stint_autoclosed=1\n") != NULL);
    stint_get_stats(&st1);
    CHECK_EQ_U64(st1.spans_autoclosed - st0.spans_autoclosed, 1);

    /* runtime off: nothing recorded */
    reset();
    stint_set_enabled(0);
    { STINT_SCOPE("off"); }
    stint_set_enabled(1);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK_EQ_I64(nlines, 0);

    /* a user attribute named like one of the line's own keys is attr.<key>,
     * typed or static (a user clk=dev made a host span a device one, and a
     * map of the line took a user ts for the span's) */
    reset();
    {
        STINT_SCOPE_A("spoof", "clk=dev ts=5 k=v name=q");
        stint_attr_str("clk", "dev");
        stint_attr_i64("dur", 1);
        stint_attr_i64("stint_autoclosed", 1);
        stint_attr_i64("clkx", 2);
    }
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK(strstr(lines[0], " attr.clk=dev attr.ts=5 k=v attr.name=q attr.clk=dev attr.dur=1 attr.stint_autoclosed=1 "
                           "clkx=2\n") != NULL);
    CHECK(strstr(lines[0], " clk=dev") == NULL);

    /* attributes with no open span are counted, not attached anywhere */
    stint_get_stats(&st0);
    stint_attr_i64("orphan", 1);
    stint_get_stats(&st1);
    CHECK_EQ_U64(st1.attrs_dropped - st0.attrs_dropped, 1);

    /* the formatter alone, for the prefix mode */
    stint_i_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = STINT_I_REC_SPAN;
    ev.name = "x";
    ev.name_len = 1;
    ev.pid = 7;
    ev.tid = 255;
    ev.ts_ns = 5;
    ev.dur_ns = 6;
    ev.thread_name = "";
    ev.thread_handle = 255;
    char buf[1024];
    size_t n = stint_i_marker_format(buf, sizeof buf, &ev, STINT_MARKERS_PREFIX);
    buf[n] = '\0';
    CHECK(buf[0] == '[' && buf[5] == '-' && strstr(buf, "][T0xff][TIMING] stint: [STRACE] v=1 pid=7 tid=255 inv=0 hid=0 "
                                                       "depth=0 name=x ts=5 dur=6 \n") != NULL);
    CHECK_DONE();
}
