/* fuzz_chrome.c - libFuzzer target: the Chrome Trace Event JSON reader on
 * plain (already decompressed) bytes, with args kept so they are walked.
 *
 * Then a differential check of lean mode (model.h, what `summary` uses):
 * the same bytes read with and without STINT_MODEL_LEAN must stream the same
 * thread-track slices to the span sink, in the same order, and count the
 * same repairs and drops. Only the OVERLAP flag may differ (lean records do
 * not carry it; the repair count says the same). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct stream {
    uint64_t hash, n;
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
    uint64_t h = st->hash;
    h = mix(h, (uint64_t)ev->ts_ns);
    h = mix(h, (uint64_t)ev->dur_ns);
    h = mix(h, ev->track);
    h = mix(h, ev->lane);
    h = mix_str(h, m, ev->cat);
    h = mix_str(h, m, ev->name);
    h = mix(h, ev->level);
    h = mix(h, (uint64_t)(ev->flags & ~(STINT_SLICE_OVERLAP | STINT_SLICE_NEEDS_INDEX)));
    h = mix(h, ev->parent_on_top);
    st->hash = h;
    st->n++;
}

/* Reads data with model_flags and the stream sink; fills st and the counts. */
static void read_streamed(const uint8_t *data, size_t size, unsigned model_flags, struct stream *st,
                          uint64_t repairs[STINT_REPAIR_COUNT], uint64_t *dropped, int *rc_out)
{
    struct stint_model m;
    *rc_out = fuzz_read_model(stint_read_chrome, data, size, model_flags, 0, on_span, st, &m);
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        repairs[k] = m.repairs[k];
    *dropped = m.dropped;
    stint_model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_memory(stint_read_chrome, data, size, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES);

    struct stream full = {0}, lean = {0};
    uint64_t rf[STINT_REPAIR_COUNT], rl[STINT_REPAIR_COUNT], df, dl;
    int rcf, rcl;
    read_streamed(data, size, 0, &full, rf, &df, &rcf);
    read_streamed(data, size, STINT_MODEL_LEAN, &lean, rl, &dl, &rcl);
    if (full.n != lean.n || full.hash != lean.hash || df != dl || rcf != rcl)
        abort();
    for (int k = 0; k < STINT_REPAIR_COUNT; k++)
        if (rf[k] != rl[k])
            abort();
    return 0;
}
