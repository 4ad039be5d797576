#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent oracle for `stint top --once --json`, written from the
rules in docs/cli/top.md (not from the C code): exact integers of ns.

usage: top_oracle.py LOG WINDOW_NS BY STINT_JSON [LOG WINDOW_NS BY STINT_JSON ...]
Reads the marker log itself (one record per line, no torn ones), computes
every figure of the groups of BY (name or lane), the lanes and the TPOT,
and compares them with what stint printed: counts, means and maxima
exactly, quantiles within the sketch's 1% (+1 ns), rates and busy shares to
the printed digits. Prints the differences and exits 1 on any.
"""
import json
import re
import sys

REC = re.compile(r"\[STRACE\] v=1 pid=(\d+) tid=(\d+) inv=(\d+) hid=([0-9a-fA-F]+) depth=(\d+) "
                 r"name=(\S+) ts=(\d+) dur=(\d+)")
SLICES = 10


def one(log, window_ns, by, got_path):
    window_ns = int(window_ns)
    spans = []
    for line in open(log):
        m = REC.search(line)
        if m:
            pid, tid, inv, hid, depth, name, ts, dur = m.groups()
            spans.append(dict(pid=int(pid), tid=int(tid), hid=int(hid, 16), depth=int(depth), name=name,
                              ts=int(ts), dur=int(dur)))
    got = json.load(open(got_path))
    slice_ns = window_ns // SLICES
    now = max(s["ts"] + s["dur"] for s in spans)
    first = min(s["ts"] for s in spans)
    now_k = now // slice_ns
    wstart = (now_k - SLICES + 1) * slice_ns
    covered = now - max(first, wstart)
    since = now - first
    errs = []

    def check(what, a, b, ok):
        if not ok:
            errs.append("%s: stint %r, oracle %r" % (what, a, b))

    def figs(durs, span, where, fig):
        durs = sorted(durs)
        n = len(durs)
        check(where + " calls", fig["calls"], n, fig["calls"] == n)
        if not n:
            return
        rate = n * 1e9 / span if span > 0 else 0
        check(where + " calls/s", fig["calls_per_s"], rate, abs(fig["calls_per_s"] - rate) <= 0.0005 + 1e-9 * rate)
        check(where + " mean", fig["mean_ns"], sum(durs) // n, fig["mean_ns"] == sum(durs) // n)
        check(where + " max", fig["max_ns"], durs[-1], fig["max_ns"] == durs[-1])
        for q, key in ((0.5, "p50_ns"), (0.9, "p90_ns"), (0.99, "p99_ns")):
            want = durs[int(q * (n - 1))]
            check(where + " " + key, fig[key], want, abs(fig[key] - want) <= 0.01 * want + 1)

    def in_window(s):
        return (s["ts"] + s["dur"]) // slice_ns > now_k - SLICES

    def key_of(s, b):
        return s["name"] if b == "name" else "%d/%d" % (s["pid"], s["tid"])

    def groups(b, rows):
        keys = sorted({key_of(s, b) for s in spans})
        check(b + " group count", len(rows), len(keys), len(rows) == len(keys))
        byk = {r["key"]: r for r in rows}
        for k in keys:
            r = byk.get(k)
            if r is None:
                errs.append("group %s missing" % k)
                continue
            mine = [s for s in spans if key_of(s, b) == k]
            figs([s["dur"] for s in mine if in_window(s)], covered, k + " window", r["window"])
            figs([s["dur"] for s in mine], since, k + " since start", r["since_start"])
            if b == "lane":
                top = [s for s in mine if s["depth"] == 0]
                bw = sum(max(0, s["ts"] + s["dur"] - max(s["ts"], wstart)) for s in top)
                ba = sum(s["dur"] for s in top)
                for fig, busy, span in ((r["window"], bw, covered), (r["since_start"], ba, since)):
                    want = min(100.0, 100.0 * busy / span) if span > 0 else 0
                    check(k + " busy%", fig["busy_pct"], want, abs(fig["busy_pct"] - want) <= 0.0051)

    groups(by, got["groups"])
    groups("lane", got["lanes"])
    roots = {}
    for s in spans:
        if s["depth"] == 0:
            roots.setdefault(s["hid"], []).append(s)
    hid = min(roots, key=lambda h: (-len(roots[h]), h))
    tp = got["tpot"]
    check("tpot hid", tp["hid"], "0x%016x" % hid, tp["hid"] == "0x%016x" % hid)
    figs([s["dur"] for s in roots[hid] if in_window(s)], covered, "tpot window", tp["window"])
    figs([s["dur"] for s in roots[hid]], since, "tpot since start", tp["since_start"])
    check("spans", got["counts"]["spans"], len(spans), got["counts"]["spans"] == len(spans))
    check("covered", got["covered_ns"], covered, got["covered_ns"] == covered)
    for e in errs[:40]:
        print(e)
    if errs:
        print("%d difference(s) in %s (window %d, by %s)" % (len(errs), log, window_ns, by))
        return 1
    print("ok: %s, %d spans, window %d ns, by %s" % (log, len(spans), window_ns, by))
    return 0


def main():
    a = sys.argv[1:]
    if not a or len(a) % 4:
        sys.exit(__doc__)
    rc = 0
    for i in range(0, len(a), 4):
        rc |= one(*a[i:i + 4])
    return rc


if __name__ == "__main__":
    sys.exit(main())
