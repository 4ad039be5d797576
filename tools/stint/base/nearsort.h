/* SPDX-License-Identifier: MIT */
/*
 * nearsort.h - a stable sort for arrays that are almost in order.
 *
 * Traces are written mostly in time order: a lane's spans, its end events and
 * the flow events arrive sorted but for a few percent written late (a parent
 * after its children, one thread's batch after another's). For such input a
 * general sort pays n log n compares; this one pays two passes plus a sort of
 * the late elements only:
 *
 *   1. The elements below the running maximum of those kept so far are the
 *      strays; the kept ones are already in order.
 *   2. The kept ones are packed to the front, the strays copied out and
 *      sorted stably (their ascending runs merged pairwise, as below).
 *   3. Both are merged from the back into place. On equal keys the kept
 *      element goes first: a kept element equal to a stray always came
 *      before it in the input (every element kept after a stray is >= the
 *      maximum that made it a stray, which is > the stray). So the result is
 *      exactly the stable sort of the input.
 *
 * When more than an eighth of the elements are strays (late batches rather
 * than late elements) it sorts by merging the input's ascending runs instead,
 * pairwise, as many rounds as log2 of their number: also stable, and cheap
 * when there are few runs. Both ways the comparison is inlined (glibc's qsort
 * calls it through a pointer); the scratch comes from hmem.h. Returns 1 when
 * sorted, 0 when the scratch could not be allocated (nothing was moved; the
 * caller sorts another way).
 *
 * STINT_DEFINE_NEAR_SORT(NAME, T, LESS) defines
 *     static int NAME(T *v, size_t n);
 * with LESS(const T *a, const T *b) a strict weak order.
 */
#ifndef STINT_CLI_NEARSORT_H
#define STINT_CLI_NEARSORT_H

#include "base/hmem.h"

#include <stddef.h>
#include <string.h>

#define STINT_DEFINE_NEAR_SORT(NAME, T, LESS)                                                                        \
    /* merges the sorted runs src[run[r] .. run[r+1]) pairwise into dst, r < nr */                                   \
    static void NAME##_merge(const T *src, T *dst, const size_t *run, size_t nr)                                     \
    {                                                                                                                \
        for (size_t r = 0; r < nr; r += 2) {                                                                         \
            size_t a = run[r], mid = run[r + 1], b = r + 2 <= nr ? run[r + 2] : mid;                                 \
            size_t i = a, j = mid, o = a;                                                                            \
            while (i < mid && j < b)                                                                                 \
                dst[o++] = LESS(&src[j], &src[i]) ? src[j++] : src[i++];                                             \
            while (i < mid)                                                                                          \
                dst[o++] = src[i++];                                                                                 \
            while (j < b)                                                                                            \
                dst[o++] = src[j++];                                                                                 \
        }                                                                                                            \
    }                                                                                                                \
    /* the number of ascending runs of v[0..n) (n > 0) */                                                            \
    static size_t NAME##_nruns(const T *v, size_t n)                                                                 \
    {                                                                                                                \
        size_t nr = 1;                                                                                               \
        for (size_t i = 1; i < n; i++)                                                                               \
            if (LESS(&v[i], &v[i - 1]))                                                                              \
                nr++;                                                                                                \
        return nr;                                                                                                   \
    }                                                                                                                \
    /* sorts v[0..n) (n > 0) stably by merging its nr ascending runs, with scratch t[0..n) and run[0..nr] */         \
    static void NAME##_by_runs(T *v, T *t, size_t *run, size_t nr, size_t n)                                         \
    {                                                                                                                \
        size_t k = 0;                                                                                                \
        run[k++] = 0;                                                                                                \
        for (size_t i = 1; i < n; i++)                                                                               \
            if (LESS(&v[i], &v[i - 1]))                                                                              \
                run[k++] = i;                                                                                        \
        run[nr] = n;                                                                                                 \
        T *src = v, *dst = t;                                                                                        \
        while (nr > 1) {                                                                                             \
            NAME##_merge(src, dst, run, nr);                                                                         \
            size_t m = 0;                                                                                            \
            for (size_t r = 0; r < nr; r += 2)                                                                       \
                run[m++] = run[r];                                                                                   \
            run[m] = n;                                                                                              \
            nr = m;                                                                                                  \
            T *x = src;                                                                                              \
            src = dst;                                                                                               \
            dst = x;                                                                                                 \
        }                                                                                                            \
        if (src != v)                                                                                                \
            memcpy(v, src, n * sizeof *v);                                                                           \
    }                                                                                                                \
    static int NAME(T *v, size_t n)                                                                                  \
    {                                                                                                                \
        size_t nstray = 0, top = 0;                                                                                  \
        for (size_t i = 1; i < n; i++) {                                                                             \
            if (LESS(&v[i], &v[top]))                                                                                \
                nstray++;                                                                                            \
            else                                                                                                     \
                top = i;                                                                                             \
        }                                                                                                            \
        if (nstray == 0)                                                                                             \
            return 1;                                                                                                \
        if (nstray > n / 8) {                                                                                        \
            size_t nr = NAME##_nruns(v, n);                                                                          \
            size_t *run = stint_hmem_alloc((nr + 1) * sizeof *run);                                                  \
            T *t = stint_hmem_alloc(n * sizeof *t);                                                                  \
            if (run && t)                                                                                            \
                NAME##_by_runs(v, t, run, nr, n);                                                                    \
            stint_hmem_free(run, (nr + 1) * sizeof *run);                                                            \
            stint_hmem_free(t, n * sizeof *t);                                                                       \
            return run && t;                                                                                         \
        }                                                                                                            \
        /* the strays, then their merge scratch, then their run starts */                                            \
        T *s = stint_hmem_alloc(2 * nstray * sizeof *s);                                                             \
        size_t *run = stint_hmem_alloc((nstray + 1) * sizeof *run);                                                  \
        if (!s || !run) {                                                                                            \
            stint_hmem_free(s, 2 * nstray * sizeof *s);                                                              \
            stint_hmem_free(run, (nstray + 1) * sizeof *run);                                                        \
            return 0;                                                                                                \
        }                                                                                                            \
        size_t k = 1, ns = 0;                                                                                        \
        for (size_t i = 1; i < n; i++) {                                                                             \
            if (LESS(&v[i], &v[k - 1]))                                                                              \
                s[ns++] = v[i];                                                                                      \
            else                                                                                                     \
                v[k++] = v[i];                                                                                       \
        }                                                                                                            \
        NAME##_by_runs(s, s + ns, run, NAME##_nruns(s, ns), ns);                                                     \
        size_t i = k, j = ns, o = n;                                                                                 \
        while (j > 0) {                                                                                              \
            if (i > 0 && LESS(&s[j - 1], &v[i - 1]))                                                                 \
                v[--o] = v[--i];                                                                                     \
            else                                                                                                     \
                v[--o] = s[--j];                                                                                     \
        }                                                                                                            \
        stint_hmem_free(s, 2 * nstray * sizeof *s);                                                                  \
        stint_hmem_free(run, (nstray + 1) * sizeof *run);                                                            \
        return 1;                                                                                                    \
    }

#endif
