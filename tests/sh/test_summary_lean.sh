#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint summary` keeps complete spans as 12-byte lean records (model.h,
# "Lean mode"); STINT_SUMMARY_NO_LEAN=1 keeps them as full slices. Both must
# give byte-identical stdout and stderr (and so must STINT_HMEM=malloc,
# plain malloc instead of huge pages), on one thread and on two (the split
# parse merges two models), for adversarial traces made here (equal starts,
# unsorted input, partial overlaps, B/E around X, instants that stack, flows
# v1 and v2, negative and huge durations, E events on threads without
# slices, exact ties between spans kept as records and spans that cannot be,
# a lane in order but for a few late spans, starts seconds apart)
# and, when ../shared is present, for generated realistic traces and
# every JSON file of the shared corpus.
set -euo pipefail
STINT=${STINT_BIN:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-lean.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0

python3 - "$work" <<'PY'
import json, random, sys
out = sys.argv[1]
for seed in range(12):
    r = random.Random(seed)
    ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    names = ["a", "b", "c", "d", "e"]
    cats = ["", "x", "y"]
    for i in range(r.randint(50, 400)):
        pid, tid = r.choice([(1, 1), (1, 2), (2, 7), (3, "w")])
        ts = r.choice([0, 5, 10, 10.5, 20, 33.25]) + r.randint(0, 40) * r.choice([1, 0.5])
        k = r.random()
        e = {"pid": pid, "tid": tid, "ts": ts, "name": r.choice(names), "cat": r.choice(cats)}
        if k < 0.45:
            e["ph"] = "X"
            e["dur"] = r.choice([0, 1, 2.5, 5, 10, 40, r.randint(0, 60)])
            if r.random() < 0.03:
                e["dur"] = -3
            if r.random() < 0.03:
                e["dur"] = 2000000000  # 2e9 us = 2e15 ns > 2^40 ns: not lean
            if r.random() < 0.05:
                e["bind_id"] = r.randint(1, 4)
                e["flow_out" if r.random() < 0.5 else "flow_in"] = True
        elif k < 0.60:
            e["ph"] = "B"
        elif k < 0.75:
            e["ph"] = "E"
            if r.random() < 0.5:
                del e["name"]
        elif k < 0.85:
            e["ph"] = r.choice(["i", "I"])
            e["s"] = r.choice(["t", "p", "g"])
        elif k < 0.95:
            e["ph"] = r.choice(["s", "t", "f"])
            e["id"] = r.randint(1, 5)
            e["name"] = "flow"
            if e["ph"] == "f" and r.random() < 0.5:
                e["bp"] = "e"
        else:
            e["ph"] = r.choice(["b", "e"])
            e["id"] = r.randint(1, 3)
        ev.append(e)
    if seed % 3 == 0:
        ev.sort(key=lambda e: e.get("ts", 0))
    with open(f"{out}/adv{seed}.json", "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in ev) + "\n]\n")
# exact ties in start and duration between spans lean mode keeps as records
# and spans it cannot (a v2 flow needs the slice's index), in both input
# orders and in runs: the earlier one in the input is the parent either way
for name, order in (("tie_rec_first", "RS"), ("tie_slice_first", "SR"), ("tie_runs", "RRSRSSR")):
    ev = []
    for rep in range(3):
        for k, kind in enumerate(order):
            e = {"ph": "X", "pid": 1, "tid": 1, "ts": 100 * rep, "dur": 50, "name": f"{kind}{k}"}
            if kind == "S":
                e["bind_id"] = f"0x{rep}{k}"
                e["flow_out"] = True
            ev.append(e)
        ev.append({"ph": "X", "pid": 1, "tid": 1, "ts": 100 * rep + 10, "dur": 5, "name": "child"})
    with open(f"{out}/{name}.json", "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in ev) + "\n]\n")
# a lane in order but for a few late spans (parents written after their
# children, out of order among themselves, one tied with an earlier span):
# under an eighth, so the walk merges them back from a sorted side list
ev = [{"ph": "X", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 4, "name": "leaf%d" % (i % 7)} for i in range(200)]
ev.insert(60, {"ph": "X", "pid": 1, "tid": 1, "ts": 600, "dur": 95, "name": "kept600"})
for t0 in (1500, 300, 900, 300, 1200, 600, 50):
    ev.append({"ph": "X", "pid": 1, "tid": 1, "ts": t0, "dur": 95, "name": "late%d" % t0})
with open(f"{out}/late_parents.json", "w") as f:
    f.write("[\n" + ",\n".join(json.dumps(e) for e in ev) + "\n]\n")
# starts far apart: a lean segment keeps starts as 32-bit offsets from its
# base (2^31 ns = 2147483.648 us either side). Jumps ahead of more than that
# (a new segment), long parents written after children that start more than
# that after them (they stay ordinary slices, some tied with records), starts
# at the edges of the range, a lane in reverse order over seconds (sorted
# whole, then cut into views) and one with few late parents (merged back)
r = random.Random(99)
def us(ns):  # ns as exact decimal microseconds
    return "%d.%03d" % divmod(ns, 1000)
def x(tid, ts, dur, name):
    return '{"ph": "X", "pid": 1, "tid": %d, "ts": %s, "dur": %s, "name": "%s"}' % (tid, us(ts), us(dur), name)
shapes = (("wide_jumps", "jumps"), ("wide_reverse", "reverse"), ("wide_late", "late"), ("wide_few", "reverse"))
for name, shape in shapes:
    ev = []
    for tid in (1, 2):
        t, lane = 1000000, []
        for i in range(1500):
            lane.append((t, r.choice([1000, 3000, 8000]), "leaf%d" % (i % 5)))
            if name == "wide_few":  # few jumps: sorted and packed in place
                t += r.choice([2000] * 40 + [2**31])
            else:
                t += r.choice([2000, 5000, 20000, 2**31 - 1, 2**31, 3 * 10**9])
            if r.random() < 0.02:  # a long parent, written after its children
                d = r.choice([2**31, 2**31 + 1, 2**31 + 1000, 5 * 10**9])
                lane.append((t - d, d + 1000, "long"))
                if r.random() < 0.5:  # and a record tied with it, after it
                    lane.append((t - d, d + 1000, "tie"))
        if shape == "reverse":
            lane.reverse()
        elif shape == "late":
            lane = [e for e in lane if e[2] not in ("long", "tie")]
            lane += [(lane[k][0], 30000, "lateparent") for k in range(0, len(lane), 40)]
        ev += [x(tid, *e) for e in lane]
    with open(f"{out}/{name}.json", "w") as f:
        f.write("[\n" + ",\n".join(ev) + "\n]\n")
PY

GEN=${STINT_SHARED_DIR:-}/tools/gen_chrome.py
gsize=3M
[ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && gsize=1M # (10-40x slower under a sanitizer)
if [ -n "${STINT_SHARED_DIR:-}" ] && [ -f "$GEN" ]; then
  python3 "$GEN" --size "$gsize" --seed 7 -o "$work/gen_mixed.json" >/dev/null
  python3 "$GEN" --size "$gsize" --seed 8 --flavor chrome --be-frac 0.4 --style compact -o "$work/gen_chrome.json" >/dev/null
  python3 "$GEN" --size "$gsize" --seed 9 --flavor kineto --format array-open -o "$work/gen_kineto.json" >/dev/null
else
  echo "SKIP (generated traces): ../shared/tools/gen_chrome.py is absent; adversarial traces only"
fi

n=0
for f in "$work"/*.json; do
  for threads in 1 2; do
    for json in --json ""; do
      # (on two threads the lean walk and tally are split by track from one span on)
      STINT_THREADS=$threads STINT_SPLIT_MIN_BYTES=4096 STINT_FINISH_SPLIT_MIN=1 "$STINT" summary $json "$f" \
        >"$work/lean.out" 2>"$work/lean.err" && rl=0 || rl=$?
      STINT_SUMMARY_NO_LEAN=1 STINT_THREADS=$threads STINT_SPLIT_MIN_BYTES=4096 "$STINT" summary $json "$f" \
        >"$work/full.out" 2>"$work/full.err" && rf=0 || rf=$?
      n=$((n + 1))
      # and without huge pages (hmem.h; huge pages forced on for these small files): plain malloc gives the same
      if [ -n "$json" ]; then
        STINT_HMEM=malloc STINT_THREADS=$threads STINT_SPLIT_MIN_BYTES=4096 "$STINT" summary $json "$f" \
          >"$work/malloc.out" 2>"$work/malloc.err" && rm_=0 || rm_=$?
        STINT_HMEM=huge STINT_THREADS=$threads STINT_SPLIT_MIN_BYTES=4096 "$STINT" summary $json "$f" \
          >"$work/huge.out" 2>"$work/huge.err" && rh=0 || rh=$?
        if [ "$rh" != "$rm_" ] || ! cmp -s "$work/huge.out" "$work/malloc.out" || ! cmp -s "$work/huge.err" "$work/malloc.err"; then
          echo "FAIL: $(basename "$f") threads=$threads: STINT_HMEM=malloc and huge differ"
          fail=1
        fi
      fi
      if [ "$rl" != "$rf" ] || ! cmp -s "$work/lean.out" "$work/full.out" || ! cmp -s "$work/lean.err" "$work/full.err"; then
        echo "FAIL: $(basename "$f") threads=$threads ${json:-human}: lean and full summaries differ (rc $rl vs $rf)"
        diff "$work/full.out" "$work/lean.out" | head -20 || true
        diff "$work/full.err" "$work/lean.err" | head -5 || true
        fail=1
      fi
    done
  done
done
# every Chrome JSON file of the shared corpus (Perfetto, speedscope, catapult cases...), read in place
CORPUS=${STINT_SHARED_DIR:-}/corpus
if [ -n "${STINT_SHARED_DIR:-}" ] && [ -d "$CORPUS" ]; then
  nc=0 k=0 every=1
  # (under a sanitizer, 10-40x slower: every 4th file, ~450 otherwise)
  [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && every=4
  while IFS= read -r f; do
    k=$((k + 1))
    [ $((k % every)) = 0 ] || continue
    a=$("$STINT" summary --json "$f" 2>&1; echo "rc=$?")
    b=$(STINT_SUMMARY_NO_LEAN=1 "$STINT" summary --json "$f" 2>&1; echo "rc=$?")
    nc=$((nc + 1))
    [ "$a" = "$b" ] || { echo "FAIL: corpus $f: lean and full summaries differ"; fail=1; }
  done < <(find "$CORPUS" \( -name '*.json' -o -name '*.json.gz' \) | sort)
  echo "corpus: $nc files compared"
else
  echo "SKIP (corpus part): ../shared/corpus is absent"
  skipped=1
fi
# the lean path must really have been taken: a span over 2^40 ns stays a full slice and still counts
grep -q '"spans":[1-9]' <("$STINT" summary --json "$work/adv0.json" 2>/dev/null) || { echo "FAIL: no spans counted"; fail=1; }
[ "$fail" = 0 ] && echo "ok: $n lean/full comparisons identical"
# 77 (skipped) when the rest passed but the corpus part could not run
[ "$fail" = 0 ] && [ "${skipped:-0}" = 1 ] && exit 77
exit "$fail"
