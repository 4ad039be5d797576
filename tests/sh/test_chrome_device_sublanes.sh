#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint convert --to chrome` of a marker log lays device phases that run at
# the same time as a sibling (orch and sched under device_wall) on labelled
# sub-lanes of their invocation's device lane, as a neutral note (no "moved"
# or "nest under another parent" repair), and keeps every track strictly
# nested with no device span on a host tid. Checked on a small log written
# here (its expected layout worked out by hand) and, for the nesting and the
# labels, on the seed reference logs that carry device phases (skipped when
# the shared corpus is absent).
set -u
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-sublanes.XXXXXX")
trap 'rm -rf "$T"' EXIT
# one invocation: host run [0, 500) us; device_wall [0, 270) with phases;
# graph_build [37, 261) holds cfg, orch [49, 169) and sched [49.6, 259) by
# time but all are device_wall's children by depth; sched has a child.
P='[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab'
cat > "$T/in.log" <<EOF
$P depth=1 name=run ts=1000000 dur=500000
$P depth=1 name=device_wall ts=0 dur=270000 clk=dev
$P depth=2 name=preamble ts=0 dur=10000 clk=dev
$P depth=2 name=graph_build ts=37000 dur=224000 clk=dev
$P depth=2 name=cfg ts=37000 dur=1500 clk=dev
$P depth=2 name=orch ts=49000 dur=120000 clk=dev
$P depth=3 name=task ts=60000 dur=5000 clk=dev
$P depth=2 name=sched ts=49600 dur=209400 clk=dev
$P depth=2 name=post ts=261000 dur=9000 clk=dev
EOF
CHECK='
import json, sys, collections
out, err, want = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
d = json.load(open(out))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in d["traceEvents"]
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
lanes = collections.defaultdict(list)
for e in d["traceEvents"]:
    if e.get("ph") == "X":
        lanes[(e["pid"], e["tid"])].append(e)
def us(x):  # three decimals: exact in ns
    return round(float(x) * 1000)
sub = 0
for key, evs in lanes.items():
    dev = [e.get("args", {}).get("clk") == "dev" for e in evs]
    assert all(dev) or not any(dev), ("device and host spans share a track", key)
    nm = names.get(key, "")
    if any(dev):
        assert nm.startswith("device clock: "), ("device track not labelled", key, nm)
        if nm.endswith(")") and " (" in nm and nm.rsplit(" (", 1)[1][:-1].isdigit():
            sub += len(evs)
    else:
        assert not nm.startswith("device"), ("host track labelled device", key, nm)
    stack = []  # strict nesting, and a device span nests under its depth parent only
    for e in sorted(evs, key=lambda e: (us(e["ts"]), -us(e["dur"]))):
        b, f = us(e["ts"]), us(e["ts"]) + us(e["dur"])
        while stack and stack[-1][1] <= b:
            stack.pop()
        assert not stack or f <= stack[-1][1], ("not strictly nested", key, e["name"])
        if any(dev) and stack:
            assert stack[-1][2] == e["args"]["depth"] - 1, ("device span under a sibling", e["name"], stack[-1])
        stack.append((b, f, e["args"]["depth"], e["name"]))
if want != "-":  # (the seed logs: host spans of one thread may still overlap, counted as before)
    assert "improperly" not in err and "another parent" not in err, err
if sub:
    assert "note: %d device phase(s) run at the same time as a sibling" % sub in err, (sub, err)
if want != "-":
    assert sub == int(want), (sub, want)
    lay = {e["name"]: names.get((e["pid"], e["tid"]), "") for evs in lanes.values() for e in evs}
    assert lay["graph_build"] == lay["post"] == lay["device_wall"] == "device clock: inv 1 (not host-aligned)", lay
    assert lay["cfg"] == lay["orch"] == lay["task"] == "device clock: inv 1 (not host-aligned) (2)", lay
    assert lay["sched"] == "device clock: inv 1 (not host-aligned) (3)", lay
print("ok", out, "sub-lane spans:", sub)
'
fail=0
"$STINT" convert "$T/in.log" --to chrome -o "$T/out.json" 2>"$T/err" || { echo "FAIL: convert"; cat "$T/err"; exit 1; }
# on sub-lanes: cfg, orch, task (2) and sched (3)
python3 -c "$CHECK" "$T/out.json" "$T/err" 4 || { cat "$T/err"; fail=1; }
# speedscope's own importer takes it, one profile per track (when the npm
# package test_export_speedscope.sh installs is there)
NPMDIR=${STINT_BUILD_DIR:-/nonexistent}/speedscope-npm
if command -v node >/dev/null && [ -d "$NPMDIR/node_modules/speedscope/dist/release" ]; then
    "$STINT" convert "$T/in.log" --to folded -o "$T/f.txt" 2>/dev/null
    node "$SRC/tests/sh/speedscope_profiles.js" "$NPMDIR" "$T/out.json" "$T/f.txt" >"$T/ss" 2>&1 &&
        grep -q '"profiles":4,' "$T/ss" || { echo "FAIL: speedscope import (want 4 tracks)"; cat "$T/ss"; fail=1; }
fi
n=0
if [ -d "$SHARED/corpus/seed-systems" ]; then
    while IFS= read -r f; do
        grep -q 'clk=dev' "$f" || continue
        n=$((n + 1))
        "$STINT" convert "$f" --to chrome -o "$T/seed.json" 2>"$T/err" || { echo "FAIL: convert $f"; fail=1; continue; }
        python3 -c "$CHECK" "$T/seed.json" "$T/err" - || { echo "FAIL: $f"; cat "$T/err"; fail=1; }
    done < <(find "$SHARED/corpus/seed-systems" -name '*.log' | sort)
fi
[ "$n" -gt 0 ] || echo "note: no seed marker logs with device phases (shared corpus absent): the written log only"
exit $fail
