/* SPDX-License-Identifier: MIT */
/*
 * sql_print.c - `stint sql`'s query runner and result printers (sql_print.h)
 * and its interactive prompt.
 *
 * Invariants: SQL text is run as SQLite parses it, statement by statement,
 * never rewritten; NULL prints as NULL in tables, as an empty field in CSV
 * and as null in JSON; text in tables goes through the text escaper
 * (textout.h), so a control byte in a name cannot reach the terminal; a
 * table is aligned over its first TABLE_PEEK rows, later rows stream with
 * those widths (memory stays bounded whatever the result's size).
 */
#ifdef STINT_HAVE_SQLITE
#include "cmd/sql_print.h"
#include "base/exitcode.h"
#include "base/xalloc.h"
#include "write/textout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef STINT_HAVE_EDITLINE
#include <editline/readline.h>
#endif

#define TABLE_PEEK 1000

/* One cell of a table as printed (escaped text; NULL as "NULL"). */
struct cell {
    char *s;
    size_t width;  /* in characters (UTF-8 continuation bytes not counted) */
    int right;     /* numbers align right */
};

static size_t utf8_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static struct cell make_cell(const char *s, size_t n, int right)
{
    size_t e = stint_out_text_len(s, n);
    struct cell c = {stint_xmalloc(e + 1), 0, right};
    stint_out_text_esc(c.s, e + 1, s, n);
    c.width = utf8_width(c.s);
    return c;
}

/* Column c of st's current row as a table cell. */
static struct cell value_cell(sqlite3_stmt *st, int c)
{
    int t = sqlite3_column_type(st, c);
    if (t == SQLITE_NULL)
        return make_cell("NULL", 4, 0);
    const char *s = (const char *)sqlite3_column_text(st, c);
    if (!s)
        stint_die_nomem();
    return make_cell(s, (size_t)sqlite3_column_bytes(st, c), t == SQLITE_INTEGER || t == SQLITE_FLOAT);
}

static void put_cell(FILE *f, const struct cell *c, size_t width, int last)
{
    size_t pad = width > c->width ? width - c->width : 0;
    if (c->right)
        fprintf(f, "%*s%s", (int)pad, "", c->s);
    else if (last)
        fputs(c->s, f);
    else
        fprintf(f, "%s%*s", c->s, (int)pad, "");
}

static void put_row(FILE *f, const struct cell *row, const size_t *width, int ncol)
{
    for (int c = 0; c < ncol; c++) {
        if (c)
            fputs("  ", f);
        put_cell(f, &row[c], width[c], c == ncol - 1);
    }
    putc('\n', f);
}

static void free_cells(struct cell *cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(cells[i].s);
}

/* An aligned table: header, a rule, the rows. Returns SQLite's last step code. */
static int print_table(sqlite3_stmt *st, FILE *f)
{
    int ncol = sqlite3_column_count(st);
    size_t cap = (size_t)ncol * (TABLE_PEEK + 1), n = 0;
    struct cell *cells = stint_xcalloc(cap, sizeof *cells);
    size_t *width = stint_xcalloc((size_t)ncol, sizeof *width);
    for (int c = 0; c < ncol; c++) {
        const char *name = sqlite3_column_name(st, c);
        cells[n++] = make_cell(name ? name : "", name ? strlen(name) : 0, 0);
    }
    int rc;
    size_t rows = 0;
    while (rows < TABLE_PEEK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < ncol; c++)
            cells[n++] = value_cell(st, c);
        rows++;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE && !rows) { /* failed before its first row: print nothing */
        free_cells(cells, n);
        free(cells);
        free(width);
        return rc;
    }
    for (size_t i = 0; i < n; i++)
        if (cells[i].width > width[i % (size_t)ncol])
            width[i % (size_t)ncol] = cells[i].width;
    for (size_t i = 0; i < n; i++)
        if (i < (size_t)ncol) /* the header's numbers' columns align right too */
            cells[i].right = rows && cells[(size_t)ncol + i].right;
    put_row(f, cells, width, ncol);
    for (int c = 0; c < ncol; c++) {
        if (c)
            fputs("  ", f);
        for (size_t k = 0; k < width[c]; k++)
            putc('-', f);
    }
    putc('\n', f);
    for (size_t r = 1; r <= rows; r++)
        put_row(f, cells + r * (size_t)ncol, width, ncol);
    free_cells(cells, n);
    if (rows == TABLE_PEEK) { /* the rest streams with the widths found */
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int c = 0; c < ncol; c++)
                cells[c] = value_cell(st, c);
            put_row(f, cells, width, ncol);
            free_cells(cells, (size_t)ncol);
        }
    }
    free(cells);
    free(width);
    return rc;
}

static int print_csv(sqlite3_stmt *st, FILE *f)
{
    int ncol = sqlite3_column_count(st);
    for (int c = 0; c < ncol; c++) {
        const char *name = sqlite3_column_name(st, c);
        if (c)
            putc(',', f);
        stint_out_csv_str(f, name ? name : "", name ? strlen(name) : 0);
    }
    putc('\n', f);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < ncol; c++) {
            if (c)
                putc(',', f);
            if (sqlite3_column_type(st, c) == SQLITE_NULL)
                continue;
            const char *s = (const char *)sqlite3_column_text(st, c);
            stint_out_csv_str(f, s ? s : "", (size_t)sqlite3_column_bytes(st, c));
        }
        putc('\n', f);
    }
    return rc;
}

/* One array of objects, a row per line. */
static int print_json(sqlite3_stmt *st, FILE *f)
{
    int ncol = sqlite3_column_count(st);
    int rc;
    size_t rows = 0;
    fputs("[", f);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fputs(rows++ ? ",\n{" : "\n{", f);
        for (int c = 0; c < ncol; c++) {
            const char *name = sqlite3_column_name(st, c);
            if (c)
                putc(',', f);
            stint_out_json_str(f, name ? name : "", name ? strlen(name) : 0);
            putc(':', f);
            switch (sqlite3_column_type(st, c)) {
            case SQLITE_NULL: fputs("null", f); break;
            case SQLITE_INTEGER: fprintf(f, "%lld", (long long)sqlite3_column_int64(st, c)); break;
            case SQLITE_FLOAT: {
                double d = sqlite3_column_double(st, c);
                if (isfinite(d))
                    fprintf(f, "%.17g", d);
                else
                    fputs("null", f);
                break;
            }
            default: {
                const char *s = (const char *)sqlite3_column_text(st, c);
                stint_out_json_str(f, s ? s : "", (size_t)sqlite3_column_bytes(st, c));
            }
            }
        }
        putc('}', f);
    }
    fputs(rows ? "\n]\n" : "]\n", f);
    return rc;
}

int stint_sql_run(sqlite3 *db, const char *sql, enum stint_sql_style style, FILE *f)
{
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
            fprintf(stderr, "stint sql: %s\n", sqlite3_errmsg(db));
            return STINT_EXIT_USAGE;
        }
        if (!st) /* only blanks or a comment left */
            continue;
        int rc;
        if (sqlite3_column_count(st) == 0)
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) {}
        else if (style == STINT_SQL_CSV)
            rc = print_csv(st, f);
        else if (style == STINT_SQL_JSON)
            rc = print_json(st, f);
        else
            rc = print_table(st, f);
        if (rc != SQLITE_DONE) {
            fprintf(stderr, "stint sql: %s\n", sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return STINT_EXIT_USAGE;
        }
        sqlite3_finalize(st);
    }
    return ferror(f) ? STINT_EXIT_IO : STINT_EXIT_OK;
}

/* The prompt's dot commands; 1 when the line was one (0: SQL). *quit is set by .quit. */
static int dot_command(sqlite3 *db, const char *line, enum stint_sql_style style, int *quit)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '.')
        return 0;
    if (!strncmp(line, ".quit", 5) || !strncmp(line, ".exit", 5) || !strncmp(line, ".q", 2))
        *quit = 1;
    else if (!strncmp(line, ".tables", 7))
        stint_sql_run(db, "SELECT name, type FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
                      style, stdout);
    else if (!strncmp(line, ".schema", 7)) {
        const char *t = line + 7;
        while (*t == ' ')
            t++;
        char *q = sqlite3_mprintf("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND ('%q' = '' OR name = '%q')",
                                  t, t);
        if (!q)
            stint_die_nomem();
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW)
                printf("%s;\n", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        sqlite3_free(q);
    } else
        printf(".tables  the tables and views\n.schema [TABLE]  their CREATE statements\n"
               ".quit  leave (or end of input)\nSQL statements run when they end with ';'\n");
    fflush(stdout);
    return 1;
}

/* One line of input (the caller frees it), NULL at end of input. */
static char *read_line(const char *prompt)
{
#ifdef STINT_HAVE_EDITLINE
    char *l = readline(prompt);
    if (l && *l)
        add_history(l);
    return l;
#else
    fputs(prompt, stdout);
    fflush(stdout);
    char *l = NULL;
    size_t cap = 0;
    ssize_t n = getline(&l, &cap, stdin);
    if (n < 0) {
        free(l);
        return NULL;
    }
    if (n && l[n - 1] == '\n')
        l[n - 1] = 0;
    return l;
#endif
}

int stint_sql_prompt(sqlite3 *db, enum stint_sql_style style)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int quit = 0;
    printf("stint sql: SQLite %s; .help for help, statements end with ';'\n", sqlite3_libversion());
    while (!quit) {
        char *line = read_line(n ? "   ...> " : "stint> ");
        if (!line)
            break;
        if (!n && dot_command(db, line, style, &quit)) {
            free(line);
            continue;
        }
        size_t k = strlen(line);
        if (n + k + 2 > cap) {
            cap = (n + k + 2) * 2;
            buf = stint_xreallocarray(buf, cap, 1);
        }
        memcpy(buf + n, line, k);
        n += k;
        buf[n++] = '\n';
        buf[n] = 0;
        free(line);
        if (sqlite3_complete(buf)) {
            stint_sql_run(db, buf, style, stdout);
            fflush(stdout);
            n = 0;
        }
    }
    free(buf);
    putchar('\n');
    return STINT_EXIT_OK;
}

#else
typedef int stint_sql_print_unused; /* (a translation unit may not be empty) */
#endif
