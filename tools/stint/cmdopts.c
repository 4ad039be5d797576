/*
 * cmdopts.c - shared option parsing and loading for the analysis commands.
 */
#include "cmdopts.h"
#include "hmem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int stint_cli_exits_after_command;

int stint_cmd_take_extras(const char *cmd, int *argc, char **argv, const struct stint_cmd_extra *ex, size_t n)
{
    int w = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
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
            return 2;
        }
    }
    *argc = w;
    return -1;
}

int stint_cmd_parse(int argc, char **argv, const char *usage, struct stint_cmd_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            fputs(STINT_FILTER_USAGE, stdout);
            return 0;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--csv")) {
            o->csv = 1;
            continue;
        }
        if (!strcmp(a, "--strict")) {
            o->strict = 1;
            continue;
        }
        if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            if (a[8] == '=')
                o->format = a + 9;
            else if (i + 1 < argc)
                o->format = argv[++i];
            else {
                fprintf(stderr, "stint %s: --format needs a value (chrome, jsonl or markers)\n", argv[0]);
                return 2;
            }
            continue;
        }
        int r = stint_filter_arg(&o->filter, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "stint %s: unknown option '%s'\n", argv[0], a);
            fputs(usage, stderr);
            return 2;
        }
        if (o->path) {
            fprintf(stderr, "stint %s: more than one input file ('%s' and '%s')\n", argv[0], o->path, a);
            return 2;
        }
        o->path = a;
    }
    if (!o->path) {
        fprintf(stderr, "stint %s: no input file (use - for stdin)\n", argv[0]);
        fputs(usage, stderr);
        return 2;
    }
    if (o->json && o->csv) {
        fprintf(stderr, "stint %s: --json and --csv exclude each other\n", argv[0]);
        return 2;
    }
    return -1;
}

int stint_cmd_parse_some(int argc, char **argv, const char *usage, struct stint_cmd_opts *o, const char *cmd,
                         unsigned allowed, const char *why)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            memset(o, 0, sizeof *o);
            fputs(usage, stdout);
            return 0;
        }
    int rc = stint_cmd_parse(argc, argv, usage, o);
    if (rc >= 0)
        return rc;
    const struct stint_filter *f = &o->filter;
    const char *bad = f->has_pid && !(allowed & STINT_FILT_PID)           ? "--pid"
                      : f->has_tid && !(allowed & STINT_FILT_TID)         ? "--tid"
                      : f->cat && !(allowed & STINT_FILT_CAT)             ? "--cat"
                      : f->name_glob && !(allowed & STINT_FILT_NAME)      ? "--name"
                      : f->has_range && !(allowed & STINT_FILT_RANGE)     ? "--time-range"
                      : f->has_min_dur && !(allowed & STINT_FILT_MIN_DUR) ? "--min-dur"
                                                                          : NULL;
    if (bad) {
        fprintf(stderr, "stint %s: %s does not apply here: %s\n", cmd, bad, why);
        return 2;
    }
    return -1;
}

int stint_cmd_load(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags)
{
    return stint_cmd_load_sink(o, m, model_flags, NULL, NULL, NULL);
}

int stint_cmd_load_sink(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags,
                        stint_span_sink sink, void *ctx, const struct stint_span_split *split)
{
    struct stat st; /* a large input: huge pages from the model's first arrays on (hmem.h) */
    if (strcmp(o->path, "-") != 0 && stat(o->path, &st) == 0 && S_ISREG(st.st_mode))
        stint_hmem_expect((uint64_t)st.st_size);
    if (stint_model_init(m, model_flags) != 0) {
        fprintf(stderr, "stint: out of memory\n");
        return 3;
    }
    stint_model_set_span_sink(m, sink, ctx);
    if (split && stint_threads_wanted() > 1)
        stint_model_set_span_split(m, split);
    struct stint_read_opts ro = {.format = o->format, .strict = o->strict};
    int rc = stint_read_trace(o->path, m, &ro);
    stint_report_problems(stderr, o->path, m, rc);
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
        return 3;
    }
    return 0;
}
