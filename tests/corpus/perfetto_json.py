#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance: Perfetto's JSON import cases (../shared/corpus/perfetto-json).

For each case, runs `stint slices --json` on the case's trace, evaluates the
case's SQL query by hand over stint's tables (slices, processes, threads,
counters), formats the rows the way Perfetto's diff tests print them, and
compares with the expected CSV. Queries with ORDER BY are compared in order;
queries without one are compared as multisets (SQL gives no order).
Cases whose input is not in the corpus, or that need tables stint does not
model (flows, thread_state, sched, import logs), are listed as skipped with
the reason. Exit 0 when every run case passes, 1 otherwise, 77 when the
corpus is absent.
"""
import csv
import io
import json
import os
import subprocess
import sys

from corpus_common import locate

NULL = "[NULL]"

def run_slices(stint, path):
    p = subprocess.run([stint, "slices", "--json", path], capture_output=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("stint slices exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)

def fmt(v):
    if v is None:
        return NULL
    if isinstance(v, bool):
        return str(int(v))
    return str(v)

def names(d):
    procs = {p["pid"]: p for p in d["processes"]}
    threads = {(t["pid"], t["tid"]): t for t in d["threads"]}
    return procs, threads

def thread_or_process(d):
    """Perfetto's thread_or_process_slice: thread tracks and process tracks,
    process-scoped async tracks (id2.local) included."""
    return [s for s in d["slices"] if s["track"] in ("thread", "process") or
            (s["track"] == "async" and s.get("async_scope") == "process")]

def arg_rows(s):
    """LEFT JOIN args: (flat_key, key, string_value, int_value) per arg, or one NULL row."""
    rows = []
    for a in s["args"]:
        key = a["key"]
        flat = "".join(part.split("[")[0] for part in [key]) if "[" in key else key
        sv = a["value"] if a["type"] == "string" else None
        iv = a["value"] if a["type"] in ("int", "uint") else (int(a["value"]) if a["type"] == "bool" else None)
        rows.append((flat, key, sv, iv))
    return rows or [(None, None, None, None)]

def q_ts_dur_name_pname_tname(d):
    procs, threads = names(d)
    out = []
    for s in d["slices"]:
        tn = threads.get((s["pid"], s["tid"]), {}).get("name") if s["tid"] is not None else None
        pn = procs.get(s["pid"], {}).get("name") if s["track"] == "thread" else None
        out.append([s["ts_ns"], s["dur_ns"], s["name"], pn, tn])
    return out

def q_args_ordered(d):
    out = []
    for s in d["slices"]:
        for a in s["args"]:
            out.append([s["name"], a["key"], a["value"] if a["type"] in ("int", "uint") else None])
    return out

def q_slice_args(d):
    out = []
    for s in thread_or_process(d):
        for flat, key, sv, iv in arg_rows(s):
            out.append([s["ts_ns"], s["dur_ns"], s["name"], flat, key, sv, iv])
    return out

def q_slice_context_args(d):
    procs, threads = names(d)
    out = []
    for s in thread_or_process(d):
        tn = threads.get((s["pid"], s["tid"]), {}).get("name") if s["tid"] is not None else None
        pn = procs.get(s["pid"], {}).get("name")
        for flat, key, sv, iv in arg_rows(s):
            out.append([s["ts_ns"], s["dur_ns"], s["name"], tn, s["tid"], pn, s["pid"], flat, key, sv, iv])
    return out

def q_name_ts_dur_by_ts(d):
    return [[s["name"], s["ts_ns"], s["dur_ns"]] for s in d["slices"]]

def q_ts_dur_name(d):
    return [[s["ts_ns"], s["dur_ns"], s["name"]] for s in d["slices"]]

def q_ts_dur_name_desc(d):
    return [[s["ts_ns"], s["dur_ns"], s["name"]] for s in sorted(d["slices"], key=lambda s: -s["ts_ns"])]

def q_thread_time(d):
    return [[s["ts_ns"], s["dur_ns"], s["name"], s.get("tts_ns"), s.get("tdur_ns")] for s in d["slices"]]

def q_name_tts_tdur(d):
    return [[s["name"], s.get("tts_ns"), s.get("tdur_ns")] for s in d["slices"]]

def track_type(s):
    if s["track"] == "async":
        return "legacy_async_global_slice" if s["async_scope"] == "global" else "legacy_async_process_slice"
    return s["track"]

def q_async_track(name):
    def q(d):
        return [[s["name"], s["ts_ns"], s["dur_ns"], s.get("track_name"), track_type(s)]
                for s in d["slices"] if s["name"] == name]
    return q

def q_name_ts_dur(d):
    return [[s["name"], s["ts_ns"], s["dur_ns"]] for s in d["slices"]]

def all_threads(d):
    """Perfetto's thread table: every lane, every process's main thread (tid == pid), and 0/0."""
    rows = {(0, 0)}
    for p in d["processes"]:
        rows.add((p["pid"], p["pid"]))
    for t in d["threads"]:
        rows.add((t["pid"], t["tid"]))
    return rows

def q_sort_hints(d):
    procs, threads = names(d)
    out = []
    for pid, tid in sorted(all_threads(d)):
        ph = procs.get(pid, {}).get("sort_index")
        th = threads.get((pid, tid), {}).get("sort_index")
        out.append([pid, tid, ph, th])
    return out

def q_sort_ordering(d):
    procs, threads = names(d)
    pids = set(procs) | {0}
    prow = sorted(((procs.get(p, {}).get("sort_index") or 0), p) for p in pids)
    tids = sorted(((threads.get((10, t), {}).get("sort_index") or 0), t)
                  for (p, t) in all_threads(d) if p == 10)
    return [["process", p, h] for h, p in prow] + [["thread", t, h] for h, t in tids]

def q_process_names(d):
    return [[p["pid"], p["name"]] for p in sorted(d["processes"], key=lambda p: p["pid"]) if p["name"] is not None]

def q_counters(d):
    out = []
    for c in d["counters"]:
        for ts, v in c["samples"]:
            out.append([c["name"], ts, "%.6f" % v])
    return out

def q_trace_metadata(d):
    out = []
    for a in sorted(d["metadata"], key=lambda a: a["key"]):
        out.append([a["key"], a["value"] if a["type"] in ("int", "uint") else None,
                    a["value"] if a["type"] == "string" else None])
    return out

def q_flows(d):
    sl = d["slices"]
    return [[sl[o]["name"], sl[i]["name"]] for o, i in d["flows"]]

def q_json_flow(d):
    """COUNT(DISTINCT ...) without GROUP BY: one row, the first thread/process slice, and
    the number of flows into and out of thread/process slices."""
    tp = {s["row"] for s in thread_or_process(d)}
    if not tp:
        return []
    first = min(tp)
    s = d["slices"][first]
    fin = sum(1 for o, i in d["flows"] if i in tp)
    fout = sum(1 for o, i in d["flows"] if o in tp)
    return [[s["ts_ns"], s["dur_ns"], s["name"], fin, fout]]

def q_name_depth(d):
    return sorted([[s["name"], s["depth"]] for s in d["slices"]], key=lambda r: r[0])

def thread_states(d):
    """Rows of Perfetto's thread_state table: stint's thread_state slices, whose
    track is named "thread_state tid <tid>"."""
    out = []
    for s in d["slices"]:
        if s["kind"] != "thread_state":
            continue
        assert s["track_name"].startswith("thread_state tid "), s["track_name"]
        args = {a["key"]: a["value"] for a in s["args"]}
        out.append((s, args, int(s["track_name"].split()[-1])))
    return sorted(out, key=lambda r: r[0]["ts_ns"])

def q_thread_state(d):
    return [[s["ts_ns"], s["dur_ns"], s["name"], a.get("args.io_wait"), a.get("args.blocked_function"), tid, s["pid"]]
            for s, a, tid in thread_states(d)]

def q_thread_state_sched(d):
    """sched: a "Running" state with args.cpu is also a scheduling slice."""
    return [[s["ts_ns"], s["dur_ns"], a["args.cpu"], tid, s["pid"]]
            for s, a, tid in thread_states(d) if s["name"] == "Running" and "args.cpu" in a]

# case -> (query function, ordered?)
CASES = {
    "json__string_pid_tid": (q_ts_dur_name_pname_tname, False),
    "json__args_ordered": (q_args_ordered, True),
    "json__json_all_slice_types": (q_slice_args, False),
    "json__json_metadata": (q_slice_context_args, False),
    "json__json_async": (q_slice_context_args, False),
    "json__json_id2": (q_slice_context_args, False),
    "json__json_trailing_comma": (q_name_ts_dur_by_ts, True),
    "json__invalid_string_ts_and_dur": (q_ts_dur_name, True),
    "json__string_tts_and_tdur": (q_thread_time, True),
    "json__json_id2_global_string_id": (q_async_track("AsyncId2GlobalString"), False),
    "json__json_id2_local_string_id": (q_async_track("AsyncId2LocalString"), False),
    "json__json_id2_local_int_id": (q_async_track("write"), False),
    "json__json_sort_index_hints": (q_sort_hints, True),
    "json__json_sort_index_ordering": (q_sort_ordering, True),
    "json__json_pid_tid_zero": (q_name_ts_dur, False),
    "json__json_metadata_missing_or_invalid_ts": (q_process_names, True),
    "json__json_trace_metadata": (q_trace_metadata, True),
    "json__json_flow": (q_json_flow, True),
    "parsing__flow_events_json_v1": (q_flows, False),
    "parsing__flow_events_json_v2": (q_flows, False),
    "parsing__thread_time_in_thread_slice": (q_name_tts_tdur, False),
    "parsing__display_time_unit_slices": (q_ts_dur_name_desc, True),
    "parsing__counters_json_counters": (q_counters, True),
    "parsing__same_ts_two_zero_duration_slice_nesting": (q_name_depth, True),
    "parsing__same_ts_zero_duration_slice_then_duration_slice_unnesting": (q_name_depth, True),
    "parsing__same_ts_duration_slice_then_zero_duration_slice_unnesting": (q_name_depth, True),
    "json__json_thread_state": (q_thread_state, True),
    "json__json_thread_state_sched": (q_thread_state_sched, True),
}

NOT_MODELLED = {
    "dynamic_tables__connected_flow": "flow graph traversal (directly connected / following / preceding): not a stint query",
    "json__overlapping_complete_event_import_log": "Perfetto's import-log table: stint reports the overlap as a repair instead",
}

def main():
    found = locate("perfetto-json")
    if not isinstance(found, tuple):
        return found
    corpus, stint = found
    meta = json.load(open(os.path.join(corpus, "cases.json")))
    passed, failed, skipped = [], [], []
    for c in meta["cases"]:
        name = c["name"]
        trace = os.path.join(corpus, c["trace"]) if c.get("trace") else None
        if name in NOT_MODELLED:
            skipped.append((name, NOT_MODELLED[name]))
            continue
        if name not in CASES:
            if not trace or not os.path.exists(trace):
                skipped.append((name, "input not in the corpus (Perfetto's cloud test data)"))
            else:
                skipped.append((name, "no query emulation for this case"))
            continue
        if not trace or not os.path.exists(trace):
            skipped.append((name, "input not in the corpus"))
            continue
        q, ordered = CASES[name]
        with open(os.path.join(corpus, c["expected"]), newline="") as f:
            rows = list(csv.reader(f))
        want = rows[1:]
        try:
            got = [[fmt(v) for v in r] for r in q(run_slices(stint, trace))]
        except Exception as e:  # a crash of stint is a failure, not a skip
            failed.append((name, str(e)))
            continue
        ok = got == want if ordered else sorted(got) == sorted(want)
        if ok:
            passed.append(name)
        else:
            failed.append((name, "got %r\n      want %r" % (got, want)))
    for n in passed:
        print("PASS %s" % n)
    for n, why in skipped:
        print("SKIP %s: %s" % (n, why))
    for n, why in failed:
        print("FAIL %s: %s" % (n, why))
    print("%d passed, %d failed, %d skipped" % (len(passed), len(failed), len(skipped)))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
