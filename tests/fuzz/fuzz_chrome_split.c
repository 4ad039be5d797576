/* SPDX-License-Identifier: MIT */
/* fuzz_chrome_split.c - libFuzzer target: a Chrome JSON file read on one
 * thread and on two (stint_read_trace on a memfd with the split size set to
 * one byte, so every input is cut at event boundaries into 2 to 9 parts, by
 * its size, and the parts' models merged; one input in three is gzipped
 * first, so each thread inflates from the start and parses its part) must
 * give the same answers. The one-thread read of a gzipped input goes through
 * the inflate thread, whose args hints (input.c) the parts never use, so the
 * hints are checked against the plain skip too; for inputs of even size the
 * thread finds the hints of every block (STINT_PIPE_SCAN_ALL), for odd ones
 * only when it is ahead of the reader, as in normal runs:
 * `stint summary`, `slices`, `counters` and `tree`, each with --json,
 * print byte-identical stdout and stderr and exit with the same code both
 * ways (summary's two-thread run also splits its finish walk and tally by
 * track, STINT_FINISH_SPLIT_MIN=1). The merge maps strings,
 * processes, lanes, tracks, counters, flows, end events and lean records
 * from each later part into the first; this checks all of it against the
 * one-thread read. stderr (repairs, drops, errors) is compared too: it is
 * captured while a command runs, so a sanitizer report raised inside a
 * command lands there; the crash itself still stops the run and its input is
 * kept, and replaying it shows the report. */
#include "cmd/commands.h"
#define FUZZ_GZIP
#include "fuzz_common.h"

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_fd = -1, out_fd = -1, err_fd = -1;
static char path[64];

/* The bytes of memfd fd, in a fresh buffer (*len). */
static char *slurp(int fd, size_t *len)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *b = malloc((size_t)n + 1);
    if (n < 0 || !b || pread(fd, b, (size_t)n, 0) != (ssize_t)n)
        abort();
    *len = (size_t)n;
    return b;
}

/* Runs cmd on path with STINT_THREADS=threads; returns its stdout then its
 * stderr, each in a fresh buffer (out[0], out[1]; lengths in len[]). */
static void run_captured(int (*cmd)(int, char **), const char *name, int threads, int *rc, char *out[2],
                         size_t len[2])
{
    if (ftruncate(out_fd, 0) != 0 || lseek(out_fd, 0, SEEK_SET) != 0 || ftruncate(err_fd, 0) != 0 ||
        lseek(err_fd, 0, SEEK_SET) != 0)
        abort();
    setenv("STINT_THREADS", threads == 1 ? "1" : "2", 1);
    char *argv[] = {(char *)(uintptr_t)name, path, (char *)"--json", NULL};
    int saved = dup(2); /* -1 when closed (run.sh passes -close_fd_mask=2) */
    if (dup2(err_fd, 2) < 0)
        abort();
    *rc = cmd(3, argv);
    fflush(stdout);
    fflush(stderr);
    if (saved >= 0) {
        if (dup2(saved, 2) < 0)
            abort();
        close(saved);
    } else
        close(2);
    if (*rc != 0 && *rc != 1 && *rc != 3)
        abort();
    out[0] = slurp(out_fd, &len[0]);
    out[1] = slurp(err_fd, &len[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (in_fd < 0) {
        in_fd = memfd_create("stint-fuzz-in", 0);
        out_fd = memfd_create("stint-fuzz-out", 0);
        err_fd = memfd_create("stint-fuzz-err", 0);
        if (in_fd < 0 || out_fd < 0 || err_fd < 0 || dup2(out_fd, 1) < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", in_fd);
        setenv("STINT_SPLIT_MIN_BYTES", "1", 1);
        setenv("STINT_FINISH_SPLIT_MIN", "1", 1); /* summary's walk on two threads from one span on */
    }
    static unsigned char *zbuf;
    static size_t zcap;
    const uint8_t *bytes = data;
    size_t len = size;
    if (size % 3 == 0) {
        size_t need = size + size / 100 + 64;
        if (need > zcap) {
            free(zbuf);
            if (!(zbuf = malloc(zcap = need)))
                abort();
        }
        len = fuzz_gzip_into(data, size, zbuf, zcap);
        bytes = zbuf;
    }
    if (ftruncate(in_fd, 0) != 0 || (len && pwrite(in_fd, bytes, len, 0) != (ssize_t)len))
        abort();
    if (size % 2 == 0)
        setenv("STINT_PIPE_SCAN_ALL", "1", 1);
    else
        unsetenv("STINT_PIPE_SCAN_ALL");
    char parts[8];
    snprintf(parts, sizeof parts, "%zu", 2 + size % 8);
    setenv("STINT_SPLIT_PARTS", parts, 1);
    static const struct {
        int (*run)(int, char **);
        const char *name;
    } cmds[] = {{stint_cmd_summary, "summary"},
                {stint_cmd_slices, "slices"},
                {stint_cmd_counters, "counters"},
                {stint_cmd_tree, "tree"}};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        int rc1, rc2;
        char *one[2], *two[2];
        size_t n1[2], n2[2];
        run_captured(cmds[k].run, cmds[k].name, 1, &rc1, one, n1);
        run_captured(cmds[k].run, cmds[k].name, 2, &rc2, two, n2);
        if (rc1 != rc2)
            abort();
        for (int f = 0; f < 2; f++) {
            if (n1[f] != n2[f] || memcmp(one[f], two[f], n1[f]) != 0)
                abort();
            free(one[f]);
            free(two[f]);
        }
    }
    return 0;
}
