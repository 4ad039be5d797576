#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent model of `stint sizes --json` (tools/stint/cmd/cmd_sizes.c).

    sizes_oracle.py TRACE.json [--pid N] [--tid N] [--cat C] [--name GLOB] [--time-range A:B]
    (or import it: model(path, args))

Walks the Chrome JSON text with Python's own decoder (raw_decode per value),
so that every byte count comes from positions in the text, not from stint's
tokenizer: an event from its '{' to its '}', an args member from its key's
'"' to its value's end, a top-level key of the trace object the same way.
Prints the JSON that stint should print, with every list sorted the way
stint sorts it (bytes, then events descending, then text). The filters use
filters.h's meaning for an event read as a slice of its own (cmd_sizes.c).
Only numeric pids and tids, and times written as JSON numbers or decimal
strings, are modelled (what the tests give it).
"""
import fnmatch
import json
import sys
from decimal import Decimal

DEC = json.JSONDecoder()
WS = " \t\r\n"


def ws(s, i):
    while i < len(s) and s[i] in WS:
        i += 1
    return i


def nbytes(s, a, b):
    return len(s[a:b].encode("utf-8", "surrogatepass"))


def members(s, i):
    """[(key, key_start, value_start, value_end)] of the object at s[i] ('{'), and its end."""
    out = []
    i += 1
    while True:
        i = ws(s, i)
        if s[i] == "}":
            return out, i + 1
        if s[i] == ",":
            i += 1
            continue
        k0 = i
        key, i = DEC.raw_decode(s, i)
        i = ws(s, i)
        assert s[i] == ":"
        i = ws(s, i + 1)
        v0 = i
        _, i = DEC.raw_decode(s, i)
        out.append((key, k0, v0, i))


def ns(text):
    """Microseconds as decimal text -> int ns (exact), or None."""
    try:
        return int(Decimal(str(text)) * 1000)
    except Exception:
        return None


def model(path, args):
    """What `stint sizes --json PATH ARGS` should print (the fields the oracle models)."""
    args = list(args)
    f = {}
    while args:
        k = args.pop(0)
        f[k] = args.pop(0)
    raw = open(path, "rb").read()
    s = raw.decode("utf-8", "surrogateescape")
    if s.startswith("\ufeff"):
        s0 = 1
    else:
        s0 = 0
    t0 = t1 = None
    if "--time-range" in f:
        a, b = f["--time-range"].split(":")
        t0 = int(a) if a else -(2**63)
        t1 = int(b) if b else 2**63 - 1

    phases, names, ekeys, akeys, tkeys = {}, {}, {}, {}, {}
    tot = {"events": 0, "event_bytes": 0, "args_bytes": 0, "filtered_events": 0, "filtered_bytes": 0}
    phase_order = []

    def text_of(ev, key, e0):
        for k, k0, v0, v1 in ev:
            if k == key:
                v = DEC.raw_decode(s, v0)[0]
                return v if isinstance(v, str) else s[v0:v1]
        return ""

    def value(ev, key):
        for k, k0, v0, v1 in ev:
            if k == key:
                return DEC.raw_decode(s, v0)[0]
        return None

    def passes(ev, e0):
        if "--pid" in f or "--tid" in f:
            pid = value(ev, "pid") or 0
            tid = value(ev, "tid")
            tid = pid if tid in (None, 0) else tid
            if "--pid" in f and int(pid) != int(f["--pid"]):
                return False
            if "--tid" in f and int(tid) != int(f["--tid"]):
                return False
        if "--cat" in f:
            cat = text_of(ev, "cat", e0)
            if cat != f["--cat"] and f["--cat"] not in cat.split(","):
                return False
        if "--name" in f and not fnmatch.fnmatchcase(text_of(ev, "name", e0), f["--name"]):
            return False
        if t0 is not None:
            ts = value(ev, "ts")
            ts = None if ts is None else ns(ts)
            if ts is None:
                return False
            d = value(ev, "dur")
            d = ns(d) if d is not None else 0
            d = 0 if d is None or d < 0 else d
            end = ts + d
            if ts >= t1 or end < t0 or (end == t0 and d > 0):
                return False
        return True

    def event(e0):
        ev, e1 = members(s, e0)
        b = nbytes(s, e0, e1)
        if not passes(ev, e0):
            tot["filtered_events"] += 1
            tot["filtered_bytes"] += b
            return e1
        ab = 0
        for k, k0, v0, v1 in ev:
            r = ekeys.setdefault(k, [0, 0])
            r[0] += 1
            r[1] += nbytes(s, k0, v1)
            if k == "args" and s[v0] == "{":
                ab = nbytes(s, v0, v1)
                for ak, ak0, av0, av1 in members(s, v0)[0]:
                    r = akeys.setdefault(ak, [0, 0])
                    r[0] += 1
                    r[1] += nbytes(s, ak0, av1)
        ph = text_of(ev, "ph", e0)
        if ph not in phases:
            phases[ph] = [0, 0, 0]
            phase_order.append(ph)
        for r in (phases[ph],):
            r[0] += 1
            r[1] += b
            r[2] += ab
        key = (text_of(ev, "cat", e0), text_of(ev, "name", e0))
        r = names.setdefault(key, [0, 0, 0, set()])
        r[0] += 1
        r[1] += b
        r[2] += ab
        r[3].add(ph)
        tot["events"] += 1
        tot["event_bytes"] += b
        tot["args_bytes"] += ab
        return e1

    def array(i):
        i += 1
        while True:
            i = ws(s, i)
            if i >= len(s):
                return i
            if s[i] == "]":
                return i + 1
            if s[i] == ",":
                i += 1
                continue
            i = event(i)

    i = ws(s, s0)
    if s[i] == "[":
        array(i)
    else:
        i += 1
        while True:
            i = ws(s, i)
            if s[i] == "}":
                break
            if s[i] == ",":
                i += 1
                continue
            k0 = i
            key, i = DEC.raw_decode(s, i)
            i = ws(s, ws(s, i) + 1)
            if key == "traceEvents":
                i = array(i)
            else:
                _, i = DEC.raw_decode(s, i)
                r = tkeys.setdefault(key, [0, 0])
                r[0] += 1
                r[1] += nbytes(s, k0, i)

    def order(rows, text):
        return sorted(rows, key=lambda kv: (-kv[1][1], -kv[1][0], text(kv[0])))

    def enc(x):
        return x.encode("utf-8", "surrogatepass")

    text_bytes = len(raw)
    out = {
        "text_bytes": text_bytes,
        **tot,
        "outside_bytes": text_bytes - tot["event_bytes"] - tot["filtered_bytes"],
        "phases": [{"ph": p, "events": r[0], "bytes": r[1], "args_bytes": r[2]}
                   for p, r in order(phases.items(), enc)],
        "names": [{"cat": k[0], "name": k[1], "phases": [p for p in phase_order if p in r[3]],
                   "events": r[0], "bytes": r[1], "args_bytes": r[2]}
                  for k, r in order(names.items(), lambda k: (enc(k[1]), enc(k[0])))],
        "event_keys": [{"key": k, "events": r[0], "bytes": r[1]} for k, r in order(ekeys.items(), enc)],
        "args_keys": [{"key": k, "objects": r[0], "bytes": r[1]} for k, r in order(akeys.items(), enc)],
        "top_keys": [{"key": k, "bytes": r[1]} for k, r in order(tkeys.items(), enc)],
    }
    return out


if __name__ == "__main__":
    json.dump(model(sys.argv[1], sys.argv[2:]), sys.stdout, sort_keys=True, indent=0)
