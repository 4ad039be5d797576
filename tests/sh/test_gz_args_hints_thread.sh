#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The inflate thread's args hints (input.c): while the reader is behind, the
# thread that inflates a gzip trace also skips the events' "args" values and
# hands the reader their lengths. The answers must not depend on it: a gzip
# trace with args the fast skip takes and args it gives up on (\u escapes,
# trailing commas, raw control bytes, nesting past 64 levels), args that are
# arrays or strings, "args" keys inside other values, spaced-out keys, and
# args of ~100 KB across the 1 MiB block ends, gives byte-identical stdout
# and stderr (repairs included) and exit codes with hints for every block
# (STINT_PIPE_SCAN_ALL), with hints when the thread is ahead (the default),
# with huge pages from the start (STINT_HMEM=huge: the thread then also
# prefaults memory for the reader while it waits, hmem.h) and with no
# inflate thread (STINT_NO_INFLATE_THREAD); the same for the file
# cut off in the middle (exit 1, partial). With every block scanned, the
# reader must say it used the hints (STINT_DEBUG_SPLIT). The args shapes
# (json_shape.h), which both threads keep, must not matter either: the same
# answers with them switched off (STINT_JSON_SHAPES=0), on the gzip trace
# and on the plain one; some args differ from a repeated shape only by
# leading zeros (valid in a fraction, an exponent or a string), and the
# reader must say it took most args by their shape (STINT_DEBUG_SHAPES)
# where the CPU has the shape path.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v gzip >/dev/null || { echo "SKIP: gzip is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
python3 - "$T/t.json" <<'PY'
import random, sys
random.seed(7)
kinds = [
    '"args": {"External id": %d, "Input Dims": [[512, 256], [512, 2048]], "name": "op"}',
    '"args" : {"n": %d}',
    '"args"\n:\n{"n": %d, "s": "a \\"quoted\\" word"}',
    '"args": {"u": "caf\\u00e9 %d"}',
    '"args": {"n": %d, "t": [1, 2,],}',
    '"args": {"c": "tab\there %d"}',
    '"args": [%d, 2, 3]',
    '"args": "text %d"',
    '"args": {}, "n%d": 0',
    '"meta": {"args": {"inner": %d}}, "args": {"n": 1}',
    '"args": {"args": {"n": %d}}',
    '"args": ' + '{"d":' * 70 + '%d' + '}' * 70,
    '"args": {"big": "' + 'x' * 100000 + '", "n": %d}',
    '"args": {"f": 1.0%d, "e": 2e-0%d, "s": "0%d"}',
]
weights = [40, 5, 5, 3, 2, 2, 3, 3, 5, 3, 3, 1, 0.05, 4]
ev = []
ts = 0
for i in range(24000):
    k = random.choices(range(len(kinds)), weights)[0]
    ts += random.randint(1, 50)
    ev.append('{"ph": "X", "name": "n%d", "cat": "c%d", "pid": 1, "tid": %d, "ts": %d, "dur": %d, %s}'
              % (i % 37, k, 1 + i % 3, ts, random.randint(0, 40), kinds[k] % ((i,) * kinds[k].count('%d'))))
open(sys.argv[1], "w").write('{"traceEvents": [\n' + ",\n".join(ev) + '\n], "otherData": {"args": {"x": 1}}}\n')
PY
gzip -1 -c "$T/t.json" > "$T/t.json.gz"
size=$(stat -c %s "$T/t.json.gz")
head -c $((size / 2)) "$T/t.json.gz" > "$T/cut.json.gz"
SAME_DIR=$T; . "$(dirname "$0")/same_output.sh"
for f in t cut; do
  for cmd in "summary --json" "slices --json" "counters --json"; do
    ref_run env STINT_NO_INFLATE_THREAD=1 "$STINT" $cmd "$T/$f.json.gz"
    for mode in STINT_PIPE_SCAN_ALL=1 STINT_PIPE_DEFAULT=1 STINT_HMEM=huge STINT_JSON_SHAPES=0; do
      same_as_ref "$f: $cmd identical with $mode and without the inflate thread" env "$mode" "$STINT" $cmd "$T/$f.json.gz"
    done
  done
done
for cmd in "summary --json" "slices --json"; do
  ref_run env STINT_JSON_SHAPES=0 "$STINT" $cmd "$T/t.json"
  same_as_ref "plain: $cmd identical with and without args shapes" "$STINT" $cmd "$T/t.json"
done
sh=$(STINT_DEBUG_SHAPES=1 STINT_NO_INFLATE_THREAD=1 "$STINT" summary "$T/t.json.gz" 2>&1 >/dev/null |
  sed -n 's/^stint: args shapes: \([0-9]*\) lookups, \([0-9]*\) hits.*/\2/p')
if [ "${sh:-0}" -gt 10000 ]; then
  echo "ok   the reader took $sh args by their shape"
elif [ "${sh:-0}" = 0 ] && STINT_DEBUG_SHAPES=1 STINT_NO_INFLATE_THREAD=1 "$STINT" summary "$T/t.json.gz" 2>&1 >/dev/null |
  grep -q "args shapes: 0 lookups, 0 hits, 0 added"; then
  echo "ok   no shape path on this CPU (the args were walked; nothing to compare it with)"
else
  echo "FAIL the reader took ${sh:-no} args by their shape (expected more than 10000)"; fail=1
fi
STINT_NO_INFLATE_THREAD=1 "$STINT" summary "$T/t.json.gz" 2>&1 >/dev/null | grep -q "trailing_comma" &&
  echo "ok   the trace has repairs the fast skip leaves to the reader" ||
  { echo "FAIL the trace shows no trailing-comma repair"; fail=1; }
n=$(STINT_PIPE_SCAN_ALL=1 STINT_DEBUG_SPLIT=1 "$STINT" summary "$T/t.json.gz" 2>&1 >/dev/null |
  sed -n 's/^stint: \([0-9]*\) args skipped by the inflate thread$/\1/p')
if [ -n "$n" ] && [ "$n" -gt 10000 ]; then
  echo "ok   with every block scanned the reader skipped $n args through hints"
else
  echo "FAIL with every block scanned the reader used ${n:-no} hints (expected more than 10000)"; fail=1
fi
exit $fail
