/* SPDX-License-Identifier: MIT */
/*
 * test_report_trim.c - the report's selection of the k first items
 * (write/report_trim.h) against a full qsort by the same order: for sizes
 * 0 to 5000, every k from a list, and inputs sorted, reversed, random, with
 * few distinct keys (ties broken by index, as the report's orders do) and
 * organ-pipe shaped, v[0, k) must be the sort's first k as a set, and the
 * whole array a permutation of the input.
 */
#include "check.h"
#include "write/report_trim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int64_t *keys; /* the order: key descending, then index ascending (strict) */
static int by_key(const void *pa, const void *pb, void *ctx)
{
    (void)ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (keys[a] != keys[b])
        return keys[a] > keys[b] ? -1 : 1;
    return (a > b) - (a < b);
}
static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

enum shape { SORTED, REVERSED, RANDOM, FEW, ORGAN, NSHAPES };

static void fill(int64_t *k, size_t n, enum shape sh, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) {
        switch (sh) {
        case SORTED: k[i] = (int64_t)(n - i); break;
        case REVERSED: k[i] = (int64_t)i; break;
        case RANDOM: k[i] = (int64_t)(check_xorshift(rng) % 1000003); break;
        case FEW: k[i] = (int64_t)(check_xorshift(rng) % 3); break;
        default: k[i] = (int64_t)(i < n / 2 ? i : n - i); break;
        }
    }
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 16, 17, 100, 1000, 5000};
    uint64_t rng = 0x9e3779b97f4a7c15u;
    size_t cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int sh = 0; sh < NSHAPES; sh++) {
            size_t n = sizes[si];
            int64_t *k = malloc((n ? n : 1) * sizeof *k);
            uint32_t *v = malloc((n ? n : 1) * sizeof *v), *w = malloc((n ? n : 1) * sizeof *w);
            REQUIRE(k && v && w);
            fill(k, n, (enum shape)sh, &rng);
            keys = k;
            const size_t ks[] = {0, 1, 2, n / 3, n / 2, n ? n - 1 : 0, n, n + 5};
            for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
                size_t want = ks[ki];
                for (size_t i = 0; i < n; i++)
                    v[i] = w[i] = (uint32_t)((i * 7919) % (n ? n : 1)); /* a permutation when n is no multiple of 7919 */
                stint_report_select(v, n, want, by_key, NULL);
                qsort_r(w, n, sizeof *w, by_key, NULL);
                size_t m = want < n ? want : n;
                qsort(v, m, sizeof *v, u32_cmp); /* the first m as sets */
                qsort(w, m, sizeof *w, u32_cmp);
                CHECK(memcmp(v, w, m * sizeof *v) == 0);
                qsort(v, n, sizeof *v, u32_cmp); /* nothing lost or doubled */
                int perm = 1;
                for (size_t i = 0; i < n; i++)
                    perm &= v[i] == (uint32_t)i;
                CHECK(perm);
                cases++;
            }
            free(k);
            free(v);
            free(w);
        }
    CHECK(cases == sizeof sizes / sizeof *sizes * NSHAPES * 8);
    CHECK_DONE();
}
