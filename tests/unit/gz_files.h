/* SPDX-License-Identifier: MIT */
/*
 * gz_files.h - a plain file and its gzip copy in a fresh directory under
 * /tmp, for the input tests (gzip comes from the gzip command).
 */
#ifndef STINT_TEST_GZ_FILES_H
#define STINT_TEST_GZ_FILES_H

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct gz_files {
    char dir[32], plain[64], gz[64];
};

/* Makes the directory and the two names; exits 77 (skipped) when gzip is
 * missing. */
static inline void gz_files_init(struct gz_files *g)
{
    if (system("command -v gzip >/dev/null 2>&1") != 0) {
        printf("SKIP: gzip is not installed\n");
        exit(77);
    }
    snprintf(g->dir, sizeof g->dir, "/tmp/stint_input.XXXXXX");
    REQUIRE(mkdtemp(g->dir) != NULL);
    snprintf(g->plain, sizeof g->plain, "%s/d", g->dir);
    snprintf(g->gz, sizeof g->gz, "%s/d.gz", g->dir);
}

/* Writes n bytes to the plain file and gzips it (-1) into the other. */
static inline void gz_files_write(const struct gz_files *g, const char *data, size_t n)
{
    FILE *f = fopen(g->plain, "wb");
    REQUIRE(f && fwrite(data, 1, n, f) == n && fclose(f) == 0);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "gzip -1 -c %s > %s", g->plain, g->gz);
    REQUIRE(system(cmd) == 0);
}

/* Removes both files and the directory. */
static inline void gz_files_remove(const struct gz_files *g)
{
    unlink(g->plain);
    unlink(g->gz);
    rmdir(g->dir);
}

#endif
