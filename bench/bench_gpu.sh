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
#   BENCH_OLD=PATH     also another stint binary (a build before a change),
#                      interleaved with this one; its output must be the same
#   BENCH_NO_BASELINE=1  skip the Python baseline (busy then checked against
#                      BENCH_OLD's output only, when given)
#   BENCH_TRACE_DIR=D  reuse D/kSIZE.rank0.json when it exists (not deleted)
# Every row gives wall and CPU (user + sys) medians and the peak RSS; the
# load average is printed before and after (wall times from a loaded
# machine say little: compare CPU there).
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

old=${BENCH_OLD:-}
[ -z "$old" ] || [ -x "$old" ] || { echo "bench_gpu: BENCH_OLD=$old is not executable"; exit 1; }
base=1; [ "${BENCH_NO_BASELINE:-0}" = 1 ] && base=0
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(date -u +%FT%TZ)"
printf "%-6s %-22s %8s %8s %9s %9s %8s %8s %9s\n" size what "wall s" "cpu s" "MB/s" "MB/cpu-s" "speedup" "cpu x" "RSS MB"
for sz in $sizes; do
  f="$work/k$sz"; t="$f.rank0.json"; keep=0
  if [ -n "${BENCH_TRACE_DIR:-}" ] && [ -f "$BENCH_TRACE_DIR/k$sz.rank0.json" ]; then
    t="$BENCH_TRACE_DIR/k$sz.rank0.json"; keep=1
  else
    python3 "$here/gen_kineto.py" "$f" --devices 2 --ops 12 --seed 1 --bytes $((sz * 1000000))
  fi
  mb=$(stat -c %s "$t" | awk '{print $1 / 1e6}')
  n=$reps; [ "$sz" -ge 1000 ] && n=1
  rm -f "$work"/b.t "$work"/s.t "$work"/m.t "$work"/o.t
  [ "$base" = 1 ] && for i in $(seq "$n"); do run_timed "$work/b" python3 "$here/gpu_baseline.py" "$t"; done
  for i in $(seq "$reps"); do
    [ -z "$old" ] || run_timed "$work/o" "$old" gpu --json "$t"
    run_timed "$work/s" "$STINT" gpu --json "$t"
    run_timed "$work/m" "$STINT" summary --json "$t" # the reader's own pace on this file, for scale
  done
  if [ -n "$old" ] && ! cmp -s "$work/o.stdout" "$work/s.stdout"; then
    echo "bench_gpu: $old and $STINT differ on $t"; exit 1
  fi
  # the same busy union per device, or the figures mean nothing
  [ "$base" = 0 ] || python3 - "$work/s.stdout" "$work/b.stdout" <<'PY'
import json, sys
got = {d["device"]: d["busy_ns"] for d in json.load(open(sys.argv[1]))["devices"]}
want = {int(a): int(b) for a, b in (l.split() for l in open(sys.argv[2]))}
if got != want:
    sys.exit("bench_gpu: busy differs: stint %s, baseline %s" % (got, want))
PY
  bw=0; bc=0
  if [ "$base" = 1 ]; then
    bw=$(awk '{print $1}' "$work/b.t" | median); bc=$(awk '{print $3}' "$work/b.t" | median)
    row "${sz}MB" "python baseline" "$work/b.t" "$mb" 0 0
  fi
  [ -z "$old" ] || row "${sz}MB" "old stint gpu --json" "$work/o.t" "$mb" "$bw" "$bc"
  row "${sz}MB" "stint gpu --json" "$work/s.t" "$mb" "$bw" "$bc"
  row "${sz}MB" "stint summary --json" "$work/m.t" "$mb" "$bw" "$bc"
  [ "$keep" = 1 ] || rm -f "$t"
  rm -f "$work"/m.t
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
