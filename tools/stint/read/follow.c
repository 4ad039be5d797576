/* SPDX-License-Identifier: MIT */
/*
 * follow.c - `tail -F` for a growing text file (follow.h).
 *
 * Invariants: f->off is the count of bytes of the open file already read
 * (pread at f->off, so nothing depends on the file position); every byte read
 * is either handed over inside a whole line or sits in f->held (the current
 * line, not yet ended), until the file it came from is left, when the held
 * bytes are handed over as one cut line. (dev, ino) name the open file; the
 * path is compared with them only once the open file is read to its end, so
 * the old file's last bytes are never skipped at a rotation.
 */
#include "read/follow.h"

#include "base/xalloc.h"
#include "read/input.h"
#include "read/read_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BYTES ((size_t)1 << 20)

struct stint_follow {
    char *path;
    int fd;
    dev_t dev;
    ino_t ino;
    uint64_t off;
    int gz, gz_done;
    int caught_up;
    char *buf;
    char *held;
    size_t held_len, held_cap;
    uint64_t file_taken; /* bytes taken of the current file */
    int bytes_mode;      /* the current file is a capture: bytes handed over as read */
    struct stint_follow_stats st;
};

/* Opens path read-only and fills *sb; returns the fd or -1 (errno set). */
static int open_stat(const char *path, struct stat *sb)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, sb) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* 1 when the file at fd starts with the gzip magic bytes. */
static int starts_gzip(int fd)
{
    unsigned char m[2];
    return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

struct stint_follow *stint_follow_open(const char *path, char *err, size_t errcap)
{
    struct stat sb;
    int fd = open_stat(path, &sb);
    if (fd < 0) {
        snprintf(err, errcap, "stint: %s: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        snprintf(err, errcap, "stint: %s: is a directory", path);
        close(fd);
        return NULL;
    }
    struct stint_follow *f = stint_xcalloc(1, sizeof *f);
    f->path = stint_xstrdup(path);
    f->fd = fd;
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
    f->gz = starts_gzip(fd);
    f->buf = stint_xmalloc(READ_BYTES);
    return f;
}

/* Appends n bytes to the held line; a line past STINT_FOLLOW_MAX_LINE is
 * handed over in pieces. Returns fn's value or 0. */
static int hold(struct stint_follow *f, const char *p, size_t n, stint_follow_fn fn, void *ctx)
{
    while (n) {
        size_t room = STINT_FOLLOW_MAX_LINE - f->held_len;
        size_t k = n < room ? n : room;
        f->held = stint_xgrow(f->held, &f->held_cap, f->held_len + k, 1, 4096);
        memcpy(f->held + f->held_len, p, k);
        f->held_len += k;
        p += k;
        n -= k;
        if (f->held_len == STINT_FOLLOW_MAX_LINE) {
            f->st.long_lines++;
            size_t len = f->held_len;
            f->held_len = 0;
            int rc = fn(ctx, f->held, len, STINT_FOLLOW_CUT);
            if (rc)
                return rc;
        }
    }
    f->st.held_bytes = f->held_len;
    return 0;
}

/* Hands the held bytes over as one cut line (their file is left). */
static int cut_held(struct stint_follow *f, stint_follow_fn fn, void *ctx)
{
    if (!f->held_len)
        return 0;
    size_t len = f->held_len;
    f->held_len = 0;
    f->st.held_bytes = 0;
    f->st.cut_lines++;
    return fn(ctx, f->held, len, STINT_FOLLOW_CUT);
}

/* Counts the '\n' in p[0..n). */
static uint64_t count_lines(const char *p, size_t n)
{
    uint64_t c = 0;
    const char *e = p + n;
    while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
        c++;
        p++;
    }
    return c;
}

/* Takes n new bytes: whole lines go to fn, the unended rest is held; a
 * capture's bytes (its magic at the file's start) all go to fn at once. */
static int take(struct stint_follow *f, const char *p, size_t n, stint_follow_fn fn, void *ctx)
{
    f->st.bytes += n;
    if (!f->file_taken && stint_cap_is_capture(p, n))
        f->bytes_mode = 1;
    f->file_taken += n;
    if (f->bytes_mode)
        return n ? fn(ctx, p, n, STINT_FOLLOW_BYTES) : 0;
    const char *last = memrchr(p, '\n', n);
    if (!last)
        return hold(f, p, n, fn, ctx);
    size_t whole = (size_t)(last - p) + 1;
    const char *q = p;
    if (f->held_len) { /* the held line ends in this block */
        const char *nl = memchr(p, '\n', n);
        size_t k = (size_t)(nl - p) + 1;
        f->held = stint_xgrow(f->held, &f->held_cap, f->held_len + k, 1, 4096);
        memcpy(f->held + f->held_len, p, k);
        size_t len = f->held_len + k;
        f->held_len = 0;
        f->st.lines++;
        int rc = fn(ctx, f->held, len, STINT_FOLLOW_LINES);
        if (rc)
            return rc;
        q = nl + 1;
    }
    size_t rest = whole - (size_t)(q - p);
    if (rest) {
        f->st.lines += count_lines(q, rest);
        int rc = fn(ctx, q, rest, STINT_FOLLOW_LINES);
        if (rc)
            return rc;
    }
    return hold(f, p + whole, n - whole, fn, ctx);
}

/* Reads a gzip file whole, once. */
static int poll_gzip(struct stint_follow *f, stint_follow_fn fn, void *ctx, char *err, size_t errcap)
{
    struct stint_input in;
    if (stint_input_open(&in, f->path) != 0) {
        snprintf(err, errcap, "%s", in.err);
        return -1;
    }
    int rc = 0;
    for (;;) {
        size_t n = in.len;
        rc = n ? take(f, in.buf, n, fn, ctx) : 0;
        stint_input_consume(&in, n);
        if (rc)
            break;
        int r = stint_input_fill(&in);
        if (r == 0)
            break;
        if (r < 0) {
            snprintf(err, errcap, "%s", in.err);
            rc = -1;
            break;
        }
    }
    stint_input_close(&in);
    f->gz_done = 1;
    f->caught_up = 1;
    if (rc == 0)
        rc = cut_held(f, fn, ctx); /* nothing will end it: the file is complete */
    return rc;
}

/* What the path names now, compared with the open file: 0 the same file,
 * 1 another file (opened: *nfd, *nsb), -1 nothing (or it could not be opened). */
static int path_now(const struct stint_follow *f, int *nfd, struct stat *nsb)
{
    struct stat sb;
    if (stat(f->path, &sb) != 0)
        return -1;
    if (sb.st_dev == f->dev && sb.st_ino == f->ino)
        return 0;
    *nfd = open_stat(f->path, nsb);
    return *nfd < 0 ? -1 : 1;
}

/* Reads the open file from f->off to its end or until *budget runs out.
 * Returns 0, fn's value, or -1 (err filled). *eof says the end was reached. */
static int read_to_end(struct stint_follow *f, stint_follow_fn fn, void *ctx, uint64_t *budget, int *eof, char *err,
                       size_t errcap)
{
    *eof = 0;
    while (*budget) {
        size_t want = *budget < READ_BYTES ? (size_t)*budget : READ_BYTES;
        ssize_t r = pread(f->fd, f->buf, want, (off_t)f->off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errcap, "stint: %s: read: %s", f->path, strerror(errno));
            return -1;
        }
        if (r == 0) {
            *eof = 1;
            return 0;
        }
        f->off += (uint64_t)r;
        f->st.offset = f->off;
        *budget -= (uint64_t)r;
        int rc = take(f, f->buf, (size_t)r, fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

int stint_follow_poll(struct stint_follow *f, stint_follow_fn fn, void *ctx, uint64_t at_most, unsigned *events,
                      char *err, size_t errcap)
{
    unsigned ev = 0;
    int rc = 0;
    if (events)
        *events = 0;
    if (f->gz) {
        if (!f->gz_done) {
            rc = poll_gzip(f, fn, ctx, err, errcap);
            ev |= STINT_FOLLOW_GZIP_DONE;
        }
        if (events)
            *events = ev;
        return rc;
    }
    uint64_t budget = at_most ? at_most : UINT64_MAX;
    f->caught_up = 0;
    for (int switches = 0; switches < 4; switches++) {
        struct stat sb;
        if (fstat(f->fd, &sb) == 0 && (uint64_t)sb.st_size < f->off) {
            ev |= STINT_FOLLOW_TRUNCATED;
            f->st.truncations++;
            f->off = 0;
            f->st.offset = 0;
            f->file_taken = 0;
            f->bytes_mode = 0;
            if ((rc = cut_held(f, fn, ctx)) != 0 || (rc = fn(ctx, NULL, 0, STINT_FOLLOW_NEW_FILE)) != 0)
                break;
        }
        int eof;
        if ((rc = read_to_end(f, fn, ctx, &budget, &eof, err, errcap)) != 0 || !eof)
            break;
        int nfd = -1;
        struct stat nsb;
        int now = path_now(f, &nfd, &nsb);
        if (now == -1)
            ev |= STINT_FOLLOW_MISSING;
        if (now != 1) {
            f->caught_up = 1;
            break;
        }
        /* the path names a new file: the old one is read to its end */
        if ((rc = read_to_end(f, fn, ctx, &budget, &eof, err, errcap)) != 0 || !eof) {
            close(nfd);
            break;
        }
        ev |= STINT_FOLLOW_ROTATED;
        f->st.rotations++;
        close(f->fd);
        f->fd = nfd;
        f->dev = nsb.st_dev;
        f->ino = nsb.st_ino;
        f->off = 0;
        f->st.offset = 0;
        f->file_taken = 0;
        f->bytes_mode = 0;
        if ((rc = cut_held(f, fn, ctx)) != 0 || (rc = fn(ctx, NULL, 0, STINT_FOLLOW_NEW_FILE)) != 0)
            break;
    }
    if (events)
        *events = ev;
    return rc;
}

int stint_follow_caught_up(const struct stint_follow *f)
{
    return f->caught_up;
}

const struct stint_follow_stats *stint_follow_get_stats(const struct stint_follow *f)
{
    return &f->st;
}

void stint_follow_close(struct stint_follow *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->buf);
    free(f->held);
    free(f);
}
