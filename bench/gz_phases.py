#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a `.gz` summary run spends its time, phase by phase, cold and warm.

    bench/gz_phases.py [--rounds N] [--stint BIN] [--inflate BIN] FILE.json.gz

Each round sleeps 4 s (the host takes back the memory the previous process
freed), runs `stint summary --json FILE` (cold), runs it again at once (warm),
then runs bare ISA-L inflate of the same file (bench_inflate --bare), so that
the three alternate as the machine's speed drifts. The stint runs write a
self trace (STINT_SELF_TRACE, see docs/performance.md) from which this prints
the medians and ranges of: the whole run and its ratio to bare inflate, the
read, inflating, the memory each thread faulted in, the args the inflate
thread skipped ahead, the reader's waits, the steps after the read, the walk
and the resident memory at the read's end. Never part of the tests.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def phases(path):
    d = json.load(open(path))
    names = {e["tid"]: e["args"]["name"] for e in d["traceEvents"] if e.get("ph") == "M"}
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]

    def ms(thread, name):
        return sum(e["dur"] for e in ev if e["name"] == name and names.get(e["tid"]) == thread) / 1000

    top = next(e for e in ev if e["name"].startswith("stint "))
    rd = next(e for e in ev if e["name"] == "read")
    walk = [e["dur"] / 1000 for e in ev if e["name"] == "walk tracks"]

    def cpu(name):
        return sum(e["args"].get("cpu_us", 0) for e in ev if e["name"] == name) / 1000

    return {
        "whole run": top["dur"] / 1000,
        "read": rd["dur"] / 1000,
        "read: the reader's CPU": cpu("read"),
        "inflate thread: CPU": cpu("inflate thread"),
        "inflating": ms("stint inflate", "inflate"),
        "inflate thread: faulting in": ms("stint inflate", "fault in memory"),
        "inflate thread: args ahead": ms("stint inflate", "skip args ahead"),
        "reader: waiting": ms("stint", "wait: inflate"),
        "reader: faulting in": ms("stint", "fault in memory"),
        "after the read": (top["ts"] + top["dur"] - rd["ts"] - rd["dur"]) / 1000,
        "walk (longest walker)": max(walk) if walk else 0.0,
        "walk: CPU of both": cpu("walk tracks"),
        "RSS at read end (MiB)": rd["args"].get("rss_kib", 0) / 1024,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--stint", default=os.path.join(here, "..", "build", "stint"))
    ap.add_argument("--inflate", default=os.path.join(here, "..", "build", "bench", "bench_inflate"))
    a = ap.parse_args()
    for b in (a.stint, a.inflate):
        if not os.access(b, os.X_OK):
            sys.exit("gz_phases: %s is not built" % b)
    res = {"cold": [], "warm": []}
    bare = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "self.json")
        env = dict(os.environ, STINT_SELF_TRACE=trace)
        for _ in range(a.rounds):
            time.sleep(4)
            for state in ("cold", "warm"):
                r = subprocess.run([a.stint, "summary", "--json", a.file], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                if r.returncode != 0:
                    sys.exit("gz_phases: stint exited %d: %s" % (r.returncode, r.stderr.decode()[-300:]))
                res[state].append(phases(trace))
            t = time.perf_counter()
            subprocess.run([a.inflate, "--bare", a.file], stdout=subprocess.DEVNULL, check=True)
            bare.append((time.perf_counter() - t) * 1000)
    b = statistics.median(bare)
    print("%s, %d rounds; bare ISA-L inflate %.0f ms (median; %.0f-%.0f)" % (a.file, a.rounds, b, min(bare), max(bare)))
    print("%-30s %24s %24s" % ("ms, median (range)", "cold", "warm"))
    for key in res["cold"][0]:
        cells = []
        for state in ("cold", "warm"):
            xs = [x[key] for x in res[state]]
            cells.append("%7.1f (%6.1f-%6.1f)" % (statistics.median(xs), min(xs), max(xs)))
        print("%-30s %24s %24s" % (key, cells[0], cells[1]))
    for state in ("cold", "warm"):
        print("%s: whole run / bare inflate = %.2fx" % (state, statistics.median(x["whole run"] for x in res[state]) / b))


if __name__ == "__main__":
    main()
