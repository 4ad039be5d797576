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
