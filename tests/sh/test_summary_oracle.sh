#!/usr/bin/env bash
# `stint summary --json` against an independent oracle (summary_oracle.py: the
# whole file through python's json, the rules of docs/formats/summary-json.md
# and model.h written again): every field of lanes, categories and names
# (sum, per-lane union, self time, nearest-rank quantiles, mean), async
# slices, counters, instants, repairs and event counts must be equal.
#  1. adversarial traces (ties, B/E with wrong or missing names, zero-length
#     pairs, unfinished spans, bad durations, async ids of every scope,
#     files out of time order), on one thread and split in three parts;
#  2. traces of ../shared/tools/gen_chrome.py in each flavour, style and
#     layout, on one thread, split on two threads, and gzipped;
#  3. the comparison itself: a summary with one number changed must differ.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
ORACLE=$here/summary_oracle.py
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0

# 1. adversarial (fewer under a sanitizer, 10-40x slower)
n=500
[ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && n=100
if ! STINT_BIN=$STINT python3 "$ORACLE" --adversarial 1 "$n" >"$T/adv.out" 2>&1; then
  echo "FAIL: adversarial traces differ from the oracle:"; head -30 "$T/adv.out"; fail=1
else
  cat "$T/adv.out"
fi

# 2. generated traces
GEN=${STINT_SHARED_DIR:-}/tools/gen_chrome.py
if [ ! -f "$GEN" ]; then
  echo "SKIP (part 2): $GEN is absent (shared tools); adversarial traces only"
else
  k=0
  while read -r cfg; do
    k=$((k + 1)); f=$T/g$k.json
    # shellcheck disable=SC2086 # cfg holds several generator options
    if ! python3 "$GEN" --size 700K --seed "$k" $cfg -o "$f" 2>/dev/null; then
      echo "FAIL: gen_chrome.py $cfg did not run"; fail=1; continue
    fi
    gzip -c "$f" >"$f.gz"
    for run in "1 $f" "2 $f" "1 $f.gz"; do
      set -- $run
      STINT_THREADS=$1 STINT_SPLIT_MIN_BYTES=1 STINT_SPLIT_PARTS=4 "$STINT" summary --json "$2" >"$T/s.json" 2>/dev/null
      if out=$(python3 "$ORACLE" "$f" "$T/s.json" 2>&1); then
        :
      else
        echo "FAIL: generated ($cfg) on $1 thread(s), $(basename "$2"):"; echo "$out" | head -8; fail=1
      fi
    done
  done <<'EOF'
--flavor mixed
--flavor kineto
--flavor chrome
--style compact
--style pretty --format array
--format array-open
--be-frac 0.6 --max-depth 8
--instant-frac 0.3
--procs 1 --threads 1 --be-frac 0.9
--max-depth 1 --threads 12
EOF
  [ $fail = 0 ] && echo "ok: $k generated traces, each on one thread, in four parts on two threads and gzipped, the same as the oracle"
fi

# 3. the comparison can fail
f=$T/g1.json
[ -f "$f" ] || { python3 -c "
import json, sys
sys.path.insert(0, '$here')
import summary_oracle as o
json.dump({'traceEvents': o.adversarial(3)}, open('$f', 'w'))"; }
"$STINT" summary --json "$f" >"$T/s.json" 2>/dev/null
for field in self_ns p90_ns total_ns busy_ns; do
  python3 - "$T/s.json" "$T/m.json" "$field" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = sys.argv[3]
rows = d["categories"] if f == "busy_ns" else d["names"]
rows[len(rows) // 2][f] += 1
json.dump(d, open(sys.argv[2], "w"))
EOF
  if python3 "$ORACLE" "$f" "$T/m.json" >/dev/null 2>&1; then
    echo "FAIL: the oracle did not notice a changed $field"; fail=1
  fi
done
[ $fail = 0 ] && echo "ok: a summary with one self_ns, p90_ns, total_ns or busy_ns off by 1 ns is caught"
exit $fail
