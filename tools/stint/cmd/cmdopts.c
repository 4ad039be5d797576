/* SPDX-License-Identifier: MIT */
/*
 * cmdopts.c - what the analysis commands share: their options (cmdopts.h),
 * loading the input into the model, and opening and closing the output.
 *
 * Invariants: argv is only reordered, never copied or freed (extras are
 * taken out in place, inputs after "--" kept as they are); every refusal
 * prints one line naming the command on stderr and gives STINT_EXIT_USAGE,
 * never a silently ignored option; -1 means "go on", any other return is the
 * exit code (base/exitcode.h); out of memory ends the process through
 * base/xalloc.h (exit STINT_EXIT_NOMEM).
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "base/hmem.h"
#include "base/xalloc.h"
#include "base/tsparse.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int stint_cli_exits_after_command;

int stint_cmd_take_extras(const char *cmd, int *argc, char **argv, const struct stint_cmd_extra *ex, size_t n)
{
    int w = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { /* the rest are inputs: stint_cmd_parse takes them as they are */
            while (i < *argc)
                argv[w++] = argv[i++];
            break;
        }
        const struct stint_cmd_extra *x = NULL;
        const char *inline_value = NULL;
        for (size_t k = 0; k < n && !x; k++) {
            size_t len = strlen(ex[k].name);
            if (!strcmp(a, ex[k].name) || (ex[k].alias && !strcmp(a, ex[k].alias)))
                x = &ex[k];
            else if (ex[k].value && !strncmp(a, ex[k].name, len) && a[len] == '=') {
                x = &ex[k];
                inline_value = a + len + 1;
            }
        }
        if (!x) {
            argv[w++] = argv[i];
            continue;
        }
        if (!x->value) {
            *x->flag = x->flag_value;
        } else if (inline_value) {
            *x->value = inline_value;
        } else if (i + 1 < *argc) {
            *x->value = argv[++i];
        } else {
            fprintf(stderr, "stint %s: %s needs a value\n", cmd, a);
            return STINT_EXIT_USAGE;
        }
    }
    *argc = w;
    return -1;
}

/* Whether a is the option name, alone (*inline_v = NULL) or as "name=VALUE"
 * (*inline_v = VALUE). */
static int is_opt(const char *a, const char *name, const char **inline_v)
{
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != 0 && a[n] != '='))
        return 0;
    *inline_v = a[n] == '=' ? a + n + 1 : NULL;
    return 1;
}

/* The filters (filters.h) and what each one's value is. */
static const struct {
    const char *name;
    const char *expect;
} filter_opts[] = {{"--pid", "an integer, or a comma list of them"},
                   {"--tid", "an integer, or a comma list of them"},
                   {"--cat", "a category, or a comma list of them"},
                   {"--name", "a glob, or a comma list of them"},
                   {"--exclude-cat", "a category, or a comma list of them"},
                   {"--exclude-name", "a glob, or a comma list of them"},
                   {"--time-range", "A:B, times in ns or with a unit: 12.5ms, 3us, 2s; +T from the first event; "
                                    "A or B may be empty"},
                   {"--min-dur", "a duration in ns or with a unit: 12.5ms, 3us, 2s"}};

#define STINT_I64_RANGE "-9223372036854775808 to 9223372036854775807"

/* Checks one time of a filter (--time-range's A or B, --min-dur's D): 0 when
 * it parses, else prints why and returns -1. */
static int check_time(const char *cmd, const char *opt, const char *s, size_t n)
{
    int64_t t;
    int rel;
    int r = stint_filter_parse_time(s, n, &t, &rel);
    if (r == 0 && rel && !strcmp(opt, "--min-dur"))
        r = -1;
    if (r == -2)
        fprintf(stderr,
                "stint %s: %s: '%.*s': out of range (expected a time from " STINT_I64_RANGE
                " ns, about 292 years either side of 0)\n",
                cmd, opt, (int)n, s);
    else if (r != 0)
        fprintf(stderr, "stint %s: %s: '%.*s': expected a time in ns or with a unit (ns, us, ms, s: 12.5ms%s)\n",
                cmd, opt, (int)n, s, strcmp(opt, "--min-dur") ? "; +T from the first event" : "");
    return r ? -1 : 0;
}

/* Checks a filter's value before filters.c takes it, so that a bad one gets
 * one message naming the command and saying what was expected. 0 when it is
 * good, else -1 (message printed). */
static int check_filter_value(const char *cmd, const char *opt, const char *v)
{
    if (!strcmp(opt, "--pid") || !strcmp(opt, "--tid")) {
        for (const char *p = v;; p++) { /* a comma list: each item an integer */
            size_t n = strcspn(p, ",");
            int64_t x;
            int r = stint_parse_i64(p, n, &x);
            if (r == -2)
                fprintf(stderr, "stint %s: %s: '%.*s': out of range (expected an integer from " STINT_I64_RANGE ")\n",
                        cmd, opt, (int)n, p);
            else if (r != 0 || !n)
                fprintf(stderr, "stint %s: %s: '%s': expected an integer or a comma list of them\n", cmd, opt, v);
            if (r || !n)
                return -1;
            p += n;
            if (!*p)
                return 0;
        }
    }
    if (!strcmp(opt, "--min-dur"))
        return check_time(cmd, opt, v, strlen(v));
    if (!strcmp(opt, "--time-range")) {
        const char *colon = strchr(v, ':');
        if (!colon) {
            fprintf(stderr, "stint %s: --time-range: '%s': expected A:B (A or B may be empty)\n", cmd, v);
            return -1;
        }
        int64_t t0 = INT64_MIN, t1 = INT64_MAX;
        int r0 = 0, r1 = 0;
        size_t n0 = (size_t)(colon - v), n1 = strlen(colon + 1);
        if ((n0 && check_time(cmd, opt, v, n0) != 0) || (n1 && check_time(cmd, opt, colon + 1, n1) != 0))
            return -1;
        if (n0)
            stint_filter_parse_time(v, n0, &t0, &r0);
        if (n1)
            stint_filter_parse_time(colon + 1, n1, &t1, &r1);
        if (r0 == r1 && t1 < t0) { /* (a relative side against an absolute one: checked once resolved) */
            fprintf(stderr, "stint %s: --time-range: '%s': expected an end B not before the start A\n", cmd, v);
            return -1;
        }
    }
    return 0; /* --cat, --name: any text */
}

/* The field of o that the shared flag a sets (--json, --csv), or NULL when
 * a is none of them. */
static int *flag_of(struct stint_cmd_opts *o, const char *a)
{
    if (!strcmp(a, "--json"))
        return &o->json;
    return !strcmp(a, "--csv") ? &o->csv : NULL;
}

/* --strict's value: a comma list of repairs, drops, losses, as STINT_STRICT_*
 * bits; 0 (message printed) when an item is none of them. */
static int strict_value(const char *cmd, const char *v)
{
    int bits = 0;
    for (const char *p = v;;) {
        size_t n = strcspn(p, ",");
        int b = n == 7 && !memcmp(p, "repairs", 7) ? STINT_STRICT_REPAIRS
                : n == 5 && !memcmp(p, "drops", 5) ? STINT_STRICT_DROPS
                : n == 6 && !memcmp(p, "losses", 6) ? STINT_STRICT_LOSSES
                                                    : 0;
        if (!b) {
            fprintf(stderr, "stint %s: --strict: '%.*s': expected repairs, drops or losses (a comma list; --strict "
                            "alone is all three)\n", cmd, (int)n, p);
            return 0;
        }
        bits |= b;
        if (!p[n])
            return bits;
        p += n + 1;
    }
}

/* Adds --allow's comma list of kinds to *allow: 0, or -1 (message printed)
 * when an item is not on the allow-list (stint_repair_allowable). */
static int allow_value(const char *cmd, const char *v, uint64_t *allow)
{
    for (const char *p = v;;) {
        size_t n = strcspn(p, ",");
        char name[40];
        int k = -1;
        if (n < sizeof name) {
            memcpy(name, p, n);
            name[n] = 0;
            k = stint_repair_by_name(name);
        }
        if (k < 0 || !stint_repair_allowable((enum stint_repair)k)) {
            fprintf(stderr, "stint %s: --allow: '%.*s': expected a kind of the allow-list: unbound_flow, subns_ts\n",
                    cmd, (int)n, p);
            return -1;
        }
        *allow |= (uint64_t)1 << k;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* --strict[=LIST] and --allow KIND[,KIND] at argv[*i]: 1 taken (*i moved
 * past a separate value), 0 not one of them, -1 bad value (message printed). */
static int strict_arg(const char *cmd, int argc, char **argv, int *i, struct stint_cmd_opts *o)
{
    const char *a = argv[*i], *v;
    if (is_opt(a, "--strict", &v)) {
        o->strict = v ? strict_value(cmd, v) : STINT_STRICT_ALL;
        return o->strict ? 1 : -1;
    }
    if (!is_opt(a, "--allow", &v))
        return 0;
    if (!v && *i + 1 >= argc) {
        fprintf(stderr, "stint %s: --allow needs a value (a kind of the allow-list: unbound_flow, subns_ts)\n", cmd);
        return -1;
    }
    return allow_value(cmd, v ? v : argv[++*i], &o->allow) == 0 ? 1 : -1;
}

int stint_cmd_parse(int argc, char **argv, const char *usage, struct stint_cmd_opts *o)
{
    memset(o, 0, sizeof *o);
    const char *cmd = argv[0];
    int only_inputs = 0; /* after "--" */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (only_inputs || (a[0] != '-' || !a[1])) {
            if (o->path) {
                fprintf(stderr, "stint %s: more than one input file ('%s' and '%s')\n", cmd, o->path, a);
                return STINT_EXIT_USAGE;
            }
            o->path = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_inputs = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            fputs(STINT_FILTER_USAGE, stdout);
            return STINT_EXIT_OK;
        }
        int *flag = flag_of(o, a);
        if (flag) {
            *flag = 1;
            continue;
        }
        int sr = strict_arg(cmd, argc, argv, &i, o);
        if (sr < 0)
            return STINT_EXIT_USAGE;
        if (sr > 0)
            continue;
        if (is_opt(a, "--format", &v)) {
            if (!v && i + 1 >= argc) {
                fprintf(stderr, "stint %s: --format needs a value (chrome, jsonl, markers or capture)\n", cmd);
                return STINT_EXIT_USAGE;
            }
            if (!v)
                v = argv[++i];
            if (strcmp(v, "chrome") != 0 && strcmp(v, "jsonl") != 0 && strcmp(v, "markers") != 0 &&
                strcmp(v, "capture") != 0) {
                fprintf(stderr, "stint %s: --format: '%s': expected chrome, jsonl, markers or capture\n", cmd, v);
                return STINT_EXIT_USAGE;
            }
            o->format = v;
            continue;
        }
        for (size_t k = 0; k < sizeof filter_opts / sizeof filter_opts[0]; k++) {
            if (!is_opt(a, filter_opts[k].name, &v))
                continue;
            if (!v && i + 1 >= argc) {
                fprintf(stderr, "stint %s: %s needs a value (%s)\n", cmd, filter_opts[k].name, filter_opts[k].expect);
                return STINT_EXIT_USAGE;
            }
            if (check_filter_value(cmd, filter_opts[k].name, v ? v : argv[i + 1]) != 0)
                return STINT_EXIT_USAGE;
            break;
        }
        int r = stint_filter_arg(&o->filter, argc, argv, &i);
        if (r < 0)
            return STINT_EXIT_USAGE;
        if (r > 0)
            continue;
        fprintf(stderr, "stint %s: unknown option '%s'\n", cmd, a);
        fputs(usage, stderr);
        return STINT_EXIT_USAGE;
    }
    if (!o->path) {
        fprintf(stderr, "stint %s: no input file (use - for stdin)\n", cmd);
        fputs(usage, stderr);
        return STINT_EXIT_USAGE;
    }
    if (o->json && o->csv) {
        fprintf(stderr, "stint %s: --json and --csv exclude each other\n", cmd);
        return STINT_EXIT_USAGE;
    }
    if (o->allow && !o->strict) { /* (refused, never ignored) */
        fprintf(stderr, "stint %s: --allow only narrows --strict (add --strict)\n", cmd);
        return STINT_EXIT_USAGE;
    }
    return -1;
}

int stint_cmd_parse_nocsv(int argc, char **argv, const char *usage, struct stint_cmd_opts *o)
{
    int rc = stint_cmd_parse(argc, argv, usage, o);
    if (rc < 0 && o->csv) {
        fprintf(stderr, "stint %s: --csv is not supported (use --json)\n", argv[0]);
        return STINT_EXIT_USAGE;
    }
    return rc;
}

int stint_cmd_parse_spec(int argc, char **argv, const char *usage, struct stint_cmd_opts *o,
                         const struct stint_cmd_spec *s)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            memset(o, 0, sizeof *o);
            fputs(usage, stdout);
            return STINT_EXIT_OK;
        }
    int rc = stint_cmd_parse(argc, argv, usage, o);
    if (rc >= 0)
        return rc;
    const char *bad = o->json && !(s->takes & STINT_TAKES_JSON) ? "--json"
                      : o->csv && !(s->takes & STINT_TAKES_CSV) ? "--csv"
                                                                 : NULL;
    if (bad) {
        fprintf(stderr, "stint %s: %s does not apply here: %s\n", s->cmd, bad, s->output_why);
        return STINT_EXIT_USAGE;
    }
    const struct stint_filter *f = &o->filter;
    const unsigned allowed = s->takes;
    bad = f->has_pid && !(allowed & STINT_FILT_PID)           ? "--pid"
          : f->has_tid && !(allowed & STINT_FILT_TID)         ? "--tid"
          : f->cat && !(allowed & STINT_FILT_CAT)             ? "--cat"
          : f->xcat && !(allowed & STINT_FILT_CAT)            ? "--exclude-cat"
          : f->name_glob && !(allowed & STINT_FILT_NAME)      ? "--name"
          : f->xname && !(allowed & STINT_FILT_NAME)          ? "--exclude-name"
          : f->has_range && !(allowed & STINT_FILT_RANGE)     ? "--time-range"
          : f->has_min_dur && !(allowed & STINT_FILT_MIN_DUR) ? "--min-dur"
                                                              : NULL;
    if (bad) {
        fprintf(stderr, "stint %s: %s does not apply here: %s\n", s->cmd, bad, s->filters_why);
        return STINT_EXIT_USAGE;
    }
    if (s->format && o->format && strcmp(o->format, s->format) != 0) {
        fprintf(stderr, "stint %s: --format: '%s': expected %s (%s)\n", s->cmd, o->format, s->format, s->format_why);
        return STINT_EXIT_USAGE;
    }
    return -1;
}

int stint_cmd_parse_some(int argc, char **argv, const char *usage, struct stint_cmd_opts *o, const char *cmd,
                         unsigned allowed, const char *why)
{
    const struct stint_cmd_spec s = {cmd, allowed | STINT_TAKES_JSON | STINT_TAKES_CSV, why, NULL, NULL, NULL};
    return stint_cmd_parse_spec(argc, argv, usage, o, &s);
}

int stint_cmd_load(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags)
{
    return stint_cmd_load_sink(o, m, model_flags, NULL, NULL, NULL);
}

int stint_cmd_load_report(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags, int *rc)
{
    *rc = stint_cmd_load_sink(o, m, model_flags, NULL, NULL, NULL);
    if (!stint_no_report(*rc, m))
        return 1;
    stint_model_free(m);
    return 0;
}

/* Reads path into a model that keeps every slice (no sink, lean or sizes
 * mode), its problems unreported: for what the filters need to know before
 * the real read (a relative --time-range's origin), or after it found
 * nothing (why). 0 when read (m to free), else -1 (stdin cannot be read
 * twice; nothing to free). */
static int read_whole(const struct stint_cmd_opts *o, struct stint_model *m)
{
    if (!strcmp(o->path, "-"))
        return -1;
    if (stint_model_init(m, 0) != 0)
        stint_die_nomem();
    struct stint_read_opts ro = {.format = o->format, .quiet = 1}; /* (the command's own read speaks) */
    (void)stint_read_trace(o->path, m, &ro);
    return 0;
}

/* Makes o's relative --time-range absolute from the first host-clock event
 * (filters.h): m's own when it keeps every slice (read), else a first read
 * of the input. The filter is the command's, which it owns: o is const for
 * the reader's sake only. Returns -1 when it must read first and cannot
 * (stdin: message printed), else 0. */
static int resolve_range(const struct stint_cmd_opts *o, const struct stint_model *m, int read)
{
    struct stint_filter *f = (struct stint_filter *)&o->filter;
    int64_t first = 0, last;
    if (read) {
        stint_filter_extent(m, &first, &last);
    } else {
        struct stint_model pm;
        if (read_whole(o, &pm) != 0) {
            fprintf(stderr, "stint: --time-range: a time with '+' counts from the trace's first event, which this "
                            "command must know before it reads stdin: give a file, or absolute times\n");
            return -1;
        }
        stint_filter_extent(&pm, &first, &last);
        stint_model_free(&pm);
    }
    stint_filter_resolve(f, first);
    return 0;
}

int stint_cmd_no_relative_range(const char *cmd, const struct stint_cmd_opts *o)
{
    if (!o->filter.rel)
        return -1;
    fprintf(stderr, "stint %s: --time-range: a time with '+' counts from a trace's first event, which this input's "
                    "reader does not take: give absolute times\n", cmd);
    return STINT_EXIT_USAGE;
}

void stint_cmd_explain_empty(const char *cmd, const struct stint_cmd_opts *o, const struct stint_model *m)
{
    if (!stint_filter_active(&o->filter))
        return;
    if (m) {
        stint_filter_explain(stderr, cmd, &o->filter, m);
        return;
    }
    struct stint_model wm;
    if (read_whole(o, &wm) != 0) {
        fprintf(stderr, "stint %s: nothing in the trace matches the filters: the tables are empty\n", cmd);
        return;
    }
    stint_filter_explain(stderr, cmd, &o->filter, &wm);
    stint_model_free(&wm);
}

int stint_cmd_load_sink(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags,
                        stint_span_sink sink, void *ctx, const struct stint_span_split *split)
{
    /* a model that streams its spans away (sink, lean) or measures bytes (sizes) cannot say
     * where the trace starts before the filters are applied: a relative range is resolved first */
    int keeps_all = !sink && !(model_flags & (STINT_MODEL_LEAN | STINT_MODEL_SIZES));
    if (o->filter.rel && !keeps_all && resolve_range(o, NULL, 0) != 0)
        return STINT_EXIT_USAGE;
    struct stat st; /* a large input: huge pages from the model's first arrays on (hmem.h) */
    if (strcmp(o->path, "-") != 0 && stat(o->path, &st) == 0 && S_ISREG(st.st_mode))
        stint_hmem_expect((uint64_t)st.st_size);
    if (stint_model_init(m, model_flags) != 0)
        stint_die_nomem();
    stint_model_set_span_sink(m, sink, ctx);
    if (split && stint_threads_wanted() > 1)
        stint_model_set_span_split(m, split);
    struct stint_read_opts ro = {.format = o->format, .strict = o->strict, .allow = o->allow,
                                 .corr_want = o->corr_want, .corr_fn = o->corr_fn, .corr_ctx = o->corr_ctx,
                                 .corr_part = o->corr_part, .corr_part_ops = o->corr_part_ops};
    if ((model_flags & STINT_MODEL_SIZES) && stint_filter_active(&o->filter))
        ro.event_filter = &o->filter;
    ro.args_fn = o->args_fn;
    ro.args_ctx = o->args_ctx;
    ro.args_part = o->args_part;
    ro.args_part_ops = o->args_part_ops;
    ro.lean_seq_fn = o->lean_seq_fn;
    ro.lean_seq_ctx = o->lean_seq_ctx;
    int rc = stint_read_trace(o->path, m, &ro);
    stint_report_problems(stderr, o->path, m, rc);
    if (o->filter.rel)
        resolve_range(o, m, 1);
    return rc;
}

FILE *stint_cmd_open_out(const char *cmd, const char *path)
{
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "stint %s: cannot open %s for writing: %s\n", cmd, path, strerror(errno));
        return NULL;
    }
    static char obuf[1 << 18];
    setvbuf(f, obuf, _IOFBF, sizeof obuf);
    return f;
}

int stint_cmd_close_out(const char *cmd, FILE *f, const char *path)
{
    int werr = ferror(f) != 0;
    werr |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
    if (werr) {
        fprintf(stderr, "stint %s: write error on %s\n", cmd, path);
        return STINT_EXIT_IO;
    }
    return STINT_EXIT_OK;
}

int stint_cmd_parse_u32(const char *s, uint32_t *out)
{
    if (*s < '0' || *s > '9') /* (strtoull would take a sign or leading blanks) */
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int stint_cmd_parse_columns(const char *s, size_t *out)
{
    uint32_t v;
    if (stint_cmd_parse_u32(s, &v) != 0)
        return -1;
    *out = v ? (size_t)v : SIZE_MAX;
    return 0;
}
