/* SPDX-License-Identifier: MIT */
/* fuzz_capture.c - libFuzzer target: libStint's binary capture
 * (docs/formats/capture.md, read/read_capture.c).
 *
 * The first byte picks how the rest is shaped, so that mutations reach the
 * entries and not only the checks in front of them: bit 0 puts a valid
 * 64-byte header before the rest, bit 1 rewrites the Fletcher sums of every
 * complete block (walking the blocks by their heads' lengths). Then:
 *   - the decoder fed the whole input at once and fed it in two windows
 *     (the first cut at a point the input picks, the unconsumed rest kept,
 *     as read_capture.c streams) must agree on every count; spans and
 *     drops never exceed the entries read, torn bytes never the input;
 *   - the reader into the model (in memory, strict and not, with args),
 *     whose invariants fuzz_common.h checks;
 *   - with bit 7 of the first byte, the same bytes in a memfd through
 *     `stint summary --json`, `stint convert --to markers` and `--to
 *     chrome`, `stint timing --tree=depth` and `stint sizes --json`: exit
 *     0, 1 or 3 (bits 2-6 place the window cut above). */
#include "cmd/commands.h"
#include "fuzz_common.h"
#include "read/read_capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_file file = {-1, ""};

static void put64le(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Rewrites the sums of every complete block of buf[0..n) after its header. */
static void fix_sums(uint8_t *buf, size_t n)
{
    if (n < 64)
        return;
    uint32_t hlen;
    memcpy(&hlen, buf + 16, 4);
    size_t at = hlen >= 64 && hlen <= 4096 ? hlen : 64;
    while (at + 32 <= n) {
        uint32_t plen;
        memcpy(&plen, buf + at + 4, 4);
        if (plen % 8 || plen > n - at - 32)
            return;
        uint64_t a = 0, b = 0;
        for (size_t i = 0; i < plen; i += 8) {
            uint64_t w;
            memcpy(&w, buf + at + 32 + i, 8);
            a += w;
            b += a;
        }
        put64le(buf + at + 16, a);
        put64le(buf + at + 24, b);
        at += 32 + (size_t)plen;
    }
}

static void count_span(void *ctx, const struct stint_cap_span *s)
{
    (void)s;
    ++*(uint64_t *)ctx;
}

/* Decodes buf[0..n) with the first window ending at cut (0: all at once). */
static struct stint_cap_stats decode(const uint8_t *buf, size_t n, size_t cut, int *ok)
{
    uint64_t spans = 0;
    struct stint_cap_callbacks cb = {.ctx = &spans, .span = count_span};
    struct stint_cap_dec *d = stint_cap_dec_new(&cb);
    const char *why = NULL;
    size_t at = 0;
    *ok = 1;
    if (cut && cut < n) {
        long used = stint_cap_dec_feed(d, buf, cut, 0, 0, &why);
        if (used < 0 || (size_t)used > cut)
            *ok = 0;
        else
            at = (size_t)used;
    }
    if (*ok) {
        long used = stint_cap_dec_feed(d, buf + at, n - at, at, 1, &why);
        if (used < 0)
            *ok = 0;
        else if ((size_t)used != n - at) /* at the end everything is taken */
            abort();
    }
    struct stint_cap_stats st = *stint_cap_dec_stats(d);
    if (st.spans != spans || st.spans > st.entries || st.drops > st.entries || st.torn_bytes > n)
        abort();
    stint_cap_dec_free(d);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20))
        return 0;
    unsigned mode = data[0];
    size_t n = size - 1 + (mode & 1 ? 64 : 0);
    uint8_t *buf = malloc(n + 1);
    if (!buf)
        return 0;
    size_t at = 0;
    if (mode & 1) {
        memset(buf, 0, 64);
        memcpy(buf, "STINTCAP", 8);
        uint32_t hv[4] = {1, 0x01020304u, 64, 4242};
        memcpy(buf + 8, hv, sizeof hv);
        at = 64;
    }
    memcpy(buf + at, data + 1, size - 1);
    if (mode & 2)
        fix_sums(buf, n);

    int ok_whole, ok_split;
    struct stint_cap_stats a = decode(buf, n, 0, &ok_whole);
    size_t cut = (size_t)((mode >> 2) & 31) * 37 % (n + 1);
    struct stint_cap_stats b = decode(buf, n, cut, &ok_split);
    if (ok_whole != ok_split || (ok_whole && memcmp(&a, &b, sizeof a) != 0))
        abort();

    fuzz_read_memory(stint_read_capture, buf, n, STINT_MODEL_KEEP_ARGS);
    const char *path = fuzz_file_put(&file, "stint-fuzz-capture", buf, n);
    static const struct fuzz_cmd cmds[] = {{1, stint_cmd_summary, {"summary", NULL, "--json"}, 3},
                                           {1, stint_cmd_convert, {"convert", NULL, "--to", "markers", "-o", "-"}, 6},
                                           {1, stint_cmd_convert, {"convert", NULL, "--to", "chrome", "-o", "-"}, 6},
                                           {1, stint_cmd_timing, {"timing", NULL, "--tree=depth"}, 3},
                                           {1, stint_cmd_sizes, {"sizes", NULL, "--json"}, 3}};
    fuzz_run_cmds(cmds, sizeof cmds / sizeof cmds[0], mode >> 7, path);
    free(buf);
    return 0;
}
