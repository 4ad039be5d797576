/* SPDX-License-Identifier: MIT */
/*
 * readers.c - format detection and the shared reader front end.
 *
 * Detection looks at the first bytes of the (decompressed) input only:
 * a line holding "[STRACE]" (or libstint's "[STINT] v=") before any JSON
 * structure means a marker log; a
 * first line that is a JSON object with a "kind" key means a JSONL session;
 * anything starting with '[' or '{' otherwise is Chrome JSON; the magic
 * STINTCAP at byte 0 is libstint's binary capture.
 *
 * Invariant: a read split over threads (parts cut at event boundaries, each
 * read into a model of its own, merged in order) gives the model one thread
 * would; where a split cannot be proven safe the input is read whole.
 */
#include "read/readers.h"
#include "base/tsparse.h"
#include "read/sizes.h"
#include "base/selftrace.h"
#include "base/term.h"

#include <sched.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A read split over threads (read_parts) counts the bytes of all its parts
 * here, so that any part can show the file's progress; the part that moves
 * the percentage on prints it. */
static struct {
    int on;         /* a split read is running (set and cleared around its threads) */
    uint64_t total; /* the file's (decompressed) size, as far as known */
    uint64_t done;  /* bytes the parts have consumed (atomic) */
    int shown;      /* the last percentage printed (atomic) */
} split_progress;

void stint_i_progress(struct stint_input *in, int done)
{
    int split = __atomic_load_n(&split_progress.on, __ATOMIC_RELAXED);
    uint64_t total = split ? split_progress.total : in->file_size, at = in->base;
    if (total < ((uint64_t)64 << 20) && (split || !in->gz))
        return;
    if (!split && in->gz && in->raw_read < ((uint64_t)64 << 20) && !done)
        return;
    if (!isatty(2)) /* checked per 1 MiB window: one cheap syscall, no shared state between threads */
        return;
    if (split) {
        if (done)
            return; /* read_parts clears the line once every part is done */
        at = __atomic_add_fetch(&split_progress.done, in->base - in->progress_at, __ATOMIC_RELAXED);
        in->progress_at = in->base;
        at = at < total ? at : total; /* (a gzip file's size is estimated) */
        int pct = (int)(at * 100 / total), was = __atomic_load_n(&split_progress.shown, __ATOMIC_RELAXED);
        if (pct <= was || !__atomic_compare_exchange_n(&split_progress.shown, &was, pct, 0, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED))
            return;
    }
    if (done) {
        fprintf(stderr, "\r%60s\r", "");
        return;
    }
    if (total && (split || !in->gz))
        fprintf(stderr, "\rstint: reading %s: %3d%%", in->path, (int)(at * 100 / total));
    else
        fprintf(stderr, "\rstint: reading %s: %llu MB", in->path, (unsigned long long)(at >> 20));
}

static const char *detect(const struct stint_input *in)
{
    if (in->len >= 8 && !memcmp(in->buf, "STINTCAP", 8))
        return "capture";
    const char *p = in->buf, *end = in->buf + in->len;
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p >= end)
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    size_t scan = (size_t)(end - p); /* what the first read holds (1 MiB, or the whole input) */
    if (p < end && *p == '{') {
        size_t ln = (size_t)(line_end - p);
        int events = memmem(p, ln, "\"traceEvents\"", 13) != NULL;
        if (!events && memmem(p, ln, "\"kind\"", 6))
            return "jsonl";
        /* a log whose first line is a structured logger's JSON object: a whole
         * object on the line, no traceEvents, and marker records after it */
        const char *t = line_end;
        while (t > p && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
            t--;
        if (!events && nl && t - p >= 2 && t[-1] == '}' &&
            memmem(nl, (size_t)(end - nl), "[STRACE]", 8))
            return "markers";
        return "chrome";
    }
    if (p < end && *p == '[') {
        /* a Chrome array opens with '[' then '{' or ']'; a log line's prefix does not */
        const char *q = p + 1;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
            q++;
        if (q >= end || *q == '{' || *q == ']')
            return "chrome";
    }
    if (memmem(p, scan, "[STRACE]", 8) || memmem(p, scan, "[STINT] v=", 10)) /* (a log of loss lines only) */
        return "markers";
    if (p < end && *p == '[')
        return "chrome";
    return NULL;
}

/* ---- several threads on one file ----------------------------------------------------
 * A plain file is cut at event boundaries into parts, a few per thread, and
 * the threads take the parts in order as they become free (so a thread the
 * host slows down takes fewer). A gzip file is cut into one part per thread:
 * each thread inflates the stream from its start, drops what comes before
 * its part and parses the part, so later parts are shorter (each thread has
 * about the same inflating plus parsing to do). Each part is read into a
 * model of its own (the first into the caller's), and the models are merged
 * into the caller's in file order as soon as the parts before them are in: a
 * thread that finishes a part merges what is ready while the others read on. */

#define SPLIT_MIN_BYTES ((uint64_t)32 << 20)
/* A gzip file is split from this many threads on: each part inflates the
 * stream up to its end, 1.6x the inflating of one thread for two parts.
 * With two threads the inflate-thread pipe (input.c) is as fast or faster:
 * measured here, 100 MB .gz: 174 ms with the pipe, 196 ms in two parts
 * (medians of 11, minimums 150 and 149 ms). */
#define GZ_SPLIT_MIN_THREADS 3
/* Parts per thread at most, and in all: past 16 parts on 2 threads the
 * generated 1 GB trace gained nothing in time and the peak RSS grew (16
 * parts 104 MB, 32 parts 110 MB; the bound is 115 MB) */
#define PARTS_PER_THREAD_MAX 8
#define PARTS_MAX 32
#define SPLIT_SCAN ((size_t)64 << 10)    /* bytes searched per read for a boundary */
#define SPLIT_SCAN_MAX ((uint64_t)1 << 20) /* and at most this far from the target */

struct part {
    uint64_t from, to; /* to 0: the file's end; gzip: the cuts at or after these offsets */
    int mode;          /* STINT_PART_* */
    int rc, boundary_ok;
    int empty;         /* gzip: no event between its cuts (nothing to read or merge) */
    int done;          /* read (under the job's lock) */
    uint64_t subns_n;  /* its times cut below 1 ns, and the first one's text */
    char subns_first[48];
    struct stint_model *m;
    struct stint_model own; /* m for every part but the first */
};

struct split_job {
    const char *path;
    int in_obj, gz;
    const struct stint_read_opts *o;
    struct part *parts;
    size_t n;
    size_t next; /* the next part to take (atomic) */
    /* under mu: */
    pthread_mutex_t mu;
    size_t merged;   /* parts [0, merged) are in the first part's model */
    size_t last;     /* the last of them that is not empty */
    int merging;     /* a thread is merging part `merged` */
    int cut_failed;  /* a part before the last did not end at its cut, or failed: nothing more is merged */
    int merge_failed; /* a part's lean records could not join the first part's: nothing more is merged */
};

static void read_part(const struct split_job *J, struct part *p)
{
    SELF_SCOPE("read part");
    stint_i_self_attr("part", (int64_t)(p - J->parts));
    stint_i_subns_take(p->subns_first, 0); /* (this thread's count is this part's from here) */
    struct stint_input in;
    p->rc = J->gz ? stint_input_open_gz_part(&in, J->path, p->from, p->to)
                  : stint_input_open_range(&in, J->path, p->from, p->to);
    if (p->rc != 0)
        stint_model_fail(p->m, "%s", in.err);
    else if (in.no_cut || (in.len == 0 && in.eof))
        p->empty = 1;
    else
        p->rc = stint_i_read_chrome_part(&in, p->m, J->o, p->mode, J->in_obj, &p->boundary_ok);
    stint_input_close(&in);
    p->subns_n = stint_i_subns_take(p->subns_first, sizeof p->subns_first);
    stint_model_presort(p->m);
}

/* Part k is read: merges every part that is ready, in order, unless another
 * thread is merging (it then goes on with the ones this one made ready). */
static void part_done(struct split_job *J, size_t k)
{
    pthread_mutex_lock(&J->mu);
    J->parts[k].done = 1;
    while (!J->merging && !J->cut_failed && !J->merge_failed && J->merged < J->n && J->parts[J->merged].done) {
        size_t at = J->merged;
        if (J->parts[at].empty) {
            J->merged++;
            continue;
        }
        /* the part before it (empty ones aside) must have ended at its cut,
         * which is where this one starts, without an error (which may be the
         * cut's doing): else the caller reads again on one thread */
        if (at && (J->parts[J->last].rc != 0 || !J->parts[J->last].boundary_ok)) {
            J->cut_failed = 1;
            break;
        }
        J->merging = 1;
        pthread_mutex_unlock(&J->mu);
        int rc = 0;
        if (at) {
            SELF_SCOPE("merge part");
            stint_i_self_attr("part", (int64_t)at);
            rc = stint_model_merge(J->parts[0].m, &J->parts[at].own);
        }
        pthread_mutex_lock(&J->mu);
        J->merging = 0;
        if (rc != 0)
            J->merge_failed = 1;
        else
            J->last = J->merged++;
    }
    pthread_mutex_unlock(&J->mu);
}

static void *part_worker(void *arg)
{
    struct split_job *J = arg;
    for (size_t k; (k = __atomic_fetch_add(&J->next, 1, __ATOMIC_RELAXED)) < J->n;) {
        read_part(J, &J->parts[k]);
        part_done(J, k);
    }
    return NULL;
}

static void *part_thread(void *arg)
{
    stint_i_self_thread("stint read");
    return part_worker(arg);
}

/* The first cut (stint_i_cut_scan) at or after offset at of a plain file
 * (fd), searched for up to SPLIT_SCAN_MAX bytes on; 0 when none found. */
static uint64_t find_split(int fd, char *buf, uint64_t at)
{
    int comma = 0;
    for (uint64_t off = at; off - at < SPLIT_SCAN_MAX; off += SPLIT_SCAN) {
        ssize_t n = pread(fd, buf, SPLIT_SCAN, (off_t)off);
        if (n <= 0)
            return 0;
        long k = stint_i_cut_scan(buf, (size_t)n, &comma);
        if (k >= 0)
            return off + (uint64_t)k;
    }
    return 0;
}

/* Files from this size on are read on several threads (STINT_SPLIT_MIN_BYTES
 * overrides it, for tests). */
static uint64_t split_min_bytes(void)
{
    const char *e = getenv("STINT_SPLIT_MIN_BYTES");
    return e && *e ? (uint64_t)strtoull(e, NULL, 10) : SPLIT_MIN_BYTES;
}

const char *stint_detect_format(const char *path)
{
    struct stint_input in;
    const char *fmt = stint_input_open(&in, path) == 0 ? detect(&in) : NULL;
    stint_input_close(&in);
    return fmt;
}

/* How many parts a file of size bytes is cut into for threads threads: the
 * same number per thread (1 to PARTS_PER_THREAD_MAX, PARTS_MAX in all; one
 * for a gzip file), each of at least half the split size; 4 per thread when
 * the split size is under 2 bytes (tests).
 * The last part a thread takes bounds how far the threads can end apart.
 * STINT_SPLIT_PARTS sets the number, for tests and measurements. */
static size_t parts_for(uint64_t size, int threads, int gz)
{
    const char *e = getenv("STINT_SPLIT_PARTS");
    uint64_t least = split_min_bytes() / 2, per = least ? size / ((uint64_t)threads * least) : 4;
    per = per < 1 || gz ? 1 : per > PARTS_PER_THREAD_MAX ? PARTS_PER_THREAD_MAX : per;
    if ((uint64_t)threads * per > PARTS_MAX)
        per = PARTS_MAX / (uint64_t)threads ? PARTS_MAX / (uint64_t)threads : 1;
    uint64_t n = (uint64_t)threads * per;
    if (least && n > size / least) /* more threads than parts of that size */
        n = size / least;
    if (e && *e)
        n = strtoull(e, NULL, 10);
    return n < 2 ? 2 : n > 256 ? 256 : (size_t)n;
}

/* The starts of want parts of a plain file of size bytes: cuts, each at or
 * after its share of the file and past the previous one. How many were found. */
static size_t plain_cuts(const char *path, uint64_t size, struct part *parts, size_t want)
{
    size_t n = 0;
    char *buf = malloc(SPLIT_SCAN);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    for (size_t k = 0; buf && fd >= 0 && k < want; k++) {
        uint64_t from = 0;
        if (k) {
            from = find_split(fd, buf, size / want * k);
            if (!from || from <= parts[n - 1].from)
                continue;
        }
        parts[n++].from = from;
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    for (size_t k = 0; k < n; k++)
        parts[k].to = k + 1 < n ? parts[k + 1].from : 0;
    return n;
}

/* The ranges of n parts of a gzip file of about size decompressed bytes, as
 * offsets the parts' cuts are searched from (stint_input_open_gz_part). Part k
 * inflates [0, end_k) and parses [end_(k-1), end_k): with r the share of
 * parsing in inflating plus parsing a byte, ends at size * (1 - r^k) / (1 -
 * r^n) give each part the same work. */
static void gz_ranges(uint64_t size, struct part *parts, size_t n)
{
    double r = stint_i_gz_parse_share(), rn = 1;
    for (size_t k = 0; k < n; k++)
        rn *= r;
    double rk = 1;
    for (size_t k = 0; k < n; k++) {
        parts[k].from = k ? parts[k - 1].to : 0;
        rk *= r;
        parts[k].to = k + 1 < n ? (uint64_t)((double)size * (1 - rk) / (1 - rn)) : 0;
        if (k + 1 < n && parts[k].to <= parts[k].from)
            parts[k].to = parts[k].from + 1;
    }
}

/* The decompressed size of a gzip file of csize bytes whose trailer gives
 * isize (the last member's size modulo 2^32): isize, or for a file big
 * enough for it to have wrapped, isize plus the multiple of 2^32 that puts
 * the ratio nearest 8 (JSON traces compress 5-15x). Only the balance of the
 * parts depends on it. */
static uint64_t gz_size(uint64_t csize, uint32_t isize)
{
    uint64_t best = isize;
    if (csize < ((uint64_t)1 << 32) / 32)
        return best;
    double want = 8.0 * (double)csize, err = -1;
    for (uint64_t k = 0; k < 1024; k++) {
        uint64_t v = isize + (k << 32);
        double e = (double)v > want ? (double)v / want : want / (double)(v ? v : 1);
        if (err < 0 || e < err) {
            err = e;
            best = v;
        }
        if ((double)v > want)
            break;
    }
    return best;
}

/* Reads a Chrome file (plain or gzip, of about size decompressed bytes) on
 * several threads. Returns -1 when the split did not work out (the caller
 * reads the file again on one thread), else the exit code. */
static int read_parts(const char *path, uint64_t size, int gz, int in_obj, int threads, struct stint_model *m,
                      const struct stint_read_opts *o)
{
    size_t want = parts_for(size, threads, gz), n = 0;
    struct part *parts = calloc(want, sizeof *parts);
    if (parts && gz)
        gz_ranges(size, parts, n = want);
    else if (parts)
        n = plain_cuts(path, size, parts, want);
    if (n < 2) {
        free(parts);
        return -1;
    }
    size_t made = 1;
    for (size_t k = 0; k < n; k++) {
        struct part *p = &parts[k];
        p->mode = (k + 1 < n ? STINT_PART_TO_SPLIT : 0) | (k ? STINT_PART_FROM_SPLIT : 0);
        p->m = k ? &p->own : m;
        if (k && stint_model_init(&p->own, m->flags) != 0)
            break;
        made = k + 1;
        if (o->corr_fn) { /* (the correlation hook's context for this part, merged with the model) */
            p->m->part_ctx = o->corr_part(o->corr_ctx);
            p->m->part_ops = o->corr_part_ops;
        } else if (o->args_fn) { /* (the args hook's, the same way) */
            p->m->part_ctx = o->args_part(o->args_ctx);
            p->m->part_ops = o->args_part_ops;
        }
    }
    int rc = -1;
    if (made == n) {
        struct split_job J = {.path = path, .in_obj = in_obj, .gz = gz, .o = o, .parts = parts, .n = n};
        pthread_mutex_init(&J.mu, NULL);
        pthread_t t[STINT_MAX_THREADS];
        int started = 0;
        if (threads > (int)n)
            threads = (int)n;
        split_progress.total = size;
        __atomic_store_n(&split_progress.done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&split_progress.shown, -1, __ATOMIC_RELAXED);
        __atomic_store_n(&split_progress.on, 1, __ATOMIC_RELAXED);
        while (started < threads - 1 && pthread_create(&t[started], NULL, part_thread, &J) == 0)
            started++;
        part_worker(&J);
        for (int i = 0; i < started; i++)
            pthread_join(t[i], NULL);
        __atomic_store_n(&split_progress.on, 0, __ATOMIC_RELAXED);
        if (__atomic_load_n(&split_progress.shown, __ATOMIC_RELAXED) >= 0)
            fprintf(stderr, "\r%60s\r", "");
        pthread_mutex_destroy(&J.mu);
        if (getenv("STINT_DEBUG_SPLIT")) /* for tests: what the split did */
            fprintf(stderr, "stint: split read: %zu parts on %d threads%s\n", n, threads,
                    J.cut_failed     ? ", a cut was no event boundary: read again on one thread"
                    : J.merge_failed ? ", the parts' (cat, name) pairs did not fit one table: read again on one thread"
                                     : "");
        /* (out of memory in a merge ends the process: model.h) */
        rc = J.cut_failed || J.merge_failed ? -1 : parts[J.last].rc;
        for (size_t k = 0; rc >= 0 && k < n; k++) /* in input order: the first example is the one-thread read's */
            stint_i_subns_put(parts[k].subns_n, parts[k].subns_first);
        if (rc >= 0 && m->part_ctx) { /* the whole file's correlations (or args) to the hook's own context */
            m->part_ops->merge(o->corr_fn ? o->corr_ctx : o->args_ctx, m->part_ctx, m, NULL, NULL, NULL);
            m->part_ctx = NULL;
        }
    }
    for (size_t k = 1; k < made; k++)
        stint_model_free(&parts[k].own);
    free(parts);
    return rc;
}

int stint_read_trace(const char *path, struct stint_model *m, const struct stint_read_opts *o)
{
    struct stint_read_opts defaults = {0};
    if (!o)
        o = &defaults;
    stint_sizes_attach(m);
    struct stint_input in;
    char subns[48];
    stint_i_subns_take(subns, 0); /* (times cut below 1 ns are counted from here: this input's) */
    SELF_BEGIN_CPU(rd, "read");
    int rc = stint_input_open(&in, path);
    if (rc != 0) {
        stint_model_fail(m, "%s", in.err);
        stint_input_close(&in);
        SELF_END_CPU(rd);
        stint_model_finish(m);
        return rc;
    }
    const char *fmt = o->format ? o->format : detect(&in);
    if (fmt && m->sizes && in.gz) /* (the compressed size, for sizes to give beside the text's) */
        m->sizes->gzip_bytes = in.file_size;
    if (!fmt) {
        if (in.len == 0)
            stint_model_fail(m, "%s: the input is empty (expected a Chrome JSON trace, a JSONL session or a marker log)",
                             path);
        else
            stint_model_fail(m, "%s: byte 0: unknown format (expected '[' or '{' of Chrome JSON, a JSONL session, "
                             "or a log with [STRACE] records in its first %zu bytes; --format names the format)",
                             path, in.len);
        rc = 1;
    } else if (!strcmp(fmt, "chrome")) {
        rc = -1;
        uint64_t size = in.file_size; /* gzip: the decompressed size, from the trailer */
        if (in.gz && size >= 18) {
            unsigned char t[4];
            size = pread(in.fd, t, 4, (off_t)(size - 4)) == 4
                       ? gz_size(size, t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24)
                       : 0;
        }
        if (o->args_fn && (!o->args_part || o->corr_fn)) /* (its calls name input indexes: one thread, or parts) */
            size = 0;
        int threads = stint_threads_wanted();
        if (size >= split_min_bytes() && strcmp(path, "-") != 0 && threads > 1 && (!o->corr_fn || o->corr_part) &&
            (!in.gz || threads >= GZ_SPLIT_MIN_THREADS || getenv("STINT_SPLIT_PARTS"))) {
            const char *p = in.buf;
            while (p < in.buf + in.len && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
                p++;
            int in_obj = p < in.buf + in.len && *p == '{', gz = in.gz;
            stint_input_close(&in);
            rc = read_parts(path, size, gz, in_obj, threads, m, o);
            if (rc < 0) {
                /* no usable split: start again on one thread */
                unsigned flags = m->flags;
                stint_span_sink sink = m->span_sink;
                void *sink_ctx = m->span_sink_ctx;
                const struct stint_span_split *split = m->span_split;
                stint_model_free(m);
                stint_model_init(m, flags);
                stint_model_set_span_sink(m, sink, sink_ctx);
                stint_model_set_span_split(m, split);
                stint_i_subns_take(subns, 0);
                rc = stint_input_open(&in, path);
                if (rc == 0)
                    rc = stint_read_chrome(&in, m, o);
                else
                    stint_model_fail(m, "%s", in.err);
            } else
                memset(&in, 0, sizeof in);
        } else
            rc = stint_read_chrome(&in, m, o);
    }
    else if (!strcmp(fmt, "jsonl"))
        rc = stint_read_jsonl(&in, m, o);
    else if (!strcmp(fmt, "markers"))
        rc = stint_read_markers(&in, m, o);
    else if (!strcmp(fmt, "capture"))
        rc = stint_read_capture(&in, m, o);
    else {
        stint_model_fail(m, "unknown --format '%s' (expected chrome, jsonl, markers or capture)", fmt);
        rc = 2;
    }
    stint_input_close(&in);
    stint_i_self_rss();
    SELF_END_CPU(rd);
    uint64_t cut = stint_i_subns_take(subns, sizeof subns);
    if (cut) { /* Perfetto truncates the same way: a repair, counted, never silent */
        stint_model_repair(m, STINT_REPAIR_SUBNS_TS,
                           "time %s us has digits below 1 ns: truncated to whole ns (as Perfetto does)", subns);
        m->repairs[STINT_REPAIR_SUBNS_TS] += cut - 1;
    }
    stint_model_finish(m);
    if (rc == 0 && m->partial)
        rc = 1;
    if (rc == 0 && o->strict) {
        uint64_t mask = ((o->strict & STINT_STRICT_REPAIRS) ? stint_repair_mask_repairs() : 0) |
                        ((o->strict & STINT_STRICT_DROPS) ? stint_repair_mask_drops() : 0);
        int k = stint_model_first_kind(m, mask & ~o->allow);
        if (k >= 0) {
            stint_model_fail(m, "%s: --strict: %s", path, m->repair_first[k]);
            rc = 1;
        }
        if (rc == 0 && m->dropped && (o->strict & STINT_STRICT_DROPS)) {
            stint_model_fail(m, "%s: --strict: %s", path, m->dropped_first);
            rc = 1;
        }
        if (rc == 0 && m->lost && (o->strict & STINT_STRICT_LOSSES)) {
            stint_model_fail(m, "%s: --strict: the writer lost %llu span(s) before they reached the file", path,
                             (unsigned long long)m->lost);
            rc = 1;
        }
    }
    return rc;
}

void stint_report_problems(FILE *f, const char *path, const struct stint_model *m, int rc)
{
    /* (messages quote the trace's names: through the terminal escaper, base/term.h) */
    if (m->error) {
        fputs("stint: error: ", f);
        stint_term_msg(f, m->error);
        fputc('\n', f);
    }
    for (int k = 0; k < STINT_REPAIR_COUNT; k++) /* (a drop kind's events were not kept: never "repaired") */
        if (m->repairs[k]) {
            fputs("stint: ", f);
            stint_term_msg(f, path);
            fprintf(f, ": %s %llu x %s (first: ", stint_repair_is_drop((enum stint_repair)k) ? "dropped" : "repaired",
                    (unsigned long long)m->repairs[k], stint_repair_name((enum stint_repair)k));
            stint_term_msg(f, m->repair_first[k] ? m->repair_first[k] : "");
            fputs(")\n", f);
        }
    if (m->dropped) {
        fputs("stint: ", f);
        stint_term_msg(f, path);
        fprintf(f, ": dropped %llu event(s) (first: ", (unsigned long long)m->dropped);
        stint_term_msg(f, m->dropped_first ? m->dropped_first : "");
        fputs(")\n", f);
    }
    stint_report_losses(f, path, m);
    stint_report_end(f, path, stint_no_report(rc, m), m->partial);
}

void stint_report_losses(FILE *f, const char *path, const struct stint_model *m)
{
    if (!m->lost)
        return;
    size_t threads = 0;
    const struct stint_loss *l = m->losses.data;
    for (size_t i = 0; i < m->losses.len; i++)
        threads += (l[i].flags & STINT_LOSS_THREAD) != 0;
    fputs("stint: ", f);
    stint_term_msg(f, path);
    fprintf(f, ": LOST: the writer lost %llu span(s) before they reached the file", (unsigned long long)m->lost);
    if (threads)
        fprintf(f, ", on %zu thread(s)", threads);
    fprintf(f, "; counts, sums and unions on those threads are low (stint summary lists them)\n");
}

void stint_report_end(FILE *f, const char *path, int no_report, int partial)
{
    if (!no_report && !partial)
        return;
    fputs("stint: ", f);
    stint_term_msg(f, path);
    fputs(no_report ? ": no report (the input could not be read)\n" : ": the report is PARTIAL (input ended in an error)\n",
          f);
}
