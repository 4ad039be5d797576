/* SPDX-License-Identifier: MIT */
/*
 * term.c - escaping, display width and middle cutting of trace text for a
 * terminal (term.h).
 *
 * The text is read one unit at a time: a valid UTF-8 sequence, or one byte
 * that starts none. Each unit either stands for itself or has one escape
 * (ASCII); its width is the escape's length or the character's columns. All
 * functions walk the same units, so the escaped text, its width and its cut
 * forms always agree, and a cut never falls inside a unit.
 */
#include "base/term.h"

#include <stdint.h>
#include <string.h>

/* One unit of the input: len bytes of s; esc[0..elen) its escape (elen 0:
 * the bytes stand for themselves); cols its display width. */
struct unit {
    size_t len;
    size_t elen;
    size_t cols;
    char esc[8];
};

struct range {
    uint32_t lo, hi;
};

/* Zero-width code points: combining marks (Mn, Me), format characters and
 * Hangul medial/final jamo. Sorted, disjoint. */
static const struct range zero_w[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05BD},   {0x05BF, 0x05BF},   {0x05C1, 0x05C2},
    {0x05C4, 0x05C5},   {0x05C7, 0x05C7},   {0x0610, 0x061A},   {0x061C, 0x061C},   {0x064B, 0x065F},
    {0x0670, 0x0670},   {0x06D6, 0x06DC},   {0x06DF, 0x06E4},   {0x06E7, 0x06E8},   {0x06EA, 0x06ED},
    {0x0711, 0x0711},   {0x0730, 0x074A},   {0x07A6, 0x07B0},   {0x07EB, 0x07F3},   {0x0816, 0x0819},
    {0x081B, 0x0823},   {0x0825, 0x0827},   {0x0829, 0x082D},   {0x0859, 0x085B},   {0x08D3, 0x08E1},
    {0x08E3, 0x0902},   {0x093A, 0x093A},   {0x093C, 0x093C},   {0x0941, 0x0948},   {0x094D, 0x094D},
    {0x0951, 0x0957},   {0x0962, 0x0963},   {0x0981, 0x0981},   {0x09BC, 0x09BC},   {0x09C1, 0x09C4},
    {0x09CD, 0x09CD},   {0x09E2, 0x09E3},   {0x0A01, 0x0A02},   {0x0A3C, 0x0A3C},   {0x0A41, 0x0A42},
    {0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},   {0x0A51, 0x0A51},   {0x0A70, 0x0A71},   {0x0A75, 0x0A75},
    {0x0A81, 0x0A82},   {0x0ABC, 0x0ABC},   {0x0AC1, 0x0AC5},   {0x0AC7, 0x0AC8},   {0x0ACD, 0x0ACD},
    {0x0AE2, 0x0AE3},   {0x0B01, 0x0B01},   {0x0B3C, 0x0B3C},   {0x0B3F, 0x0B3F},   {0x0B41, 0x0B44},
    {0x0B4D, 0x0B4D},   {0x0B56, 0x0B56},   {0x0B62, 0x0B63},   {0x0B82, 0x0B82},   {0x0BC0, 0x0BC0},
    {0x0BCD, 0x0BCD},   {0x0C00, 0x0C00},   {0x0C3E, 0x0C40},   {0x0C46, 0x0C48},   {0x0C4A, 0x0C4D},
    {0x0C55, 0x0C56},   {0x0C62, 0x0C63},   {0x0CBC, 0x0CBC},   {0x0CCC, 0x0CCD},   {0x0CE2, 0x0CE3},
    {0x0D00, 0x0D01},   {0x0D41, 0x0D44},   {0x0D4D, 0x0D4D},   {0x0D62, 0x0D63},   {0x0DCA, 0x0DCA},
    {0x0DD2, 0x0DD4},   {0x0DD6, 0x0DD6},   {0x0E31, 0x0E31},   {0x0E34, 0x0E3A},   {0x0E47, 0x0E4E},
    {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EBC},   {0x0EC8, 0x0ECD},   {0x0F18, 0x0F19},   {0x0F35, 0x0F35},
    {0x0F37, 0x0F37},   {0x0F39, 0x0F39},   {0x0F71, 0x0F7E},   {0x0F80, 0x0F84},   {0x0F86, 0x0F87},
    {0x0F8D, 0x0FBC},   {0x0FC6, 0x0FC6},   {0x102D, 0x1030},   {0x1032, 0x1037},   {0x1039, 0x103A},
    {0x103D, 0x103E},   {0x1058, 0x1059},   {0x105E, 0x1060},   {0x1071, 0x1074},   {0x1082, 0x1082},
    {0x1085, 0x1086},   {0x108D, 0x108D},   {0x109D, 0x109D},   {0x1160, 0x11FF},   {0x135D, 0x135F},
    {0x1712, 0x1714},   {0x1732, 0x1734},   {0x1752, 0x1753},   {0x1772, 0x1773},   {0x17B4, 0x17B5},
    {0x17B7, 0x17BD},   {0x17C6, 0x17C6},   {0x17C9, 0x17D3},   {0x17DD, 0x17DD},   {0x180B, 0x180E},
    {0x1885, 0x1886},   {0x18A9, 0x18A9},   {0x1920, 0x1922},   {0x1927, 0x1928},   {0x1932, 0x1932},
    {0x1939, 0x193B},   {0x1A17, 0x1A18},   {0x1A1B, 0x1A1B},   {0x1A56, 0x1A56},   {0x1A58, 0x1A5E},
    {0x1A60, 0x1A60},   {0x1A62, 0x1A62},   {0x1A65, 0x1A6C},   {0x1A73, 0x1A7C},   {0x1A7F, 0x1A7F},
    {0x1AB0, 0x1AFF},   {0x1B00, 0x1B03},   {0x1B34, 0x1B34},   {0x1B36, 0x1B3A},   {0x1B3C, 0x1B3C},
    {0x1B42, 0x1B42},   {0x1B6B, 0x1B73},   {0x1B80, 0x1B81},   {0x1BA2, 0x1BA5},   {0x1BA8, 0x1BA9},
    {0x1BAB, 0x1BAD},   {0x1BE6, 0x1BE6},   {0x1BE8, 0x1BE9},   {0x1BED, 0x1BED},   {0x1BEF, 0x1BF1},
    {0x1C2C, 0x1C33},   {0x1C36, 0x1C37},   {0x1CD0, 0x1CD2},   {0x1CD4, 0x1CE0},   {0x1CE2, 0x1CE8},
    {0x1CED, 0x1CED},   {0x1CF4, 0x1CF4},   {0x1CF8, 0x1CF9},   {0x1DC0, 0x1DFF},   {0x200B, 0x200F},
    {0x2028, 0x202E},   {0x2060, 0x206F},   {0x20D0, 0x20F0},   {0x2CEF, 0x2CF1},   {0x2D7F, 0x2D7F},
    {0x2DE0, 0x2DFF},   {0x302A, 0x302D},   {0x3099, 0x309A},   {0xA66F, 0xA672},   {0xA674, 0xA67D},
    {0xA69E, 0xA69F},   {0xA6F0, 0xA6F1},   {0xA802, 0xA802},   {0xA806, 0xA806},   {0xA80B, 0xA80B},
    {0xA825, 0xA826},   {0xA8C4, 0xA8C5},   {0xA8E0, 0xA8F1},   {0xA8FF, 0xA8FF},   {0xA926, 0xA92D},
    {0xA947, 0xA951},   {0xA980, 0xA982},   {0xA9B3, 0xA9B3},   {0xA9B6, 0xA9B9},   {0xA9BC, 0xA9BD},
    {0xA9E5, 0xA9E5},   {0xAA29, 0xAA2E},   {0xAA31, 0xAA32},   {0xAA35, 0xAA36},   {0xAA43, 0xAA43},
    {0xAA4C, 0xAA4C},   {0xAA7C, 0xAA7C},   {0xAAB0, 0xAAB0},   {0xAAB2, 0xAAB4},   {0xAAB7, 0xAAB8},
    {0xAABE, 0xAABF},   {0xAAC1, 0xAAC1},   {0xAAEC, 0xAAED},   {0xAAF6, 0xAAF6},   {0xABE5, 0xABE5},
    {0xABE8, 0xABE8},   {0xABED, 0xABED},   {0xD7B0, 0xD7FF},   {0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x101FD, 0x101FD}, {0x102E0, 0x102E0},
    {0x10376, 0x1037A}, {0x10A01, 0x10A0F}, {0x10A38, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27},
    {0x10F46, 0x10F50}, {0x11001, 0x11001}, {0x11038, 0x11046}, {0x1107F, 0x11081}, {0x110B3, 0x110B6},
    {0x110B9, 0x110BA}, {0x110BD, 0x110BD}, {0x11100, 0x11102}, {0x11127, 0x1112B}, {0x1112D, 0x11134},
    {0x11173, 0x11173}, {0x11180, 0x11181}, {0x111B6, 0x111BE}, {0x11C92, 0x11CA7}, {0x16AF0, 0x16AF4},
    {0x16B30, 0x16B36}, {0x16F8F, 0x16F92}, {0x1BC9D, 0x1BC9E}, {0x1BCA0, 0x1BCA3}, {0x1D167, 0x1D169},
    {0x1D173, 0x1D182}, {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244}, {0x1DA00, 0x1DA36},
    {0x1E000, 0x1E02A}, {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
    {0xE0100, 0xE01EF},
};

/* Two-column code points: East Asian Wide and Fullwidth, and emoji with
 * emoji presentation. Sorted, disjoint. */
static const struct range wide_w[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},   {0x23F0, 0x23F0},
    {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x267F, 0x267F},
    {0x2693, 0x2693},   {0x26A1, 0x26A1},   {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},
    {0x26CE, 0x26CE},   {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},   {0x2728, 0x2728},
    {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},   {0x2757, 0x2757},   {0x2795, 0x2797},
    {0x27B0, 0x27B0},   {0x27BF, 0x27BF},   {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},
    {0x2E80, 0x2E99},   {0x2E9B, 0x2EF3},   {0x2F00, 0x2FD5},   {0x2FF0, 0x2FFB},   {0x3000, 0x303E},
    {0x3041, 0x3096},   {0x3099, 0x30FF},   {0x3105, 0x312F},   {0x3131, 0x318E},   {0x3190, 0x31E3},
    {0x31F0, 0x321E},   {0x3220, 0x3247},   {0x3250, 0x4DBF},   {0x4E00, 0xA48C},   {0xA490, 0xA4C6},
    {0xA960, 0xA97C},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE52},
    {0xFE54, 0xFE66},   {0xFE68, 0xFE6B},   {0xFF01, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x16FF0, 0x16FF1}, {0x17000, 0x187F7}, {0x18800, 0x18CD5}, {0x18D00, 0x18D08}, {0x1B000, 0x1B11E},
    {0x1B150, 0x1B152}, {0x1B164, 0x1B167}, {0x1B170, 0x1B2FB}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
    {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C},
    {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA}, {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4},
    {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
    {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F},
    {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6EB, 0x1F6EC},
    {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F978},
    {0x1F97A, 0x1F9CB}, {0x1F9CD, 0x1F9FF}, {0x1FA70, 0x1FA74}, {0x1FA78, 0x1FA7A}, {0x1FA80, 0x1FA86},
    {0x1FA90, 0x1FAA8}, {0x1FAB0, 0x1FAB6}, {0x1FAC0, 0x1FAC2}, {0x1FAD0, 0x1FAD6}, {0x20000, 0x2FFFD},
    {0x30000, 0x3FFFD},
};

/* 1 when cp lies in one of the n sorted ranges r (binary search). */
static int in_ranges(const struct range *r, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > r[mid].hi)
            lo = mid + 1;
        else if (cp < r[mid].lo)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

int stint_term_cp_width(unsigned cp)
{
    if (cp < 0x300)
        return 1;
    if (in_ranges(zero_w, sizeof zero_w / sizeof zero_w[0], cp))
        return 0;
    if (in_ranges(wide_w, sizeof wide_w / sizeof wide_w[0], cp))
        return 2;
    return 1;
}

/* The code point of the valid UTF-8 sequence at s[0..n) (n >= 1) and its
 * length; 0 when s[0] starts no valid sequence (overlong, surrogate, above
 * U+10FFFF, cut short, stray continuation byte). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

size_t stint_term_utf8_len(const char *s, size_t n, unsigned *cp)
{
    uint32_t v = 0;
    size_t len = n ? utf8_decode((const unsigned char *)s, n, &v) : 0;
    if (cp)
        *cp = v;
    return len;
}

static const char hexd[] = "0123456789abcdef";

/* The unit at s[0..n) (n >= 1) into *u; keep_bs: a backslash stands for
 * itself (messages, stint_term_msg). */
static void unit_at_bs(const char *s, size_t n, struct unit *u, int keep_bs)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp = 0;
    size_t len = utf8_decode(p, n, &cp);
    u->elen = 0;
    if (len == 0) { /* a bad byte: \xHH */
        u->len = 1;
        u->esc[0] = '\\', u->esc[1] = 'x', u->esc[2] = hexd[p[0] >> 4], u->esc[3] = hexd[p[0] & 15];
        u->elen = u->cols = 4;
        return;
    }
    u->len = len;
    if (cp < 0x20 || cp == 0x7f || (cp == '\\' && !keep_bs)) {
        u->esc[0] = '\\';
        switch (cp) {
        case '\\': u->esc[1] = '\\', u->elen = 2; break;
        case '\n': u->esc[1] = 'n', u->elen = 2; break;
        case '\t': u->esc[1] = 't', u->elen = 2; break;
        case '\r': u->esc[1] = 'r', u->elen = 2; break;
        default:
            u->esc[1] = 'x', u->esc[2] = hexd[cp >> 4], u->esc[3] = hexd[cp & 15];
            u->elen = 4;
        }
        u->cols = u->elen;
        return;
    }
    if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
        u->esc[0] = '\\', u->esc[1] = 'u';
        for (int k = 0; k < 4; k++)
            u->esc[2 + k] = hexd[(cp >> (12 - 4 * k)) & 15];
        u->elen = u->cols = 6;
        return;
    }
    u->cols = (size_t)stint_term_cp_width(cp);
}

/* The unit at s[0..n) as tables and names print it (a backslash escaped). */
static void unit_at(const char *s, size_t n, struct unit *u) { unit_at_bs(s, n, u, 0); }

/* The bytes of unit u (at s) as printed. */
static const char *unit_text(const struct unit *u, const char *s, size_t *len)
{
    *len = u->elen ? u->elen : u->len;
    return u->elen ? u->esc : s;
}

size_t stint_term_escape(char *dst, size_t cap, const char *s, size_t n)
{
    size_t out = 0, put = 0;
    int full = cap == 0;
    struct unit u;
    for (size_t i = 0; i < n; i += u.len) {
        size_t tl;
        unit_at(s + i, n - i, &u);
        const char *t = unit_text(&u, s + i, &tl);
        if (!full && put + tl < cap) {
            memcpy(dst + put, t, tl);
            put += tl;
        } else
            full = 1;
        out += tl;
    }
    if (cap)
        dst[put] = 0;
    return out;
}

/* stint_term_fputs, a backslash kept or escaped. */
static void term_write(FILE *f, const char *s, size_t n, int keep_bs)
{
    size_t run = 0; /* start of the bytes not yet written that stand for themselves */
    struct unit u;
    for (size_t i = 0; i < n; i += u.len) {
        unit_at_bs(s + i, n - i, &u, keep_bs);
        if (!u.elen)
            continue;
        fwrite(s + run, 1, i - run, f);
        fwrite(u.esc, 1, u.elen, f);
        run = i + u.len;
    }
    fwrite(s + run, 1, n - run, f);
}

void stint_term_fputs(FILE *f, const char *s, size_t n) { term_write(f, s, n, 0); }

void stint_term_puts(FILE *f, const char *s)
{
    if (!s)
        s = "(null)";
    term_write(f, s, strlen(s), 0);
}

void stint_term_msg(FILE *f, const char *s)
{
    if (!s)
        s = "(null)";
    term_write(f, s, strlen(s), 1);
}

size_t stint_term_width(const char *s, size_t n)
{
    size_t w = 0;
    struct unit u;
    for (size_t i = 0; i < n; i += u.len) {
        unit_at(s + i, n - i, &u);
        w += u.cols;
    }
    return w;
}

/* Appends t[0..tl) to dst (cap bytes) at *put when it fits with the NUL;
 * returns 0 (and appends nothing) when it does not. */
static int put_bytes(char *dst, size_t cap, size_t *put, const char *t, size_t tl)
{
    if (*put + tl >= cap)
        return 0;
    memcpy(dst + *put, t, tl);
    *put += tl;
    return 1;
}

/* Where the tail of a text of total width w starts so that it takes at most
 * tail columns: the byte offset of the first unit at or after from whose
 * suffix fits. */
static size_t tail_start(const char *s, size_t n, size_t from, size_t w_from, size_t tail)
{
    size_t i = from, rest = w_from;
    struct unit u;
    while (i < n && rest > tail) {
        unit_at(s + i, n - i, &u);
        rest -= u.cols;
        i += u.len;
    }
    return i;
}

size_t stint_term_fit(char *dst, size_t cap, const char *s, size_t n, size_t cols, size_t *width)
{
    size_t w = stint_term_width(s, n), put = 0, got = 0, i = 0, tl;
    struct unit u;
    if (cap)
        dst[0] = 0;
    if (cols == 0 || w <= cols) { /* whole, as far as the buffer holds whole units */
        for (; i < n; i += u.len) {
            unit_at(s + i, n - i, &u);
            const char *t = unit_text(&u, s + i, &tl);
            if (!put_bytes(dst, cap, &put, t, tl))
                break;
            got += u.cols;
        }
        goto done;
    }
    size_t head = (cols - 1) / 2, tail = cols - 1 - head;
    for (; i < n; i += u.len) {
        unit_at(s + i, n - i, &u);
        if (got + u.cols > head)
            break;
        const char *t = unit_text(&u, s + i, &tl);
        if (!put_bytes(dst, cap, &put, t, tl))
            goto done;
        got += u.cols;
    }
    if (!put_bytes(dst, cap, &put, "\xe2\x80\xa6", 3))
        goto done;
    got += 1;
    /* the head's width is got - 1; the rest of the text is w minus it */
    for (size_t j = tail_start(s, n, i, w - (got - 1), tail); j < n; j += u.len) {
        unit_at(s + j, n - j, &u);
        const char *t = unit_text(&u, s + j, &tl);
        if (!put_bytes(dst, cap, &put, t, tl))
            break;
        got += u.cols;
    }
done:
    if (cap)
        dst[put] = 0;
    if (width)
        *width = got;
    return put;
}

size_t stint_term_cell(FILE *f, const char *s, size_t n, size_t cols, unsigned flags)
{
    size_t w = stint_term_width(s, n), pad = 0;
    if ((flags & STINT_TERM_WHOLE) || cols == 0 || w <= cols) {
        pad = (flags & STINT_TERM_PAD) && w < cols ? cols - w : 0;
        if (flags & STINT_TERM_RIGHT)
            for (size_t k = 0; k < pad; k++)
                putc(' ', f);
        stint_term_fputs(f, s, n);
    } else {
        /* cut: the escaped head, "…", the escaped tail, streamed unit by unit */
        size_t head = (cols - 1) / 2, tail = cols - 1 - head, got = 0, i = 0;
        struct unit u;
        for (; i < n; i += u.len) { /* measure the head first: a right-aligned cell pads before it */
            unit_at(s + i, n - i, &u);
            if (got + u.cols > head)
                break;
            got += u.cols;
        }
        size_t j = tail_start(s, n, i, w - got, tail), tw = 0;
        for (size_t k = j; k < n; k += u.len) {
            unit_at(s + k, n - k, &u);
            tw += u.cols;
        }
        w = got + 1 + tw;
        pad = (flags & STINT_TERM_PAD) && w < cols ? cols - w : 0;
        if (flags & STINT_TERM_RIGHT)
            for (size_t k = 0; k < pad; k++)
                putc(' ', f);
        stint_term_fputs(f, s, i);
        fputs("\xe2\x80\xa6", f);
        stint_term_fputs(f, s + j, n - j);
    }
    if (!(flags & STINT_TERM_RIGHT))
        for (size_t k = 0; k < pad; k++)
            putc(' ', f);
    return w + pad;
}
