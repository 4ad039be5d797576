/* fuzz_chrome_split.c - libFuzzer target: a plain Chrome JSON file read on
 * one thread and on two (stint_read_trace on a memfd with the split size
 * set to one byte, so every input is split at an event boundary near its
 * middle and the halves' models merged) must give the same answers:
 * `stint summary`, `slices`, `counters` and `tree`, each with --json,
 * print byte-identical stdout and exit with the same code both ways. The merge maps strings,
 * processes, lanes, tracks, counters, flows, end events and lean records
 * from the second half into the first; this checks all of it against the
 * one-thread read. (stderr is not compared: it is where the sanitizers
 * report.) */
#include "commands.h"
#include "fuzz_common.h"

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_fd = -1, out_fd = -1;
static char path[64];

/* Runs cmd on path with STINT_THREADS=threads; stdout lands in out_fd, whose
 * bytes are returned in a fresh buffer (*len). */
static char *run_captured(int (*cmd)(int, char **), const char *name, int threads, int *rc, size_t *len)
{
    if (ftruncate(out_fd, 0) != 0 || lseek(out_fd, 0, SEEK_SET) != 0)
        abort();
    setenv("STINT_THREADS", threads == 1 ? "1" : "2", 1);
    char *argv[] = {(char *)(uintptr_t)name, path, (char *)"--json", NULL};
    *rc = cmd(3, argv);
    fflush(stdout);
    if (*rc != 0 && *rc != 1 && *rc != 3)
        abort();
    off_t n = lseek(out_fd, 0, SEEK_END);
    char *b = malloc((size_t)n + 1);
    if (!b || pread(out_fd, b, (size_t)n, 0) != (ssize_t)n)
        abort();
    *len = (size_t)n;
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (in_fd < 0) {
        in_fd = memfd_create("stint-fuzz-in", 0);
        out_fd = memfd_create("stint-fuzz-out", 0);
        if (in_fd < 0 || out_fd < 0 || dup2(out_fd, 1) < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", in_fd);
        setenv("STINT_SPLIT_MIN_BYTES", "1", 1);
    }
    if (ftruncate(in_fd, 0) != 0 || (size && pwrite(in_fd, data, size, 0) != (ssize_t)size))
        abort();
    static const struct {
        int (*run)(int, char **);
        const char *name;
    } cmds[] = {{stint_cmd_summary, "summary"},
                {stint_cmd_slices, "slices"},
                {stint_cmd_counters, "counters"},
                {stint_cmd_tree, "tree"}};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        int rc1, rc2;
        size_t n1, n2;
        char *one = run_captured(cmds[k].run, cmds[k].name, 1, &rc1, &n1);
        char *two = run_captured(cmds[k].run, cmds[k].name, 2, &rc2, &n2);
        if (rc1 != rc2 || n1 != n2 || memcmp(one, two, n1) != 0)
            abort();
        free(one);
        free(two);
    }
    return 0;
}
