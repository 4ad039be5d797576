#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make bench`: every benchmark, each reporting medians and ratios against
# baselines measured in the same run. Never part of `make test`.
# BENCH_QUICK=1 runs smaller sizes.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
spans=10000000; [ "${BENCH_QUICK:-0}" = 1 ] && spans=1000000
echo "== span overhead (bench_overhead)"
"$build/bench/bench_overhead" --spans "$spans" --reps 5 --threads 2 --out "${TMPDIR:-/tmp}"
# Instruction counts are immune to the machine's noise (no hardware counters
# here: callgrind counts). disabled/recorded count the instrumented loop only;
# markers counts the loop plus the drain, formatting and write(2) calls.
if command -v valgrind >/dev/null 2>&1; then
  echo; echo "== instructions per span (callgrind, 300000 spans)"
  n=300000
  for c in disabled:loop_enabled recorded:loop_enabled markers:run_case snprintf:loop_snprintf_write; do
    fn=${c#*:}; c=${c%%:*}
    f=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$f" --toggle-collect=$fn \
      "$build/bench/bench_overhead" --only $c --spans $n --out "${TMPDIR:-/tmp}" >/dev/null 2>&1
    ir=$(grep -m1 '^summary:' "$f" | awk '{print $2}')
    rm -f "$f"
    awk -v c=$c -v ir="$ir" -v n=$n 'BEGIN { printf "%-12s %10.1f instructions/span\n", c, ir / n }'
  done
fi
for s in "$here"/bench_*.sh; do
  [ -e "$s" ] || continue
  echo; echo "== $(basename "$s")"
  bash "$s" "$build"
done
