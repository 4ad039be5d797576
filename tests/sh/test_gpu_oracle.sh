#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint gpu --json` against an independent Python oracle (tests/sh/gpu_oracle.py,
# written from docs/cli/gpu.md): generated multi-rank, multi-device,
# multi-stream traces with overlapping classes, unlinked kernels and launches
# and steps (bench/gen_kineto.py), with --time-range and --step; then the
# small real Kineto traces of the corpus (the large ones: test_gpu_oracle_large.sh).
set -eu
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
ORACLE="$SRC/tests/sh/gpu_oracle.py"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() { # OUT_JSON ORACLE_ARGS...: the oracle's verdict
    python3 "$ORACLE" "$@" || fail "oracle disagrees: $*"
}

cd "$TMP"
python3 "$SRC/bench/gen_kineto.py" g --ranks 3 --devices 2 --steps 5 --ops 8 --seed 3
python3 "$SRC/bench/gen_kineto.py" n --ranks 2 --steps 3 --seed 5 --no-rank-info
"$STINT" gpu --json --top 0 g.rank0.json g.rank1.json g.rank2.json > g.json 2>/dev/null
check g.json g.rank0.json g.rank1.json g.rank2.json
# the generated case exercises what it claims to
python3 - g.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["launch"]
assert l["unlinked_kernels"] > 0 and l["unlinked_launches"] > 0 and l["linked"] > 0, l
assert all(x["overlap_ns"] > 0 for x in d["devices"]), d["devices"]
assert len(d["devices"]) == 6 and len(d["streams"]) == 18, (len(d["devices"]), len(d["streams"]))
assert {x["rank"] for x in d["devices"]} == {0, 1, 2}
assert d["straggler"]["rank"] == 2 and len(d["steps"]) == 15, d["straggler"]
for x in d["devices"]:
    assert x["idle_ns"] == x["window_ns"] - x["busy_ns"] >= 0
    assert max(x["compute_ns"], x["communication_ns"], x["memory_ns"]) <= x["busy_ns"]
PY
[ $? -eq 0 ] || fail "generated case"
"$STINT" gpu --json --top 0 n.rank0.json n.rank1.json > n.json 2>/dev/null
check n.json n.rank0.json n.rank1.json
python3 -c "import json,sys; r=json.load(open('n.json'))['ranks']; sys.exit([x['rank'] for x in r] != [0, 1])" ||
    fail "ranks without distributedInfo are named by position"
"$STINT" gpu --json --top 0 --time-range 1700000100000:1700000900000 --step 'ProfilerStep#[12]' \
    g.rank0.json g.rank1.json > r.json 2>/dev/null
check r.json g.rank0.json g.rank1.json --step 'ProfilerStep#[12]' --range-ns 1700000100000:1700000900000
"$STINT" gpu --json --top 0 --time-range 1700000100000: g.rank0.json > r1.json 2>/dev/null
check r1.json g.rank0.json --range-ns 1700000100000:
# --top cuts the tables to their first rows
"$STINT" gpu --json --top 2 g.rank0.json > t.json 2>/dev/null
python3 -c "import json,sys; d=json.load(open('t.json')); sys.exit(not (len(d['kernels']) == 2 and len(d['ops']) == 2))" ||
    fail "--top 2"

# XLA: spans on the Stream* threads of a /device:GPU:N process are device work
python3 - xla.json <<'PY'
import json, sys
ev = [{"ph": "M", "name": "process_name", "pid": 5, "tid": 0, "args": {"name": "/device:GPU:0"}},
      {"ph": "M", "name": "thread_name", "pid": 5, "tid": 1, "args": {"name": "Stream #1(compute)"}},
      {"ph": "M", "name": "thread_name", "pid": 5, "tid": 2, "args": {"name": "Stream #2(nccl)"}},
      {"ph": "M", "name": "thread_name", "pid": 5, "tid": 3, "args": {"name": "XLA Ops"}},
      {"ph": "M", "name": "process_name", "pid": 6, "tid": 0, "args": {"name": "/host:CPU"}}]
t = 100
for k in range(40):
    ev.append({"ph": "X", "name": "fusion.%d" % (k % 5), "pid": 5, "tid": 1, "ts": t, "dur": 7 + k % 3})
    if k % 4 == 0:
        ev.append({"ph": "X", "name": "all-reduce.%d" % k, "pid": 5, "tid": 2, "ts": t + 3, "dur": 20})
    ev.append({"ph": "X", "name": "fusion.%d" % (k % 5), "pid": 5, "tid": 3, "ts": t, "dur": 9})
    t += 11 + k % 4
ev.append({"ph": "X", "name": "ProfilerStep#1", "pid": 6, "tid": 1, "ts": 90, "dur": t - 80})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
"$STINT" gpu --json --top 0 xla.json > xla.out 2>/dev/null
check xla.out xla.json
python3 -c "import json,sys; d=json.load(open('xla.out')); sys.exit(not (d['device_work'] == 50 and d['devices'][0]['communication_ns'] > 0 and len(d['streams']) == 2))" ||
    fail "XLA device work"

# a trace without device work: said so, exit 0, empty tables
echo '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5}]}' > cpu.json
"$STINT" gpu cpu.json > cpu.txt 2>&1 || fail "no device work: exit $?"
grep -q "no device work" cpu.txt || fail "no device work is not said"
"$STINT" gpu --json cpu.json > cpu.json.out || fail "no device work (json): exit $?"
python3 -c "import json,sys; d=json.load(open('cpu.json.out')); sys.exit(d['devices'] or d['kernels'] or d['device_work'])" ||
    fail "no device work: tables not empty"
# options it refuses
"$STINT" gpu --pid 1 cpu.json >/dev/null 2>&1 && fail "--pid accepted"
"$STINT" gpu --top x cpu.json >/dev/null 2>&1 && fail "--top x accepted"

R="$SHARED/corpus/real-traces"
if [ ! -d "$R" ]; then
    echo "SKIP (partly): $R is absent: the generated cases passed, the real traces were not checked"
    exit 77
fi
for f in hta_nccl_data hta_amd_mi250_rocm62 kineto_tbplugin_resnet50_nw0_worker0.pt.trace; do
    p="$R/$f.json.gz"
    [ -f "$p" ] || { echo "SKIP: $p is absent"; exit 77; }
    "$STINT" gpu --json --top 0 "$p" > "$f.out" 2>/dev/null
    check "$f.out" "$p"
done
# HTA's parser expectations on its NCCL trace: 21 NCCL kernels; the longest
# carries In msg nelems 2049000 (an allreduce)
python3 - hta_nccl_data.out <<'PY' || fail "HTA's NCCL expectations"
import json, sys
d = json.load(open(sys.argv[1]))
nccl = [k for k in d["kernels"] if "ncclKernel" in k["name"]]
assert sum(k["count"] for k in nccl) == 21, nccl
assert all(k["class"] == "communication" for k in nccl)
PY
longest=$(python3 -c "import json; d=json.load(open('hta_nccl_data.out')); print(max(k['max_ns'] for k in d['kernels'] if 'ncclKernel' in k['name']))")
"$STINT" slices "$R/hta_nccl_data.json.gz" --name 'ncclKernel*' --min-dur "$longest" --json > longest.json 2>/dev/null
python3 - longest.json <<'PY' || fail "the longest NCCL kernel's In msg nelems"
import json, sys
s = json.load(open(sys.argv[1]))["slices"]
assert len(s) == 1, len(s)
a = {x["key"]: x["value"] for x in s[0]["args"]}
assert a["args.In msg nelems"] == 2049000 and a["args.Collective name"] == "allreduce", a
PY
echo "ok"
