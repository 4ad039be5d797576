/* SPDX-License-Identifier: MIT */
/*
 * args_spill.c - slice args kept in a temporary file (args_spill.h).
 *
 * The file holds records [u32 length][args text] in input order; index[seq]
 * is a record's offset + 1 (0: the slice had no args). Read back, the file
 * is mapped; its pages mapped in count as the process's memory, so every
 * SPILL_DROP_BYTES of pages that reads may have brought in (a record's 64
 * KiB block, as the kernel maps pages around a fault) the mapping's pages
 * are dropped (they stay in the page cache). A record is flattened by the
 * reader's own walk (chrome_args.c) into a scratch model, made afresh every
 * SCRATCH_SLICES records so that its strings do not pile up.
 */
#include "read/args_spill.h"

#include "read/chrome_int.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SPILL_BUF ((size_t)1 << 20)
#define SPILL_DROP_BYTES ((uint64_t)32 << 20)
#define SPILL_BLOCK_SHIFT 16
#define SCRATCH_SLICES 16384

struct stint_args_spill {
    int fd;
    int err;          /* errno of the first failed write, 0: none */
    char *buf;        /* the write buffer */
    size_t used;
    uint64_t off;     /* file size, written or buffered */
    uint64_t text;    /* args text bytes */
    uint64_t *index;  /* by seq: record offset + 1, 0 none */
    size_t cap;
    const char *map;  /* after _done */
    uint64_t map_len;
    uint64_t touched; /* bytes of blocks reads may have mapped since the last drop */
    uint64_t last_block;
    struct stint_model scratch;
    int scratch_live;
    size_t scratch_uses;
    struct creader *cr;
};

struct stint_args_spill *stint_args_spill_new(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *path = stint_xmalloc(n);
    snprintf(path, n, "%s/stint-args.XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    (void)unlink(path); /* (gone with the process, whatever ends it) */
    free(path);
    struct stint_args_spill *sp = stint_xcalloc(1, sizeof *sp);
    sp->fd = fd;
    sp->buf = stint_xmalloc(SPILL_BUF);
    sp->last_block = UINT64_MAX;
    return sp;
}

/* Writes the buffer to the file (all of it, or keeps the error). */
static void spill_flush(struct stint_args_spill *sp)
{
    size_t at = 0;
    while (at < sp->used && !sp->err) {
        ssize_t w = write(sp->fd, sp->buf + at, sp->used - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            sp->err = w < 0 ? errno : EIO;
        else
            at += (size_t)w;
    }
    sp->used = 0;
}

/* Appends n bytes to the file through the buffer. */
static void spill_put(struct stint_args_spill *sp, const void *p, size_t n)
{
    while (n) {
        if (sp->used == SPILL_BUF)
            spill_flush(sp);
        size_t k = SPILL_BUF - sp->used < n ? SPILL_BUF - sp->used : n;
        memcpy(sp->buf + sp->used, p, k);
        sp->used += k;
        p = (const char *)p + k;
        n -= k;
    }
}

void stint_args_spill_take(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b)
{
    struct stint_args_spill *sp = ctx;
    uint32_t seq = stint_model_slice(m, idx)->seq;
    uint32_t len = (uint32_t)(b - a);
    sp->index = stint_xgrow_zeroed(sp->index, &sp->cap, (size_t)seq + 1, sizeof *sp->index, 1024);
    sp->index[seq] = sp->off + 1;
    spill_put(sp, &len, sizeof len);
    spill_put(sp, a, len);
    sp->off += sizeof len + len;
    sp->text += len;
}

int stint_args_spill_done(struct stint_args_spill *sp)
{
    spill_flush(sp);
    free(sp->buf);
    sp->buf = NULL;
    if (sp->err) {
        errno = sp->err;
        return -1;
    }
    if (!sp->off)
        return 0;
    void *p = mmap(NULL, (size_t)sp->off, PROT_READ, MAP_SHARED, sp->fd, 0);
    if (p == MAP_FAILED)
        return -1;
    sp->map = p;
    sp->map_len = sp->off;
    return 0;
}

uint64_t stint_args_spill_bytes(const struct stint_args_spill *sp) { return sp->text; }

/* A fresh scratch model with one slice (index 0) for args to hang on. */
static void scratch_reset(struct stint_args_spill *sp)
{
    if (sp->scratch_live)
        stint_model_free(&sp->scratch);
    if (stint_model_init(&sp->scratch, STINT_MODEL_KEEP_ARGS) != 0)
        stint_die_nomem();
    struct stint_slice *s = stint_bigarray_push(&sp->scratch.slices);
    if (!s)
        stint_die_nomem();
    s->args = STINT_NO_ID;
    sp->scratch_live = 1;
    sp->scratch_uses = 0;
    if (!sp->cr)
        sp->cr = stint_xcalloc(1, sizeof *sp->cr);
    sp->cr->m = &sp->scratch;
}

const struct stint_arg *stint_args_spill_get(void *ctx, const struct stint_model *m, const struct stint_slice *s,
                                             size_t *n, const struct stint_model **sm)
{
    (void)m;
    struct stint_args_spill *sp = ctx;
    *n = 0;
    if (s->seq >= sp->cap || !sp->index[s->seq] || !sp->map)
        return NULL;
    uint64_t at = sp->index[s->seq] - 1;
    uint32_t len;
    memcpy(&len, sp->map + at, sizeof len);
    uint64_t b0 = at >> SPILL_BLOCK_SHIFT, b1 = (at + sizeof len + len) >> SPILL_BLOCK_SHIFT;
    if (b0 != sp->last_block)
        sp->touched += (b1 - b0 + 1) << SPILL_BLOCK_SHIFT;
    sp->last_block = b1;
    if (sp->touched >= SPILL_DROP_BYTES) { /* (the page cache keeps them: a later read maps them again) */
        (void)madvise((void *)sp->map, (size_t)sp->map_len, MADV_DONTNEED);
        sp->touched = 0;
        sp->last_block = UINT64_MAX;
    }
    if (!sp->scratch_live || ++sp->scratch_uses >= SCRATCH_SLICES)
        scratch_reset(sp);
    struct stint_slice *z = &STINT_BA_AT(&sp->scratch.slices, struct stint_slice, 0);
    sp->scratch.args.len = 0;
    z->args = STINT_NO_ID;
    z->nargs = 0;
    const char *a = sp->map + at + sizeof len;
    stint_i_chrome_args_slice(sp->cr, a, a + len, 0);
    *n = z->nargs;
    *sm = &sp->scratch;
    return z->nargs ? stint_model_arg_at(&sp->scratch, z->args) : NULL;
}

void stint_args_spill_free(struct stint_args_spill *sp)
{
    if (!sp)
        return;
    if (sp->map)
        munmap((void *)sp->map, (size_t)sp->map_len);
    if (sp->scratch_live)
        stint_model_free(&sp->scratch);
    if (sp->cr) {
        free(sp->cr->scratch);
        free(sp->cr->key);
        free(sp->cr);
    }
    free(sp->buf);
    free(sp->index);
    close(sp->fd);
    free(sp);
}
