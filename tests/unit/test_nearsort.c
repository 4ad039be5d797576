/* SPDX-License-Identifier: MIT */
/*
 * test_nearsort.c - nearsort.h gives exactly the stable sort of its input,
 * on both of its ways (a few strays merged back; many, merged by runs), for
 * the shapes traces have (sorted, late single elements, late batches,
 * interleaved streams) and the ones they should not (reversed, random), with
 * heavy key ties so that stability is what decides the order. Each element
 * carries its input position, which the key ignores; the reference is an
 * insertion sort (stable by construction).
 */
#include "check.h"
#include "base/nearsort.h"

struct el {
    int64_t key;
    uint32_t at; /* input position: not part of the order */
};

static inline int el_less(const struct el *a, const struct el *b) { return a->key < b->key; }

STINT_DEFINE_NEAR_SORT(near_sort, struct el, el_less)

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void) { return check_xorshift(&rng); }

static void reference(struct el *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct el x = v[i];
        size_t j = i;
        while (j > 0 && el_less(&x, &v[j - 1])) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

enum shape { SORTED, FEW_LATE, LATE_BATCHES, INTERLEAVED, REVERSED, RANDOM, NSHAPES };

static const char *const shape_name[] = {"sorted", "few late", "late batches", "interleaved", "reversed", "random"};

/* Fills v[0..n) with keys of the given shape; keys repeat (ties) through `tie`. */
static void fill(struct el *v, size_t n, enum shape sh, int64_t tie)
{
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)i / tie;
        switch (sh) {
        case SORTED:
            break;
        case FEW_LATE: /* one element in 30 written up to 50 places late */
            if (next() % 30 == 0)
                k -= (int64_t)(next() % 50) / tie;
            break;
        case LATE_BATCHES: /* blocks of 64 that belong 200 places earlier */
            if ((i / 64) % 5 == 4)
                k -= 200 / tie;
            break;
        case INTERLEAVED: /* two sorted streams one after the other */
            k = (int64_t)(i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1) / tie;
            break;
        case REVERSED:
            k = (int64_t)(n - i) / tie;
            break;
        case RANDOM:
            k = (int64_t)(next() % (n + 1)) / tie;
            break;
        case NSHAPES:
            break;
        }
        v[i].key = k;
        v[i].at = (uint32_t)i;
    }
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 16, 17, 100, 1000, 4099};
    static const int64_t ties[] = {1, 3, 40};
    size_t cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int sh = 0; sh < NSHAPES; sh++)
            for (size_t ti = 0; ti < sizeof ties / sizeof *ties; ti++) {
                size_t n = sizes[si];
                struct el *v = malloc((n ? n : 1) * sizeof *v), *w = malloc((n ? n : 1) * sizeof *w);
                REQUIRE(v && w);
                fill(v, n, (enum shape)sh, ties[ti]);
                if (n)
                    memcpy(w, v, n * sizeof *v);
                reference(w, n);
                CHECK(near_sort(v, n) == 1);
                size_t bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += v[i].key != w[i].key || v[i].at != w[i].at;
                if (bad)
                    fprintf(stderr, "n=%zu shape=%s tie=%lld: %zu elements differ from the stable sort\n", n,
                            shape_name[sh], (long long)ties[ti], bad);
                CHECK(bad == 0);
                cases++;
                free(v);
                free(w);
            }
    CHECK(cases == 12 * NSHAPES * 3);
    CHECK_DONE();
}
