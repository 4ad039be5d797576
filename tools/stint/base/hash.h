/* SPDX-License-Identifier: MIT */
/*
 * hash.h - the CLI's hash functions, in one place (CLI internal).
 *
 * Every hash table and cache of the analyzer takes its mixing from here
 * instead of spelling the constants again. None of these is a stable file
 * format except where a caller says so (the OTLP writer's ids use
 * stint_hash_splitmix64 and must keep doing so): tables may change their
 * hash, and no output may depend on a table's iteration order.
 */
#ifndef STINT_CLI_HASH_H
#define STINT_CLI_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 2^64 divided by the golden ratio: multiplying by it spreads consecutive
 * keys over the high bits (Fibonacci hashing). */
#define STINT_HASH_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* The xorshift-multiply finaliser both mixes below are made of: three
 * xor-shifts (s1, s2, s3) around two odd multipliers (m1, m2). */
static inline uint64_t stint_hash_xmx(uint64_t x, unsigned s1, uint64_t m1, unsigned s2, uint64_t m2, unsigned s3)
{
    x = (x ^ (x >> s1)) * m1;
    x = (x ^ (x >> s2)) * m2;
    return x ^ (x >> s3);
}

/* MurmurHash3's 64-bit finaliser: every input bit affects every output bit. */
static inline uint64_t stint_hash_fmix64(uint64_t x)
{
    return stint_hash_xmx(x, 33, UINT64_C(0xff51afd7ed558ccd), 33, UINT64_C(0xc4ceb9fe1a85ec53), 33);
}

/* splitmix64's finaliser (a different, equally good mix; the OTLP writer's
 * ids are made with it). */
static inline uint64_t stint_hash_splitmix64(uint64_t x)
{
    return stint_hash_xmx(x, 30, UINT64_C(0xbf58476d1ce4e5b9), 27, UINT64_C(0x94d049bb133111eb), 31);
}

/* The index of key's slot in a table of 2^bits slots (1 <= bits <= 63),
 * from the high bits of key * STINT_HASH_GOLDEN. */
static inline size_t stint_hash_slot(uint64_t key, unsigned bits)
{
    return (size_t)((key * STINT_HASH_GOLDEN) >> (64 - bits));
}

/* Two words into one well-mixed word (keys such as (pid, tid)). */
static inline uint64_t stint_hash_pair(uint64_t a, uint64_t b)
{
    return stint_hash_fmix64(a ^ (b * STINT_HASH_GOLDEN) ^ (b >> 32));
}

/* n bytes at s, a word at a time (names, categories: short strings). */
static inline uint64_t stint_hash_bytes(const char *s, size_t n)
{
    uint64_t h = STINT_HASH_GOLDEN ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = stint_hash_fmix64(h ^ w);
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return stint_hash_fmix64(h ^ w ^ UINT64_C(0x1234567));
}

#endif
