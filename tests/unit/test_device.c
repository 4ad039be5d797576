/* SPDX-License-Identifier: MIT */
/* Device phases: reduction over threads, skipping incomplete records,
 * cycle-to-ns conversion, no output for a phase without a complete record. */
#include "check.h"

#include <stdlib.h>
#include "internal.h"

static char lines[32][512];
static int nlines;
static void capture(const char *line, size_t len, void *user)
{
    (void)user;
    if (nlines < 32) {
        memcpy(lines[nlines], line, len);
        lines[nlines][len] = '\0';
        nlines++;
    }
}

static const char *field(const char *line, const char *key, char *out)
{
    const char *p = strstr(line, key);
    if (!p)
        return strcpy(out, "?");
    p += strlen(key);
    size_t n = strcspn(p, " \n");
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

int main(void)
{
    /* the capture callback keeps plain globals: only this thread drains */
    setenv("STINT_FLUSH_MS", "600000", 1);
    REQUIRE(stint_markers_to_callback(capture, NULL, 0) == STINT_OK);
    char v[64];

    /* three threads {100,200},{80,210},{120,250} -> 80..250 */
    stint_cycle_rec r3[3] = {{100, 200}, {80, 210}, {120, 250}};
    const char *one[] = {"p"};
    size_t emitted = 9;
    nlines = 0;
    REQUIRE(stint_device_phases(r3, 3, 1, 1000000000ULL, one, 3, &emitted) == STINT_OK);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK_EQ_U64(emitted, 1);
    REQUIRE(nlines == 1);
    CHECK_STR(field(lines[0], " ts=", v), "0");
    CHECK_STR(field(lines[0], " dur=", v), "170");
    CHECK_STR(field(lines[0], " depth=", v), "3");
    CHECK(strstr(lines[0], " clk=dev\n") != NULL);

    /* incomplete records are skipped: unset, or end <= start */
    stint_cycle_rec r4[4] = {{100, 200}, {STINT_CYCLE_UNSET, 900}, {50, 50}, {10, STINT_CYCLE_UNSET}};
    nlines = 0;
    REQUIRE(stint_device_phases(r4, 4, 1, 1000000000ULL, one, 0, &emitted) == STINT_OK);
    REQUIRE(stint_flush() == STINT_OK);
    REQUIRE(nlines == 1);
    CHECK_STR(field(lines[0], " dur=", v), "100");

    /* at 50 MHz, 1000 cycles are 20000 ns; origin = earliest phase start;
     * a phase with no complete record emits nothing */
    stint_cycle_rec two[2 * 3] = {
        /* thread 0: phase a, phase b, phase c */ {1000, 2000}, {1500, 2500}, {STINT_CYCLE_UNSET, STINT_CYCLE_UNSET},
        /* thread 1 */ {1200, 1800}, {1400, 2400}, {700, 700}};
    const char *names[] = {"dev.a", "dev.b", "dev.c"};
    nlines = 0;
    REQUIRE(stint_device_phases(two, 2, 3, 50000000ULL, names, 2, &emitted) == STINT_OK);
    REQUIRE(stint_flush() == STINT_OK);
    CHECK_EQ_U64(emitted, 2);
    REQUIRE(nlines == 2);
    CHECK(strstr(lines[0], "name=dev.a ts=0 dur=20000 clk=dev\n") != NULL);
    CHECK(strstr(lines[1], "name=dev.b ts=8000 dur=22000 clk=dev\n") != NULL);

    CHECK_EQ_I64(stint_cycles_to_ns(1000, 50000000ULL), 20000);
    CHECK_EQ_I64(stint_cycles_to_ns(UINT64_MAX, 1), INT64_MAX);
    CHECK(stint_device_phases(r3, 3, 1, 0, one, 0, NULL) == STINT_E_INVAL);
    CHECK(stint_device_phases(NULL, 3, 1, 100, one, 0, NULL) == STINT_E_INVAL);
    CHECK_DONE();
}
