/* SPDX-License-Identifier: MIT */
/*
 * test_term.c - the terminal escaper (base/term.h): no byte that a terminal
 * acts on survives (C0, DEL, C1 encoded or raw, bidi overrides and isolates,
 * invalid UTF-8, the escape sequences that set a title or write the
 * clipboard), printable text is kept byte for byte, display widths follow
 * wcwidth's rules without the locale (CJK and emoji 2, combining 0), and a
 * cut keeps both ends around one ellipsis, so that two names sharing a long
 * prefix stay apart.
 */
#include "check.h"
#include "base/term.h"

#include <stdlib.h>

/* The escaped text of the literal s (sizeof - 1 bytes: NULs included). */
#define ESC(s) esc_of(s, sizeof(s) - 1)

static char escbuf[1024];

static const char *esc_of(const char *s, size_t n)
{
    size_t need = stint_term_escape(escbuf, sizeof escbuf, s, n);
    CHECK(need == strlen(escbuf));
    CHECK(need == stint_term_escape(NULL, 0, s, n));
    return escbuf;
}

/* 1 when t holds no byte a terminal would act on: no C0 (no ESC), no DEL,
 * no C1 encoded, no bidi control, only valid UTF-8. */
static int inert(const char *t)
{
    const unsigned char *p = (const unsigned char *)t;
    for (size_t i = 0; p[i];) {
        size_t len = p[i] < 0x80 ? 1 : p[i] >= 0xC2 && p[i] <= 0xDF ? 2 : p[i] >= 0xE0 && p[i] <= 0xEF ? 3
                                     : p[i] >= 0xF0 && p[i] <= 0xF4 ? 4 : 0;
        if (len == 0 || p[i] < 0x20 || p[i] == 0x7f)
            return 0; /* a control, or a byte that starts no sequence */
        for (size_t k = 1; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
        if (p[i] == 0xC2 && p[i + 1] <= 0x9F)
            return 0;
        if (p[i] == 0xE2 && p[i + 1] == 0x80 && p[i + 2] >= 0xAA && p[i + 2] <= 0xAE)
            return 0;
        if (p[i] == 0xE2 && p[i + 1] == 0x81 && p[i + 2] >= 0xA6 && p[i + 2] <= 0xA9)
            return 0;
        i += len;
    }
    return 1;
}

static void test_escapes(void)
{
    CHECK_STR(ESC("plain name"), "plain name");
    CHECK_STR(ESC("a\nb\tc\rd\\e"), "a\\nb\\tc\\rd\\\\e");
    CHECK_STR(ESC("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");                      /* set title */
    CHECK_STR(ESC("\x1b]52;c;ZWNobw==\x1b\\"), "\\x1b]52;c;ZWNobw==\\x1b\\\\");    /* OSC 52 clipboard */
    CHECK_STR(ESC("\x1b[2J\x1b[H"), "\\x1b[2J\\x1b[H");                            /* clear screen */
    CHECK_STR(ESC("a\0b\x7f"), "a\\x00b\\x7f");
    CHECK_STR(ESC("\xc2\x9b" "2J"), "\\u009b2J");                                  /* C1 CSI, encoded */
    CHECK_STR(ESC("\xc2\x9d" "0;t\xc2\x9c"), "\\u009d0;t\\u009c");                 /* C1 OSC ... ST */
    CHECK_STR(ESC("\x9b" "2J"), "\\x9b2J");                                        /* raw C1 byte */
    CHECK_STR(ESC("x\xe2\x80\xae" "evil"), "x\\u202eevil");                           /* RLO */
    CHECK_STR(ESC("\xe2\x80\xaa\xe2\x80\xac\xe2\x81\xa6\xe2\x81\xa9"), "\\u202a\\u202c\\u2066\\u2069");
    CHECK_STR(ESC("\xc0\xaf"), "\\xc0\\xaf");                                      /* overlong '/' */
    CHECK_STR(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");                             /* surrogate */
    CHECK_STR(ESC("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");                    /* above U+10FFFF */
    CHECK_STR(ESC("ab\xe6\x97"), "ab\\xe6\\x97");                                  /* cut short */
    /* printable non-ASCII passes as it is: accents, CJK, emoji, U+00A0, U+2026 */
    CHECK_STR(ESC("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5\xc2\xa0\xe2\x80\xa6"),
              "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5\xc2\xa0\xe2\x80\xa6");
    /* every single byte and every 2-byte pair escapes to inert text */
    char in[2], out[64];
    for (unsigned a = 0; a < 256; a++) {
        in[0] = (char)a;
        stint_term_escape(out, sizeof out, in, 1);
        CHECK(inert(out));
        for (unsigned b = 0; b < 256; b++) {
            in[1] = (char)b;
            stint_term_escape(out, sizeof out, in, 2);
            if (!inert(out)) {
                fprintf(stderr, "bytes %02x %02x escape to a live control\n", a, b);
                CHECK(0);
            }
        }
    }
    /* every code point from U+0000 to U+FFFF, encoded: inert, and kept when printable */
    for (unsigned cp = 0; cp < 0x10000; cp++) {
        char u[4];
        size_t n;
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        if (cp < 0x80)
            u[0] = (char)cp, n = 1;
        else if (cp < 0x800)
            u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 63)), n = 2;
        else
            u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 63)), u[2] = (char)(0x80 | (cp & 63)),
            n = 3;
        stint_term_escape(out, sizeof out, u, n);
        CHECK(inert(out));
        int live = cp < 0x20 || cp == 0x7f || cp == '\\' || (cp >= 0x80 && cp <= 0x9f) ||
                   (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
        if (!live && (strlen(out) != n || memcmp(out, u, n) != 0)) {
            fprintf(stderr, "U+%04X not kept as it is\n", cp);
            CHECK(0);
        }
    }
    /* a buffer too small cuts at a whole escape: never "\x1" */
    char small[4];
    CHECK_EQ_U64(stint_term_escape(small, sizeof small, "a\x1b", 2), 5);
    CHECK_STR(small, "a");
}

static void test_width(void)
{
    CHECK_EQ_U64(stint_term_width("abc", 3), 3);
    CHECK_EQ_U64(stint_term_width("\xe6\x97\xa5\xe6\x9c\xac", 6), 4);          /* 日本 */
    CHECK_EQ_U64(stint_term_width("\xea\xb0\x80", 3), 2);                      /* 가 */
    CHECK_EQ_U64(stint_term_width("\xf0\x9f\x94\xa5", 4), 2);                  /* 🔥 */
    CHECK_EQ_U64(stint_term_width("\xef\xbc\xa1", 3), 2);                      /* fullwidth A */
    CHECK_EQ_U64(stint_term_width("e\xcc\x81", 3), 1);                         /* e + combining acute */
    CHECK_EQ_U64(stint_term_width("a\xe2\x80\x8b" "b", 5), 2);                 /* zero-width space */
    CHECK_EQ_U64(stint_term_width("\xc3\xa9", 2), 1);
    CHECK_EQ_U64(stint_term_width("a\tb", 3), 4);                              /* as escaped: a\tb */
    CHECK_EQ_U64(stint_term_width("\x1b", 1), 4);                              /* \x1b */
    CHECK_EQ_U64(stint_term_width("\xe2\x80\xae", 3), 6);                      /* \u202e */
    CHECK_EQ_U64(stint_term_width("\xff", 1), 4);
    CHECK_EQ_U64(stint_term_cp_width(0x4E00), 2);
    CHECK_EQ_U64(stint_term_cp_width(0x20000), 2);
    CHECK_EQ_U64(stint_term_cp_width(0x0301), 0);
    CHECK_EQ_U64(stint_term_cp_width(0x00E9), 1);
    CHECK_EQ_U64(stint_term_cp_width(0x2026), 1);
}

static void test_fit(void)
{
    char buf[256];
    size_t w;
    stint_term_fit(buf, sizeof buf, "abcdefghij", 10, 10, &w);
    CHECK_STR(buf, "abcdefghij");
    CHECK_EQ_U64(w, 10);
    stint_term_fit(buf, sizeof buf, "abcdefghij", 10, 7, &w);
    CHECK_STR(buf, "abc\xe2\x80\xa6hij");
    CHECK_EQ_U64(w, 7);
    stint_term_fit(buf, sizeof buf, "abcdefghij", 10, 0, &w);
    CHECK_STR(buf, "abcdefghij");
    /* the width of a whole text counts its escapes as printed (the fuzzer found 3 for "\n") */
    stint_term_fit(buf, sizeof buf, "\n", 1, 10, &w);
    CHECK_STR(buf, "\\n");
    CHECK_EQ_U64(w, 2);
    stint_term_fit(buf, 4, "ab\x1b", 3, 0, &w); /* a buffer too small: whole units only */
    CHECK_STR(buf, "ab");
    CHECK_EQ_U64(w, 2);
    /* a wide character at the seam is not split: one column less */
    stint_term_fit(buf, sizeof buf, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x96\x87", 12, 6, &w);
    CHECK_STR(buf, "\xe6\x97\xa5\xe2\x80\xa6\xe6\x96\x87");
    CHECK_EQ_U64(w, 5);
    /* escapes are cut whole */
    stint_term_fit(buf, sizeof buf, "\x1b\x1b\x1b\x1b", 4, 9, &w);
    CHECK_STR(buf, "\\x1b\xe2\x80\xa6\\x1b");
    CHECK_EQ_U64(w, 9);
    /* two long names sharing a 100-character prefix stay apart when cut */
    char a[200], b[200];
    memset(a, 'k', 100);
    memcpy(b, a, 100);
    strcpy(a + 100, "<float, 4>(float*, int)");
    strcpy(b + 100, "<half, 8>(half*, long)");
    char ca[128], cb[128];
    stint_term_fit(ca, sizeof ca, a, strlen(a), 48, NULL);
    stint_term_fit(cb, sizeof cb, b, strlen(b), 48, NULL);
    CHECK(strcmp(ca, cb) != 0);
    CHECK_EQ_U64(stint_term_width(ca, strlen(ca)), 48);
}

/* The text that stint_term_cell writes to a temporary file. */
static const char *cell_of(const char *s, size_t cols, unsigned flags, size_t *ret)
{
    static char got[512];
    FILE *f = tmpfile();
    REQUIRE(f);
    *ret = stint_term_cell(f, s, strlen(s), cols, flags);
    rewind(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = 0;
    fclose(f);
    return got;
}

static void test_msg(void)
{
    char got[256];
    FILE *f = tmpfile();
    REQUIRE(f);
    stint_term_msg(f, "event 'a\\u001b\x1b]0;t\x07\xc2\x9b' at C:\\x");
    rewind(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = 0;
    fclose(f);
    /* a backslash stands for itself in a message; the controls are escaped */
    CHECK_STR(got, "event 'a\\u001b\\x1b]0;t\\x07\\u009b' at C:\\x");
}

static void test_cell(void)
{
    size_t r;
    CHECK_STR(cell_of("ab", 5, STINT_TERM_PAD, &r), "ab   ");
    CHECK_EQ_U64(r, 5);
    CHECK_STR(cell_of("ab", 5, STINT_TERM_PAD | STINT_TERM_RIGHT, &r), "   ab");
    /* a CJK row pads by columns, not bytes: 日本 is 4 columns */
    CHECK_STR(cell_of("\xe6\x97\xa5\xe6\x9c\xac", 6, STINT_TERM_PAD, &r), "\xe6\x97\xa5\xe6\x9c\xac  ");
    CHECK_EQ_U64(r, 6);
    CHECK_STR(cell_of("abcdefghij", 7, STINT_TERM_PAD, &r), "abc\xe2\x80\xa6hij");
    CHECK_STR(cell_of("abcdefghij", 7, STINT_TERM_WHOLE | STINT_TERM_PAD, &r), "abcdefghij");
    CHECK_EQ_U64(r, 10);
    CHECK_STR(cell_of("a\x1b]0;x\x07", 0, 0, &r), "a\\x1b]0;x\\x07");
    /* the cell agrees with stint_term_fit */
    const char *s = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x96\x87";
    CHECK_STR(cell_of(s, 6, STINT_TERM_PAD, &r), "\xe6\x97\xa5\xe2\x80\xa6\xe6\x96\x87 ");
    CHECK_EQ_U64(r, 6);
}

int main(void)
{
    test_escapes();
    test_width();
    test_fit();
    test_cell();
    test_msg();
    CHECK_DONE();
}
