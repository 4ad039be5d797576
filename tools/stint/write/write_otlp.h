/* SPDX-License-Identifier: MIT */
/*
 * write_otlp.h - the model's spans as OpenTelemetry OTLP/JSON (the JSON
 * encoding of an ExportTraceServiceRequest), so a trace can be posted to any
 * OpenTelemetry collector (`POST /v1/traces`, Content-Type application/json).
 *
 * Shape: {"resourceSpans":[ one per process {"resource":{"attributes":[...]},
 * "scopeSpans":[{"scope":{"name":"stint","version":...},"spans":[...]}]} ]}.
 *
 * Mapping (docs: the "OTLP export" section of docs/using.md):
 *   resource    service.name (the process name, else the session's
 *               entrypoint, else "stint"), host.name (when the input recorded
 *               a hostname), process.pid, stint.time_base ("unix" or
 *               "relative").
 *   span        one per slice. spanId: 16 hex digits, a hash of (pid, tid,
 *               ts, name, slice index), so the same input gives the same ids;
 *               traceId: 32 hex digits, the same hash scheme applied to the
 *               slice's root ancestor, so a whole tree is one trace;
 *               parentSpanId: the model's parent (absent at a root);
 *               kind 1 (SPAN_KIND_INTERNAL); attributes: the slice's args
 *               (typed), thread.id, thread.name, stint.category, and flags
 *               for instants, unfinished spans and device-clock spans.
 *   time        start/endTimeUnixNano are decimal strings. With a clock
 *               anchor in the input's metadata (JSONL meta
 *               `clock_realtime_ns`, stint Chrome metadata
 *               `origin_realtime_ns`) they are unix ns = anchor + ts.
 *               Without one (marker logs, foreign Chrome JSON) they are
 *               relative: ns since the earliest host slice start, and the resource
 *               says stint.time_base = "relative". Device-clock slices keep
 *               their own clock (attribute stint.clock = "device").
 *   unfinished  a span that never ended gets end = start and the attribute
 *               stint.unfinished = true.
 *   not here    counters (OTLP metrics are another signal) and Chrome flow
 *               events; instants are zero-length spans (stint.instant).
 */
#ifndef STINT_CLI_WRITE_OTLP_H
#define STINT_CLI_WRITE_OTLP_H

#include "model/model.h"

#include <stddef.h>
#include <stdio.h>

/* Writes the finished model m to out as one OTLP/JSON document followed by a
 * newline. Returns 0 on success; -1 on a write error or out of memory, with
 * a message in err (errcap bytes, NUL-terminated; err may be NULL). The
 * model is only read. */
int stint_write_otlp(const struct stint_model *m, FILE *out, char *err, size_t errcap);

#endif
