/* SPDX-License-Identifier: MIT */
/*
 * test_sink_text.c - what the sinks write, whatever the program does around
 * them: numbers in a locale whose decimal point is a comma (de_DE), names
 * and keys that would break the marker grammar (empty, NULL, '=', a
 * newline in static attributes, "[STRACE]" inside a value), the marker
 * line's bound (PIPE_BUF, so one write to a pipe stays atomic), attributes
 * on a thread that never opened a span, a device span's negative depth, and
 * the Chrome args of a span whose attributes repeat a key or take one of the
 * library's own (inv, hid, depth, clk, stint_truncated).
 * The locale cases make de_DE with localedef when the system lacks it, and
 * are skipped (said on stderr) when that cannot be done.
 */
#include "check.h"

#include "internal.h"
#include "jsonbuf.h"
#include "stint/session.h"

#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static char lines[16][8192];
static size_t lens[16];
static int nlines;
static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    if (nlines < 16 && len < sizeof lines[0]) {
        memcpy(lines[nlines], line, len);
        lines[nlines][len] = '\0';
        lens[nlines] = len;
    }
    nlines++;
}

/* A locale with a comma as decimal point, made if need be; 0 when none. */
static int comma_locale(char *dir, size_t cap)
{
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
        return 1;
    snprintf(dir, cap, "/tmp/stint-locale-XXXXXX");
    if (!mkdtemp(dir))
        return 0;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    if (system(cmd) != 0)
        return 0;
    setenv("LOCPATH", dir, 1);
    return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

/* The formatter: '.' whatever the locale, shortest exact form. */
static void check_fmt(double v, const char *want)
{
    char out[40];
    size_t n = stint_i_fmt_f64(out, v);
    CHECK_STR(out, want);
    CHECK(n == strlen(want));
}

static void test_numbers_in_comma_locale(void)
{
    char dir[64] = "";
    if (!comma_locale(dir, sizeof dir)) {
        fprintf(stderr, "SKIP (locale part): no de_DE locale and localedef could not make one\n");
        return;
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    REQUIRE(!strcmp(probe, "0,5")); /* the locale is in force: the case below would fail before the fix */
    check_fmt(0.5, "0.5");
    check_fmt(0.42, "0.42");
    check_fmt(-2.25e-300, "-2.25e-300");
    check_fmt(1e22, "1e+22");
    check_fmt(123456789.125, "123456789.125");
    check_fmt(0.1 + 0.2, "0.30000000000000004");

    /* a marker attribute */
    nlines = 0;
    {
        STINT_SCOPE("loc.span");
        stint_attr_f64("ratio", 0.5);
    }
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK(strstr(lines[0], " ratio=0.5\n") != NULL);

    /* a JSONL session's counter and gradient norm */
    char path[128];
    snprintf(path, sizeof path, "%s/loc.jsonl", dir[0] ? dir : "/tmp");
    stint_session_options o = STINT_SESSION_OPTIONS_INIT;
    o.entrypoint = "locale";
    stint_session *s = NULL;
    char err[256];
    REQUIRE(stint_session_open(path, &o, &s, err, sizeof err) == STINT_OK);
    double norm = 3.75;
    CHECK(stint_session_counter(s, "c", 1.5, "x") == STINT_OK);
    CHECK(stint_session_gradient(s, "r", "k", STINT_GRAD_PRESENT, &norm) == STINT_OK);
    CHECK(stint_session_finish(s) == STINT_OK);
    stint_session_free(s);
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    CHECK(strstr(text, "1.5") != NULL && strstr(text, "1,5") == NULL);
    CHECK(strstr(text, "3.75") != NULL && strstr(text, "3,75") == NULL);
    unlink(path);
    setlocale(LC_NUMERIC, "C");
    if (dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
    }
}

static void test_grammar_breakers(void)
{
    nlines = 0;
    stint_span_end(stint_span_begin_copy("", 0));
    stint_span_end(stint_span_begin_copy(NULL, 5));
    {
        STINT_SCOPE_A("static.nl", "a=1\nb=2 c=3");
        stint_attr_str("k=x", "v");
        stint_attr_str("note", "x[STRACE] v=1");
        stint_attr_str("", "lost key");
    }
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 3);
    CHECK(strstr(lines[0], " name=_ ts=") != NULL);
    CHECK(strstr(lines[1], " name=_ ts=") != NULL);
    const char *l = lines[2];
    CHECK(strstr(l, " a=1_b=2 c=3 ") != NULL);
    CHECK(strstr(l, " k_x=v ") != NULL);
    CHECK(strstr(l, " note=x_STRACE]_v=1 ") != NULL);
    CHECK(strstr(l, " _=lost_key") != NULL);
    CHECK(strchr(l, '\n') == l + lens[2] - 1); /* one line */
    CHECK(strstr(l + 1, "[STRACE]") == NULL);   /* the record's own mark only */
}

/* static attributes of ~4 KB (an address constant, filled at run time) */
static char big_static[4300];

static void test_line_bound(void)
{
    for (size_t i = 0; i + 1 < sizeof big_static; i++)
        big_static[i] = (i % 10 == 9) ? ' ' : (i % 10 == 0 ? 'k' : (i % 10 == 1 ? '=' : 'v'));
    nlines = 0;
    char name[2048];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    char big[4000];
    for (size_t i = 0; i + 1 < sizeof big; i++)
        big[i] = (i % 16 == 15) ? ' ' : 'v';
    big[sizeof big - 1] = '\0';
    {
        STINT_SCOPE_A("bound.static", big_static);
        stint_span sp = stint_span_begin_copy(name, strlen(name));
        static char keys[16][70]; /* (keys are borrowed until the span is written: static) */
        for (int k = 0; k < 16; k++) {
            snprintf(keys[k], sizeof keys[k], "key%02d_%s", k, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
            stint_attr_str(keys[k], big);
        }
        stint_span_end(sp);
    }
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 2);
    for (int i = 0; i < 2; i++) {
        CHECK(lens[i] <= PIPE_BUF);
        CHECK(lines[i][lens[i] - 1] == '\n');
    }
    CHECK(strstr(lines[0], "stint_truncated=1") != NULL);
    CHECK(strstr(lines[1], "stint_truncated=1") != NULL); /* its static attributes did not fit whole */
}

static void *attr_without_span(void *arg)
{
    (void)arg;
    stint_attr_i64("nospan", 1); /* this thread's first call into the library */
    stint_attr_str("nospan2", "x");
    return NULL;
}

static void test_counts_and_depth(void)
{
    stint_stats before, after;
    stint_get_stats(&before);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, attr_without_span, NULL) == 0);
    pthread_join(th, NULL);
    stint_get_stats(&after);
    CHECK_EQ_U64(after.attrs_dropped - before.attrs_dropped, 2);

    nlines = 0;
    stint_device_span("dev.neg", 10, 5, -1);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK(strstr(lines[0], " depth=0 name=dev.neg ") != NULL);
}

/* One key, one value in a Chrome span's args: a key set again keeps its last
 * value, and a user key named like one of the library's own args is written
 * "attr.<key>". Before, the object held "depth" twice, and "k" three times. */
static void test_chrome_arg_keys(void)
{
    stint_i_attr_view at[6] = {
        {.key = "k", .type = STINT_I_ATTR_I64, .v.i = 3},
        {.key = "inv", .type = STINT_I_ATTR_STR, .v.s = {"mine", 4}},
        {.key = "depth", .type = STINT_I_ATTR_I64, .v.i = 7},
        {.key = "q", .type = STINT_I_ATTR_BOOL, .v.b = 1},
        {.key = "q", .type = STINT_I_ATTR_BOOL, .v.b = 0},
        /* meets the prefixed "clk" of the static text, which comes first */
        {.key = "attr.clk", .type = STINT_I_ATTR_U64, .v.u = 8},
    };
    stint_i_event ev = {.kind = STINT_I_REC_SPAN, .name = "keys", .name_len = 4,
                        .static_attrs = "depth=9 k=1 k=2 z=x clk=fast n=-4", .attrs = at, .nattr = 6,
                        .ts_ns = 1000, .dur_ns = 500, .inv = 1, .hid = 0xab, .depth = 2, .pid = 10, .tid = 11,
                        .thread_name = ""};
    stint_i_jbuf b;
    stint_i_jb_init(&b, 1024);
    stint_i_chrome_x(&b, &ev, 0, -1, 1);
    REQUIRE(stint_i_jb_ok(&b));
    stint_i_jb_char(&b, '\0');
    CHECK_STR(b.p, "{\"ph\":\"X\",\"name\":\"keys\",\"cat\":\"stint\",\"pid\":10,\"tid\":11,\"ts\":1.000,"
                   "\"dur\":0.500,\"args\":{\"inv\":1,\"hid\":\"0x00000000000000ab\",\"depth\":2,\"z\":\"x\","
                   "\"n\":-4,\"k\":3,\"attr.inv\":\"mine\",\"attr.depth\":7,\"q\":false,\"attr.clk\":8}}");
    stint_i_jb_free(&b);
}

int main(void)
{
    setenv("STINT_FLUSH_MS", "600000", 1);
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    test_grammar_breakers();
    test_line_bound();
    test_counts_and_depth();
    test_chrome_arg_keys();
    test_numbers_in_comma_locale();
    CHECK_DONE();
}
