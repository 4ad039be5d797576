/* SPDX-License-Identifier: MIT */
/*
 * xalloc.h - the CLI's one way to allocate memory that it cannot do without
 * (CLI internal).
 *
 * The analyzer has no way to go on without memory it asked for: every
 * stint_x* function either returns the memory or ends the process with
 * "stint: out of memory" on stderr and exit code STINT_EXIT_NOMEM
 * (exitcode.h). A caller that can go on without (an optional cache, a
 * larger buffer that a smaller one can replace) calls malloc itself and
 * handles NULL. Sizes are checked for overflow (n * size past SIZE_MAX is
 * out of memory too). libstint never uses these: the library counts and
 * goes on, it never exits.
 */
#ifndef STINT_CLI_XALLOC_H
#define STINT_CLI_XALLOC_H

#include <stddef.h>

/* Prints "stint: out of memory" and exits STINT_EXIT_NOMEM. */
_Noreturn void stint_die_nomem(void);

/* Returns p unless it is NULL, which is out of memory. */
void *stint_xcheck(void *p);

void *stint_xmalloc(size_t size);
void *stint_xcalloc(size_t n, size_t size);
/* realloc(p, n * size), n * size checked; size 0 frees and returns NULL. */
void *stint_xreallocarray(void *p, size_t n, size_t size);
char *stint_xstrdup(const char *s);
char *stint_xstrndup(const char *s, size_t n);

/* Room for need elements of size bytes in array p of *cap elements: when
 * need > *cap, *cap doubles (from first when 0) until it holds need, and
 * the array is reallocated. Returns the array (p itself when it had room).
 * stint_grow returns NULL when out of memory (p and *cap then unchanged,
 * p still valid): for callers that report the error themselves;
 * stint_xgrow ends the process instead. Use:
 *     v = stint_xgrow(v, &cap, n + 1, sizeof *v, 64);
 */
void *stint_grow(void *p, size_t *cap, size_t need, size_t size, size_t first);
void *stint_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t first);
/* stint_xgrow, with the elements it adds zeroed (for tables indexed by id:
 * room for index i is need = i + 1). */
void *stint_xgrow_zeroed(void *p, size_t *cap, size_t need, size_t size, size_t first);

#endif
