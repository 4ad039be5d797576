/* fuzz_jsonl.c - libFuzzer target: JSONL sessions (stint/session/1 and
 * candle-graph/trace/6).
 *
 * The session reader sees the input whole in memory (fuzz_common.h). Then
 * the same bytes go to a memfd and through the commands that read JSONL
 * lines on their own (jsonl_scan.c): `stint memory` (table, timeline) and
 * `stint counters --json` (telemetry lines), output to /dev/null. Their exit
 * code must be one of the documented 0, 1, 3. */
#include "commands.h"
#include "fuzz_common.h"

#include <fcntl.h>

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_memory(stint_read_jsonl, data, size, STINT_MODEL_KEEP_ARGS);

    if (memfd < 0) {
        memfd = memfd_create("stint-fuzz-jsonl", 0);
        int null = open("/dev/null", O_WRONLY);
        /* reports go nowhere (run.sh passes -close_fd_mask=2 for stderr) */
        if (memfd < 0 || null < 0 || dup2(null, 1) < 0)
            abort();
        close(null);
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
        abort();
    static const struct {
        int (*run)(int, char **);
        const char *argv[5];
        int argc;
    } cmds[] = {{stint_cmd_memory, {"memory", NULL, NULL, NULL, NULL}, 2},
                {stint_cmd_memory, {"memory", NULL, "--timeline", "--json", NULL}, 4},
                {stint_cmd_counters, {"counters", NULL, "--json", NULL, NULL}, 3}};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char *argv[5];
        for (int i = 0; i < 5; i++)
            argv[i] = (char *)(uintptr_t)cmds[k].argv[i];
        argv[1] = path;
        int crc = cmds[k].run(cmds[k].argc, argv);
        fflush(stdout);
        if (crc != 0 && crc != 1 && crc != 3)
            abort();
    }
    return 0;
}
