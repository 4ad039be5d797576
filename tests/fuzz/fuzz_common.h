/*
 * fuzz_common.h - shared plumbing of the libFuzzer targets.
 *
 * The reader targets hand the fuzzer's bytes to a format reader through an
 * in-memory stint_input (the whole input in one padded window, eof set), so
 * one execution costs no system call. The gzip target goes through a real
 * file descriptor (a memfd) instead, because decompression lives behind
 * stint_input_fill(). Every target checks a few invariants the model
 * promises whatever the input: a finished model, an error message whenever
 * the result is not 0, slice durations >= -1.
 */
#ifndef STINT_FUZZ_COMMON_H
#define STINT_FUZZ_COMMON_H

#include "input.h"
#include "json.h"
#include "model.h"
#include "readers.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fuzz_reader_fn)(struct stint_input *, struct stint_model *, const struct stint_read_opts *);

/* Checks the invariants of a model after a read that returned rc. */
static inline void fuzz_check_model(const struct stint_model *m, int rc)
{
    if (rc != 0 && rc != 1 && rc != 3)
        abort();
    if (rc != 0 && !m->error && !m->partial) {
        /* a nonzero result must say why: an error, or a strict repair */
        int any = m->dropped != 0;
        for (int k = 0; k < STINT_REPAIR_COUNT; k++)
            any |= m->repairs[k] != 0;
        if (!any)
            abort();
    }
    if (m->partial && !m->error)
        abort();
    for (size_t i = 0; i < m->slices.len; i++) {
        const struct stint_slice *s = &STINT_BA_AT(&m->slices, struct stint_slice, i);
        if (s->dur_ns < -1)
            abort();
    }
}

/* Runs reader over data[0..size) held in memory, with and without strict. */
static inline void fuzz_read_memory(fuzz_reader_fn reader, const uint8_t *data, size_t size, unsigned model_flags)
{
    for (int strict = 0; strict < 2; strict++) {
        struct stint_input in;
        memset(&in, 0, sizeof in);
        in.path = "fuzz";
        in.fd = -1;
        in.eof = 1;
        in.cap = size;
        in.len = size;
        in.mem = in.buf = malloc(size + STINT_JSON_PAD); /* the window is all of mem (input.h) */
        if (!in.buf)
            abort();
        if (size)
            memcpy(in.buf, data, size);
        memset(in.buf + size, 0, STINT_JSON_PAD);
        struct stint_model m;
        if (stint_model_init(&m, model_flags) != 0)
            abort();
        struct stint_read_opts o = {NULL, strict, 1};
        int rc = reader(&in, &m, &o);
        stint_input_close(&in);
        stint_model_finish(&m);
        if (rc == 0 && m.partial)
            rc = 1;
        fuzz_check_model(&m, rc);
        stint_model_free(&m);
    }
}

#endif
