/* SPDX-License-Identifier: MIT */
/*
 * cmd_sql.c - `stint sql FILE... [QUERY] [--db OUT] [--csv|--json]`: the
 * traces as SQL tables (docs/cli/sql.md), on SQLite, or on a ClickHouse
 * server with --clickhouse URL.
 *
 * Each FILE is read into the model (args and counter samples kept), its
 * rows streamed into the one database, and the model freed before the next
 * file: the database is the only copy that outlives a file. With QUERY its
 * result is printed; with --db the database is written (under a temporary
 * name, renamed once whole, so OUT is never a partial load); with neither,
 * on a terminal, a prompt opens on it.
 *
 * Exit codes: the worst read's (1 bad data, 3 I/O); 2 for a usage error or
 * a query SQLite rejects (its message on stderr); 3 when the database
 * cannot be written or the ClickHouse server fails (its message, and how
 * many rows went in).
 */
#include "cmd/cmd_sql.h"
#include "cmd/commands.h"
#include "cmd/sql_print.h"
#include "base/exitcode.h"
#include "write/sql_clickhouse.h"
#ifdef STINT_HAVE_SQLITE
#include "write/sql_sqlite.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: stint sql FILE... [QUERY] [--db OUT.sqlite] [--csv|--json] [--strict] [--format F]\n"
    "       stint sql --clickhouse URL [FILE...] [QUERY] [--csv|--json]\n"
    "  the traces as SQL tables shaped like Perfetto's (slice, thread, process, track, args, flow,\n"
    "  counter, ...) plus span, lane, repair, lost and invocation (docs/cli/sql.md); times in ns.\n"
    "  QUERY     SQL to run; its result printed as an aligned table (--csv, --json)\n"
    "  --db OUT  write the database to OUT (replaced when the load is whole)\n"
    "  no QUERY and no --db on a terminal: an interactive prompt\n"
    "  --clickhouse URL  load into a ClickHouse server over HTTP (http://HOST:PORT[/?database=DB]),\n"
    "                    then run QUERY there; without FILE, QUERY runs on what earlier loads put there\n";

struct sql_args {
    const char **files;
    size_t nfiles;
    const char *query, *db_path, *ch_url;
    int csv, json, strict;
    const char *format;
};

/* Whether a is the QUERY rather than an input: it names no file ("-" is
 * stdin) and holds a blank or a ';', as SQL does and a missing file's name
 * seldom does (that one is reported as a file that cannot be opened). */
static int is_query(const char *a)
{
    struct stat st;
    return strcmp(a, "-") && stat(a, &st) != 0 && strpbrk(a, " \t\n\r;");
}

/* Parses argv; -1 to run, else the exit code (help, usage errors). */
static int parse(int argc, char **argv, struct sql_args *a)
{
    a->files = calloc((size_t)argc + 1, sizeof *a->files);
    if (!a->files)
        return STINT_EXIT_NOMEM;
    int dashdash = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **val = NULL;
        if (!dashdash && s[0] == '-' && s[1]) {
            if (!strcmp(s, "--"))
                dashdash = 1;
            else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
                fputs(usage, stdout);
                return STINT_EXIT_OK;
            } else if (!strcmp(s, "--csv"))
                a->csv = 1;
            else if (!strcmp(s, "--json"))
                a->json = 1;
            else if (!strcmp(s, "--strict"))
                a->strict = 1;
            else if (!strcmp(s, "--db"))
                val = &a->db_path;
            else if (!strcmp(s, "--clickhouse"))
                val = &a->ch_url;
            else if (!strcmp(s, "--format"))
                val = &a->format;
            else {
                fprintf(stderr, "stint sql: unknown option '%s'\n%s", s, usage);
                return STINT_EXIT_USAGE;
            }
            if (val) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "stint sql: %s needs a value\n", s);
                    return STINT_EXIT_USAGE;
                }
                *val = argv[++i];
            }
            continue;
        }
        a->files[a->nfiles++] = s;
    }
    /* The last argument is the QUERY when it is one (is_query). */
    if (a->nfiles >= 2 && is_query(a->files[a->nfiles - 1]))
        a->query = a->files[--a->nfiles];
    if (a->csv && a->json) {
        fputs("stint sql: --csv and --json exclude each other\n", stderr);
        return STINT_EXIT_USAGE;
    }
    if (a->format && strcmp(a->format, "chrome") && strcmp(a->format, "jsonl") && strcmp(a->format, "markers") &&
        strcmp(a->format, "capture")) {
        fprintf(stderr, "stint sql: --format: '%s': expected chrome, jsonl, markers or capture\n", a->format);
        return STINT_EXIT_USAGE;
    }
    if (a->ch_url && !a->query && a->nfiles == 1 && is_query(a->files[0])) /* a query on what the server has */
        a->query = a->files[--a->nfiles];
    if (!a->nfiles && !(a->ch_url && a->query)) {
        fprintf(stderr, "stint sql: no input FILE\n%s", usage);
        return STINT_EXIT_USAGE;
    }
    if (a->ch_url && a->db_path) {
        fputs("stint sql: --db and --clickhouse exclude each other\n", stderr);
        return STINT_EXIT_USAGE;
    }
    if (!a->query && !a->db_path && !a->ch_url && !(isatty(0) && isatty(1))) {
        fprintf(stderr, "stint sql: a QUERY or --db OUT is needed when not on a terminal\n");
        return STINT_EXIT_USAGE;
    }
    return -1;
}

/* The worse of two exit codes of reads (I/O over bad data over ok). */
static int worse(int a, int b)
{
    int ra = a == STINT_EXIT_IO ? 3 : a == STINT_EXIT_DATA ? 1 : 0;
    int rb = b == STINT_EXIT_IO ? 3 : b == STINT_EXIT_DATA ? 1 : 0;
    return ra >= rb ? a : b;
}

/* Reads each file and hands its model to add (a loader); stops at the first
 * file that gives nothing to load, or when add fails (*add_failed set).
 * Returns the worst read's exit code. */
static int load_files(const struct sql_args *a, int (*add)(void *ctx, const struct stint_model *m,
                                                            const struct stint_sql_file *f),
                      void *ctx, int *add_failed)
{
    int rc = STINT_EXIT_OK;
    *add_failed = 0;
    for (size_t i = 0; i < a->nfiles; i++) {
        struct stint_cmd_opts o = {.path = a->files[i], .strict = a->strict, .format = a->format};
        struct stint_model m;
        int r = stint_cmd_load(&o, &m, STINT_MODEL_KEEP_ARGS | STINT_MODEL_KEEP_SAMPLES);
        if (stint_no_report(r, &m)) {
            stint_model_free(&m);
            return r;
        }
        rc = worse(rc, r);
        struct stint_sql_file f = {a->files[i], (int64_t)i};
        int bad = add(ctx, &m, &f);
        stint_model_free(&m);
        if (bad) {
            *add_failed = 1;
            break;
        }
    }
    return rc;
}

#ifdef STINT_HAVE_SQLITE
static int add_sqlite(void *ctx, const struct stint_model *m, const struct stint_sql_file *f)
{
    return stint_sqlite_add(ctx, m, f);
}

#endif

static int add_clickhouse(void *ctx, const struct stint_model *m, const struct stint_sql_file *f)
{
    return stint_ch_add(ctx, m, f);
}

#ifdef STINT_HAVE_SQLITE
static enum stint_sql_style style_of(const struct sql_args *a)
{
    return a->csv ? STINT_SQL_CSV : a->json ? STINT_SQL_JSON : STINT_SQL_TABLE;
}

/* The SQLite path: load, then the query, the prompt, or the file. */
static int run_sqlite(const struct sql_args *a)
{
    char *tmp = NULL;
    if (a->db_path) {
        size_t n = strlen(a->db_path) + 32;
        tmp = malloc(n);
        if (!tmp)
            return STINT_EXIT_NOMEM;
        snprintf(tmp, n, "%s.tmp-%ld", a->db_path, (long)getpid());
        unlink(tmp);
    }
    sqlite3 *db = NULL;
    struct stint_sqlite_load l;
    memset(&l, 0, sizeof l);
    if (sqlite3_open(tmp ? tmp : "", &db) != SQLITE_OK || stint_sqlite_begin(&l, db) != 0) {
        fprintf(stderr, "stint sql: cannot create the database%s%s: %s\n", tmp ? " " : "", tmp ? tmp : "",
                db ? sqlite3_errmsg(db) : "out of memory");
        l.db = db;
        stint_sqlite_close(&l);
        if (tmp)
            unlink(tmp);
        free(tmp);
        return STINT_EXIT_IO;
    }
    int failed;
    int rc = load_files(a, add_sqlite, &l, &failed);
    int whole = !failed && rc != STINT_EXIT_USAGE && !(rc == STINT_EXIT_IO && !l.count.rows[STINT_SQL_PROCESS]);
    if (failed)
        fprintf(stderr, "stint sql: loading failed after %" PRIu64 " rows: %s\n", stint_sql_count_total(&l.count),
                sqlite3_errmsg(db));
    if (stint_sqlite_end(&l, whole) != 0 && whole) {
        fprintf(stderr, "stint sql: commit failed: %s\n", sqlite3_errmsg(db));
        failed = 1;
    }
    if (failed)
        rc = STINT_EXIT_IO;
    else if (whole && a->query) {
        int q = stint_sql_run(db, a->query, style_of(a), stdout);
        int c = stint_cmd_close_out("sql", stdout, "stdout");
        rc = q ? q : c ? c : rc;
    } else if (whole && !a->db_path)
        rc = worse(rc, stint_sql_prompt(db, style_of(a)));
    struct stint_sql_count count = l.count;
    stint_sqlite_close(&l);
    if (tmp) {
        if (whole && !failed && rename(tmp, a->db_path) != 0) {
            fprintf(stderr, "stint sql: cannot write %s\n", a->db_path);
            rc = STINT_EXIT_IO;
        } else if (whole && !failed)
            fprintf(stderr, "stint sql: wrote %" PRIu64 " rows (%" PRIu64 " slices, %" PRIu64 " args) from %zu file(s) to %s\n",
                    stint_sql_count_total(&count), count.rows[STINT_SQL_SLICE], count.rows[STINT_SQL_ARGS],
                    a->nfiles, a->db_path);
        unlink(tmp);
        free(tmp);
    }
    return rc;
}

#endif

/* The ClickHouse path: load into the server, then the query there. */
static int run_clickhouse(const struct sql_args *a)
{
    struct stint_ch *ch = stint_ch_open(a->ch_url);
    if (!ch)
        return STINT_EXIT_IO;
    int rc = STINT_EXIT_IO, failed = 0;
    if (!a->nfiles) { /* only the query, on what earlier loads put there */
        rc = stint_ch_query(ch, a->query, a->csv ? "CSVWithNames" : a->json ? "JSON" : "PrettyCompactNoEscapes", stdout);
        int c = stint_cmd_close_out("sql", stdout, "stdout");
        stint_ch_close(ch);
        return rc ? rc : c;
    }
    if (stint_ch_begin(ch) == 0) {
        rc = load_files(a, add_clickhouse, ch, &failed);
        if (!failed && stint_ch_flush(ch) != 0)
            failed = 1;
        if (failed) {
            stint_ch_report_failure(ch);
            rc = STINT_EXIT_IO;
        } else
            fprintf(stderr, "stint: clickhouse: loaded %" PRIu64 " rows from %zu file(s) into %s\n", stint_ch_rows(ch),
                    a->nfiles, a->ch_url);
        if (!failed && a->query) {
            const char *fmt = a->csv ? "CSVWithNames" : a->json ? "JSON" : "PrettyCompactNoEscapes";
            int q = stint_ch_query(ch, a->query, fmt, stdout);
            int c = stint_cmd_close_out("sql", stdout, "stdout");
            rc = q ? q : c ? c : rc;
        }
    } else
        stint_ch_report_failure(ch);
    stint_ch_close(ch);
    return rc;
}

int stint_sql_convert_clickhouse(const struct stint_cmd_opts *o, const char *url)
{
    if (!url) {
        fputs("stint convert: --to clickhouse needs -o URL (http://HOST[:PORT][/?database=NAME])\n", stderr);
        return STINT_EXIT_USAGE;
    }
    const char *files[1] = {o->path};
    struct sql_args a = {.files = files, .nfiles = 1, .ch_url = url, .strict = o->strict, .format = o->format};
    return run_clickhouse(&a);
}

int stint_cmd_sql(int argc, char **argv)
{
    struct sql_args a;
    memset(&a, 0, sizeof a);
    int rc = parse(argc, argv, &a);
    if (rc < 0) {
#ifdef STINT_HAVE_SQLITE
        rc = a.ch_url ? run_clickhouse(&a) : run_sqlite(&a);
#else
        rc = a.ch_url ? run_clickhouse(&a) : STINT_EXIT_USAGE;
        if (!a.ch_url)
            fputs("stint sql: this build has no SQLite: only --clickhouse URL works\n", stderr);
#endif
    }
    free(a.files);
    return rc;
}
