#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint gpu` on a generated Kineto-style trace (bench/gen_kineto.py: two
# devices, three streams each, correlations, ac2g flows, nested cpu ops)
# against a pandas-free Python baseline computing the same device busy union
# (bench/gpu_baseline.py: json.load, then a sorted sweep per device), in the
# same run; medians of REPS runs, wall and CPU time, peak RSS. The busy
# figures of both must agree, or the bench fails. `stint summary` on the
# same file (the reader's own pace, which bounds gpu's) is the last row.
#   bench/bench_gpu.sh [BUILD_DIR]
#   BENCH_QUICK=1      20 MB instead of 100 MB
#   STINT_BENCH_1G=1   also 1 GB (the baseline then runs once: it needs ~10 GB RAM)
#   REPS=N             runs per measurement (default 3)
# Generated files live under ${TMPDIR:-/tmp} and are deleted at the end.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
[ -x "$STINT" ] || { echo "bench_gpu: $STINT not built"; exit 1; }
reps=${REPS:-3}
size=100; [ "${BENCH_QUICK:-0}" = 1 ] && size=20
sizes=$size; [ "${STINT_BENCH_1G:-0}" = 1 ] && sizes="$size 1000"
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-bench-gpu.XXXXXX"); trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/timing_lib.sh" # median, run_timed
# row SIZE WHAT FILE.t MB BASE_WALL BASE_CPU
row() {
  local wall cpu rss
  wall=$(awk '{print $1}' "$3" | median); cpu=$(awk '{print $3}' "$3" | median)
  rss=$(awk '{print $2}' "$3" | sort -n | tail -1)
  awk -v sz="$1" -v what="$2" -v w="$wall" -v c="$cpu" -v mb="$4" -v bw="$5" -v bc="$6" -v r="$rss" 'BEGIN {
    printf "%-6s %-22s %8.3f %8.2f %9.0f %9.0f %8s %8s %9.0f\n", sz, what, w, c, mb / w, (c > 0 ? mb / c : 0),
      (bw > 0 ? sprintf("%.2fx", bw / w) : "-"), (bc > 0 ? sprintf("%.2fx", bc / c) : "-"), r / 1024 }'
}

printf "%-6s %-22s %8s %8s %9s %9s %8s %8s %9s\n" size what "wall s" "cpu s" "MB/s" "MB/cpu-s" "speedup" "cpu x" "RSS MB"
for sz in $sizes; do
  f="$work/k$sz"
  python3 "$here/gen_kineto.py" "$f" --devices 2 --ops 12 --seed 1 --bytes $((sz * 1000000))
  t="$f.rank0.json"
  mb=$(stat -c %s "$t" | awk '{print $1 / 1e6}')
  n=$reps; [ "$sz" -ge 1000 ] && n=1
  rm -f "$work"/b.t "$work"/s.t "$work"/m.t
  for i in $(seq "$n"); do run_timed "$work/b" python3 "$here/gpu_baseline.py" "$t"; done
  for i in $(seq "$reps"); do
    run_timed "$work/s" "$STINT" gpu --json "$t"
    run_timed "$work/m" "$STINT" summary --json "$t" # the reader's own pace on this file, for scale
  done
  # the same busy union per device, or the figures mean nothing
  python3 - "$work/s.stdout" "$work/b.stdout" <<'PY'
import json, sys
got = {d["device"]: d["busy_ns"] for d in json.load(open(sys.argv[1]))["devices"]}
want = {int(a): int(b) for a, b in (l.split() for l in open(sys.argv[2]))}
if got != want:
    sys.exit("bench_gpu: busy differs: stint %s, baseline %s" % (got, want))
PY
  bw=$(awk '{print $1}' "$work/b.t" | median); bc=$(awk '{print $3}' "$work/b.t" | median)
  row "${sz}MB" "python baseline" "$work/b.t" "$mb" 0 0
  row "${sz}MB" "stint gpu --json" "$work/s.t" "$mb" "$bw" "$bc"
  row "${sz}MB" "stint summary --json" "$work/m.t" "$mb" "$bw" "$bc"
  rm -f "$t" "$work"/m.t
done
