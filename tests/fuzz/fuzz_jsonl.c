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
        if (memfd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
        abort();
    static const struct fuzz_cmd cmds[] = {{0, stint_cmd_memory, {"memory", NULL, NULL, NULL, NULL}, 2},
                                           {0, stint_cmd_memory, {"memory", NULL, "--timeline", "--json", NULL}, 4},
                                           {0, stint_cmd_counters, {"counters", NULL, "--json", NULL, NULL}, 3}};
    fuzz_run_cmds(cmds, sizeof cmds / sizeof cmds[0], 0, path);
    return 0;
}
