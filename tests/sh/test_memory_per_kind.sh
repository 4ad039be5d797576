#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory per kind of thing `stint summary` keeps (docs/reliability.md,
# "Memory per kind of thing kept"): for each kind (distinct names, lanes,
# thread instants, flows) a trace of N items and one of 3N are made by
# bench/gen_kinds.py; the slope of summary's peak RSS between the two, in
# bytes per item, must stay under the documented figure. Before the lean
# instants, the 32-byte first segments and the 160-byte name rows, the slopes
# were ~68 B/instant, ~2,000 B/lane and ~430 B/name: this test failed.
# Also: thread instants that a flow binds to are still there for the binding
# (the summary is byte-identical to the full model's, one thread and two,
# and binds the 2 arrows worked out by hand below).
# Skipped under sanitizers (their shadow memory is no RSS of stint's).
. "$(dirname "$0")/rss_prelude.sh" memkind
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The documented bounds, bytes per item (docs/reliability.md keeps the same figures).
declare -A bound=([names]=384 [lanes]=768 [instants]=24 [flows]=176)
# Sizes: small enough for a quick test (2 to 18 MB of JSON), large enough
# that the fixed part (the read window, the first huge pages) cancels out.
declare -A small=([names]=40000 [lanes]=40000 [instants]=40000 [flows]=40000)

peak_kb() { # peak RSS in KiB of `stint summary FILE`
  /usr/bin/time -f '%M' -o "$tmp/rss" "$stint" summary "$1" >/dev/null 2>"$tmp/err" || {
    echo "summary $1 failed:"
    cat "$tmp/err"
    return 1
  }
  tail -1 "$tmp/rss"
}

for kind in names lanes instants flows; do
  n1=${small[$kind]}
  n2=$((3 * n1))
  python3 "$src/bench/gen_kinds.py" "$kind" "$n1" -o "$tmp/a.json" 2>/dev/null
  python3 "$src/bench/gen_kinds.py" "$kind" "$n2" -o "$tmp/b.json" 2>/dev/null
  a=$(peak_kb "$tmp/a.json")
  b=$(peak_kb "$tmp/b.json")
  slope=$(( (b - a) * 1024 / (n2 - n1) ))
  echo "$kind: $n1 -> ${a} KiB, $n2 -> ${b} KiB: $slope B per item (documented: ${bound[$kind]})"
  [ "$slope" -le "${bound[$kind]}" ] || fail "$kind take $slope B each, over the documented ${bound[$kind]} B"
  rm -f "$tmp/a.json" "$tmp/b.json"
done

# Instants a flow binds to: on thread 1, 's' id 1 binds to the instant i1 at
# its ts (5 us) and 'f' id 3 (no bp) to the next slice, the instant i4;
# 's' id 2 at 31 us binds to nothing (i2 is at 30 us). Arrows: 1 (id 1:
# i1 -> recv) and 2 (id 3: recv -> i4); 's' id 2 is an unbound_flow. Thread 3's 300
# instants have no flow near them: counted only.
python3 - "$tmp/fi.json" <<'EOF'
import json, sys
ev = [
    {"ph": "i", "s": "t", "name": "i1", "pid": 1, "tid": 1, "ts": 5},
    {"ph": "s", "name": "f", "cat": "c", "id": 1, "pid": 1, "tid": 1, "ts": 5},
    {"ph": "X", "name": "recv", "pid": 1, "tid": 2, "ts": 0, "dur": 20},
    {"ph": "f", "bp": "e", "name": "f", "cat": "c", "id": 1, "pid": 1, "tid": 2, "ts": 8},
    {"ph": "i", "s": "t", "name": "i2", "pid": 1, "tid": 1, "ts": 30},
    {"ph": "s", "name": "f", "cat": "c", "id": 2, "pid": 1, "tid": 1, "ts": 31},
    {"ph": "s", "name": "f", "cat": "c", "id": 3, "pid": 1, "tid": 2, "ts": 10},
    {"ph": "f", "name": "f", "cat": "c", "id": 3, "pid": 1, "tid": 1, "ts": 50},
    {"ph": "i", "s": "t", "name": "i4", "pid": 1, "tid": 1, "ts": 55},
]
# thread 4 and 5: a v2 flow (bind_id) between two spans, with instants before
# and between them on thread 4: kept (a flow lies on the track), the span's
# index for the v2 binding still its own. Arrow 3: out4 -> in5.
ev += [
    {"ph": "i", "s": "t", "name": "i5", "pid": 1, "tid": 4, "ts": 200},
    {"ph": "X", "name": "out4", "pid": 1, "tid": 4, "ts": 210, "dur": 5, "bind_id": 7, "flow_out": True},
    {"ph": "i", "s": "t", "name": "i6", "pid": 1, "tid": 4, "ts": 212},
    {"ph": "i", "s": "t", "name": "i7", "pid": 1, "tid": 4, "ts": 220},
    {"ph": "X", "name": "in5", "pid": 1, "tid": 5, "ts": 230, "dur": 5, "bind_id": 7, "flow_in": True},
]
for i in range(300):
    ev.append({"ph": "i", "s": "t", "name": "tick", "pid": 1, "tid": 3, "ts": 100 + i})
    if i % 3 == 0:
        ev.append({"ph": "X", "name": "work", "pid": 1, "tid": 3, "ts": 100 + i, "dur": 2})
# last in the file (after every instant): a v2 flow_in with no flow_out
# before it, the earliest unbound flow event; its message names its slice,
# which a wrong input index would name as some instant
ev.append({"ph": "X", "name": "lonely", "pid": 1, "tid": 6, "ts": 1, "dur": 1, "bind_id": 9, "flow_in": True})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"), separators=(",", ":"))
EOF
"$stint" summary "$tmp/fi.json" >"$tmp/lean.out" 2>"$tmp/lean.err" || true
STINT_SUMMARY_NO_LEAN=1 "$stint" summary "$tmp/fi.json" >"$tmp/full.out" 2>"$tmp/full.err" || true
STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=4096 STINT_FINISH_SPLIT_MIN=1 "$stint" summary "$tmp/fi.json" \
  >"$tmp/two.out" 2>"$tmp/two.err" || true
cmp -s "$tmp/lean.out" "$tmp/full.out" && cmp -s "$tmp/lean.err" "$tmp/full.err" ||
  fail "instants and flows: summary differs from the full model's (STINT_SUMMARY_NO_LEAN=1)"
cmp -s "$tmp/lean.out" "$tmp/two.out" && cmp -s "$tmp/lean.err" "$tmp/two.err" ||
  fail "instants and flows: summary on two threads differs from one"
grep -q '^flows  8 flow events, 3 arrows bound to slices$' "$tmp/lean.out" ||
  fail "instants and flows: expected 8 flow events and 3 arrows: $(grep '^flows' "$tmp/lean.out" || echo none)"
grep -Eq '^  thread +tick +300$' "$tmp/lean.out" || fail "instants: 300 x tick on thread 3 expected"
grep -q "dropped 2 x unbound_flow (first: flow_in on 'lonely' at ts 1000 ns has no flow_out before it)" "$tmp/lean.err" ||
  fail "instants and flows: expected 2 unbound_flow, the first on 'lonely': $(cat "$tmp/lean.err")"

if [ $fails -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "memory per kind: all under the documented figures; instants bound by flows kept"
