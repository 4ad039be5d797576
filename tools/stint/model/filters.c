/* SPDX-License-Identifier: MIT */
/*
 * filters.c - parsing and applying the shared filters (see filters.h): the
 * --pid, --tid, --cat, --name, --exclude-cat, --exclude-name, --min-dur and
 * --time-range options that several commands take, the test of a slice
 * against them, and the explanation printed when nothing passes.
 *
 * Invariants: an option not given matches everything (its has_ flag, NULL
 * string or empty list); every value of a list option, given in one option
 * or in repeated ones, is an alternative (OR), the options together must
 * all pass (AND) and an exclusion wins; a value that does not parse is
 * reported on stderr and fails the option (-1); times parse exactly
 * (tsparse.h), without a double; the filter holds its text values itself
 * (offsets into its own buffer), so a copy by value stays valid.
 */
#include "model/filters.h"

#include "base/tsparse.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != 0)
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "stint: %s needs a value\n", name);
        return "";
    }
    return argv[++*i];
}

/* The end of the list item that starts at p: the next ',' (or the NUL).
 * With globs, a comma inside (), <>, [] or {} or after a backslash belongs
 * to the item: C++ names hold commas ("gemm<float, 128>"). */
static const char *item_end(const char *p, int glob)
{
    int depth = 0;
    for (; *p; p++) {
        if (glob && *p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (glob && strchr("(<[{", *p))
            depth++;
        else if (glob && depth && strchr(")>]}", *p))
            depth--;
        else if (*p == ',' && !depth)
            break;
    }
    return p;
}

/* Appends the n bytes at s to f's text as one value of list l. -1 (message)
 * when the list or the text is full. */
static int list_add(struct stint_filter *f, struct stint_filter_list *l, const char *opt, const char *s, size_t n)
{
    if (l->n >= STINT_FILTER_VALUES || f->textlen + n + 1 > sizeof f->text) {
        fprintf(stderr, "stint: %s: more values than a filter holds (at most %d values, %d bytes in all)\n", opt,
                STINT_FILTER_VALUES, STINT_FILTER_TEXT);
        return -1;
    }
    l->off[l->n++] = (uint16_t)f->textlen;
    memcpy(f->text + f->textlen, s, n);
    f->text[f->textlen + n] = 0;
    f->textlen += n + 1;
    return 0;
}

/* Adds every item of v (a comma list) to l; an empty item is refused. */
static int list_add_all(struct stint_filter *f, struct stint_filter_list *l, const char *opt, const char *v, int glob)
{
    for (const char *p = v;;) {
        const char *e = item_end(p, glob);
        if (e == p) {
            fprintf(stderr, "stint: %s: '%s' has an empty item\n", opt, v);
            return -1;
        }
        if (list_add(f, l, opt, p, (size_t)(e - p)) != 0)
            return -1;
        if (!*e)
            return 0;
        p = e + 1;
    }
}

/* Adds the integers of v (a comma list) to ids[*n] (--pid, --tid); the
 * first one also into *first. -1 with a message when one is none. */
static int ids_add_all(const char *opt, const char *v, int64_t *ids, uint32_t *n, int64_t *first)
{
    for (const char *p = v;;) {
        const char *e = item_end(p, 0);
        int64_t x;
        if (e == p || stint_parse_i64(p, (size_t)(e - p), &x) != 0) {
            fprintf(stderr, "stint: %s: '%.*s' is not an integer\n", opt, (int)(e - p), p);
            return -1;
        }
        if (*n >= STINT_FILTER_VALUES) {
            fprintf(stderr, "stint: %s: more than %d values\n", opt, STINT_FILTER_VALUES);
            return -1;
        }
        if (!*n)
            *first = x;
        ids[(*n)++] = x;
        if (!*e)
            return 0;
        p = e + 1;
    }
}

int stint_filter_parse_time(const char *s, size_t n, int64_t *out, int *relative)
{
    *relative = n && *s == '+';
    if (*relative) {
        s++;
        n--;
    }
    char buf[64];
    size_t k = 0; /* "12.5 ms" as the tables print it: the blanks before the unit go */
    for (size_t i = 0; i < n && k < sizeof buf; i++)
        if (s[i] != ' ' || !(i && isdigit((unsigned char)s[i - 1]) && i + 1 < n && isalpha((unsigned char)s[i + 1])))
            buf[k++] = s[i];
    if (k == sizeof buf || !k || (*relative && buf[0] == '-'))
        return -1;
    return stint_parse_duration(buf, k, out);
}

static int parse_time_opt(const char *opt, const char *s, size_t n, int64_t *out, int *relative)
{
    if (stint_filter_parse_time(s, n, out, relative) != 0) {
        fprintf(stderr, "stint: %s: '%.*s' is not a time (expected ns or a number with ns/us/ms/s)\n", opt, (int)n, s);
        return -1;
    }
    return 0;
}

/* --time-range A:B into f (either side may be empty, "+T" relative). */
static int range_arg(struct stint_filter *f, const char *v)
{
    const char *colon = strchr(v, ':');
    if (!colon) {
        fprintf(stderr, "stint: --time-range: '%s' has no ':' (expected A:B)\n", v);
        return -1;
    }
    int r0 = 0, r1 = 0;
    f->t0 = INT64_MIN;
    f->t1 = INT64_MAX;
    if (colon > v && parse_time_opt("--time-range", v, (size_t)(colon - v), &f->t0, &r0) != 0)
        return -1;
    if (colon[1] && parse_time_opt("--time-range", colon + 1, strlen(colon + 1), &f->t1, &r1) != 0)
        return -1;
    f->rel = (r0 ? STINT_FILTER_REL_START : 0) | (r1 ? STINT_FILTER_REL_END : 0);
    if (r0 == r1 && f->t1 < f->t0) { /* (a mixed pair is checked once resolved) */
        fprintf(stderr, "stint: --time-range: end is before start\n");
        return -1;
    }
    f->has_range = 1;
    return 0;
}

int stint_filter_arg(struct stint_filter *f, int argc, char **argv, int *i)
{
    const char *v;
    if ((v = opt_value(argc, argv, i, "--pid")))
        return ids_add_all("--pid", v, f->pids, &f->npid, &f->pid) ? -1 : (f->has_pid = 1);
    if ((v = opt_value(argc, argv, i, "--tid")))
        return ids_add_all("--tid", v, f->tids, &f->ntid, &f->tid) ? -1 : (f->has_tid = 1);
    static const struct {
        const char *opt;
        size_t list, set;
        int glob;
    } lists[] = {
        {"--cat", offsetof(struct stint_filter, cats), offsetof(struct stint_filter, cat), 0},
        {"--name", offsetof(struct stint_filter, names), offsetof(struct stint_filter, name_glob), 1},
        {"--exclude-cat", offsetof(struct stint_filter, xcats), offsetof(struct stint_filter, xcat), 0},
        {"--exclude-name", offsetof(struct stint_filter, xnames), offsetof(struct stint_filter, xname), 1},
    };
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        if (!(v = opt_value(argc, argv, i, lists[k].opt)))
            continue;
        struct stint_filter_list *l = (struct stint_filter_list *)((char *)f + lists[k].list);
        if (list_add_all(f, l, lists[k].opt, v, lists[k].glob) != 0)
            return -1;
        const char **set = (const char **)((char *)f + lists[k].set);
        if (!*set)
            *set = v;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--min-dur"))) {
        int rel;
        if (parse_time_opt("--min-dur", v, strlen(v), &f->min_dur, &rel) != 0 || rel) {
            if (rel)
                fprintf(stderr, "stint: --min-dur: '%s': a duration has no '+'\n", v);
            return -1;
        }
        f->has_min_dur = 1;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--time-range")))
        return range_arg(f, v) ? -1 : 1;
    return 0;
}

void stint_filter_resolve(struct stint_filter *f, int64_t first_ns)
{
    if ((f->rel & STINT_FILTER_REL_START) && __builtin_add_overflow(first_ns, f->t0, &f->t0))
        f->t0 = INT64_MAX;
    if ((f->rel & STINT_FILTER_REL_END) && __builtin_add_overflow(first_ns, f->t1, &f->t1))
        f->t1 = INT64_MAX;
    f->rel = 0;
}

/* Whether the category cat is want, or want is one of its comma parts. */
static int cat_matches(const char *want, const char *cat)
{
    if (!strcmp(want, cat))
        return 1;
    size_t n = strlen(want);
    for (const char *p = cat; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !memcmp(p, want, n))
            return 1;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static const char *list_at(const struct stint_filter *f, const struct stint_filter_list *l, uint32_t k)
{
    return f->text + l->off[k];
}

/* Whether s passes list l (cat parts, or globs): one match is enough. A
 * hand-made filter's single value (one, with l empty) counts as the list. */
static int list_any(const struct stint_filter *f, const struct stint_filter_list *l, const char *one, const char *s,
                    int glob)
{
    if (!l->n)
        return glob ? fnmatch(one, s, 0) == 0 : cat_matches(one, s);
    for (uint32_t k = 0; k < l->n; k++)
        if (glob ? fnmatch(list_at(f, l, k), s, 0) == 0 : cat_matches(list_at(f, l, k), s))
            return 1;
    return 0;
}

static int ids_any(const int64_t *ids, uint32_t n, int64_t one, int64_t x)
{
    if (!n)
        return x == one;
    for (uint32_t k = 0; k < n; k++)
        if (ids[k] == x)
            return 1;
    return 0;
}

int stint_filter_rec(const struct stint_filter *f, const struct stint_filter_rec *e)
{
    return !((f->has_pid && !ids_any(f->pids, f->npid, f->pid, e->pid)) ||
             (f->has_tid && (!e->has_tid || !ids_any(f->tids, f->ntid, f->tid, e->tid))) ||
             !stint_filter_cat(f, e->cat ? e->cat : "") || !stint_filter_name(f, e->name ? e->name : "") ||
             (f->has_range && (!e->has_ts || !stint_filter_overlaps(f->t0, f->t1, e->ts, e->dur))));
}

int stint_filter_active(const struct stint_filter *f)
{
    return f->has_pid || f->has_tid || f->has_range || f->has_min_dur || f->cat || f->name_glob || f->xcat ||
           f->xname;
}

/* Whether slice s passes --pid and --tid. */
static int ids_pass(const struct stint_filter *f, const struct stint_model *m, const struct stint_slice *s)
{
    const struct stint_track *t = stint_model_track_at(m, s->track);
    if (t->kind == STINT_TRACK_GLOBAL)
        return 0;
    int64_t pid = stint_model_slice_pid(m, s); /* (a global async track's slice: its own) */
    if (f->has_pid && !ids_any(f->pids, f->npid, f->pid, pid))
        return 0;
    if (!f->has_tid)
        return 1;
    if (t->kind != STINT_TRACK_THREAD)
        return 0;
    /* a device lane is keyed by invocation: each of its spans takes the thread it came from */
    const struct stint_lane *l = stint_model_lane_at(m, t->lane);
    int64_t host;
    if (l->clock == STINT_CLOCK_DEVICE)
        return stint_model_slice_thread(m, s, &host) && ids_any(f->tids, f->ntid, f->tid, host);
    return ids_any(f->tids, f->ntid, f->tid, l->tid);
}

int stint_filter_slice(const struct stint_filter *f, const struct stint_model *m, const struct stint_slice *s)
{
    if ((f->has_pid || f->has_tid) && !ids_pass(f, m, s))
        return 0;
    if ((f->cat || f->xcat) && !stint_filter_cat(f, stint_model_str(m, s->cat, NULL)))
        return 0;
    if ((f->name_glob || f->xname) && !stint_filter_name(f, stint_model_str(m, s->name, NULL)))
        return 0;
    if (f->has_min_dur && (s->dur_ns < 0 || s->dur_ns < f->min_dur))
        return 0;
    return !f->has_range || stint_filter_overlaps(f->t0, f->t1, s->ts_ns, s->dur_ns);
}

int stint_filter_cat(const struct stint_filter *f, const char *cat)
{
    if (f->cat && !list_any(f, &f->cats, f->cat, cat, 0))
        return 0;
    return !f->xcat || !list_any(f, &f->xcats, f->xcat, cat, 0);
}

int stint_filter_name(const struct stint_filter *f, const char *name)
{
    if (f->name_glob && !list_any(f, &f->names, f->name_glob, name, 1))
        return 0;
    return !f->xname || !list_any(f, &f->xnames, f->xname, name, 1);
}

int stint_filter_point(const struct stint_filter *f, int64_t pid, int64_t ts_ns)
{
    if (f->has_pid && !ids_any(f->pids, f->npid, f->pid, pid))
        return 0;
    if (f->has_range && (ts_ns < f->t0 || ts_ns >= f->t1))
        return 0;
    return 1;
}

int stint_filter_extent(const struct stint_model *m, int64_t *first_ns, int64_t *last_ns)
{
    int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN}; /* [host, any] */
    size_t n = stint_model_nslices(m);
    for (size_t i = 0; i < n; i++) {
        const struct stint_slice *s = stint_model_slice(m, i);
        int64_t end = s->dur_ns > 0 ? s->ts_ns + s->dur_ns : s->ts_ns;
        int host = !stint_model_track_device(m, stint_model_track_at(m, s->track));
        for (int k = host ? 0 : 1; k < 2; k++) {
            lo[k] = s->ts_ns < lo[k] ? s->ts_ns : lo[k];
            hi[k] = end > hi[k] ? end : hi[k];
        }
    }
    int k = lo[0] != INT64_MAX ? 0 : 1;
    if (lo[k] == INT64_MAX)
        return 0;
    *first_ns = lo[k];
    *last_ns = hi[k];
    return 1;
}
