/* SPDX-License-Identifier: MIT */
/*
 * cmd_timing.c - `stint timing`: per-callable timing tables from `[STRACE]`
 * marker logs, a drop-in for the reference timing tool, `strace_timing`.
 *
 * Reads each input with the streaming marker parser (markers_parse.h) into the
 * timing model (timing_model.h), or, for a libstint binary capture (found by
 * its magic), each span record as the marker record the marker sink would
 * have written for it (read_capture.h), then prints one view: the per-callable table
 * (default), the rounds table, or the median tree; optionally writes a Chrome
 * trace. Text output reproduces the reference byte for byte, including its
 * float formatting (values are computed as the reference's doubles and printed
 * with the same round-half-even "%.1f"). Torn records and unknown versions are
 * counted and reported on stderr, never dropped silently; --strict makes them
 * an error (exit 1, the report is still written). A --warmup that leaves no
 * invocation is said in the table's place (JSON: on stderr, the callables
 * keep "invocations": 0); exit 0, or 1 under --strict.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "base/xalloc.h"
#include "read/input.h"
#include "read/read_capture.h"
#include "read/markers_parse.h"
#include "read/readers.h"
#include "timing/timing_model.h"
#include "timing/timing_out.h"
#include "base/tsparse.h"
#include "write/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum view { VIEW_TABLE, VIEW_ROUNDS, VIEW_TREE };

struct opts {
    enum view view;
    int tree_depth; /* --tree=depth */
    int json;
    int strict;
    int warmup_set;
    uint32_t warmup;
    const char *trace_out;
};

struct reader {
    struct stint_tm_model *m;
    const char *path;
    uint64_t first_torn_off;
    const char *first_torn_why;
    uint64_t torn;
    int read_error; /* the input ended in a read error (what came before it is kept) */
    uint64_t lost;  /* spans the writer reported lost ([STINT] v=1 dropped lines; saturating) */
    int capture;    /* the input is a binary capture (cap_why: what was wrong first there) */
    char cap_why[200];
};

/* Parser callback: the record goes into the model; OOM stops the parse. */
static int on_record(void *ctx, const struct stint_mparse_record *r)
{
    struct reader *rd = ctx;
    return stint_tm_add(rd->m, r) ? -1 : 0;
}

/* Parser callback: a loss line's count adds to the spans the writer lost
 * (an unread one is counted in the parser's bad_losses). */
static int on_loss(void *ctx, const struct stint_mparse_loss *l)
{
    struct reader *rd = ctx;
    if (l->ok)
        rd->lost = stint_count_add(rd->lost, l->count);
    return 0;
}

/* Parser callback: remembers the first torn record for the --strict message. */
static void on_torn(void *ctx, uint64_t off, uint64_t line, const char *why)
{
    struct reader *rd = ctx;
    (void)line;
    if (!rd->torn++) {
        rd->first_torn_off = off;
        rd->first_torn_why = why;
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: stint timing [options] LOG...   ('-' reads stdin)\n"
            "  per-callable timing from [STRACE] marker logs or binary captures (drop-in for strace_timing)\n"
            "options:\n"
            "  --rounds-table     per-round Host/Device/Effective/Orch/Sched table (busiest callable)\n"
            "  --tree[=names]     median span tree per callable, nested by dotted names\n"
            "  --tree=depth       the same, nested by depth and order within (pid, inv, tid)\n"
            "  --trace-out FILE   also write a Chrome trace (one process lane per invocation)\n"
            "  --warmup N         drop the first N invocations of each callable; add stdev\n"
            "  --json             the chosen view as JSON\n"
            "  --strict           torn records, unknown versions or lost spans are an error (exit 1)\n");
}

/* Whether fd can be parsed straight from its descriptor: a regular file
 * that starts with neither the gzip magic bytes nor a capture's (read at
 * offset 0 without moving the file offset). Anything else (gzip, a
 * capture, a pipe or FIFO such as <(gzip -c log) or /dev/stdin, a device)
 * goes through stint_input, which finds gzip by content whatever the file
 * is. */
static int plain_regular(int fd)
{
    unsigned char b[2];
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    char head[8];
    ssize_t n = pread(fd, head, sizeof head, 0);
    if (n > 0 && stint_cap_is_capture(head, (size_t)n))
        return 0; /* a capture: decoded from stint_input's windows */
    return !(pread(fd, b, 2, 0) == 2 && b[0] == 0x1f && b[1] == 0x8b);
}

/* ---- a binary capture ------------------------------------------------------------------------ */

struct capread {
    struct reader *rd;
    struct stint_mparse_stats *st;
    char *line; /* the current span's marker record */
    size_t cap;
};

/* A span: its marker record into the model, counted as a whole record. */
static void cap_span(void *ctx, const struct stint_cap_span *s)
{
    struct capread *c = ctx;
    struct stint_mparse_record r;
    stint_cap_span_record(s, &c->line, &c->cap, &r);
    c->st->heads++;
    c->st->records++;
    if (stint_tm_add(c->rd->m, &r))
        stint_die_nomem();
}

/* The library's count of spans it lost, as a marker log's loss line. */
static void cap_drop(void *ctx, int32_t pid, int32_t tid, uint64_t count, int64_t first_ns, int64_t last_ns)
{
    struct capread *c = ctx;
    (void)pid, (void)tid, (void)first_ns, (void)last_ns;
    c->st->losses++;
    c->rd->lost = stint_count_add(c->rd->lost, count);
}

/* A cut last block, a damaged block or entry: the entries it held are
 * records that did not complete (torn), the first remembered for --strict;
 * bytes after the last block count as one. */
static void cap_problem(void *ctx, enum stint_cap_problem kind, uint64_t off, uint64_t n, const char *why)
{
    struct capread *c = ctx;
    uint64_t count = kind == STINT_CAP_P_TAIL || !n ? 1 : n;
    c->st->heads += count;
    c->st->torn += count;
    if (!c->rd->torn) /* (why lives in the decoder: copied) */
        snprintf(c->rd->cap_why, sizeof c->rd->cap_why, "%s", why ? why : "");
    on_torn(c->rd, off, 0, why);
}

/* Reads the capture in (opened) into rd's model. Returns 0, or an exit
 * code: 1 when it is not a capture this reader reads (said), 3 or 1 when
 * reading failed (*msg set; what came before is kept). */
static int read_capture(struct stint_input *in, struct stint_mparse_stats *st, struct reader *rd, const char **msg)
{
    struct capread c = {.rd = rd, .st = st};
    struct stint_cap_callbacks cb = {.ctx = &c, .span = cap_span, .drop = cap_drop, .problem = cap_problem};
    struct stint_cap_dec *d = stint_cap_dec_new(&cb);
    const char *why = NULL;
    rd->capture = 1;
    int rc = stint_cap_decode_input(d, in, NULL, NULL, &why);
    st->bytes += in->base + in->len;
    stint_cap_dec_free(d);
    free(c.line);
    if (rc == 1) {
        fprintf(stderr, "stint timing: %s: byte 0: %s\n", rd->path, why);
        return STINT_EXIT_DATA;
    }
    if (rc) {
        *msg = in->err;
        return stint_input_errcode(in);
    }
    return 0;
}

/* Feeds the input at path to p through stint_input (input.h), which inflates
 * gzip by content; for stdin and gzip logs; a capture (by its magic) is
 * decoded into rd's model instead, its counts added to st. Returns 0, -1 out of memory or
 * a callback's stop, or an exit code (1 bad compressed data, 3 I/O) with
 * *msg set to the reader's message (in *in, which the caller closes). */
static int feed_input(struct stint_mparse *p, const char *path, const char **msg, struct stint_input *in,
                      struct stint_mparse_stats *st, struct reader *rd)
{
    int rc = stint_input_open(in, path);
    while (rc == 0 && in->len < 8 && !in->eof) /* (enough to know a capture by its magic) */
        if (stint_input_fill(in) < 0)
            rc = stint_input_errcode(in);
    if (rc == 0 && stint_cap_is_capture(in->buf, in->len))
        return read_capture(in, st, rd, msg);
    while (rc == 0) {
        if (in->len && stint_mparse_feed(p, in->buf, in->len))
            return -1;
        stint_input_consume(in, in->len);
        int r = stint_input_fill(in);
        if (r == 0)
            return stint_mparse_finish(p) ? -1 : 0;
        if (r < 0)
            rc = stint_input_errcode(in);
    }
    stint_mparse_finish(p); /* what came before the error is kept */
    *msg = in->err;
    return rc;
}

/* Reads one input into the model: plain regular files straight into the
 * parser's buffer, stdin, pipes and gzip logs (detected by content) through
 * stint_input. Returns 0, or an exit code: 3 when the input cannot be
 * opened or read, 1 when its compressed data is bad (a truncated .gz);
 * after a read error what came before it is kept (rd->read_error). */
static int read_input(struct stint_tm_model *m, const char *path, struct stint_mparse_stats *total, struct reader *rd)
{
    int fd = -1;
    if (strcmp(path, "-") != 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "stint timing: cannot open %s: %s\n", path, strerror(errno));
            return STINT_EXIT_IO;
        }
        if (!plain_regular(fd)) {
            close(fd);
            fd = -1;
        }
    }
    memset(rd, 0, sizeof *rd);
    rd->m = m;
    rd->path = path;
    struct stint_mparse_options o = MARKERS_OPTIONS_INIT;
    o.on_record = on_record;
    o.on_torn = on_torn;
    o.on_loss = on_loss;
    o.ctx = rd;
    struct stint_mparse *p = stint_mparse_new(&o);
    if (!p)
        stint_die_nomem();
    const char *msg = NULL;
    struct stint_input in = {0};
    int rc = fd >= 0 ? stint_mparse_read_fd(p, fd) : feed_input(p, path, &msg, &in, total, rd);
    int err = errno;
    const struct stint_mparse_stats *st = stint_mparse_get_stats(p);
    uint64_t nbytes = st->bytes; /* (st goes with the parser, freed below) */
    stint_mparse_stats_add(total, st);
    stint_mparse_free(p);
    if (fd >= 0)
        close(fd);
    else
        stint_input_close(&in); /* (msg stays: it is in's own buffer) */
    if (msg) {
        fprintf(stderr, "stint timing: %s\n", msg);
        rd->read_error = 1;
        return rc;
    }
    if (rc == -2) {
        fprintf(stderr, "stint timing: cannot read %s at byte %llu: %s\n", path, (unsigned long long)nbytes,
                strerror(err));
        rd->read_error = 1;
        return STINT_EXIT_IO;
    }
    if (rc > 0 && rd->capture) /* (said in read_capture) */
        return rc;
    if (rc)
        stint_die_nomem();
    return 0;
}

/* What the log lost or could not read, on stderr before any timing, as the
 * reference timing tool does. */
static void put_warnings(const struct stint_mparse_stats *st, uint64_t lost)
{
    if (st->heads > st->records)
        fprintf(stderr,
                "warning: %llu of %llu [STRACE] records are incomplete and are excluded from the "
                "timing below\n",
                (unsigned long long)(st->heads - st->records), (unsigned long long)st->heads);
    if (lost || st->bad_losses)
        fprintf(stderr,
                "warning: the writer lost %llu span(s) before they reached the log ([STINT] dropped lines%s); "
                "they are missing from the timing below\n",
                (unsigned long long)lost, st->bad_losses ? ", some of them unreadable: more were lost" : "");
    if (st->unknown_version)
        fprintf(stderr,
                "note: %llu [STRACE] record(s) carry a format version other than v=1; they were "
                "read with the v=1 grammar\n",
                (unsigned long long)st->unknown_version);
    if (st->long_lines)
        fprintf(stderr, "note: %llu line(s) longer than %zu bytes were cut\n",
                (unsigned long long)st->long_lines, MARKERS_MAX_LINE_BYTES);
}

/* --strict: what the report was made despite is an error (exit 1). */
/* When path (not "-") is another format stint reads, says so on stderr. */
static void say_other_format(const char *path)
{
    const char *f = strcmp(path, "-") ? stint_detect_format(path) : NULL;
    if (!f || !strcmp(f, "markers") || !strcmp(f, "capture"))
        return;
    fprintf(stderr, "stint timing: %s is %s: timing reads [STRACE] marker logs and binary captures (summary, tree, "
            "slices, steps and report read Chrome JSON and JSONL sessions too)\n", path,
            !strcmp(f, "chrome") ? "Chrome JSON" : "a JSONL session");
}

static int strict_checks(const struct opts *o, const struct stint_mparse_stats *st, uint64_t lost,
                         const struct reader *first_bad, int nothing_left)
{
    if (o->strict && (st->torn || st->unknown_version || st->long_lines)) {
        if (first_bad->torn && first_bad->capture)
            fprintf(stderr, "stint timing: %s: byte %llu: %s\n", first_bad->path,
                    (unsigned long long)first_bad->first_torn_off, first_bad->cap_why);
        else if (first_bad->torn)
            fprintf(stderr, "stint timing: %s: byte %llu: torn [STRACE] record (expected %s)\n",
                    first_bad->path, (unsigned long long)first_bad->first_torn_off, first_bad->first_torn_why);
        fprintf(stderr, "stint timing: --strict: the log has torn, cut or unknown-version records\n");
        return STINT_EXIT_DATA;
    }
    if (o->strict && (lost || st->bad_losses)) {
        fprintf(stderr, "stint timing: --strict: the writer lost spans before they reached the log\n");
        return STINT_EXIT_DATA;
    }
    if (o->strict && nothing_left) {
        fprintf(stderr, "stint timing: --strict: --warmup %u left no invocation to time\n", o->warmup);
        return STINT_EXIT_DATA;
    }
    return STINT_EXIT_OK;
}

/* `stint timing` (see commands.h for the exit codes and docs/cli/timing.md). */
int stint_cmd_timing(int argc, char **argv)
{
    struct opts o = {VIEW_TABLE, 0, 0, 0, 0, 0, NULL};
    const char **inputs = stint_xcalloc((size_t)argc + 1, sizeof *inputs);
    int ninputs = 0, only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            inputs[ninputs++] = a;
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(inputs);
            return STINT_EXIT_OK;
        } else if (!strcmp(a, "--rounds-table")) {
            o.view = VIEW_ROUNDS;
        } else if (!strcmp(a, "--tree") || !strcmp(a, "--tree=names")) {
            o.view = VIEW_TREE;
            o.tree_depth = 0;
        } else if (!strcmp(a, "--tree=depth")) {
            o.view = VIEW_TREE;
            o.tree_depth = 1;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--strict")) {
            o.strict = 1;
        } else if (!strcmp(a, "--trace-out") || !strncmp(a, "--trace-out=", 12)) {
            const char *v = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !*v) {
                fprintf(stderr, "stint timing: --trace-out needs a file name\n");
                free(inputs);
                return STINT_EXIT_USAGE;
            }
            o.trace_out = v;
        } else if (!strcmp(a, "--warmup") || !strncmp(a, "--warmup=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || stint_cmd_parse_u32(v, &o.warmup)) {
                fprintf(stderr, "stint timing: --warmup needs a count (a whole number >= 0), got '%s'\n",
                        v ? v : "");
                free(inputs);
                return STINT_EXIT_USAGE;
            }
            o.warmup_set = 1;
        } else {
            fprintf(stderr, "stint timing: unknown option '%s'\n", a);
            usage(stderr);
            free(inputs);
            return STINT_EXIT_USAGE;
        }
    }
    if (!ninputs) {
        fprintf(stderr, "stint timing: no input (give a log file, or '-' for stdin)\n");
        usage(stderr);
        free(inputs);
        return STINT_EXIT_USAGE;
    }

    if (o.trace_out && stint_outfile_refuse_input("timing", o.trace_out, inputs, (size_t)ninputs)) {
        free(inputs);
        return STINT_EXIT_USAGE;
    }
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

    struct stint_tm_model m;
    stint_tm_init(&m, (o.trace_out ? TM_KEEP_ATTRS : 0) | (o.view == VIEW_TREE ? TM_KEEP_SPANS : 0));
    struct stint_mparse_stats st;
    memset(&st, 0, sizeof st);
    int rc = 0, partial = 0, left = 0;
    const char *partial_path = NULL;
    struct reader first_bad = {0};
    uint64_t lost = 0;
    for (int i = 0; i < ninputs && !rc; i++) {
        struct reader rd = {0}; /* (read_input fills it only once the file is open) */
        rc = read_input(&m, inputs[i], &st, &rd);
        lost = stint_count_add(lost, rd.lost);
        if (rd.torn && !first_bad.torn)
            first_bad = rd;
        partial = rd.read_error;
        partial_path = inputs[i];
        left = ninputs - i - 1;
    }
    /* a read error after some records: what was read is timed, marked
     * PARTIAL, and the exit code stays (3, or 1 for bad compressed data) */
    if (rc && !(partial && st.records)) {
        if (partial)
            fprintf(stderr, "stint timing: %s: no report (the input could not be read)\n", partial_path);
        free(inputs);
        stint_tm_free(&m);
        return rc;
    }
    if (!st.records) /* no record: say so when an input is another format stint reads */
        for (int i = 0; i < ninputs; i++)
            say_other_format(inputs[i]);
    if (partial)
        fprintf(stderr, "stint timing: the tables below are PARTIAL: %s ended in %s%s\n", partial_path,
                rc == 3 ? "a read error" : "bad data (a cut or corrupt gzip stream)",
                left ? ", and the inputs after it were not read" : "");
    free(inputs);
    if (stint_tm_analyze(&m))
        stint_die_nomem();

    put_warnings(&st, lost);

    struct stint_tout_ctx c = {&m, stdout, o.warmup, o.warmup_set, o.json, o.tree_depth, &st, partial};
    int wrc = 0;
    if (o.json) {
        stint_tout_json_begin(&c, o.view == VIEW_ROUNDS ? "rounds" : o.view == VIEW_TREE ? "tree" : "table");
    }
    if (o.view == VIEW_ROUNDS)
        stint_tout_rounds(&c);
    else if (o.view == VIEW_TREE)
        stint_tout_tree(&c);
    else
        stint_tout_table(&c);

    if (o.trace_out) {
        wrc = stint_tout_chrome(&m, o.trace_out); /* (a failure is said there) */
        if (!wrc && !o.json) {
            printf("Wrote Chrome trace: %s (%u spans)\n", o.trace_out, m.nrecords);
        }
    }
    if (o.json)
        stint_tout_json_end(&c, o.trace_out && !wrc ? o.trace_out : NULL);
    /* --warmup left nothing: the text views say so on stdout; JSON on stderr */
    uint64_t dropped = 0;
    int nothing_left = stint_tout_nothing_left(&c, &dropped);
    if (nothing_left && o.json)
        fprintf(stderr,
                "stint timing: nothing left after --warmup %u: all %llu invocation(s) were dropped (no callable "
                "has more than %u)\n",
                o.warmup, (unsigned long long)dropped, o.warmup);

    int out_err = fflush(stdout) != 0 || ferror(stdout);
    stint_tm_free(&m);
    if (out_err) {
        fprintf(stderr, "stint timing: cannot write the report to stdout\n");
        return STINT_EXIT_IO;
    }
    if (wrc)
        return STINT_EXIT_IO;
    if (rc)
        return rc;
    return strict_checks(&o, &st, lost, &first_bad, nothing_left);
}
