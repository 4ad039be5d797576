# SPDX-License-Identifier: MIT
"""Independent checks of the call tree that stint rebuilds from a marker log's
depth, and of each invocation's device window.

Usage: markers_depth_oracle.py STINT MODE LOG...
  MODE demo:  the demo's log: no repair; `tree` has every device phase once
              under device_wall and graph_build's self time equal to its
              duration; `summary --json` device windows (device wall, union
              of phases, concurrent window, orch U sched, host wall) equal
              the ones computed here from the records; `timing --json` the
              same per invocation.
  MODE trees: each log gives the same tree here, in `slices` (parent
              column), `tree` (paths, calls, self), `summary` (self per name)
              and `timing --tree=depth` (the last invocation of each callable).
  MODE contra: a log whose depth contradicts containment: the depth tree is
              kept and one depth_outside_parent repair is counted.

The tree here: within one (pid, tid, inv) and one clock, a record at depth d
is the child of the record at depth d - 1 that encloses it in the log: read
post-order (written at span end: the parent comes after its children) and
parent-first; the reading whose links a parent contains in time more often
wins, all its links kept (host: post-order on a tie,
device: parent-first). Self time = duration minus the union of the direct
children clipped to the span. Exit 0 when all agree, 1 with the differences.
"""
import json
import re
import subprocess
import sys
from collections import defaultdict

REC = re.compile(rb"\[STRACE\] v=1 pid=(\d+) tid=(\d+) inv=(\d+) hid=([0-9A-Fa-f]+) depth=(\d+) "
                 rb"name=(\S+) ts=(\d+) dur=(\d+)([^\n\[]*)")
FAIL = []


def check(what, got, want):
    if got != want:
        FAIL.append("%s: got %r, want %r" % (what, got, want))


def records(path):
    out = []
    for k, m in enumerate(REC.finditer(open(path, "rb").read())):
        pid, tid, inv, hid, depth, name, ts, dur, attrs = m.groups()
        dev = b"clk=dev" in attrs.split()
        out.append(dict(pid=int(pid), tid=int(tid), inv=int(inv), hid=hid.decode(), depth=int(depth),
                        name=name.decode(), ts=int(ts), end=int(ts) + int(dur), dev=dev, order=k, parent=None))
    return out


def within(p, c):
    return p["ts"] <= c["ts"] and c["end"] <= p["end"]


def link(recs):
    groups = defaultdict(list)
    for r in recs:
        groups[(r["pid"], r["tid"], r["inv"], r["dev"])].append(r)
    for key, g in groups.items():
        post, pre, stk, npost, npre = [None] * len(g), [None] * len(g), [], 0, 0
        for k, r in enumerate(g):
            while stk and g[stk[-1]]["depth"] > r["depth"]:
                j = stk.pop()
                if g[j]["depth"] == r["depth"] + 1:
                    post[j] = k
                    npost += within(r, g[j])
            stk.append(k)
        stk = []
        for k, r in enumerate(g):
            while stk and g[stk[-1]]["depth"] >= r["depth"]:
                stk.pop()
            if stk and r["depth"] and g[stk[-1]]["depth"] == r["depth"] - 1:
                pre[k] = stk[-1]
                npre += within(g[stk[-1]], r)
            stk.append(k)
        win = pre if npre > npost or (npre == npost and key[3]) else post
        for k, r in enumerate(g):
            r["parent"] = g[win[k]] if win[k] is not None else None
    return recs


def union(ivs):
    tot, end = 0, None
    for a, b in sorted(ivs):
        if b <= a:
            continue
        if end is None or a > end:
            tot, end = tot + b - a, b
        elif b > end:
            tot, end = tot + b - end, b
    return tot


def path(r):
    p = []
    while r is not None:
        p.append(r["name"])
        r = r["parent"]
    return tuple(reversed(p))


def self_ns(recs):
    kids = defaultdict(list)
    for r in recs:
        if r["parent"] is not None:
            p = r["parent"]
            kids[id(p)].append((max(r["ts"], p["ts"]), min(r["end"], p["end"])))
    return {id(r): (r["end"] - r["ts"]) - union(kids[id(r)]) for r in recs}


def stint(args, *more):
    p = subprocess.run([args[0]] + list(more), capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def tree_paths(nodes, prefix=()):
    for n in nodes:
        p = prefix + (n["name"],)
        yield p, n
        yield from tree_paths(n["children"], p)


def check_trees(argv, log):
    recs = link(records(log))
    selfs = self_ns(recs)
    rc, out, err = stint(argv, "slices", "--json", log)
    sl = json.loads(out)["slices"]
    check(log + ": slices count", len(sl), len(recs))
    # slices: each row's parent chain, against the records' (matched by clock, pid, ts, dur, name, inv)
    def key_of(clock, pid, ts, dur, name, inv):
        return (clock, pid, ts, dur, name, inv)
    rows = {}
    for s in sl:
        inv = next(a["value"] for a in s["args"] if a["key"] == "args.inv")
        rows[s["row"]] = s
        s["_inv"] = inv
    got = defaultdict(int)
    for s in sl:
        p, r = [], s
        while r is not None:
            p.append(r["name"])
            r = rows[r["parent"]] if r["parent"] is not None else None
        got[(s.get("clock", "host"), s["pid"], s["_inv"], tuple(reversed(p)))] += 1
    want = defaultdict(int)
    for r in recs:
        want[("device" if r["dev"] else "host", r["pid"], r["inv"], path(r))] += 1
    check(log + ": slices parent chains", dict(got), dict(want))
    # tree: calls and self per path and clock
    rc, out, err = stint(argv, "tree", "--json", log)
    t = json.loads(out)
    got = {}
    for clock in ("host", "device"):
        for p, n in tree_paths(t[clock]):
            got[(clock, p)] = (n["calls"], n["self_ns"])
    want = defaultdict(lambda: [0, 0])
    for r in recs:
        w = want[("device" if r["dev"] else "host", path(r))]
        w[0] += 1
        w[1] += selfs[id(r)]
    check(log + ": tree calls and self", got, {k: tuple(v) for k, v in want.items()})
    # summary: self per (name, clock)
    rc, out, err = stint(argv, "summary", "--json", log)
    got = {(n["name"], n["clock"]): n["self_ns"] for n in json.loads(out)["names"]}
    want = defaultdict(int)
    for r in recs:
        want[(r["name"], "device" if r["dev"] else "host")] += selfs[id(r)]
    check(log + ": summary self", got, dict(want))
    # timing --tree=depth: the last invocation of each callable, the same shape (its Effective line
    # stands for orch and sched; its device wall hangs under the host span that ran it, which
    # stint keeps apart: the device tree is the invocation's device lane)
    rc, out, err = stint(argv, "timing", "--tree=depth", "--json", log)
    invs = defaultdict(list)
    for r in recs:
        invs[(r["pid"], r["inv"])].append(r)
    for cb in json.loads(out)["callables"]:
        got = set()
        def walk(nodes, prefix, dev_prefix):
            for n in nodes:
                if n["name"] == "Effective":
                    base = prefix[-1]
                    for leaf in ("orch", "sched"):
                        got.add(dev_prefix + (base + "." + leaf,) if dev_prefix else prefix + (base + "." + leaf,))
                    continue
                if n["dev"] and not dev_prefix:
                    dp = (n["name"],)
                    got.add(dp)
                    walk(n["children"], prefix + (n["name"],), dp)
                    continue
                p = prefix + (n["name"],)
                got.add(dev_prefix + (n["name"],) if dev_prefix else p)
                walk(n["children"], p, dev_prefix + (n["name"],) if dev_prefix else ())
        walk(cb["nodes"], (), ())
        mine = [k for k, v in invs.items() if v[0]["hid"].lower() == cb["hid"].lower()]
        last = sorted(mine, key=lambda k: (k[1], k[0]))[-1] if mine else None
        want = {path(r) for r in invs.get(last, [])}
        check(log + ": timing --tree=depth " + cb["hid"], got, want)


def check_demo(argv, log):
    recs = link(records(log))
    rc, out, err = stint(argv, "summary", "--json", log)
    check("demo: summary stderr", err, "")
    s = json.loads(out)
    check("demo: summary repairs", s["repairs"], {})
    rc, out, err = stint(argv, "tree", "--json", log)
    check("demo: tree stderr", err, "")
    dev = json.loads(out)["device"]
    check("demo: device roots", [n["name"] for n in dev], ["simpler_run.runner_run.device_wall"])
    phases = sorted(n["name"].rsplit(".", 1)[1] for n in dev[0]["children"])
    check("demo: device phases", phases, sorted(["preamble", "so_load", "graph_build", "config_validate",
                                                  "arena_wire", "sm_reset", "orch", "sched", "post_orch"]))
    check("demo: phases have no children", [n["children"] for n in dev[0]["children"]], [[]] * 9)
    gb = [n for n in dev[0]["children"] if n["name"].endswith(".graph_build")][0]
    check("demo: graph_build self == total", gb["self_ns"], gb["total_ns"])
    # the device window of each invocation, from the records
    want = {}
    for key in sorted({(r["pid"], r["inv"]) for r in recs if r["dev"]}):
        d = [r for r in recs if r["dev"] and (r["pid"], r["inv"]) == key]
        roots = [r for r in d if r["parent"] is None]
        ph = [r for r in d if r["parent"] is not None and r["parent"]["parent"] is None]
        iv = [(r["ts"], r["end"]) for r in ph]
        conc = [a for i, a in enumerate(iv) if any(j != i and min(a[1], b[1]) > max(a[0], b[0])
                                                   for j, b in enumerate(iv))]
        o = [r for r in ph if r["name"].endswith(".orch")][:1]
        sc = [r for r in ph if r["name"].endswith(".sched")][:1]
        host = [r["end"] - r["ts"] for r in recs if not r["dev"] and r["depth"] == 0 and
                (r["pid"], r["inv"], r["tid"]) == (key[0], key[1], d[0]["tid"])]
        want[key] = dict(device_wall_ns=union([(r["ts"], r["end"]) for r in roots]), phases_ns=union(iv),
                         concurrent_ns=union(conc),
                         orch_sched_ns=union([(o[0]["ts"], o[0]["end"]), (sc[0]["ts"], sc[0]["end"])])
                         if o and sc else None, host_wall_ns=max(host) if host else None,
                         phases=len(ph), concurrent_siblings=len(conc))
    got = {}
    for v in s.get("device_windows", {}).get("invocations", []):
        got[(v["pid"], v["inv"])] = {k: v[k] for k in want[next(iter(want))]}
    check("demo: summary device windows", got, want)
    check("demo: orch and sched overlap in every invocation",
          all(w["orch_sched_ns"] is not None and w["concurrent_siblings"] >= 2 for w in want.values()), True)
    rc, out, err = stint(argv, "timing", "--json", log)
    for cb in json.loads(out)["callables"]:
        keys = [(r["pid"], r["inv"]) for r in cb["rounds"]]
        check("demo: timing orch_sched " + cb["hid"], cb["device_window"]["orch_sched_us"],
              [want[k]["orch_sched_ns"] / 1000 if k in want else None for k in keys])
        check("demo: timing phases " + cb["hid"], cb["device_window"]["phases_us"],
              [want[k]["phases_ns"] / 1000 if k in want else None for k in keys])


def check_contra(argv, log):
    recs = link(records(log))
    bad = [r for r in recs if r["parent"] is not None and
           (r["ts"] < r["parent"]["ts"] or r["end"] > r["parent"]["end"])]
    rc, out, err = stint(argv, "slices", "--json", log)
    sl = json.loads(out)["slices"]
    parent_of = {s["name"]: (sl[s["parent"]]["name"] if s["parent"] is not None else None) for s in sl}
    check("contra: parents", parent_of, {r["name"]: r["parent"]["name"] if r["parent"] else None for r in recs})
    rc, out, err = stint(argv, "summary", "--json", log)
    check("contra: repairs", json.loads(out)["repairs"], {"depth_outside_parent": len(bad)})
    check("contra: first one named", "'%s' (depth %d)" % (bad[0]["name"], bad[0]["depth"]) in err, True)
    rc, out, err = stint(argv, "summary", "--strict", log)
    check("contra: --strict exit", rc, 1)
    check("contra: --strict names it", "depth_outside_parent" in err, True)


def main():
    argv, mode, logs = [sys.argv[1]], sys.argv[2], sys.argv[3:]
    for log in logs:
        {"demo": check_demo, "trees": check_trees, "contra": check_contra}[mode](argv, log)
    for f in FAIL:
        print("FAIL:", f)
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
