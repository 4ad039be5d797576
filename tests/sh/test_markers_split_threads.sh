#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A plain marker log read in two halves on two threads (cut after a line
# end, the second half's model merged after the first's, the depth links
# made on the whole) gives what one thread gives, byte for byte:
#   - a generated log (noise lines, torn records, several processes and
#     threads): summary --json, tree --json, steps --json and slices, stdout
#     and stderr, with the split forced on (STINT_SPLIT_MIN_BYTES=1) and
#     STINT_DEBUG_SPLIT saying it happened;
#   - a torn record that lies only in the second half is named by its byte
#     offset in the file (counted here from the bytes before it), not in
#     its half;
#   - a log with device records (clk=dev) is read again on one thread, as
#     the debug line says, with the same outputs.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
GEN=$SHARED/tools/gen_strace.py
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
[ -f "$GEN" ] || { echo "SKIP: $GEN is absent (shared tools)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-mksplit.XXXXXX"); trap 'rm -rf "$T"' EXIT
fail=0

# same LOG WANT_DEBUG: each command on one thread and split in two agree
same() {
    local log=$1 want=$2 cmd
    for cmd in "summary --json" "tree --json" "steps --json" "slices"; do
        # shellcheck disable=SC2086
        STINT_THREADS=1 "$STINT" $cmd "$log" >"$T/one.out" 2>"$T/one.err"; echo "rc $?" >>"$T/one.out"
        # shellcheck disable=SC2086
        STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1 STINT_DEBUG_SPLIT=1 "$STINT" $cmd "$log" >"$T/two.out" \
            2>"$T/two.err.all"; echo "rc $?" >>"$T/two.out"
        grep -v '^stint: split read:' "$T/two.err.all" >"$T/two.err"
        if ! grep -q "^stint: split read: 2 halves at byte [0-9]*$want\$" "$T/two.err.all"; then
            echo "FAIL: $cmd $(basename "$log"): no 'split read: 2 halves ...$want' line:"; cat "$T/two.err.all"
            fail=1
        fi
        if ! cmp -s "$T/one.out" "$T/two.out" || ! cmp -s "$T/one.err" "$T/two.err"; then
            echo "FAIL: $cmd $(basename "$log"): one thread and two halves differ"
            diff "$T/one.out" "$T/two.out" | head -5; diff "$T/one.err" "$T/two.err" | head -5
            fail=1
        fi
    done
}

python3 "$GEN" --size 2M --seed 7 -o "$T/gen.log" 2>/dev/null || { echo "FAIL: gen_strace.py"; exit 1; }
same "$T/gen.log" ""
grep -q 'torn_record' "$T/one.err" 2>/dev/null || STINT_THREADS=1 "$STINT" summary "$T/gen.log" 2>&1 >/dev/null |
    grep -q torn_record || { echo "FAIL: the generated log was meant to hold torn records"; fail=1; }

# a torn record in the second half only: its offset is the file's
python3 "$GEN" --size 1M --seed 8 --malformed 0 -o "$T/clean.log" 2>/dev/null
off=$(stat -c %s "$T/clean.log")
printf '[STRACE] v=1 pid=1 tid=1 inv=1 hid=ab depth=0 name=cut ts=5\n' >>"$T/clean.log"
for env in "STINT_THREADS=1" "STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1"; do
    # shellcheck disable=SC2086
    msg=$(env $env "$STINT" summary "$T/clean.log" 2>&1 >/dev/null)
    if ! grep -q "torn_record (first: .*byte $off: record cut" <<<"$msg"; then
        echo "FAIL: [$env] the torn record at byte $off is not named so:"; echo "$msg"; fail=1
    fi
done

dev=$SHARED/corpus/seed-systems/zhusy54_simpler/tests/hbg.log
if [ -f "$dev" ] && grep -q 'clk=dev' "$dev"; then
    same "$dev" ", device records: read again on one thread"
else
    echo "note: $dev is absent: the device-record check is skipped"
fi
[ $fail = 0 ] && echo "PASS: marker logs read in two halves give one thread's outputs"
exit $fail
