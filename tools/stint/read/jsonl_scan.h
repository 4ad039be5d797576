/* SPDX-License-Identifier: MIT */
/*
 * jsonl_scan.h - line-at-a-time access to JSON-lines files for the analyses
 * that read records the trace model does not hold (telemetry rows, memory
 * records): iterate the lines (plain or gzip, last line may lack '\n'), and
 * look a value up by a dotted path inside one line's object.
 */
#ifndef STINT_CLI_JSONL_SCAN_H
#define STINT_CLI_JSONL_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Calls fn for every non-blank line (without its '\n'); the line is followed
 * by readable zero padding (safe for json.h). fn returns 0 to go on, else
 * stops the scan with that value. A last line without '\n' is passed to fn
 * when unterminated is NULL; otherwise it is not (a writer cut mid-line, as
 * the session reader treats it) and *unterminated gets its line number (0
 * when there is none). Returns 0, fn's value, or 3 on an I/O error (err
 * filled, naming the file). */
int stint_jl_each(const char *path, int (*fn)(void *ctx, const char *line, size_t len, uint64_t lineno), void *ctx,
                  uint64_t *unterminated, char *err, size_t errcap);

/* Whether schema s[0..n) (decoded) is one the session reader knows:
 * "stint/session/1" or "candle-graph/trace/6". */
int stint_jl_schema_known(const char *s, size_t n);

enum stint_jl_type { STINT_JL_NONE = 0, STINT_JL_STRING, STINT_JL_NUMBER, STINT_JL_OBJECT, STINT_JL_ARRAY,
                     STINT_JL_TRUE, STINT_JL_FALSE, STINT_JL_NULL };

struct stint_jl_val {
    int type;          /* enum stint_jl_type; NONE when absent */
    const char *p;     /* string: body between quotes (raw); others: the value's text */
    size_t len;
    int escaped;       /* string holds backslash escapes */
};

/* Finds the value at path ("a.b.c"; each part a key of nested objects) in
 * the object text line[0..len) (padded). Returns 0 and fills *v (type NONE
 * when a key is absent), or -1 when the line is not a valid JSON object. */
int stint_jl_get(const char *line, size_t len, const char *path, struct stint_jl_val *v);

/* Calls fn for every numeric leaf of the object (nested objects flattened
 * with '.', arrays skipped), with its dotted key. Returns 0 or -1 (bad JSON). */
int stint_jl_leaves(const char *line, size_t len, void (*fn)(void *ctx, const char *key, size_t klen, double value),
                    void *ctx);

/* Parses v as a double: a JSON number, or a string holding a number (spaces
 * around it allowed). Returns 0 or -1. */
int stint_jl_double(const struct stint_jl_val *v, double *out);

#endif
