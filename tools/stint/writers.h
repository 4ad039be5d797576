/*
 * writers.h - the output formats `stint convert` (and the report) write from
 * one finished trace model. One writer per format; each writes to a FILE the
 * caller opened and returns the count of things it had to change or leave
 * out, so the caller can say so. None of them closes the FILE.
 */
#ifndef STINT_CLI_WRITERS_H
#define STINT_CLI_WRITERS_H

#include "model.h"

#include <stdint.h>
#include <stdio.h>

struct stint_write_stats {
    uint64_t slices;         /* slices written */
    uint64_t moved_overlap;  /* Chrome: spans moved to an extra track to keep tracks strictly nested */
    uint64_t skipped;        /* not representable in the format (counted by kind below) */
    uint64_t skipped_instants, skipped_async, skipped_unfinished, skipped_counters;
    uint64_t renamed;        /* names changed to fit the format (folded ';', markers spaces) */
    uint64_t flows;          /* flow arrows written (Chrome) */
    uint64_t skipped_flows;  /* flow arrows the format cannot hold (Chrome: those it cannot bind exactly) */
    int64_t origin_ns;       /* what was subtracted from every ts */
};

struct stint_write_opts {
    int rebase;              /* subtract the earliest ts (Chrome, JSONL) */
};

/* Chrome Trace Event JSON (object form): M names and sort indexes, X spans
 * (B for unfinished ones), i instants, b/e async, C counters, s/f flows; ts
 * and dur in microseconds with exactly three decimals. Every thread track
 * is strictly nested: a span that would overlap its parent improperly goes
 * to an extra track named "<thread> (overlap N)" and is counted in
 * moved_overlap. Each flow arrow between thread-track slices is written so
 * that it binds to the same two slices again, or counted in skipped_flows
 * (an end on an async track, an arrow back in time, or slices sharing the
 * end's start both before and after it). */
int stint_write_chrome(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st);
/* Folded stacks ("a;b;c <self ns>", one line per call path with self > 0),
 * for flamegraph.pl, inferno and speedscope; ';' inside names becomes ':'. */
int stint_write_folded(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                       struct stint_write_stats *st);
/* A stint/session/1 JSONL session: meta, span_start/span_end (ends innermost
 * first per thread), counter records. Instants and async slices have no
 * JSONL record and are skipped (counted). */
int stint_write_jsonl(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                      struct stint_write_stats *st);
/* [STRACE] v=1 marker lines, one per finished span on a thread track, with
 * its depth; device-clock lanes get clk=dev. Spaces in names become '_'. */
int stint_write_markers(const struct stint_model *m, FILE *out, const struct stint_write_opts *o,
                        struct stint_write_stats *st);

/* Writes ns as microseconds with exactly three decimals ("-1.500"). */
void stint_put_us3(FILE *f, int64_t ns);
/* The earliest ts of any slice or counter sample (0 for an empty model). */
int64_t stint_model_origin(const struct stint_model *m);

#endif
