/* SPDX-License-Identifier: MIT */
/*
 * main.c - the stint command-line analyzer: dispatches to one command.
 *
 * Commands are pure functions of their arguments and input files; they share
 * the readers, the trace model and the filters (see commands.h).
 *
 * Invariants: exactly one command runs per process, and its return value
 * (one of enum stint_exit) is the exit code unless it is OK and the
 * self-trace (selftrace.h) failed; an unknown command, or one not linked in
 * this build, is a usage error; `stint help CMD` prints the generated
 * manual (help_text.h) on stdout.
 */
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "cmd/help_text.h"
#include "base/selftrace.h"

#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

typedef int (*cmd_fn)(int argc, char **argv);

struct command {
    const char *name;
    cmd_fn fn;
    const char *summary;
};

static const struct command commands[] = {
    {"summary", stint_cmd_summary, "per-lane, per-category and per-name time (union and sum)"},
    {"slices", stint_cmd_slices, "the slice table (ts, dur, track, depth, parent, args)"},
    {"timing", stint_cmd_timing, "per-callable timing tables from [STRACE] marker logs"},
    {"tree", stint_cmd_tree, "the aggregated call tree with self time"},
    {"steps", stint_cmd_steps, "per-step breakdown by child union, overlap and remainder"},
    {"counters", stint_cmd_counters, "counter and telemetry series summaries and integrals"},
    {"memory", stint_cmd_memory, "live bytes over time, peak and breakdown (JSONL sessions)"},
    {"diff", stint_cmd_diff, "compare two traces per name with confidence intervals"},
    {"convert", stint_cmd_convert, "write Chrome JSON, JSONL, markers, folded stacks or OTLP JSON"},
    {"report", stint_cmd_report, "a self-contained HTML report"},
    {"sizes", stint_cmd_sizes, "what a Chrome JSON trace's bytes are spent on, by phase, name and args key"},
    {"gpu", stint_cmd_gpu, "accelerator time per device, stream, class, kernel, launch, op, step and rank"},
    {"sql", stint_cmd_sql, "SQL over the trace (SQLite; ClickHouse for a fleet)"},
    {"top", stint_cmd_top, "a live view of a growing marker log, JSONL session or Chrome trace"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: stint <command> [options] FILE...\n"
                 "       stint --version | --help\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].fn)
            fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nexit codes: 0 ok, 1 bad data (partial report), 2 usage, 3 I/O error, 4 diff found a slowdown\n"
                 "(--fail-on-regression), 5 out of memory\n"
                 "run `stint help <command>` for a command's manual\n");
}

int main(int argc, char **argv)
{
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    /* One malloc arena for every thread: the large arrays come from hmem.h,
     * and the CLI's helper threads (inflating, walking, the tail) malloc
     * little; an arena of their own is a fresh 64 MiB reservation each,
     * whose pages are first touched at ~10 us apiece. Measured, 1 GB plain
     * file started cold: 632 -> 612 ms; 100 MB .gz warm: 91.2 -> 87.2. */
    mallopt(M_ARENA_MAX, 1);
#endif
    if (argc < 2) {
        usage(stderr);
        return STINT_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("stint %s\n", STINT_VERSION_STRING);
        return STINT_EXIT_OK;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2 && !strcmp(name, "help")) { /* stint help <command>: the manual */
            if (!stint_help_has(argv[2])) {
                fprintf(stderr, "stint: no manual for '%s'\n", argv[2]);
                usage(stderr);
                return STINT_EXIT_USAGE;
            }
            return stint_help_print(stdout, argv[2]) == 0 ? STINT_EXIT_OK : STINT_EXIT_IO;
        }
        usage(stdout);
        return STINT_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, name) != 0)
            continue;
        if (!commands[i].fn) {
            fprintf(stderr, "stint: command '%s' is not available in this build\n", name);
            return STINT_EXIT_USAGE;
        }
        stint_cli_exits_after_command = 1;
        stint_i_selftrace_start(name);
        int rc = commands[i].fn(argc - 1, argv + 1);
        int st = stint_i_selftrace_finish();
        return rc ? rc : st;
    }
    fprintf(stderr, "stint: unknown command '%s'\n", name);
    usage(stderr);
    return STINT_EXIT_USAGE;
}
