#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint steps --step NAME` on a marker log streams its steps from a lean
# model (steps_stream.h): the invocations that nest as their depths say are
# lean records, the others (torn parents, children outside their parents,
# overlapping invocations) slices that the stream takes from the model at its
# finish, and two steps that start in the same ns on two threads go in input
# order, which the reader gives for lean records whose name is a step name.
# STINT_STEPS_FULL=1 takes the whole model as before: both must print
# byte-identical stdout and stderr, and the stream must serve without
# reading the whole model again (STINT_DEBUG_LEAN says when it does).
set -euo pipefail
STINT=${STINT_BIN:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-steps-markers.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 n=0

same() { # same FILE ARGS...: lean and full steps outputs identical, and lean served
  n=$((n + 1))
  local f=$1; shift
  STINT_DEBUG_LEAN=1 "$STINT" steps "$f" "$@" >"$T/lean.out" 2>"$T/lean.err" && lrc=0 || lrc=$?
  STINT_STEPS_FULL=1 "$STINT" steps "$f" "$@" >"$T/full.out" 2>"$T/full.err" && frc=0 || frc=$?
  if grep -q "whole model read again" "$T/lean.err"; then
    echo "FAIL: steps $(basename "$f") $*: the stream did not serve"
    fail=1
  fi
  grep -v "^stint: markers: .* groups as lean records$" "$T/lean.err" >"$T/lean.err2" || true
  if [ $lrc != $frc ] || ! cmp -s "$T/lean.out" "$T/full.out" || ! cmp -s "$T/lean.err2" "$T/full.err"; then
    echo "FAIL: steps $(basename "$f") $* differs (exit $lrc / $frc):"
    diff "$T/full.out" "$T/lean.out" | head -8 || true
    diff "$T/full.err" "$T/lean.err2" | head -4 || true
    fail=1
  fi
}

# Two threads, each with steps "run" whose children are "a" and "b"; the
# steps of the two threads start in the same ns, and the log writes thread
# 20's records before thread 10's, so input order is not thread order. One
# invocation on thread 10 has a torn parent (its children go to the next
# record of their depth: a slice group), one on thread 20 a child outside its
# parent.
python3 - "$T/tie.log" <<'PY'
import sys
out = open(sys.argv[1], "w")
def rec(tid, inv, depth, name, ts, dur, torn=False):
    line = f"[STRACE] v=1 pid=7 tid={tid} inv={inv} hid=00000000000000aa depth={depth} name={name} ts={ts}"
    out.write(line + ("\n" if torn else f" dur={dur}\n"))
t = 1_000_000
for k in range(12):
    t0 = t + k * 10_000
    for tid in (20, 10):  # thread 20 first in the file
        inv = k + 1
        w = 5_000 + tid * 10 + k  # distinct walls: the row order shows
        rec(tid, inv, 1, "a", t0 + 100, 1_000 + tid)
        if tid == 10 and k == 4:
            rec(tid, inv, 0, "run", t0, w, torn=True)
            rec(tid, inv, 1, "b", t0 + 2_000, 500)
            rec(tid, inv, 0, "run", t0 + 3_000, 1_000)
            continue
        if tid == 20 and k == 7:
            rec(tid, inv, 1, "b", t0 + w - 100, 900)  # ends past its parent
        else:
            rec(tid, inv, 1, "b", t0 + 2_000, 700)
        rec(tid, inv, 0, "run", t0, w)
out.close()
PY
for args in "--step run" "--step run --json" "--step *" "--step * --json" "--step run --columns 1" \
  "--step run --tid 10" "--step a --min-dur 1030ns"; do
  # shellcheck disable=SC2086
  same "$T/tie.log" $args
done
g=$(STINT_DEBUG_LEAN=1 "$STINT" steps "$T/tie.log" --step run 2>&1 >/dev/null | sed -n 's/^stint: markers: \([0-9]*\) of \([0-9]*\) groups as lean records$/\1 \2/p')
read -r gl gn <<<"${g:-0 0}"
if [ "$gl" = 0 ] || [ "$gl" = "$gn" ]; then
  echo "FAIL: tie.log: expected some groups lean and some not, got '$g'"
  fail=1
fi
# the first two rows start in the same ns: thread 20's (wall 5.200 us) comes first, as in the file
rows=$("$STINT" steps "$T/tie.log" --step run 2>/dev/null | awk '$1 ~ /^[0-9]+$/ {print $3}' | head -2 | tr '\n' ' ')
[ "$rows" = "5.200 5.100 " ] || { echo "FAIL: tie.log: rows 0 and 1 have walls '$rows', expected '5.200 5.100 '"; fail=1; }

# the marker logs of the tests
. "$(dirname "$0")/marker_logs.sh"
each_marker_log "$(dirname "$0")/.." same --step '*'
each_marker_log "$(dirname "$0")/.." same --step '*' --json

SHARED=${STINT_SHARED_DIR:-}
if [ -f "$SHARED/tools/gen_strace.py" ]; then
  for s in 1 2 3; do
    python3 "$SHARED/tools/gen_strace.py" --size 400K --seed $s --malformed 0.0$s -o "$T/g$s.log" 2>/dev/null >&2
    for args in "--step simpler_run" "--step * --json" "--step *launch* --columns 0" "--step simpler_run.* --columns 2"; do
      # shellcheck disable=SC2086
      same "$T/g$s.log" $args
    done
  done
  each_marker_log "$SHARED/corpus" same --step '*'
  echo "corpus: $marker_logs_seen marker logs"
else
  echo "SKIP (generated logs, corpus): $SHARED is absent (shared tools and corpus); logs made here only"
fi
echo "steps on marker logs: $n comparisons"
[ $fail = 0 ] && echo PASS
exit $fail
