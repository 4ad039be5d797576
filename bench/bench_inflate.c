/*
 * bench_inflate.c - the bare decompression speed of stint's input layer
 * (ISA-L, or zlib where ISA-L is missing) on a .gz file: inflate through the
 * reused window and discard. bench_summary.sh compares `stint summary` on the
 * same .gz against this. Prints "<decompressed bytes> <seconds>".
 */
#include "input.h"

#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_inflate FILE.gz\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct stint_input in;
    if (stint_input_open(&in, argv[1]) != 0) {
        fprintf(stderr, "%s\n", in.err);
        return 3;
    }
    unsigned long long total = 0;
    for (;;) {
        total += in.len;
        stint_input_consume(&in, in.len);
        int r = stint_input_fill(&in);
        if (r < 0) {
            fprintf(stderr, "%s\n", in.err);
            return 1;
        }
        if (r == 0 && in.len == 0)
            break;
    }
    stint_input_close(&in);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%llu %.6f\n", total, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return 0;
}
