/* fuzz_jsonl.c - libFuzzer target: the JSONL session reader (stint/session/1
 * and candle-graph/trace/6), whole input in memory. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_memory(stint_read_jsonl, data, size, STINT_MODEL_KEEP_ARGS);
    return 0;
}
