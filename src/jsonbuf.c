/* SPDX-License-Identifier: MIT */
/*
 * jsonbuf.c - JSON text building for the session outputs (see jsonbuf.h).
 *
 * Invariants: the buffer never holds a partial escape sequence (a fixed
 * buffer that cannot take a whole piece stops and sets `full`); numbers are
 * formatted from integers, never through a double, except doubles
 * themselves.
 */
#include "jsonbuf.h"

#include "internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stint_i_jb_init(stint_i_jbuf *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    if (cap) {
        b->p = stint_i_alloc(cap);
        if (b->p)
            b->cap = cap;
        else
            b->nomem = 1;
    }
}

void stint_i_jb_fixed(stint_i_jbuf *b, char *mem, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->p = mem;
    b->cap = cap;
    b->fixed = 1;
}

void stint_i_jb_free(stint_i_jbuf *b)
{
    if (!b->fixed)
        stint_i_free(b->p, b->cap);
    b->p = NULL;
    b->cap = b->len = 0;
}

void stint_i_jb_reset(stint_i_jbuf *b)
{
    b->len = 0;
    b->full = 0;
    b->nomem = 0;
}

int stint_i_jb_ok(const stint_i_jbuf *b) { return !b->full && !b->nomem; }

/* Makes room for n more bytes; 0 when there is none (flags set). */
static int reserve(stint_i_jbuf *b, size_t n)
{
    if (b->full || b->nomem)
        return 0;
    if (b->len + n <= b->cap)
        return 1;
    if (b->fixed) {
        b->full = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    char *p = stint_i_alloc(cap);
    if (!p) {
        b->nomem = 1;
        return 0;
    }
    if (b->len)
        memcpy(p, b->p, b->len);
    stint_i_free(b->p, b->cap);
    b->p = p;
    b->cap = cap;
    return 1;
}

void stint_i_jb_raw_slow(stint_i_jbuf *b, const char *s, size_t n)
{
    if (n && reserve(b, n)) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

void stint_i_jb_lit(stint_i_jbuf *b, const char *s) { stint_i_jb_raw(b, s, strlen(s)); }


/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. Rejects
 * overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

void stint_i_jb_str(stint_i_jbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t start = b->len;
    stint_i_jb_char(b, '"');
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        /* copy the longest run of bytes that need no escape in one go */
        while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            stint_i_jb_raw(b, s + i, run - i);
            i = run;
            continue;
        }
        unsigned c = u[i];
        if (c >= 0x80) {
            size_t l = utf8_len(u + i, n - i);
            if (l) {
                stint_i_jb_raw(b, s + i, l);
                i += l;
            } else {
                stint_i_jb_raw(b, "\xEF\xBF\xBD", 3);
                b->bad_utf8++;
                i++;
            }
            continue;
        }
        char esc[6];
        size_t el = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            el = 6;
        }
        stint_i_jb_raw(b, esc, el);
        i++;
    }
    stint_i_jb_char(b, '"');
    if (b->full) /* never leave half a string in a fixed buffer */
        b->len = start < b->len ? start : b->len;
}

void stint_i_jb_cstr(stint_i_jbuf *b, const char *s)
{
    if (!s)
        s = "";
    stint_i_jb_str(b, s, strlen(s));
}

size_t stint_i_fmt_u64(char *out, uint64_t v)
{
    /* two digits per division: integer formatting is the encoders' main cost */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char tmp[24];
    size_t n = sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--n] = pairs[2 * r + 1];
        tmp[--n] = pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--n] = pairs[2 * v + 1];
        tmp[--n] = pairs[2 * v];
    } else {
        tmp[--n] = (char)('0' + v);
    }
    size_t len = sizeof tmp - n;
    for (size_t i = 0; i < len; i++)
        out[i] = tmp[n + i];
    return len;
}

void stint_i_jb_u64(stint_i_jbuf *b, uint64_t v)
{
    char tmp[24];
    stint_i_jb_raw(b, tmp, stint_i_fmt_u64(tmp, v));
}

void stint_i_jb_i64(stint_i_jbuf *b, int64_t v)
{
    if (v < 0) {
        stint_i_jb_char(b, '-');
        stint_i_jb_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        stint_i_jb_u64(b, (uint64_t)v);
    }
}

size_t stint_i_fmt_f64(char *out, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) { /* (in the locale's form: strtod reads that one) */
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* the locale's decimal point (one or more bytes, none of them a digit,
     * sign or exponent letter) becomes '.' */
    size_t n = 0;
    int dot = 0;
    for (const char *c = tmp; *c; c++) {
        if ((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == 'e' || *c == 'E') {
            out[n++] = *c;
            dot = 0;
        } else if (!dot) {
            out[n++] = '.';
            dot = 1;
        }
    }
    out[n] = '\0';
    return n;
}

void stint_i_jb_f64(stint_i_jbuf *b, double v)
{
    if (!isfinite(v)) {
        STINT_I_JB_LIT(b, "null");
        return;
    }
    char tmp[40];
    size_t n = stint_i_fmt_f64(tmp, v);
    stint_i_jb_raw(b, tmp, n);
}

void stint_i_jb_us3(stint_i_jbuf *b, int64_t ns)
{
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char tmp[32];
    size_t n = 0;
    if (ns < 0)
        tmp[n++] = '-';
    n += stint_i_fmt_u64(tmp + n, mag / 1000);
    unsigned frac = (unsigned)(mag % 1000);
    tmp[n++] = '.';
    tmp[n++] = (char)('0' + frac / 100);
    tmp[n++] = (char)('0' + (frac / 10) % 10);
    tmp[n++] = (char)('0' + frac % 10);
    stint_i_jb_raw(b, tmp, n);
}

void stint_i_jb_hex64(stint_i_jbuf *b, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[20];
    tmp[0] = '"';
    tmp[1] = '0';
    tmp[2] = 'x';
    for (int i = 0; i < 16; i++)
        tmp[3 + i] = hex[(v >> (60 - 4 * i)) & 15];
    tmp[19] = '"';
    stint_i_jb_raw(b, tmp, sizeof tmp);
}

void stint_i_sigpipe_block(stint_i_sigpipe *g)
{
    sigset_t pending;
    sigemptyset(&g->set);
    sigaddset(&g->set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &g->set, &g->old);
    sigemptyset(&pending);
    sigpending(&pending);
    g->was_pending = sigismember(&pending, SIGPIPE) == 1;
}

void stint_i_sigpipe_restore(stint_i_sigpipe *g, int got_epipe)
{
    if (got_epipe && !g->was_pending) {
        /* the SIGPIPE our write raised is pending on this thread: take it */
        struct timespec zero = {0, 0};
        int saved = errno;
        while (sigtimedwait(&g->set, NULL, &zero) < 0 && errno == EINTR)
            ;
        errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

int stint_i_key_in(const char *k, size_t n, const char *const *keys, size_t nkeys)
{
    for (size_t i = 0; i < nkeys; i++)
        if (strlen(keys[i]) == n && !memcmp(keys[i], k, n))
            return 1;
    return 0;
}

_Atomic int64_t stint_i_write_deadline_ns;

int stint_i_write_wait_ms(void)
{
    int64_t dl = atomic_load_explicit(&stint_i_write_deadline_ns, memory_order_relaxed);
    if (!dl)
        return STINT_I_WRITE_WAIT_MS;
    int64_t left = (dl - stint_i_mono_ns()) / 1000000;
    return left <= 0 ? 0 : left < STINT_I_WRITE_WAIT_MS ? (int)left : STINT_I_WRITE_WAIT_MS;
}

int stint_i_write_all(int fd, const char *p, size_t n)
{
    stint_i_sigpipe g;
    int err = 0;
    stint_i_sigpipe_block(&g);
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                /* a non-blocking descriptor (a stderr pipe a parent made
                 * so): wait for room as a blocking one would, but give up
                 * after STINT_I_WRITE_WAIT_MS without any (the output was
                 * stopped for good at the first EAGAIN) */
                struct pollfd pf = {.fd = fd, .events = POLLOUT};
                int r = poll(&pf, 1, stint_i_write_wait_ms());
                if (r > 0 || (r < 0 && errno == EINTR))
                    continue;
                err = EAGAIN;
                break;
            }
            err = errno ? errno : EIO;
            break;
        }
        if (w == 0) {
            err = EIO;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    stint_i_sigpipe_restore(&g, err == EPIPE);
    return err;
}
