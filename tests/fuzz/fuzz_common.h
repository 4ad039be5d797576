/* SPDX-License-Identifier: MIT */
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

#include "base/hmem.h"
#include "read/input.h"
#include "read/json.h"
#include "model/model.h"
#include "read/readers.h"
#include "read/sizes.h"
#include "base/tsparse.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
    /* the writer's losses, once merged: one per thread in (pid, tid) order, threads not known
     * last, counts adding up to m->lost (saturating), ranges in order within +-2^62 ns */
    uint64_t lost = 0;
    const struct stint_loss *l = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++) {
        lost = stint_count_add(lost, l[i].count);
        if (!l[i].count || ((l[i].flags & STINT_LOSS_RANGE) &&
                            (l[i].first_ns > l[i].last_ns || l[i].first_ns < -STINT_TS_LIMIT ||
                             l[i].last_ns > STINT_TS_LIMIT)))
            abort();
        if (i && (l[i - 1].flags & STINT_LOSS_THREAD) && (l[i].flags & STINT_LOSS_THREAD) &&
            (l[i - 1].pid > l[i].pid || (l[i - 1].pid == l[i].pid && l[i - 1].tid >= l[i].tid)))
            abort();
        if (i && !(l[i - 1].flags & STINT_LOSS_THREAD))
            abort(); /* (one entry for the threads not known, and it is last) */
    }
    if (lost != m->lost || (m->finished && m->lost && !m->losses.len))
        abort();
}

/* Makes *in an input holding data[0..size) in one padded window, at eof. */
static inline void fuzz_memory_input(struct stint_input *in, const uint8_t *data, size_t size)
{
    memset(in, 0, sizeof *in);
    in->path = "fuzz";
    in->fd = -1;
    in->eof = 1;
    in->cap = size;
    in->len = size;
    /* the window is all of mem, which stint_input_close() frees through hmem.h (input.h) */
    in->mem = in->buf = stint_hmem_alloc(size + STINT_INPUT_ALIGN + STINT_JSON_PAD);
    if (!in->buf)
        abort();
    if (size)
        memcpy(in->buf, data, size);
    memset(in->buf + size, 0, STINT_JSON_PAD);
}

/* Reads data[0..size) held in memory into *m (initialised here with
 * model_flags, the span sink, if any, and the sink's split for a lean finish
 * on two threads, if any), finishes it and checks it; returns the exit code.
 * The caller frees m. */
static inline int fuzz_read_model_split(fuzz_reader_fn reader, const uint8_t *data, size_t size,
                                        unsigned model_flags, int strict, stint_span_sink sink, void *sink_ctx,
                                        const struct stint_span_split *split, struct stint_model *m)
{
    struct stint_input in;
    fuzz_memory_input(&in, data, size);
    if (stint_model_init(m, model_flags) != 0)
        abort();
    stint_model_set_span_sink(m, sink, sink_ctx);
    if (split)
        stint_model_set_span_split(m, split);
    struct stint_read_opts o = {.strict = strict, .quiet = 1};
    int rc = reader(&in, m, &o);
    stint_input_close(&in);
    stint_model_finish(m);
    if (rc == 0 && m->partial)
        rc = 1;
    fuzz_check_model(m, rc);
    return rc;
}

/* fuzz_read_model_split with the walk on one thread. */
static inline int fuzz_read_model(fuzz_reader_fn reader, const uint8_t *data, size_t size, unsigned model_flags,
                                  int strict, stint_span_sink sink, void *sink_ctx, struct stint_model *m)
{
    return fuzz_read_model_split(reader, data, size, model_flags, strict, sink, sink_ctx, NULL, m);
}

/* The sum over a sizes table's rows (sizes.h) of their events (events 1) or
 * bytes: what the tally's totals must add up to. */
static inline uint64_t fuzz_size_sum(const struct stint_size_table *t, int events)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += events ? t->rows[i].events : t->rows[i].bytes;
    return n;
}

/* Runs reader over data[0..size) held in memory, with and without strict. */
static inline void fuzz_read_memory(fuzz_reader_fn reader, const uint8_t *data, size_t size, unsigned model_flags)
{
    for (int strict = 0; strict < 2; strict++) {
        struct stint_model m;
        fuzz_read_model(reader, data, size, model_flags, strict, NULL, NULL, &m);
        stint_model_free(&m);
    }
}

/* A file in memory that commands and readers open by path: a memfd made on
 * first use and kept across runs (init with {-1, ""}). */
struct fuzz_file {
    int fd;
    char path[64];
};

/* Makes f hold data[0..size) (creating it, named `name`, on first use);
 * returns its path ("/proc/self/fd/N"). Aborts on failure. */
static inline const char *fuzz_file_put(struct fuzz_file *f, const char *name, const void *data, size_t size)
{
    if (f->fd < 0) {
        f->fd = memfd_create(name, 0);
        if (f->fd < 0)
            abort();
        snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    }
    if (ftruncate(f->fd, 0) != 0 || (size && pwrite(f->fd, data, size, 0) != (ssize_t)size))
        abort();
    return f->path;
}

/* A whole command run on the fuzzed file: argv[1] is replaced by the path,
 * and so is any later argument "@" (a second input: `diff` of the file with
 * itself). */
struct fuzz_cmd {
    unsigned bit; /* run when mask & bit (0: always) */
    int (*run)(int, char **);
    const char *argv[7];
    int argc;
};

/* Runs the commands of cmds[0..n) that mask selects on path, stdout going to
 * /dev/null (run.sh passes -close_fd_mask=2 for stderr: libFuzzer keeps its
 * own and the sanitizers' output). Each must exit 0, 1 or 3. */
static inline void fuzz_run_cmds(const struct fuzz_cmd *cmds, size_t n, unsigned mask, const char *path)
{
    static int quiet = 0;
    if (!quiet) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, 1) < 0)
            abort();
        close(null);
        quiet = 1;
    }
    for (size_t k = 0; k < n; k++) {
        if (cmds[k].bit && !(mask & cmds[k].bit))
            continue;
        char *argv[7];
        for (int i = 0; i < 7; i++) {
            const char *a = cmds[k].argv[i];
            argv[i] = (char *)(uintptr_t)(i == 1 || (a && !strcmp(a, "@")) ? path : a);
        }
        int crc = cmds[k].run(cmds[k].argc, argv);
        fflush(stdout);
        if (crc != 0 && crc != 1 && crc != 3)
            abort();
    }
}

#ifdef FUZZ_GZIP
#include <zlib.h>

/* n bytes at src as one gzip member (zlib, level 6) into dst (cap bytes:
 * n + n / 100 + 64 is enough); its length. */
static inline size_t fuzz_gzip_into(const uint8_t *src, size_t n, unsigned char *dst, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = dst;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        abort();
    size_t out = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}
#endif

#endif
