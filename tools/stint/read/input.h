/* SPDX-License-Identifier: MIT */
/*
 * input.h - streaming input: a file or stdin ("-"), plain or gzip (detected
 * by the magic bytes 1f 8b, not by the name), read through one reused buffer.
 *
 * The reader owns a window buf[0..len) of decompressed bytes; it consumes a
 * prefix with stint_input_consume() (O(1): the window start moves) and calls
 * stint_input_fill() to keep the unconsumed tail and read more after it. The
 * window always has STINT_JSON_PAD zero bytes after len (for the JSON
 * tokenizer); buf moves, so never keep a pointer into it across a fill.
 * Buffers are allocated once and reused: plain input is read into one window
 * (1 MiB reads: 1,000 syscalls per GB cost ~1 ms, and the window touches a
 * quarter of the pages a 4 MiB one would) that grows only when one unconsumed piece (one event) fills
 * it, up to STINT_INPUT_MAX_WINDOW; beyond that fill() fails with a clear
 * message, so memory stays bounded whatever the input. Gzip input is
 * inflated on a second thread straight into a small ring of blocks, and the
 * window is the block itself (only the previous window's tail is copied in
 * front of it), so the inflated bytes are never copied.
 */
#ifndef STINT_CLI_INPUT_H
#define STINT_CLI_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STINT_INPUT_CHUNK ((size_t)1 << 20)
#define STINT_INPUT_MAX_WINDOW ((size_t)64 << 20)
#define STINT_INPUT_ALIGN ((size_t)64) /* see aligned_front() in input.c */

struct stint_input {
    const char *path;     /* as given ("-" for stdin) */
    int fd;
    int gz;               /* gzip stream */
    int eof;              /* no more data will come: buf holds the rest */
    char *buf;            /* the window: inside mem, or inside a block of the gzip ring */
    size_t len;           /* valid bytes in buf */
    char *mem;            /* the owned window allocation: stint_hmem_alloc (hmem.h) of cap + STINT_INPUT_ALIGN + STINT_JSON_PAD bytes */
    size_t cap;           /* mem's size, excluding padding */
    uint64_t base;        /* decompressed offset of buf[0] */
    uint64_t progress_at; /* base when progress last counted this input's bytes (split reads) */
    uint64_t file_size;   /* for plain regular files, else 0 */
    uint64_t raw_read;    /* compressed bytes behind the window so far (the reader's view) */
    uint64_t zraw;        /* compressed bytes read by the decompressing side (its own) */
    char err[512];        /* message on failure */
    void *z;              /* decompressor state */
    unsigned char *zin;   /* compressed input buffer */
    size_t zin_len, zin_pos;
    int zin_eof;
    int z_done;           /* the current gzip member ended */
    int z_pad;            /* zero bytes follow the last member (padding, as gzip accepts): only zeros may follow */
    /* ISA-L: where the member is (input.c, inflate_into) and its check */
    int z_phase;          /* 0 its gzip header, 1 its deflate data, 2 its trailer */
    unsigned char z_trl[32]; /* the trailer's bytes gathered so far */
    unsigned z_trl_n;
    uint32_t z_crc;       /* CRC-32 of the member's output so far, where it is checked inline */
    uint64_t z_msize;     /* the member's output bytes so far */
    uint32_t rd_crc;      /* the reader's CRC-32 of the member's output it took so far (gzip pipe) */
    uint64_t stop_at;     /* plain files: stop at this offset (0 = none), for split parsing */
    uint64_t cut_at;      /* gzip parts: stop at the first cut (stint_i_cut_scan) at or after this offset (0 = none) */
    int cut_comma;        /* the scan's state at the window's end */
    int no_cut;           /* gzip parts: no cut at or after the part's start: the part is empty */
    int cut_missed;       /* gzip parts: the stream ended before the cut at or after cut_at */
    void *pipe;           /* gzip: the inflating thread (input.c), or NULL */
    int corrupt;          /* the error is bad compressed data (exit 1), not I/O (exit 3) */
    /* Args already skipped by the inflate thread (gzip pipe, input.c) in the
     * block the window ends with: values starting at hint_at + hint_off[i]
     * (hint_at: the block's first byte, as an input offset), hint_len[i]
     * bytes long, ascending; hint_n is 0 when there are none. Valid until
     * the next fill(). */
    const uint32_t *hint_off, *hint_len;
    size_t hint_n;
    uint64_t hint_at;
};

/* The test knob STINT_TEST_EIO_AT=N: 1 (errno EIO) when a read of n bytes
 * at fd's offset would pass file offset N, as a failing disk's read would
 * (test_read_error_partial.sh); 0 when unset, or for a descriptor that does
 * not seek. The readers and the marker parser's fd loop ask before each read. */
int stint_i_test_eio(int fd, size_t n);

/* One read() of up to n bytes into dst, retried when a signal interrupts
 * it: the bytes read (0 at the end of input), or -1 with errno. */
ssize_t stint_i_read_some(int fd, void *dst, size_t n);

/* Opens path ("-" = stdin) and reads the first chunk. Returns 0, or 3 (I/O
 * error: err filled, naming the file). Out of memory ends the process
 * (base/xalloc.h: exit STINT_EXIT_NOMEM), here and in stint_input_fill. */
int stint_input_open(struct stint_input *in, const char *path);
/* Opens a byte range [from, to) of a plain regular file (for parallel parsing). */
int stint_input_open_range(struct stint_input *in, const char *path, uint64_t from, uint64_t to);
/* Opens a part of a gzip file (for parallel parsing), inflated on the calling
 * thread: from the first cut at or after decompressed offset from (0: the
 * start; everything before it is inflated and dropped) to the first cut at or
 * after to (0: the end). When the stream has no cut at or after from, no_cut
 * is set and the window is empty. Returns as stint_input_open (and 1 for bad
 * compressed data before the part's start). */
int stint_input_open_gz_part(struct stint_input *in, const char *path, uint64_t from, uint64_t to);
/* The event-boundary guess both ways of splitting a file use: the index of
 * the first '{' in p[0..n) that follows a ',' (blanks between) met after the
 * scan began, or -1. *comma carries whether the scan ended after such a ','
 * (start at 0, and pass the same int to the next piece). Whether a guess is
 * a real boundary (and not inside a string) is for the part before it to
 * check: it must arrive there right after an event's ','. */
long stint_i_cut_scan(const char *p, size_t n, int *comma);
/* The share of parsing in inflating plus parsing a byte of gzip input
 * (measured here; it sizes the parts of a gzip file read on several threads). */
double stint_i_gz_parse_share(void);
/* Drops the first n bytes of the window. */
void stint_input_consume(struct stint_input *in, size_t n);
/* Reads more data after the unconsumed bytes. Returns 1 when data was added,
 * 0 at end of input (eof set), -1 on an I/O or decompression error (err
 * filled; the exit code is 3 for I/O, 1 for corrupt compressed data, see
 * stint_input_errcode). */
int stint_input_fill(struct stint_input *in);
int stint_input_errcode(const struct stint_input *in);
void stint_input_close(struct stint_input *in);

#endif
