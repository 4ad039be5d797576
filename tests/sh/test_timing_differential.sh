#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_timing_differential.sh - stint timing against the reference's own
# parsing approach on a generated log: the Python regex that strace_timing
# uses, run over the same lines, must find the same record heads and the same
# spans (pid, inv, hid, depth, name, ts, dur, attrs; compared as multisets)
# as `stint timing --trace-out`. The log comes from ../shared/tools/gen_strace.py
# with many torn markers, near misses and noise (CR-separated progress lines,
# ANSI colour, tracebacks, tensor dumps).
# Skips (77) without python3 or the shared generator.
set -u
SHARED=${STINT_SHARED_DIR:-}
GEN=$SHARED/tools/gen_strace.py
STINT=${STINT_BIN:-}
if [ -z "$STINT" ] || [ ! -x "$STINT" ]; then echo "SKIP: STINT_BIN is not set"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: python3 is absent"; exit 77; fi
if [ ! -f "$GEN" ]; then echo "SKIP: $GEN is absent (the shared tools)"; exit 77; fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 "$GEN" --size 3M --seed 7 --malformed 0.02 -o "$TMP/log" 2>"$TMP/truth" || { echo "generator failed"; exit 1; }
"$STINT" timing --json --trace-out "$TMP/trace.json" "$TMP/log" >"$TMP/out.json" 2>"$TMP/err" || { echo "stint failed"; cat "$TMP/err"; exit 1; }
python3 - "$TMP/log" "$TMP/trace.json" "$TMP/out.json" "$TMP/err" <<'PY'
import collections, decimal, json, re, sys
log, trace, out, err = sys.argv[1:5]
prefix = (r"(?:\[mono_ns=\d+\]|\[\d{4}-\d{2}-\d{2}[^\]]*\])\[T0x[0-9a-fA-F]+\]\[[A-Z_0-9]+\]\s+[^:\r\n]+:\s+"
          r"(?:\[[^\]]*\]\s+)?")
rec = re.compile(
    r"\[STRACE\]\s+v=(?P<v>\d+)\s+pid=(?P<pid>\d+)\s+tid=(?P<tid>\d+)\s+"
    r"inv=(?P<inv>\d+)\s+hid=(?P<hid>[0-9a-fA-F]+)\s+depth=(?P<depth>\d+)\s+"
    r"name=(?P<name>\S+)\s+ts=(?P<ts>\d+)\s+dur=(?P<dur>\d+)(?P<attrs>.*?)"
    rf"(?={prefix}|\[STRACE\]|\r?$)", re.MULTILINE)
head = re.compile(r"\[STRACE\]\s+v=\d+")
want, heads = collections.Counter(), 0
with open(log, encoding="utf-8", errors="replace") as f:
    for line in f:
        heads += len(head.findall(line))
        for m in rec.finditer(line):
            want[(int(m["pid"]), int(m["inv"]), m["hid"].lower(), int(m["depth"]), m["name"], int(m["ts"]),
                  int(m["dur"]), m["attrs"].strip())] += 1
doc = json.load(open(trace), parse_float=decimal.Decimal)
lane_pid = {}
got = collections.Counter()
for e in doc["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "process_name":
        lane_pid[e["pid"]] = int(re.search(r"\(pid=(\d+)\)", e["args"]["name"])[1])
    elif e["ph"] == "X":
        a = e["args"]
        got[(lane_pid[e["pid"]], a["inv"], a["hid"], a["depth"], e["name"], int(e["ts"] * 1000),
             int(e["dur"] * 1000), a["attrs"])] += 1
summary = json.load(open(out))["records"]
fail = []
if summary["heads"] != heads:
    fail.append(f"heads: stint {summary['heads']}, regex {heads}")
if summary["spans"] != sum(want.values()):
    fail.append(f"spans: stint {summary['spans']}, regex {sum(want.values())}")
if got != want:
    fail.append(f"span multisets differ: {sum((want - got).values())} only in the regex, "
                f"{sum((got - want).values())} only in stint; e.g. {list((want - got).items())[:2]} / "
                f"{list((got - want).items())[:2]}")
torn = heads - sum(want.values())
line = f"warning: {torn} of {heads} [STRACE] records are incomplete and are excluded from the timing below"
if torn and line not in open(err).read():
    fail.append(f"stderr lacks: {line}")
if torn < 10:
    fail.append(f"the generated log has too few torn records ({torn}) to test anything")
for f_ in fail:
    print("FAIL:", f_)
print(f"{heads} heads, {sum(want.values())} spans, {torn} torn: {'differ' if fail else 'identical'}")
sys.exit(1 if fail else 0)
PY
