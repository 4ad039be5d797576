/* SPDX-License-Identifier: MIT */
/*
 * model_loss.c - what the program's tracer lost before its spans reached the
 * file (struct stint_loss, model.h): recorded by the readers as the file
 * reports it, taken from a Chrome trace's metadata, merged per thread.
 *
 * The losses are kept apart from the model's `dropped` (events the reader
 * could not keep): they were never in the file, and they have a thread and
 * a time range where the writer knew them.
 */
#include "model/model_int.h"
#include "base/cmp.h"
#include "base/tsparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOKBACK 8 /* entries searched for the same thread before a new one is added */

/* Folds b into a (same thread): counts added, ranges joined. */
static void join(struct stint_loss *a, const struct stint_loss *b)
{
    a->count = stint_count_add(a->count, b->count);
    if (!(b->flags & STINT_LOSS_RANGE))
        return;
    if (!(a->flags & STINT_LOSS_RANGE)) {
        a->first_ns = b->first_ns, a->last_ns = b->last_ns;
        a->flags |= STINT_LOSS_RANGE;
        return;
    }
    if (b->first_ns < a->first_ns)
        a->first_ns = b->first_ns;
    if (b->last_ns > a->last_ns)
        a->last_ns = b->last_ns;
}

static int same_thread(const struct stint_loss *a, const struct stint_loss *b)
{
    return (a->flags & STINT_LOSS_THREAD) == (b->flags & STINT_LOSS_THREAD) &&
           (!(a->flags & STINT_LOSS_THREAD) || (a->pid == b->pid && a->tid == b->tid));
}

void stint_model_loss(struct stint_model *m, int64_t pid, int64_t tid, uint64_t count, int64_t first_ns,
                      int64_t last_ns, unsigned flags)
{
    if (count == 0)
        return;
    struct stint_loss l = {pid, tid, count, first_ns, last_ns, flags & (STINT_LOSS_RANGE | STINT_LOSS_THREAD)};
    if (!(l.flags & STINT_LOSS_THREAD))
        l.pid = l.tid = 0;
    if ((l.flags & STINT_LOSS_RANGE) && (l.first_ns < -STINT_TS_LIMIT || l.first_ns > STINT_TS_LIMIT ||
                                         l.last_ns < -STINT_TS_LIMIT || l.last_ns > STINT_TS_LIMIT))
        l.flags &= ~STINT_LOSS_RANGE; /* past the kept range of times (tsparse.h): a rebase could overflow */
    if (!(l.flags & STINT_LOSS_RANGE))
        l.first_ns = l.last_ns = 0;
    else if (l.first_ns > l.last_ns) { /* (a writer gives them in order; one that does not still bounds them) */
        int64_t t = l.first_ns;
        l.first_ns = l.last_ns, l.last_ns = t;
    }
    m->lost = stint_count_add(m->lost, count);
    size_t n = m->losses.len;
    for (size_t i = n; i > 0 && n - i < LOOKBACK; i--) {
        struct stint_loss *x = &STINT_BA_AT(&m->losses, struct stint_loss, i - 1);
        if (same_thread(x, &l)) {
            join(x, &l);
            return;
        }
    }
    *(struct stint_loss *)stint_i_xpush(&m->losses) = l;
}

/* Orders losses: threads known first, by (pid, tid). */
static int cmp_loss(const void *pa, const void *pb)
{
    const struct stint_loss *a = pa, *b = pb;
    int ta = !!(a->flags & STINT_LOSS_THREAD), tb = !!(b->flags & STINT_LOSS_THREAD);
    if (ta != tb)
        return tb - ta;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return 0;
}

/* The metadata arg whose key is "json_metadata." + name, or NULL. */
static const struct stint_arg *meta_arg(const struct stint_model *m, const char *name)
{
    static const char pre[] = "json_metadata.";
    size_t pn = sizeof pre - 1, nn = strlen(name);
    for (size_t i = 0; i < m->metadata.len; i++) {
        const struct stint_arg *a = &STINT_BA_AT(&m->metadata, struct stint_arg, i);
        size_t kl;
        const char *k = stint_model_str(m, a->key, &kl);
        if (kl == pn + nn && !memcmp(k, pre, pn) && !memcmp(k + pn, name, nn))
            return a;
    }
    return NULL;
}

static int arg_int(const struct stint_arg *a, int64_t *out)
{
    if (!a || (a->kind != STINT_ARG_INT && !(a->kind == STINT_ARG_UINT && a->ival >= 0)))
        return -1;
    *out = a->ival;
    return 0;
}

/* One field of dropped_ranges[i], or NULL. */
static const struct stint_arg *range_field(const struct stint_model *m, size_t i, const char *field)
{
    char name[96];
    snprintf(name, sizeof name, "dropped_ranges[%zu].%s", i, field);
    return meta_arg(m, name);
}

/* A libstint Chrome trace's losses (struct stint_loss, model.h). */
static void chrome_losses(struct stint_model *m)
{
    const struct stint_arg *schema = meta_arg(m, "schema");
    size_t sl = 0;
    const char *s = schema && schema->kind == STINT_ARG_STRING ? stint_model_str(m, schema->sval, &sl) : "";
    if (sl < 6 || memcmp(s, "stint/", 6))
        return; /* the keys below are libstint's own: another writer's may mean something else */
    int64_t origin = 0;
    int have_origin = arg_int(meta_arg(m, "origin_monotonic_ns"), &origin) == 0;
    for (size_t i = 0;; i++) {
        int64_t pid, tid, count, first = 0, last = 0;
        const struct stint_arg *cf = range_field(m, i, "count");
        if (!cf && !range_field(m, i, "tid") && !range_field(m, i, "pid"))
            break;
        if (arg_int(cf, &count) != 0 || count < 0 || arg_int(range_field(m, i, "pid"), &pid) != 0 ||
            arg_int(range_field(m, i, "tid"), &tid) != 0) {
            stint_model_repair(m, STINT_REPAIR_BAD_LOSS_RECORD,
                               "metadata.dropped_ranges[%zu]: expected integers pid, tid and count: this loss "
                               "is not counted",
                               i);
            continue;
        }
        unsigned flags = STINT_LOSS_THREAD;
        /* absolute CLOCK_MONOTONIC ns (0: not known), the trace's ts counting from origin_monotonic_ns
         * (lost spans may have started before it: a range may be negative) */
        int64_t a = 0, z = 0;
        if (have_origin && arg_int(range_field(m, i, "first_ns"), &first) == 0 &&
            arg_int(range_field(m, i, "last_ns"), &last) == 0 && first && last &&
            !__builtin_sub_overflow(first, origin, &a) && !__builtin_sub_overflow(last, origin, &z))
            flags |= STINT_LOSS_RANGE;
        stint_model_loss(m, pid, tid, (uint64_t)count, a, z, flags);
    }
    int64_t ring_lost;
    if (arg_int(meta_arg(m, "lost_in_thread_buffers"), &ring_lost) == 0 && ring_lost > 0)
        stint_model_loss(m, 0, 0, (uint64_t)ring_lost, 0, 0, 0); /* a flight recorder's: no thread, no range */
}

void stint_i_losses_finish(struct stint_model *m)
{
    if (m->format && !strcmp(m->format, "chrome-json"))
        chrome_losses(m);
    size_t n = m->losses.len;
    if (n < 2)
        return;
    struct stint_loss *l = m->losses.data;
    stint_xqsort(l, n, sizeof *l, cmp_loss);
    size_t w = 0;
    for (size_t i = 1; i < n; i++) {
        if (same_thread(&l[w], &l[i]))
            join(&l[w], &l[i]);
        else
            l[++w] = l[i];
    }
    m->losses.len = w + 1;
}
