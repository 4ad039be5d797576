/* SPDX-License-Identifier: MIT */
/* fuzz_chrome_gz.c - libFuzzer target: gzip input through the real file path
 * (stint_read_trace on a memfd: magic sniffing, inflate in chunks, format
 * detection, then the reader).
 *
 * Input layout: byte 0 chooses the mode, byte 1 a cut point.
 *   mode even: the rest is compressed here with zlib, so most runs reach the
 *              JSON reader: with mode bit 1, as 2 + (byte 1 & 7) members (an
 *              empty one after the first when byte 1 & 8); else as one member,
 *              cut at byte1/255 of its length when byte 1 is nonzero, so that
 *              truncation is exercised. A stream not cut must read exactly as
 *              the same bytes in a plain file (the same exit code, events,
 *              slices, counters, instants, drops and partial flag): the gzip
 *              layer (members, trailers, CRC-32 checks on either thread) may
 *              neither lose, add nor reject a byte;
 *   mode odd:  the rest is used as the raw stream after a 1f 8b magic, so the
 *              decompressor itself sees hostile bytes.
 * Mode bits 3-7 also run whole commands on the file (output to /dev/null),
 * two for each bit (three for the first): `stint summary --json`, `stint
 * steps --step '*'` and `stint sizes --json --format chrome`,
 * `stint slices --json` and `stint counters --json`, `stint timing`,
 * `stint convert --to folded` and a window of it `--to chrome` (with a
 * filter), `stint tree --json` and `stint convert --to
 * chrome`, `stint report -o -` and `stint diff` of the file with itself, so
 * the analyses and writers behind the readers see the same inputs. Their
 * exit code must be one of the documented 0, 1, 3. */
#include "cmd/commands.h"
#include "read/sizes.h"
#define FUZZ_GZIP
#include "fuzz_common.h"

#include <fcntl.h>

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_file gz = {-1, ""}, plain = {-1, ""};
static unsigned char *zbuf;
static size_t zcap;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned mode = data[0], cut = data[1];
    const uint8_t *body = data + 2;
    size_t n = size - 2, len;
    size_t need = 2 * (n + n / 100 + 64) + 10 * 64; /* (up to 10 members' headers and trailers) */
    int whole = 0;
    if (need > zcap) {
        free(zbuf);
        zbuf = malloc(need);
        zcap = need;
        if (!zbuf)
            abort();
    }
    if ((mode & 1) == 0) {
        if (mode & 2) { /* members: the reader must continue after each */
            size_t k = 2 + (cut & 7u), at = 0;
            len = 0;
            for (size_t i = 0; i < k; i++) {
                size_t to = n * (i + 1) / k;
                len += fuzz_gzip_into(body + at, to - at, zbuf + len, zcap - len);
                at = to;
                if (i == 0 && (cut & 8u))
                    len += fuzz_gzip_into(body, 0, zbuf + len, zcap - len);
            }
            whole = 1;
        } else {
            len = fuzz_gzip_into(body, n, zbuf, zcap);
            whole = cut == 0;
            if (cut)
                len = len * cut / 255;
        }
    } else {
        zbuf[0] = 0x1f;
        zbuf[1] = 0x8b;
        memcpy(zbuf + 2, body, n);
        len = n + 2;
    }
    const char *path = fuzz_file_put(&gz, "stint-fuzz", zbuf, len);
    struct stint_model m;
    if (stint_model_init(&m, STINT_MODEL_KEEP_ARGS) != 0)
        abort();
    struct stint_read_opts o = {.strict = (mode >> 2) & 1, .quiet = 1};
    int rc = stint_read_trace(path, &m, &o);
    fuzz_check_model(&m, rc);
    if (whole && !(n >= 2 && body[0] == 0x1f && body[1] == 0x8b)) { /* (bytes with the magic would be gzip too) */
        const char *plainpath = fuzz_file_put(&plain, "stint-fuzz-plain", body, n);
        struct stint_model p;
        if (stint_model_init(&p, STINT_MODEL_KEEP_ARGS) != 0)
            abort();
        int prc = stint_read_trace(plainpath, &p, &o);
        if (prc != rc || p.events != m.events || p.slices.len != m.slices.len || p.counters.len != m.counters.len ||
            p.instants.len != m.instants.len || p.dropped != m.dropped || p.partial != m.partial)
            abort();
        stint_model_free(&p);
        if (m.format && !strcmp(m.format, "chrome-json")) { /* sizes (sizes.h) measures the same text both ways */
            struct stint_model zg, zp;
            if (stint_model_init(&zg, STINT_MODEL_SIZES) != 0 || stint_model_init(&zp, STINT_MODEL_SIZES) != 0)
                abort();
            int grc = stint_read_trace(path, &zg, &o), zrc = stint_read_trace(plainpath, &zp, &o);
            const struct stint_sizes *a = zg.sizes, *b = zp.sizes;
            if (grc != zrc || a->events != b->events || a->event_bytes != b->event_bytes ||
                a->args_bytes != b->args_bytes || a->text_bytes != b->text_bytes || a->names.n != b->names.n ||
                a->args_keys.n != b->args_keys.n || a->top_keys.n != b->top_keys.n || b->gzip_bytes ||
                a->event_bytes + a->filtered_bytes > a->text_bytes || (grc == 0 && a->text_bytes != n))
                abort();
            stint_model_free(&zg);
            stint_model_free(&zp);
        }
    }
    stint_model_free(&m);
    static const struct fuzz_cmd cmds[] = {
        {8, stint_cmd_summary, {"summary", NULL, "--json"}, 3},
        {8, stint_cmd_steps, {"steps", NULL, "--step", "*"}, 4},
        {8, stint_cmd_sizes, {"sizes", NULL, "--json", "--format", "chrome"}, 5},
        {16, stint_cmd_slices, {"slices", NULL, "--json"}, 3},
        {16, stint_cmd_counters, {"counters", NULL, "--json"}, 3},
        {32, stint_cmd_timing, {"timing", NULL}, 2},
        {32, stint_cmd_convert, {"convert", NULL, "--to", "folded", "-o", "-"}, 6},
        {32, stint_cmd_convert, {"convert", NULL, "--to=chrome", "-o", "-", "--time-range=1us:2ms", "--min-dur=1"}, 7},
        {64, stint_cmd_tree, {"tree", NULL, "--json"}, 3},
        {64, stint_cmd_convert, {"convert", NULL, "--to", "chrome", "-o", "-"}, 6},
        {128, stint_cmd_report, {"report", NULL, "-o", "-"}, 4},
        {128, stint_cmd_diff, {"diff", NULL, "@", "--json", "--resamples", "200"}, 6}};
    fuzz_run_cmds(cmds, sizeof cmds / sizeof cmds[0], mode, path);
    return 0;
}
