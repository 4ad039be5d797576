# SPDX-License-Identifier: MIT
# timing_lib.sh - what the shell benchmarks share; sourced, never run (run.sh
# runs bench_*.sh only).
#   median              the median of the numbers on stdin, one a line
#   run_timed OUT CMD...  runs CMD (stdout to OUT.stdout, stderr dropped) and
#                       appends "wall_s maxrss_kb cpu_s exit_code" to OUT.t; cpu = user +
#                       sys (on a shared machine the wall time also measures the
#                       neighbours, the CPU time much less so); the wall time
#                       is taken in ns around the run (time's own %e has 10 ms
#                       steps), the CPU times keep time's 10 ms steps.
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run_timed() {
  local out=$1 t0 t1; shift
  t0=$(date +%s%N)
  local rc=0
  /usr/bin/time -f "%M %U %S" -o "$out.one" "$@" >"$out.stdout" 2>/dev/null || rc=$?
  t1=$(date +%s%N)
  tail -1 "$out.one" | awk -v ns=$((t1 - t0)) -v rc=$rc '{print ns / 1e9, $1, $2 + $3, rc}' >> "$out.t"
}
