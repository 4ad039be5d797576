#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint convert --to chrome` of every Perfetto JSON conformance input (read
# in place from ../shared/corpus/perfetto-json) round-trips to the same
# slices: `stint slices IN` equals `stint slices OUT` (with --no-rebase so ts
# is comparable). Where convert moved improperly overlapping spans to an
# extra track (and said so), tid/depth/parent differ by design: the other
# columns must still match, and the output must hold no overlap repair.
# Also: the counter series survive, and the default output is rebased.
set -u
STINT=${STINT_BIN:?}
DIR=${STINT_SHARED_DIR:-../shared}/corpus/perfetto-json
[ -d "$DIR" ] || { echo "SKIP: $DIR is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail=0; n=0; moved_cases=0
for f in "$DIR"/*.json; do
  b=$(basename "$f" .json)
  [ "$b" = cases ] && continue
  n=$((n + 1))
  "$STINT" slices "$f" > "$TMP/in.tsv" 2>/dev/null
  "$STINT" convert "$f" -o "$TMP/out.json" --to chrome --no-rebase 2> "$TMP/err"
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then echo "FAIL $b: convert exit $rc"; cat "$TMP/err"; fail=1; continue; fi
  "$STINT" slices "$TMP/out.json" > "$TMP/out.tsv" 2> "$TMP/err2"
  if grep -q overlapping_complete "$TMP/err2"; then echo "FAIL $b: output is not strictly nested"; fail=1; fi
  if cmp -s "$TMP/in.tsv" "$TMP/out.tsv"; then continue; fi
  if grep -q "moved to an extra track" "$TMP/err"; then
    moved_cases=$((moved_cases + 1))
    # compare without tid (5), depth (9), parent (10)
    if ! cmp -s <(cut -f1-4,6-8,11 "$TMP/in.tsv") <(cut -f1-4,6-8,11 "$TMP/out.tsv"); then
      echo "FAIL $b: slices differ beyond the moved spans' track"; diff "$TMP/in.tsv" "$TMP/out.tsv" | head; fail=1
    fi
    continue
  fi
  echo "FAIL $b: slices differ after the round trip"; diff "$TMP/in.tsv" "$TMP/out.tsv" | head -20; fail=1
done
[ $n -ge 20 ] || { echo "FAIL: only $n inputs found"; fail=1; }
# counters survive
c=$DIR/parsing__counters_json_counters.json
if [ -e "$c" ]; then
  "$STINT" convert "$c" -o "$TMP/c.json" --to chrome --no-rebase 2>/dev/null
  a=$("$STINT" slices --json "$c" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"])')
  b=$("$STINT" slices --json "$TMP/c.json" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"])')
  [ "$a" = "$b" ] || { echo "FAIL: counters differ: $a vs $b"; fail=1; }
fi
# default output is rebased: the earliest ts is 0.000 and has three decimals
"$STINT" convert "$DIR/json__json_metadata.json" -o "$TMP/r.json" --to chrome 2>/dev/null
python3 - "$TMP/r.json" <<'PY' || fail=1
import json, re, sys
text = open(sys.argv[1]).read()
doc = json.loads(text)
ts = [e["ts"] for e in doc["traceEvents"] if e["ph"] != "M"]
assert min(ts) == 0, min(ts)
assert all(re.fullmatch(r"-?\d+\.\d{3}", t) for t in re.findall(r'"ts":([-0-9.]+)', text))
PY
echo "$n inputs round-tripped ($moved_cases with spans moved to an extra track)"
exit $fail
