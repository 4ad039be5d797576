/* SPDX-License-Identifier: MIT */
/* fuzz_json.c - libFuzzer target: the strict JSON tokenizer
 * (stint_json_validate) in strict mode and with the Chrome leniencies.
 * Invariants: the lenient mode accepts everything the strict one accepts, an
 * error offset lies inside the input (or at its end), and every fast skip
 * path that does not give up on the input ends its first value where the
 * general skip does, which must accept it. And the args shape cache
 * (json_shape.h): with the input's first line learnt, the rest skipped
 * through the cache (normally, and with every shape hashed alike) must end
 * where the general skip does, without a counted leniency, or give up only
 * where the fast skip does. */
#include "read/json.h"
#include "read/json_shape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s[0..n) in an exactly sized, padded copy (free it). */
static char *padded(const char *s, size_t n)
{
    char *b = malloc(n + STINT_JSON_PAD);
    if (b) {
        memcpy(b, s, n);
        memset(b + n, 0, STINT_JSON_PAD);
    }
    return b;
}

/* Learns learn[0..ln) (when the fast skip takes it), then skips doc[0..dn). */
static void check_shapes(const char *learn, size_t ln, const char *doc, size_t dn)
{
    char *l = padded(learn, ln), *d = padded(doc, dn);
    for (int mode = 0; mode < 2 && l && d; mode++) {
        setenv("STINT_JSON_SHAPES", mode ? "collide" : "1", 1);
        struct stint_jshape *c = stint_i_jshape_new();
        if (!c) /* no shape path on this CPU */
            break;
        if (ln && *l == '{')
            stint_i_jshape_skip(c, l, l + ln);
        if (dn && *d == '{') {
            struct stint_json g = {.p = d, .end = d + dn, .at_eof = 1};
            int rc = stint_i_json_skip_general(&g);
            const char *fast = stint_i_json_fast_skip(d, d + dn, STINT_I_JSON_FAST_AUTO);
            const char *e = stint_i_jshape_skip(c, d, d + dn);
            if (e && (rc != STINT_JSON_OK || e != g.p || g.lone_surrogates))
                abort();
            if (!e && fast)
                abort();
        }
        stint_i_jshape_free(c);
    }
    free(l);
    free(d);
}

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
    char *buf = padded((const char *)data, size);
    if (!buf)
        return 0;
    struct stint_json g = {.p = buf, .end = buf + size, .at_eof = 1};
    int rc = stint_i_json_skip_general(&g);
    for (int path = STINT_I_JSON_FAST_AUTO; path <= STINT_I_JSON_FAST_BLOCK512; path++) {
        const char *e = stint_i_json_fast_skip(buf, buf + size, path);
        if (e && (rc != STINT_JSON_OK || e != g.p))
            abort();
    }
    free(buf);
    const uint8_t *nl = memchr(data, '\n', size);
    if (nl)
        check_shapes((const char *)data, (size_t)(nl - data), (const char *)nl + 1, size - (size_t)(nl - data) - 1);
    return 0;
}
