#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint summary --json` of a generated Chrome trace on two CPUs (taskset -c
# 0,1), first with both CPUs free of our own load, then with CPU 1 kept busy
# by a spinning shell pinned there: one thread against two, and two threads
# with the file cut into PARTS parts (STINT_SPLIT_PARTS; "-" is the default
# for the size). The runs of one case are interleaved with the others', so
# the neighbours' load falls on all alike; medians of REPS runs, wall and
# CPU seconds, and the load average before and after.
#   bench/bench_busy_cpu.sh [BUILD_DIR]
#   BENCH_QUICK=1   20 MB instead of 100 MB
#   REPS=N          runs per case (default 5)
#   PARTS="- 8 16"  the part counts tried on two threads
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
[ -x "$STINT" ] || { echo "bench_busy_cpu: $STINT not built"; exit 1; }
[ -f "$GEN" ] || { echo "bench_busy_cpu: SKIP: $GEN is absent"; exit 0; }
command -v taskset >/dev/null || { echo "bench_busy_cpu: SKIP: no taskset"; exit 0; }
[ "$(nproc)" -ge 2 ] || { echo "bench_busy_cpu: SKIP: fewer than two CPUs"; exit 0; }
reps=${REPS:-5}
size=100M; [ "${BENCH_QUICK:-0}" = 1 ] && size=20M
parts=${PARTS:-- 8 16}
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-bench.XXXXXX")
spin=
cleanup() { [ -n "$spin" ] && kill "$spin" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
. "$here/timing_lib.sh" # median, run_timed
python3 "$GEN" --size "$size" --seed 7 -o "$work/t.json" >/dev/null 2>&1
mb=$(($(stat -c %s "$work/t.json") / 1000000))

# one_round TAG: each case once (1 thread, then 2 threads per part count)
one_round() {
  run_timed "$work/$1.1" env STINT_THREADS=1 taskset -c 0,1 "$STINT" summary --json "$work/t.json"
  for p in $parts; do
    local pp=$p; [ "$p" = - ] && pp=
    run_timed "$work/$1.2p$p" env STINT_THREADS=2 STINT_SPLIT_PARTS=$pp taskset -c 0,1 "$STINT" summary --json "$work/t.json"
    cmp -s "$work/$1.1.stdout" "$work/$1.2p$p.stdout" || { echo "bench_busy_cpu: outputs differ ($1, parts $p)"; exit 1; }
  done
}
# table TAG: one row per case, the wall ratio against one thread's
table() {
  local w1; w1=$(awk '{print $1}' "$work/$1.1.t" | median)
  printf "%-5s %-16s %8.3f %8.2f %7s\n" "$1" "1 thread" "$w1" "$(awk '{print $3}' "$work/$1.1.t" | median)" "1.00x"
  for p in $parts; do
    local w c; w=$(awk '{print $1}' "$work/$1.2p$p.t" | median); c=$(awk '{print $3}' "$work/$1.2p$p.t" | median)
    printf "%-5s %-16s %8.3f %8.2f %7s\n" "$1" "2 threads, $p" "$w" "$c" "$(awk -v a="$w" -v b="$w1" 'BEGIN {printf "%.2fx", a / b}')"
  done
}
echo "summary --json, ${mb} MB generated Chrome JSON, taskset -c 0,1, medians of $reps; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$reps"); do one_round free; done
taskset -c 1 sh -c 'while :; do :; done' &
spin=$!
for _ in $(seq "$reps"); do one_round busy; done
kill "$spin"; wait "$spin" 2>/dev/null || true; spin=
printf "%-5s %-16s %8s %8s %7s\n" "cpu1" "threads, parts" "wall_s" "cpu_s" "vs 1"
table free
table busy
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
