/* SPDX-License-Identifier: MIT */
/* fuzz_markers.c - libFuzzer target: marker logs.
 *
 * Two readers see the same bytes: the streaming [STRACE] parser of
 * `stint timing` (markers_parse.h), fed in pieces split where the first input
 * byte says (chunk boundaries inside records and CRLF pairs are the risky
 * part), and the analyzer's marker reader (stint_read_markers). Invariants:
 * records + torn + foreign == heads, and the split feed delivers exactly what a single
 * feed delivers, loss lines ([STINT] v=1 dropped) included; `stint sizes`'s reading (STINT_MODEL_SIZES) measures every
 * record delivered, its rows add up to its totals, and no byte is counted
 * twice. Then the same bytes go to a memfd and through the commands
 * that read marker logs, each view of `stint timing` (table, rounds table,
 * trees by name and depth, JSON, warm-up, trace export), `stint steps` and
 * `stint tree` (both from the lean read: lean records and the slice groups
 * placed at the finish), output to /dev/null: each must exit 0, 1 or 3 (the
 * second input byte selects which run, to keep an iteration short). */
#include "cmd/commands.h"
#include "fuzz_common.h"
#include "read/markers_parse.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
    uint64_t n, sum;
    uint64_t losses, bad, loss_sum; /* loss lines: all, unread, a checksum of the read ones */
};

static int on_rec(void *ctx, const struct stint_mparse_record *r)
{
    struct tally *t = ctx;
    t->n++;
    t->sum += (uint64_t)r->ts_ns ^ (uint64_t)r->dur_ns ^ r->pid ^ r->tid ^ r->offset ^ r->line ^ r->attrs.len;
    struct stint_mparse_text cur = r->attrs, k, v;
    while (stint_mparse_attr_next(&cur, &k, &v))
        t->sum += k.len;
    return 0;
}

static int on_loss(void *ctx, const struct stint_mparse_loss *l)
{
    struct tally *t = ctx;
    t->losses++;
    if (!l->ok) {
        if (!l->why || l->count || l->pid || l->tid)
            abort();
        t->bad++;
        return 0;
    }
    t->loss_sum += l->pid ^ l->tid ^ l->count ^ (uint64_t)l->first_ts ^ (uint64_t)l->last_ts ^ l->offset ^ l->line;
    return 0;
}

static void on_torn(void *ctx, uint64_t off, uint64_t line, const char *why)
{
    (void)ctx;
    (void)off;
    (void)line;
    if (!why)
        abort();
}

static struct stint_mparse_stats parse(const uint8_t *data, size_t size, size_t step, struct tally *t)
{
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_rec;
    o.on_torn = on_torn;
    o.on_loss = on_loss;
    o.ctx = t;
    o.count_lines = 1;
    struct stint_mparse *p = stint_mparse_new(&o);
    if (!p)
        abort();
    for (size_t i = 0; i < size; i += step) {
        size_t n = size - i < step ? size - i : step;
        if (stint_mparse_feed(p, data + i, n) != 0)
            abort();
    }
    if (stint_mparse_finish(p) != 0)
        abort();
    struct stint_mparse_stats st = *stint_mparse_get_stats(p);
    stint_mparse_free(p);
    if (st.records + st.torn + st.foreign != st.heads || st.records != t->n || st.losses != t->losses || st.bad_losses != t->bad)
        abort();
    return st;
}

static struct fuzz_file file = {-1, ""};

/* The sizes tally of data: records records delivered, each measured. */
static void check_sizes(const uint8_t *data, size_t size, uint64_t records)
{
    struct stint_model m;
    fuzz_read_model(stint_read_markers, data, size, STINT_MODEL_SIZES, 0, NULL, NULL, &m);
    const struct stint_sizes *z = m.sizes;
    if (!z || z->events != records || z->filtered_events || z->text_bytes != size || z->event_bytes > size ||
        z->args_bytes > z->event_bytes || fuzz_size_sum(&z->phases, 1) != records ||
        fuzz_size_sum(&z->phases, 0) != z->event_bytes || fuzz_size_sum(&z->names, 1) != records ||
        fuzz_size_sum(&z->names, 0) != z->event_bytes || fuzz_size_sum(&z->event_keys, 0) > z->event_bytes ||
        fuzz_size_sum(&z->args_keys, 0) > z->args_bytes || z->top_keys.n)
        abort();
    /* a record of n bytes is at least "[STRACE] v=0 pid=0 ... dur=0" long */
    if (z->event_bytes < 62 * records)
        abort();
    stint_model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t step = (size_t)data[0] % 17 + 1;
    unsigned mask = data[1];
    data += 2;
    size -= 2;
    struct tally whole = {0}, split = {0};
    struct stint_mparse_stats a = parse(data, size, size ? size : 1, &whole);
    struct stint_mparse_stats b = parse(data, size, step, &split);
    if (a.records != b.records || a.torn != b.torn || a.foreign != b.foreign || whole.sum != split.sum || whole.losses != split.losses ||
        whole.bad != split.bad || whole.loss_sum != split.loss_sum)
        abort();
    fuzz_read_memory(stint_read_markers, data, size, STINT_MODEL_KEEP_ARGS);
    check_sizes(data, size, a.records);

    const char *path = fuzz_file_put(&file, "stint-fuzz-markers", data, size);
    static const struct fuzz_cmd cmds[] = {
        {0, stint_cmd_timing, {"timing", NULL, NULL, NULL, NULL}, 2},
        {1, stint_cmd_timing, {"timing", NULL, "--rounds-table", NULL, NULL}, 3},
        {2, stint_cmd_timing, {"timing", NULL, "--tree", NULL, NULL}, 3},
        {4, stint_cmd_timing, {"timing", NULL, "--tree=depth", "--json", NULL}, 4},
        {8, stint_cmd_timing, {"timing", NULL, "--json", "--warmup", "1"}, 5},
        {16, stint_cmd_timing, {"timing", NULL, "--rounds-table", "--json", NULL}, 4},
        {32, stint_cmd_timing, {"timing", NULL, "--trace-out", "/dev/null", NULL}, 4},
        {64, stint_cmd_steps, {"steps", NULL, "--step", "*", NULL}, 4},
        {128, stint_cmd_steps, {"steps", NULL, "--step", "*", "--json"}, 5},
        {2, stint_cmd_tree, {"tree", NULL, "--depth", "0", NULL}, 4},
        {128, stint_cmd_tree, {"tree", NULL, "--flat", "--json", NULL}, 4},
    };
    fuzz_run_cmds(cmds, sizeof cmds / sizeof cmds[0], mask, path);
    return 0;
}
