/* SPDX-License-Identifier: MIT */
/*
 * sql_clickhouse.c - the ClickHouse side of `stint sql` (sql_clickhouse.h):
 * HTTP/1.0 requests over a plain TCP socket, one per statement or batch;
 * MergeTree DDL from the shared column lists; rows as TabSeparated text in
 * one buffer per table, sent when it passes BATCH_BYTES and at the end.
 *
 * Invariants: a batch is counted as in only once the server answered 200
 * to it (rows_in); the first error is kept (sticky) with the server's own
 * message, and nothing is sent after it; ids continue after those the
 * tables hold, read once at begin (loads are not meant to run at once into
 * one database); text is TSV-escaped (\\ \t \n \r \0), NULL is \N.
 */
#include "write/sql_clickhouse.h"
#include "base/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH_BYTES (4u << 20)

struct buf {
    char *b;
    size_t n, cap;
};

struct stint_ch {
    char host[256], port[16], db[128];
    const char *req_db;               /* the database requests name: db, "default" to create it */
    char *err;                        /* the first error (owned), NULL while none */
    struct buf t[STINT_SQL_NTABLES];  /* rows not yet sent, per table */
    uint64_t pending[STINT_SQL_NTABLES];
    struct stint_sql_ids ids;
    struct stint_sql_count count;     /* rows handed to the buffers */
    uint64_t rows_in;                 /* rows the server took */
    const char *file;                 /* the file being loaded */
};

static void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->b = stint_xreallocarray(b->b, b->cap, 1);
    }
    memcpy(b->b + b->n, s, n);
    b->n += n;
    b->b[b->n] = 0;
}
static void buf_puts(struct buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void fail(struct stint_ch *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct stint_ch *ch, const char *fmt, ...)
{
    if (ch->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ch->err = stint_xstrdup(msg);
}

struct stint_ch *stint_ch_open(const char *url)
{
    const char *p = url;
    if (strncmp(p, "http://", 7) != 0) {
        fprintf(stderr, "stint: clickhouse: '%s': expected http://HOST[:PORT][/?database=NAME]\n", url);
        return NULL;
    }
    p += 7;
    size_t hl = strcspn(p, ":/?");
    struct stint_ch *ch = stint_xcalloc(1, sizeof *ch);
    if (!hl || hl >= sizeof ch->host) {
        fprintf(stderr, "stint: clickhouse: '%s': no host\n", url);
        free(ch);
        return NULL;
    }
    memcpy(ch->host, p, hl);
    p += hl;
    snprintf(ch->port, sizeof ch->port, "8123");
    if (*p == ':') {
        size_t pl = strspn(++p, "0123456789");
        if (!pl || pl >= sizeof ch->port) {
            fprintf(stderr, "stint: clickhouse: '%s': bad port\n", url);
            free(ch);
            return NULL;
        }
        memcpy(ch->port, p, pl);
        ch->port[pl] = 0;
        p += pl;
    }
    snprintf(ch->db, sizeof ch->db, "default");
    const char *d = strstr(p, "database=");
    if (d) {
        d += 9;
        size_t dl = strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (!dl || dl >= sizeof ch->db) {
            fprintf(stderr, "stint: clickhouse: '%s': bad database name\n", url);
            free(ch);
            return NULL;
        }
        memcpy(ch->db, d, dl);
        ch->db[dl] = 0;
    }
    return ch;
}

/* Percent-encodes s into b (a URL's query value). */
static void url_encode(struct buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.~", c))
            buf_put(b, (const char *)&c, 1);
        else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            buf_put(b, e, 3);
        }
    }
}

static int connect_to(struct stint_ch *ch)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int e = getaddrinfo(ch->host, ch->port, &hints, &res);
    if (e) {
        fail(ch, "cannot resolve %s: %s", ch->host, gai_strerror(e));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        fail(ch, "cannot connect to %s:%s: %s", ch->host, ch->port, strerror(err ? err : ECONNREFUSED));
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Decodes a chunked body in place (b from off on); returns its length. */
static size_t unchunk(char *s, size_t n)
{
    size_t in = 0, out = 0;
    while (in < n) {
        char *end;
        unsigned long len = strtoul(s + in, &end, 16);
        char *nl = memchr(s + in, '\n', n - in);
        if (!nl || !len)
            break;
        in = (size_t)(nl - s) + 1;
        if (len > n - in)
            len = n - in;
        memmove(s + out, s + in, len);
        out += len;
        in += len + 2; /* the chunk's CRLF */
    }
    return out;
}

/* POST path?params with body; the answer's body goes to *resp (NUL-ended).
 * Returns the HTTP status, or -1 when no answer came (error kept). */
static int post(struct stint_ch *ch, const char *params, const char *body, size_t n, struct buf *resp)
{
    int fd = connect_to(ch);
    if (fd < 0)
        return -1;
    char head[512];
    struct buf req = {0};
    buf_puts(&req, "POST /?database=");
    buf_puts(&req, ch->req_db ? ch->req_db : ch->db);
    buf_puts(&req, params);
    snprintf(head, sizeof head, " HTTP/1.0\r\nHost: %s\r\nContent-Length: %zu\r\n\r\n", ch->host, n);
    buf_puts(&req, head);
    int ok = send_all(fd, req.b, req.n) == 0 && send_all(fd, body, n) == 0;
    free(req.b);
    resp->n = 0;
    char chunk[65536];
    ssize_t k;
    while (ok && ((k = recv(fd, chunk, sizeof chunk, 0)) > 0 || (k < 0 && errno == EINTR)))
        if (k > 0)
            buf_put(resp, chunk, (size_t)k);
    close(fd);
    int status = 0;
    char *sep = resp->b ? strstr(resp->b, "\r\n\r\n") : NULL;
    if (!ok || !sep || sscanf(resp->b, "HTTP/%*d.%*d %d", &status) != 1) {
        fail(ch, "no answer from %s:%s", ch->host, ch->port);
        return -1;
    }
    int chunked = strstr(resp->b, "Transfer-Encoding: chunked") && strstr(resp->b, "Transfer-Encoding: chunked") < sep;
    size_t off = (size_t)(sep + 4 - resp->b);
    memmove(resp->b, resp->b + off, resp->n - off);
    resp->n -= off;
    if (chunked)
        resp->n = unchunk(resp->b, resp->n);
    resp->b[resp->n] = 0;
    return status;
}

/* Runs one statement that returns nothing worth keeping; 0, or -1 (error kept). */
static int exec(struct stint_ch *ch, const char *sql)
{
    if (ch->err)
        return -1;
    struct buf r = {0};
    int st = post(ch, "", sql, strlen(sql), &r);
    if (st >= 0 && st != 200) {
        while (r.n && (r.b[r.n - 1] == '\n' || r.b[r.n - 1] == ' '))
            r.b[--r.n] = 0;
        fail(ch, "%s", r.n ? r.b : "the server refused a statement");
    }
    free(r.b);
    return st == 200 ? 0 : -1;
}

/* CREATE TABLE IF NOT EXISTS for table t as a MergeTree table. */
static void create_table(struct stint_ch *ch, const struct stint_sql_table *t, struct buf *b)
{
    static const char *const types[] = {"Int64", "Float64", "String"};
    b->n = 0;
    buf_puts(b, "CREATE TABLE IF NOT EXISTS ");
    buf_puts(b, ch->db);
    buf_puts(b, ".");
    buf_puts(b, t->name);
    buf_puts(b, " (");
    for (unsigned c = 0; c < t->ncols; c++) {
        buf_puts(b, c ? ", " : "");
        buf_puts(b, t->cols[c].name);
        buf_puts(b, t->cols[c].nullable ? " Nullable(" : " ");
        buf_puts(b, types[t->cols[c].type]);
        buf_puts(b, t->cols[c].nullable ? ")" : "");
    }
    if (!strcmp(t->name, "slice"))
        buf_puts(b, ", slice_id Int64 ALIAS id");
    buf_puts(b, ") ENGINE = MergeTree() ORDER BY ");
    buf_puts(b, t->order_by);
}

/* The views that give Perfetto's names (the span view joins track's clock). */
static const char *const views[] = {
    "thread_track AS SELECT id, name, type, utid FROM @.track WHERE kind = 'thread'",
    "process_track AS SELECT id, name, type, upid FROM @.track WHERE kind = 'process' OR "
    "type = 'legacy_async_process_slice'",
    "counter_track AS SELECT id, name, type, upid FROM @.track WHERE kind = 'counter'",
    "process_counter_track AS SELECT id, name, type, upid FROM @.track WHERE kind = 'counter'",
    "instant AS SELECT id, ts, track_id, category, name, arg_set_id, pid, tid FROM @.slice "
    "WHERE bitAnd(flags, 4) != 0",
    "span AS SELECT id, pid, tid, category AS cat, name, ts, dur, self, depth, clock, track_id, parent_id, "
    "arg_set_id FROM @.slice ANY LEFT JOIN (SELECT id AS track_id, clock FROM @.track) USING (track_id) "
    "WHERE bitAnd(flags, 4) = 0",
};

/* The next free id of an id space: one past the largest in table's column. */
static int next_id(struct stint_ch *ch, const char *table, const char *col, int64_t *out)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT if(count() = 0, 0, max(%s) + 1) FROM %s.%s FORMAT TabSeparated", col, ch->db,
             table);
    struct buf r = {0};
    int st = post(ch, "", sql, strlen(sql), &r);
    int ok = st == 200 && sscanf(r.b, "%" SCNd64, out) == 1;
    if (st >= 0 && !ok)
        fail(ch, "%s", r.n ? r.b : "no id");
    free(r.b);
    return ok ? 0 : -1;
}

int stint_ch_begin(struct stint_ch *ch)
{
    struct buf b = {0};
    char sql[160];
    snprintf(sql, sizeof sql, "CREATE DATABASE IF NOT EXISTS %s", ch->db);
    ch->req_db = "default"; /* (a request naming a database that does not exist yet fails) */
    int rc = exec(ch, sql);
    ch->req_db = NULL;
    for (unsigned t = 0; t < STINT_SQL_NTABLES && !rc; t++) {
        create_table(ch, &stint_sql_tables[t], &b);
        rc = exec(ch, b.b);
    }
    for (size_t v = 0; v < sizeof views / sizeof views[0] && !rc; v++) {
        b.n = 0;
        buf_puts(&b, "CREATE VIEW IF NOT EXISTS @.");
        buf_puts(&b, views[v]);
        struct buf q = {0}; /* '@' is the database's name */
        for (const char *c = b.b; *c; c++)
            if (*c == '@')
                buf_puts(&q, ch->db);
            else
                buf_put(&q, c, 1);
        rc = exec(ch, q.b);
        free(q.b);
    }
    free(b.b);
    if (!rc)
        rc = next_id(ch, "process", "upid", &ch->ids.upid) || next_id(ch, "lane", "id", &ch->ids.lane) ||
             next_id(ch, "track", "id", &ch->ids.track) || next_id(ch, "slice", "id", &ch->ids.slice) ||
             next_id(ch, "args", "arg_set_id", &ch->ids.arg_set) || next_id(ch, "args", "id", &ch->ids.arg) ||
             next_id(ch, "flow", "id", &ch->ids.flow) || next_id(ch, "counter", "id", &ch->ids.counter);
    return rc ? -1 : 0;
}

/* Sends table t's buffered rows as one INSERT. */
static int send_table(struct stint_ch *ch, unsigned t)
{
    if (ch->err)
        return -1;
    if (!ch->t[t].n)
        return 0;
    const struct stint_sql_table *tb = &stint_sql_tables[t];
    struct buf q = {0}, p = {0};
    buf_puts(&q, "INSERT INTO ");
    buf_puts(&q, ch->db);
    buf_puts(&q, ".");
    buf_puts(&q, tb->name);
    buf_puts(&q, " (");
    for (unsigned c = 0; c < tb->ncols; c++) {
        buf_puts(&q, c ? ", " : "");
        buf_puts(&q, tb->cols[c].name);
    }
    buf_puts(&q, ") FORMAT TabSeparated");
    buf_puts(&p, "&query=");
    url_encode(&p, q.b);
    struct buf r = {0};
    int st = post(ch, p.b, ch->t[t].b, ch->t[t].n, &r);
    if (st == 200) {
        ch->rows_in += ch->pending[t];
        ch->pending[t] = 0;
        ch->t[t].n = 0;
    } else if (st >= 0) {
        while (r.n && (r.b[r.n - 1] == '\n' || r.b[r.n - 1] == ' '))
            r.b[--r.n] = 0;
        fail(ch, "%s", r.n ? r.b : "the server refused an insert");
    }
    free(q.b);
    free(p.b);
    free(r.b);
    return st == 200 ? 0 : -1;
}

/* TSV text of one value. */
static void put_tsv(struct buf *b, const struct stint_sql_val *v)
{
    char num[40];
    switch (v->kind) {
    case STINT_SQLV_INT:
        buf_put(b, num, (size_t)snprintf(num, sizeof num, "%" PRId64, v->i));
        break;
    case STINT_SQLV_REAL:
        if (isnan(v->r))
            buf_puts(b, "nan");
        else if (isinf(v->r))
            buf_puts(b, v->r > 0 ? "inf" : "-inf");
        else
            buf_put(b, num, (size_t)snprintf(num, sizeof num, "%.17g", v->r));
        break;
    case STINT_SQLV_TEXT: {
        size_t run = 0;
        for (size_t i = 0; i < v->n; i++) {
            char c = v->s[i], e = c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : c ? 0 : '0';
            if (!e)
                continue;
            buf_put(b, v->s + run, i - run);
            char esc[2] = {'\\', e};
            buf_put(b, esc, 2);
            run = i + 1;
        }
        buf_put(b, v->s + run, v->n - run);
        break;
    }
    default: buf_put(b, "\\N", 2); break;
    }
}

static int row(void *ctx, unsigned table, const struct stint_sql_val *v)
{
    struct stint_ch *ch = ctx;
    struct buf *b = &ch->t[table];
    unsigned n = stint_sql_tables[table].ncols;
    for (unsigned c = 0; c < n; c++) {
        if (c)
            buf_put(b, "\t", 1);
        put_tsv(b, &v[c]);
    }
    buf_put(b, "\n", 1);
    ch->pending[table]++;
    return b->n >= BATCH_BYTES ? send_table(ch, table) : 0;
}

int stint_ch_add(struct stint_ch *ch, const struct stint_model *m, const struct stint_sql_file *f)
{
    ch->file = f->path;
    struct stint_sql_sink sink = {row, ch};
    return stint_sql_rows(m, f, &ch->ids, &sink, &ch->count);
}

int stint_ch_flush(struct stint_ch *ch)
{
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++)
        if (send_table(ch, t))
            return -1;
    return 0;
}

uint64_t stint_ch_rows(const struct stint_ch *ch) { return stint_sql_count_total(&ch->count); }

void stint_ch_report_failure(struct stint_ch *ch)
{
    uint64_t handed = stint_ch_rows(ch);
    fprintf(stderr, "stint: clickhouse %s:%s: %s\n", ch->host, ch->port, ch->err ? ch->err : "load failed");
    fprintf(stderr, "stint: clickhouse: the load failed: %" PRIu64 " row(s) went in, %" PRIu64 " did not%s\n",
            ch->rows_in, handed - ch->rows_in, ch->rows_in ? " (marked in the repair table as 'load failed')" : "");
    if (!ch->rows_in)
        return;
    /* Mark the partial load where its rows are, when the server still answers. */
    char *err = ch->err;
    ch->err = NULL;
    struct buf sql = {0};
    char head[160];
    buf_puts(&sql, "INSERT INTO ");
    buf_puts(&sql, ch->db);
    buf_puts(&sql, ".repair (file, kind, count, first_message) VALUES ('");
    for (const char *s = ch->file ? ch->file : ""; *s; s++)
        buf_put(&sql, *s == '\'' || *s == '\\' ? "\\" : "", *s == '\'' || *s == '\\'), buf_put(&sql, s, 1);
    snprintf(head, sizeof head, "', 'load failed', %" PRIu64 ", '", ch->rows_in);
    buf_puts(&sql, head);
    for (const char *s = err ? err : ""; *s; s++)
        buf_put(&sql, *s == '\'' || *s == '\\' ? "\\" : "", *s == '\'' || *s == '\\'), buf_put(&sql, s, 1);
    buf_puts(&sql, "')");
    exec(ch, sql.b);
    free(sql.b);
    free(ch->err);
    ch->err = err;
}

int stint_ch_query(struct stint_ch *ch, const char *sql, const char *fmt, FILE *out)
{
    struct buf p = {0}, r = {0};
    buf_puts(&p, "&default_format=");
    buf_puts(&p, fmt);
    int st = post(ch, p.b, sql, strlen(sql), &r);
    free(p.b);
    int rc = 0;
    if (st == 200)
        fwrite(r.b, 1, r.n, out);
    else if (st >= 0) {
        fprintf(stderr, "stint sql: clickhouse: %s%s", r.n ? r.b : "the server refused the query\n",
                r.n && r.b[r.n - 1] == '\n' ? "" : "\n");
        rc = 2;
    } else {
        fprintf(stderr, "stint sql: clickhouse: %s\n", ch->err);
        rc = 3;
    }
    free(r.b);
    return rc;
}

void stint_ch_close(struct stint_ch *ch)
{
    if (!ch)
        return;
    for (unsigned t = 0; t < STINT_SQL_NTABLES; t++)
        free(ch->t[t].b);
    free(ch->err);
    free(ch);
}
