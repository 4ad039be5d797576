/* SPDX-License-Identifier: MIT */
/*
 * write_chrome_args.c - a slice's "args" object in the Chrome writer
 * (write_chrome.c): the model's args, or those a caller keeps out of the
 * model (writers.h, ext_args: convert's spill) with the model's (an E's)
 * merged in as the model merges an E's args into its B's, then the window's
 * "stint_clipped". Keys lose their "args." prefix; values keep their types.
 * Args a caller wrote ahead (ext_text) are copied as they are: they are
 * these very bytes (read/chrome_args.c, stint_i_chrome_args_render).
 */
#include "write/write_chrome_int.h"

#include "write/textout.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* One arg as `"key":value` (the key less its "args." prefix), after a
 * comma unless first; am holds its strings. */
static void put_arg(FILE *f, const struct stint_model *am, const struct stint_arg *a, int first)
{
    size_t kl;
    const char *key = stint_model_str(am, a->key, &kl);
    if (kl > 5 && !memcmp(key, "args.", 5)) {
        key += 5;
        kl -= 5;
    }
    if (!first)
        putc(',', f);
    stint_out_json_str(f, key, kl);
    putc(':', f);
    stint_put_arg_json(f, am, a);
}

/* Slice s's own args from o->ext_args (nx of them, xa, strings of xm) with
 * the model's (an E's) merged in as model_walk.c merges an E's into its
 * B's: an E value replaces the first arg of its key, the others follow. */
static void put_merged_args(FILE *f, const struct stint_model *m, const struct stint_slice *s,
                            const struct stint_arg *xa, size_t nx, const struct stint_model *xm)
{
    size_t ne = s->nargs, n = nx;
    const struct stint_arg **v = stint_xmalloc((nx + ne) * sizeof *v);
    const struct stint_model **vm = stint_xmalloc((nx + ne) * sizeof *vm);
    for (size_t i = 0; i < nx; i++) {
        v[i] = &xa[i];
        vm[i] = xm;
    }
    for (size_t k = 0; k < ne; k++) {
        const struct stint_arg *ea = stint_model_arg_at(m, s->args + (uint32_t)k);
        size_t el, il;
        const char *ek = stint_model_str(m, ea->key, &el);
        size_t i = 0;
        for (; i < n; i++) {
            const char *ik = stint_model_str(vm[i], v[i]->key, &il);
            if (il == el && !memcmp(ik, ek, el))
                break;
        }
        v[i] = ea;
        vm[i] = m;
        n += i == n;
    }
    for (size_t i = 0; i < n; i++)
        put_arg(f, vm[i], v[i], i == 0);
    free(v);
    free(vm);
}

/* The slice's args (its own from o->ext_args when set, then the model's);
 * clip (STINT_I_CLIP_START | STINT_I_CLIP_END) adds "stint_clipped" saying where a window
 * cut it. */
void stint_i_chrome_put_args(FILE *f, const struct stint_model *m, const struct stint_slice *s, unsigned clip,
                             const struct stint_write_opts *o)
{
    const char *text;
    size_t tl;
    uint64_t bad;
    if (o && o->ext_text && o->ext_text(o->ext_ctx, s, &text, &tl, &bad)) { /* written already: a copy */
        if (bad)
            stint_out_bad_utf8_add(bad);
        if (!tl && !s->nargs && !clip)
            return;
        fputs(",\"args\":{", f);
        fwrite(text, 1, tl, f);
        /* (a slice with text has no args of an E: its text was made when it was read, closed) */
        for (uint32_t k = 0; k < s->nargs; k++)
            put_arg(f, m, stint_model_arg_at(m, s->args + k), k == 0 && !tl);
        if (clip)
            fprintf(f, "%s\"stint_clipped\":\"%s\"", s->nargs || tl ? "," : "",
                    clip == (STINT_I_CLIP_START | STINT_I_CLIP_END) ? "start,end"
                    : clip == STINT_I_CLIP_START                 ? "start"
                                                                 : "end");
        putc('}', f);
        return;
    }
    size_t nx = 0;
    const struct stint_model *xm = m;
    const struct stint_arg *xa = o && o->ext_args ? o->ext_args(o->ext_ctx, m, s, &nx, &xm) : NULL;
    if (!s->nargs && !nx && !clip)
        return;
    fputs(",\"args\":{", f);
    if (nx && s->nargs)
        put_merged_args(f, m, s, xa, nx, xm);
    else {
        for (size_t k = 0; k < nx; k++)
            put_arg(f, xm, &xa[k], k == 0);
        for (uint32_t k = 0; k < s->nargs; k++)
            put_arg(f, m, stint_model_arg_at(m, s->args + k), k == 0);
    }
    if (clip)
        fprintf(f, "%s\"stint_clipped\":\"%s\"", s->nargs || nx ? "," : "",
                clip == (STINT_I_CLIP_START | STINT_I_CLIP_END) ? "start,end" : clip == STINT_I_CLIP_START ? "start" : "end");
    putc('}', f);
}
