#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent model of `stint sizes --json` on a marker log, for
test_sizes_markers.sh: the [STRACE] v=1 grammar of markers_parse.h written
again with regular expressions over the log's lines, and the byte counts
docs/cli/sizes.md gives:

- a record's bytes run from its '[' to its last field's end (its attrs',
  trimmed of blanks, else dur's last digit);
- a head field's bytes are its `k=v` token; "attrs" is the attrs' text;
- an attr's bytes are its token (split at blanks and line breaks), under the
  text before its first '=';
- its "phase" is its clock: "dev" when a whole attr token is `clk=dev`.

    sizes_markers_oracle.py MANIFEST

Each MANIFEST line is OUT|LOG|FILTER ARGS (space-separated; FILTER ARGS may
be empty): OUT is stint's --json output for LOG. Prints one line per
mismatch and exits 1 when there is any.
"""
import fnmatch
import gzip
import json
import re
import sys

BL = rb"[ \t\v\f\x1c-\x1f]"  # blanks: Python's \s, ASCII part, minus \n and \r
TAG = b"[STRACE]"
HEAD = re.compile(
    rb"\[STRACE\]" + BL + rb"+(v=\d+)" + BL + rb"+(pid=(\d+))" + BL + rb"+(tid=(\d+))" + BL + rb"+(inv=\d+)"
    + BL + rb"+(hid=[0-9a-fA-F]+)" + BL + rb"+(depth=\d+)" + BL + rb"+(name=([^ \t\v\f\x1c-\x1f\r\n]+))"
    + BL + rb"+(ts=(\d+))" + BL + rb"+(dur=(\d+))")
IS_HEAD = re.compile(rb"\[STRACE\]" + BL + rb"+v=\d")
SPACE = b" \t\v\f\x1c\x1d\x1e\x1f\r\n"


def log_prefix_at(line, i):
    """A `[..]` group at i (no bracket or line break inside, not empty) directly followed by '['."""
    m = re.compile(rb"\[[^\[\]\r\n]+\]\[").match(line, i)
    return m is not None


def attrs_end(line, a):
    """Where the attrs that start at a (right after dur's digits) end on this line."""
    q = a
    while q < len(line):
        if line[q:q + 1] != b"[":
            q += 1
            continue
        if line.startswith(TAG, q):
            t = q
            while t > a and line[t - 1] not in SPACE and line[t - 1:t] != b"=":
                t -= 1
            if a < t < q and line[t - 1] in SPACE:
                return t
            return q
        if log_prefix_at(line, q) and line.find(TAG, q) >= 0:
            return q
        q += 1
    return q


def records(text):
    """Each record as (pid, tid, name, ts, dur, record bytes, head tokens, attrs bytes)."""
    for line in re.split(rb"\r\n|\r|\n", text):
        at = line.find(TAG)
        while at >= 0:
            if not IS_HEAD.match(line, at):
                at = line.find(TAG, at + 1)
                continue
            m = HEAD.match(line, at)
            if not m:  # torn
                at = line.find(TAG, at + 1)
                continue
            ae = attrs_end(line, m.end())
            attrs = line[m.end():ae].strip(b" \t\v\f\x1c\x1d\x1e\x1f")
            end = (line.index(attrs, m.end()) + len(attrs)) if attrs else m.end()
            heads = [m.group(k) for k in (1, 2, 4, 6, 7, 8, 9, 11, 13)]
            yield (int(m.group(3)), int(m.group(5)), m.group(10), int(m.group(12)), int(m.group(14)),
                   end - at, heads, attrs)
            at = line.find(TAG, ae)


def tokens(attrs):
    return [t for t in re.split(rb"[ \t\v\f\x1c-\x1f\r\n]+", attrs) if t]


def passes(flt, pid, tid, name, ts, dur):
    a = flt.split()
    i = 0
    while i < len(a):
        k, v = a[i], a[i + 1]
        i += 2
        if k == "--pid" and pid != int(v):
            return False
        if k == "--tid" and tid != int(v):
            return False
        if k == "--name" and not fnmatch.fnmatchcase(name.decode("latin-1"), v):
            return False
        if k == "--cat" and v != "":
            return False
        if k == "--time-range":
            t0, t1 = (int(x) if x else None for x in v.split(":"))
            t0 = t0 if t0 is not None else -(1 << 63)
            t1 = t1 if t1 is not None else (1 << 63) - 1
            end = ts + dur
            if ts >= t1 or end < t0 or (end == t0 and dur > 0):
                return False
    return True


def model(path, flt):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    tab = {"phases": {}, "names": {}, "event_keys": {}, "args_keys": {}}
    tot = dict(events=0, event_bytes=0, args_bytes=0, filtered_events=0, filtered_bytes=0)

    def add(t, key, events, nbytes, ab=0):
        r = tab[t].setdefault(key, [0, 0, 0])
        r[0] += events
        r[1] += nbytes
        r[2] += ab

    phases_of = {}
    for pid, tid, name, ts, dur, nbytes, heads, attrs in records(raw):
        if not passes(flt, pid, tid, name, ts, dur):
            tot["filtered_events"] += 1
            tot["filtered_bytes"] += nbytes
            continue
        toks = tokens(attrs)
        clk = "dev" if b"clk=dev" in toks else "host"
        tot["events"] += 1
        tot["event_bytes"] += nbytes
        tot["args_bytes"] += len(attrs)
        add("phases", clk, 1, nbytes, len(attrs))
        add("names", name, 1, nbytes, len(attrs))
        phases_of.setdefault(name, set()).add(clk)
        for h in heads:
            add("event_keys", h.split(b"=")[0], 1, len(h))
        if attrs:
            add("event_keys", b"attrs", 1, len(attrs))
        for t in toks:
            add("args_keys", t.split(b"=")[0], 1, len(t))
    tot["text_bytes"] = len(raw)
    tot["outside_bytes"] = len(raw) - tot["event_bytes"] - tot["filtered_bytes"]
    return tab, tot, phases_of


def dec(s):
    return s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s


def main():
    bad = 0
    n = 0
    for line in open(sys.argv[1]):
        out, path, flt = line.rstrip("\n").split("|")
        n += 1
        got = json.load(open(out, encoding="utf-8", errors="surrogateescape"))
        tab, tot, phases_of = model(path, flt)
        where = "%s [%s]" % (path.split("/")[-1], flt)
        for k, v in tot.items():
            if got.get(k) != v:
                print("MISMATCH %s: %s: stint %s, oracle %s" % (where, k, got.get(k), v))
                bad += 1
        if got.get("format") != "markers":
            print("MISMATCH %s: format %r" % (where, got.get("format")))
            bad += 1
        rows = {
            "phases": {r["ph"]: [r["events"], r["bytes"], r["args_bytes"]] for r in got["phases"]},
            "names": {dec(r["name"]): [r["events"], r["bytes"], r["args_bytes"]] for r in got["names"]},
            "event_keys": {dec(r["key"]): [r["events"], r["bytes"], 0] for r in got["event_keys"]},
            "args_keys": {dec(r["key"]): [r["objects"], r["bytes"], 0] for r in got["args_keys"]},
        }
        for t in rows:
            if rows[t] != tab[t]:
                keys = sorted(set(rows[t]) | set(tab[t]), key=repr)
                diff = [(k, rows[t].get(k), tab[t].get(k)) for k in keys if rows[t].get(k) != tab[t].get(k)]
                print("MISMATCH %s: %s (key, stint, oracle): %s" % (where, t, diff[:5]))
                bad += 1
        for r in got["names"]:
            if sorted(r["phases"]) != sorted(phases_of.get(dec(r["name"]), ())):
                print("MISMATCH %s: clocks of %r: %s" % (where, r["name"], r["phases"]))
                bad += 1
        # the report's order: most bytes first, then most events
        for t in ("phases", "names", "event_keys", "args_keys"):
            keyed = [(-r["bytes"], -r.get("events", r.get("objects", 0))) for r in got[t]]
            if keyed != sorted(keyed):
                print("MISMATCH %s: %s not in report order" % (where, t))
                bad += 1
        if got["top_keys"]:
            print("MISMATCH %s: a marker log has no top-level keys: %s" % (where, got["top_keys"]))
            bad += 1
    print("%d outputs checked against the oracle, %d mismatches" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
