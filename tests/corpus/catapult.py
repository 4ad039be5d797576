#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance: catapult's sample traces (../shared/corpus/catapult/*.json).

The folder has no expected outputs, so each file's expected figures are
computed here, independently of stint, from the JSON itself:
- every file is read by `stint summary` and `stint slices` with exit 0;
- thread-track slices: every X, and every B matched to its E (per pid and
  tid, by ts then file order; an E closes the innermost open B with the same
  name and cat, or the innermost B when its name is empty), as a multiset of
  (pid, tid, ts_ns, dur_ns, cat, name); a B never closed has dur -1. ts and
  dur are read as decimal text (us) and scaled to ns exactly, never through
  a float, so 3.011 us is 3011 ns;
- per name, the sum of finished durations in ns;
- on lanes with only B/E, each slice's depth (open Bs under it);
- unclosed Bs: the count the README's census states, stint's dur -1 rows, and
  summary's repairs.unfinished_span (files without async events);
- M thread_name / process_name as stint's thread and process names;
- C events: per series (pid, name, id, arg key) the sample count, min and max;
- i/I events: one instant each.
A lane where an E closes a B below the top of its stack is not modelled
(the rule for the Bs above it is stint's choice) and is said so.
"""
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from decimal import Decimal

from corpus_common import Checker, locate

ASYNC_PH = set("bneSTFp")


def ns(v):
    """us (JSON number or string, parsed as Decimal) -> int ns, or None if not whole."""
    x = Decimal(str(v)) * 1000
    return int(x) if x == x.to_integral_value() else None


def model(events):
    """Thread slices, depths, unclosed Bs and lanes not modelled, from raw events."""
    lanes = defaultdict(list)
    for i, e in enumerate(events):
        if e.get("ph") in ("B", "E", "X"):
            pid = e.get("pid")
            tid = e.get("tid")
            if tid in (0, None):
                tid = pid
            lanes[(pid, tid)].append((i, e))
    slices, depth_of, unmodelled, unclosed = [], {}, [], 0
    for lane, evs in lanes.items():
        has_x = any(e["ph"] == "X" for _, e in evs)
        for _, e in evs:
            if e["ph"] == "X":
                slices.append(lane + (ns(e["ts"]), ns(e.get("dur", 0)), e.get("cat", ""),
                                      e.get("name", "")))
        be = sorted(((ns(e["ts"]), i, e) for i, e in evs if e["ph"] in "BE"),
                    key=lambda t: (t[0], t[1]))
        stack, lane_slices, ok = [], [], True
        for ts, _, e in be:
            if e["ph"] == "B":
                stack.append((ts, e, len(stack)))
                continue
            name, cat = e.get("name", ""), e.get("cat", "")
            k = len(stack) - 1
            if name:
                while k >= 0 and (stack[k][1].get("name", "") != name
                                  or (cat and stack[k][1].get("cat", "") != cat)):
                    k -= 1
            if k < 0:
                continue  # an E that closes nothing
            if k != len(stack) - 1:
                ok = False
            bts, b, d = stack.pop(k)
            lane_slices.append((lane + (bts, ts - bts, b.get("cat", ""), b.get("name", "")), d))
        for bts, b, d in stack:
            lane_slices.append((lane + (bts, -1, b.get("cat", ""), b.get("name", "")), d))
            unclosed += 1
        if not ok:
            unmodelled.append(lane)
            continue
        for s, d in lane_slices:
            slices.append(s)
            if not has_x:
                depth_of.setdefault(s, []).append(d)
    return slices, depth_of, unmodelled, unclosed


def run(stint, *args):
    p = subprocess.run([stint] + list(args), capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def main():
    found = locate("catapult")
    if not isinstance(found, tuple):
        return found
    base, stint = found
    census = {}  # file -> number of B without E, from the README's table
    with open(os.path.join(base, "README.md")) as f:
        for line in f:
            m = re.match(r"\| `([^`]+\.json)` .*\b(\d+) B without E", line)
            if m:
                census[m.group(1)] = int(m.group(2))
    check = Checker(width=600)

    files = sorted(f for f in os.listdir(base) if f.endswith(".json"))
    for fname in files:
        path = os.path.join(base, fname)
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"), parse_float=Decimal)
        events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
        rc_s, out_s, err_s = run(stint, "summary", "--json", path)
        rc_l, out_l, err_l = run(stint, "slices", "--json", path)
        check("%s: stint summary exit code" % fname, 0, rc_s)
        check("%s: stint slices exit code" % fname, 0, rc_l)
        if rc_s not in (0, 1) or rc_l not in (0, 1):
            print("      stderr: %s" % (err_s or err_l)[:300])
            continue
        summ, sl = json.loads(out_s), json.loads(out_l)
        want, depth_of, unmodelled, unclosed = model(events)
        for lane in unmodelled:
            print("note %s: lane %s has an E below the top of its stack: not modelled"
                  % (fname, lane))
        want = [s for s in want if s[:2] not in unmodelled]
        got, got_depth = [], {}
        for s in sl["slices"]:
            if s["track"] != "thread" or s["kind"] not in ("complete", "begin_end"):
                continue
            if (s["pid"], s["tid"]) in unmodelled:
                continue
            t = (s["pid"], s["tid"], s["ts_ns"], s["dur_ns"], s["cat"], s["name"])
            got.append(t)
            got_depth.setdefault(t, []).append(s["depth"])
        check("%s: %d thread slices (X and B/E) as (pid, tid, ts_ns, dur_ns, cat, name)"
              % (fname, len(want)), sorted(Counter(want).items()), sorted(Counter(got).items()))
        wsum, gsum = Counter(), Counter()
        for s in want:
            if s[3] >= 0:
                wsum[s[5]] += s[3]
        for s in got:
            if s[3] >= 0:
                gsum[s[5]] += s[3]
        check("%s: per-name sum of finished durations (%d names)" % (fname, len(wsum)),
              dict(sorted(wsum.items())), dict(sorted(gsum.items())))
        if depth_of:
            wd = {k: sorted(v) for k, v in depth_of.items()}
            gd = {k: sorted(got_depth.get(k, [])) for k in depth_of}
            check("%s: depth of %d B/E slices (max %d)" % (
                fname, sum(map(len, wd.values())), max(max(v) for v in wd.values())),
                sorted(wd.items()), sorted(gd.items()))
        g_unf = sum(1 for s in got if s[3] == -1)
        check("%s: unclosed B slices listed with dur -1" % fname, unclosed, g_unf)
        if fname in census:
            check("%s: README census of B without E" % fname, census[fname], unclosed)
        if not any(e.get("ph") in ASYNC_PH for e in events):
            check("%s: summary repairs.unfinished_span" % fname, unclosed,
                  summ["repairs"].get("unfinished_span", 0))
        # metadata names
        wt, wp = {}, {}
        for e in events:
            if e.get("ph") == "M" and e.get("name") == "thread_name":
                tid = e.get("tid") or e.get("pid")
                wt[(e.get("pid"), tid)] = e.get("args", {}).get("name")
            if e.get("ph") == "M" and e.get("name") == "process_name":
                wp[e.get("pid")] = e.get("args", {}).get("name")
        if wt:
            gt = {(t["pid"], t["tid"]): t["name"] for t in sl["threads"]}
            check("%s: %d thread names (M thread_name)" % (fname, len(wt)),
                  sorted(wt.items()), sorted((k, gt.get(k)) for k in wt))
        if wp:
            gp = {p["pid"]: p["name"] for p in sl["processes"]}
            check("%s: %d process names (M process_name)" % (fname, len(wp)),
                  sorted(wp.items()), sorted((k, gp.get(k)) for k in wp))
        # counters: one series per (pid, name, id, arg key)
        series = defaultdict(list)
        for e in events:
            if e.get("ph") == "C":
                for k, v in (e.get("args") or {}).items():
                    if isinstance(v, (int, Decimal)) and not isinstance(v, bool):
                        series[(e.get("pid"), e.get("name"), e.get("id"), k)].append(Decimal(v))
        if series:
            rc, out, err = run(stint, "counters", "--json", path)
            check("%s: stint counters exit code" % fname, 0, rc)
            if rc in (0, 1):
                ws = sorted((len(v), float(min(v)), float(max(v))) for v in series.values())
                gs = sorted((s["samples"], float(s["min"]), float(s["max"]))
                            for s in json.loads(out)["series"])
                check("%s: %d counter series as (samples, min, max)" % (fname, len(ws)), ws, gs)
        # instants i/I (files with sample events P keep those as instants too)
        if not any(e.get("ph") == "P" for e in events):
            wi = sum(1 for e in events if e.get("ph") in ("i", "I"))
            gi = sum(1 for s in sl["slices"]
                     if s["kind"] == "instant" and s["track"] in ("thread", "process", "global"))
            check("%s: %d i/I instants" % (fname, wi), wi, gi)
    return check.done()


if __name__ == "__main__":
    sys.exit(main())
