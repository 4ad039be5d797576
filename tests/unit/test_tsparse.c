/* SPDX-License-Identifier: MIT */
/*
 * test_tsparse.c - exact decimal -> ns conversion, no doubles anywhere.
 */
#include "check.h"
#include "base/tsparse.h"

static int64_t us(const char *s, int *rc)
{
    int64_t v = -777;
    *rc = stint_parse_ts(s, strlen(s), 1000, &v);
    return v;
}

int main(void)
{
    int rc;
    CHECK_EQ_I64(us("5.1", &rc), 5100);
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(us("1850244461563845.0", &rc), 1850244461563845000LL);
    CHECK_EQ_I64(us("200.5", &rc), 200500);
    CHECK_EQ_I64(us("0", &rc), 0);
    CHECK_EQ_I64(us("3473608.458", &rc), 3473608458LL);
    CHECK_EQ_I64(us("1597071955492308", &rc), 1597071955492308000LL);
    CHECK_EQ_I64(us("0.0001", &rc), 0);   /* below 1 ns: truncated */
    CHECK_EQ_I64(us("1.2345678", &rc), 1234); /* digits past ns truncated toward zero */
    CHECK_EQ_I64(us("-5.5", &rc), -5500);
    CHECK_EQ_I64(us("1e3", &rc), 1000000);
    CHECK_EQ_I64(us("1.5E-3", &rc), 1);
    CHECK_EQ_I64(us("2.5e2", &rc), 250000);
    CHECK_EQ_I64(us("0000012", &rc), 12000);
    /* the largest representable and one past it */
    CHECK_EQ_I64(us("9223372036854775.807", &rc), INT64_MAX);
    CHECK_EQ_I64(rc, 0);
    us("9223372036854775.808", &rc);
    CHECK_EQ_I64(rc, -2);
    us("1e400", &rc);
    CHECK_EQ_I64(rc, -2);
    us("99999999999999999999999", &rc);
    CHECK_EQ_I64(rc, -2);
    /* invalid */
    static const char *const bad[] = {"", "invalid", "1.2.3", "12a", "e5", "-", ".", "1e", "1e+", " 1", "1 ", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        us(bad[i], &rc);
        if (rc != -1)
            fprintf(stderr, "accepted '%s'\n", bad[i]);
        CHECK_EQ_I64(rc, -1);
    }
    /* durations with units */
    int64_t v;
    CHECK(stint_parse_duration("12.5ms", 6, &v) == 0 && v == 12500000);
    CHECK(stint_parse_duration("3us", 3, &v) == 0 && v == 3000);
    CHECK(stint_parse_duration("40ns", 4, &v) == 0 && v == 40);
    CHECK(stint_parse_duration("2s", 2, &v) == 0 && v == 2000000000);
    CHECK(stint_parse_duration("1.5s", 4, &v) == 0 && v == 1500000000);
    CHECK(stint_parse_duration("77", 2, &v) == 0 && v == 77);
    CHECK(stint_parse_duration("ms", 2, &v) != 0);
    CHECK(stint_parse_duration("5xs", 3, &v) != 0);
    /* integers */
    CHECK(stint_parse_i64("-42", 3, &v) == 0 && v == -42);
    CHECK(stint_parse_i64("4.2", 3, &v) != 0);
    CHECK(stint_parse_i64("9223372036854775807", 19, &v) == 0 && v == INT64_MAX);
    CHECK(stint_parse_i64("-9223372036854775808", 20, &v) == 0 && v == INT64_MIN);
    CHECK(stint_parse_i64("9223372036854775808", 19, &v) == -2);
    /* every value v/1000 round-trips exactly (a double would not) */
    char buf[64];
    int fails = 0;
    for (int64_t x = 1750244461563845000LL; x < 1750244461563845000LL + 20000; x += 7) {
        snprintf(buf, sizeof buf, "%lld.%03lld", (long long)(x / 1000), (long long)(x % 1000));
        int64_t got;
        if (stint_parse_ts(buf, strlen(buf), 1000, &got) != 0 || got != x)
            fails++;
    }
    CHECK_EQ_I64(fails, 0);
    /* digits below 1 ns are truncated and counted (the reader reports them), on the fast path and the
     * general one, and on the readers' scan; zeros below 1 ns are not counted */
    char first[48];
    stint_i_subns_take(first, 0);
    static const struct {
        const char *text;
        int64_t ns;
        int cut;
    } sub[] = {{"1.0000005", 1000, 1}, {"2.1234567", 2123, 1}, {"5.1230000", 5123, 0}, {"0.0001", 0, 1},
               {"1.5e-4", 0, 1},       {"-3.0009", -3000, 1}, {"7.123", 7123, 0},     {"1.10009e1", 11000, 1},
               {"4.000000000000000000001", 4000, 1}};
    uint64_t want = 0;
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        int64_t got = -1;
        CHECK(stint_parse_ts(sub[i].text, strlen(sub[i].text), 1000, &got) == 0);
        CHECK_EQ_I64(got, sub[i].ns);
        want += (uint64_t)sub[i].cut;
        char pad[64] = {0}; /* the scan reads past the number: a padded buffer, the number then ',' */
        snprintf(pad, sizeof pad, "%s,", sub[i].text);
        const char *q = sub[i].text[0] != '-' ? stint_scan_num(pad, 1000, &got) : NULL;
        if (q && *q == ',') { /* (NULL or an exponent next: the general parser's job) */
            CHECK_EQ_I64(got, sub[i].ns);
            want += (uint64_t)sub[i].cut;
        }
    }
    CHECK_EQ_I64((int64_t)stint_i_subns_take(first, sizeof first), (int64_t)want);
    CHECK(!strcmp(first, "1.0000005"));
    CHECK_EQ_I64((int64_t)stint_i_subns_take(first, sizeof first), 0); /* the take resets */
    CHECK_DONE();
}
