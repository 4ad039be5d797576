/* SPDX-License-Identifier: MIT */
/* fuzz_jsonl.c - libFuzzer target: JSONL sessions (stint/session/1 and
 * candle-graph/trace/6).
 *
 * The session reader sees the input whole in memory (fuzz_common.h). Then
 * the same bytes go to a memfd and through the commands that read JSONL
 * lines on their own (jsonl_scan.c): `stint memory` (table, timeline) and
 * `stint counters --json` (telemetry lines), and through `stint summary
 * --json` (the records it counts but does not model) and `stint convert
 * --to markers` and `--to jsonl` (the writers, from a session's span tree),
 * output to /dev/null. Their exit code must be one of the documented 0, 1,
 * 3. The model is also read once
 * with a span sink (as `stint summary` reads it), whose stream must keep the
 * sink's contract: per track, each level at most one above the previous
 * slice's, starts never going back, every thread-track slice streamed once.
 * `stint sizes`'s reading (STINT_MODEL_SIZES) must count every byte at most
 * once, its rows adding up to its totals, and the whole input when it ends
 * well. */
#include "cmd/commands.h"
#include "fuzz_common.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_file file = {-1, ""};

/* The span sink's contract, checked as the model streams. */
struct stream_check {
    uint32_t track, level;
    int64_t ts;
    size_t n;
};

static void check_sink(void *ctx, const struct stint_model *m, const struct stint_span_ev *ev)
{
    (void)m;
    struct stream_check *c = ctx;
    if (c->n && ev->track == c->track) {
        if (ev->level > c->level + 1 || ev->ts_ns < c->ts)
            abort();
    } else if (ev->level != 0 && !c->n) {
        abort();
    }
    if (ev->parent_on_top && !ev->level)
        abort();
    c->track = ev->track;
    c->level = ev->level;
    c->ts = ev->ts_ns;
    c->n++;
}

static void check_sizes(const uint8_t *data, size_t size)
{
    struct stint_model m;
    int rc = fuzz_read_model(stint_read_jsonl, data, size, STINT_MODEL_SIZES, 0, NULL, NULL, &m);
    const struct stint_sizes *z = m.sizes;
    if (!z || z->filtered_events || z->text_bytes > size || (rc == 0 && z->text_bytes != size) ||
        z->event_bytes > z->text_bytes || z->args_bytes || fuzz_size_sum(&z->phases, 1) != z->events ||
        fuzz_size_sum(&z->phases, 0) != z->event_bytes || fuzz_size_sum(&z->names, 0) != z->event_bytes ||
        fuzz_size_sum(&z->event_keys, 0) > z->event_bytes || z->args_keys.n || z->top_keys.n ||
        z->event_bytes < 2 * z->events) /* a record is at least "{}" */
        abort();
    stint_model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_sizes(data, size);
    fuzz_read_memory(stint_read_jsonl, data, size, STINT_MODEL_KEEP_ARGS);
    {
        struct stint_model m;
        struct stream_check c = {0};
        fuzz_read_model(stint_read_jsonl, data, size, 0, 0, check_sink, &c, &m);
        size_t want = 0; /* every thread-track slice, once */
        for (size_t i = 0; i < m.slices.len; i++)
            want += stint_model_track_at(&m, STINT_BA_AT(&m.slices, struct stint_slice, i).track)->kind ==
                    STINT_TRACK_THREAD;
        if (c.n != want)
            abort();
        stint_model_free(&m);
    }

    const char *path = fuzz_file_put(&file, "stint-fuzz-jsonl", data, size);
    /* memory refuses a marker log and a binary capture by name (exit 2, as
     * documented): bytes that sniff as either skip it; on anything else it
     * must exit 0, 1 or 3 */
    static const struct fuzz_cmd cmds[] = {{1, stint_cmd_memory, {"memory", NULL, NULL, NULL, NULL}, 2},
                                           {1, stint_cmd_memory, {"memory", NULL, "--timeline", "--json", NULL}, 4},
                                           {0, stint_cmd_counters, {"counters", NULL, "--json", NULL, NULL}, 3},
                                           {0, stint_cmd_summary, {"summary", NULL, "--json"}, 3},
                                           {0, stint_cmd_convert, {"convert", NULL, "--to", "markers", "-o", "-"}, 6},
                                           {0, stint_cmd_convert, {"convert", NULL, "--to", "jsonl", "-o", "-"}, 6}};
    const char *fmt = stint_detect_format(path);
    int refused = fmt && (!strcmp(fmt, "markers") || !strcmp(fmt, "capture"));
    fuzz_run_cmds(cmds, sizeof cmds / sizeof cmds[0], refused ? 0 : 1, path);
    return 0;
}
