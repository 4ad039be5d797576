/* fuzz_json.c - libFuzzer target: the strict JSON tokenizer
 * (stint_json_validate) in strict mode and with the Chrome leniencies.
 * Invariants: the lenient mode accepts everything the strict one accepts, an
 * error offset lies inside the input (or at its end), and every fast skip
 * path that does not give up on the input ends its first value where the
 * general skip does, which must accept it. */
#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    /* the fast paths against the general skip, on an exactly sized padded copy */
    char *buf = malloc(size + STINT_JSON_PAD);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(buf + size, 0, STINT_JSON_PAD);
    struct stint_json g = {.p = buf, .end = buf + size, .at_eof = 1};
    int rc = stint_i_json_skip_general(&g);
    for (int path = STINT_I_JSON_FAST_AUTO; path <= STINT_I_JSON_FAST_BLOCK512; path++) {
        const char *e = stint_i_json_fast_skip(buf, buf + size, path);
        if (e && (rc != STINT_JSON_OK || e != g.p))
            abort();
    }
    free(buf);
    return 0;
}
