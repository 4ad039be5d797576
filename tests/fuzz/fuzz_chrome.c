/* fuzz_chrome.c - libFuzzer target: the Chrome Trace Event JSON reader on
 * plain (already decompressed) bytes, with args kept so they are walked. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_memory(stint_read_chrome, data, size, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES);
    return 0;
}
