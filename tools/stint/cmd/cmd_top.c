/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c - `stint top`: a live view of a marker log, JSONL session or
 * Chrome trace that a running program appends to.
 *
 * Each tick reads only what was appended (read/follow.h: `tail -F`, through
 * truncation and rotation), turns the new lines into spans (top_feed.h),
 * tallies them per group over a sliding window and since start
 * (analyze/top_stats.h) and shows the frame: full screen with curses on a
 * terminal, plain text otherwise or with --once, one JSON object per tick
 * with --json. Invariants: the window's clock is the writer's (the spans' own
 * times); between spans it moves on with the monotonic wall clock, so rates
 * fall when the writer goes quiet; with --once nothing depends on the wall
 * clock and the output is reproducible. Memory stays bounded however long
 * it runs (the tally's caps, the follower's bounded buffers).
 */
#include "analyze/top_stats.h"
#include "base/tsparse.h"
#include "base/xalloc.h"
#include "cmd/cmdopts.h"
#include "cmd/commands.h"
#include "cmd/top_feed.h"
#include "cmd/top_view.h"
#include "read/follow.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef STINT_HAVE_CURSES
#include <curses.h>
#endif

static const char usage[] =
    "usage: stint top FILE [--interval 1s] [--window 30s] [--by name|hid|inv|lane] [--sort COLUMN]\n"
    "                 [--filter GLOB] [--rows N] [--ticks N] [--once] [--json] [--strict]\n"
    "                 [--format chrome|jsonl|markers|capture]\n"
    "  a live view of a marker log, JSONL session, binary capture or Chrome trace being appended:\n"
    "  per group, in the last window and since start, calls, calls/s, mean, p50, p90, p99, max; the\n"
    "  time per output token of the decode bucket; lane busy %; spans the writer lost; torn records.\n"
    "  Keys: q quit, s/S or 1-9 sort column, g grouping, / filter (glob), p pause, t window/since start.\n";

#define SLICES 10
#define TICK_BUDGET ((uint64_t)256 << 20) /* bytes read per tick at most, once caught up with the file */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* Monotonic wall clock, ns. */
static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A duration option: "1s", "500ms", or a bare number of seconds ("2", "0.5"). */
static int parse_span(const char *s, int64_t *out)
{
    size_t n = strlen(s);
    int64_t v;
    if (n && strspn(s, "0123456789.") == n) {
        if (stint_parse_ts(s, n, 1000000000, &v) != 0)
            return -1;
    } else if (stint_parse_duration(s, n, &v) != 0) {
        return -1;
    }
    if (v <= 0)
        return -1;
    *out = v;
    return 0;
}

struct run {
    const char *path;
    struct stint_follow *fol;
    struct stint_top_feed *feed;
    struct stint_top *t;
    struct stint_top_show show;
    int64_t window_ns, interval_ns;
    int json, once, strict;
    uint64_t ticks_max;
    uint64_t tick;
    int64_t anchor_end, anchor_wall; /* live: the last span end seen and when it was seen */
    char err[512];
};

/* Reads what is new; returns 0 or STINT_EXIT_IO (message printed). */
static int poll_file(struct run *r, uint64_t budget)
{
    unsigned ev = 0;
    int rc = stint_follow_poll(r->fol, stint_top_feed_lines, r->feed, budget, &ev, r->err, sizeof r->err);
    if (rc < 0) {
        fprintf(stderr, "%s\n", r->err);
        return STINT_EXIT_IO;
    }
    return STINT_EXIT_OK;
}

/* Live: now moves on with the wall clock from the last span end seen. */
static void move_now(struct run *r)
{
    int64_t end = stint_top_last_end(r->t), wall = mono_ns();
    if (end == INT64_MIN)
        return;
    if (end != r->anchor_end) {
        r->anchor_end = end;
        r->anchor_wall = wall;
    }
    stint_top_set_now(r->t, stint_sum_add(end, wall - r->anchor_wall));
}

/* What this tick shows. */
static void tick_of(struct run *r, struct stint_top_tick *k)
{
    memset(k, 0, sizeof *k);
    k->path = r->path;
    k->tick = r->tick;
    k->window_ns = r->window_ns;
    k->interval_ns = r->interval_ns;
    k->fs = stint_follow_get_stats(r->fol);
    stint_top_feed_get_counts(r->feed, &k->fc);
    k->fmt = stint_top_feed_format(r->feed);
    stint_top_get_counts(r->t, &k->tc);
    stint_top_get_tpot(r->t, &k->tpot);
}

/* Prints one frame as plain text or JSON. */
static void print_frame(struct run *r, FILE *f)
{
    struct stint_top_tick k;
    tick_of(r, &k);
    if (r->json) {
        stint_top_json(f, r->t, &k, &r->show);
    } else {
        struct stint_top_lines l = {0};
        stint_top_render(r->t, &k, &r->show, &l);
        for (size_t i = 0; i < l.n; i++)
            fprintf(f, "%s\n", l.line[i]);
        if (!r->once)
            fputc('\n', f);
        stint_top_lines_free(&l);
    }
    fflush(f);
}

/* The problems --strict makes an error: torn or cut records, unreadable lines. */
static int problems(struct run *r)
{
    struct stint_top_feed_counts c;
    stint_top_feed_get_counts(r->feed, &c);
    const struct stint_follow_stats *fs = stint_follow_get_stats(r->fol);
    uint64_t n = c.torn + c.bad_lines + c.bad_losses + c.unmatched + fs->cut_lines;
    if (n)
        fprintf(stderr,
                "stint top: %llu torn, %llu bad lines, %llu unreadable loss lines, %llu unmatched, %llu cut lines\n",
                (unsigned long long)c.torn, (unsigned long long)c.bad_lines, (unsigned long long)c.bad_losses,
                (unsigned long long)c.unmatched, (unsigned long long)fs->cut_lines);
    return n != 0;
}

/* Sleeps until `until` (monotonic ns) or a signal. */
static void sleep_until(int64_t until)
{
    int64_t d = until - mono_ns();
    if (d <= 0)
        return;
    struct timespec ts = {(time_t)(d / 1000000000), (long)(d % 1000000000)};
    nanosleep(&ts, NULL);
}

/* Plain text or JSON, tick after tick, until a signal or --ticks. */
static int run_plain(struct run *r)
{
    for (;;) {
        int64_t t0 = mono_ns();
        int rc = poll_file(r, r->tick ? TICK_BUDGET : 0);
        if (rc)
            return rc;
        move_now(r);
        r->tick++;
        print_frame(r, stdout);
        if (stop_flag || (r->ticks_max && r->tick >= r->ticks_max))
            return STINT_EXIT_OK;
        sleep_until(t0 + r->interval_ns);
        if (stop_flag)
            return STINT_EXIT_OK;
    }
}

#ifdef STINT_HAVE_CURSES
/* Draws the frame on the screen. */
static void draw(struct run *r)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    struct stint_top_tick k;
    tick_of(r, &k);
    struct stint_top_show s = r->show;
    s.width = cols;
    s.rows_max = rows > 9 ? rows - 9 : 1;
    struct stint_top_lines l = {0};
    stint_top_render(r->t, &k, &s, &l);
    erase();
    for (int i = 0; i < rows - 1 && (size_t)i < l.n; i++) {
        int head = i == l.heads[0] || i == l.heads[1];
        if (head)
            attron(A_REVERSE);
        mvaddnstr(i, 0, l.line[i], cols);
        if (head)
            attroff(A_REVERSE);
    }
    attron(A_BOLD);
    mvaddnstr(rows - 1, 0, "q quit  s/S,1-9 sort  g group  / filter  p pause  t window/since start", cols);
    attroff(A_BOLD);
    refresh();
    stint_top_lines_free(&l);
}

/* Reads a filter glob on the bottom line (Enter ends it; empty clears). */
static void ask_filter(struct run *r)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    (void)cols;
    move(rows - 1, 0);
    clrtoeol();
    mvaddstr(rows - 1, 0, "filter: ");
    echo();
    curs_set(1);
    timeout(-1);
    char buf[128] = {0};
    if (getnstr(buf, (int)sizeof buf - 1) == ERR)
        buf[0] = 0;
    noecho();
    curs_set(0);
    snprintf(r->show.filter, sizeof r->show.filter, "%s", buf);
}

/* One key of the live view; returns 1 to quit. */
static int key(struct run *r, int ch)
{
    switch (ch) {
    case 'q': case 'Q': return 1;
    case 's': r->show.sort = (enum stint_top_col)((r->show.sort + 1) % STINT_TOP_COL_COUNT); break;
    case 'S': r->show.sort = (enum stint_top_col)((r->show.sort + STINT_TOP_COL_COUNT - 1) % STINT_TOP_COL_COUNT); break;
    case 'g': r->show.by = (enum stint_top_by)((r->show.by + 1) % STINT_TOP_BY_COUNT); break;
    case 'p': case ' ': r->show.paused = !r->show.paused; break;
    case 't': r->show.since_start = !r->show.since_start; break;
    case '/': ask_filter(r); break;
    default:
        if (ch >= '1' && ch <= '9')
            r->show.sort = (enum stint_top_col)(ch - '1');
        break;
    }
    return 0;
}

/* The full-screen view, until q or a signal. */
static int run_curses(struct run *r)
{
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    int rc = STINT_EXIT_OK;
    int64_t next = 0;
    while (!stop_flag) {
        int64_t now = mono_ns();
        if (now >= next) {
            if (!r->show.paused) {
                if ((rc = poll_file(r, r->tick ? TICK_BUDGET : 0)) != 0)
                    break;
                move_now(r);
                r->tick++;
            }
            draw(r);
            next = now + r->interval_ns;
            if (r->ticks_max && r->tick >= r->ticks_max)
                break;
        }
        int64_t wait_ms = (next - mono_ns()) / 1000000;
        timeout((int)(wait_ms < 1 ? 1 : wait_ms > 1000 ? 1000 : wait_ms));
        int ch = getch();
        if (ch == ERR)
            continue;
        if (ch == KEY_RESIZE) {
            draw(r);
            continue;
        }
        if (key(r, ch))
            break;
        timeout(0);
        draw(r);
    }
    endwin();
    return rc;
}
#endif

/* Options besides the shared ones; returns -1 to run, else an exit code. */
static int parse_opts(int *argc, char **argv, struct run *r)
{
    const char *interval = NULL, *window = NULL, *by = NULL, *sort = NULL, *filter = NULL, *rows = NULL,
               *ticks = NULL;
    int once = 0;
    const struct stint_cmd_extra ex[] = {
        {"--interval", NULL, &interval, NULL, 0}, {"--window", NULL, &window, NULL, 0},
        {"--by", NULL, &by, NULL, 0},             {"--sort", NULL, &sort, NULL, 0},
        {"--filter", NULL, &filter, NULL, 0},     {"--rows", NULL, &rows, NULL, 0},
        {"--ticks", NULL, &ticks, NULL, 0},       {"--once", NULL, NULL, &once, 1}};
    int rc = stint_cmd_take_extras("top", argc, argv, ex, sizeof ex / sizeof ex[0]);
    if (rc >= 0)
        return rc;
    r->once = once;
    r->interval_ns = 1000000000;
    r->window_ns = 30000000000;
    if (interval && parse_span(interval, &r->interval_ns) != 0) {
        fprintf(stderr, "stint top: --interval: '%s': expected a duration (1s, 250ms, 2)\n", interval);
        return STINT_EXIT_USAGE;
    }
    if (window && (parse_span(window, &r->window_ns) != 0 || r->window_ns < SLICES)) {
        fprintf(stderr, "stint top: --window: '%s': expected a duration of at least 10ns (30s, 300s, 500ms)\n", window);
        return STINT_EXIT_USAGE;
    }
    int b = by ? stint_top_by_parse(by) : STINT_TOP_BY_NAME;
    if (b < 0) {
        fprintf(stderr, "stint top: --by: '%s': expected name, hid, inv or lane\n", by);
        return STINT_EXIT_USAGE;
    }
    r->show.by = (enum stint_top_by)b;
    r->show.sort = STINT_TOP_COL_CALLS;
    if (sort) {
        static const char *const cols[] = {"key", "calls", "rate", "mean", "p50", "p90", "p99", "max", "busy"};
        int c = -1;
        for (int i = 0; i < STINT_TOP_COL_COUNT; i++)
            if (strcmp(sort, cols[i]) == 0)
                c = i;
        if (c < 0) {
            fprintf(stderr, "stint top: --sort: '%s': expected key, calls, rate, mean, p50, p90, p99, max or busy\n",
                    sort);
            return STINT_EXIT_USAGE;
        }
        r->show.sort = (enum stint_top_col)c;
    }
    if (filter)
        snprintf(r->show.filter, sizeof r->show.filter, "%s", filter);
    uint32_t u;
    if (rows) {
        if (stint_cmd_parse_u32(rows, &u) != 0 || u > INT32_MAX) {
            fprintf(stderr, "stint top: --rows: '%s': expected a whole count (0 = all)\n", rows);
            return STINT_EXIT_USAGE;
        }
        r->show.rows_max = (int)u;
    }
    if (ticks) {
        if (stint_cmd_parse_u32(ticks, &u) != 0) {
            fprintf(stderr, "stint top: --ticks: '%s': expected a whole count (0 = no end)\n", ticks);
            return STINT_EXIT_USAGE;
        }
        r->ticks_max = u;
    }
    return -1;
}

int stint_cmd_top(int argc, char **argv)
{
    struct run r;
    memset(&r, 0, sizeof r);
    int rc = parse_opts(&argc, argv, &r);
    if (rc >= 0)
        return rc;
    const struct stint_cmd_spec spec = {"top", STINT_TAKES_JSON,
                                        "top groups spans as they arrive (use --filter GLOB on the group key)",
                                        "top shows a view, or JSON with --json", NULL, NULL};
    struct stint_cmd_opts o;
    rc = stint_cmd_parse_spec(argc, argv, usage, &o, &spec);
    if (rc >= 0)
        return rc;
    if (strcmp(o.path, "-") == 0) {
        fprintf(stderr, "stint top: FILE must name a file (it is followed by name), not '-'\n");
        return STINT_EXIT_USAGE;
    }
    r.path = o.path;
    r.json = o.json;
    r.strict = o.strict;
    enum stint_top_fmt fmt = !o.format ? STINT_TOP_FMT_UNKNOWN
                             : strcmp(o.format, "markers") == 0 ? STINT_TOP_FMT_MARKERS
                             : strcmp(o.format, "jsonl") == 0 ? STINT_TOP_FMT_JSONL
                             : strcmp(o.format, "capture") == 0 ? STINT_TOP_FMT_CAPTURE
                                                               : STINT_TOP_FMT_CHROME;
    r.fol = stint_follow_open(r.path, r.err, sizeof r.err);
    if (!r.fol) {
        fprintf(stderr, "%s\n", r.err);
        return STINT_EXIT_IO;
    }
    r.t = stint_top_new(r.window_ns, SLICES);
    r.feed = stint_top_feed_new(r.t, fmt);
    r.anchor_end = INT64_MIN;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (r.once) {
        r.show.both = !r.json;
        rc = poll_file(&r, 0);
        r.tick = 1;
        if (!rc)
            print_frame(&r, stdout);
    } else {
#ifdef STINT_HAVE_CURSES
        if (!r.json && isatty(STDOUT_FILENO) && getenv("TERM"))
            rc = run_curses(&r);
        else
#endif
        {
            r.show.both = 0;
            rc = run_plain(&r);
        }
    }
    if (!rc && problems(&r) && r.strict)
        rc = STINT_EXIT_DATA;
    if (fflush(stdout) != 0 && !rc)
        rc = STINT_EXIT_IO;
    stint_top_feed_free(r.feed);
    stint_top_free(r.t);
    stint_follow_close(r.fol);
    return rc;
}
