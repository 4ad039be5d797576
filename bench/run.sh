#!/usr/bin/env bash
# `make bench`: every benchmark, each reporting medians and ratios against
# baselines measured in the same run. Never part of `make test`.
# BENCH_QUICK=1 runs smaller sizes.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
spans=10000000; [ "${BENCH_QUICK:-0}" = 1 ] && spans=1000000
echo "== span overhead (bench_overhead)"
"$build/bench/bench_overhead" --spans "$spans" --reps 5 --threads 2 --out "${TMPDIR:-/tmp}"
for s in "$here"/bench_*.sh; do
  [ -e "$s" ] || continue
  echo; echo "== $(basename "$s")"
  bash "$s" "$build"
done
