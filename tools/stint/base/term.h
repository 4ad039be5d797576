/* SPDX-License-Identifier: MIT */
/*
 * term.h - the CLI's one escaper for trace text that reaches a terminal
 * (CLI internal): warnings and repair notes on stderr, names in text tables.
 *
 * A trace is untrusted text. Printed raw, a name can set the terminal's
 * title, clear the screen, write the clipboard (OSC 52), or reorder what the
 * reader sees (bidi overrides). Everything from a trace that is printed for a
 * person goes through stint_term_escape / stint_term_fputs, which write:
 *
 *   backslash               \\                 (so the text reads back unambiguously)
 *   LF, TAB, CR             \n \t \r
 *   other C0 bytes, DEL     \xHH               (two lowercase hex digits)
 *   a byte that starts no   \xHH               (one per bad byte: raw 0x80-0x9F from a
 *   valid UTF-8 sequence                        marker log, overlong forms, surrogates,
 *                                               code points above U+10FFFF, cut sequences)
 *   C1 controls U+0080-U+009F   \u0080 .. \u009f
 *   bidi overrides and isolates U+202A-U+202E, U+2066-U+2069   \u202a ..
 *
 * and copy every other valid UTF-8 sequence as it is. The output is ASCII
 * plus valid UTF-8 only, and holds no byte below 0x20, no 0x7f, no C1 and no
 * bidi control.
 *
 * Display width (stint_term_width) is that of the escaped text, counted in
 * terminal columns like wcwidth(3) but without the locale: East Asian Wide
 * and Fullwidth characters and emoji with emoji presentation take 2 columns,
 * combining marks and zero-width characters 0, everything else 1. The tables
 * are built in (Unicode 13 ranges); a sequence joined by ZWJ counts as the sum
 * of its parts, as most terminals draw it when they do not join it.
 *
 * Cutting (stint_term_fit, stint_term_cell) keeps the start and the end of a
 * text and puts one ellipsis (U+2026, one column) in the middle, never inside
 * an escape or a UTF-8 sequence, so two names that share a long prefix stay
 * apart.
 */
#ifndef STINT_CLI_TERM_H
#define STINT_CLI_TERM_H

#include <stddef.h>
#include <stdio.h>

/* The escaped text of s (n bytes, any content) into dst (cap bytes; NUL-
 * terminated when cap >= 1; cut at a whole escape or character, never inside
 * one). Returns the length of the whole escaped text (without the NUL), which
 * may exceed cap - 1: call with cap 0 to size a buffer. */
size_t stint_term_escape(char *dst, size_t cap, const char *s, size_t n);
/* Writes the escaped text of s to f. */
void stint_term_fputs(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string (NULL prints "(null)"). */
void stint_term_puts(FILE *f, const char *s);
/* Writes a message that quotes trace text (a repair's or a drop's first
 * occurrence, an error) to f: escaped as stint_term_fputs does, except that a
 * backslash stands for itself (a message may quote a JSON source's \u
 * escapes, which doubled would mislead; a message is not read back). */
void stint_term_msg(FILE *f, const char *s);
/* The display width, in terminal columns, of the escaped text of s. */
size_t stint_term_width(const char *s, size_t n);
/* The length (1 to 4) of the valid UTF-8 sequence at s[0..n) (n >= 1), or 0
 * when s[0] starts none (overlong, surrogate, above U+10FFFF, cut short, a
 * stray continuation byte); *cp gets its code point. */
size_t stint_term_utf8_len(const char *s, size_t n, unsigned *cp);
/* The display width of one code point cp (0, 1 or 2), for a printable one:
 * the escaper has taken the controls away before this is asked. */
int stint_term_cp_width(unsigned cp);

/* The escaped text of s cut to at most cols columns (cols 0: no limit) into
 * dst (cap bytes, NUL-terminated when cap >= 1). A text wider than cols keeps
 * its first (cols - 1) / 2 columns and its last columns, around one "…".
 * Returns the bytes written (without the NUL); *width (may be NULL) gets the
 * columns they take (cols - 1 or cols when cut: a wide character at the seam
 * is not split). */
size_t stint_term_fit(char *dst, size_t cap, const char *s, size_t n, size_t cols, size_t *width);

/* Flags for stint_term_cell. */
enum {
    STINT_TERM_PAD = 1,   /* pad with blanks to cols columns */
    STINT_TERM_RIGHT = 2, /* pad on the left (numbers, right-aligned columns) */
    STINT_TERM_WHOLE = 4, /* never cut (--wide): the row grows instead */
};

/* Writes s escaped to f as a table cell of cols columns: cut in the middle
 * when wider (unless STINT_TERM_WHOLE), padded by display width when
 * STINT_TERM_PAD. Returns the columns written. */
size_t stint_term_cell(FILE *f, const char *s, size_t n, size_t cols, unsigned flags);

#endif
