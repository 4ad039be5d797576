/* SPDX-License-Identifier: MIT */
/* fuzz_chrome_args.c - libFuzzer target: a slice's args as convert renders
 * them from the text its spill kept (stint_i_chrome_args_render) against
 * the model's walk of the same args written by the Chrome writer
 * (stint_i_chrome_put_args), which is what convert wrote before: the same bytes, the same count of bytes written as U+FFFD,
 * the same count of args left out past a slice's 65535th. The input is one
 * args value, taken when the reader's lenient cursor (an event's args)
 * skips it whole; it lies in an exactly sized copy padded as the reader's
 * window is. */
#include "read/chrome_int.h"
#include "write/textout.h"
#include "write/write_chrome_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *b = malloc(size + STINT_JSON_PAD);
    if (!b)
        abort();
    memcpy(b, data, size);
    memset(b + size, 0, STINT_JSON_PAD);
    struct stint_json j = chrome_sub_json(b, b + size);
    if (stint_json_skip(&j) != STINT_JSON_OK || (stint_json_ws(&j), j.p != b + size)) {
        free(b);
        return 0;
    }
    struct stint_model m;
    if (stint_model_init(&m, STINT_MODEL_KEEP_ARGS) != 0)
        abort();
    struct stint_slice *s = stint_bigarray_push(&m.slices);
    if (!s)
        abort();
    s->args = STINT_NO_ID;
    struct creader r;
    memset(&r, 0, sizeof r);
    r.m = &m;
    struct args_text t = {0};
    stint_i_chrome_args_render(&r, b, b + size, &t);
    uint64_t d0 = m.dropped;
    stint_i_chrome_args_slice(&r, b, b + size, 0);
    uint64_t dropped = m.dropped - d0;
    char *w = NULL;
    size_t wl = 0;
    FILE *f = open_memstream(&w, &wl);
    if (!f)
        abort();
    unsigned long long bad0 = stint_out_bad_utf8();
    stint_i_chrome_put_args(f, &m, stint_model_slice(&m, 0), 0, NULL);
    fclose(f);
    unsigned long long bad = stint_out_bad_utf8() - bad0;
    /* the writer: nothing, or `,"args":{` + the members + `}` */
    static const char head[] = ",\"args\":{";
    if (wl == 0) {
        if (t.len)
            abort(); /* text where the model has no args */
    } else {
        if (wl < sizeof head || memcmp(w, head, sizeof head - 1) || w[wl - 1] != '}')
            abort();
        size_t n = wl - sizeof head; /* (less the head and the closing brace) */
        if (n != t.len || memcmp(w + sizeof head - 1, t.p, n))
            abort(); /* not the writer's bytes */
    }
    if (bad != t.bad_utf8 || dropped != t.dropped)
        abort();
    free(w);
    free(t.p);
    free(r.scratch);
    free(r.key);
    stint_model_free(&m);
    free(b);
    return 0;
}
