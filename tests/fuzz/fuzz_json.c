/* fuzz_json.c - libFuzzer target: the strict JSON tokenizer
 * (stint_json_validate) in strict mode and with the Chrome leniencies.
 * Invariants: the lenient mode accepts everything the strict one accepts, and
 * an error offset lies inside the input (or at its end). */
#include "json.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    const char *msg = NULL;
    int strict = stint_json_validate((const char *)data, size, 0, &off, &msg);
    if (strict != 0 && (off > size || !msg))
        abort();
    int lenient = stint_json_validate((const char *)data, size,
                                      STINT_JSON_TRAILING_COMMA | STINT_JSON_CONTROL_CHARS, &off, &msg);
    if (lenient != 0 && (off > size || !msg))
        abort();
    if (strict == 0 && lenient != 0)
        abort();
    return 0;
}
