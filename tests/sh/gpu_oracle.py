#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent oracle for `stint gpu --json --top 0`, written from the
definitions in docs/cli/gpu.md (not from the C code): exact integers of ns,
timestamps parsed as decimal text.

usage: gpu_oracle.py STINT_JSON FILE... [--step GLOB]
Reads the traces itself, computes every figure, and compares with the JSON
stint printed; prints the differences and exits 1 on any, else prints a
one-line summary and exits 0.
"""
import fnmatch
import gzip
import json
import sys
from decimal import Decimal

WORK_CATS = {"kernel": "k", "gpu_memcpy": "c", "gpu_memset": "c", "memcpy": "c", "memset": "c",
             "mtia_ccp_events": "m"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "runtime", "mtia_runtime"}
OP_CATS = {"cpu_op", "operator"}
COMM_WORDS = ["nccl", "rccl", "allreduce", "all_reduce", "all-reduce", "allgather", "all_gather", "all-gather",
              "reducescatter", "reduce_scatter", "reduce-scatter", "broadcast", "sendrecv", "send_recv",
              "send-recv", "alltoall", "all_to_all", "all-to-all"]
LAUNCH_WORDS = ["launch", "memcpy", "memset", "runfunction"]


def ns(v):
    """Microseconds (decimal text or int) -> int ns, truncated toward zero."""
    return int(Decimal(str(v)) * 1000)


def load(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    if isinstance(doc, list):
        return doc, {}
    return doc.get("traceEvents", []), doc


def lower(s):
    return s.lower() if isinstance(s, str) else ""


def rank_q(sorted_v, pct):
    """Nearest rank: the value at rank ceil(pct * n / 100)."""
    n = len(sorted_v)
    r = (pct * n + 99) // 100
    return sorted_v[max(r, 1) - 1]


def union(iv):
    """Merged disjoint intervals of iv (touching ones merge)."""
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def clip(u, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in u)


def inter(u, v):
    return sum(clip(v, s, e) for s, e in u)


def overlaps(t0, t1, ts, dur):
    end = ts + dur
    return not (ts >= t1 or end < t0 or (end == t0 and dur > 0))


def lane_of(e):
    """(pid, tid) of an event; a tid of 0 is the process's main thread, its
    pid (Perfetto's rule, which stint's reader follows)."""
    tid = e.get("tid")
    return (e.get("pid"), e.get("pid") if tid == 0 and not isinstance(tid, bool) else tid)


class File:
    def __init__(self, idx, path, t0, t1, glob):
        self.path = path
        evs, doc = load(path)
        di = doc.get("distributedInfo") if isinstance(doc, dict) else None
        self.rank = di["rank"] if isinstance(di, dict) and isinstance(di.get("rank"), int) else idx
        pname, tname = {}, {}
        for e in evs:
            if e.get("ph") == "M" and e.get("name") == "process_name":
                pname[e.get("pid")] = e.get("args", {}).get("name", "")
            if e.get("ph") == "M" and e.get("name") == "thread_name":
                tname[lane_of(e)] = e.get("args", {}).get("name", "")
        self.tname = tname
        xs = []
        for i, e in enumerate(evs):
            if e.get("ph") != "X" or "dur" not in e or "ts" not in e:
                continue
            xs.append((ns(e["ts"]), ns(e["dur"]), i, e))
        self.work, self.calls, self.ops, self.steps_raw, self.enc = [], [], {}, [], None
        work_lanes = set()
        self.workcorr = set()
        for ts, dur, i, e in xs:
            cat = lower(e.get("cat"))
            lane = lane_of(e)
            kind = WORK_CATS.get(cat)
            if kind is None and str(pname.get(e.get("pid"), "")).startswith("/device:GPU:") and \
                    str(tname.get(lane, "")).startswith("Stream") and cat != "gpu_user_annotation":
                kind = "k"
            if kind is None:
                continue
            work_lanes.add(lane)
            corr = e.get("args", {}).get("correlation")
            if not isinstance(corr, int) or isinstance(corr, bool):
                corr = None
            if corr is not None:
                self.workcorr.add(corr)
            if not overlaps(t0, t1, ts, dur):
                continue
            name = e.get("name", "")
            lname = name.lower()
            if kind == "c" or (kind == "m" and name == "dma_request"):
                cls = "memory"
            elif any(w in lname for w in COMM_WORDS):
                cls = "communication"
            else:
                cls = "compute"
            self.work.append(dict(ts=ts, dur=dur, c0=max(ts, t0), c1=min(ts + dur, t1), dev=e["pid"],
                                  stream=lane[1], lane=lane, name=name, cls=cls, corr=corr))
        for ts, dur, i, e in xs:
            cat = lower(e.get("cat"))
            lane = lane_of(e)
            if cat in RUNTIME_CATS:
                corr = e.get("args", {}).get("correlation")
                if not isinstance(corr, int) or isinstance(corr, bool):
                    corr = None
                self.calls.append(dict(ts=ts, dur=dur, i=i, lane=lane, name=e.get("name", ""), corr=corr))
            elif cat in OP_CATS:
                self.ops.setdefault(lane, []).append(dict(ts=ts, dur=dur, i=i, name=e.get("name", "")))
            if lane not in work_lanes and cat != "gpu_user_annotation" and \
                    fnmatch.fnmatchcase(e.get("name", ""), glob) and overlaps(t0, t1, ts, dur):
                self.steps_raw.append((ts, -dur, i, e.get("name", ""), dur))
        self.steps_raw.sort()

    def enclosing(self, call):
        """Innermost and outermost cpu_op on the call's thread enclosing it
        (start <= the call's start, end >= the call's end)."""
        if self.enc is None:
            self.enc = {}
            for lane, ops in self.ops.items():
                # a sweep in start order; an op leaves the stack once an item
                # ends after it (well-nested threads: it encloses nothing later)
                items = [(o["ts"], -o["dur"], 0, o["i"], o) for o in ops]
                items += [(c["ts"], -c["dur"], 1, c["i"], c) for c in self.calls if c["lane"] == lane]
                items.sort(key=lambda t: t[:4])
                stack = []
                for ts, nd, is_call, i, it in items:
                    end = ts - nd
                    while stack and stack[-1]["ts"] + stack[-1]["dur"] < end:
                        stack.pop()
                    if is_call:
                        enc = [o for o in stack if o["ts"] <= ts and o["ts"] + o["dur"] >= end]
                        if enc:
                            self.enc[i] = (enc[-1], enc[0])
                    else:
                        stack.append(it)
        return self.enc.get(call["i"], (None, None))


def compute(paths, glob, t0, t1):
    files = [File(i, p, t0, t1, glob) for i, p in enumerate(paths)]
    multi = len(files) > 1
    out = {"devices": [], "streams": []}
    kern, delays, sites, ops = {}, [], {}, {}
    linked = unl_k = unl_l = 0
    steps, fu = [], []
    for fi, f in enumerate(files):
        devs = sorted({w["dev"] for w in f.work})
        for d in devs:
            ws = [w for w in f.work if w["dev"] == d]
            w0 = t0 if t0 != -2**63 else min(w["ts"] for w in ws)
            w1 = t1 if t1 != 2**63 - 1 else max(w["ts"] + w["dur"] for w in ws)
            u = {c: union([(w["c0"], w["c1"]) for w in ws if w["cls"] == c])
                 for c in ("compute", "communication", "memory")}
            busy = length(union([(w["c0"], w["c1"]) for w in ws]))
            lanes = sorted({w["lane"] for w in ws}, key=str)
            row = dict(device=d, streams=len(lanes), window_ns=w1 - w0, busy_ns=busy, idle_ns=w1 - w0 - busy,
                       compute_ns=length(u["compute"]), communication_ns=length(u["communication"]),
                       memory_ns=length(u["memory"]), overlap_ns=inter(u["communication"], u["compute"]),
                       utilization=float("%.6f" % (busy / (w1 - w0))) if w1 > w0 else 0.0)
            if multi:
                row["rank"] = f.rank
            out["devices"].append(row)
            for ln in lanes:
                lw = [w for w in ws if w["lane"] == ln]
                sb = length(union([(w["c0"], w["c1"]) for w in lw]))
                sname = f.tname.get(ln, ln[1] if isinstance(ln[1], str) else "")
                srow = dict(device=d, stream=ln[1], name=sname,
                            kernels=sum(1 for w in lw if w["cls"] != "memory"), busy_ns=sb, idle_ns=w1 - w0 - sb)
                if multi:
                    srow["rank"] = f.rank
                out["streams"].append(srow)
        for w in f.work:
            kern.setdefault((w["name"], w["cls"]), []).append(w["dur"])
        # launch links: the earliest call carrying each correlation
        first = {}
        for c in sorted(f.calls, key=lambda c: (c["ts"], -c["dur"], c["i"])):
            if c["corr"] is not None and c["corr"] not in first:
                first[c["corr"]] = c
            if any(wd in c["name"].lower() for wd in LAUNCH_WORDS) and overlaps(t0, t1, c["ts"], c["dur"]) and \
                    (c["corr"] is None or c["corr"] not in f.workcorr):
                unl_l += 1
        seen_call, credited = set(), set()
        for w in f.work:
            c = first.get(w["corr"]) if w["corr"] is not None else None
            if c is None:
                unl_k += 1
                continue
            linked += 1
            delay = w["ts"] - c["ts"]
            delays.append(delay)
            inner, top = f.enclosing(c)
            sname = inner["name"] if inner else "(no op)"
            s = sites.setdefault(sname, [0, 0, None])
            s[0] += 1
            s[1] += delay
            s[2] = delay if s[2] is None else max(s[2], delay)
            first_of_call = c["i"] not in seen_call
            seen_call.add(c["i"])
            for op in ([inner] if inner else []) + ([top] if top is not None and top is not inner else []):
                r = ops.setdefault(op["name"], [0, 0, 0, 0])
                r[0] += first_of_call
                r[1] += 1
                r[2] += w["dur"]
                if (fi, op["i"]) not in credited:
                    credited.add((fi, op["i"]))
                    r[3] += op["dur"]
        # steps: the file's unions over all its devices, clipped to each step
        fa = union([(w["c0"], w["c1"]) for w in f.work])
        fc = {c: union([(w["c0"], w["c1"]) for w in f.work if w["cls"] == c])
              for c in ("compute", "communication", "memory")}
        for ts, _, _, name, dur in f.steps_raw:
            b = clip(fa, ts, ts + dur)
            row = dict(name=name, ts_ns=ts, wall_ns=dur, busy_ns=b, idle_ns=dur - b,
                       compute_ns=clip(fc["compute"], ts, ts + dur),
                       communication_ns=clip(fc["communication"], ts, ts + dur),
                       memory_ns=clip(fc["memory"], ts, ts + dur))
            if multi:
                row["rank"] = f.rank
            steps.append(row)
        fu.append(fa)
    out["kernels"] = []
    for (name, cls), v in kern.items():
        v.sort()
        out["kernels"].append(dict(name=name, **{"class": cls}, count=len(v), sum_ns=sum(v), min_ns=v[0],
                                   p50_ns=rank_q(v, 50), p90_ns=rank_q(v, 90), max_ns=v[-1]))
    order = {"compute": 0, "communication": 1, "memory": 2}
    out["kernels"].sort(key=lambda k: (-k["sum_ns"], k["name"].encode(), order[k["class"]]))
    delays.sort()
    launch = dict(linked=linked, unlinked_kernels=unl_k, unlinked_launches=unl_l,
                  p50_ns=rank_q(delays, 50) if delays else None, p90_ns=rank_q(delays, 90) if delays else None,
                  p99_ns=rank_q(delays, 99) if delays else None, max_ns=delays[-1] if delays else None)
    launch["sites"] = sorted([dict(name=k, count=v[0], delay_sum_ns=v[1], delay_max_ns=v[2])
                              for k, v in sites.items()], key=lambda s: (-s["delay_sum_ns"], s["name"].encode()))
    out["launch"] = launch
    out["ops"] = sorted([dict(name=k, launches=v[0], kernels=v[1], gpu_ns=v[2], cpu_ns=v[3]) for k, v in ops.items()],
                        key=lambda o: (-o["gpu_ns"], o["name"].encode()))
    out["steps"] = steps
    if multi:
        out.update(ranks_part(files, steps, out["devices"]))
    return out


def ranks_part(files, steps, devices):
    rows, meds = [], []
    for fi, f in enumerate(files):
        w = sorted(s["wall_ns"] for s in steps if s["rank"] == f.rank)
        ds = [d for d in devices if d["rank"] == f.rank]
        rows.append(dict(rank=f.rank, file=f.path, steps=len(w), step_median_ns=rank_q(w, 50) if w else 0,
                         step_max_ns=w[-1] if w else 0, busy_ns=sum(d["busy_ns"] for d in ds),
                         idle_ns=sum(d["idle_ns"] for d in ds), communication_ns=sum(d["communication_ns"] for d in ds)))
    with_steps = [r for r in rows if r["steps"]]
    strag = None
    if with_steps:
        top = max(with_steps, key=lambda r: r["step_median_ns"])  # max() keeps the first on a tie
        mid = rank_q(sorted(r["step_median_ns"] for r in with_steps), 50)
        strag = dict(rank=top["rank"], step_median_ns=top["step_median_ns"],
                     ratio=float("%.6f" % (top["step_median_ns"] / mid)) if mid > 0 else 0.0)
    ends, names = {}, []
    for s in steps:
        if s["name"] not in ends:
            names.append(s["name"])
        e = ends.setdefault(s["name"], {})
        e[s["rank"]] = max(e.get(s["rank"], -2**63), s["ts_ns"] + s["wall_ns"])
    last = []
    for n in names:
        e = ends[n]
        if len(e) < 2:
            continue
        order = [f.rank for f in files if f.rank in e]
        lr = max(order, key=lambda r: e[r])
        last.append(dict(name=n, rank=lr, end_ns=e[lr], spread_ns=e[lr] - min(e.values())))
    return dict(ranks=rows, straggler=strag, steps_last=last)


def keyed(rows, keys):
    return {tuple(str(r.get(k)) for k in keys): r for r in rows}


def main(argv):
    glob, t0, t1 = "ProfilerStep#*", -2**63, 2**63 - 1
    args = []
    i = 2
    while i < len(argv):
        if argv[i] == "--step":
            glob = argv[i + 1]
            i += 2
        elif argv[i] == "--range-ns":
            a, b = argv[i + 1].split(":")
            t0 = int(a) if a else t0
            t1 = int(b) if b else t1
            i += 2
        else:
            args.append(argv[i])
            i += 1
    got = json.load(open(argv[1]))
    want = compute(args, glob, t0, t1)
    bad = []
    for sec, keys in (("devices", ("rank", "device")), ("streams", ("rank", "device", "stream"))):
        g, w = keyed(got[sec], keys), keyed(want[sec], keys)
        if g != w:
            for k in sorted(set(g) | set(w)):
                if g.get(k) != w.get(k):
                    bad.append("%s %s: stint %s, oracle %s" % (sec, k, g.get(k), w.get(k)))
    for sec in ("kernels", "ops", "steps"):
        if got[sec] != want[sec]:
            for a, b in zip(got[sec], want[sec]):
                if a != b:
                    bad.append("%s: stint %s, oracle %s" % (sec, a, b))
                    break
            if len(got[sec]) != len(want[sec]):
                bad.append("%s: stint %d rows, oracle %d" % (sec, len(got[sec]), len(want[sec])))
    if got["launch"] != want["launch"]:
        for k in want["launch"]:
            if got["launch"].get(k) != want["launch"][k]:
                bad.append("launch.%s: stint %s, oracle %s" % (k, str(got["launch"].get(k))[:300],
                                                               str(want["launch"][k])[:300]))
    for sec in ("ranks", "straggler", "steps_last"):
        if (sec in want or sec in got) and got.get(sec) != want.get(sec):
            bad.append("%s: stint %s, oracle %s" % (sec, got.get(sec), want.get(sec)))
    for b in bad[:20]:
        print("MISMATCH", b)
    if bad:
        return 1
    print("ok: %d devices, %d streams, %d kernel groups, %d linked, %d ops, %d steps" % (
        len(want["devices"]), len(want["streams"]), len(want["kernels"]), want["launch"]["linked"],
        len(want["ops"]), len(want["steps"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
