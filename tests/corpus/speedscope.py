#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance: speedscope's Trace Event import cases (../shared/corpus/speedscope).

speedscope builds one profile per (pid, tid) and reports, per frame, a total
weight (time while the frame is anywhere on the stack, recursion once) and a
self weight (time at the top of the stack). stint's closest figures are, per
lane and name, total_ns (union of the name's spans) and self_ns (duration
minus the union of direct children): `stint summary --json --pid P --tid T`.

Frames are compared by name; speedscope keys frames by name + args, so cases
whose frames differ only by args are compared after summing speedscope's
frames per name. Every case must agree except the ones listed in
KNOWN_DIFFERENCES, each explained in docs/speedscope-differences.md; a case
listed there that starts agreeing is reported (so the list stays honest) and
fails the test too.
"""
import csv
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

from corpus_common import locate

XDUR = "an X with tdur but no dur: speedscope uses tdur as its duration, Perfetto drops it, stint keeps it with dur 0 (repair x_without_dur)"
OPEN_END = "frames still open at the end: speedscope closes them at the profile's end; stint never invents an end (dur -1, repair unfinished_span, left out of time)"
TID0 = "tid 0 is the process's main thread for stint (as in Perfetto): it shares the lane of tid = pid, where speedscope keeps a lane of its own (section 7)"
KNOWN_DIFFERENCES = {
    "importTraceEvents multiprocess [p1 (pid 1), p1t0 (tid 0)]": TID0,
    "importTraceEvents multiprocess [p1 (pid 1), p1t1 (tid 1)]": TID0,
    "importTraceEvents multiprocess [p2t0 (pid 2, tid 0)]": TID0,
    "importTraceEvents multiprocess [p3 (pid 3, tid 0)]": TID0,
    "importTraceEvents BEX interaction [pid 0, tid 0]":
        "equal-ts ties: speedscope opens B events before X events; stint follows Perfetto (X first, longest first)",
    "importTraceEvents different number of start and end calls to same function at same timestamp [pid 0, tid 0]":
        "speedscope keys frames by name + args, so nested same-name frames with different args each count their total; stint's per-name total is the union (recursion once)",
    "importTraceEvents end-non-top-of-stack [pid 0, tid 0]": OPEN_END,
    "importTraceEvents invalid x nesting [pid 0, tid 0]":
        "X [0,10) and X [5,15): speedscope stretches alpha to 15; stint keeps alpha's own end, nests beta and flags it (repair overlapping_complete)",
    "importTraceEvents not enough end events [pid 0, tid 0]": OPEN_END,
    "importTraceEvents not out-of-order unbalanced name [pid 0, tid 0]":
        "an E naming a frame below the top: speedscope ignores it and closes everything at the profile end; stint ends that B there (Perfetto's rule)",
    "importTraceEvents only begin events [pid 0, tid 0]": OPEN_END,
    "importTraceEvents partial json import [pid 0, tid 0]": XDUR,
    "importTraceEvents partial json import chunked [pid 0, tid 0]": XDUR,
    "importTraceEvents partial json import trailing comma [pid 0, tid 0]": XDUR,
    "importTraceEvents partial json import trailing comma chunked [pid 0, tid 0]": XDUR,
    "importTraceEvents partial json import whitespace padding [pid 0, tid 0]": XDUR,
    "importTraceEvents partial json import whitespace padding chunked [pid 0, tid 0]": XDUR,
    "importTraceEvents simple [pid 0, tid 0]": XDUR,
    "importTraceEvents simple object [pid 0, tid 0]": XDUR,
    "importTraceEvents unbalanced args [pid 0, tid 0]":
        "speedscope keys frames by name + args: A{x:1} and A{x:2} nest and both count; stint's per-name total is the union",
    "importTraceEvents unbalanced name [pid 0, tid 0]":
        "an E naming a frame below the top: speedscope ignores it and closes everything at the profile end; stint ends that B there (Perfetto's rule)",
}

def summary(stint, path, pid, tid):
    p = subprocess.run([stint, "summary", "--json", "--pid", str(pid), "--tid", str(tid), path],
                       capture_output=True)
    if p.returncode not in (0, 1):
        raise RuntimeError("stint summary exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)

def main():
    found = locate("speedscope")
    if not isinstance(found, tuple):
        return found
    corpus, stint = found
    want = defaultdict(lambda: defaultdict(lambda: [0, 0]))  # (test, file, profile) -> name -> [self, total]
    with open(os.path.join(corpus, "expected-frames.csv"), newline="") as f:
        for row in csv.DictReader(f):
            key = (row["test"], row["sample_file"], row["profile_name"])
            name = row["frame_name"]
            if row["frame_key"] != name or " {" in name:
                name = name.split(" {", 1)[0]  # speedscope keys by name + args; stint by name
            w = want[key][name]
            w[0] += int(float(row["self_weight_us"]) * 1000)
            w[1] += int(float(row["total_weight_us"]) * 1000)
    agree, differ, skipped = [], [], []
    for (test, sample, profile), frames in sorted(want.items()):
        path = os.path.join(corpus, sample)
        label = "%s [%s]" % (test, profile)
        if not os.path.exists(path):
            skipped.append((label, "input not in the corpus"))
            continue
        if "with samples" in test:  # (speedscope builds these from CPU samples, which stint does not read)
            skipped.append((label, "sample-based profile: stint reads trace events, not samples"))
            continue
        # the pid and tid anywhere in the name: "p2t0 (pid 2, tid 0)", "p1 (pid 1), p1t0 (tid 0)"
        mp, mt = re.search(r"\bpid (\w+)", profile), re.search(r"\btid (\w+)", profile)
        if not mp or not mt:
            skipped.append((label, "profile named by metadata, not pid/tid"))
            continue
        pid, tid = mp.group(1), mt.group(1)
        try:
            d = summary(stint, path, pid, tid)
        except Exception as e:
            differ.append((label, "stint failed: %s" % e))
            continue
        got = defaultdict(lambda: [0, 0])
        for n in d["names"]:
            g = got[n["name"] or "(unnamed)"]
            g[0] += n["self_ns"]
            g[1] += n["total_ns"]
        # speedscope lists frames with zero weight too; stint lists only names with finished spans
        w = {k: v for k, v in frames.items() if v != [0, 0]}
        g = {k: v for k, v in got.items() if v != [0, 0]}
        if w == g:
            agree.append(label)
        else:
            differ.append((label, "speedscope %s\n      stint     %s" % (dict(sorted(w.items())), dict(sorted(g.items())))))
    bad = 0
    for a in agree:
        if a in KNOWN_DIFFERENCES:
            print("NOW-AGREES %s (remove it from the known differences)" % a)
            bad += 1
        else:
            print("AGREE %s" % a)
    for l, why in skipped:
        print("SKIP %s: %s" % (l, why))
    for l, why in differ:
        if l in KNOWN_DIFFERENCES and not why.startswith("stint failed"):  # (a failure is never known)
            print("KNOWN-DIFFERENCE %s: %s" % (l, KNOWN_DIFFERENCES[l]))
        else:
            print("DIFFER %s:\n      %s" % (l, why))
            bad += 1
    print("%d agree, %d known differences, %d unexpected, %d skipped" % (
        len(agree), sum(1 for l, _ in differ if l in KNOWN_DIFFERENCES), bad, len(skipped)))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
