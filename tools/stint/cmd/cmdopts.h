/* SPDX-License-Identifier: MIT */
/*
 * cmdopts.h - the options every analysis command shares:
 *   FILE ("-" = stdin), --json, --csv, --strict[=repairs,drops,losses],
 *   --allow KIND, --format chrome|jsonl|markers,
 *   the filters (filters.h), --help, and "--" (every argument after it is an
 *   input, even one starting with '-').
 * Commands with extra options handle them first and pass the rest here.
 * A shared option a command does not honour is refused (exit 2), never
 * ignored: see stint_cmd_parse_spec.
 */
#ifndef STINT_CLI_CMDOPTS_H
#define STINT_CLI_CMDOPTS_H

#include "model/filters.h"
#include "read/readers.h"

/* Set by the CLI's main() before it runs a command: the process exits as
 * soon as the command returns, so a command that is done with its large
 * memory may leave it to the exit (stint_hmem_final). 0 where commands are
 * called in a process that goes on (the fuzz targets). */
extern int stint_cli_exits_after_command;

struct stint_cmd_opts {
    const char *path;
    int json, csv;
    int strict;     /* STINT_STRICT_* bits (readers.h): --strict is all, --strict=repairs,drops,losses some */
    uint64_t allow; /* --allow KIND[,KIND]: kinds of the allow-list (stint_repair_allowable) strict skips */
    const char *format;
    struct stint_filter filter;
    /* set by a command before it loads, optional: readers.h's args_fn and args_ctx */
    void (*args_fn)(void *ctx, const struct stint_model *m, uint32_t idx, const char *a, const char *b);
    void *args_ctx;
    void *(*args_part)(void *ctx); /* optional: readers.h's args_part, args_part_ops */
    const struct stint_model_part_ops *args_part_ops;
    /* set by a command before it loads, optional: readers.h's corr_want,
     * corr_fn and corr_ctx (the stint_cmd_load* functions pass them on) */
    int (*corr_want)(void *ctx, const struct stint_model *m, uint32_t cat);
    void (*corr_fn)(void *ctx, uint32_t track, uint32_t cat, uint32_t name, int64_t ts_ns, int64_t dur_ns, int has,
                    int64_t corr);
    void *corr_ctx;
    void *(*corr_part)(void *ctx); /* optional: readers.h's corr_part, corr_part_ops */
    const struct stint_model_part_ops *corr_part_ops;
    /* set by a command before it loads, optional: readers.h's lean_seq_fn and lean_seq_ctx */
    void (*lean_seq_fn)(void *ctx, const struct stint_model *m, uint32_t lane, int64_t ts_ns, int64_t dur_ns,
                        uint32_t name, uint32_t seq);
    void *lean_seq_ctx;
};

/* An option one command takes besides the shared ones: name ("--to", also
 * given as "--to=VALUE") and an optional alias ("-o"). With value set, the
 * option takes a value (stored there as given: the command converts it);
 * else it is a flag that stores flag_value in *flag. */
struct stint_cmd_extra {
    const char *name;
    const char *alias;
    const char **value;
    int *flag;
    int flag_value;
};

/* Takes the extras (n of them) out of argv, keeping the rest in order for
 * stint_cmd_parse (argc is updated); "--" and every argument after it are
 * kept as they are. An option that needs a value but ends argv prints
 * "stint CMD: OPTION needs a value" and returns STINT_EXIT_USAGE; else -1. */
int stint_cmd_take_extras(const char *cmd, int *argc, char **argv, const struct stint_cmd_extra *ex, size_t n);

/* Parses argv (argv[0] = command name). usage is printed for --help (stdout,
 * returns STINT_EXIT_OK) and on errors (stderr, returns STINT_EXIT_USAGE).
 * Returns -1 when the command
 * should run. A bad value (a --format other than chrome, jsonl or markers, a
 * filter's value that is no integer or time, or out of range) prints one line
 * "stint CMD: --OPT: 'VALUE': expected ..." and returns STINT_EXIT_USAGE; so does an option
 * whose value is missing ("stint CMD: --OPT needs a value (...)"). It takes
 * --json and --csv whatever the command prints: a command that does not
 * honour both refuses the other itself, or uses stint_cmd_parse_spec. */
int stint_cmd_parse(int argc, char **argv, const char *usage, struct stint_cmd_opts *o);

/* stint_cmd_parse for a command that prints text or JSON only: --csv
 * prints "stint CMD: --csv is not supported (use --json)" and returns
 * STINT_EXIT_USAGE. Returns -1 when the command should run. */
int stint_cmd_parse_nocsv(int argc, char **argv, const char *usage, struct stint_cmd_opts *o);

/* The shared filters as bits, for commands that take only some of them. */
enum {
    STINT_FILT_PID = 1u << 0,
    STINT_FILT_TID = 1u << 1,
    STINT_FILT_CAT = 1u << 2,
    STINT_FILT_NAME = 1u << 3,
    STINT_FILT_RANGE = 1u << 4,
    STINT_FILT_MIN_DUR = 1u << 5
};

/* The shared output options as bits, for stint_cmd_parse_spec. */
enum {
    STINT_TAKES_JSON = 1u << 8,
    STINT_TAKES_CSV = 1u << 9
};

/* What one command takes of the shared options. */
struct stint_cmd_spec {
    const char *cmd;         /* the command's name in messages ("counters") */
    unsigned takes;          /* STINT_FILT_* and STINT_TAKES_* bits */
    const char *filters_why; /* why a filter outside takes means nothing here */
    const char *output_why;  /* why --json or --csv outside takes means nothing here */
    const char *format;      /* NULL: --format chrome|jsonl|markers; else the one format the command reads */
    const char *format_why;  /* why the others are refused (with format) */
};

/* stint_cmd_parse for a command that takes only part of the shared options:
 * --help prints usage alone (it lists what the command takes); a filter,
 * --json or --csv outside s->takes prints "stint CMD: --X does not apply
 * here: WHY" on stderr and returns STINT_EXIT_USAGE, and so does a --format other than
 * s->format ("stint CMD: --format: 'F': expected FORMAT (WHY)"), instead
 * of being ignored. --strict is taken by every command: one built on this
 * honours it. */
int stint_cmd_parse_spec(int argc, char **argv, const char *usage, struct stint_cmd_opts *o,
                         const struct stint_cmd_spec *s);

/* stint_cmd_parse_spec with {cmd, allowed (STINT_FILT_* bits) | --json |
 * --csv, why}: for a command that takes only some filters and every other
 * shared option. */
int stint_cmd_parse_some(int argc, char **argv, const char *usage, struct stint_cmd_opts *o, const char *cmd,
                         unsigned allowed, const char *why);

/* Parses an option's whole decimal count: digits only (no sign, blank or
 * base prefix), at most UINT32_MAX. Returns 0, or -1 on anything else. */
int stint_cmd_parse_u32(const char *s, uint32_t *out);

/* Parses a --columns value (steps, report): a whole count as
 * stint_cmd_parse_u32, 0 meaning every column (*out = SIZE_MAX). Returns 0,
 * or -1. */
int stint_cmd_parse_columns(const char *s, size_t *out);

/* Reads o->path into m (initialised with flags) with o's reader options;
 * prints problems to stderr. Returns the reader's exit code (STINT_EXIT_OK,
 * _DATA or _IO); out of memory ends the process (STINT_EXIT_NOMEM). A
 * relative --time-range ("+T") is made absolute in o->filter from the
 * trace's first host-clock event: after the read when m keeps every slice,
 * else by a first read of the input (stdin cannot: STINT_EXIT_USAGE). */
int stint_cmd_load(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags);
/* stint_cmd_load, then the check every command makes: *rc gets the read's
 * exit code; when no report follows (readers.h: stint_no_report) m is freed
 * and 0 returned, else 1 (the command reports from m, then frees it). */
int stint_cmd_load_report(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags, int *rc);
/* The same with a span sink set before reading (model.h, stint_model_set_span_sink)
 * and, when split is not NULL and two or more threads are allowed
 * (stint_threads_wanted), the sink's split for a finish on two threads
 * (stint_model_set_span_split). */
int stint_cmd_load_sink(const struct stint_cmd_opts *o, struct stint_model *m, unsigned model_flags,
                        stint_span_sink sink, void *ctx, const struct stint_span_split *split);

/* For a command that reads its input itself, not through stint_cmd_load
 * (memory, counters --time-key): a relative --time-range ("+T") it cannot
 * resolve is refused, "stint CMD: --time-range: ..." and STINT_EXIT_USAGE;
 * else -1 (go on). */
int stint_cmd_no_relative_range(const char *cmd, const struct stint_cmd_opts *o);

/* When o's filters are set and the command selected nothing with them:
 * says so on stderr, naming for each value that selects nothing alone the
 * closest values the trace holds (filters.h, stint_filter_explain). m: the
 * loaded model when it keeps every slice, else NULL: the input is then read
 * again to explain (not stdin: one line then). The command still prints
 * its empty tables and exits 0. */
void stint_cmd_explain_empty(const char *cmd, const struct stint_cmd_opts *o, const struct stint_model *m);

/* Opens path ("-" = stdout) for writing through a 256 KiB buffer. On
 * failure prints "stint CMD: cannot open PATH for writing: why" and returns
 * NULL. One output per process (the buffer is static). */
FILE *stint_cmd_open_out(const char *cmd, const char *path);

/* Flushes (stdout) or closes f; on a write error prints "stint CMD: write
 * error on PATH" and returns STINT_EXIT_IO, else STINT_EXIT_OK. A command
 * that wrote to stdout ends with stint_cmd_close_out(cmd, stdout, "stdout"). */
int stint_cmd_close_out(const char *cmd, FILE *f, const char *path);

#endif
