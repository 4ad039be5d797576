// Compile test: the public header as C++ with -Wpedantic -Werror, with
// STINT_ENABLED at 0 and at 1.
#include <stint/stint.h>

int stint_compile_probe_cxx(int x);
int stint_compile_probe_cxx(int x)
{
    STINT_SCOPE("probe.scope");
    {
        STINT_SCOPE_A("probe.attrs", "k=v");
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
    stint_stats st;
    (void)st;
    return x;
}
