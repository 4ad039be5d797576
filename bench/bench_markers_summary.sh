#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_markers_summary.sh - `stint summary`, `tree` and `steps` on a
# generated [STRACE] marker log, against `grep -c STRACE` (the floor: one
# pass over the bytes) and `stint timing` (the same parser, its own small
# model) on the same file in the same run; medians of REPS runs each, the
# load average before and after.
#   bench/bench_markers_summary.sh [BUILD_DIR]
#   BENCH_MARKERS_SIZE  log size for gen_strace.py (default 100M; 20M with
#                       BENCH_QUICK=1; the figures in docs/performance.md use 1G)
#   BENCH_MARKERS_LOG   an existing log to use instead (not deleted)
#   REPS=N              runs per command (default 3)
#   STINT_THREADS       passed through (the default uses every core)
#   BENCH_BASE=DIR      also DIR/stint's summary, tree and steps, interleaved in
#                       the same runs (a before/after on the same file and load)
#   BENCH_STEP=NAME     the step `steps --step` takes (default simpler_run, the
#                       generator's invocation root); a run that exits 2 or more
#                       (usage, I/O, memory) is reported and fails the script
# Columns: wall and CPU (user + sys) medians, MB/s of wall and of CPU, the
# ratio to grep -c's wall and CPU, and the largest RSS of the runs.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_strace.py
[ -x "$STINT" ] || { echo "bench_markers_summary: $STINT not built"; exit 1; }
reps=${REPS:-3}
size=${BENCH_MARKERS_SIZE:-100M}
[ -z "${BENCH_MARKERS_SIZE:-}" ] && [ "${BENCH_QUICK:-0}" = 1 ] && size=20M
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-bench-mk.XXXXXX"); trap 'rm -rf "$work"' EXIT
log=${BENCH_MARKERS_LOG:-}
if [ -z "$log" ]; then
  [ -f "$GEN" ] || { echo "bench_markers_summary: SKIP: $GEN is absent"; exit 0; }
  log=$work/markers_$size.log
  echo "generating a $size marker log (gen_strace.py --seed 1)" >&2
  python3 "$GEN" --size "$size" --seed 1 -o "$log" 2>/dev/null
fi
mb=$(($(stat -c %s "$log") / 1000000))
step=${BENCH_STEP:-simpler_run}

. "$(dirname "$0")/timing_lib.sh" # median, run_timed

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $mb MB; medians of $reps"
names=(grep timing summary tree steps)
base=${BENCH_BASE:+$BENCH_BASE/stint}
[ -n "$base" ] && { [ -x "$base" ] || { echo "bench_markers_summary: $base not built"; exit 1; }; }
[ -n "$base" ] && names+=(base_summary base_tree base_steps)
for ((r = 0; r < reps; r++)); do # (interleaved: a burst of neighbour load hits every command alike)
  run_timed "$work/grep" grep -c STRACE "$log" || true
  run_timed "$work/timing" "$STINT" timing "$log" || true
  run_timed "$work/summary" "$STINT" summary "$log" || true
  run_timed "$work/tree" "$STINT" tree "$log" || true
  run_timed "$work/steps" "$STINT" steps "$log" --step "$step" || true
  if [ -n "$base" ]; then
    run_timed "$work/base_summary" "$base" summary "$log" || true
    run_timed "$work/base_tree" "$base" tree "$log" || true
    run_timed "$work/base_steps" "$base" steps "$log" --step "$step" || true
  fi
done
# every run's exit code (torn records make 1: a partial report; 2 and up: no figure to quote)
for n in "${names[@]}"; do
  awk -v n="$n" '$4 >= 2 { print "bench_markers_summary: " n " exited " $4; bad = 1 } END { exit bad }' "$work/$n.t" ||
    exit 1
done
gw=$(awk '{print $1}' "$work/grep.t" | median); gc=$(awk '{print $3}' "$work/grep.t" | median)
printf "%-16s %8s %8s %9s %9s %9s %9s %9s\n" what wall_s cpu_s MB/s_wall MB/s_cpu wall/grep cpu/grep rss_MB
for n in "${names[@]}"; do
  w=$(awk '{print $1}' "$work/$n.t" | median); c=$(awk '{print $3}' "$work/$n.t" | median)
  rss=$(awk '{print $2}' "$work/$n.t" | sort -n | tail -1)
  what="stint $n"; [ "$n" = grep ] && what="grep -c STRACE"; [ "${n#base_}" != "$n" ] && what="base ${n#base_}"
  awk -v what="$what" -v w="$w" -v c="$c" -v mb="$mb" -v gw="$gw" -v gc="$gc" -v r="$rss" 'BEGIN {
    printf "%-16s %8.3f %8.2f %9.0f %9.0f %8.2fx %8.2fx %9.0f\n", what, w, c, mb / w, (c > 0 ? mb / c : 0),
      w / gw, (gc > 0 ? c / gc : 0), r / 1024 }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
