#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.sh - two builds of stint compared on the same machine in the same run,
# interleaved (A, B, A, B, ...) so that a slow minute of a noisy host hits
# both alike: `stint summary` on a generated Chrome trace (plain and gzip),
# on one thread and on all, and the recorded span cost of bench_overhead.
# Prints each side's median and the ratio B/A (below 1: B is faster).
#
#   bench/ab.sh BUILD_A BUILD_B      (each a build folder with stint and bench/)
#   ROUNDS=N     interleaved rounds (default 7)
#   SIZE=100M    the generated trace's size (gen_chrome.py --size)
#
# Use it for a change that must not slow anything down: build the old commit
# in a worktree (git worktree add ../old REV; cmake -S ../old -B ../old/build;
# cmake --build ../old/build --target benches stint_cli), then run this.
set -euo pipefail
a=${1:?usage: bench/ab.sh BUILD_A BUILD_B}
b=${2:?usage: bench/ab.sh BUILD_A BUILD_B}
here=$(cd "$(dirname "$0")" && pwd)
gen=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
rounds=${ROUNDS:-7}
size=${SIZE:-100M}
for x in "$a" "$b"; do
  [ -x "$x/stint" ] && [ -x "$x/bench/bench_overhead" ] || { echo "ab: $x lacks stint or bench/bench_overhead (target benches)" >&2; exit 2; }
done
[ -f "$gen" ] || { echo "ab: SKIP: $gen is absent"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-ab.XXXXXX"); trap 'rm -rf "$work"' EXIT
python3 "$gen" --size "$size" --seed 5 --out "$work/t.json" >/dev/null 2>&1
gzip -1 -k "$work/t.json"

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
wall() { # wall seconds of one run of "$@"
  local t0 t1
  t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
  awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.4f\n", ns / 1e9}'
}
span_ns() { # the recorded case's ns/span on one thread
  "$1/bench/bench_overhead" --spans 2000000 --reps 3 --threads 1 --out "$work" 2>/dev/null |
    awk '/^recorded \(binary record\) +1 / {print $NF}' | head -1
}

cases="summary_1t summary_all summary_gz_1t span_recorded"
for r in $(seq 1 "$rounds"); do
  for side in A B; do
    d=$a; [ $side = B ] && d=$b
    STINT_THREADS=1 wall "$d/stint" summary "$work/t.json" >> "$work/summary_1t.$side"
    wall "$d/stint" summary "$work/t.json" >> "$work/summary_all.$side"
    STINT_THREADS=1 wall "$d/stint" summary "$work/t.json.gz" >> "$work/summary_gz_1t.$side"
    span_ns "$d" >> "$work/span_recorded.$side"
  done
done

echo "# A = $a, B = $b; $rounds interleaved rounds; trace: gen_chrome.py --size $size --seed 5"
echo "# $(date -u +%Y-%m-%d), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%-16s %12s %12s %8s\n' case median_A median_B B/A
for c in $cases; do
  ma=$(median < "$work/$c.A"); mb=$(median < "$work/$c.B")
  unit=s; [ $c = span_recorded ] && unit=ns
  awk -v c=$c -v a="$ma" -v b="$mb" -v u=$unit 'BEGIN {printf "%-16s %10.4f%-2s %10.4f%-2s %8.3f\n", c, a, u, b, u, (a > 0 ? b / a : 0)}'
done
