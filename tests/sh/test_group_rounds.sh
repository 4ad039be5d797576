#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The finish groups the slices by track in place (model_finish.c): by
# following the permutation's cycles, or, from 64 Ki slices on, in rounds
# through a buffer of a sixteenth of them. Both must leave the same slices in
# the same order: STINT_GROUP_ROUNDS_MIN=1 forces the rounds on any input,
# a huge value the cycles; `slices` (every slice, per track, in order),
# summary --json and tree --json must agree byte for byte, stdout and
# stderr, on traces made here whose threads interleave (Chrome JSON with
# equal starts, marker logs with torn records and depth links), and on a
# generated marker log when ../shared is present.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-grounds.XXXXXX"); trap 'rm -rf "$T"' EXIT
fail=0 n=0

python3 - "$T" <<'PY'
import json, random, sys
out = sys.argv[1]
r = random.Random(7)
ev = []
for i in range(3000):  # 37 threads, interleaved one event at a time
    tid = r.randrange(37)
    ts = r.randrange(0, 400) * r.choice([1, 10])
    ev.append({"ph": "X", "pid": 1 + tid % 3, "tid": tid, "ts": ts, "dur": r.choice([0, 1, 5, 50, 900]),
               "name": r.choice("abcde"), "cat": "c"})
json.dump({"traceEvents": ev}, open(f"{out}/interleaved.json", "w"))
with open(f"{out}/interleaved.log", "w") as f:
    t = 1000
    for inv in range(400):  # post-order invocations of 23 threads, lines interleaved
        lines = []
        for tid in range(23):
            base = t + tid * 7
            kids = [(base + 2 * k, 1 + k % 2) for k in range(3)]
            for k, (ts, d) in enumerate(kids):
                lines.append(f"[STRACE] v=1 pid=9 tid={tid} inv={inv} hid=00000000000000ab depth=1 name=k{k} ts={ts} dur={d}")
            lines.append(f"[STRACE] v=1 pid=9 tid={tid} inv={inv} hid=00000000000000ab depth=0 name=root ts={base} dur=9")
        r.shuffle(lines)
        if inv % 50 == 7:
            lines[3] = lines[3][:40]  # torn
        f.write("\n".join(lines) + "\n")
        t += 300
PY
logs="$T/interleaved.json $T/interleaved.log"
GEN=$SHARED/tools/gen_strace.py
if [ -f "$GEN" ]; then
    python3 "$GEN" --size 3M --seed 3 -o "$T/gen.log" 2>/dev/null && logs="$logs $T/gen.log"
else
    echo "note: $GEN is absent: generated marker log not compared"
fi

for log in $logs; do
    for cmd in "slices" "summary --json" "tree --json"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        STINT_THREADS=1 STINT_GROUP_ROUNDS_MIN=1 "$STINT" $cmd "$log" >"$T/a.out" 2>"$T/a.err"; echo "rc $?" >>"$T/a.out"
        # shellcheck disable=SC2086
        STINT_THREADS=1 STINT_GROUP_ROUNDS_MIN=999999999 "$STINT" $cmd "$log" >"$T/b.out" 2>"$T/b.err"; echo "rc $?" >>"$T/b.out"
        if ! cmp -s "$T/a.out" "$T/b.out" || ! cmp -s "$T/a.err" "$T/b.err"; then
            echo "FAIL: $cmd $(basename "$log"): rounds and cycles differ"
            diff "$T/a.out" "$T/b.out" | head -5
            fail=1
        fi
    done
    # (the comparison means something only when there is much to group)
    lines=$(STINT_THREADS=1 "$STINT" slices "$log" 2>/dev/null | wc -l)
    if [ "$lines" -lt 2000 ]; then
        echo "FAIL: $(basename "$log"): slices printed $lines lines (expected 2000 or more)"
        fail=1
    fi
done
[ "$fail" = 0 ] && echo "OK: $n comparisons, rounds = cycles"
exit "$fail"
