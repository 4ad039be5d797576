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

#endif
