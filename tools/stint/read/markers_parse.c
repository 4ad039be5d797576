/* SPDX-License-Identifier: MIT */
/*
 * markers_parse.c - the streaming `[STRACE]` record parser (see markers_parse.h).
 *
 * The parser holds one growable buffer. Bytes are appended after what is left
 * of the previous round; everything up to the last '\n' is complete lines and
 * is parsed at once, the rest (one partial line) is moved to the front and
 * waits. So a record is never split across calls, a CRLF pair is never split
 * (only '\n' ends a round), and the buffer is as large as the longest line plus
 * one chunk. Records are found by a 16-byte-wide scan for "[STRACE]" (SSE2
 * where available, memmem otherwise); only the bytes of a record and of its
 * attrs are looked at one by one. Nothing is allocated per line or per record.
 */
#include "read/markers_parse.h"
#include "read/input.h"
#include "base/tsparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct stint_mparse {
    struct stint_mparse_options opt;
    char *buf;
    size_t cap;          /* bytes allocated */
    size_t len;          /* bytes held (a partial line) */
    uint64_t base_off;   /* stream offset of buf[0] */
    uint64_t base_line;  /* newlines seen before buf[0] (count_lines only) */
    size_t line_pos;     /* buf position up to which newlines are counted */
    uint64_t line_count; /* newlines before line_pos */
    struct stint_mparse_stats st;
    int stop_rc;         /* sticky: a callback's stop value or -1 */
    int finished;
};

static const char TAG[] = "[STRACE]";
enum { TAG_LEN = 8 };
static const char LOSS_TAG[] = "[STINT]";
enum { LOSS_TAG_LEN = 7 };

/* Byte classes, one table lookup per byte in the hot loops. */
enum {
    C_BLANK = 1, /* Python's `\s` minus the line breaks, ASCII part */
    C_SPACE = 2, /* blank, '\n' or '\r': ends a name or an attrs token */
    C_DIGIT = 4,
    C_HEX = 8,
    C_STOP = 16, /* ends an attrs scan: '\n', '\r', '[' */
};
/* cls[c]: the classes of byte c (generated from the rules above). */
static const unsigned char cls[256] = {
     0,  0,  0,  0,  0,  0,  0,  0,  0,  3, 18,  3,  3, 18,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  3,  3,  3,  3,
     3,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12,  0,  0,  0,  0,  0,  0,
     0,  8,  8,  8,  8,  8,  8,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 16,  0,  0,  0,  0,
     0,  8,  8,  8,  8,  8,  8,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
};

#define IS(c, k) (cls[(unsigned char)(c)] & (k))

static int is_blank(unsigned char c)
{
    return IS(c, C_BLANK);
}

static int hex_val(unsigned char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Whether the tag at t (a "[ST" with e - t >= 3) is "[STRACE]" (1), or, when
 * loss is set, "[STINT]" (2); else 0. */
static inline int tag_at(const char *t, const char *e, int loss)
{
    if (e - t >= TAG_LEN && !memcmp(t, TAG, TAG_LEN))
        return 1;
    return loss && e - t >= LOSS_TAG_LEN && !memcmp(t, LOSS_TAG, LOSS_TAG_LEN) ? 2 : 0;
}

/* First "[STRACE]" in [p, e), or, when loss is set, first "[STRACE]" or
 * "[STINT]"; NULL when there is none. Candidates are the places where "[ST"
 * starts, 16 at a time; both tags begin so. */
static const char *find_tag(const char *p, const char *e, int loss)
{
#if defined(__SSE2__)
    const __m128i lb = _mm_set1_epi8('['), s = _mm_set1_epi8('S'), t = _mm_set1_epi8('T');
    while (e - p >= 16 + TAG_LEN) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 2));
        __m128i m = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, lb), _mm_cmpeq_epi8(b, s)),
                                  _mm_cmpeq_epi8(c, t));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        while (bits) {
            int i = __builtin_ctz(bits);
            if (tag_at(p + i, e, loss))
                return p + i;
            bits &= bits - 1;
        }
        p += 16;
    }
#endif
    while (e - p >= 3 && (p = memchr(p, '[', (size_t)(e - p - 2))) != NULL) {
        if (p[1] == 'S' && p[2] == 'T' && tag_at(p, e, loss))
            return p;
        p++;
    }
    return NULL;
}

/* Newlines in [p->line_pos, pos), added to the running count; returns the
 * 1-based line of pos. Only called with count_lines. */
static uint64_t line_of(struct stint_mparse *p, size_t pos)
{
    const char *q = p->buf + p->line_pos, *e = p->buf + pos;
    while (q < e && (q = memchr(q, '\n', (size_t)(e - q))) != NULL) {
        p->line_count++;
        q++;
    }
    p->line_pos = pos;
    return p->base_line + p->line_count + 1;
}

/* Skips one or more blanks; NULL when there is none. The common case, one
 * space, takes two tests. */
static inline __attribute__((always_inline)) const char *blanks(const char *q, const char *e)
{
    if (q + 1 < e && *q == ' ' && !IS(q[1], C_BLANK))
        return q + 1;
    if (q >= e || !IS(*q, C_BLANK))
        return NULL;
    while (q < e && IS(*q, C_BLANK))
        q++;
    return q;
}

/* Expects `k` (klen <= 8 bytes) at q; returns the byte after it, or NULL.
 * With 8 bytes of room this is one masked word compare (k is a literal, so
 * its word folds to a constant). */
static inline __attribute__((always_inline)) const char *key(const char *q, const char *e, const char *k,
                                                             size_t klen)
{
    if (e - q >= 8) {
        uint64_t kw = 0;
        memcpy(&kw, k, klen);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        kw = __builtin_bswap64(kw);
#endif
        uint64_t mask = klen >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * klen)) - 1);
        return ((stint_i_load_le64(q) ^ kw) & mask) ? NULL : q + klen;
    }
    if ((size_t)(e - q) < klen)
        return NULL;
    for (size_t i = 0; i < klen; i++)
        if (q[i] != k[i])
            return NULL;
    return q + klen;
}


/* Number of leading ASCII digits in the word (0..8). */
static inline __attribute__((always_inline)) unsigned digit_run(uint64_t w)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, z = 0x3030303030303030ull;
    uint64_t bad = ((w & hi) ^ z) | (((w + 0x0606060606060606ull) & hi) ^ z);
    return bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
}

/* The value of the first n (1..8) digits of the word. */
static inline __attribute__((always_inline)) uint64_t digits_value(uint64_t w, unsigned n)
{
    uint64_t v = (w - 0x3030303030303030ull) << (8 * (8 - n));
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
    return (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
}

static const char *decimal_slow(const char *q, const char *e, uint64_t max, uint64_t *out, int *ovf);

/* Reads decimal digits (at least one). *ovf is set when the value passes max.
 * With 16 bytes of room, up to 16 digits are read 8 at a time without a
 * branch per digit; longer numbers and the end of the buffer take the
 * careful path. */
static inline __attribute__((always_inline)) const char *decimal(const char *q, const char *e, uint64_t max,
                                                                 uint64_t *out, int *ovf)
{
    if (e - q >= 16) {
        uint64_t w = stint_i_load_le64(q);
        unsigned n = digit_run(w);
        if (n == 0)
            return NULL;
        if (n < 8) {
            *out = digits_value(w, n);
            if (*out > max)
                *ovf = 1;
            return q + n;
        }
        uint64_t w2 = stint_i_load_le64(q + 8);
        unsigned n2 = digit_run(w2);
        if (n2 < 8) {
            static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
            uint64_t v = digits_value(w, 8);
            if (n2)
                v = v * pow10[n2] + digits_value(w2, n2);
            if (v > max)
                *ovf = 1;
            *out = v;
            return q + 8 + n2;
        }
    }
    return decimal_slow(q, e, max, out, ovf);
}

/* The digit-by-digit path of decimal(). */
static __attribute__((noinline)) const char *decimal_slow(const char *q, const char *e, uint64_t max,
                                                          uint64_t *out, int *ovf)
{
    const char *s = q;
    while (q < e && *q == '0')
        q++;
    const char *sig = q;
    uint64_t v = 0;
    while (q < e && IS(*q, C_DIGIT) && q - sig < 19)
        v = v * 10 + (uint64_t)(*q++ - '0');
    while (q < e && IS(*q, C_DIGIT)) {
        unsigned d = (unsigned)(*q++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            *ovf = 1;
        else
            v = v * 10 + d;
    }
    if (q == s)
        return NULL;
    if (v > max)
        *ovf = 1;
    *out = v;
    return q;
}

/* The value of 8 hex digits (known to be hex), first digit most significant. */
static inline __attribute__((always_inline)) uint64_t hex8_value(uint64_t w)
{
    /* digits are 0x30-0x39; letters have bit 6 set and low nibble 1-6 */
    uint64_t nib = (w & 0x0F0F0F0F0F0F0F0Full) + 9 * ((w >> 6) & 0x0101010101010101ull);
    uint64_t t = ((nib << 4) + (nib >> 8)) & 0x00FF00FF00FF00FFull;
    uint64_t u = ((t << 8) | (t >> 16)) & 0x0000FFFF0000FFFFull;
    return ((u << 16) | (u >> 32)) & 0xFFFFFFFFull;
}

/* End of a name (`\S+`): the first blank or line break at or after q. */
static const char *name_end(const char *q, const char *e)
{
    while (e - q >= 8) {
        uint64_t w = stint_i_load_le64(q);
        /* bytes below 0x21: every blank and line break is one of them */
        uint64_t low = (w - 0x2121212121212121ull) & ~w & 0x8080808080808080ull;
        if (!low) {
            q += 8;
            continue;
        }
        q += __builtin_ctzll(low) / 8;
        if (IS(*q, C_SPACE))
            return q;
        q++;
    }
    while (q < e && !IS(*q, C_SPACE))
        q++;
    return q;
}

/* A log prefix glued in front of another record starts at '[' with a bracket
 * group directly followed by another '[' (`[ts][T0x..]`). */
static int is_log_prefix(const char *q, const char *e)
{
    const char *r = q + 1;
    while (r < e && *r != ']' && *r != '[' && *r != '\n' && *r != '\r')
        r++;
    return r > q + 1 && r + 1 < e && *r == ']' && r[1] == '[';
}

/* Whether a "[STRACE]" follows q on q's line. */
static int tag_later_on_line(const char *q, const char *e)
{
    const char *t = find_tag(q, e, 0);
    if (!t)
        return 0;
    for (const char *c = q; c < t; c++)
        if (*c == '\n' || *c == '\r')
            return 0;
    return 1;
}

/* End of the attrs that start at q: a line break, the next "[STRACE]", or a
 * log prefix glued in front of one: a bracket group directly followed by
 * another '[' with a "[STRACE]" after it on the line (a value such as
 * `x[0][1]` on a line with no later record is a value). A plain token glued
 * to the next "[STRACE]" without '=' in it (`INFO:root:[STRACE]`) is that
 * record's prefix, not an attribute. */
static const char *attrs_end(const char *q, const char *e)
{
    int tag_after = -1; /* unknown; 0 once a prefix-like group has none after it */
    const char *a = q;
    for (; q < e; q++) {
        if (!IS(*q, C_STOP))
            continue;
        if (*q != '[')
            return q;
        if (e - q >= TAG_LEN && !memcmp(q, TAG, TAG_LEN)) {
            const char *t = q;
            while (t > a && !IS(t[-1], C_SPACE) && t[-1] != '=')
                t--;
            if (t > a && t < q && IS(t[-1], C_SPACE)) /* a whole token without '=' before the tag */
                return t;
            return q;
        }
        if (tag_after != 0 && is_log_prefix(q, e)) {
            if (tag_after < 0)
                tag_after = tag_later_on_line(q, e);
            if (tag_after)
                return q;
        }
    }
    return q;
}

static int is_space(unsigned char c)
{
    return IS(c, C_SPACE);
}

/* The hex digits of hid= at q into r (value, whether more than 16 are
 * significant, the text): past them, or NULL when there are none. */
static inline __attribute__((always_inline)) const char *hid_field(const char *q, const char *e,
                                                                   struct stint_mparse_record *r)
{
    const char *h = q;
    uint64_t hv = 0;
    size_t sig = 0;
    int d;
#if defined(__SSE2__)
    if (e - q >= 16) {
        /* Classify 16 bytes at once; the digits are then a counted loop. */
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i l = _mm_or_si128(b, _mm_set1_epi8(0x20));
        __m128i dg = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)),
                                   _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), b));
        __m128i al = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
                                   _mm_cmpgt_epi8(_mm_set1_epi8('f' + 1), l));
        unsigned hexm = (unsigned)_mm_movemask_epi8(_mm_or_si128(dg, al));
        unsigned zm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('0')));
        unsigned run = (unsigned)__builtin_ctz(~hexm | 0x10000u);
        unsigned zeros = (unsigned)__builtin_ctz(~zm | 0x10000u);
        sig = run - (zeros < run ? zeros : run);
        if (run == 16) {
            hv = (hex8_value(stint_i_load_le64(q)) << 32) | hex8_value(stint_i_load_le64(q + 8));
        } else {
            for (unsigned i = 0; i < run; i++)
                hv = (hv << 4) | (uint64_t)hex_val((unsigned char)q[i]);
        }
        q += run;
    }
#endif
    while (q < e && IS(*q, C_HEX)) {
        d = hex_val((unsigned char)*q);
        if (sig || d)
            sig++;
        hv = (hv << 4) | (uint64_t)d;
        q++;
    }
    if (q == h)
        return NULL;
    r->hid = hv;
    r->hid_wide = sig > 16;
    r->hid_text.ptr = h;
    r->hid_text.len = (size_t)(q - h);
    return q;
}

/*
 * Parses the record whose "[STRACE]" is at `at`, within [at, e). Returns where
 * the search for the next record resumes. Delivers complete records and counts
 * heads, torn records and versions. Sets p->stop_rc when a callback stops.
 */
static const char *parse_record(struct stint_mparse *p, const char *at, const char *e)
{
    struct stint_mparse_record r;
    const char *q = blanks(at + TAG_LEN, e);
    int ovf = 0, v1 = 1; /* v1: the head says v=1 (or was cut before saying) */
    const char *why;

    /* The head: `[STRACE]\s+v=\d`. Anything else is not a record at all,
     * but for a head cut short: "[STRACE]", then blanks, "v" or "v=" at most,
     * then the end of the line or the input (a record torn in its head: a
     * writer killed there, a logger that cuts long lines). A bare "[STRACE]"
     * at a line's end is text that names the tag ("lines are tagged
     * [STRACE]"), not a record; at the input's end it is a cut one. */
    if (!q || !(q = key(q, e, "v=", 2)) || q >= e || !IS(*q, C_DIGIT)) {
        const char *c = at + TAG_LEN;
        while (c < e && is_blank((unsigned char)*c))
            c++;
        int has_v = 0;
        if (c < e && *c == 'v' && c > at + TAG_LEN) {
            c++;
            has_v = 1;
            if (c < e && *c == '=')
                c++;
        }
        if (c < e && (!has_v || (*c != '\n' && *c != '\r')))
            return at + TAG_LEN;
        p->st.heads++;
        why = "v=";
        goto torn;
    }
    p->st.heads++;
    r.v = 0;
    q = decimal(q, e, UINT64_MAX, &r.v, &ovf);
    v1 = r.v == 1 && !ovf;

#define FIELD_NUM(name, kstr, max, dst)                                                            \
    do {                                                                                           \
        why = kstr;                                                                                \
        if (!(q = blanks(q, e)) || !(q = key(q, e, kstr, sizeof kstr - 1)))                        \
            goto torn;                                                                             \
        uint64_t v_;                                                                               \
        if (!(q = decimal(q, e, max, &v_, &ovf)))                                                  \
            goto torn;                                                                             \
        dst = v_;                                                                                  \
    } while (0)

    uint64_t ts = 0, dur = 0;
    FIELD_NUM(pid, "pid=", UINT64_MAX, r.pid);
    FIELD_NUM(tid, "tid=", UINT64_MAX, r.tid);
    FIELD_NUM(inv, "inv=", UINT64_MAX, r.inv);

    why = "hid=";
    if (!(q = blanks(q, e)) || !(q = key(q, e, "hid=", 4)))
        goto torn;
    if (!(q = hid_field(q, e, &r)))
        goto torn;
    FIELD_NUM(depth, "depth=", UINT64_MAX, r.depth);

    why = "name=";
    if (!(q = blanks(q, e)) || !(q = key(q, e, "name=", 5)))
        goto torn;
    r.name.ptr = q;
    q = name_end(q, e);
    if (q == r.name.ptr)
        goto torn;
    r.name.len = (size_t)(q - r.name.ptr);

    FIELD_NUM(ts, "ts=", (uint64_t)STINT_TS_LIMIT, ts);
    FIELD_NUM(dur, "dur=", (uint64_t)STINT_TS_LIMIT, dur);
#undef FIELD_NUM
    if (!ovf && !stint_end_in_range((int64_t)ts, (int64_t)dur)) /* both <= 2^62 here: the sum fits */
        ovf = 1;

    if (ovf) {
        why = "a number that fits its field";
        p->st.overflow++;
        v1 = 1; /* (the v=1 layout, whole: torn by its numbers whatever its version) */
        goto torn;
    }
    r.ts_ns = (int64_t)ts;
    r.dur_ns = (int64_t)dur;
    {
        const char *dur_end = q, *a = q, *ae = attrs_end(q, e);
        while (a < ae && is_blank((unsigned char)*a))
            a++;
        const char *t = ae;
        while (t > a && is_blank((unsigned char)t[-1]))
            t--;
        r.attrs.ptr = a;
        r.attrs.len = (size_t)(t - a);
        r.text.ptr = at;
        r.text.len = (size_t)((r.attrs.len ? t : dur_end) - at);
        q = ae;
    }
    r.offset = p->base_off + (uint64_t)(at - p->buf);
    r.line = p->opt.count_lines ? line_of(p, (size_t)(at - p->buf)) : 0;
    if (r.v != 1)
        p->st.unknown_version++;
    p->st.records++;
    {
        int rc = p->opt.on_record(p->opt.ctx, &r);
        if (rc)
            p->stop_rc = rc;
    }
    return q;

torn:
    if (!v1) {
        /* another version's line that does not follow the v=1 layout (a
         * later format, or text about one): no cut v=1 record */
        p->st.foreign++;
        return at + TAG_LEN;
    }
    p->st.torn++;
    if (p->opt.on_torn) {
        uint64_t line = p->opt.count_lines ? line_of(p, (size_t)(at - p->buf)) : 0;
        p->opt.on_torn(p->opt.ctx, p->base_off + (uint64_t)(at - p->buf), line, why);
    }
    return at + TAG_LEN;
}

/* Where a number field ends well: a blank, a line break or the input's end. */
static int field_ends(const char *q, const char *e)
{
    return q >= e || IS(*q, C_BLANK) || *q == '\n' || *q == '\r';
}

/* Reads a loss line's `k=<digits>` field after blanks: the byte after it, or
 * NULL (why set). A leading '-' is read for the times only (neg). */
static const char *loss_field(const char *q, const char *e, const char *k, size_t kl, uint64_t max, int neg,
                              int64_t *sgn, uint64_t *out, const char **why)
{
    int ovf = 0;
    *why = k;
    if (!(q = blanks(q, e)) || !(q = key(q, e, k, kl > 8 ? 8 : kl)) || (kl > 8 && !(q = key(q, e, k + 8, kl - 8))))
        return NULL; /* (key() compares 8 bytes at most) */
    *sgn = 1;
    if (neg && q < e && *q == '-')
        q++, *sgn = -1;
    if (!(q = decimal(q, e, max, out, &ovf)) || ovf || !field_ends(q, e))
        return NULL;
    return q;
}

/* Parses the "[STINT]" text at `at` within [at, e): a loss line is handed to
 * on_loss (read, or marked unread); other text is passed over. Returns where
 * the search resumes. */
static const char *parse_loss(struct stint_mparse *p, const char *at, const char *e)
{
    struct stint_mparse_loss l;
    memset(&l, 0, sizeof l);
    uint64_t v = 0;
    int ovf = 0;
    const char *q = blanks(at + LOSS_TAG_LEN, e);
    if (!q || !(q = key(q, e, "v=", 2)) || !(q = decimal(q, e, UINT64_MAX, &v, &ovf)) ||
        !(q = blanks(q, e)) || !(q = key(q, e, "dropped", 7)) || !field_ends(q, e))
        return at + LOSS_TAG_LEN; /* not a loss line */
    l.why = "v=1";
    if (v == 1 && !ovf) {
        int64_t s1, s2, s3, s4, s5;
        uint64_t first, last;
        if ((q = loss_field(q, e, "pid=", 4, UINT64_MAX, 0, &s1, &l.pid, &l.why)) &&
            (q = loss_field(q, e, "tid=", 4, UINT64_MAX, 0, &s2, &l.tid, &l.why)) &&
            (q = loss_field(q, e, "count=", 6, UINT64_MAX, 0, &s3, &l.count, &l.why)) &&
            (q = loss_field(q, e, "first_ts=", 9, (uint64_t)STINT_TS_LIMIT, 1, &s4, &first, &l.why)) &&
            (q = loss_field(q, e, "last_ts=", 8, (uint64_t)STINT_TS_LIMIT, 1, &s5, &last, &l.why))) {
            l.ok = 1;
            l.why = NULL;
            l.first_ts = s4 * (int64_t)first;
            l.last_ts = s5 * (int64_t)last;
        }
    }
    p->st.losses++;
    if (!l.ok) {
        p->st.bad_losses++;
        l.pid = l.tid = l.count = 0;
    }
    l.offset = p->base_off + (uint64_t)(at - p->buf);
    l.line = p->opt.count_lines ? line_of(p, (size_t)(at - p->buf)) : 0;
    int rc = p->opt.on_loss(p->opt.ctx, &l);
    if (rc)
        p->stop_rc = rc;
    return l.ok ? q : at + LOSS_TAG_LEN;
}

/* Parses the complete lines in buf[0, end). */
static void parse_region(struct stint_mparse *p, size_t end)
{
    const char *q = p->buf, *e = p->buf + end;
    const char *hit;
    int loss = p->opt.on_loss != NULL;
    while (!p->stop_rc && (hit = find_tag(q, e, loss)) != NULL)
        q = hit[3] == 'R' ? parse_record(p, hit, e) : parse_loss(p, hit, e);
}

/* Drops buf[0, end) after parsing it, keeping the partial line. */
static void consume(struct stint_mparse *p, size_t end)
{
    parse_region(p, end);
    if (p->opt.count_lines) {
        (void)line_of(p, end);
        p->base_line += p->line_count;
        p->line_count = 0;
        p->line_pos = 0;
    }
    p->base_off += end;
    memmove(p->buf, p->buf + end, p->len - end);
    p->len -= end;
}

struct stint_mparse *stint_mparse_new(const struct stint_mparse_options *opt)
{
    if (!opt || !opt->on_record)
        return NULL;
    struct stint_mparse *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->opt = *opt; /* buf comes with the first bytes (grow): a small log needs a small buffer */
    p->base_off = opt->base_offset;
    return p;
}

/* Makes room for at least want more bytes, doubling from 64 KiB. Returns 0,
 * or -1 when out of memory (buf unchanged). */
static int grow(struct stint_mparse *p, size_t want)
{
    if (p->cap - p->len >= want)
        return 0;
    size_t ncap = p->cap ? p->cap : (size_t)64 << 10;
    while (ncap - p->len < want)
        ncap *= 2;
    char *nb = realloc(p->buf, ncap);
    if (!nb)
        return -1;
    p->buf = nb;
    p->cap = ncap;
    return 0;
}

void stint_mparse_free(struct stint_mparse *p)
{
    if (!p)
        return;
    free(p->buf);
    free(p);
}

char *stint_mparse_write_ptr(struct stint_mparse *p, size_t *cap)
{
    if (p->cap - p->len < MARKERS_CHUNK_BYTES / 2 && grow(p, MARKERS_CHUNK_BYTES) != 0) {
        *cap = 0;
        return NULL;
    }
    size_t room = p->cap - p->len;
    *cap = room < MARKERS_CHUNK_BYTES ? room : MARKERS_CHUNK_BYTES;
    return p->buf + p->len;
}

int stint_mparse_commit(struct stint_mparse *p, size_t n)
{
    if (p->stop_rc)
        return p->stop_rc;
    size_t old = p->len;
    p->len += n;
    p->st.bytes += n;
    const char *nl = n ? memrchr(p->buf + old, '\n', n) : NULL;
    if (nl) {
        consume(p, (size_t)(nl - p->buf) + 1);
    } else if (p->len >= MARKERS_MAX_LINE_BYTES) {
        p->st.long_lines++;
        consume(p, p->len);
    }
    return p->stop_rc;
}

int stint_mparse_feed(struct stint_mparse *p, const void *data, size_t n)
{
    const char *s = data;
    while (n && !p->stop_rc) {
        /* room for this piece only (up to a chunk), so that feeding a few
         * bytes does not cost a 1 MiB buffer */
        size_t k = n < MARKERS_CHUNK_BYTES ? n : MARKERS_CHUNK_BYTES;
        if (grow(p, k) != 0)
            return p->stop_rc = -1;
        memcpy(p->buf + p->len, s, k);
        s += k;
        n -= k;
        stint_mparse_commit(p, k);
    }
    return p->stop_rc;
}

int stint_mparse_finish(struct stint_mparse *p)
{
    if (!p->finished && !p->stop_rc && p->len)
        consume(p, p->len);
    p->finished = 1;
    return p->stop_rc;
}

int stint_mparse_read_fd(struct stint_mparse *p, int fd)
{
    for (;;) {
        size_t room;
        char *w = stint_mparse_write_ptr(p, &room);
        if (!w)
            return p->stop_rc = -1;
        ssize_t got = stint_i_test_eio(fd, room) ? -1 : stint_i_read_some(fd, w, room);
        if (got < 0)
            return -2;
        if (got == 0)
            break;
        if (stint_mparse_commit(p, (size_t)got))
            return p->stop_rc;
    }
    return stint_mparse_finish(p);
}

const struct stint_mparse_stats *stint_mparse_get_stats(const struct stint_mparse *p)
{
    return &p->st;
}

/* The stats as an array of their counts: the struct holds nothing else. */
#define MPARSE_NCOUNTS (sizeof(struct stint_mparse_stats) / sizeof(uint64_t))
_Static_assert(sizeof(struct stint_mparse_stats) == MPARSE_NCOUNTS * sizeof(uint64_t),
               "struct stint_mparse_stats holds uint64_t counts only");

void stint_mparse_stats_add(struct stint_mparse_stats *sum, const struct stint_mparse_stats *st)
{
    uint64_t a[MPARSE_NCOUNTS], b[MPARSE_NCOUNTS];
    memcpy(a, sum, sizeof a);
    memcpy(b, st, sizeof b);
    for (size_t i = 0; i < MPARSE_NCOUNTS; i++)
        a[i] += b[i];
    memcpy(sum, a, sizeof a);
}

/* ---- attrs ----------------------------------------------------------------- */

int stint_mparse_attr_next(struct stint_mparse_text *cursor, struct stint_mparse_text *k, struct stint_mparse_text *v)
{
    const char *q = cursor->ptr, *e = cursor->ptr + cursor->len;
    while (q < e && is_space((unsigned char)*q))
        q++;
    if (q >= e) {
        cursor->ptr = e;
        cursor->len = 0;
        return 0;
    }
    const char *s = q;
    while (q < e && !is_space((unsigned char)*q))
        q++;
    const char *eq = memchr(s, '=', (size_t)(q - s));
    k->ptr = s;
    k->len = (size_t)((eq ? eq : q) - s);
    v->ptr = eq ? eq + 1 : NULL;
    v->len = eq ? (size_t)(q - eq - 1) : 0;
    cursor->ptr = q;
    cursor->len = (size_t)(e - q);
    return 1;
}

int stint_mparse_attr_get(struct stint_mparse_text attrs, const char *k, struct stint_mparse_text *value)
{
    struct stint_mparse_text ck, cv;
    size_t klen = strlen(k);
    while (stint_mparse_attr_next(&attrs, &ck, &cv))
        if (cv.ptr && ck.len == klen && !memcmp(ck.ptr, k, klen)) {
            *value = cv;
            return 1;
        }
    return 0;
}

int stint_mparse_is_device(const struct stint_mparse_record *rec)
{
    /* a whole attribute token: not "note=clk=dev", "xclk=dev" or "clk=device" */
    const char *b = rec->attrs.ptr, *q = b, *e = b + rec->attrs.len;
    while (e - q >= 7 && (q = memchr(q, 'c', (size_t)(e - q - 6))) != NULL) {
        if (!memcmp(q, "clk=dev", 7) && (q == b || is_space((unsigned char)q[-1])) &&
            (q + 7 == e || is_space((unsigned char)q[7])))
            return 1;
        q++;
    }
    return 0;
}

int stint_mparse_text_eq(struct stint_mparse_text t, const char *s)
{
    size_t n = strlen(s);
    return t.len == n && (n == 0 || !memcmp(t.ptr, s, n));
}
