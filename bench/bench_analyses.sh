#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Analyses throughput against the same run's baseline: on a generated Chrome
# trace (../shared/tools/gen_chrome.py, seeded), the median wall time of 3
# runs of each analysis command, and its ratio to `stint summary` (the
# reader plus the cheapest analysis) measured in the same run.
#   bash bench/bench_analyses.sh [build-dir] [size, default 100M]
set -eu
build=${1:-build}; size=${2:-100M}
stint=$build/stint
gen=${STINT_SHARED_DIR:-../shared}/tools/gen_chrome.py
[ -x "$stint" ] || { echo "build first: $stint is missing"; exit 2; }
[ -e "$gen" ] || { echo "SKIP: $gen is absent"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$gen" --size "$size" --seed 1 -o "$tmp/t.json" >/dev/null 2>&1
median3() { # command... -> median seconds of 3 runs
  local a=() t0 t1
  for _ in 1 2 3; do
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N)
    a+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${a[@]}" | sort -g | sed -n 2p
}
base=$(median3 "$stint" summary "$tmp/t.json")
printf "%-28s %10s %8s\n" "command ($size input)" "median_s" "ratio"
printf "%-28s %10.3f %8.2f\n" "summary (baseline)" "$base" 1
for cmd in "tree" "tree --flat" "steps --step *Loop*" "counters" \
           "convert -o $tmp/o.json --to chrome" "convert -o $tmp/o.folded --to folded" "report -o $tmp/r.html"; do
  # shellcheck disable=SC2086
  t=$(median3 "$stint" $cmd "$tmp/t.json")
  label=${cmd%% -o*}; case $cmd in *--to*) label="$label --to${cmd##*--to}";; esac
  printf "%-28s %10.3f %8.2f\n" "$label" "$t" "$(echo "$t / $base" | bc -l)"
done
