/* SPDX-License-Identifier: MIT */
/*
 * test_intervals.c - interval union/merge/overlap count: fixed cases (seed
 * 003's union) and Perfetto's interval stdlib cases from
 * ../shared/corpus/perfetto-intervals (union-type cases; read in place).
 */
#include "check.h"
#include "base/intervals.h"
#include "read/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXROWS 64
#define MAXCOLS 4

struct row {
    int64_t ts, dur;
    char part[MAXCOLS][32]; /* partition values as text, "[NULL]" for null */
};

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof buf - STINT_JSON_PAD, f);
    memset(buf + *len, 0, STINT_JSON_PAD);
    fclose(f);
    return buf;
}

/* Reads {"columns": [...], "rows": [{...}]} into rows; partition columns are
 * every column other than ts and dur, in column order. */
static int load_rows(const char *path, struct row *rows, int *ncols_part, char cols[MAXCOLS][32])
{
    size_t len;
    char *buf = slurp(path, &len);
    if (!buf)
        return -1;
    struct stint_json j = {.p = buf, .end = buf + len, .at_eof = 1};
    int nrows = 0;
    *ncols_part = 0;
    REQUIRE(stint_json_ws(&j) == '{');
    j.p++;
    for (;;) {
        int c = stint_json_ws(&j);
        if (c == ',') { j.p++; continue; }
        if (c == '}') break;
        const char *k; size_t kn;
        REQUIRE(stint_json_string(&j, &k, &kn, NULL) == 0);
        stint_json_ws(&j); j.p++;
        if (kn == 7 && !memcmp(k, "columns", 7)) {
            stint_json_ws(&j); j.p++;
            for (;;) {
                c = stint_json_ws(&j);
                if (c == ',') { j.p++; continue; }
                if (c == ']') { j.p++; break; }
                const char *s; size_t n;
                REQUIRE(stint_json_string(&j, &s, &n, NULL) == 0);
                if (!(n == 2 && !memcmp(s, "ts", 2)) && !(n == 3 && !memcmp(s, "dur", 3))) {
                    snprintf(cols[*ncols_part], 32, "%.*s", (int)n, s);
                    (*ncols_part)++;
                }
            }
        } else if (kn == 4 && !memcmp(k, "rows", 4)) {
            stint_json_ws(&j); j.p++;
            for (;;) {
                c = stint_json_ws(&j);
                if (c == ',') { j.p++; continue; }
                if (c == ']') { j.p++; break; }
                REQUIRE(c == '{' && nrows < MAXROWS);
                j.p++;
                struct row *r = &rows[nrows++];
                memset(r, 0, sizeof *r);
                for (;;) {
                    c = stint_json_ws(&j);
                    if (c == ',') { j.p++; continue; }
                    if (c == '}') { j.p++; break; }
                    const char *rk; size_t rkn;
                    REQUIRE(stint_json_string(&j, &rk, &rkn, NULL) == 0);
                    stint_json_ws(&j); j.p++;
                    c = stint_json_ws(&j);
                    char val[32];
                    if (c == '"') {
                        const char *s; size_t n;
                        REQUIRE(stint_json_string(&j, &s, &n, NULL) == 0);
                        snprintf(val, sizeof val, "%.*s", (int)n, s);
                    } else if (c == 'n') {
                        REQUIRE(stint_json_skip(&j) == 0);
                        snprintf(val, sizeof val, "[NULL]");
                    } else {
                        const char *s; size_t n;
                        REQUIRE(stint_json_number(&j, &s, &n) == 0);
                        snprintf(val, sizeof val, "%.*s", (int)n, s);
                    }
                    if (rkn == 2 && !memcmp(rk, "ts", 2))
                        r->ts = strtoll(val, NULL, 10);
                    else if (rkn == 3 && !memcmp(rk, "dur", 3))
                        r->dur = strtoll(val, NULL, 10);
                    else
                        for (int ci = 0; ci < *ncols_part; ci++)
                            if (strlen(cols[ci]) == rkn && !memcmp(cols[ci], rk, rkn))
                                snprintf(r->part[ci], 32, "%s", val);
                }
            }
        } else
            REQUIRE(stint_json_skip(&j) == 0);
    }
    return nrows;
}

/* Expected CSV lines after the header, as "ts,dur,part..." with quotes removed. */
static int load_expected(const char *path, char lines[][128])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[256];
    int n = -1;
    while (fgets(buf, sizeof buf, f)) {
        if (n >= 0) {
            char *o = lines[n];
            for (char *p = buf; *p && *p != '\n'; p++)
                if (*p != '"')
                    *o++ = *p;
            *o = 0;
        }
        n++;
    }
    fclose(f);
    return n;
}

static int cmp_lines(const void *a, const void *b) { return strcmp(a, b); }

static void check_partitioned(const char *dir, const char *name)
{
    char path[4400], epath[4400];
    snprintf(path, sizeof path, "%s/perfetto-intervals/%s.input.json", dir, name);
    snprintf(epath, sizeof epath, "%s/perfetto-intervals/%s.expected.csv", dir, name);
    struct row rows[MAXROWS];
    char cols[MAXCOLS][32];
    int nparts;
    int n = load_rows(path, rows, &nparts, cols);
    REQUIRE(n >= 0);
    char got[MAXROWS][128], want[MAXROWS][128];
    int ngot = 0;
    int done[MAXROWS] = {0};
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        /* one partition: every row with the same partition values; dur < 0 rows ignored */
        struct stint_interval iv[MAXROWS];
        size_t k = 0;
        for (int r = i; r < n; r++) {
            int same = 1;
            for (int c = 0; c < nparts; c++)
                if (strcmp(rows[r].part[c], rows[i].part[c]))
                    same = 0;
            if (!same)
                continue;
            done[r] = 1;
            if (rows[r].dur < 0)
                continue;
            iv[k].start = rows[r].ts;
            iv[k].end = rows[r].ts + rows[r].dur;
            k++;
        }
        size_t m = stint_intervals_merge(iv, k, 0);
        for (size_t q = 0; q < m; q++) {
            char *o = got[ngot++];
            int w = snprintf(o, 128, "%lld,%lld", (long long)iv[q].start, (long long)(iv[q].end - iv[q].start));
            for (int c = 0; c < nparts; c++)
                w += snprintf(o + w, (size_t)(128 - w), ",%s", rows[i].part[c]);
        }
    }
    int nwant = load_expected(epath, want);
    REQUIRE(nwant >= 0);
    qsort(got, (size_t)ngot, sizeof got[0], cmp_lines);
    qsort(want, (size_t)nwant, sizeof want[0], cmp_lines);
    CHECK_EQ_I64(ngot, nwant);
    for (int i = 0; i < ngot && i < nwant; i++)
        CHECK_STR(got[i], want[i]);
    fprintf(stderr, "PASS %s (%d rows)\n", name, ngot);
}

/* stint_select_i64 against a full sort: random values with many duplicates,
 * sorted, reversed, constant and organ-pipe inputs, every k for small n and
 * the quantile ranks for large n. */
static void check_select(void)
{
    enum { M = 5000 };
    static int64_t a[M], b[M], ref[M];
    static uint32_t u[M];
    uint64_t x = 99;
    for (int shape = 0; shape < 5; shape++)
        for (size_t n = 1; n <= M; n = n < 64 ? n + 1 : n * 3) {
            for (size_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                int64_t r = (int64_t)(x >> 50) - 4000; /* 14 bits: duplicates, negatives */
                a[i] = shape == 0 ? r : shape == 1 ? (int64_t)i : shape == 2 ? -(int64_t)i : shape == 3 ? 7
                       : (int64_t)(i < n / 2 ? i : n - i);
            }
            memcpy(ref, a, n * sizeof *a);
            stint_sort_i64(ref, n);
            size_t ks[] = {0, n / 2, (n * 9 + 9) / 10 - 1, (n * 99 + 99) / 100 - 1, n - 1};
            for (size_t q = 0; q < (n <= 64 ? n : 5); q++) {
                size_t k = n <= 64 ? q : ks[q];
                memcpy(b, a, n * sizeof *a);
                stint_select_i64(b, n, k);
                int ok = b[k] == ref[k];
                for (size_t i = 0; i < n && ok; i++)
                    ok = i < k ? b[i] <= b[k] : i > k ? b[i] >= b[k] : 1;
                /* the same on 32-bit values (offset to keep them unsigned and ordered) */
                for (size_t i = 0; i < n; i++)
                    u[i] = (uint32_t)(a[i] + 100000);
                stint_select_u32(u, n, k);
                ok = ok && u[k] == (uint32_t)(ref[k] + 100000);
                for (size_t i = 0; i < n && ok; i++)
                    ok = i < k ? u[i] <= u[k] : i > k ? u[i] >= u[k] : 1;
                if (!ok)
                    fprintf(stderr, "select: shape %d n %zu k %zu\n", shape, n, k);
                CHECK(ok);
            }
        }
}

static int cmp_u32(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* stint_select_ranks_u32_runs against a full sort: below and above the size
 * where the histogram takes over (512), values spread over many octaves, a
 * few distinct values, all below 64 (one key each), at the top of the range
 * and in one octave (ranks that share a bucket), with the summary's three
 * ranks, with several in one bucket, and with more than eight (chained
 * quickselects). One run: the values must come out the same, only
 * reordered; the same values cut into three runs (one of them empty): the
 * same answers, the runs left as they were. */
static void check_select_ranks(void)
{
    enum { M = 40000 };
    static uint32_t v[M], ref[M], keep[M], snap[M];
    uint64_t x = 4242;
    size_t sizes[] = {1, 2, 7, 511, 512, 513, 1000, 4099, M};
    for (int shape = 0; shape < 6; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                uint32_t r = (uint32_t)(x >> 32);
                v[i] = shape == 0   ? r >> (r & 31)         /* many octaves */
                       : shape == 1 ? (r & 3) * 1000003u    /* four values */
                       : shape == 2 ? r & 63                /* below 64 */
                       : shape == 3 ? UINT32_MAX - (r & 7)  /* the top */
                       : shape == 4 ? 1u << 20 | (r & 0xfffff) /* one octave */
                                    : (uint32_t)i;          /* sorted */
            }
            memcpy(ref, v, n * sizeof *v);
            qsort(ref, n, sizeof *ref, cmp_u32);
            size_t q3[] = {(n * 50 + 99) / 100 - 1, (n * 90 + 99) / 100 - 1, (n * 99 + 99) / 100 - 1};
            size_t same[] = {n / 2, n / 2, n / 2 + (n > 2), n - 1};
            size_t many[10];
            for (size_t k = 0; k < 10; k++)
                many[k] = (n - 1) * k / 9;
            const size_t *sets[] = {q3, same, many};
            size_t nsets[] = {3, 4, 10};
            for (int t = 0; t < 3; t++) {
                uint32_t out[10];
                memcpy(keep, v, n * sizeof *v);
                struct stint_u32_run one = {keep, n};
                CHECK(stint_select_ranks_u32_runs(&one, 1, sets[t], nsets[t], out) == 0);
                int ok = 1;
                for (size_t k = 0; k < nsets[t]; k++)
                    ok = ok && out[k] == ref[sets[t][k]];
                uint32_t out3[10];
                memcpy(snap, v, n * sizeof *v);
                struct stint_u32_run three[3] = {{v, n / 3}, {v + n / 3, 0}, {v + n / 3, n - n / 3}};
                CHECK(stint_select_ranks_u32_runs(three, 3, sets[t], nsets[t], out3) == 0);
                for (size_t k = 0; k < nsets[t]; k++)
                    ok = ok && out3[k] == ref[sets[t][k]];
                ok = ok && memcmp(v, snap, n * sizeof *v) == 0; /* (several runs: left as they were) */
                qsort(keep, n, sizeof *keep, cmp_u32);
                ok = ok && memcmp(keep, ref, n * sizeof *ref) == 0;
                if (!ok)
                    fprintf(stderr, "select_ranks: shape %d n %zu set %d\n", shape, n, t);
                CHECK(ok);
            }
        }
}

int main(void)
{
    /* the worked example of intervals.h: [0,10),[2,7),[8,12) -> union 12, sum 19 */
    struct stint_interval s3[] = {{0, 10}, {2, 7}, {8, 12}};
    CHECK_EQ_I64(stint_intervals_union(s3, 3), 12);
    /* touching merges, nested collapses, zero-length adds nothing */
    struct stint_interval t[] = {{20, 30}, {0, 10}, {10, 20}, {5, 5}, {40, 40}};
    CHECK_EQ_I64(stint_intervals_union(t, 5), 30);
    CHECK_EQ_I64(stint_intervals_merge(t, 5, 0), 2);
    /* a big shuffled input sorts correctly */
    enum { N = 100000 };
    static struct stint_interval big[N];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        big[i].start = (int64_t)(x >> 40);
        big[i].end = big[i].start + (int64_t)((x >> 20) & 0xff);
    }
    stint_intervals_sort(big, N);
    int sorted = 1;
    for (int i = 1; i < N; i++)
        if (big[i].start < big[i - 1].start)
            sorted = 0;
    CHECK(sorted);
    /* streaming accumulator equals the batch union */
    struct stint_union_acc acc;
    stint_union_acc_init(&acc);
    for (int i = 0; i < N; i++)
        stint_union_acc_add(&acc, big[i].start, big[i].end);
    CHECK_EQ_I64(stint_union_acc_total(&acc), stint_intervals_union_sorted(big, N));
    check_select();
    check_select_ranks();
    /* k-way union of sorted runs equals the union of everything */
    for (int trial = 0; trial < 50; trial++) {
        static struct stint_interval runs[4000], copy[4000];
        size_t starts[40], nr = 0, n = 0;
        for (int r = 0; r < 1 + trial % 40; r++) {
            starts[nr++] = n;
            int64_t t = (int64_t)(x >> 54);
            for (int k = 0; k < (trial * 7 + r * 13) % 97; k++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                t += (int64_t)((x >> 33) % (trial % 3 ? 50 : 3)); /* every third: starts tied across runs */
                runs[n].start = t;
                runs[n].end = t + (int64_t)((x >> 45) % 40);
                n++;
            }
        }
        memcpy(copy, runs, n * sizeof *runs);
        int64_t want = stint_intervals_union(copy, n);
        /* packed (intervals.h): some far apart or long, so that they take three slots */
        static uint64_t slots[4000 * 3];
        size_t pstarts[40], ns = 0, three = 0, nonempty = 0;
        for (size_t r = 0; r < nr; r++) {
            pstarts[r] = ns;
            size_t end = r + 1 < nr ? starts[r + 1] : n;
            nonempty += end > starts[r];
            for (size_t i = starts[r]; i < end; i++) {
                unsigned k = stint_pack_interval(slots + ns, i == starts[r], i > starts[r] ? runs[i - 1].start : 0,
                                                 runs[i].start, runs[i].end);
                three += k == 3;
                ns += k;
            }
        }
        CHECK(three >= nonempty); /* (each run's first) */
        CHECK_EQ_I64(stint_intervals_union_packed((const uint64_t *const[]){slots}, 63, ns, pstarts, nr), want);
        /* the same slots cut into blocks of 2^shift, as summary keeps its category runs */
        for (unsigned shift = 0; shift <= 6; shift += 3) {
            /* each block followed by two slots that would change the union if read */
            static uint64_t pool[4000 * 3 * 3];
            const uint64_t *blocks[4000 * 3];
            size_t bsz = (size_t)1 << shift, nb = (ns + bsz - 1) / bsz;
            for (size_t b = 0; b < nb; b++) {
                uint64_t *at = pool + b * (bsz + 2);
                size_t m = ns - b * bsz < bsz ? ns - b * bsz : bsz;
                memcpy(at, slots + b * bsz, m * sizeof *slots);
                for (size_t g = m; g < bsz + 2; g++)
                    at[g] = (uint64_t)1 << 40 | 1000000; /* (a delta of 256 and a long length) */
                blocks[b] = at;
            }
            CHECK_EQ_I64(stint_intervals_union_packed(blocks, shift, ns, pstarts, nr), want);
        }
    }
    /* far apart and long: a start delta or a length past 32 bits takes three slots */
    {
        const int64_t G = (int64_t)1 << 33;
        struct stint_interval iv[] = {{5, 10}, {G, G + 3}, {G + 2, 3 * G}, {G + 9, G + 12}, {4 * G, 4 * G + 7}};
        uint64_t sl[15];
        size_t ns = 0, st[1] = {0};
        unsigned used[5];
        for (size_t i = 0; i < 5; i++)
            ns += used[i] = stint_pack_interval(sl + ns, i == 0, i ? iv[i - 1].start : 0, iv[i].start, iv[i].end);
        CHECK_EQ_I64(used[0], 3); /* the first */
        CHECK_EQ_I64(used[1], 3); /* 2^33 after the previous start */
        CHECK_EQ_I64(used[2], 3); /* 2^34 - 2 long */
        CHECK_EQ_I64(used[3], 1);
        CHECK_EQ_I64(used[4], 3);
        CHECK_EQ_I64(stint_intervals_union_packed((const uint64_t *const[]){sl}, 63, ns, st, 1),
                     5 + (3 * G - G) + 7);
    }

    const char *dir = check_corpus_dir();
    if (!dir) {
        CHECK_SKIP_PART("the shared corpus is absent: perfetto-intervals not checked");
        CHECK_DONE();
    }
    static const char *const partitioned[] = {
        "interval_merge_overlapping_partitioned",
        "interval_merge_overlapping_partitioned_adjacent",
        "interval_merge_overlapping_partitioned_chain",
        "interval_merge_overlapping_partitioned_complete_overlap",
        "interval_merge_overlapping_partitioned_multiple_columns",
        "interval_merge_overlapping_partitioned_multiple_gaps",
        "interval_merge_overlapping_partitioned_multiple_null",
        "interval_merge_overlapping_partitioned_numeric_partition",
        "interval_merge_overlapping_partitioned_same_start",
        "interval_merge_overlapping_partitioned_single",
        "interval_merge_overlapping_partitioned_zero_dur",
    };
    for (size_t i = 0; i < sizeof partitioned / sizeof partitioned[0]; i++)
        check_partitioned(dir, partitioned[i]);

    /* interval_merge_overlapping with epsilon 1 */
    {
        char path[4400], epath[4400];
        snprintf(path, sizeof path, "%s/perfetto-intervals/interval_merge_overlapping.input.json", dir);
        snprintf(epath, sizeof epath, "%s/perfetto-intervals/interval_merge_overlapping.expected.csv", dir);
        struct row rows[MAXROWS];
        char cols[MAXCOLS][32];
        int np, n = load_rows(path, rows, &np, cols);
        REQUIRE(n > 0);
        struct stint_interval iv[MAXROWS];
        for (int i = 0; i < n; i++) {
            iv[i].start = rows[i].ts;
            iv[i].end = rows[i].ts + rows[i].dur;
        }
        size_t m = stint_intervals_merge(iv, (size_t)n, 1);
        char want[MAXROWS][128];
        int nw = load_expected(epath, want);
        CHECK_EQ_I64(m, nw);
        for (size_t i = 0; i < m && (int)i < nw; i++) {
            char g[128];
            snprintf(g, sizeof g, "%lld,%lld", (long long)iv[i].start, (long long)(iv[i].end - iv[i].start));
            CHECK_STR(g, want[i]);
        }
        fprintf(stderr, "PASS interval_merge_overlapping\n");
    }
    /* intervals_overlap_count */
    {
        char path[4400], epath[4400];
        snprintf(path, sizeof path, "%s/perfetto-intervals/intervals_overlap_count.input.json", dir);
        snprintf(epath, sizeof epath, "%s/perfetto-intervals/intervals_overlap_count.expected.csv", dir);
        struct row rows[MAXROWS];
        char cols[MAXCOLS][32];
        int np, n = load_rows(path, rows, &np, cols);
        REQUIRE(n > 0);
        int64_t ts[MAXROWS], dur[MAXROWS];
        for (int i = 0; i < n; i++) {
            ts[i] = rows[i].ts;
            dur[i] = rows[i].dur;
        }
        struct stint_step out[2 * MAXROWS];
        size_t m = stint_intervals_overlap_count(ts, dur, (size_t)n, out);
        char want[MAXROWS][128];
        int nw = load_expected(epath, want);
        CHECK_EQ_I64(m, nw);
        for (size_t i = 0; i < m && (int)i < nw; i++) {
            char g[128];
            snprintf(g, sizeof g, "%lld,%lld", (long long)out[i].ts, (long long)out[i].value);
            CHECK_STR(g, want[i]);
        }
        fprintf(stderr, "PASS intervals_overlap_count\n");
    }
    fprintf(stderr, "SKIP intersect_list: interval_self_intersect is not a stint operation\n");
    CHECK_DONE();
}
