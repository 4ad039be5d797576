#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint summary --json`, `stint tree --json`, `stint slices --json`, `stint
# steps --json` and `stint counters --json` against an independent oracle (oracle.py: the whole file through python's
# json, the rules of docs/formats/summary-json.md, docs/cli/tree.md,
# docs/cli/steps.md and model.h written again): every field of lanes,
# categories and names (sum, per-lane union, self time, nearest-rank
# quantiles, mean), async slices, counters, instants, repairs and event
# counts; every call path's calls, total, self, interpolated quantiles and
# max, and what the tree left out; every slice row with its depth and parent;
# every step's wall, child unions, overlap
# and unattributed time and their min/median/max; every counter series'
# statistics, gaps and trapezoid integral.
#  1. adversarial traces (ties, B/E with wrong or missing names, zero-length
#     pairs, unfinished spans, bad durations, async ids of every scope,
#     files out of time order, half of them with random filters), on one
#     thread and split in three parts; each seed again as a JSONL session
#     (explicit parents, children on other threads, crashes, a cut last
#     line) through summary and tree, and as a marker log (prefixes, two
#     records on a line, CRLF, device-clock records, torn records) through
#     summary;
#  2. traces of ../shared/tools/gen_chrome.py in each flavour, style and
#     layout, on one thread against the oracle, and split on two threads
#     and gzipped against the one thread's bytes;
#  3. the comparisons themselves: an output with one number changed must
#     differ.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
ORACLE=$here/oracle.py
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0

# 1. adversarial (fewer under a sanitizer, 10-40x slower)
n=200 # (300 and more pass too: `python3 tests/sh/oracle.py --adversarial 1 N` with STINT_BIN)
[ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && n=30
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
  k=0 bad=0 most=99
  [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && most=3
  while read -r cfg; do
    [ $k -ge $most ] && break
    k=$((k + 1)); f=$T/g$k.json
    # shellcheck disable=SC2086 # cfg holds several generator options
    if ! python3 "$GEN" --size 700K --seed "$k" $cfg -o "$f" 2>/dev/null; then
      echo "FAIL: gen_chrome.py $cfg did not run"; bad=1; continue
    fi
    gzip -c "$f" >"$f.gz"
    for cmd in summary tree slices steps counters; do
      flag=() opt=()
      [ $cmd = tree ] && flag=(--tree)
      [ $cmd = slices ] && flag=(--slices)
      [ $cmd = steps ] && flag=(--steps 'ProfilerStep*') opt=(--step 'ProfilerStep*')
      [ $cmd = counters ] && flag=(--counters 20000000) opt=(--gap 20ms)
      # the oracle judges the one-thread read; the split and gzipped reads must give its bytes
      for run in "1 $f" "2 $f" "1 $f.gz"; do
        set -- $run
        STINT_THREADS=$1 STINT_SPLIT_MIN_BYTES=1 STINT_SPLIT_PARTS=4 "$STINT" $cmd --json "${opt[@]}" "$2" >"$T/s.json" 2>/dev/null
        sed 's/"input":"[^"]*"/"input":_/' "$T/s.json" >"$T/s.cmp" # (the file's name differs when gzipped)
        if [ "$run" = "1 $f" ]; then
          cp "$T/s.cmp" "$T/s1.cmp"
          if ! out=$(python3 "$ORACLE" "${flag[@]}" "$f" "$T/s.json" 2>&1); then
            echo "FAIL: $cmd of generated ($cfg) on one thread:"; echo "$out" | head -8; bad=1
          fi
        elif ! cmp -s "$T/s.cmp" "$T/s1.cmp"; then
          echo "FAIL: $cmd of generated ($cfg) on $1 thread(s), $(basename "$2"), differs from one thread's:"
          diff <(tr ',' '\n' <"$T/s1.cmp") <(tr ',' '\n' <"$T/s.cmp") | head -8; bad=1
        fi
      done
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
  [ $bad = 0 ] && echo "ok: $k generated traces, summary, tree, slices, steps and counters, each on one thread, in four parts on two threads and gzipped, the same as the oracle"
  [ $bad = 0 ] || fail=1
fi

# 3. the comparisons can fail
f=$T/adv6.json
python3 -c "
import json, sys
sys.path.insert(0, '$here')
import oracle
json.dump({'traceEvents': oracle.adversarial(6)}, open('$f', 'w'))"
"$STINT" summary --json "$f" >"$T/s.json" 2>/dev/null
"$STINT" tree --json "$f" >"$T/t.json" 2>/dev/null
"$STINT" steps --json --step '[ab]' "$f" >"$T/p.json" 2>/dev/null
"$STINT" counters --json --gap 5000 "$f" >"$T/c.json" 2>/dev/null
"$STINT" slices --json "$f" >"$T/l.json" 2>/dev/null
rm -f "$T/m.json"
for what in self_ns p90_ns total_ns busy_ns tree_self tree_p50 tree_calls steps_union steps_unattributed \
            counters_integral counters_median slices_depth slices_parent; do
  python3 - "$T/s.json" "$T/t.json" "$T/m.json" "$what" "$T/p.json" "$T/c.json" "$T/l.json" <<'EOF'
import json, sys
what = sys.argv[4]
if what.startswith("slices_"):
    d = json.load(open(sys.argv[7]))
    r = [r for r in d["slices"] if r["parent"] is not None and r["parent"] > 0][0]
    if what == "slices_depth":
        r["depth"] += 1
    else:
        r["parent"] -= 1
elif what.startswith("counters_"):
    d = json.load(open(sys.argv[6]))
    s = [s for s in d["series"] if s[what[9:]] is not None][0]
    s[what[9:]] = s[what[9:]] * (1 + 1e-9) + 1
elif what.startswith("steps_"):
    d = json.load(open(sys.argv[5]))
    st = [s for s in d["steps"] if s["children_union_ns"]][0]
    if what == "steps_union":
        k = sorted(st["children_union_ns"])[0]
        st["children_union_ns"][k] += 1
    else:
        st["unattributed_ns"] += 1
elif what.startswith("tree_"):
    d = json.load(open(sys.argv[2]))
    f = {"tree_self": "self_ns", "tree_p50": "p50_ns", "tree_calls": "calls"}[what]
    todo, nodes = list(d["host"]), []
    while todo:  # every node, depth first
        n = todo.pop()
        nodes.append(n)
        todo.extend(n["children"])
    n = [n for n in nodes if n["calls"] and (n["children"] or what == "tree_calls")][0]
    n[f] += 1
else:
    d = json.load(open(sys.argv[1]))
    rows = d["categories"] if what == "busy_ns" else d["names"]
    rows[len(rows) // 2][what] += 1
json.dump(d, open(sys.argv[3], "w"))
EOF
  [ $? = 0 ] || { echo "FAIL: could not change $what for the mutation check"; fail=1; continue; }
  flag=(); case $what in tree_*) flag=(--tree);; slices_*) flag=(--slices);; steps_*) flag=(--steps '[ab]');; counters_*) flag=(--counters 5000);; esac
  if python3 "$ORACLE" "${flag[@]}" "$f" "$T/m.json" >/dev/null 2>&1; then
    echo "FAIL: the oracle did not notice a changed $what"; fail=1
  fi
done
[ $fail = 0 ] && echo "ok: a summary, tree, slices, steps or counters output with one self, p50, p90, total, busy, calls, depth, parent, union, unattributed, integral or median figure changed is caught"
exit $fail
