#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint steps --step NAME` on Chrome JSON keeps per step only its figures,
# not the spans (docs/performance.md, "Memory per command"): the slope of its
# peak RSS between a trace of N spans and one of 3N, in bytes per span, must
# stay under 32 (the lean model's records and what grows with them). When
# steps kept the whole model (64 bytes a slice, plus its work arrays) the
# slope was ~80 B a span and this test failed. Also: both outputs are the
# same as the whole model's (STINT_STEPS_FULL=1), and the step count and
# one step's figures are the ones the generator wrote.
# Skipped under sanitizers (their shadow memory is no RSS of stint's).
. "$(dirname "$0")/rss_prelude.sh" stepsmem
bound=32 # bytes per span

# STEPS steps on each of 2 threads, each 10,000 ns long: 4 children of 2,000 ns
# (names c0..c3, 500 ns apart) with 10 grandchildren of 100 ns each: 45 spans a step.
gen() { # gen STEPS FILE
  python3 - "$1" "$2" <<'PY'
import sys
steps, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents":[\n')
    first = True
    for tid in (1, 2):
        for k in range(steps):
            t0 = k * 12000 + tid * 3  # us in the file are ns / 1000: write whole ns as "x.yyy"
            ev = [("ProfilerStep#%d" % k, t0, 10000)]
            for c in range(4):
                cs = t0 + 500 + c * 2500
                ev.append(("c%d" % c, cs, 2000))
                for g in range(10):
                    ev.append(("g", cs + 100 + g * 150, 100))
            for name, ts, dur in ev:
                f.write('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d.%03d,"dur":%d.%03d}\n'
                        % ("" if first else ",", name, tid, ts // 1000, ts % 1000, dur // 1000, dur % 1000))
                first = False
    f.write("]}\n")
PY
}

peak_kb() { # peak RSS in KiB of `stint steps FILE --step ...`
  /usr/bin/time -f '%M' -o "$tmp/rss" "$stint" steps "$1" --step 'ProfilerStep#*' >"$tmp/out" 2>"$tmp/err" || {
    echo "steps $1 failed:"
    cat "$tmp/err"
    return 1
  }
  tail -1 "$tmp/rss"
}

s1=2000
s2=$((3 * s1))
gen $s1 "$tmp/a.json"
gen $s2 "$tmp/b.json"
n1=$((s1 * 2 * 45))
n2=$((s2 * 2 * 45))
a=$(peak_kb "$tmp/a.json")
b=$(peak_kb "$tmp/b.json")
slope=$(((b - a) * 1024 / (n2 - n1)))
echo "steps: $n1 spans -> ${a} KiB, $n2 spans -> ${b} KiB: $slope B per span (bound: $bound)"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$slope" -le "$bound" ] || fail "steps takes $slope B a span, over $bound: it keeps the spans"

# the text table: 2 x s1 steps; step 0 (thread 1, ts 3 ns): wall 10 us, each child 2 us,
# no overlap, unattributed 10 - 8 = 2 us
"$stint" steps "$tmp/a.json" --step 'ProfilerStep#*' >"$tmp/lean.txt"
STINT_STEPS_FULL=1 "$stint" steps "$tmp/a.json" --step 'ProfilerStep#*' >"$tmp/full.txt"
cmp -s "$tmp/lean.txt" "$tmp/full.txt" || fail "the table differs from the whole model's"
grep -q "^# $((2 * s1)) steps named 'ProfilerStep#\*' ($((2 * s1)) on host-clock lanes" "$tmp/lean.txt" ||
  fail "expected $((2 * s1)) steps: $(head -1 "$tmp/lean.txt")"
grep -Eq '^ +0 +0\.003 +10\.000 +2\.000 +2\.000 +2\.000 +2\.000 +0\.000 +2\.000$' "$tmp/lean.txt" ||
  fail "step 0: expected wall 10, c0..c3 2 us each, overlap 0, unattributed 2: $(sed -n 4p "$tmp/lean.txt")"
"$stint" steps "$tmp/a.json" --step 'ProfilerStep#*' --json >"$tmp/lean.json"
STINT_STEPS_FULL=1 "$stint" steps "$tmp/a.json" --step 'ProfilerStep#*' --json >"$tmp/full.json"
cmp -s "$tmp/lean.json" "$tmp/full.json" || fail "--json differs from the whole model's"

# steps of two threads that start at the same time come in input order (thread 2's first,
# though thread 1 came first in the file):
# a lean record carries no input order, so steps reads the whole model for them; the same
# with a B/E step (a whole slice) tied with a lean one
cat >"$tmp/tie.json" <<'JSON'
{"traceEvents":[
{"ph":"X","name":"warmup","pid":1,"tid":1,"ts":1,"dur":1},
{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":2,"ts":100,"dur":50},
{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":40},
{"ph":"X","name":"a","pid":1,"tid":1,"ts":110,"dur":10},
{"ph":"B","name":"ProfilerStep#2","pid":1,"tid":3,"ts":200},
{"ph":"X","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":30},
{"ph":"E","pid":1,"tid":3,"ts":260}
]}
JSON
"$stint" steps "$tmp/tie.json" --step 'ProfilerStep#*' --json >"$tmp/tie.out"
STINT_STEPS_FULL=1 "$stint" steps "$tmp/tie.json" --step 'ProfilerStep#*' --json >"$tmp/tie.full"
cmp -s "$tmp/tie.out" "$tmp/tie.full" || fail "tied steps: the output differs from the whole model's"
tids=$(grep -o '"index":[0-9]*,"ts_ns":[0-9]*,"pid":1,"tid":[0-9]*' "$tmp/tie.out" | sed 's/.*"tid"://' | tr '\n' ' ')
[ "$tids" = "2 1 3 1 " ] || fail "tied steps: expected the threads 2 1 3 1 (input order at equal starts), got: $tids"

if [ $fails -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "steps memory: $slope B a span, under $bound; the same output as the whole model's"
