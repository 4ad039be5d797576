#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance: the spec examples and issue repros (../shared/corpus/spec-examples)
beyond the thread slices that perfetto_rules.py compares.

Expected values come from the folder's README (its "expected" column: the
async intervals `name [a,b]` in us, the args-merge figures) or are computed
here from each input's JSON:
- spec_be_args_merge: one slice, cat/start/duration as the README states, args
  = B's args updated by E's (the E value wins);
- spec_counter_two_series: one series per (counter, arg key), samples/min/max;
- spec_metadata_thread_name: the lane's name from the M event;
- the async files with no rows in derived-thread-slices-perfetto-rules.csv:
  each `name [a,b]` the README states is one async slice [a us, b us];
  spec_id2_local_global: an id2.local b/e is on its process's track;
- instants (i/I): track by scope s (g, p, t = default), ts in ns exactly;
- every file: events of a phase stint does not model (N O D V v c ( ) =)
  are each counted in summary's drops.unknown_phase, never dropped silently.
Checks in KNOWN_DIFFERENCES are expected to fail (stint follows Perfetto's
rule where the issue asks for something else); one that starts to pass fails.
"""
import csv
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

from corpus_common import Checker, locate

UNMODELLED = set("NODVvc()=")
SCOPE = {"g": "global", "p": "process", "t": "thread"}
SAME_ID = ("nestable async b/e sharing one id that overlap without nesting: stint (as "
           "Perfetto's slice stack) cuts the inner one at the outer one's e "
           "(misplaced_end_event) and counts its own e as unmatched_async_end")
KNOWN_DIFFERENCES = {
    ("issue_perfetto_254_async_same_id_overlap.json", "test1"): SAME_ID,
    ("issue_catapult_3800_nested_async_overlap.json", "Write"): SAME_ID,
}


def stint_json(stint, *args):
    p = subprocess.run([stint] + list(args), capture_output=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("stint %s exited %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode(errors="replace")[:300]))
    return json.loads(p.stdout)


def events_of(path):
    with open(path) as f:
        doc = json.load(f, parse_float=Decimal)
    return doc if isinstance(doc, list) else doc.get("traceEvents", [])


def main():
    found = locate("spec-examples")
    if not isinstance(found, tuple):
        return found
    base, stint = found
    readme = {}  # file -> its row's expected text
    with open(os.path.join(base, "README.md")) as f:
        for line in f:
            m = re.match(r"\| `([^`]+\.json)` \|[^|]*\|(.*)\|\s*$", line)
            if m:
                readme[m.group(1)] = m.group(2)
    with_rows = set()
    with open(os.path.join(base, "derived-thread-slices-perfetto-rules.csv"), newline="") as f:
        for r in csv.DictReader(f):
            with_rows.add(r["file"])
    check = Checker(KNOWN_DIFFERENCES)

    files = sorted(f for f in os.listdir(base) if f.endswith(".json"))
    print("files without rows in the derived CSV: %s" % ", ".join(
        f for f in files if f not in with_rows))
    for fname in files:
        path = os.path.join(base, fname)
        try:
            summ = stint_json(stint, "summary", "--json", path)
            sl = stint_json(stint, "slices", "--json", path)
        except Exception as e:  # (a failure to read is never known)
            check("%s: stint reads it" % fname, "exit 0 or 1", str(e))
            continue
        evs = events_of(path)
        # phases stint does not model must be visible in drops
        n_unmod = sum(1 for e in evs if e.get("ph") in UNMODELLED)
        if n_unmod:
            check("%s: %d events of unmodelled phases in drops.unknown_phase" % (
                fname, n_unmod), n_unmod, summ["drops"].get("unknown_phase", 0))
        # async intervals stated by the README, for files with no derived rows
        text = readme.get(fname, "")
        if fname not in with_rows and any(e.get("ph") in ("b", "e") for e in evs):
            stated = re.findall(r"([A-Za-z_]\w*) \[(\d+),\s*(\d+)\]", text)
            got = {}
            for s in sl["slices"]:
                if s["track"] == "async" and s["kind"] == "async":
                    got.setdefault(s["name"], []).append(
                        (s["ts_ns"], s["ts_ns"] + s["dur_ns"] if s["dur_ns"] >= 0 else None))
            for name, a, b in stated:
                check("%s: async %s [%s, %s] us (README)" % (fname, name, a, b),
                      [(int(a) * 1000, int(b) * 1000)], got.get(name), key=(fname, name))
        if fname == "spec_nestable_async_corrected.json":
            par = {s["name"]: s["parent"] for s in sl["slices"]}
            rows = {s["row"]: s["name"] for s in sl["slices"]}
            check("%s: url_headers nested under url_request" % fname, "url_request",
                  rows.get(par.get("url_headers")))
        if fname == "spec_id2_local_global.json":
            loc = [e for e in evs if e.get("ph") == "b" and "local" in e.get("id2", {})]
            got = [(s["name"], s.get("async_scope"), s["pid"]) for s in sl["slices"]
                   if s["track"] == "async"]
            check("%s: id2.local b/e on its process's track" % fname,
                  [(e["name"], "process", e["pid"]) for e in loc], got)
        inst = [e for e in evs if e.get("ph") in ("i", "I")]
        if inst:  # scope s: g global, p process, t or absent thread; ts exact in ns
            want = sorted((e["name"], SCOPE[e.get("s", "t")], int(Decimal(str(e["ts"])) * 1000))
                          for e in inst)
            got = sorted((s["name"], s["track"], s["ts_ns"]) for s in sl["slices"]
                         if s["kind"] == "instant" and s["track"] != "async")
            check("%s: %d instants (name, track by scope, ts_ns)" % (fname, len(want)),
                  want, got)
        if fname == "spec_be_args_merge.json":
            b = [e for e in evs if e["ph"] == "B"][0]
            e = [e for e in evs if e["ph"] == "E"][0]
            merged = dict(b.get("args", {}))
            merged.update(e.get("args", {}))
            m = re.search(r"start (\d+) us, duration (\d+) us, args `\{([^}]*)\}`", text)
            stated = dict((k.strip(), int(v)) for k, v in
                          (kv.split(":") for kv in m.group(3).split(",")))
            check("%s: README's args agree with B args updated by E args" % fname,
                  stated, merged)
            got = [(s["name"], s["cat"], s["ts_ns"], s["dur_ns"],
                    {a["key"]: a["value"] for a in s["args"]}) for s in sl["slices"]]
            check("%s: one slice, README's start/duration, merged args" % fname,
                  [(b["name"], b["cat"], int(m.group(1)) * 1000, int(m.group(2)) * 1000,
                    {"args." + k: v for k, v in merged.items()})], got)
        if fname == "spec_counter_two_series.json":
            series = {}
            for e in evs:
                if e.get("ph") == "C":
                    for k, v in e["args"].items():
                        series.setdefault((e["pid"], e["name"], k), []).append(v)
            want = sorted((p, n, k, len(v), min(v), max(v)) for (p, n, k), v in series.items())
            cs = stint_json(stint, "counters", "--json", path)["series"]
            got = []
            for s in cs:
                for (p, n, k) in series:
                    if s["pid"] == p and n in s["name"] and k in s["name"].split():
                        got.append((p, n, k, s["samples"], s["min"], s["max"]))
            check("%s: %d series (pid, counter, key, samples, min, max)" % (fname, len(want)),
                  want, sorted(got))
            check("%s: summary lists %d counter series" % (fname, len(want)),
                  len(want), len(summ["counters"]))
        if fname == "spec_metadata_thread_name.json":
            want = sorted((e["pid"], e["tid"], e["args"]["name"]) for e in evs
                          if e.get("ph") == "M" and e.get("name") == "thread_name")
            got = sorted((t["pid"], t["tid"], t["name"]) for t in sl["threads"])
            check("%s: lane name from M thread_name" % fname, want, got)
    return check.done()


if __name__ == "__main__":
    sys.exit(main())
