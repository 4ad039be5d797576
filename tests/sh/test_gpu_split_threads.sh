#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint gpu` gives the same output (JSON and text) when a file is read in
# parts on two threads, its spans walked on two threads and the launch links
# computed on a thread of their own, as on one thread (STINT_THREADS=1):
# generated Kineto traces made to split (STINT_SPLIT_MIN_BYTES and
# STINT_SPLIT_PARTS lower the split size, STINT_FINISH_SPLIT_MIN and
# STINT_GPU_LINKS_MIN the walk's and links' thresholds): 2 and 7
# parts; runtime calls on three CPU threads (whose tracks the two walkers
# share); and three files (ranks) at once. The split must have happened
# (STINT_DEBUG_SPLIT), and the figures must not be empty.
set -eu
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 "$SRC/bench/gen_kineto.py" "$TMP/one" --devices 2 --ops 8 --seed 3 --bytes 500000
python3 "$SRC/bench/gen_kineto.py" "$TMP/mt" --devices 2 --ops 6 --seed 4 --bytes 500000 --cpu-threads 3
python3 "$SRC/bench/gen_kineto.py" "$TMP/rk" --ranks 3 --devices 2 --ops 6 --steps 30 --seed 5
split="STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=65536 STINT_FINISH_SPLIT_MIN=1 STINT_GPU_LINKS_MIN=1 STINT_DEBUG_SPLIT=1"
fail=0
# same FILES...: one thread against each split, JSON and text
same() {
    env STINT_THREADS=1 "$STINT" gpu --json "$@" > "$TMP/ref.json" 2> "$TMP/err" || { echo "FAIL: one thread, $*:"; cat "$TMP/err"; exit 1; }
    env STINT_THREADS=1 "$STINT" gpu "$@" > "$TMP/ref.txt" 2>/dev/null
    python3 - "$TMP/ref.json" <<'PY' || { echo "FAIL: empty figures for $*"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["launch"]["linked"] > 100 and len(d["devices"]) >= 2 and len(d["steps"]) >= 2, d["launch"]
assert d["ops"] and d["kernels"], "no ops or kernels"
PY
    for parts in 2 7; do
        env $split STINT_SPLIT_PARTS=$parts "$STINT" gpu --json "$@" > "$TMP/got.json" 2> "$TMP/err" ||
            { echo "FAIL: $* in $parts parts:"; cat "$TMP/err"; exit 1; }
        env $split STINT_SPLIT_PARTS=$parts "$STINT" gpu "$@" > "$TMP/got.txt" 2>/dev/null
        grep -q "split read: $parts parts on 2 threads\$" "$TMP/err" ||
            { echo "FAIL: $* was not read in $parts parts:"; cat "$TMP/err"; fail=1; }
        cmp -s "$TMP/ref.json" "$TMP/got.json" || { echo "FAIL: $* in $parts parts: JSON differs"; diff "$TMP/ref.json" "$TMP/got.json" | head -5; fail=1; }
        cmp -s "$TMP/ref.txt" "$TMP/got.txt" || { echo "FAIL: $* in $parts parts: text differs"; fail=1; }
    done
}
same "$TMP/one.rank0.json"
same "$TMP/mt.rank0.json"
same --step 'ProfilerStep#1*' --top 0 "$TMP/mt.rank0.json"
same "$TMP/rk.rank0.json" "$TMP/rk.rank1.json" "$TMP/rk.rank2.json"
[ "$fail" = 0 ] || exit 1
echo "ok"
