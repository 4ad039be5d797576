/*
 * input.c - file/stdin reading with gzip detection (ISA-L, zlib fallback).
 *
 * Invariants: the window buf[0..len) is followed by STINT_JSON_PAD zero
 * bytes after every open, consume and fill; it lies in mem (cap + STINT_INPUT_ALIGN +
 * STINT_JSON_PAD bytes) or, for gzip on the inflate thread, in one block of
 * the ring (see "gzip on a second thread"). Plain reads are
 * STINT_INPUT_CHUNK bytes (this machine pays ~1 us per syscall);
 * compressed reads are ZIN_CHUNK. Every buffer is allocated once and reused
 * (a first touch of a 4 KiB page costs ~12 us here, so nothing is allocated
 * per chunk), and mem grows only when one unconsumed piece is larger than
 * it. consume() only moves buf; fill() moves the unconsumed tail to the
 * front (it is at most one event) before reading after it.
 */
#include "read/input.h"
#include "base/hmem.h"

#include "read/json.h"
#include "read/json_shape.h"
#include "base/selftrace.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(STINT_HAVE_ISAL)
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#elif defined(STINT_HAVE_ZLIB)
#include <zlib.h>
#endif

/* Compressed bytes per read. 1 MiB of gzip -1 JSON inflates to ~7 MiB: few
 * reads, and one quarter of the pages a 4 MiB buffer would touch. The first
 * read of any input (the format sniff) is this size too, straight into the
 * window. */
#ifdef STINT_SMALL_BUFFERS
#define ZIN_CHUNK ((size_t)4 << 10)
#else
#define ZIN_CHUNK ((size_t)1 << 20)
#endif

int stint_input_errcode(const struct stint_input *in) { return in->err[0] && in->corrupt ? 1 : 3; }

/* The test knob STINT_TEST_EIO_AT=N (input.h). Read once; -1 when unset. */
static long long eio_at(void)
{
    static long long at = -2;
    long long v = __atomic_load_n(&at, __ATOMIC_RELAXED);
    if (v == -2) {
        const char *e = getenv("STINT_TEST_EIO_AT");
        v = e && *e ? atoll(e) : -1;
        __atomic_store_n(&at, v, __ATOMIC_RELAXED);
    }
    return v;
}

int stint_i_test_eio(int fd, size_t n)
{
    long long stop = eio_at();
    if (stop < 0)
        return 0;
    off_t off = lseek(fd, 0, SEEK_CUR);
    if (off < 0 || (long long)off + (long long)n <= stop)
        return 0;
    errno = EIO;
    return 1;
}

static ssize_t read_full(int fd, void *dst, size_t n)
{
    if (stint_i_test_eio(fd, n))
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)dst + got, n - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Whether the window lies in mem (addresses compared as integers: it may
 * be in a block of the gzip ring instead). */
static int window_in_mem(const struct stint_input *in)
{
    uintptr_t b = (uintptr_t)in->buf, m = (uintptr_t)in->mem;
    return in->mem && in->buf && b >= m && b <= m + in->cap + STINT_INPUT_ALIGN;
}

/* The bytes of a window allocation for cap bytes of window. */
static size_t mem_bytes(size_t cap) { return cap + STINT_INPUT_ALIGN + STINT_JSON_PAD; }
/* The first window: its allocation is STINT_INPUT_CHUNK bytes, one block
 * that hmem.h reuses from part to part of a split read. */
#define WINDOW0 (STINT_INPUT_CHUNK - STINT_INPUT_ALIGN - STINT_JSON_PAD)

/* Makes mem hold at least need bytes (doubling). The window, if it is in
 * mem, moves with it (same offset); a window outside mem is left alone and
 * mem's old bytes are not kept. mem has STINT_INPUT_ALIGN spare bytes
 * before the padding, for make_room's shift. 0 ok; -1 with err set when
 * need passes STINT_INPUT_MAX_WINDOW (bad data) or memory runs out. */
static int grow(struct stint_input *in, size_t need)
{
    if (need <= in->cap)
        return 0;
    size_t cap = in->cap ? in->cap : WINDOW0;
    while (cap < need)
        cap *= 2;
    if (cap > STINT_INPUT_MAX_WINDOW) {
        snprintf(in->err, sizeof in->err,
                 "%s: byte %llu: one JSON event or line is longer than %zu MiB (expected events to be smaller)",
                 in->path, (unsigned long long)in->base, STINT_INPUT_MAX_WINDOW >> 20);
        in->corrupt = 1;
        return -1;
    }
    int keep = window_in_mem(in);
    size_t at = keep ? (size_t)(in->buf - in->mem) : 0;
    char *nb;
    if (keep || !in->mem)
        nb = stint_hmem_realloc(in->mem, in->mem ? mem_bytes(in->cap) : 0, mem_bytes(cap));
    else { /* nothing to keep: no copy */
        stint_hmem_free(in->mem, mem_bytes(in->cap));
        in->mem = NULL;
        in->cap = 0;
        nb = stint_hmem_alloc(mem_bytes(cap));
    }
    if (!nb) {
        snprintf(in->err, sizeof in->err, "%s: out of memory for a %zu MiB window", in->path, cap >> 20);
        return -1;
    }
    if (keep || !in->buf)
        in->buf = nb + at;
    in->mem = nb;
    in->cap = cap;
    return 0;
}

/* Where a window that starts at input offset base goes in mem: the first of
 * mem's bytes at the same address modulo STINT_INPUT_ALIGN as base, so that
 * read() copies each page-cache page to a 64-byte-aligned spot. Measured
 * here (Zen 5, 100 MB cached file, 1 MiB reads): 16 ms with that alignment,
 * 55-73 ms with the destination 8 or 16 bytes off, which is where malloc
 * puts a large block. */
static char *aligned_front(const struct stint_input *in)
{
    return in->mem + ((in->base - (uintptr_t)in->mem) & (STINT_INPUT_ALIGN - 1));
}

/* Moves the window (which is in mem) to aligned_front() and makes room
 * after it for at least cap - len bytes. 0 ok, -1 as grow(). */
static int make_room(struct stint_input *in)
{
    if (in->len >= in->cap && grow(in, in->cap * 2) != 0)
        return -1;
    char *front = aligned_front(in);
    if (in->buf != front) {
        memmove(front, in->buf, in->len);
        in->buf = front;
    }
    return 0;
}

static ssize_t pipe_zin_read(struct stint_input *in); /* (gzip on a second thread, below) */

/* Raw (compressed) bytes for the decompressor: read here, or, on the
 * inflate thread, the chunk the reader read ahead while it waited. */
static int zin_fill(struct stint_input *in)
{
    if (in->zin_pos < in->zin_len || in->zin_eof)
        return 0;
    ssize_t r = in->pipe ? pipe_zin_read(in) : read_full(in->fd, in->zin, ZIN_CHUNK);
    if (r < 0) {
        snprintf(in->err, sizeof in->err, "%s: read error at compressed byte %llu: %s", in->path,
                 (unsigned long long)in->zraw, strerror(errno));
        return -1;
    }
    in->zin_len = (size_t)r;
    in->zin_pos = 0;
    in->zraw += (uint64_t)r;
    if (r == 0)
        in->zin_eof = 1;
    return 0;
}

/* ---- gzip members with ISA-L ------------------------------------------------------
 * ISA-L inflates each member's deflate data raw (ISAL_DEFLATE); stint reads
 * the member's header with isal_read_gzip_header() and its 8-byte trailer
 * itself, and checks the trailer: the size (mod 2^32) here, the CRC-32
 * where the output is taken. Inflating on this thread, that is here too;
 * on the inflate thread (gzip pipe) it is the reader's job (pipe_fill), so
 * the thread that bounds a .gz read only inflates (the CRC is some 3% of
 * ISA-L's time here: 19 of 595 ms on 1 GB). A member whose CRC the reader
 * is to check leaves a record with its block (struct gz_mends). */

#ifdef STINT_SMALL_BUFFERS
#define GZ_MENDS 2 /* (fuzz builds: the inline check after two member ends in a block) */
#else
#define GZ_MENDS 8
#endif

/* The member ends in one block of output whose CRC-32 the reader checks.
 * A block with more member ends than that has the members after the last
 * record checked where they are inflated, from offset inl on: the reader
 * then takes up the member the block ends in (if any) with its CRC-32 so
 * far, hand. */
struct gz_mends {
    size_t n;
    struct gz_mend {
        size_t off;   /* where the member's output ends in the block */
        uint32_t crc; /* its trailer's CRC-32 */
        uint64_t zat; /* compressed offset just past the trailer (for the message) */
    } e[GZ_MENDS];
    size_t inl;       /* SIZE_MAX: none */
    uint32_t hand;
};

/* Where piece k (0..me->n) of a block of len bytes ends: the block's CRC-32
 * is found piece by piece, [0, first end), [that end, the next), ..., up to
 * me->inl or the block's end; the inflate thread (pieces ahead) and the
 * reader (crc_take) cut the block the same way. */
static inline size_t piece_end(const struct gz_mends *me, size_t k, size_t len)
{
    return k < me->n ? me->e[k].off : me->inl < len ? me->inl : len;
}

#if defined(STINT_HAVE_ISAL)
/* The message for a member whose output's CRC-32 got is not its trailer's
 * want; -1. */
static int crc_mismatch(struct stint_input *in, uint64_t zat, uint32_t got, uint32_t want)
{
    snprintf(in->err, sizeof in->err,
             "%s: compressed byte %llu: corrupt gzip data (CRC-32 of a member's inflated bytes is %08x, "
             "its trailer says %08x)",
             in->path, (unsigned long long)zat, (unsigned)got, (unsigned)want);
    in->corrupt = 1;
    return -1;
}

/* The compressed offset of the next byte ISA-L is to take. */
static uint64_t zpos(const struct stint_input *in) { return in->zraw - (in->zin_len - in->zin_pos); }

/* Bad data at the current compressed byte: the message (what), -1. */
static int gz_bad_at(struct stint_input *in, const char *what)
{
    snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: %s", in->path, (unsigned long long)zpos(in), what);
    in->corrupt = 1;
    return -1;
}

/* The message for ISA-L's error rc at the current compressed byte; -1. */
static int isal_failed(struct stint_input *in, int rc)
{
    snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: corrupt gzip data (isa-l error %d)", in->path,
             (unsigned long long)zpos(in), rc);
    in->corrupt = 1;
    return -1;
}

/* CRC-32 arithmetic (the gzip polynomial, bit-reflected): the product of
 * a and b modulo the polynomial, each a polynomial of degree < 32 with x^0
 * in the top bit. */
static uint32_t crc_mulmod(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (uint32_t m = UINT32_C(1) << 31; m; m >>= 1) {
        if (a & m)
            p ^= b;
        b = (b >> 1) ^ (UINT32_C(0xedb88320) & (0u - (b & 1))); /* b * x */
    }
    return p;
}

/* The CRC-32 of A followed by B, from crc_a (A's), crc_b and len_b (B's
 * length in bytes): crc_a times x^(8 len_b), plus crc_b. */
static uint32_t crc_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    uint32_t sq = UINT32_C(1) << 23; /* x^8, then x^16, x^32, ...: x^(8 * 2^k) */
    for (; len_b; len_b >>= 1) {
        if (len_b & 1)
            crc_a = crc_mulmod(sq, crc_a);
        sq = crc_mulmod(sq, sq);
    }
    return crc_a ^ crc_b;
}

/* The bytes ISA-L read past a member's deflate data (now ended), in stream
 * order: those it set aside, then the whole bytes left in its bit buffer.
 * They begin the trailer. */
static void trailer_begin(struct stint_input *in, const struct inflate_state *st)
{
    unsigned n = 0;
    for (int i = 0; i < st->tmp_in_size && n < sizeof in->z_trl; i++)
        in->z_trl[n++] = st->tmp_in_buffer[i];
    if (st->read_in_length > 0) {
        uint64_t bits = st->read_in >> (st->read_in_length % 8);
        for (int i = 0; i < st->read_in_length / 8 && n < sizeof in->z_trl; i++, bits >>= 8)
            in->z_trl[n++] = (unsigned char)bits;
    }
    in->z_trl_n = n;
}

/* The member's trailer is whole: checks its size, and its CRC-32 here (me
 * NULL) or leaves it to the reader (a record at block offset end in me;
 * none for an empty member, whose CRC-32 is 0). 0 ok, -1 error. */
static int trailer_end(struct stint_input *in, struct gz_mends *me, size_t end)
{
    const unsigned char *t = in->z_trl;
    uint32_t crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    uint32_t size = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    uint64_t zat = zpos(in);
    if (in->z_trl_n > 8) { /* ISA-L read beyond the trailer: the next member's bytes are not at hand */
        snprintf(in->err, sizeof in->err,
                 "%s: compressed byte %llu: cannot read on after a gzip member (%u bytes held)", in->path,
                 (unsigned long long)zat, in->z_trl_n);
        in->corrupt = 1;
        return -1;
    }
    if ((uint32_t)in->z_msize != size) {
        snprintf(in->err, sizeof in->err,
                 "%s: compressed byte %llu: corrupt gzip data (a member inflated to %llu bytes, its trailer says %u "
                 "mod 2^32)",
                 in->path, (unsigned long long)zat, (unsigned long long)in->z_msize, (unsigned)size);
        in->corrupt = 1;
        return -1;
    }
    if (me && in->z_msize) {
        me->e[me->n++] = (struct gz_mend){end, crc, zat};
        return 0;
    }
    uint32_t got = me ? 0 : in->z_crc; /* (an empty member's CRC-32 is 0) */
    return got == crc ? 0 : crc_mismatch(in, zat, got, crc);
}

/* Inflates into dst[0..room) with ISA-L, member after member. Checks each
 * member's CRC-32 here when me is NULL, else records where each (but an
 * empty one) ends in me for the reader, checking here those that begin
 * once me is full (struct gz_mends). A member's trailer is read before
 * returning unless the input ends. Returns bytes produced (0 at the end of
 * the stream), -1 on error. */
static ssize_t inflate_into(struct stint_input *in, char *dst, size_t room, struct gz_mends *me)
{
    struct inflate_state *st = in->z;
    size_t produced = 0;
    int here = !me; /* the CRC-32 checked here */
    if (me) {
        me->n = 0;
        me->inl = SIZE_MAX;
    }
    for (;;) {
        if (in->z_phase != 2 && produced == room)
            break;
        if (zin_fill(in) != 0)
            return -1;
        size_t avail = in->zin_len - in->zin_pos;
        if (in->z_phase == 0) { /* a member's header, or the end */
            if (!avail) {
                if (in->z_done || produced > 0)
                    break; /* the end; or hand over what was inflated: the next call reports the truncation */
                goto truncated;
            }
            if (in->z_done) { /* after a member: another one, zero padding (as gzip accepts), or the end */
                const unsigned char *b = in->zin + in->zin_pos;
                if (in->z_pad || b[0] == 0) {
                    size_t k = 0;
                    while (k < avail && b[k] == 0)
                        k++;
                    in->zin_pos += k;
                    in->z_pad = 1;
                    if (k < avail) {
                        if (produced > 0)
                            break; /* hand over what was inflated: the next call reports it */
                        return gz_bad_at(in, "a nonzero byte in the zero padding after the last gzip member "
                                             "(expected zeros to the end of the file)");
                    }
                    continue;
                }
                if (b[0] != 0x1f || (avail >= 2 && b[1] != 0x8b)) {
                    if (produced > 0)
                        break; /* (as above) */
                    return gz_bad_at(in, "the data after the gzip member that ends here is not a gzip member "
                                         "(expected another member, which starts with 1f 8b, or the end of the file)");
                }
                isal_inflate_reset(st);
                st->crc_flag = ISAL_DEFLATE;
                in->z_done = 0;
            }
            struct isal_gzip_header h;
            isal_gzip_header_init(&h); /* (no name, extra or comment buffers: skipped) */
            st->next_in = in->zin + in->zin_pos;
            st->avail_in = (uint32_t)avail;
            int rc = isal_read_gzip_header(st, &h);
            in->zin_pos += avail - st->avail_in;
            if (rc < 0)
                return isal_failed(in, rc);
            if (rc == ISAL_DECOMP_OK) {
                in->z_phase = 1;
                in->z_crc = 0;
                in->z_msize = 0;
            } /* else the header goes on in the next compressed chunk */
        } else if (in->z_phase == 1) { /* deflate data */
            st->next_in = in->zin + in->zin_pos;
            st->avail_in = (uint32_t)avail;
            st->next_out = (uint8_t *)dst + produced;
            st->avail_out = (uint32_t)(room - produced);
            int rc = isal_inflate(st);
            in->zin_pos += avail - st->avail_in;
            size_t got = (size_t)((char *)st->next_out - dst) - produced;
            if (here)
                in->z_crc = crc32_gzip_refl(in->z_crc, (const unsigned char *)dst + produced, got);
            produced += got;
            in->z_msize += got;
            if (rc < 0)
                return isal_failed(in, rc);
            if (st->block_state == ISAL_BLOCK_FINISH) {
                trailer_begin(in, st);
                in->z_phase = 2;
            } else if (!got && !avail) {
                if (produced > 0)
                    break;
                goto truncated;
            }
        } else { /* the trailer */
            if (in->z_trl_n < 8) {
                if (!avail) {
                    if (produced > 0)
                        break;
                    goto truncated;
                }
                size_t take = 8 - in->z_trl_n < avail ? 8 - in->z_trl_n : avail;
                memcpy(in->z_trl + in->z_trl_n, in->zin + in->zin_pos, take);
                in->z_trl_n += (unsigned)take;
                in->zin_pos += take;
                if (in->z_trl_n < 8)
                    continue;
            }
            if (trailer_end(in, here ? NULL : me, produced) != 0)
                return -1;
            in->z_phase = 0;
            in->z_done = 1;
            if (!here && me->n == GZ_MENDS) { /* the members from here on: checked here */
                here = 1;
                me->inl = produced;
            }
        }
    }
    if (me && here) /* the reader takes up the member this block ends in */
        me->hand = in->z_phase == 0 ? 0 : in->z_crc;
    return (ssize_t)produced;
truncated:
    snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: gzip stream is truncated (expected more %s)",
             in->path, (unsigned long long)in->zraw,
             in->z_phase == 0 ? "gzip header" : in->z_phase == 1 ? "deflate data" : "of the gzip trailer");
    in->corrupt = 1;
    return -1;
}
#else
/* Inflates into dst[0..room) with zlib (which checks each member's CRC-32
 * itself; me is unused). Returns bytes produced, -1 on error. */
static ssize_t inflate_into(struct stint_input *in, char *dst, size_t room, struct gz_mends *me)
{
    size_t produced = 0;
    (void)me;
    while (produced < room) {
        if (zin_fill(in) != 0)
            return -1;
        if (in->zin_pos >= in->zin_len) { /* no more compressed input */
            if (!in->z_done && produced > 0)
                break; /* hand over what was inflated; the next call reports the truncation */
            if (!in->z_done) {
                snprintf(in->err, sizeof in->err,
                         "%s: compressed byte %llu: gzip stream is truncated (expected more deflate data)",
                         in->path, (unsigned long long)in->zraw);
                in->corrupt = 1;
                return -1;
            }
            break;
        }
#if defined(STINT_HAVE_ZLIB)
        z_stream *zs = in->z;
        if (in->z_done) {
            inflateReset(zs);
            in->z_done = 0;
        }
        zs->next_in = in->zin + in->zin_pos;
        zs->avail_in = (uInt)(in->zin_len - in->zin_pos);
        zs->next_out = (Bytef *)dst + produced;
        zs->avail_out = (uInt)(room - produced);
        int rc = inflate(zs, Z_NO_FLUSH);
        in->zin_pos = in->zin_len - zs->avail_in;
        produced = (size_t)((char *)zs->next_out - dst);
        if (rc == Z_STREAM_END)
            in->z_done = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: corrupt gzip data (%s)", in->path,
                     (unsigned long long)in->zraw, zs->msg ? zs->msg : "zlib error");
            in->corrupt = 1;
            return -1;
        }
#else
        snprintf(in->err, sizeof in->err, "%s: gzip input, but this build has neither ISA-L nor zlib", in->path);
        return -1;
#endif
    }
    return (ssize_t)produced;
}
#endif

/* ---- gzip on a second thread ----------------------------------------------------
 * Inflating (ISA-L ~1 GB/s here) and parsing run on different cores. The
 * producer inflates straight into a ring of PIPE_BLOCKS blocks, each
 * PIPE_HEAD + PIPE_BLOCK + STINT_JSON_PAD bytes with the data at PIPE_HEAD;
 * fill() hands the next ready block to the reader as its window, after
 * copying the old window's unconsumed tail (the event cut by the block end)
 * into the head room in front of it. So the inflated bytes are never copied,
 * the ring (about 5 MiB) is touched once and reused, and the output chunk
 * stays small enough for ISA-L to write it into cache. A tail larger than
 * the head room (an event over PIPE_HEAD bytes cut by a block end) takes
 * the slow path: tail and block are copied into mem, which grows as for
 * plain input. The reader holds at most one block (its window's); the
 * producer fills the others ahead. Only the producer touches the
 * decompressor state.
 *
 * The producer is faster than the reader (inflating ~0.8 ns a byte here,
 * parsing ~1.5), so the ring is mostly full and the producer would wait.
 * Instead it skips ahead of the reader: in a ready block the reader is not
 * about to take, it finds the "args" values of events and skips them
 * (stint_i_jshape_skip with a shape cache of its own, the reader's own
 * fast path: json_shape.h), and hands the
 * reader their lengths with the block (struct stint_input's hints), so the
 * reader jumps over them. A fast skip that succeeds is what the reader's
 * skip would return (json.h), so the result is the same with or without
 * hints; a block the reader takes before its scan is done comes without.
 * Once the stream is inflated, the producer goes on doing so for the blocks
 * still waiting (so the reader's last blocks are parsed faster).
 *
 * Where the two are about even (large traces, where the steps after the
 * read run on both cores anyway), inflating bounds the read, and the reader
 * waits for blocks now and then. While it waits it reads the producer's
 * next chunk of compressed input into a spare buffer (read_ahead), which the
 * producer swaps with its own when it needs input (pipe_zin_read), so that
 * the reads (~20 ms per GB of JSON here) leave the thread that bounds the
 * read; then it faults in memory for later (fault_in). */

#define PIPE_BLOCKS 4
#ifdef STINT_SMALL_BUFFERS
/* fuzz builds: inputs of a few KiB cross block ends and take the slow path,
 * and each run maps kilobytes instead of megabytes */
#define PIPE_BLOCK ((size_t)4 << 10)
#define PIPE_HEAD ((size_t)1 << 10)
#else
#define PIPE_BLOCK ((size_t)1 << 20)
#define PIPE_HEAD ((size_t)256 << 10)
#endif
#define PIPE_STRIDE (PIPE_HEAD + PIPE_BLOCK + STINT_JSON_PAD)

/* The prefaulted memory the producer (while its ring is full) or the
 * reader (while the ring is empty) keeps ready for the reader instead of
 * waiting (hmem.h): what the reader of a large trace takes in
 * some 50 ms of parsing, and no more, since what is left unused at the end
 * is only resident memory. */
#define PIPE_PREFAULT ((size_t)8 << 20)

/* How much of it to keep ready now: less towards the end of a file of
 * known size (half the compressed bytes still to inflate, zdone of them
 * done: the reader's arrays grow by some tenth of the inflated bytes,
 * several times that of the compressed), so that little is left unused.
 * The producer passes in->zraw (its own), the reader in->raw_read. */
static size_t prefault_want(const struct stint_input *in, uint64_t zdone)
{
    if (!in->file_size)
        return PIPE_PREFAULT;
    uint64_t left = in->file_size > zdone ? (in->file_size - zdone) / 2 : 0;
    return left < PIPE_PREFAULT ? (size_t)left : PIPE_PREFAULT;
}

/* Hints per block at most (an event with args takes more than 32 bytes) */
#define PIPE_HINTS (PIPE_BLOCK / 32)
#define HINT_BYTES (2 * PIPE_HINTS * sizeof(uint32_t)) /* offsets and lengths */
enum { HINTS_NONE, HINTS_SCANNING, HINTS_READY, HINTS_LATE };
/* zspare: empty; the reader reading into it; full; the producer reading for itself */
enum { ZS_FREE, ZS_AHEAD, ZS_READY, ZS_OWN };
/* the hint arrays and zspare: not made yet; being made; made (or refused) */
enum { EX_NONE, EX_BUSY, EX_DONE };

struct gzpipe {
    pthread_t thread;
    uint32_t *hint_off[PIPE_BLOCKS], *hint_len[PIPE_BLOCKS]; /* PIPE_HINTS each, one allocation
                                                              * per block (hint_len follows), touched as used;
                                                              * set by pipe_extras, under mu */
    size_t hint_n[PIPE_BLOCKS];
    int hint_state[PIPE_BLOCKS]; /* HINTS_*, under mu */
    int scan_all;             /* STINT_PIPE_SCAN_ALL (tests): every block, before the reader gets it */
    struct stint_jshape *shapes; /* the producer's args shapes (json_shape.h), its own */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *ring;               /* PIPE_BLOCKS x PIPE_STRIDE */
    size_t len[PIPE_BLOCKS];  /* inflated bytes in each ready block */
    uint64_t zraw[PIPE_BLOCKS]; /* in->zraw when the block was done (raw_read is the reader's) */
    struct gz_mends mend[PIPE_BLOCKS]; /* the member ends in each block, for the reader's CRC-32 check */
    struct gz_mends fin;      /* those after the last block (set with done) */
    int crc_done[PIPE_BLOCKS]; /* the producer found the CRC-32 of each piece of the block: */
    uint32_t piece_crc[PIPE_BLOCKS][GZ_MENDS + 1]; /* of [0, first end), [that end, the next), ..., [last, len) */
    /* The next chunk of compressed input, read ahead by the reader while
     * it waits for blocks (read_ahead) so that the reads leave the thread
     * that bounds the read: zspare (ZIN_CHUNK bytes; NULL: none) and its
     * state, under mu (only the thread that set ZS_AHEAD or ZS_OWN reads
     * the file meanwhile). */
    unsigned char *zspare;
    size_t zs_len;            /* bytes in zspare when ZS_READY */
    int zs_state;             /* ZS_* */
    int zs_errno;             /* with ZS_READY: the read failed, with this errno */
    int zs_end;               /* a read came back short: the input has ended, nothing to read ahead */
    int ra_mode;              /* STINT_PIPE_READ_AHEAD (tests): 0 never, 1 while waiting (default), 2 also
                               * whenever the reader takes a block */
    int head;                 /* the next block the reader takes */
    int ready;                /* blocks inflated and not yet taken */
    int held;                 /* the reader's window is block head - 1 */
    int extras;               /* EX_*: pipe_extras */
    int done, failed, stop;
};

static char *block_data(struct gzpipe *g, int b) { return g->ring + (size_t)b * PIPE_STRIDE + PIPE_HEAD; }

/* The first "args" (with its quotes) in p[0..end - p), or NULL: 16 bytes at
 * a time on x86-64 (a '"' followed by 'a' and, five bytes on, '"'), else
 * memmem. The block's padding makes the loads past end harmless. */
static const char *find_args_key(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), a = _mm_set1_epi8('a');
    for (; end - p >= 6; p += 16) {
        __m128i m = _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), q),
                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), a));
        m = _mm_and_si128(m, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 5)), q));
        for (unsigned bits = (unsigned)_mm_movemask_epi8(m); bits; bits &= bits - 1) {
            const char *c = p + __builtin_ctz(bits);
            if (end - c >= 6 && memcmp(c, "\"args\"", 6) == 0)
                return c;
        }
    }
    return NULL;
#else
    return end - p >= 6 ? memmem(p, (size_t)(end - p), "\"args\"", 6) : NULL;
#endif
}

/* The args values of the events in d[0..n) that the fast skip takes, into
 * off/len (at most PIPE_HINTS, ascending). A "args" that is not a key (in
 * a string, say) only makes a hint the reader never asks for. */
static size_t find_hints(struct stint_jshape *shapes, const char *d, size_t n, uint32_t *off, uint32_t *len)
{
    size_t k = 0;
    const char *p = d, *end = d + n;
    while (k < PIPE_HINTS && (p = find_args_key(p, end)) != NULL) {
        const char *q = p + 6;
        while (q < end && stint_json_is_blank(*q))
            q++;
        if (q < end && *q == ':') {
            q++;
            while (q < end && stint_json_is_blank(*q))
                q++;
            const char *e = q < end && *q == '{' ? stint_i_jshape_skip(shapes, q, end) : NULL;
            if (e) {
                off[k] = (uint32_t)(q - d);
                len[k] = (uint32_t)(e - q);
                k++;
                p = e;
                continue;
            }
        }
        p += 6;
    }
    return k;
}

/* Under mu: a ready block to find hints in, newest first, but not the one
 * the reader takes next; -1 when none. */
static int block_to_scan(struct gzpipe *g)
{
    for (int i = g->ready - 1; i >= 1; i--) {
        int b = (g->head + i) % PIPE_BLOCKS;
        if (g->hint_state[b] == HINTS_NONE)
            return b;
    }
    return -1;
}

/* Under mu, which it lets go of while it works: finds the hints of ready
 * block s (the reader may take the block meanwhile; its hints are then
 * dropped). */
static void scan_block(struct gzpipe *g, int s)
{
    g->hint_state[s] = HINTS_SCANNING;
    size_t len = g->len[s];
    uint32_t *off = g->hint_off[s], *hl = g->hint_len[s];
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(scan, "skip args ahead");
    size_t n = off ? find_hints(g->shapes, block_data(g, s), len, off, hl) : 0;
    stint_i_self_attr("args", (int64_t)n);
    SELF_END(scan);
    pthread_mutex_lock(&g->mu);
    if (g->hint_state[s] == HINTS_SCANNING) { /* not taken meanwhile */
        g->hint_n[s] = n;
        g->hint_state[s] = HINTS_READY;
    }
}

/* Under mu, which it lets go of meanwhile: faults in one 2 MiB region for
 * the reader's reserve (hmem.h) when it holds less than prefault_want(in,
 * zdone); whether it did. */
static int fault_in(struct gzpipe *g, const struct stint_input *in, uint64_t zdone)
{
    size_t want = prefault_want(in, zdone);
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(pf, "fault in memory");
    int r = stint_hmem_prefault(want);
    SELF_END(pf);
    pthread_mutex_lock(&g->mu);
    return r;
}

/* Under mu, which it lets go of meanwhile: makes the pipe's hint arrays
 * and zspare when nobody has yet (on whichever thread first has nothing
 * else to do); whether it did. Not in pipe_start: their fresh 2 MiB of
 * memory costs ~3-4 ms at its first touch once the host has taken the
 * memory back, which the first block then waited for. Until they exist (or
 * where memory is short) blocks come without hints and the producer reads
 * its input itself. */
static int pipe_extras(struct gzpipe *g)
{
    if (g->extras != EX_NONE)
        return 0;
    g->extras = EX_BUSY;
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(ex, "pipe buffers");
    uint32_t *h[PIPE_BLOCKS];
    for (int b = 0; b < PIPE_BLOCKS; b++)
        h[b] = stint_hmem_alloc(HINT_BYTES);
    unsigned char *z = stint_hmem_alloc(ZIN_CHUNK);
    SELF_END(ex);
    pthread_mutex_lock(&g->mu);
    for (int b = 0; b < PIPE_BLOCKS; b++) {
        g->hint_off[b] = h[b];
        g->hint_len[b] = h[b] ? h[b] + PIPE_HINTS : NULL;
    }
    g->zspare = z;
    g->extras = EX_DONE;
    return 1;
}

/* The producer's next compressed chunk into in->zin, as read_full would
 * read it: the one the reader read ahead (the two buffers swapped; its
 * error, if the read failed, with errno set), else read here. */
static ssize_t pipe_zin_read(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    pthread_mutex_lock(&g->mu);
    while (g->zs_state == ZS_AHEAD)
        pthread_cond_wait(&g->cv, &g->mu);
    ssize_t r;
    if (g->zs_state == ZS_READY) {
        unsigned char *t = in->zin;
        in->zin = g->zspare;
        g->zspare = t;
        r = g->zs_errno ? -1 : (ssize_t)g->zs_len;
        int e = g->zs_errno;
        g->zs_state = ZS_FREE;
        pthread_mutex_unlock(&g->mu);
        errno = e;
        return r;
    }
    g->zs_state = ZS_OWN;
    pthread_mutex_unlock(&g->mu);
    r = read_full(in->fd, in->zin, ZIN_CHUNK);
    int e = errno;
    pthread_mutex_lock(&g->mu);
    g->zs_state = ZS_FREE;
    g->zs_end |= r < (ssize_t)ZIN_CHUNK;
    pthread_mutex_unlock(&g->mu);
    errno = e;
    return r;
}

/* Under mu, which it lets go of meanwhile: on the reader's thread, reads
 * the producer's next compressed chunk into zspare when that is free and
 * the input goes on; whether it did. */
static int read_ahead(struct gzpipe *g, const struct stint_input *in)
{
    if (!g->zspare || g->zs_state != ZS_FREE || g->zs_end || !g->ra_mode)
        return 0;
    g->zs_state = ZS_AHEAD;
    unsigned char *dst = g->zspare;
    pthread_mutex_unlock(&g->mu);
    SELF_BEGIN(ra, "read ahead");
    ssize_t r = read_full(in->fd, dst, ZIN_CHUNK);
    int e = r < 0 ? (errno ? errno : EIO) : 0;
    SELF_END(ra);
    pthread_mutex_lock(&g->mu);
    g->zs_len = r < 0 ? 0 : (size_t)r;
    g->zs_errno = e;
    g->zs_end = r < (ssize_t)ZIN_CHUNK;
    g->zs_state = ZS_READY;
    pthread_cond_broadcast(&g->cv);
    return 1;
}

static void *pipe_main(void *arg)
{
    struct stint_input *in = arg;
    struct gzpipe *g = in->pipe;
    stint_i_self_thread("stint inflate");
    SELF_SCOPE_CPU("inflate thread");
    g->shapes = stint_i_jshape_new();
    for (;;) {
        pthread_mutex_lock(&g->mu);
        int s = -1, prefault = 1;
        while (g->ready + g->held == PIPE_BLOCKS && !g->stop && (s = block_to_scan(g)) < 0) {
            if (pipe_extras(g))
                continue;
            if (prefault) {
                /* nothing to inflate or scan: fault in memory the reader
                 * will take (hmem.h), then look again; wait once there is
                 * no more to fault in, until the reader takes a block */
                prefault = fault_in(g, in, in->zraw);
                continue;
            }
            SELF_BEGIN(full, "wait: ring full");
            pthread_cond_wait(&g->cv, &g->mu);
            SELF_END(full);
            prefault = 1;
        }
        if (g->ready + g->held == PIPE_BLOCKS && !g->stop && s >= 0) {
            scan_block(g, s); /* the ring is full: skip args ahead of the reader */
            pthread_mutex_unlock(&g->mu);
            continue;
        }
        int stop = g->stop, t = (g->head + g->ready) % PIPE_BLOCKS;
        g->hint_state[t] = HINTS_NONE;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        char *dst = block_data(g, t);
        SELF_BEGIN(inf, "inflate");
        ssize_t n = inflate_into(in, dst, PIPE_BLOCK, &g->mend[t]);
        stint_i_self_attr("bytes", (int64_t)n);
        SELF_END(inf);
        if (n > 0)
            memset(dst + n, 0, STINT_JSON_PAD);
        /* with two blocks or more waiting for the reader, find this one's
         * hints before handing it over (it is not visible to the reader
         * before ready++); with fewer the reader may be waiting: hand it over */
        int scan = g->scan_all;
        uint32_t *hoff = NULL, *hlen = NULL;
        if (n > 0) {
            pthread_mutex_lock(&g->mu);
            scan = scan || g->ready >= 2;
            hoff = g->hint_off[t];
            hlen = g->hint_len[t];
            pthread_mutex_unlock(&g->mu);
        }
        g->crc_done[t] = 0;
#if defined(STINT_HAVE_ISAL)
        if (n > 0 && scan) { /* the reader is behind: the CRC-32 too, while the block is in this core's cache */
            SELF_SCOPE("CRC-32 ahead");
            size_t at = 0;
            for (size_t k = 0; k <= g->mend[t].n; k++) {
                size_t to = piece_end(&g->mend[t], k, (size_t)n);
                g->piece_crc[t][k] = to > at ? crc32_gzip_refl(0, (const unsigned char *)dst + at, to - at) : 0;
                at = to;
            }
            g->crc_done[t] = 1;
        }
#endif
        size_t nh = 0;
        if (n > 0 && scan && hoff) {
            SELF_SCOPE("skip args ahead");
            nh = find_hints(g->shapes, dst, (size_t)n, hoff, hlen);
            stint_i_self_attr("args", (int64_t)nh);
        }
        pthread_mutex_lock(&g->mu);
        if (n > 0 && scan) {
            g->hint_n[t] = nh;
            g->hint_state[t] = HINTS_READY;
        }
        if (n < 0)
            g->failed = 1;
        else if (n == 0) {
            g->fin = g->mend[t];
            g->done = 1;
        }
        else {
            g->len[t] = (size_t)n;
            g->zraw[t] = in->zraw;
            g->ready++;
        }
        int end = g->failed || g->done;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        if (end)
            break;
    }
    /* the stream is inflated: skip args in the blocks the reader has still
     * to take (but the next), newest first, until none is left */
    pthread_mutex_lock(&g->mu);
    for (int s; !g->stop && !g->failed && (s = block_to_scan(g)) >= 0;)
        scan_block(g, s);
    pthread_mutex_unlock(&g->mu);
    stint_i_jshape_free(g->shapes);
    g->shapes = NULL;
    return NULL;
}

static void pipe_free(struct gzpipe *g)
{
    for (int b = 0; b < PIPE_BLOCKS; b++)
        stint_hmem_free(g->hint_off[b], HINT_BYTES);
    stint_hmem_free(g->ring, PIPE_BLOCKS * PIPE_STRIDE);
    stint_hmem_free(g->zspare, ZIN_CHUNK);
    free(g);
}

static int pipe_start(struct stint_input *in)
{
    struct gzpipe *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    if (!(g->ring = stint_hmem_alloc(PIPE_BLOCKS * PIPE_STRIDE))) {
        free(g);
        return -1;
    }
    /* (the hint arrays and zspare come later: pipe_extras) */
    g->zs_end = in->zin_eof;
    const char *ra = getenv("STINT_PIPE_READ_AHEAD");
    g->ra_mode = ra && !strcmp(ra, "0") ? 0 : ra && !strcmp(ra, "all") ? 2 : 1;
    g->scan_all = getenv("STINT_PIPE_SCAN_ALL") != NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (g->scan_all || g->ra_mode == 2) { /* (tests: every block scanned, every chunk read ahead, from the first) */
        pthread_mutex_lock(&g->mu);
        pipe_extras(g);
        pthread_mutex_unlock(&g->mu);
    }
    in->pipe = g;
    if (!in->buf) /* an empty window until the first block (none in mem: see open_common) */
        in->buf = block_data(g, 0);
    if (pthread_create(&g->thread, NULL, pipe_main, in) != 0) {
        in->pipe = NULL;
        if (!in->mem)
            in->buf = NULL;
        pthread_mutex_destroy(&g->mu);
        pthread_cond_destroy(&g->cv);
        pipe_free(g);
        return -1;
    }
    return 0;
}

static void pipe_stop(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stop = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    /* (what the reserve holds stays there: the steps after the read take it,
     * and the ring's own pages join it as pipe_free frees them) */
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    pipe_free(g);
    in->pipe = NULL;
    in->buf = in->mem; /* the window may have been a block */
    in->len = 0;
    in->hint_n = 0;
}

/* The reader's CRC-32 check of len bytes of output at data (a block, or
 * none at the end), against the member ends me records in it (their
 * offsets within it, ascending; from me->inl on the inflating thread
 * checked them): over the bytes, or from the pieces' CRC-32 when the
 * producer found them (piece, else NULL). 0 ok, -1 error. */
static int crc_take(struct stint_input *in, const struct gz_mends *me, const char *data, size_t len,
                    const uint32_t *piece)
{
#if defined(STINT_HAVE_ISAL)
    SELF_SCOPE("check CRC-32");
    const unsigned char *d = (const unsigned char *)data;
    size_t at = 0;
    for (size_t k = 0; k <= me->n; k++) {
        size_t to = piece_end(me, k, len);
        uint32_t c = in->rd_crc;
        if (to > at)
            c = piece ? crc_combine(c, piece[k], to - at) : crc32_gzip_refl(c, d + at, to - at);
        at = to;
        if (k == me->n) { /* the member the block ends in, if any: its CRC-32 so far */
            in->rd_crc = me->inl != SIZE_MAX ? me->hand : c;
            break;
        }
        if (c != me->e[k].crc)
            return crc_mismatch(in, me->e[k].zat, c, me->e[k].crc);
        in->rd_crc = 0;
    }
#else
    (void)in, (void)me, (void)data, (void)len, (void)piece; /* (zlib checks each member itself) */
#endif
    return 0;
}

/* fill() with the inflate thread: the next block becomes the window, the
 * unconsumed tail copied in front of it. 1 data added, 0 end of input, -1
 * error (the producer's message, or the window limit). */
static int pipe_fill(struct stint_input *in)
{
    struct gzpipe *g = in->pipe;
    pthread_mutex_lock(&g->mu);
    if (g->ready == 0 && !g->done && !g->failed) {
        SELF_SCOPE("wait: inflate");
        /* nothing to parse: read the producer's next compressed chunk
         * ahead, fault in memory this thread will take (hmem.h) until the
         * reserve holds what it wants, then sleep (the ring has room for
         * the blocks inflated meanwhile) */
        for (int pf = 1; g->ready == 0 && !g->done && !g->failed;) {
            if (pipe_extras(g) || read_ahead(g, in))
                continue;
            if (pf) {
                pf = fault_in(g, in, in->raw_read);
                continue;
            }
            pthread_cond_wait(&g->cv, &g->mu);
            pf = 1;
        }
    }
    if (g->ready == 0) {
        int failed = g->failed;
        pthread_mutex_unlock(&g->mu);
        if (failed)
            return -1; /* in->err was written by the producer before it took the lock */
        if (crc_take(in, &g->fin, NULL, 0, NULL) != 0)
            return -1;
        in->eof = 1;
        return 0;
    }
    int h = g->head;
    size_t blen = g->len[h];
    in->raw_read = g->zraw[h];
    size_t nh = g->hint_state[h] == HINTS_READY ? g->hint_n[h] : 0;
    if (g->hint_state[h] == HINTS_SCANNING)
        g->hint_state[h] = HINTS_LATE; /* the producer's result for it is dropped */
    uint32_t *hoff = g->hint_off[h], *hlen = g->hint_len[h];
    pthread_mutex_unlock(&g->mu);
    char *data = block_data(g, h);
    if (crc_take(in, &g->mend[h], data, blen, g->crc_done[h] ? g->piece_crc[h] : NULL) != 0)
        return -1; /* (the block is not handed over, as when inflating fails) */
    size_t tail = in->len;
    int hold = tail <= PIPE_HEAD;
    int rc = 1;
    in->hint_n = 0;
    if (hold) {
        memcpy(data - tail, in->buf, tail); /* another block, or mem: never overlapping */
        in->buf = data - tail;
        in->len = tail + blen;
        /* the hints stay valid while the block is held (the producer fills
         * and scans other blocks only) */
        in->hint_off = hoff;
        in->hint_len = hlen;
        in->hint_n = nh;
        in->hint_at = in->base + tail;
    } else {
        /* slow path: tail and block into mem */
        if (!g->held && in->buf != in->mem) { /* the window is in mem: to its front */
            memmove(in->mem, in->buf, tail);
            in->buf = in->mem;
        }
        if (grow(in, tail + blen) != 0)
            rc = -1;
        else {
            if (in->buf != in->mem) { /* the tail is in the held block */
                memcpy(in->mem, in->buf, tail);
                in->buf = in->mem;
            }
            memcpy(in->mem + tail, data, blen);
            in->len = tail + blen;
            memset(in->buf + in->len, 0, STINT_JSON_PAD);
        }
    }
    pthread_mutex_lock(&g->mu);
    if (rc > 0) {
        /* the old window's block (if any) is free now; the new one is held if the window is in it */
        g->head = (h + 1) % PIPE_BLOCKS;
        g->ready--;
        g->held = hold;
        pthread_cond_broadcast(&g->cv);
        if (g->ra_mode == 2)
            read_ahead(g, in);
    }
    pthread_mutex_unlock(&g->mu);
    return rc;
}

int stint_input_fill(struct stint_input *in)
{
    if (in->eof)
        return 0;
    if (in->pipe)
        return pipe_fill(in);
    if (make_room(in) != 0)
        return -1;
    ssize_t r;
    if (in->gz) {
        SELF_SCOPE("inflate");
        r = inflate_into(in, in->buf + in->len, in->cap - in->len, NULL);
        in->raw_read = in->zraw;
        stint_i_self_attr("bytes", (int64_t)r);
    } else {
        size_t want = in->cap - in->len;
        if (in->stop_at && in->base + in->len + want > in->stop_at)
            want = (size_t)(in->stop_at - in->base - in->len);
        SELF_SCOPE("read()");
        r = read_full(in->fd, in->buf + in->len, want);
        stint_i_self_attr("bytes", (int64_t)r);
        if (r < 0)
            snprintf(in->err, sizeof in->err, "%s: read error at byte %llu: %s", in->path,
                     (unsigned long long)(in->base + in->len), strerror(errno));
        else if ((size_t)r < want || (in->stop_at && in->base + in->len + (size_t)r >= in->stop_at))
            in->eof = 1;
    }
    if (r < 0)
        return -1;
    if (in->cut_at && r == 0)
        in->cut_missed = 1; /* the stream ended before a cut: the part runs to the real end */
    if (in->cut_at && in->base + in->len + (size_t)r > in->cut_at) {
        /* a gzip part's end: the first cut at or after cut_at in the new bytes */
        size_t from = in->base + in->len >= in->cut_at ? in->len : (size_t)(in->cut_at - in->base);
        long k = stint_i_cut_scan(in->buf + from, in->len + (size_t)r - from, &in->cut_comma);
        if (k >= 0) {
            r = (ssize_t)(from + (size_t)k - in->len);
            in->eof = 1;
        }
    }
    in->len += (size_t)r;
    memset(in->buf + in->len, 0, STINT_JSON_PAD);
    if (r == 0)
        in->eof = 1;
    return r > 0 ? 1 : 0;
}

double stint_i_gz_parse_share(void)
{
    /* per byte here: ISA-L inflates in ~0.6 ns, zlib in ~1.5 ns, and the
     * Chrome reader parses in ~1.2 ns */
#if defined(STINT_HAVE_ISAL)
    return 1.2 / (0.6 + 1.2);
#else
    return 1.2 / (1.5 + 1.2);
#endif
}

long stint_i_cut_scan(const char *p, size_t n, int *comma)
{
    int c = *comma;
    for (size_t i = 0; i < n; i++) {
        char b = p[i];
        if (b == ',')
            c = 1;
        else if (b == '{' && c)
            return (long)i;
        else if (b != ' ' && b != '\n' && b != '\r' && b != '\t')
            c = 0;
    }
    *comma = c;
    return -1;
}

void stint_input_consume(struct stint_input *in, size_t n)
{
    /* O(1): the padding after the window's end stays where it is */
    if (n > in->len)
        n = in->len;
    in->buf += n;
    in->len -= n;
    in->base += n;
}

/* no_pipe: inflate on the calling thread; cut_at: see struct stint_input. */
static int open_common(struct stint_input *in, const char *path, uint64_t from, uint64_t to, int no_pipe,
                       uint64_t cut_at)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->cut_at = cut_at;
    if (strcmp(path, "-") == 0) {
        in->fd = 0;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            snprintf(in->err, sizeof in->err, "%s: cannot open: %s", path, strerror(errno));
            return 3;
        }
        struct stat st;
        int have_st = fstat(in->fd, &st) == 0;
        if (have_st && S_ISREG(st.st_mode))
            in->file_size = (uint64_t)st.st_size;
        stint_hmem_expect(in->file_size); /* before the window is made */
        if (have_st && S_ISDIR(st.st_mode)) {
            snprintf(in->err, sizeof in->err, "%s: is a directory (expected a trace file)", path);
            close(in->fd);
            in->fd = -1;
            return 3;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        if (from && lseek(in->fd, (off_t)from, SEEK_SET) < 0) {
            snprintf(in->err, sizeof in->err, "%s: cannot seek: %s", path, strerror(errno));
            return 3;
        }
    }
    in->base = in->progress_at = from;
    in->stop_at = to;
    if (grow(in, WINDOW0) != 0)
        return 3;
    in->buf = aligned_front(in);
    /* Sniff the magic bytes from the first read, made straight into the
     * window: plain input keeps it there, gzip input moves it to zin. */
    if (from == 0) {
        size_t want = ZIN_CHUNK < in->cap ? ZIN_CHUNK : in->cap;
        if (in->stop_at && want > in->stop_at)
            want = (size_t)in->stop_at;
        ssize_t r = read_full(in->fd, in->buf, want);
        if (r < 0) {
            snprintf(in->err, sizeof in->err, "%s: read error at byte 0: %s", path, strerror(errno));
            return 3;
        }
        if (r >= 2 && (unsigned char)in->buf[0] == 0x1f && (unsigned char)in->buf[1] == 0x8b) {
            if (mem_bytes(in->cap) == ZIN_CHUNK) {
                /* the window's block becomes zin as it is: no fresh memory
                 * to touch before inflating starts (a window is made when
                 * one is needed) */
                memmove(in->mem, in->buf, (size_t)r);
                in->zin = (unsigned char *)in->mem;
                in->mem = in->buf = NULL;
                in->cap = 0;
            } else {
                in->zin = stint_hmem_alloc(ZIN_CHUNK);
                if (!in->zin) {
                    snprintf(in->err, sizeof in->err, "%s: out of memory", path);
                    return 3;
                }
                memcpy(in->zin, in->buf, (size_t)r);
                memset(in->buf, 0, STINT_JSON_PAD);
            }
            in->zin_len = (size_t)r;
            in->raw_read = in->zraw = (uint64_t)r;
            in->zin_eof = r == 0;
            in->gz = 1;
#if defined(STINT_HAVE_ISAL)
            struct inflate_state *st = calloc(1, sizeof *st);
            if (!st)
                return 3;
            isal_inflate_init(st);
            st->crc_flag = ISAL_DEFLATE; /* (the gzip wrapper is read apart: inflate_into) */
            in->z = st;
#elif defined(STINT_HAVE_ZLIB)
            z_stream *zs = calloc(1, sizeof *zs);
            if (!zs || inflateInit2(zs, 16 + MAX_WBITS) != Z_OK)
                return 3;
            in->z = zs;
#endif
        } else {
            /* plain: the sniffed bytes are the start of the data */
            in->len = (size_t)r;
            if ((size_t)r < want) /* stdin and files alike: read_full stops short only at the end */
                in->eof = 1;
            if (in->stop_at && in->len >= in->stop_at) { /* the first part of a split file */
                in->len = (size_t)in->stop_at;
                in->eof = 1;
            }
            memset(in->buf + in->len, 0, STINT_JSON_PAD);
            return 0;
        }
    } else {
        memset(in->buf, 0, STINT_JSON_PAD);
    }
    if (in->gz && !no_pipe && !getenv("STINT_NO_INFLATE_THREAD"))
        pipe_start(in); /* on failure, inflate on this thread */
    if (!in->pipe && !in->mem) { /* inflating here: into a window */
        if (grow(in, WINDOW0) != 0)
            return 3;
        in->buf = aligned_front(in);
        memset(in->buf, 0, STINT_JSON_PAD);
    }
    if (stint_input_fill(in) < 0)
        return stint_input_errcode(in);
    return 0;
}

int stint_input_open(struct stint_input *in, const char *path) { return open_common(in, path, 0, 0, 0, 0); }

int stint_input_open_range(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    return open_common(in, path, from, to, 0, 0);
}

int stint_input_open_gz_part(struct stint_input *in, const char *path, uint64_t from, uint64_t to)
{
    int rc = open_common(in, path, 0, 0, 1, to);
    if (rc != 0)
        return rc;
    if (!in->gz) {
        snprintf(in->err, sizeof in->err, "%s: not a gzip file any more", path);
        return 3;
    }
    if (!from)
        return 0;
    /* inflate and drop everything before from, then up to the first cut */
    int comma = 0;
    for (;;) {
        if (in->base + in->len > from) {
            size_t at = in->base >= from ? 0 : (size_t)(from - in->base);
            long k = stint_i_cut_scan(in->buf + at, in->len - at, &comma);
            if (k >= 0) {
                stint_input_consume(in, at + (size_t)k);
                in->progress_at = in->base;
                return 0;
            }
        }
        stint_input_consume(in, in->len);
        int r = stint_input_fill(in);
        if (r < 0)
            return stint_input_errcode(in);
        if (r == 0) {
            in->no_cut = 1;
            return 0;
        }
    }
}

void stint_input_close(struct stint_input *in)
{
    pipe_stop(in);
    if (in->fd > 0)
        close(in->fd);
    in->fd = -1;
#if defined(STINT_HAVE_ISAL)
    free(in->z);
#elif defined(STINT_HAVE_ZLIB)
    if (in->z) {
        inflateEnd(in->z);
        free(in->z);
    }
#endif
    in->z = NULL;
    stint_hmem_free(in->zin, ZIN_CHUNK);
    in->zin = NULL;
    stint_hmem_free(in->mem, mem_bytes(in->cap));
    in->mem = NULL;
    in->buf = NULL;
    in->len = in->cap = 0;
}
