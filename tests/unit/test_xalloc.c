/* SPDX-License-Identifier: MIT */
/*
 * test_xalloc.c - base/xalloc.h: memory comes back usable, and running out
 * (or asking for more than size_t holds) ends the process with exit code 5
 * and "stint: out of memory" on stderr, never a crash or a NULL.
 */
#include "check.h"

#include "base/exitcode.h"
#include "base/xalloc.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* Under ASan a request past its largest allocation must return NULL, as
 * malloc does without it, instead of ending the test (the build hides
 * symbols by default; the sanitizer runtime must see this one). */
const char *__asan_default_options(void);
__attribute__((visibility("default"), used)) const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* Runs fn in a child with stderr captured; returns its exit status (-1 if it
 * did not exit) and copies what it wrote to stderr into err. */
static int in_child(void (*fn)(void), char *err, size_t cap)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -2;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fds[0], err + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void huge_malloc(void)
{
    volatile size_t n = SIZE_MAX / 2;
    stint_xmalloc(n);
}

static void overflow_array(void)
{
    stint_xreallocarray(NULL, SIZE_MAX / 8 + 1, 16);
}

static void huge_calloc(void)
{
    stint_xcalloc(SIZE_MAX / 4, 2);
}

static void null_checked(void)
{
    stint_xcheck(NULL);
}

int main(void)
{
    char *d = stint_xstrdup("stint");
    CHECK(strcmp(d, "stint") == 0);
    free(d);
    d = stint_xstrndup("abcdef", 3);
    CHECK(strcmp(d, "abc") == 0);
    free(d);
    int *a = stint_xcalloc(1000, sizeof *a);
    for (int i = 0; i < 1000; i++)
        CHECK(a[i] == 0);
    a = stint_xreallocarray(a, 100000, sizeof *a);
    a[99999] = 7;
    CHECK(a[99999] == 7);
    CHECK(stint_xreallocarray(a, 0, sizeof *a) == NULL); /* frees */
    void *z = stint_xmalloc(0);                             /* a valid pointer, never NULL */
    CHECK(z != NULL);
    free(z);

    void (*dies[])(void) = {huge_malloc, overflow_array, huge_calloc, null_checked};
    for (size_t k = 0; k < sizeof dies / sizeof *dies; k++) {
        char err[256];
        int rc = in_child(dies[k], err, sizeof err);
        CHECK(rc == STINT_EXIT_NOMEM);
        /* its last line (a sanitizer may warn before it) */
        static const char want[] = "stint: out of memory\n";
        size_t n = strlen(err), w = sizeof want - 1;
        CHECK_STR(n >= w ? err + n - w : err, want);
        CHECK(n == w || (n > w && err[n - w - 1] == '\n'));
        if (rc != STINT_EXIT_NOMEM)
            fprintf(stderr, "case %zu: exit %d, stderr \"%s\"\n", k, rc, err);
    }
    CHECK_DONE();
}
