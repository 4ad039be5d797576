#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint report` on Chrome JSON keeps no slice of the trace (docs/performance.md,
# "Memory per command"): its spans stream from the lean model to the page's
# parts, so the slope of its peak RSS between a trace of N spans and one of 3N,
# in bytes per span, must stay under 40 (the lean model's 12-byte records and
# what grows with them). When the report kept the whole model (64 bytes a
# slice, plus the call tree's work arrays) the slope was ~100 B a span and this
# test failed. Also: the page is byte for byte the whole model's
# (STINT_REPORT_FULL=1), and its step table and flame graph hold the figures
# the generator wrote. Skipped under sanitizers (their shadow memory is no RSS
# of stint's).
. "$(dirname "$0")/rss_prelude.sh" reportmem
bound=40 # bytes per span

# STEPS steps (train_step) on each of 2 threads, each 10,000 ns long: 4 children of 2,000 ns
# (names c0..c3, 500 ns apart) with 10 grandchildren of 100 ns each (names
# g0..g9): 45 spans a step, 45 call paths in all.
gen() { # gen STEPS FILE
  python3 - "$1" "$2" <<'PY'
import sys
steps, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write('{"traceEvents":[\n')
    first = True
    for tid in (1, 2):
        for k in range(steps):
            t0 = k * 12000 + tid * 3
            ev = [("train_step", t0, 10000)]
            for c in range(4):
                cs = t0 + 500 + c * 2500
                ev.append(("c%d" % c, cs, 2000))
                for g in range(10):
                    ev.append(("g%d" % g, cs + 100 + g * 150, 100))
            for name, ts, dur in ev:
                f.write('%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d.%03d,"dur":%d.%03d}\n'
                        % ("" if first else ",", name, tid, ts // 1000, ts % 1000, dur // 1000, dur % 1000))
                first = False
    f.write("]}\n")
PY
}

peak_kb() { # peak RSS in KiB of `stint report FILE` (a bounded timeline: 1000 slices)
  /usr/bin/time -f '%M' -o "$tmp/rss" "$stint" report "$1" -o "$tmp/r.html" --max-slices 1000 >"$tmp/out" 2>"$tmp/err" || {
    echo "report $1 failed:"
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
echo "report: $n1 spans -> ${a} KiB, $n2 spans -> ${b} KiB: $slope B per span (bound: $bound)"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$slope" -le "$bound" ] || fail "report takes $slope B a span, over $bound: it keeps the spans"

# the page: the same as the whole model's
"$stint" report "$tmp/a.json" -o "$tmp/lean.html" --max-slices 1000 2>/dev/null
STINT_REPORT_FULL=1 "$stint" report "$tmp/a.json" -o "$tmp/full.html" --max-slices 1000 2>/dev/null
cmp -s "$tmp/lean.html" "$tmp/full.html" || fail "the page differs from the whole model's"
# 2 x s1 steps, guessed (the most frequent root name holding "step"); step 0: wall 10 us, each child 2 us, no
# overlap, unattributed 10 - 8 = 2 us
grep -q "steps named <b>train_step</b> (guessed.*): $((2 * s1)) on host-clock lanes" "$tmp/lean.html" ||
  fail "the step count is not $((2 * s1))"
grep -q '<tr><td>0</td><td>host</td><td>10.000</td><td>2.000</td><td>2.000</td><td>2.000</td><td>2.000</td><td>0.000</td><td>2.000</td></tr>' "$tmp/lean.html" ||
  fail "step 0's row is not wall 10, children 2 each, overlap 0, unattributed 2"
# the flame graph: 45 paths, all drawn; c0 under a step: 2 x s1 calls of 2 us
grep -q "the flame graph holds" "$tmp/lean.html" && fail "the flame graph left paths out"
calls=$((2 * s1))
grep -q ",$((calls * 2000)),[0-9]*,2,$calls\]" "$tmp/lean.html" ||
  fail "no flame node at depth 2 with $calls calls totalling $((calls * 2)) us"
# two steps of one clock at one start (lean records keep no input order): the same page
printf '%s\n' '{"traceEvents":[' \
  '{"ph":"X","cat":"c","name":"train_step","pid":1,"tid":2,"ts":10,"dur":7},' \
  '{"ph":"X","cat":"c","name":"b","pid":1,"tid":2,"ts":12,"dur":1},' \
  '{"ph":"X","cat":"c","name":"train_step","pid":1,"tid":1,"ts":10,"dur":5},' \
  '{"ph":"X","cat":"c","name":"a","pid":1,"tid":1,"ts":11,"dur":1}]}' >"$tmp/tie.json"
"$stint" report "$tmp/tie.json" -o "$tmp/tie.html" 2>/dev/null
STINT_REPORT_FULL=1 "$stint" report "$tmp/tie.json" -o "$tmp/tie_full.html" 2>/dev/null
cmp -s "$tmp/tie.html" "$tmp/tie_full.html" || fail "steps at one start: the page differs from the whole model's"
[ "$fails" = 0 ] || exit 1
echo "ok"
