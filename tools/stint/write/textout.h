/* SPDX-License-Identifier: MIT */
/*
 * textout.h - small helpers for writing JSON, CSV and plain text to a FILE.
 * The CLI's one JSON string escaper: every writer and command writes JSON
 * strings through these.
 */
#ifndef STINT_CLI_TEXTOUT_H
#define STINT_CLI_TEXTOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stint_model;

/* Writes s (len bytes, any content) as a JSON string literal with quotes.
 * The output is always valid UTF-8: a byte that starts no valid UTF-8
 * sequence (overlong forms, surrogates and code points above U+10FFFF
 * included) is written as U+FFFD, one per bad byte, and counted
 * (stint_out_bad_utf8). '"', '\\' and control bytes are escaped. */
void stint_out_json_str(FILE *f, const char *s, size_t len);
/* The same without the quotes: a part of a JSON string literal, so that a
 * label can be written in pieces without a fixed buffer that cuts it. */
void stint_out_json_body(FILE *f, const char *s, size_t len);
/* Writes v in decimal, as fprintf's PRId64 / PRIu64 does, without its
 * format parsing (the writers' hot paths). */
void stint_out_i64(FILE *f, int64_t v);
void stint_out_u64(FILE *f, uint64_t v);
/* Writes the model's interned string id (model.h: stint_model_str) as a
 * JSON string literal, as stint_out_json_str does. */
void stint_out_json_model_str(FILE *f, const struct stint_model *m, uint32_t id);
/* Writes s as a JSON string literal the way Python's json.dumps does with
 * ensure_ascii (the reference timing tool's output): pure ASCII, every other
 * code point as \uXXXX (a surrogate pair above U+FFFF), '\b' and '\f' as
 * short escapes, 0x7f as \u007f; a byte that starts no valid UTF-8
 * sequence becomes \ufffd, one per bad byte, and is counted. */
void stint_out_json_ascii(FILE *f, const char *s, size_t len);
/* Bytes written as U+FFFD by the functions above since the process
 * started (an atomic counter: any thread may write JSON). */
unsigned long long stint_out_bad_utf8(void);
/* Adds n to that count: bytes written as U+FFFD in text escaped elsewhere
 * the same way (convert's args written ahead, read/args_spill.h). */
void stint_out_bad_utf8_add(unsigned long long n);
/* Writes s as one CSV field: quoted (RFC 4180, '"' doubled) when it holds a
 * comma, a double quote or any control byte (CR, LF, TAB, NUL, ESC ... DEL),
 * so no control byte is ever outside quotes. A cell that starts with '=',
 * '+', '-', '@', TAB or CR and is not a plain decimal number (-12, 1.5e-3)
 * is neutralised against formula injection: written quoted with a leading
 * apostrophe ("'=SUM(A1)"), which spreadsheets show as text. */
void stint_out_csv_str(FILE *f, const char *s, size_t len);
/* The same without the neutralising (slices --csv-raw, and TSV fields):
 * the cell's text is exactly s once unquoted. */
void stint_out_csv_raw(FILE *f, const char *s, size_t len);

/* Names in text and TSV outputs (tables, aligned columns): through the
 * terminal escaper (base/term.h), so no control reaches the terminal or
 * breaks a row. '\n', '\t' and '\r' become the backslash escapes \n \t \r,
 * other bytes below 0x20 and 0x7f become \xHH (two lowercase hex digits), a
 * byte that starts no valid UTF-8 sequence \xHH too, C1 controls
 * (U+0080-U+009F) and bidi overrides and isolates \uXXXX, and a backslash
 * becomes \\, so the text can be read back unambiguously. Every other
 * character is copied as it is. */
void stint_out_text_str(FILE *f, const char *s, size_t len);
/* The escaped text of s (as stint_out_text_str writes it) into buf (cap >= 1
 * bytes, always NUL-terminated; cut at cap - 1 bytes, never inside an escape).
 * Returns the length of the whole escaped text, which may exceed cap - 1. */
size_t stint_out_text_esc(char *buf, size_t cap, const char *s, size_t len);
/* The length in bytes of s once escaped (a buffer's size, not a column's). */
size_t stint_out_text_len(const char *s, size_t len);
/* The display width of s once escaped, in terminal columns (CJK and emoji 2,
 * combining marks 0): what a column is padded by. */
size_t stint_out_text_width(const char *s, size_t len);

/* Names in text tables are cut in the middle to their column (base/term.h:
 * stint_term_cell keeps both ends around one ellipsis and pads by display
 * width). Rows that a cut would make look alike get a wider cut: given a
 * column of n names (get(ctx, i, &len) gives name i) and its width cols,
 * stint_out_cut_plan returns each row's cut width (a calloc'd array of n:
 * 0 = cols, SIZE_MAX = whole; NULL when every row keeps cols). Such rows
 * widen together, doubling, until their cuts differ, at most to whole, so
 * no two different names ever print the same text. */
typedef const char *(*stint_out_name_fn)(void *ctx, size_t i, size_t *len);
size_t *stint_out_cut_plan(size_t n, size_t cols, stint_out_name_fn get, void *ctx);

/* A name column of a text table, filled row by row, planned once, then
 * printed: stint_out_col_init(&c, rows, cols, wide) (wide: --wide, every
 * name whole, the column as wide as its widest name), stint_out_col_set for
 * each row (s is kept, not copied: it must live until the column is freed;
 * suffix, when not NULL, is appended and the two copied, as one name),
 * stint_out_col_plan, stint_out_col_put per row (the cell padded to the
 * column's width), stint_out_col_free. Unset rows print nothing but blanks. */
struct stint_out_col {
    size_t n, cols;
    int wide;
    const char **s;
    size_t *len;
    char **own;           /* copies made by stint_out_col_set with a suffix */
    size_t *wid;          /* stint_out_cut_plan's answer */
};
void stint_out_col_init(struct stint_out_col *c, size_t rows, size_t cols, int wide);
void stint_out_col_set(struct stint_out_col *c, size_t i, const char *s, size_t len, const char *suffix);
/* Plans the cut; with fit set, the column first narrows to its widest name
 * when that is narrower than cols (and widens to it under --wide). Returns
 * the column's width in columns. */
size_t stint_out_col_plan(struct stint_out_col *c, int fit);
/* Row i's cut width: the column's, a wider one the plan gave it, or
 * SIZE_MAX (whole: --wide, or a cut would not tell it apart). */
size_t stint_out_col_width(const struct stint_out_col *c, size_t i);
/* Writes row i's cell: cut in the middle to its width, padded to
 * the column's width (flags: STINT_TERM_PAD is implied; add
 * STINT_TERM_RIGHT to align right, or 0). */
void stint_out_col_put(FILE *f, const struct stint_out_col *c, size_t i, unsigned flags);
void stint_out_col_free(struct stint_out_col *c);

#endif
