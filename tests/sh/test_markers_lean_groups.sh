#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `summary` keeps a marker log's (pid, tid, inv, clock) group as 12-byte lean
# records only where its depth tree is its nesting in time and it lies apart
# from the other groups of its thread; every other group stays slices with
# explicit parents, and the two are streamed merged on a shared track. The
# results are those of the full model (STINT_SUMMARY_NO_LEAN=1), byte for
# byte, and STINT_DEBUG_LEAN says which groups went lean:
#   - a hand-written log where each case is one group: a clean tree on two
#     threads (lean); a child with its parent's exact interval, a 0 ns child
#     at its parent's end, a torn parent (children outside their depth
#     parent), a record linked to no parent, two invocations that overlap on
#     one thread and two that touch, a span of 2^40 ns (all slices), and one
#     of 6 s, past 32 bits (lean), and one starting 9 s after the first record,
#     past a pending start's 32-bit offset (lean): 4 of 13 groups lean;
#   - a generated log with many torn records, read on one thread and in two
#     halves, and one with none; the groups that go lean are the ones
#     markers_lean_oracle.py finds from the records alone.
set -u
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
STINT=${STINT_BIN:?STINT_BIN not set}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
GEN=$SHARED/tools/gen_strace.py
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-mklean.XXXXXX"); trap 'rm -rf "$T"' EXIT
fail=0

rec() { # pid tid inv depth name ts dur
    echo "[STRACE] v=1 pid=$1 tid=$2 inv=$3 hid=00000000000000a1 depth=$4 name=$5 ts=$6 dur=$7"
}
{
    # a clean tree, written as spans end (children first): lean
    rec 1 1 1 1 a 10 10; rec 1 1 1 2 c 40 10; rec 1 1 1 1 b 30 30; rec 1 1 1 0 root 0 100
    # the same tree on another thread: lean
    rec 1 2 1 1 a 10 10; rec 1 2 1 2 c 40 10; rec 1 2 1 1 b 30 30; rec 1 2 1 0 root 0 100
    # a child with its parent's exact interval (by time it would hold its parent)
    rec 1 1 2 1 same 200 100; rec 1 1 2 0 root 200 100
    # a 0 ns child at its parent's end (by time it follows its parent)
    rec 1 1 3 1 tail 500 0; rec 1 1 3 0 root 400 100
    # a torn parent: its children go to the next sibling, outside it
    rec 1 1 4 2 lost_kid 1010 10; rec 1 1 4 1 x 1100 20; rec 1 1 4 0 root 1000 200
    # a record at depth 2 whose depth-1 parent never came: linked to nothing
    rec 1 1 5 2 orphan 1310 10; rec 1 1 5 0 root 1300 100
    # two invocations that overlap on one thread
    rec 1 1 6 0 first 2000 100; rec 1 1 7 0 second 2050 20
    # two that touch (the second starts where the first ends)
    rec 1 1 8 0 before 3000 100; rec 1 1 9 0 after 3100 50
    # 5 s, past 32 bits of ns (kept aside while read): lean
    rec 1 3 1 1 long_kid 100 5000000000; rec 1 3 1 0 long 0 6000000000
    # 2^40 ns and more: too long for a lean record
    rec 1 4 1 1 huge_kid 100 10; rec 1 4 1 0 huge 0 1099511627776
    # starts 9 s after the first record's, past a pending record's 32-bit start offset
    # (kept aside while read): lean
    rec 1 5 1 1 far_kid 9000000100 10; rec 1 5 1 0 far 9000000000 200
} >"$T/cases.log"

# same LOG ENV...: summary --json and summary, lean and full, agree (stdout, stderr, exit code)
same() {
    local log=$1 cmd
    shift
    for cmd in "summary --json" "summary"; do
        # shellcheck disable=SC2086
        env "$@" "$STINT" $cmd "$log" >"$T/lean.out" 2>"$T/lean.err"; echo "rc $?" >>"$T/lean.out"
        # shellcheck disable=SC2086
        env "$@" STINT_SUMMARY_NO_LEAN=1 "$STINT" $cmd "$log" >"$T/full.out" 2>"$T/full.err"
        echo "rc $?" >>"$T/full.out"
        if ! cmp -s "$T/lean.out" "$T/full.out" || ! cmp -s "$T/lean.err" "$T/full.err"; then
            echo "FAIL: $cmd $(basename "$log") ($*): lean records and the full model differ"
            diff "$T/full.out" "$T/lean.out" | head -8; diff "$T/full.err" "$T/lean.err" | head -4
            fail=1
        fi
    done
}

# groups LOG WANT: the debug line says WANT ("K of N")
groups() {
    local got
    got=$(STINT_THREADS=1 STINT_DEBUG_LEAN=1 "$STINT" summary "$1" 2>&1 >/dev/null | sed -n 's/^stint: markers: \(.*\) groups as lean records$/\1/p')
    [ "$got" = "$2" ] || { echo "FAIL: $(basename "$1"): '$got' groups lean, want '$2'"; fail=1; }
}

same "$T/cases.log" STINT_THREADS=1
same "$T/cases.log" STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1
groups "$T/cases.log" "4 of 13"
groups "$T/cases.log" "$(python3 "$SRC/tests/sh/markers_lean_oracle.py" "$T/cases.log")"
# the cases' own figures (by hand): root's self time 60 + 60 (a and b under it on
# both threads) + 0 (its exact twin) + 100 (the 0 ns tail is not its child) + 180
# (x; lost_kid is x's) + 90 (the orphan nests in it by time) = 490 ns; b's 20 + 20
STINT_THREADS=1 "$STINT" summary --json "$T/cases.log" >"$T/cases.json" 2>"$T/cases.err"
grep -q 'depth_outside_parent' "$T/cases.err" || { echo "FAIL: the torn parent was not counted"; fail=1; }
grep -q '^{"cat":"","name":"root","clock":"host","spans":6,"sum_ns":700,"total_ns":700,"self_ns":490,' "$T/cases.json" ||
    { echo "FAIL: root's figures:"; grep '"name":"root"' "$T/cases.json"; fail=1; }
grep -q '^{"cat":"","name":"b","clock":"host","spans":2,"sum_ns":60,"total_ns":60,"self_ns":40,' "$T/cases.json" ||
    { echo "FAIL: b's figures:"; grep '"name":"b"' "$T/cases.json"; fail=1; }

if command -v python3 >/dev/null && [ -f "$GEN" ]; then
    python3 "$GEN" --size 800K --seed 11 --malformed 0.02 -o "$T/torn.log" 2>/dev/null || { echo "FAIL: gen_strace.py"; exit 1; }
    python3 "$GEN" --size 400K --seed 12 --malformed 0 -o "$T/clean.log" 2>/dev/null || { echo "FAIL: gen_strace.py"; exit 1; }
    same "$T/torn.log" STINT_THREADS=1
    same "$T/torn.log" STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1
    same "$T/clean.log" STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1
    for log in "$T/torn.log" "$T/clean.log"; do # (the oracle's count, from the records alone)
        groups "$log" "$(python3 "$SRC/tests/sh/markers_lean_oracle.py" "$log")"
    done
    set -- $(STINT_THREADS=1 STINT_DEBUG_LEAN=1 "$STINT" summary "$T/torn.log" 2>&1 >/dev/null |
        sed -n 's/^stint: markers: \([0-9]*\) of \([0-9]*\) groups.*/\1 \2/p')
    [ "${1:-0}" -gt 0 ] && [ "${1:-0}" -lt "${2:-0}" ] || { echo "FAIL: torn.log: want some groups lean, not all: $*"; fail=1; }
else
    echo "note: python3 or $GEN absent: the generated logs' checks skipped"
fi
[ $fail = 0 ] && echo "PASS: marker groups as lean records agree with the full model"
exit $fail
