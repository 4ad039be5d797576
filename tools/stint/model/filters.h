/* SPDX-License-Identifier: MIT */
/*
 * filters.h - the filters every command shares, with one meaning everywhere:
 *
 *   --pid N          slices of process N (thread, process and async tracks)
 *   --tid N          slices on thread N's track (and the device-clock lanes
 *                    whose spans thread N emitted: markers' clk=dev spans,
 *                    laned by invocation; a lane fed by several threads by none)
 *   --cat C          cat equal to C, or C is one of its comma-separated parts
 *   --name GLOB      name matches the shell glob (fnmatch, case-sensitive)
 *   --time-range A:B slices overlapping [A, B); A and B are trace timestamps
 *                    in ns, or with a unit (ns, us, ms, s: "12.5ms"); either
 *                    side may be empty (open). Slices are not clipped.
 *   --min-dur D      dur_ns >= D (same units); unfinished slices fail it
 *
 * Counter samples obey --pid, --time-range (sample time) and --name (the
 * series' name); `stint counters` refuses --tid, --cat and --min-dur, which
 * mean nothing for a series, and `summary` applies them to its spans and
 * instants only. Instants
 * are zero-length slices and obey every filter, as in `slices`. A filter
 * selects what is reported, never the call tree: a parent's self time
 * still subtracts the children a filter leaves out (`tree`, `summary`).
 */
#ifndef STINT_CLI_FILTERS_H
#define STINT_CLI_FILTERS_H

#include "model/model.h"

#include <stdint.h>

struct stint_filter {
    int has_pid, has_tid, has_range, has_min_dur;
    int64_t pid, tid, t0, t1, min_dur;
    const char *cat;
    const char *name_glob;
};

#define STINT_FILTER_USAGE                                                                         \
    "filters: --pid N --tid N --cat C --name GLOB --time-range A:B --min-dur D\n"                  \
    "         (times in ns or with a unit: 12.5ms, 3us, 2s; A or B may be empty)\n"

/* Tries argv[*i] as a filter option ("--opt V" or "--opt=V"). Returns 1 when
 * it was one (*i advanced past its value), 0 when not a filter option, -1 on
 * a bad value (message on stderr naming the option: exit 2). */
int stint_filter_arg(struct stint_filter *f, int argc, char **argv, int *i);

/* Whether slice s passes; m must be finished. */
int stint_filter_slice(const struct stint_filter *f, const struct stint_model *m, const struct stint_slice *s);
/* Whether [ts, ts + dur) overlaps [t0, t1) as --time-range means it: a
 * zero-length interval at t0 counts, an unfinished span (dur < 0) lasts to
 * the end of time, and an end past INT64_MAX is INT64_MAX. Every reading of
 * the range (filters, sizes, convert's windows) goes through this. */
static inline int stint_filter_overlaps(int64_t t0, int64_t t1, int64_t ts, int64_t dur)
{
    int64_t end;
    if (dur < 0 || __builtin_add_overflow(ts, dur, &end))
        end = INT64_MAX;
    return !(ts >= t1 || end < t0 || (end == t0 && dur > 0));
}

/* Whether a category string passes --cat. */
int stint_filter_cat(const struct stint_filter *f, const char *cat);
/* Whether a name (a slice's, or a counter series') passes --name. */
int stint_filter_name(const struct stint_filter *f, const char *name);
/* Whether a point sample of process pid at ts passes (counters, instants). */
int stint_filter_point(const struct stint_filter *f, int64_t pid, int64_t ts_ns);
/* An event or record as its format writes it, before any modelling (the
 * readers' sizes mode, sizes.h): what the filters look at. A field no set
 * filter looks at may be left unset. */
struct stint_filter_rec {
    int64_t pid, tid, ts, dur;
    const char *cat, *name; /* NULL: "" */
    int has_tid, has_ts;    /* 0: it has none (or none valid), which fails --tid / --time-range */
};
/* Whether e passes --pid, --tid, --cat, --name and --time-range ([ts,
 * ts + dur) overlapping the range, as stint_filter_overlaps reads it);
 * --min-dur is not looked at. */
int stint_filter_rec(const struct stint_filter *f, const struct stint_filter_rec *e);
/* Whether any filter is set. */
int stint_filter_active(const struct stint_filter *f);

#endif
