/*
 * textout.h - small helpers for writing JSON and CSV text to a FILE.
 */
#ifndef STINT_CLI_TEXTOUT_H
#define STINT_CLI_TEXTOUT_H

#include <stddef.h>
#include <stdio.h>

/* Writes s (len bytes, any content) as a JSON string literal with quotes. */
void stint_out_json_str(FILE *f, const char *s, size_t len);
/* Writes s as one CSV field: quoted (RFC 4180) when it holds , " CR or LF. */
void stint_out_csv_str(FILE *f, const char *s, size_t len);

#endif
