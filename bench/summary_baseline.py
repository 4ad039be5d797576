#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python baseline for bench_summary.sh: json.load the whole Chrome trace,
then the same summary computation stint does (spans = X and matched B/E on
thread tracks; per lane sum and union; per category sum and union across
lanes; per (cat, name) sum, per-lane union summed, nearest-rank p50/p90/p99).
Prints one line: spans, total sum in ns (to check it agrees with stint)."""
import json
import math
import sys
from collections import defaultdict

def union(iv):
    total, end = 0, None
    for a, b in sorted(iv):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total

def main():
    d = json.load(open(sys.argv[1]))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    lanes = defaultdict(list)
    cats = defaultdict(list)
    names = defaultdict(list)
    open_b = defaultdict(list)
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            ts = round(float(e["ts"]) * 1000)
            dur = round(float(e.get("dur", 0)) * 1000)
        elif ph == "B":
            open_b[(e.get("pid"), e.get("tid"))].append(e)
            continue
        elif ph == "E":
            st = open_b[(e.get("pid"), e.get("tid"))]
            if not st:
                continue
            b = st.pop()
            ts = round(float(b["ts"]) * 1000)
            dur = round(float(e["ts"]) * 1000) - ts
            e = b
        else:
            continue
        lane = (e.get("pid"), e.get("tid"))
        iv = (ts, ts + dur)
        lanes[lane].append(iv)
        cats[e.get("cat", "")].append(iv)
        names[(e.get("cat", ""), e.get("name", ""))].append((lane, iv))
    out = {"lanes": {}, "cats": {}, "names": {}}
    for k, v in lanes.items():
        out["lanes"][str(k)] = (len(v), sum(b - a for a, b in v), union(v))
    for k, v in cats.items():
        out["cats"][k] = (len(v), sum(b - a for a, b in v), union(v))
    for k, v in names.items():
        per = defaultdict(list)
        for lane, iv in v:
            per[lane].append(iv)
        durs = sorted(b - a for _, (a, b) in v)
        q = lambda p: durs[max(0, math.ceil(p * len(durs)) - 1)]
        out["names"][str(k)] = (len(v), sum(durs), sum(union(x) for x in per.values()), q(0.5), q(0.9), q(0.99))
    spans = sum(x[0] for x in out["lanes"].values())
    print(spans, sum(x[1] for x in out["lanes"].values()))

main()
