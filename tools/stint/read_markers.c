#include "readers.h"
int stint_read_markers(struct stint_input *in, struct stint_model *m, const struct stint_read_opts *o)
{
    (void)in; (void)o;
    stint_model_fail(m, "markers reader not yet built");
    return 1;
}
