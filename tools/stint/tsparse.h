/*
 * tsparse.h - exact decimal text -> int64 nanoseconds, never through a double.
 *
 * Chrome JSON gives microseconds as decimal text ("5.1", "1850244461563845.0",
 * "1.5e3"); marker logs and JSONL give integer nanoseconds. Durations written
 * with a unit ("12.5ms", "3us", "40ns", "2s") are parsed by stint_parse_duration.
 */
#ifndef STINT_CLI_TSPARSE_H
#define STINT_CLI_TSPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Parses a JSON-style decimal number (optional '-', digits, optional
 * fraction, optional exponent) given in units of 10^-scale_exp10 ns... in
 * practice: mult_ns is the number of ns per unit (1000 for us, 1 for ns,
 * 1000000 for ms). The result is exact; digits beyond 1 ns are truncated
 * toward zero. Returns 0 and sets *out, or -1 when the text is not a number
 * (or has trailing bytes) and -2 when it does not fit int64. */
int stint_parse_ts(const char *s, size_t len, int64_t mult_ns, int64_t *out);

/* Parses a duration or time with an optional unit suffix: ns, us, ms, s
 * (no suffix = ns). "12.5ms" -> 12500000. Same return codes. */
int stint_parse_duration(const char *s, size_t len, int64_t *out);

/* Parses a plain decimal integer (optional '-'), exact. Same return codes. */
int stint_parse_i64(const char *s, size_t len, int64_t *out);

#endif
