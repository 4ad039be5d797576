/* SPDX-License-Identifier: MIT */
/*
 * main.c - a consumer of an installed libstint, built by both consumer
 * projects (cmake/: find_package, make/: pkg-config). It records two nested
 * spans and one attribute into the marker log named on the command line and
 * prints the library version, so the install test checks the link, the
 * headers and the output together.
 */
#include <stint/stint.h>

#include <stdio.h>

static int work(int n)
{
    STINT_SCOPE("consumer.work");
    stint_attr_i64("n", n);
    int acc = 0;
    for (int i = 0; i < n; i++)
        acc += i;
    return acc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MARKER_LOG\n", argv[0]);
        return 2;
    }
    if (stint_markers_to_path(argv[1], 0) != STINT_OK)
        return 3;
    int acc;
    {
        STINT_SCOPE("consumer.main");
        acc = work(10);
    }
    stint_status st = stint_shutdown();
    printf("stint %s acc=%d\n", stint_version(), acc);
    return st == STINT_OK ? 0 : 1;
}
