/* SPDX-License-Identifier: MIT */
/*
 * filters.c - parsing and applying the shared filters (see filters.h): the
 * --pid, --tid, --cat, --name, --min-dur and --time-range options that
 * several commands take, and the test of a slice against them.
 *
 * Invariants: an option not given matches everything (its has_ flag or
 * NULL string); a value that does not parse is reported on stderr and
 * fails the option (-1); times parse exactly (tsparse.h), without a
 * double.
 */
#include "model/filters.h"

#include "base/tsparse.h"

#include <fnmatch.h>
#include <stdio.h>
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

/* The integer value of option opt (--pid, --tid) into *out; -1 with a
 * message when it is none. */
static int parse_id_opt(const char *opt, const char *v, int64_t *out)
{
    if (!*v || stint_parse_i64(v, strlen(v), out) != 0) {
        fprintf(stderr, "stint: %s: '%s' is not an integer\n", opt, v);
        return -1;
    }
    return 0;
}

static int parse_time_opt(const char *opt, const char *s, size_t n, int64_t *out)
{
    if (stint_parse_duration(s, n, out) != 0) {
        fprintf(stderr, "stint: %s: '%.*s' is not a time (expected ns or a number with ns/us/ms/s)\n", opt, (int)n, s);
        return -1;
    }
    return 0;
}

int stint_filter_arg(struct stint_filter *f, int argc, char **argv, int *i)
{
    const char *v;
    if ((v = opt_value(argc, argv, i, "--pid"))) {
        if (parse_id_opt("--pid", v, &f->pid) != 0)
            return -1;
        f->has_pid = 1;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--tid"))) {
        if (parse_id_opt("--tid", v, &f->tid) != 0)
            return -1;
        f->has_tid = 1;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--cat"))) {
        f->cat = v;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--name"))) {
        f->name_glob = v;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--min-dur"))) {
        if (parse_time_opt("--min-dur", v, strlen(v), &f->min_dur) != 0)
            return -1;
        f->has_min_dur = 1;
        return 1;
    }
    if ((v = opt_value(argc, argv, i, "--time-range"))) {
        const char *colon = strchr(v, ':');
        if (!colon) {
            fprintf(stderr, "stint: --time-range: '%s' has no ':' (expected A:B)\n", v);
            return -1;
        }
        f->t0 = INT64_MIN;
        f->t1 = INT64_MAX;
        if (colon > v && parse_time_opt("--time-range", v, (size_t)(colon - v), &f->t0) != 0)
            return -1;
        if (colon[1] && parse_time_opt("--time-range", colon + 1, strlen(colon + 1), &f->t1) != 0)
            return -1;
        if (f->t1 < f->t0) {
            fprintf(stderr, "stint: --time-range: end is before start\n");
            return -1;
        }
        f->has_range = 1;
        return 1;
    }
    return 0;
}

int stint_filter_rec(const struct stint_filter *f, const struct stint_filter_rec *e)
{
    return !((f->has_pid && e->pid != f->pid) || (f->has_tid && (!e->has_tid || e->tid != f->tid)) ||
             (f->cat && !stint_filter_cat(f, e->cat ? e->cat : "")) ||
             (f->name_glob && !stint_filter_name(f, e->name ? e->name : "")) ||
             (f->has_range && (!e->has_ts || !stint_filter_overlaps(f->t0, f->t1, e->ts, e->dur))));
}

int stint_filter_active(const struct stint_filter *f)
{
    return f->has_pid || f->has_tid || f->has_range || f->has_min_dur || f->cat || f->name_glob;
}

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

int stint_filter_slice(const struct stint_filter *f, const struct stint_model *m, const struct stint_slice *s)
{
    if (f->has_pid || f->has_tid) {
        const struct stint_track *t = stint_model_track_at(m, s->track);
        if (t->kind == STINT_TRACK_GLOBAL)
            return 0;
        int64_t pid = stint_model_slice_pid(m, s); /* (a global async track's slice: its own) */
        if (f->has_pid && pid != f->pid)
            return 0;
        if (f->has_tid) {
            if (t->kind != STINT_TRACK_THREAD)
                return 0;
            /* a device lane is keyed by invocation: each of its spans takes the thread it came from */
            const struct stint_lane *l = stint_model_lane_at(m, t->lane);
            int64_t host;
            if (l->clock == STINT_CLOCK_DEVICE ? !(stint_model_slice_thread(m, s, &host) && host == f->tid)
                                               : l->tid != f->tid)
                return 0;
        }
    }
    if (f->cat && !cat_matches(f->cat, stint_model_str(m, s->cat, NULL)))
        return 0;
    if (!stint_filter_name(f, stint_model_str(m, s->name, NULL)))
        return 0;
    if (f->has_min_dur && (s->dur_ns < 0 || s->dur_ns < f->min_dur))
        return 0;
    return !f->has_range || stint_filter_overlaps(f->t0, f->t1, s->ts_ns, s->dur_ns);
}

int stint_filter_cat(const struct stint_filter *f, const char *cat)
{
    return !f->cat || cat_matches(f->cat, cat);
}

int stint_filter_name(const struct stint_filter *f, const char *name)
{
    return !f->name_glob || fnmatch(f->name_glob, name, 0) == 0;
}

int stint_filter_point(const struct stint_filter *f, int64_t pid, int64_t ts_ns)
{
    if (f->has_pid && pid != f->pid)
        return 0;
    if (f->has_range && (ts_ns < f->t0 || ts_ns >= f->t1))
        return 0;
    return 1;
}
