#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Peak memory (max RSS) and rate of every command that reads a whole trace,
# on one generated Chrome trace (../shared/tools/gen_chrome.py --seed 1):
# summary, tree, steps, convert --to chrome and report, each the median wall
# time of REPS runs (MB/s = input MB over that median) and the largest RSS
# seen, with the load average before and after (a busy host moves the wall
# times, much less the CPU times (MB/cpu-s: input MB over the median CPU
# time, user + sys) and the RSS). Compare RSS with the bounds in
# docs/performance.md ("Memory per command").
#   bench/bench_memory.sh [BUILD_DIR] [SIZE]   SIZE: gen_chrome.py --size (default 100M)
#   BENCH_QUICK=1        20M instead of 100M
#   REPS=N               runs per command (default 3)
#   BENCH_MEMORY_FILE=F  measure F instead of generating (kept)
#   BENCH_MEMORY_CMDS="summary tree"  only these commands ("report-full": report
#                        from the whole model, STINT_REPORT_FULL=1, as before it streamed)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
[ -x "$STINT" ] || { echo "bench_memory: $STINT not built"; exit 1; }
size=${2:-100M}; [ "${BENCH_QUICK:-0}" = 1 ] && size=20M
reps=${REPS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-benchmem.XXXXXX"); trap 'rm -rf "$work"' EXIT
. "$here/timing_lib.sh" # median, run_timed

f=${BENCH_MEMORY_FILE:-}
if [ -z "$f" ]; then
  [ -f "$GEN" ] || { echo "bench_memory: SKIP: $GEN is absent"; exit 0; }
  f=$work/chrome_$size.json
  python3 "$GEN" --size "$size" --seed 1 -o "$f" >/dev/null 2>&1
fi
mb=$(awk -v b="$(stat -c %s "$f")" 'BEGIN {print b / 1e6}')
cmds=${BENCH_MEMORY_CMDS:-summary tree steps convert report}
echo "# $f: $mb MB; $reps runs each; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-22s %8s %8s %9s %9s %9s\n" command "wall s" "cpu s" "MB/s" "MB/cpu-s" "RSS MiB"
for c in $cmds; do
  case $c in
    summary) args=(summary "$f") ;;
    tree) args=(tree "$f") ;;
    steps) args=(steps "$f" --step 'ProfilerStep#*') ;;
    convert) args=(convert "$f" -o "$work/out.json" --to chrome) ;;
    report) args=(report "$f" -o "$work/out.html") ;;
    report-full) args=(report "$f" -o "$work/out.html") ;;
    *) echo "bench_memory: unknown command $c"; exit 2 ;;
  esac
  rm -f "$work/r.t"
  full=0; [ "$c" = report-full ] && full=1
  for _ in $(seq "$reps"); do run_timed "$work/r" env STINT_REPORT_FULL=$full "$STINT" "${args[@]}"; done
  awk -v what="$c" -v mb="$mb" -v w="$(awk '{print $1}' "$work/r.t" | median)" \
      -v cpu="$(awk '{print $3}' "$work/r.t" | median)" \
      -v rss="$(awk '{print $2}' "$work/r.t" | sort -n | tail -1)" \
      'BEGIN { printf "%-22s %8.3f %8.2f %9.0f %9.0f %9.0f\n", what, w, cpu, mb / w, (cpu > 0 ? mb / cpu : 0), rss / 1024 }'
  rm -f "$work/out.json" "$work/out.html"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F)"
