#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint convert --to chrome --time-range A:B` cuts a window out of a trace: the
# slices of the cut, read back by stint, must be exactly those of the whole
# trace that overlap [A, B), each cut to the window (and marked
# "stint_clipped" where it was), none other; flow arrows only between slices
# that start inside it; counter series starting with the value they had at A.
# Windows: edges inside long spans, inside a B/E pair, inside an async slice,
# open on either side, and one that holds nothing. --split-every: every file
# is that cut for its window, and the files are those of the windows that
# something overlaps. Traces: one made here
# with every kind of slice, and, when ../shared is present, a generated one.
set -euo pipefail
STINT=${STINT_BIN:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-window.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0

python3 - "$T/made.json" <<'PY'
import json, random, sys
r = random.Random(7)
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
for k in range(60):  # nested X spans, some long
    t = k * 100
    ev.append({"ph": "X", "name": "outer", "cat": "a", "pid": 1, "tid": 1, "ts": t, "dur": 90, "args": {"k": k}})
    ev.append({"ph": "X", "name": "inner", "cat": "a,b", "pid": 1, "tid": 1, "ts": t + 10, "dur": 50})
    ev.append({"ph": "X", "name": "leaf", "pid": 1, "tid": 1, "ts": t + 20, "dur": 5, "tts": t, "tdur": 4})
    ev.append({"ph": "i", "s": "t", "name": "mark", "pid": 1, "tid": 1, "ts": t + 30})
    ev.append({"ph": "C", "name": "mem", "pid": 1, "ts": t + 1, "args": {"bytes": k * 10, "other": 60 - k}})
ev.append({"ph": "X", "name": "whole", "pid": 2, "tid": 5, "ts": 0, "dur": 6000})
ev.append({"ph": "B", "name": "be", "pid": 2, "tid": 5, "ts": 1000})
ev.append({"ph": "E", "pid": 2, "tid": 5, "ts": 4000})
ev.append({"ph": "B", "name": "open", "pid": 2, "tid": 5, "ts": 5000})  # never ends
for k in range(6):
    ev.append({"ph": "b", "name": "req", "cat": "net", "id": k, "pid": 3, "tid": 3, "ts": k * 900})
    ev.append({"ph": "e", "name": "req", "cat": "net", "id": k, "pid": 3, "tid": 3, "ts": k * 900 + 1200})
for k in range(20):  # flows between spans of two threads
    ev.append({"ph": "s", "name": "f", "cat": "fl", "id": k, "pid": 1, "tid": 1, "ts": k * 300 + 20})
    ev.append({"ph": "f", "bp": "e", "name": "f", "cat": "fl", "id": k, "pid": 1, "tid": 1, "ts": k * 300 + 110})
ev.append({"ph": "i", "s": "g", "name": "global", "ts": 2500})
ev.append({"ph": "i", "s": "p", "name": "proc", "pid": 2, "ts": 2600})
r.shuffle(ev)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY

check() { # check FILE A:B [filters]: the whole trace's slices are those `stint slices` gives with the filters
  local f=$1 w=$2; shift 2
  if ! "$STINT" convert "$f" -o "$T/cut.json" --to chrome --time-range "$w" --no-rebase "$@" 2>"$T/err"; then
    echo "FAIL: convert $(basename "$f") --time-range $w $*"; cat "$T/err"; fail=1; return
  fi
  "$STINT" slices "$f" --json "$@" >"$T/whole.s" 2>/dev/null || true
  "$STINT" slices "$T/cut.json" --json >"$T/cut.s" 2>"$T/cut.err" || true
  "$STINT" counters "$f" --json >"$T/whole.c" 2>/dev/null || true
  "$STINT" counters "$T/cut.json" --json >"$T/cut.c" 2>/dev/null || true
  if ! python3 - "$T" "$w" "$f" "$*" <<'PY'
import collections, json, sys
T, w = sys.argv[1], sys.argv[2]
filters = sys.argv[4].split()
a, b = w.split(":")
t0 = int(a) if a else -(2**63)
t1 = int(b) if b else 2**63 - 1
whole = json.load(open(T + "/whole.s"))["slices"]
cut = json.load(open(T + "/cut.s"))["slices"]
meta = json.load(open(T + "/cut.json"))["metadata"]

def clipped(s):
    return any(x["key"] == "args.stint_clipped" for x in s.get("args", []))

want = collections.Counter()
nclip = 0
for s in whole:
    ts, dur = s["ts_ns"], s["dur_ns"]
    end = 2**63 - 1 if dur < 0 else ts + dur
    if ts >= t1 or end < t0 or (end == t0 and dur > 0):
        continue
    c0, d = max(ts, t0), dur
    cut_here = ts < t0
    if dur >= 0:
        e = min(end, t1)
        cut_here = cut_here or end > t1
        d = e - c0
    nclip += cut_here
    want[(s["pid"], s["track"], s["cat"], s["name"], c0, d, cut_here)] += 1
got = collections.Counter((s["pid"], s["track"], s["cat"], s["name"], s["ts_ns"], s["dur_ns"], clipped(s))
                          for s in cut)
bad = 0
if want != got:
    print("  slices differ: want-only", list((want - got).items())[:5], "got-only", list((got - want).items())[:5])
    bad = 1
if meta.get("clipped_spans") != nclip or meta.get("window_start_ns") != t0 or meta.get("window_end_ns") != t1:
    print("  metadata", meta, "expected clipped", nclip)
    bad = 1
# counters: each series' first value in the cut is its value at t0 (its last sample before), or its
# first sample inside; every sample of the cut lies in [t0, t1)
try:
    cw = {(s["name"], s["pid"]): s for s in json.load(open(T + "/whole.c"))["series"]}
    cc = {(s["name"], s["pid"]): s for s in json.load(open(T + "/cut.c"))["series"]}
except (FileNotFoundError, json.JSONDecodeError, KeyError):
    cw = cc = {}
for k, s in cc.items():
    if s["first_ts_ns"] < t0 or s["last_ts_ns"] >= t1 or k not in cw:
        print("  counter", k, "outside the window", s["first_ts_ns"], s["last_ts_ns"])
        bad = 1
# the values carried to t0: each series' last sample before it in the input (C events: one series
# per args key), written at t0 itself
from decimal import Decimal
def ns(x):
    return int(Decimal(str(x)) * 1000)
src = json.load(open(sys.argv[3]))
src = src["traceEvents"] if isinstance(src, dict) else src
last = {}
for e in src:
    if e.get("ph") == "C" and ns(e["ts"]) < t0:
        for key, v in e["args"].items():
            k = (e.get("pid", 0), e["name"], key)
            if k not in last or last[k][0] <= ns(e["ts"]):
                last[k] = (ns(e["ts"]), v)
carried = {}
for e in json.load(open(T + "/cut.json"))["traceEvents"]:
    if e["ph"] == "C" and ns(e["ts"]) == t0:
        for key, v in e["args"].items():
            carried.setdefault((e["pid"], e["name"], key), v)
if "--pid" in filters:  # only that process's series, carried or not
    pid = int(filters[filters.index("--pid") + 1])
    last = {k: v for k, v in last.items() if k[0] == pid}
    if any(e["ph"] == "C" and e["pid"] != pid for e in json.load(open(T + "/cut.json"))["traceEvents"]):
        print("  a counter of another process than", pid); bad = 1
if "--name" in filters:
    last = {}; carried = {}  # (a series' name is "<event name> <key>": not modelled here)
if {k: v[1] for k, v in last.items()} != carried:
    print("  carried counter values", sorted(carried.items())[:4], "expected", sorted(last.items())[:4])
    bad = 1
sys.exit(bad)
PY
  then
    echo "FAIL: $(basename "$f") --time-range $w"; head -5 "$T/err"; fail=1
  else
    echo "ok: $(basename "$f") $w $*: $(grep -c '"ts_ns"' "$T/cut.s" || true) slices"
  fi
}

# (made.json's times are us: 1000 ns each)
for w in 1500000:3550000 1015000:1050000 2050000:2051000 :2000000 4500000: 99999000:99999999 0:1 \
         5000000:5000001; do
  check "$T/made.json" "$w"
done
# the filters select what is written, as they select what `slices` lists (with and without a cut)
check "$T/made.json" : --pid 1
check "$T/made.json" 1500000:3550000 --pid 2
check "$T/made.json" : --tid 1 --name 'in*'
check "$T/made.json" 1015000:3050000 --cat b
check "$T/made.json" : --min-dur 40us
check "$T/made.json" 2000000: --name '[ow]*' --min-dur 1ms
# flows: an arrow is kept only when both its spans start inside the window
"$STINT" convert "$T/made.json" -o "$T/cut.json" --to chrome --time-range 1500000:3400000 2>"$T/err" >/dev/null
python3 - "$T/cut.json" <<'PY' || fail=1
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = [e for e in ev if e["ph"] == "s"]
f = [e for e in ev if e["ph"] == "f"]
# arrows k start at k*300+20 us and end at k*300+110 us: inside [1500, 3400) for k = 5..10 (11's
# end is past it)
ts = sorted(round(e["ts"]) for e in s)
want = [k * 300 + 20 for k in range(5, 11)]
if ts != want or len(f) != len(s):
    print("FAIL: flow arrows in the window:", ts, "expected", want, len(f))
    sys.exit(1)
PY
grep -q " 1 flow arrow(s) across its edge left out" "$T/err" ||
  { echo "FAIL: the arrow across the window's end is not reported"; cat "$T/err"; fail=1; }
# a window on a format other than chrome, and a bad window, are refused
for to in folded jsonl markers; do
  for flt in "--time-range 0:1" "--pid 1" "--min-dur 1us"; do
    # shellcheck disable=SC2086 # flt is an option and its value
    if "$STINT" convert "$T/made.json" -o "$T/x" --to $to $flt 2>/dev/null; then
      echo "FAIL: --to $to took $flt"; fail=1
    fi
  done
done

# --split-every: one file per window of D that something overlaps, each the same cut as --time-range
# gives for its window, named OUT-NNNNN by window index; windows with nothing get no file
split_check() { # split_check FILE D(ns) [--time-range A:B]
  local f=$1 d=$2; shift 2
  rm -rf "$T/split"; mkdir "$T/split"
  if ! "$STINT" convert "$f" -o "$T/split/p.json" --to chrome --split-every "$d" --no-rebase "$@" 2>"$T/err"; then
    echo "FAIL: split $(basename "$f") $d $*"; cat "$T/err"; fail=1; return
  fi
  "$STINT" slices "$f" --json >"$T/whole.s" 2>/dev/null || true
  for p in "$T"/split/p-*.json; do "$STINT" slices "$p" --json >"$p.s" 2>/dev/null || true; done
  if ! python3 - "$T" "$d" "$f" "$@" <<'PY'
import collections, glob, json, os, sys
T, d = sys.argv[1], int(sys.argv[2])
rng = sys.argv[5] if len(sys.argv) > 5 else ":"
whole = json.load(open(T + "/whole.s"))["slices"]
src = json.load(open(sys.argv[3]))
src = src["traceEvents"] if isinstance(src, dict) else src
from decimal import Decimal
samples = [int(Decimal(str(e["ts"])) * 1000) for e in src if e.get("ph") == "C"]
INF = 2**63 - 1
ends = [(s["ts_ns"], INF if s["dur_ns"] < 0 else s["ts_ns"] + s["dur_ns"]) for s in whole]
# the extent: first start to past the last end (an unfinished span's start, a sample)
lo = min([a for a, _ in ends] + samples)
hi = max([b for _, b in ends if b < INF] + [a for a, _ in ends] + samples) + 1
a, b = rng.split(":")
lo = max(lo, int(a)) if a else lo
hi = min(hi, int(b)) if b else hi
def overlaps(ts, end, t0, t1):
    return not (ts >= t1 or end < t0 or (end == t0 and end > ts))
want_files = set()
for ts, end in ends + [(t, t) for t in samples]:
    if not overlaps(ts, end, lo, hi):
        continue
    last = min(end - 1 if end > ts else end, hi - 1)
    for k in range((max(ts, lo) - lo) // d, (last - lo) // d + 1):
        want_files.add("p-%05d.json" % k)
got_files = {os.path.basename(p) for p in glob.glob(T + "/split/p-*.json")}
bad = 0
if want_files - got_files or got_files - want_files:
    print("  files: missing", sorted(want_files - got_files)[:5], "extra", sorted(got_files - want_files)[:5])
    bad = 1
for name in sorted(got_files):
    meta = json.load(open(T + "/split/" + name))["metadata"]
    t0, t1 = meta["window_start_ns"], meta["window_end_ns"]
    k = int(name[2:-5])
    if t0 != lo + k * d or t1 != min(lo + (k + 1) * d, hi):
        print("  window of", name, t0, t1); bad = 1
    want = collections.Counter()
    for s in whole:
        ts, dur = s["ts_ns"], s["dur_ns"]
        end = 2**63 - 1 if dur < 0 else ts + dur
        if not overlaps(ts, end, t0, t1):
            continue
        c0 = max(ts, t0)
        cut = ts < t0 or (dur >= 0 and end > t1)
        want[(s["track"], s["name"], c0, dur if dur < 0 else min(end, t1) - c0, cut)] += 1
    got = collections.Counter((s["track"], s["name"], s["ts_ns"], s["dur_ns"],
                               any(x["key"] == "args.stint_clipped" for x in s.get("args", [])))
                              for s in json.load(open(T + "/split/" + name + ".s"))["slices"])
    if want != got:
        print("  ", name, "differs: want-only", list((want - got).items())[:3], "got-only", list((got - want).items())[:3])
        bad = 1
sys.exit(bad)
PY
  then
    echo "FAIL: split $(basename "$f") every $d ns $*"; fail=1
  else
    echo "ok: split $(basename "$f") every $d ns $*: $(ls "$T"/split/p-*.json | wc -l) files"
  fi
}
split_check "$T/made.json" 1000000
split_check "$T/made.json" 333333 --time-range 1500000:3000000
split_check "$T/made.json" 7000000
if "$STINT" convert "$T/made.json" -o - --to chrome --split-every 1ms 2>/dev/null; then
  echo "FAIL: --split-every took -o -"; fail=1
fi
if "$STINT" convert "$T/made.json" -o "$T/x.json" --to chrome --split-every 1ns 2>"$T/err"; then
  echo "FAIL: --split-every 1ns (6 million windows) was not refused"; fail=1
fi
grep -q "take a longer one" "$T/err" || { echo "FAIL: no reason given for too many windows"; fail=1; }

GEN=${STINT_SHARED_DIR:-}/tools/gen_chrome.py
if [ -f "$GEN" ]; then
  python3 "$GEN" --size 2M --seed 3 -o "$T/g.json" >/dev/null
  "$STINT" slices "$T/g.json" --csv 2>/dev/null | awk -F, 'NR > 1 && $3 > 0 {print $2, $3}' | sort -n >"$T/ts"
  # windows whose edges cut the 100th and the 2000th spans in their middle
  read -r a da < <(sed -n 100p "$T/ts")
  read -r b db < <(sed -n 2000p "$T/ts")
  check "$T/g.json" "$((a + da / 2)):$((b + db / 2))"
  check "$T/g.json" "$((a + da / 2)):"
  split_check "$T/g.json" 20000000
  pid=$("$STINT" slices "$T/g.json" --csv 2>/dev/null | awk -F, 'NR == 2 {print $4}')
  check "$T/g.json" : --pid "$pid" --name 'aten::*'
  check "$T/g.json" "$((a + da / 2)):$((b + db / 2))" --min-dur 100us
else
  echo "SKIP (generated trace): $GEN is absent (shared tools)"
fi
[ $fail = 0 ] && echo PASS
exit $fail
