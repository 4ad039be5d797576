/* SPDX-License-Identifier: MIT */
/* fuzz_term.c - libFuzzer target: the terminal escaper (base/term.h) and the
 * CSV cell writer (write/textout.h) on any bytes.
 *
 * Invariants: the escaped text holds no live control (no byte below 0x20, no
 * DEL, no C1 or bidi control, only valid UTF-8); stint_term_escape's sizing
 * call (cap 0) agrees with the text it writes, and a small buffer cuts at a
 * whole unit (a prefix of the whole text); the display width of the input is
 * the width of its escaped text; a cut to cols columns (cols from the first
 * byte) takes at most cols columns and keeps a prefix and a suffix of the
 * escaped text around one ellipsis; a table cell writes exactly the columns
 * it says. A CSV cell has no control byte outside its quotes, and reads back
 * (RFC 4180) as the input, or as "'" + the input when neutralised. */
#include "base/term.h"
#include "write/textout.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when t (n bytes) holds no live control and only valid UTF-8. */
static int inert(const char *t, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t l = stint_term_utf8_len(t + i, n - i, &cp);
        if (!l || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069))
            return 0;
        i += l;
    }
    return 1;
}

/* The display width of an escaped text t: stint_term_width would escape
 * its backslashes again (2 columns each), everything else is kept. */
static size_t esc_width(const char *t, size_t n)
{
    size_t bs = 0;
    for (size_t i = 0; i < n; i++)
        bs += t[i] == '\\';
    return stint_term_width(t, n) - bs;
}

/* The bytes f holds (a tmpfile), malloc'd, NUL-terminated; *n its length. */
static char *slurp(FILE *f, size_t *n)
{
    long len = ftell(f);
    char *b = malloc((size_t)len + 1);
    if (!b)
        abort();
    rewind(f);
    *n = fread(b, 1, (size_t)len, f);
    b[*n] = 0;
    return b;
}

static void check_csv(const char *s, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return;
    stint_out_csv_str(f, s, n);
    fflush(f);
    size_t m;
    char *b = slurp(f, &m);
    fclose(f);
    /* read the cell back: quoted (doubled quotes) or bare */
    char *back = malloc(m + 1);
    size_t k = 0;
    if (m && b[0] == '"') {
        if (m < 2 || b[m - 1] != '"')
            abort();
        for (size_t i = 1; i + 1 < m; i++) {
            if (b[i] == '"') {
                if (b[i + 1] != '"' || i + 2 >= m)
                    abort(); /* a lone quote inside */
                i++;
            }
            back[k++] = b[i];
        }
    } else {
        for (size_t i = 0; i < m; i++) {
            unsigned char c = (unsigned char)b[i];
            if (c < 0x20 || c == 0x7f || c == ',' || c == '"')
                abort(); /* a control byte, comma or quote outside quotes */
            back[k++] = b[i];
        }
    }
    int lead = k == n + 1 && back[0] == '\'' && !memcmp(back + 1, s, n);
    if (!(k == n && !memcmp(back, s, n)) && !lead)
        abort();
    free(back);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t cols = data[0] % 80;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    size_t need = stint_term_escape(NULL, 0, s, n);
    char *e = malloc(need + 1);
    if (!e || stint_term_escape(e, need + 1, s, n) != need || strlen(e) != need)
        abort();
    if (!inert(e, need))
        abort();
    if (stint_term_width(s, n) != esc_width(e, need))
        abort();
    char small[16];
    stint_term_escape(small, sizeof small, s, n);
    if (strncmp(small, e, strlen(small)) != 0)
        abort();
    size_t cap = need + 8, w;
    char *c = malloc(cap);
    if (!c)
        abort();
    size_t cl = stint_term_fit(c, cap, s, n, cols, &w);
    if (cl != strlen(c) || !inert(c, cl) || (cols && w > cols) || esc_width(c, cl) != w)
        abort();
    if (cols && stint_term_width(s, n) > cols) {
        /* some ellipsis splits the cut into a prefix and a suffix of the escaped text (the
         * text may hold ellipses of its own) */
        int ok = 0;
        for (const char *d = strstr(c, "\xe2\x80\xa6"); d && !ok; d = strstr(d + 1, "\xe2\x80\xa6")) {
            size_t hl = (size_t)(d - c), tl = cl - hl - 3;
            ok = hl + tl <= need && !memcmp(c, e, hl) && !memcmp(c + cl - tl, e + need - tl, tl);
        }
        if (!ok)
            abort();
    } else if (cl != need || memcmp(c, e, need) != 0)
        abort();
    FILE *f = tmpfile();
    if (f) {
        size_t wrote = stint_term_cell(f, s, n, cols, STINT_TERM_PAD);
        fflush(f);
        size_t m;
        char *b = slurp(f, &m);
        if (esc_width(b, m) != wrote)
            abort();
        if (cols && wrote < cols)
            abort(); /* padded to the column */
        free(b);
        fclose(f);
    }
    check_csv(s, n);
    free(c);
    free(e);
    return 0;
}
