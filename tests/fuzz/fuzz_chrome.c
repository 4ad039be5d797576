/* SPDX-License-Identifier: MIT */
/* fuzz_chrome.c - libFuzzer target: the Chrome Trace Event JSON reader on
 * plain (already decompressed) bytes, with args kept so they are walked.
 *
 * Then a differential check of lean mode (model.h, what `summary` uses):
 * the same bytes read with and without STINT_MODEL_LEAN must stream the same
 * thread-track slices to the span sink, in the same order, and count the
 * same repairs, drops and flows. Only the OVERLAP flag may differ (lean
 * records do not carry it; the repair count says the same). A third read,
 * lean with the walk split over two threads from the first span on (the
 * flow events then put in order on a thread of their own while the tracks
 * are walked), must stream the same slices in some order (compared by a sum
 * of per-slice hashes) with the same counts. A fourth, lean with
 * STINT_MODEL_LEAN_INSTANTS (summary's: thread instants counted, kept only
 * where a flow, a B/E or a slice that is not lean shares their track), must
 * stream the same slices but instants, in the same order, with the same
 * counts. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct stream {
    uint64_t hash, n;
    uint64_t sum; /* of per-slice hashes: the same whatever the order */
    uint64_t hash_ni, n_ni; /* the same over the slices but instants */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static uint64_t mix_str(uint64_t h, const struct stint_model *m, uint32_t id)
{
    size_t n;
    const char *s = stint_model_str(m, id, &n);
    for (size_t i = 0; i < n; i++)
        h = mix(h, (unsigned char)s[i]);
    return mix(h, n);
}

static void on_span(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    struct stream *st = ctx;
    uint64_t h = 0x2545f4914f6cdd1dULL;
    h = mix(h, (uint64_t)ev->ts_ns);
    h = mix(h, (uint64_t)ev->dur_ns);
    h = mix(h, ev->track);
    h = mix(h, ev->lane);
    h = mix_str(h, m, ev->cat);
    h = mix_str(h, m, ev->name);
    h = mix(h, ev->level);
    /* (a lean record keeps no thread time: THREAD_TIME is the full model's alone) */
    h = mix(h, (uint64_t)(ev->flags & ~(STINT_SLICE_OVERLAP | STINT_SLICE_NEEDS_INDEX | STINT_SLICE_THREAD_TIME)));
    h = mix(h, ev->parent_on_top);
    st->hash = mix(st->hash, h);
    st->sum += h;
    st->n++;
    if (!(ev->flags & STINT_SLICE_INSTANT)) {
        st->hash_ni = mix(st->hash_ni, h);
        st->n_ni++;
    }
}

/* The second walker's stream, added into the first's at the join. */
static void *split_fork(void *ctx, const struct stint_model *m)
{
    (void)ctx, (void)m;
    struct stream *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    return f;
}

static void split_join(void *ctx, void *forked, const struct stint_model *m)
{
    (void)m;
    struct stream *st = ctx, *f = forked;
    st->n += f->n;
    st->sum += f->sum;
    free(f);
}

static const struct stint_span_split split_from_one = {split_fork, split_join, 1};

/* What a read streamed and counted. */
struct outcome {
    struct stream st;
    uint64_t repairs[STINT_REPAIR_COUNT], dropped, flows;
    int rc;
};

/* Reads data with model_flags, the stream sink and split (or NULL): fills o. */
static void read_streamed(const uint8_t *data, size_t size, unsigned model_flags, const struct stint_span_split *split,
                          struct outcome *o)
{
    struct stint_model m;
    memset(o, 0, sizeof *o);
    o->rc = fuzz_read_model_split(stint_read_chrome, data, size, model_flags, 0, on_span, &o->st, split, &m);
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        o->repairs[k] = m.repairs[k];
    o->dropped = m.dropped;
    o->flows = m.flows.len;
    stint_model_free(&m);
}

/* Whether a and b streamed the same slices (in the same order when ordered)
 * and counted the same. */
static int same_outcome(const struct outcome *a, const struct outcome *b, int ordered)
{
    if (a->st.n != b->st.n || a->st.sum != b->st.sum || (ordered && a->st.hash != b->st.hash) ||
        a->dropped != b->dropped || a->flows != b->flows || a->rc != b->rc)
        return 0;
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (a->repairs[k] != b->repairs[k])
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_memory(stint_read_chrome, data, size, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES);

    static struct outcome full, lean, split, inst;
    read_streamed(data, size, 0, NULL, &full);
    read_streamed(data, size, STINT_MODEL_LEAN, NULL, &lean);
    read_streamed(data, size, STINT_MODEL_LEAN, &split_from_one, &split);
    if (!same_outcome(&full, &lean, 1) || !same_outcome(&full, &split, 0))
        abort();
    read_streamed(data, size, STINT_MODEL_LEAN | STINT_MODEL_LEAN_INSTANTS, NULL, &inst);
    inst.st.n = full.st.n; /* (instants aside) */
    inst.st.sum = full.st.sum;
    inst.st.hash = full.st.hash;
    if (inst.st.hash_ni != full.st.hash_ni || inst.st.n_ni != full.st.n_ni || !same_outcome(&full, &inst, 1))
        abort();
    return 0;
}
