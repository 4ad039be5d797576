/* SPDX-License-Identifier: MIT */
/*
 * check.h - the unit tests' assertions. Each failed CHECK prints file:line and
 * the expression, and the test exits 1 at the end (CHECK_DONE) or at once
 * (REQUIRE). A test that finds its input absent prints why and exits 77
 * (CTest's "skipped", see tests/tests.cmake). A test that could run only some
 * of its parts says which part it skipped (CHECK_SKIP_PART) and, when the rest
 * passed, also exits 77, so that a missing corpus shows in CTest's summary.
 */
#ifndef STINT_TEST_CHECK_H
#define STINT_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which sanitizers this test was built with (GCC defines __SANITIZE_*,
 * clang answers __has_feature): CHECK_ASAN_OR_TSAN, CHECK_TSAN, CHECK_UBSAN
 * are 0 or 1. Tests use them to size loads or skip what a sanitizer cannot
 * follow, and say so. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHECK_ASAN_OR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHECK_ASAN_OR_TSAN 1
#endif
#endif
#ifndef CHECK_ASAN_OR_TSAN
#define CHECK_ASAN_OR_TSAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define CHECK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHECK_TSAN 1
#endif
#endif
#ifndef CHECK_TSAN
#define CHECK_TSAN 0
#endif
#if defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
#define CHECK_UBSAN 1
#endif
#endif
#ifndef CHECK_UBSAN
#define CHECK_UBSAN 0
#endif

/* A small deterministic generator for tests (xorshift64; state never 0). */
static inline uint64_t check_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static int check_failures_;
static int check_count_;
static int check_skipped_parts_;

/* Records that a part of the test did not run, printing why on stdout. */
#define CHECK_SKIP_PART(...)                                                                       \
    do {                                                                                           \
        printf("SKIP (part): " __VA_ARGS__);                                                       \
        putchar('\n');                                                                             \
        check_skipped_parts_++;                                                                    \
    } while (0)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count_++;                                                                            \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failures_++;                                                                     \
        }                                                                                          \
    } while (0)

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        check_count_++;                                                                            \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        check_count_++;                                                                            \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, a_, b_);                                                               \
            check_failures_++;                                                                     \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
    do {                                                                                           \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);             \
        check_count_++;                                                                            \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu vs %llu / 0x%llx vs 0x%llx)\n",   \
                    __FILE__, __LINE__, #a, #b, a_, b_, a_, b_);                                   \
            check_failures_++;                                                                     \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        check_count_++;                                                                            \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n  got:  \"%s\"\n  want: \"%s\"\n",     \
                    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");           \
            check_failures_++;                                                                     \
        }                                                                                          \
    } while (0)

/* Ends main(): prints the tally and returns the exit code: 1 on a failure,
 * else 77 when a part was skipped (the rest passed), else 0. */
#define CHECK_DONE()                                                                               \
    do {                                                                                           \
        fprintf(stderr, "%d checks, %d failed, %d part(s) skipped\n", check_count_,               \
                check_failures_, check_skipped_parts_);                                            \
        return check_failures_ ? 1 : check_skipped_parts_ ? 77 : 0;                                \
    } while (0)

/* The shared corpus folder (../shared/corpus), or NULL with a printed reason. */
static inline const char *check_corpus_dir(void)
{
    static char path[4096];
    const char *shared = getenv("STINT_SHARED_DIR");
    if (!shared || !*shared)
        shared = "../shared";
    snprintf(path, sizeof path, "%s/corpus", shared);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fclose(f);
    return path;
}

#define SKIP_WITHOUT_CORPUS(dirvar)                                                                \
    const char *dirvar = check_corpus_dir();                                                       \
    if (!dirvar) {                                                                                 \
        printf("SKIP: the shared corpus (STINT_SHARED_DIR/corpus) is absent\n");                   \
        return 77;                                                                                 \
    }

#endif
