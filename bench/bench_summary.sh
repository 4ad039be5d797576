#!/usr/bin/env bash
# `stint summary` on generated Chrome traces (../shared/tools/gen_chrome.py)
# against a Python json.load baseline doing the same computation, measured in
# the same run; medians of REPS runs. Also `.gz` input against the bare
# inflate speed of the same input layer (bench_inflate).
#   bench/bench_summary.sh [BUILD_DIR]
#   BENCH_QUICK=1      20 MB instead of 100 MB
#   STINT_BENCH_1G=1   also 1 GB (python baseline run once: it needs ~7 GB RAM)
#   REPS=N             runs per measurement (default 3)
# Generated files live under ${TMPDIR:-/tmp} and are deleted at the end.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
[ -x "$STINT" ] || { echo "bench_summary: $STINT not built"; exit 1; }
[ -f "$GEN" ] || { echo "bench_summary: SKIP: $GEN is absent"; exit 0; }
reps=${REPS:-3}
size=100M; [ "${BENCH_QUICK:-0}" = 1 ] && size=20M
sizes=$size; [ "${STINT_BENCH_1G:-0}" = 1 ] && sizes="$size 1G"
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-bench.XXXXXX"); trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# run_timed OUTPREFIX CMD...: appends "seconds maxrss_kb" to OUTPREFIX.t
run_timed() {
  local out=$1; shift
  /usr/bin/time -f "%e %M" -o "$out.one" "$@" >"$out.stdout" 2>/dev/null
  tail -1 "$out.one" >> "$out.t"
}

printf "%-6s %-22s %9s %10s %10s %12s\n" size what "median s" "MB/s" "ratio" "peak RSS MB"
for sz in $sizes; do
  f=$work/chrome_$sz.json
  python3 "$GEN" --size "$sz" --seed 1 -o "$f" 2>/dev/null
  bytes=$(stat -c %s "$f")
  mb=$(awk -v b="$bytes" 'BEGIN {print b/1e6}')
  rm -f "$work"/s.t "$work"/p.t "$work"/g.t "$work"/i.t
  rm -f "$work"/s1.t
  for _ in $(seq "$reps"); do run_timed "$work/s" "$STINT" summary --json "$f"; done
  for _ in $(seq "$reps"); do STINT_THREADS=1 run_timed "$work/s1" "$STINT" summary --json "$f"; done
  spans=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['spans'])" "$work/s.stdout")
  preps=$reps; [ "$sz" = 1G ] && preps=1
  for _ in $(seq "$preps"); do run_timed "$work/p" python3 "$here/summary_baseline.py" "$f"; done
  pspans=$(awk '{print $1}' "$work/p.stdout")
  st=$(awk '{print $1}' "$work/s.t" | median); srss=$(awk '{print $2}' "$work/s.t" | sort -n | tail -1)
  pt=$(awk '{print $1}' "$work/p.t" | median); prss=$(awk '{print $2}' "$work/p.t" | sort -n | tail -1)
  printf "%-6s %-22s %9.2f %10.0f %10s %12.0f\n" "$sz" "stint (2 threads)" "$st" "$(awk -v m="$mb" -v t="$st" 'BEGIN{print m/t}')" "1.0" "$(awk -v r="$srss" 'BEGIN{print r/1024}')"
  s1t=$(awk '{print $1}' "$work/s1.t" | median); s1rss=$(awk '{print $2}' "$work/s1.t" | sort -n | tail -1)
  printf "%-6s %-22s %9.2f %10.0f %10s %12.0f\n" "$sz" "stint, 1 thread" "$s1t" "$(awk -v m="$mb" -v t="$s1t" 'BEGIN{print m/t}')" "$(awk -v a="$s1t" -v b="$st" 'BEGIN{printf "%.2fx", a/b}')" "$(awk -v r="$s1rss" 'BEGIN{print r/1024}')"
  printf "%-6s %-22s %9.2f %10.0f %10s %12.0f\n" "$sz" "python3 json.load" "$pt" "$(awk -v m="$mb" -v t="$pt" 'BEGIN{print m/t}')" "$(awk -v a="$pt" -v b="$st" 'BEGIN{printf "%.1fx", a/b}')" "$(awk -v r="$prss" 'BEGIN{print r/1024}')"
  echo "       spans: stint $spans, python $pspans; RSS bound 64 MB + 16 B/span = $(awk -v s="$spans" 'BEGIN{printf "%.0f", 64 + s*16/1048576}') MB"
  # gzip input against the bare inflate of the same layer
  gzip -1 -c "$f" > "$f.gz"
  rm -f "$f"
  for _ in $(seq "$reps"); do run_timed "$work/g" "$STINT" summary --json "$f.gz"; done
  if [ -x "$build/bench/bench_inflate" ]; then
    for _ in $(seq "$reps"); do "$build/bench/bench_inflate" "$f.gz" | awk '{print $2, 0}' >> "$work/i.t"; done
    it=$(awk '{print $1}' "$work/i.t" | median)
  else
    it=0
  fi
  gt=$(awk '{print $1}' "$work/g.t" | median)
  printf "%-6s %-22s %9.2f %10.0f %10s\n" "$sz" "stint summary (.gz)" "$gt" "$(awk -v m="$mb" -v t="$gt" 'BEGIN{print m/t}')" "$(awk -v a="$gt" -v b="$it" 'BEGIN{ if (b > 0) printf "%.2fx inflate", a/b; else print "-" }')"
  [ "$it" != 0 ] && printf "%-6s %-22s %9.2f %10.0f\n" "$sz" "bare inflate" "$it" "$(awk -v m="$mb" -v t="$it" 'BEGIN{print m/t}')"
  rm -f "$f.gz"
done
echo "(MB = 10^6 bytes of uncompressed JSON; ratio = time / time of 'stint (2 threads)'; medians of $reps runs; python baseline runs ${preps:-$reps}x for 1G)"
