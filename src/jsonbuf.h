/* SPDX-License-Identifier: MIT */
/*
 * jsonbuf.h - a small JSON text builder shared by the session outputs
 * (session.c, chrome_sink.c, ring.c).
 *
 * A buffer either grows through the library allocator or is fixed (a ring
 * slot): a fixed buffer that runs out of room stops appending and sets
 * `full`, so a caller can tell a cut text from a whole one. A growable
 * buffer that fails to grow sets `nomem`. Either flag makes the content
 * unusable as JSON; callers check them after building a record.
 */
#ifndef STINT_JSONBUF_H
#define STINT_JSONBUF_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>

typedef struct stint_i_jbuf {
    char *p;
    size_t len;
    size_t cap;
    int fixed; /* memory is the caller's; never grows */
    int full;  /* fixed buffer ran out of room */
    int nomem; /* growth failed */
    uint64_t bad_utf8; /* bytes replaced by U+FFFD so far */
} stint_i_jbuf;

/* A growable buffer starting with cap bytes (0: nothing allocated yet). */
void stint_i_jb_init(stint_i_jbuf *b, size_t cap);
/* A fixed buffer over mem[0..cap). */
void stint_i_jb_fixed(stint_i_jbuf *b, char *mem, size_t cap);
void stint_i_jb_free(stint_i_jbuf *b);
/* Empties the buffer (keeps the memory, clears full/nomem). */
void stint_i_jb_reset(stint_i_jbuf *b);
/* Nonzero when the content is whole (neither full nor nomem). */
int stint_i_jb_ok(const stint_i_jbuf *b);

/* Slow path of stint_i_jb_raw: grows (or flags) and appends. */
void stint_i_jb_raw_slow(stint_i_jbuf *b, const char *s, size_t n);

/* Appends n raw bytes. Inline: the encoders call it for every small piece. */
static inline void stint_i_jb_raw(stint_i_jbuf *b, const char *s, size_t n)
{
    if (n <= b->cap - b->len) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    } else {
        stint_i_jb_raw_slow(b, s, n);
    }
}

/* Appends a string literal (its length is known at compile time). */
#define STINT_I_JB_LIT(b, lit) stint_i_jb_raw((b), "" lit, sizeof(lit) - 1)

void stint_i_jb_lit(stint_i_jbuf *b, const char *s); /* raw NUL-terminated text */

static inline void stint_i_jb_char(stint_i_jbuf *b, char c)
{
    if (b->len < b->cap)
        b->p[b->len++] = c;
    else
        stint_i_jb_raw_slow(b, &c, 1);
}
/* A quoted, escaped JSON string of s[0..n); invalid UTF-8 -> U+FFFD each byte. */
void stint_i_jb_str(stint_i_jbuf *b, const char *s, size_t n);
void stint_i_jb_cstr(stint_i_jbuf *b, const char *s); /* NULL -> "" */
void stint_i_jb_i64(stint_i_jbuf *b, int64_t v);
void stint_i_jb_u64(stint_i_jbuf *b, uint64_t v);
/* A finite double as stint_i_fmt_f64 writes it (non-finite -> null). */
void stint_i_jb_f64(stint_i_jbuf *b, double v);
/* ns as microseconds with exactly three decimals ("-0.001", "12.345"). */
void stint_i_jb_us3(stint_i_jbuf *b, int64_t ns);
/* "0x" and 16 lower-case hex digits, quoted. */
void stint_i_jb_hex64(stint_i_jbuf *b, uint64_t v);

/* Formats v in decimal into out (>= 21 bytes, not NUL-terminated); returns
 * the length. Async-signal-safe (the crash dump uses it). */
size_t stint_i_fmt_u64(char *out, uint64_t v);

/* Formats the finite double v into out (>= 40 bytes, NUL-terminated) as the
 * shortest of %.15g..%.17g that reads back exactly (0.42, not
 * 0.41999999999999998), with '.' as the decimal point whatever the
 * program's locale (a de_DE program would get "0,42": no JSON number, and
 * no marker value a reader takes); returns the length. */
size_t stint_i_fmt_f64(char *out, double v);

/* Sinks write a user attribute named like one of their own keys as
 * STINT_I_ATTR_PREFIX "<key>", so that the library's value stays where
 * readers look for it. Whether k[0..n) is one of the nkeys strings of keys. */
#define STINT_I_ATTR_PREFIX "attr."
#define STINT_I_ATTR_PREFIX_LEN 5
int stint_i_key_in(const char *k, size_t n, const char *const *keys, size_t nkeys);

/* write(2) of all n bytes, retrying on EINTR and short writes, and on a
 * non-blocking fd's EAGAIN once poll(2) finds room (EAGAIN after
 * STINT_I_WRITE_WAIT_MS with none). Returns 0 or the errno of the failure.
 * Async-signal-safe. A reader that went away gives EPIPE, never a SIGPIPE
 * (whose default action would kill the program). */
#define STINT_I_WRITE_WAIT_MS 10000
int stint_i_write_all(int fd, const char *p, size_t n);

/* How long a write may wait for room now: STINT_I_WRITE_WAIT_MS, or less
 * once the exit handler has set its deadline (CLOCK_MONOTONIC ns; the whole
 * handler keeps to STINT_EXIT_FLUSH_MS). */
extern _Atomic int64_t stint_i_write_deadline_ns;
int stint_i_write_wait_ms(void);

/* Keeps SIGPIPE from reaching the program around the calling thread's
 * writes: block() masks it for this thread; restore(got_epipe) consumes the
 * one a write raised (unless one was already pending before) and restores
 * the mask. */
typedef struct stint_i_sigpipe {
    sigset_t set, old;
    int was_pending;
} stint_i_sigpipe;
void stint_i_sigpipe_block(stint_i_sigpipe *g);
void stint_i_sigpipe_restore(stint_i_sigpipe *g, int got_epipe);

/* ---- Chrome trace events shared by chrome_sink.c and ring.c ---------------- */
struct stint_i_event;

/* Appends one X event object for a closed span: name, cat "stint", pid,
 * tid (tid_override when >= 0), ts = ev->ts_ns - origin_ns and dur as
 * microseconds with three decimals, and args (inv, hid, depth, typed and
 * static attributes) when with_args is set. Written by chrome_sink.c. */
void stint_i_chrome_x(stint_i_jbuf *b, const struct stint_i_event *ev, int64_t origin_ns, int64_t tid_override,
                      int with_args);

/* Appends an M event {"ph":"M","name":what,"pid":..,"tid":..,"args":{argkey:value}}
 * with a string value (str != NULL) or an integer one. */
void stint_i_chrome_meta(stint_i_jbuf *b, const char *what, int64_t pid, int64_t tid, const char *argkey,
                         const char *str, int64_t num);

#endif
