#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint tree` builds its tree from the spans a lean model streams (Chrome
# JSON and marker logs; analysis.h, stint_tree_sink); STINT_TREE_FULL=1
# builds it from the whole model as before. Both must print byte-identical
# stdout and stderr, for every view (the tree, --flat, --json, --sort, --depth)
# and with filters, on adversarial traces made here (instants with slices in
# them, unfinished spans, overlaps, equal starts, recursion, device lanes),
# the marker logs of the tests, and, when ../shared is present, on generated
# Chrome traces and marker logs (some with many torn records) and every JSON
# file and marker log of the shared corpus.
set -euo pipefail
STINT=${STINT_BIN:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-tree-lean.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 n=0

python3 - "$T" <<'PY'
import json, random, sys
out = sys.argv[1]
for seed in range(10):
    r = random.Random(seed)
    ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    names = ["a", "b", "c", "a", "rec"]
    for i in range(r.randint(40, 300)):
        pid, tid = r.choice([(1, 1), (1, 2), (2, 7)])
        ts = r.randint(0, 60) * r.choice([1, 0.5, 10])
        k = r.random()
        e = {"pid": pid, "tid": tid, "ts": ts, "name": r.choice(names), "cat": r.choice(["x", "y", "x,z"])}
        if k < 0.55:
            e.update(ph="X", dur=r.choice([0, 1, 5, 20, 100, 400]))
        elif k < 0.7:
            e.update(ph="B")
        elif k < 0.85:
            e.update(ph="E")
        elif k < 0.95:
            e.update(ph="i", s="t")
        else:
            e.update(ph="b", id=r.randint(1, 3))
        ev.append(e)
    r.shuffle(ev)
    json.dump(ev, open(f"{out}/adv{seed}.json", "w"))
PY

same() { # same FILE ARGS...: lean and full tree outputs must be identical
  n=$((n + 1))
  local f=$1; shift
  "$STINT" tree "$f" "$@" >"$T/lean.out" 2>"$T/lean.err" && lrc=0 || lrc=$?
  STINT_TREE_FULL=1 "$STINT" tree "$f" "$@" >"$T/full.out" 2>"$T/full.err" && frc=0 || frc=$?
  if [ $lrc != $frc ] || ! cmp -s "$T/lean.out" "$T/full.out" || ! cmp -s "$T/lean.err" "$T/full.err"; then
    echo "FAIL: tree $(basename "$f") $* differs (exit $lrc / $frc):"
    diff "$T/full.out" "$T/lean.out" | head -8 || true
    diff "$T/full.err" "$T/lean.err" | head -4 || true
    fail=1
  fi
}

views() { # views FILE: every view, some filters
  same "$1"
  same "$1" --json
  same "$1" --flat
  same "$1" --flat --json --sort self
  same "$1" --sort calls --depth 2
  same "$1" --name 'a*'
  same "$1" --flat --cat x --min-dur 2us
  same "$1" --json --time-range 10us:30us --pid 1
}

views_few() { # views_few FILE: the tree, its JSON and a filtered flat view
  same "$1"
  same "$1" --json
  same "$1" --flat --cat x --min-dur 2us
}

for f in "$T"/adv*.json; do views "$f"; done
# marker logs of the tests (torn records, device records, overlapping invocations): a log's
# groups that nest by their depths are lean records, the others slices placed at the finish;
# under a sanitizer, where a run starts slowly and this test took over three minutes in CI,
# three views of each
logviews=views
[ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && logviews=views_few
. "$(dirname "$0")/marker_logs.sh"
each_marker_log "$(dirname "$0")/.." $logviews

SHARED=${STINT_SHARED_DIR:-}
if [ -f "$SHARED/tools/gen_chrome.py" ]; then
  python3 "$SHARED/tools/gen_chrome.py" --size 1M --seed 5 -o "$T/g.json" >/dev/null
  python3 "$SHARED/tools/gen_chrome.py" --size 1M --seed 6 --flavor chrome --be-frac 0.3 -o "$T/h.json" >/dev/null
  gzip -c "$T/h.json" >"$T/h.json.gz"
  python3 "$SHARED/tools/gen_strace.py" --size 300K --seed 2 -o "$T/s.log" >/dev/null
  python3 "$SHARED/tools/gen_strace.py" --size 300K --seed 3 --malformed 0.05 -o "$T/t.log" >/dev/null
  python3 "$SHARED/tools/gen_strace.py" --size 300K --seed 4 --malformed 0.2 --gap-ns 200 -o "$T/u.log" >/dev/null
  for f in "$T/g.json" "$T/h.json.gz" "$T/s.log" "$T/t.log" "$T/u.log"; do views "$f"; done
  # the log with many torn records has both kinds of group: the comparisons above saw the mix
  g=$(STINT_DEBUG_LEAN=1 "$STINT" tree "$T/u.log" 2>&1 >/dev/null | sed -n 's/^stint: markers: \([0-9]*\) of \([0-9]*\) groups as lean records$/\1 \2/p')
  read -r gl gn <<<"${g:-0 0}"
  if [ "$gl" = 0 ] || [ "$gl" = "$gn" ]; then
    echo "FAIL: u.log: expected some groups lean and some not, got '$g'"
    fail=1
  fi
  k=0 i=0 every=1
  [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && every=8 # (under a sanitizer: every 8th file)
  while IFS= read -r f; do
    i=$((i + 1))
    [ $((i % every)) = 0 ] || continue
    same "$f"; same "$f" --flat --json
    k=$((k + 1))
  done < <(find "$SHARED/corpus" -name '*.json' -size -2M | sort)
  echo "corpus: $k JSON files of $i"
  each_marker_log "$SHARED/corpus" $logviews
  echo "corpus: $marker_logs_seen marker logs"
else
  echo "SKIP (generated traces, corpus): $SHARED is absent (shared tools and corpus); adversarial traces only"
fi
echo "tree lean: $n comparisons"
[ $fail = 0 ] && echo PASS
exit $fail
