/*
 * json.h - a small, strict, streaming-friendly JSON tokenizer over a buffer.
 *
 * The cursor works on one in-memory window [p, end) that must be followed by
 * at least STINT_JSON_PAD readable bytes, the first of which is 0 (readers
 * keep that padding in their reused buffers). Each function parses one
 * complete token or value; when the window ends inside it, it returns
 * STINT_JSON_MORE and leaves the cursor where it was, so a streaming reader
 * can move the unparsed tail to the front of its buffer, read more, and retry.
 *
 * Strict by default (RFC 8259: no trailing commas, no comments, no NaN, valid
 * UTF-8, no raw control characters in strings, no lone surrogates in \u
 * escapes). The one leniency, STINT_JSON_TRAILING_COMMA, accepts a comma
 * before '}' or ']' and counts each one in trailing_commas (the Chrome reader
 * turns that into a repair); STINT_JSON_CONTROL_CHARS accepts raw control
 * bytes (a raw newline, as Perfetto's parser does) inside strings and counts
 * them in control_chars. Nesting is limited to STINT_JSON_MAX_DEPTH and
 * reported as an error beyond it, never a crash.
 */
#ifndef STINT_CLI_JSON_H
#define STINT_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>

#define STINT_JSON_PAD 16
#define STINT_JSON_MAX_DEPTH 100000

enum { STINT_JSON_OK = 0, STINT_JSON_ERR = -1, STINT_JSON_MORE = -2 };
enum { STINT_JSON_TRAILING_COMMA = 1u << 0, STINT_JSON_CONTROL_CHARS = 1u << 1 };

struct stint_json {
    const char *p;          /* next byte */
    const char *end;        /* end of the window (end[0] == 0, padded) */
    unsigned flags;         /* STINT_JSON_* leniencies */
    int at_eof;             /* the window ends at the end of the input */
    uint64_t trailing_commas;
    uint64_t control_chars; /* raw control bytes accepted in strings (STINT_JSON_CONTROL_CHARS) */
    const char *err;        /* static message on STINT_JSON_ERR */
    const char *err_at;     /* where in the window */
};

/* Skips whitespace. Returns the next byte, or 0 at the end of the window. */
static inline int stint_json_ws(struct stint_json *j)
{
    const char *p = j->p;
    /* bytes <= ' ' other than the four JSON blanks are never skipped */
    while (p < j->end && (unsigned char)*p <= ' ' &&
           (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    j->p = p;
    return p < j->end ? (unsigned char)*p : 0;
}

/* Parses a string at *p == '"'. On OK, *s and *len is the raw body between the
 * quotes and *escaped says whether it holds backslash escapes (then use
 * stint_json_unescape). */
int stint_json_string(struct stint_json *j, const char **s, size_t *len, int *escaped);
/* Parses a number; *s and *len is its text. */
int stint_json_number(struct stint_json *j, const char **s, size_t *len);
/* Skips one complete value of any type (iteratively; depth-limited). */
int stint_json_skip(struct stint_json *j);
/* Decodes a validated string body with escapes into out (which must hold len
 * bytes: decoding never grows). Returns the decoded length. */
size_t stint_json_unescape(const char *s, size_t len, char *out);

/* Validates a whole document: exactly one value plus whitespace. Returns 0
 * when valid; else -1 with *err_off (byte offset) and *err_msg (static text).
 * buf needs no padding (the function copies into a padded buffer only when it
 * must). flags as above (0 = strict RFC 8259). This is the fuzzing and
 * JSONTestSuite entry point. */
int stint_json_validate(const char *buf, size_t len, unsigned flags, size_t *err_off, const char **err_msg);

#endif
