/* SPDX-License-Identifier: MIT */
/* fuzz_tsparse.c - libFuzzer target: the exact decimal -> int64 ns parsers.
 * Invariants checked against an independent reference: stint_parse_i64 must
 * agree with a digit-by-digit parse (value or overflow), and stint_parse_ts
 * with mult 1 must equal stint_parse_i64 on plain integers. Any result must
 * be one of 0, -1, -2. The readers' fused fast path stint_scan_num must give
 * what the general parsers give for the prefix it reads. */
#include "base/tsparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 0 ok, -1 not an integer, -2 overflow */
static int ref_i64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == n)
        return -1;
    uint64_t v = 0;
    int over = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (over || v > lim)
        return -2;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    int64_t a = 0, b = 0, c = 0;
    int ra = stint_parse_i64(s, size, &a);
    if (ra != 0 && ra != -1 && ra != -2)
        abort();
    int rr = ref_i64(s, size, &b);
    if (rr == 0 && (ra != 0 || a != b))
        abort();
    if (rr == -2 && ra == 0)
        abort();
    for (int k = 0; k < 4; k++) {
        static const int64_t mult[4] = {1, 1000, 1000000, 1000000000};
        int rt = stint_parse_ts(s, size, mult[k], &c);
        if (rt != 0 && rt != -1 && rt != -2)
            abort();
        int64_t want;
        if (rr == 0 && !__builtin_mul_overflow(b, mult[k], &want) && (rt != 0 || c != want))
            abort();
    }
    int rd = stint_parse_duration(s, size, &c);
    if (rd != 0 && rd != -1 && rd != -2)
        abort();
    /* stint_scan_num reads past the number: give it a padded copy, as the
     * JSON window is */
    static char pad[4096 + 32];
    if (size <= 4096) {
        memcpy(pad, data, size);
        memset(pad + size, 0, 32);
        for (int64_t mult = 1; mult <= 1000; mult += 999) {
            const char *q = stint_scan_num(pad, mult, &a);
            if (!q)
                continue;
            if (q <= pad || q > pad + size)
                abort();
            size_t len = (size_t)(q - pad);
            int rt = mult == 1 ? stint_parse_i64(pad, len, &b) : stint_parse_ts(pad, len, mult, &b);
            if (rt != 0 || a != b)
                abort();
        }
    }
    return 0;
}
