#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_markers_torn_truth.sh - the marker parser's torn count against the
# generator's ground truth. ../shared/tools/gen_strace.py writes a seeded log
# of about 3 MB with markers cut short (its "malformed" count, on stderr) and
# near misses, some of which carry a head of another format version
# (`[STRACE] v=2 ... schema=next`): those are not records cut short and must
# not be counted torn. `stint timing --json` must give:
#   spans + torn == markers + malformed   (every written marker: whole or torn)
#   torn <= malformed                     (nothing else is torn)
#   torn >= malformed - 5%                (a cut that leaves every field, e.g.
#                                          after dur's digits, reads as whole)
#   heads - spans - torn <= near misses   (the other-version heads, apart)
# Skips (77) without python3 or the shared generator.
set -u
SHARED=${STINT_SHARED_DIR:-${STINT_SOURCE_DIR:-.}/../shared}
GEN=$SHARED/tools/gen_strace.py
STINT=${STINT_BIN:-}
if [ -z "$STINT" ] || [ ! -x "$STINT" ]; then echo "SKIP: STINT_BIN is not set"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: python3 is absent"; exit 77; fi
if [ ! -f "$GEN" ]; then echo "SKIP: $GEN is absent (the shared tools)"; exit 77; fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 "$GEN" --size 3M --seed 11 --malformed 0.005 -o "$TMP/log" 2>"$TMP/truth" || { echo "generator failed"; exit 1; }
"$STINT" timing --json "$TMP/log" >"$TMP/out.json" 2>"$TMP/err" || { echo "stint timing failed"; cat "$TMP/err"; exit 1; }
python3 - "$TMP/truth" "$TMP/out.json" <<'PY'
import json, sys
truth = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
rec = json.load(open(sys.argv[2]))["records"]
markers, malformed, near = truth["markers"], truth["malformed"], truth["near_miss"]
heads, spans, torn = rec["heads"], rec["spans"], rec["torn"]
print(f"generator: {markers} markers, {malformed} cut short, {near} near misses; "
      f"stint: {heads} heads, {spans} spans, {torn} torn")
fail = []
if malformed < 20:
    fail.append(f"the generated log has too few cut markers ({malformed}) to test anything")
if spans + torn != markers + malformed:
    fail.append(f"spans + torn = {spans + torn}, the generator wrote {markers + malformed} markers")
if torn > malformed:
    fail.append(f"torn {torn} > cut markers {malformed}: lines that are no cut record were counted torn")
if torn < malformed - max(1, malformed // 20):
    fail.append(f"torn {torn} is far below the cut markers {malformed}")
if heads - spans - torn > near:
    fail.append(f"{heads - spans - torn} heads neither spans nor torn, more than the {near} near misses")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
PY
