/* SPDX-License-Identifier: MIT */
/*
 * test_follow.c - the follower's `tail -F` behaviour on a real file: only new
 * bytes per poll, a line held until it ends, truncation, rotation by rename,
 * a new file taking the name, a missing path, and a gzip file read once.
 */
#include "check.h"
#include "read/follow.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct got {
    char text[4096];
    size_t len;
    int calls, cuts, byte_calls;
};

static int on_lines(void *ctx, const char *p, size_t n, int what)
{
    struct got *g = ctx;
    int cut = what == STINT_FOLLOW_CUT;
    if (what == STINT_FOLLOW_NEW_FILE) { /* a new file's start is marked '#' */
        REQUIRE(p == NULL && n == 0);
        g->text[g->len++] = '#';
        g->text[g->len] = 0;
        return 0;
    }
    REQUIRE(g->len + n + 2 < sizeof g->text);
    memcpy(g->text + g->len, p, n);
    g->len += n;
    if (what == STINT_FOLLOW_BYTES)
        g->byte_calls++;
    if (cut) { /* a cut line is marked '|' in the record of what came */
        g->text[g->len++] = '|';
        g->cuts++;
    }
    g->text[g->len] = 0;
    g->calls++;
    return 0;
}

static void append(const char *path, const char *s)
{
    FILE *f = fopen(path, "a");
    REQUIRE(f != NULL);
    fputs(s, f);
    REQUIRE(fclose(f) == 0);
}

static void put(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs(s, f);
    REQUIRE(fclose(f) == 0);
}

/* Polls once; returns the events. */
static unsigned poll1(struct stint_follow *f, struct got *g)
{
    char err[256];
    unsigned ev = 0;
    CHECK_EQ_I64(stint_follow_poll(f, on_lines, g, 0, &ev, err, sizeof err), 0);
    return ev;
}

int main(void)
{
    char dir[] = "/tmp/stint_follow.XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[64], old[64], gz[80], cmd[256], err[256];
    snprintf(path, sizeof path, "%s/log", dir);
    snprintf(old, sizeof old, "%s/log.1", dir);
    snprintf(gz, sizeof gz, "%s/log.1.gz", dir);

    CHECK(stint_follow_open(path, err, sizeof err) == NULL); /* absent: an error, said */
    CHECK(strstr(err, "log") != NULL);

    put(path, "a1\na2\npart");
    struct stint_follow *f = stint_follow_open(path, err, sizeof err);
    REQUIRE(f != NULL);
    struct got g = {0};
    CHECK_EQ_U64(poll1(f, &g), 0);
    CHECK_STR(g.text, "a1\na2\n"); /* "part" is held, not handed over */
    CHECK_EQ_U64(stint_follow_get_stats(f)->held_bytes, 4);
    CHECK(stint_follow_caught_up(f));
    poll1(f, &g); /* nothing new: nothing handed over */
    CHECK_STR(g.text, "a1\na2\n");
    append(path, "ial\nb1\n");
    poll1(f, &g);
    CHECK_STR(g.text, "a1\na2\npartial\nb1\n");
    CHECK_EQ_U64(stint_follow_get_stats(f)->lines, 4);
    CHECK_EQ_U64(stint_follow_get_stats(f)->cut_lines, 0);
    CHECK_EQ_U64(stint_follow_get_stats(f)->bytes, 17);

    /* truncated in place, then written again (shorter than before) */
    append(path, "held");
    poll1(f, &g);
    REQUIRE(truncate(path, 0) == 0);
    append(path, "c1\n");
    CHECK_EQ_U64(poll1(f, &g), STINT_FOLLOW_TRUNCATED);
    CHECK_STR(g.text, "a1\na2\npartial\nb1\nheld|#c1\n");
    CHECK_EQ_U64(stint_follow_get_stats(f)->truncations, 1);
    CHECK_EQ_U64(stint_follow_get_stats(f)->cut_lines, 1);

    /* rotated by rename: the old file's last bytes come first, then the new */
    append(path, "c2\n");
    REQUIRE(rename(path, old) == 0);
    append(old, "c3\n"); /* the writer still had it open */
    CHECK_EQ_U64(poll1(f, &g) & STINT_FOLLOW_MISSING, STINT_FOLLOW_MISSING);
    put(path, "d1\nd2");
    CHECK_EQ_U64(poll1(f, &g), STINT_FOLLOW_ROTATED);
    CHECK_STR(g.text, "a1\na2\npartial\nb1\nheld|#c1\nc2\nc3\n#d1\n");
    CHECK_EQ_U64(stint_follow_get_stats(f)->rotations, 1);

    /* a new file takes the name (the old one deleted): the held "d2" is cut */
    REQUIRE(unlink(path) == 0);
    put(path, "e1\n");
    CHECK_EQ_U64(poll1(f, &g), STINT_FOLLOW_ROTATED);
    CHECK_STR(g.text, "a1\na2\npartial\nb1\nheld|#c1\nc2\nc3\n#d1\nd2|#e1\n");

    /* a backlog read in steps of at most 4 bytes */
    append(path, "f1\nf2\nf3\n");
    unsigned ev;
    CHECK_EQ_I64(stint_follow_poll(f, on_lines, &g, 4, &ev, err, sizeof err), 0);
    CHECK(!stint_follow_caught_up(f));
    CHECK_EQ_I64(stint_follow_poll(f, on_lines, &g, 100, &ev, err, sizeof err), 0);
    CHECK(stint_follow_caught_up(f));
    CHECK(strstr(g.text, "e1\nf1\nf2\nf3\n") != NULL);
    stint_follow_close(f);

    /* a file that starts as a capture: its bytes handed over as read, nothing held, no
     * lines; truncated and written anew as text, it is lines again */
    put(path, "");
    f = stint_follow_open(path, err, sizeof err);
    REQUIRE(f != NULL);
    struct got c = {0};
    put(path, "STINTCAP\nab");
    CHECK_EQ_U64(poll1(f, &c), 0);
    CHECK_STR(c.text, "STINTCAP\nab");
    CHECK_EQ_U64(c.byte_calls, 1);
    CHECK_EQ_U64(stint_follow_get_stats(f)->held_bytes, 0);
    append(path, "cd");
    CHECK_EQ_U64(poll1(f, &c), 0);
    CHECK_STR(c.text, "STINTCAP\nabcd");
    CHECK_EQ_U64(c.byte_calls, 2);
    put(path, "x1\nx2");
    CHECK_EQ_U64(poll1(f, &c), STINT_FOLLOW_TRUNCATED);
    CHECK_STR(c.text, "STINTCAP\nabcd#x1\n");
    CHECK_EQ_U64(c.byte_calls, 2);
    CHECK_EQ_U64(stint_follow_get_stats(f)->held_bytes, 2);
    stint_follow_close(f);

    /* a gzip file given by name: read whole once, its last unended line final */
    if (system("command -v gzip >/dev/null 2>&1") != 0) {
        CHECK_SKIP_PART("gzip is not installed");
    } else {
        put(old, "g1\ng2");
        snprintf(cmd, sizeof cmd, "gzip -c %s > %s", old, gz);
        REQUIRE(system(cmd) == 0);
        f = stint_follow_open(gz, err, sizeof err);
        REQUIRE(f != NULL);
        struct got h = {0};
        CHECK_EQ_U64(poll1(f, &h), STINT_FOLLOW_GZIP_DONE);
        CHECK_STR(h.text, "g1\ng2|");
        CHECK_EQ_U64(poll1(f, &h), 0);
        CHECK_STR(h.text, "g1\ng2|");
        stint_follow_close(f);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
