#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance: thread slices under Perfetto's JSON import rules for the spec
examples and the speedscope inputs
(../shared/corpus/spec-examples/derived-thread-slices-perfetto-rules.csv).

For each input, `stint slices --json` thread-track slices (pid:tid, ts, dur,
depth, name) are compared as a multiset with the derived rows. Perfetto puts
a partially overlapping X on an "overflow" track; stint keeps it nested and
flags it (repair overlapping_complete), so overflow rows are compared without
their depth. Perfetto drops an X without dur; stint keeps it (dur 0, repair
x_without_dur), so such rows are removed from stint's side before comparing.
Inputs listed in KNOWN_DIFFERENCES differ on purpose (see
docs/speedscope-differences.md); any other difference fails.
"""
import csv
import json
import os
import subprocess
import sys
from collections import defaultdict

KNOWN_DIFFERENCES = {
    "../speedscope/bex-interaction.json":
        "a B/E pair that starts inside an X and ends after it: Perfetto cuts the B at the X's end "
        "(misplaced_end_event) and drops its E; stint keeps the pair's own end and flags it overlapping",
    "../speedscope/end-non-top-of-stack.json":
        "an E that closes a B below another open B, then nothing later than it: Perfetto cuts the "
        "inner B only once an event comes after its parent's end, so it stays open; stint cuts it "
        "at the E (misplaced_end_event)",
    "../speedscope/zero-duration-events.json":
        "a zero-length B/E pair written B then E at one ts: Perfetto takes the E first (E before B at "
        "equal ts), so both stay unmatched; stint pairs them (dur 0)",
}

def main():
    shared = os.environ.get("STINT_SHARED_DIR") or os.path.join(os.path.dirname(__file__), "../../../shared")
    base = os.path.join(shared, "corpus", "spec-examples")
    stint = os.environ.get("STINT_BIN")
    csvp = os.path.join(base, "derived-thread-slices-perfetto-rules.csv")
    if not stint:
        print("STINT_BIN is not set")
        return 1
    if not os.path.exists(csvp):
        print("SKIP: %s is absent" % csvp)
        return 77
    want = defaultdict(list)
    xnodur = defaultdict(set)
    with open(csvp, newline="") as f:
        for r in csv.DictReader(f):
            if r["track_kind"] not in ("thread", "overflow"):
                if r["note"].startswith("X_without_dur"):
                    xnodur[r["file"]].add(r["note"].split(" ", 1)[1])
                continue
            depth = r["depth"] if r["track_kind"] == "thread" else "overflow"
            want[r["file"]].append((r["pid:tid"], int(r["ts_ns"]), int(r["dur_ns"]), depth, r["name"]))
    ok, bad, known, missing = [], [], [], []
    for fname in sorted(want):
        path = os.path.join(base, fname)
        if not os.path.exists(path):
            missing.append(fname)  # (said and counted below, never passed over)
            continue
        p = subprocess.run([stint, "slices", "--json", path], capture_output=True)
        if p.returncode not in (0, 1):
            bad.append((fname, "stint exited %d" % p.returncode))
            continue
        d = json.loads(p.stdout)
        got = []
        for s in d["slices"]:
            if s["track"] != "thread":
                continue
            if s["kind"] == "complete" and s["dur_ns"] == 0 and s["name"] in xnodur[fname] | ({"None"} if "None" in xnodur[fname] else set()):
                continue
            if s["kind"] == "complete" and s["dur_ns"] == 0 and "None" in xnodur[fname] and s["name"] == "":
                continue
            depth = "overflow" if s.get("overlap") else str(s["depth"])
            got.append(("%d:%d" % (s["pid"], s["tid"]), s["ts_ns"], s["dur_ns"], depth, s["name"]))
        # overflow rows: compare without depth on both sides
        w = sorted(want[fname])
        g = sorted(got)
        if w == g:
            ok.append(fname)
        elif fname in KNOWN_DIFFERENCES:
            known.append(fname)
        else:
            bad.append((fname, "perfetto %s\n      stint    %s" % (w, g)))
    for f in ok:
        if f in KNOWN_DIFFERENCES:
            bad.append((f, "now agrees: remove it from the known differences"))
        else:
            print("AGREE %s" % f)
    for f in missing:
        print("SKIP %s: the input named in the expected CSV is not in the corpus" % f)
    for f in known:
        print("KNOWN-DIFFERENCE %s: %s" % (f, KNOWN_DIFFERENCES[f]))
    for f, why in bad:
        print("DIFFER %s:\n      %s" % (f, why))
    print("%d agree, %d known differences, %d unexpected, %d skipped (input absent)" % (
        len(ok) - sum(1 for f in ok if f in KNOWN_DIFFERENCES), len(known), len(bad), len(missing)))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
