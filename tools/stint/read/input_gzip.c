/* SPDX-License-Identifier: MIT */
/*
 * input_gzip.c - gzip members inflated on the calling thread: ISA-L (raw
 * deflate, with stint reading each member's header and trailer), or zlib.
 *
 * Invariants: compressed input is read ZIN_CHUNK bytes at a time into zin
 * (or taken from the inflate thread's read-ahead); a member's size is
 * checked against its trailer here and its CRC-32 here too, unless the
 * caller takes the member ends (struct gz_mends) to check where it takes
 * the output; a stream cut short or a bad member is an error with the
 * compressed byte it was found at (in->corrupt set).
 */
#include "read/input_int.h"

/* Raw (compressed) bytes for the decompressor: read here, or, on the
 * inflate thread, the chunk the reader read ahead while it waited. */
static int zin_fill(struct stint_input *in)
{
    if (in->zin_pos < in->zin_len || in->zin_eof)
        return 0;
    ssize_t r = in->pipe ? stint_i_input_pipe_zin_read(in) : stint_i_input_read_full(in->fd, in->zin, ZIN_CHUNK);
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


#if defined(STINT_HAVE_ISAL) || defined(STINT_HAVE_ZLIB)
/* The compressed offset of the next byte the decompressor is to take. */
static uint64_t zpos(const struct stint_input *in) { return in->zraw - (in->zin_len - in->zin_pos); }

/* Bad data at the current compressed byte: the message (what), -1. */
static int gz_bad_at(struct stint_input *in, const char *what)
{
    snprintf(in->err, sizeof in->err, "%s: compressed byte %llu: %s", in->path, (unsigned long long)zpos(in), what);
    in->corrupt = 1;
    return -1;
}

/* What follows a member's end (in->z_done), from the next compressed byte:
 * 1 when another member (1f 8b) starts there; 0 when this call is to stop:
 * zero padding (as gzip takes it, zeros may end a file: in->z_pad set) read
 * to the end of the file, or bytes that are neither met with produced above
 * 0 (the caller hands over what it inflated first and the next call finds
 * the same byte); -1 on such bytes otherwise, or on a read error (in->err
 * says what). */
static int after_member(struct stint_input *in, size_t produced)
{
    for (;;) {
        size_t avail = in->zin_len - in->zin_pos;
        if (!avail) { /* (the padding took all that zin held) */
            if (zin_fill(in) != 0)
                return -1;
            if (in->zin_pos == in->zin_len)
                return 0; /* the end of the file */
            continue;
        }
        const unsigned char *b = in->zin + in->zin_pos;
        if (in->z_pad || b[0] == 0) {
            size_t k = 0;
            while (k < avail && b[k] == 0)
                k++;
            in->zin_pos += k;
            in->z_pad = 1;
            if (k == avail)
                continue;
            if (produced > 0)
                return 0;
            return gz_bad_at(in, "a nonzero byte in the zero padding after the last gzip member "
                                 "(expected zeros to the end of the file)");
        }
        if (b[0] == 0x1f && (avail < 2 || b[1] == 0x8b))
            return 1;
        if (produced > 0)
            return 0;
        return gz_bad_at(in, "the data after the gzip member that ends here is not a gzip member "
                             "(expected another member, which starts with 1f 8b, or the end of the file)");
    }
}
#endif

#if defined(STINT_HAVE_ISAL)
/* The message for a member whose output's CRC-32 got is not its trailer's
 * want; -1. */
int stint_i_gz_crc_mismatch(struct stint_input *in, uint64_t zat, uint32_t got, uint32_t want)
{
    snprintf(in->err, sizeof in->err,
             "%s: compressed byte %llu: corrupt gzip data (CRC-32 of a member's inflated bytes is %08x, "
             "its trailer says %08x)",
             in->path, (unsigned long long)zat, (unsigned)got, (unsigned)want);
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
uint32_t stint_i_gz_crc_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
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
    return got == crc ? 0 : stint_i_gz_crc_mismatch(in, zat, got, crc);
}

/* Inflates into dst[0..room) with ISA-L, member after member. Checks each
 * member's CRC-32 here when me is NULL, else records where each (but an
 * empty one) ends in me for the reader, checking here those that begin
 * once me is full (struct gz_mends). A member's trailer is read before
 * returning unless the input ends. Returns bytes produced (0 at the end of
 * the stream), -1 on error. */
ssize_t stint_i_gz_inflate(struct stint_input *in, char *dst, size_t room, struct gz_mends *me)
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
                int a = after_member(in, produced);
                if (a <= 0) {
                    if (a < 0)
                        return -1;
                    break;
                }
                avail = in->zin_len - in->zin_pos;
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
ssize_t stint_i_gz_inflate(struct stint_input *in, char *dst, size_t room, struct gz_mends *me)
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
        if (in->z_done) { /* after a member: another one, zero padding (as gzip accepts), or the end */
            int a = after_member(in, produced);
            if (a <= 0) {
                if (a < 0)
                    return -1;
                break;
            }
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
