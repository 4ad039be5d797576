/* SPDX-License-Identifier: MIT */
/*
 * json_int.h - what the JSON tokenizer's two files share (read/ internal):
 * json.c (the strict tokenizer) and json_skip.c (the fast skips).
 */
#ifndef STINT_CLI_JSON_INT_H
#define STINT_CLI_JSON_INT_H

#include <stdint.h>
#include <string.h>

static inline uint64_t load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when some byte of w needs attention in a string body. */
static inline uint64_t special_bytes(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"');
    uint64_t b = w ^ (ONES * '\\');
    uint64_t has_q = (q - ONES) & ~q;
    uint64_t has_b = (b - ONES) & ~b;
    uint64_t lt20 = (w - ONES * 0x20) & ~w;
    return (has_q | has_b | lt20 | w) & HIGHS;
}

#endif
