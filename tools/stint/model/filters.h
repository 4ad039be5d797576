/* SPDX-License-Identifier: MIT */
/*
 * filters.h - the filters every command shares, with one meaning everywhere:
 *
 *   --pid N[,N..]      slices of process N (thread, process and async tracks)
 *   --tid N[,N..]      slices on thread N's track (and the device-clock lanes
 *                      whose spans thread N emitted: markers' clk=dev spans,
 *                      laned by invocation; a lane fed by several threads by none)
 *   --cat C[,C..]      cat equal to C, or C is one of its comma-separated parts
 *   --name GLOB[,..]   name matches a shell glob (fnmatch, case-sensitive); a
 *                      comma inside (), <>, [] or {} or after a backslash is
 *                      part of the glob (C++ names: "gemm<float, 128>*")
 *   --exclude-cat C[,..]    leaves out what --cat C would select
 *   --exclude-name GLOB[,..] leaves out what --name GLOB would select
 *   --time-range A:B   slices overlapping [A, B); A and B are trace timestamps
 *                      in ns, or with a unit (ns, us, ms, s: "12.5ms", also
 *                      "12.5 ms" as the tables print it); "+T" counts from the
 *                      trace's first host-clock event (the report's 0); either
 *                      side may be empty (open). Slices are not clipped.
 *   --min-dur D        dur_ns >= D (same units); unfinished slices fail it
 *
 * A list option may be repeated: every value given, in one option or in
 * several, is one more alternative (OR); different options must all pass
 * (AND), and an exclusion wins over a selection.
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
#include <stdio.h>

/* Values one list option may hold in all (more: refused, exit 2), and the
 * bytes of the text values (cats, globs) kept together. */
#define STINT_FILTER_VALUES 64
#define STINT_FILTER_TEXT 4096

/* A list of text values: offsets of NUL-terminated strings in the filter's
 * text (offsets, not pointers: a filter may be copied by value). */
struct stint_filter_list {
    uint32_t n;
    uint16_t off[STINT_FILTER_VALUES];
};

/* rel bits: a side of --time-range given as "+T", still an offset from the
 * trace's first host-clock event until stint_filter_resolve. */
#define STINT_FILTER_REL_START 1u
#define STINT_FILTER_REL_END 2u

struct stint_filter {
    int has_pid, has_tid, has_range, has_min_dur;
    int64_t pid, tid, t0, t1, min_dur; /* pid, tid: the first value given */
    /* set (the first option's text as given) when --cat / --name / --exclude-*
     * was given; a filter made by hand may set cat or name_glob alone: it
     * is then the one value (no list) */
    const char *cat, *name_glob, *xcat, *xname;
    uint32_t npid, ntid;
    int64_t pids[STINT_FILTER_VALUES], tids[STINT_FILTER_VALUES];
    struct stint_filter_list cats, names, xcats, xnames;
    unsigned rel; /* STINT_FILTER_REL_* */
    size_t textlen;
    char text[STINT_FILTER_TEXT];
};

#define STINT_FILTER_USAGE                                                                         \
    "filters: --pid N --tid N --cat C --name GLOB --exclude-cat C --exclude-name GLOB\n"           \
    "         --time-range A:B --min-dur D\n"                                                      \
    "         (lists: N,N or C,C or repeat the option: any value passes; times in ns or with\n"    \
    "         a unit: 12.5ms, 3us, 2s; +T counts from the first event; A or B may be empty)\n"

/* Tries argv[*i] as a filter option ("--opt V" or "--opt=V"). Returns 1 when
 * it was one (*i advanced past its value), 0 when not a filter option, -1 on
 * a bad value (message on stderr naming the option: exit 2). */
int stint_filter_arg(struct stint_filter *f, int argc, char **argv, int *i);

/* Parses one time of a filter: ns, or a number with a unit (ns, us, ms, s),
 * blanks allowed before the unit ("12.5 ms"); a leading '+' sets
 * *relative (an offset from the first event: not negative). 0, or -1 when
 * it is no time, -2 when it does not fit int64 (as stint_parse_duration). */
int stint_filter_parse_time(const char *s, size_t n, int64_t *out, int *relative);

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

/* The extent of m's events (finished model, every slice kept): the first
 * start and the last end of its host-clock slices (all slices when none is
 * on the host clock). 0 when m has no slice. */
int stint_filter_extent(const struct stint_model *m, int64_t *first_ns, int64_t *last_ns);

/* Makes a relative --time-range (rel bits) absolute: "+T" becomes first_ns
 * + T, the first host-clock event (stint_filter_extent's first_ns). */
void stint_filter_resolve(struct stint_filter *f, int64_t first_ns);

/* Says on err why nothing passed f in m (a finished model keeping every
 * slice): "stint CMD: no span matches the filters", then for each value
 * that alone selects nothing the closest values m holds (categories,
 * names, pids, tids) and a --time-range outside the trace's extent. */
void stint_filter_explain(FILE *err, const char *cmd, const struct stint_filter *f, const struct stint_model *m);

#endif
