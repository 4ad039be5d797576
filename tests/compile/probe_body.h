/* SPDX-License-Identifier: MIT */
/* probe_body.h - the macro uses both compile tests (header_c.c as C11,
 * header_cxx.cpp as C++) put through the public header, STINT_ENABLED at 0
 * and at 1: the body of a function of int x that returns x. */
STINT_SCOPE("probe.scope");
{
    STINT_SCOPE_A("probe.attrs", "k=v n=1");
    STINT_BEGIN(s, "probe.begin");
    x += 1;
    STINT_END(s);
}
/* a status ignored on purpose: (void) silences STINT_NODISCARD (GCC's
 * warn_unused_result did not let it) */
(void)stint_flush();
/* STINT_END is a statement in an if/else without braces (empty when
 * disabled, it was: -Wempty-body) */
{
    STINT_BEGIN(t, "probe.if");
    if (x > 2)
        STINT_END(t);
    else
        STINT_END(t);
}
/* the version macros: usable in #if, and one number that orders releases */
#if !defined(STINT_VERSION) || STINT_VERSION != STINT_VERSION_MAJOR * 10000 + STINT_VERSION_MINOR * 100 + STINT_VERSION_PATCH
#error "STINT_VERSION is not MAJOR * 10000 + MINOR * 100 + PATCH"
#endif
#if !STINT_VERSION_AT_LEAST(0, 1, 0) || STINT_VERSION_AT_LEAST(STINT_VERSION_MAJOR, STINT_VERSION_MINOR, STINT_VERSION_PATCH + 1)
#error "STINT_VERSION_AT_LEAST disagrees with STINT_VERSION"
#endif
x += STINT_VERSION - STINT_VERSION;
/* the build passes project(VERSION) as one number: the header must agree */
#if defined(STINT_PROJECT_VERSION_NUMBER) && STINT_PROJECT_VERSION_NUMBER != STINT_VERSION
#error "include/stint/version.h disagrees with project(VERSION)"
#endif
