#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint tree` output stays linear in the input however deep the call paths:
# a row shows its place by indentation (bounded: past 32 levels it names its
# depth), never by its whole path. 50k and 100k nested spans with --depth 0
# (every level): the output doubles (ratio under 2.2; printing whole paths or
# unbounded indentation made it 4x, 10 GB at 100k). The default depth is
# capped with a note saying how many nodes were left out; an output estimated
# past the limit (STINT_TREE_LIMIT_BYTES here, 1 GiB by default) is refused
# (exit 2) unless --force.
set -euo pipefail
STINT=${STINT_BIN:?}
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-tree-linear.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
python3 - "$T" <<'PY'
import json, sys
for n in (50000, 100000):
    ev = [{"ph": "X", "name": "f%d" % (i % 7), "ts": i, "dur": 2 * (n - i), "pid": 1, "tid": 1} for i in range(n)]
    json.dump({"traceEvents": ev}, open(f"{sys.argv[1]}/nest{n}.json", "w"))
PY
a=$("$STINT" tree "$T/nest50000.json" --depth 0 | wc -c)
"$STINT" tree "$T/nest100000.json" --depth 0 >"$T/all"
b=$(wc -c <"$T/all")
echo "--depth 0: 50k nested spans $a bytes, 100k $b bytes"
if [ $((b * 10)) -ge $((a * 22)) ]; then echo "FAIL: output grows faster than the input ($a -> $b bytes)"; fail=1; fi
rows=$(grep -c '^ *1 ' "$T/all")
[ "$rows" = 100000 ] || { echo "FAIL: $rows rows at --depth 0, expected 100000"; fail=1; }
tail -1 "$T/all" | grep -q '\[depth 100000\] f4$' ||
  { echo "FAIL: the deepest row does not name its depth"; fail=1; }
d=$("$STINT" tree "$T/nest100000.json")
[ "$(printf '%s\n' "$d" | wc -c)" -lt 20000 ] || { echo "FAIL: the default depth is not capped"; fail=1; }
printf '%s\n' "$d" | grep -q '^# depth capped at the default 64: 99936 deeper path nodes not shown' ||
  { echo "FAIL: no note for the capped depth"; fail=1; }
rc=0
STINT_TREE_LIMIT_BYTES=1000000 "$STINT" tree "$T/nest100000.json" --depth 0 >"$T/out" 2>"$T/err" || rc=$?
if [ $rc != 2 ] || [ -s "$T/out" ] || ! grep -q 'past the limit of 1000000 bytes.*--force' "$T/err"; then
  echo "FAIL: an output past the limit was not refused (exit $rc)"; cat "$T/err"; fail=1
fi
STINT_TREE_LIMIT_BYTES=1000000 "$STINT" tree "$T/nest50000.json" --depth 0 --force >"$T/forced"
c=$(wc -c <"$T/forced")
[ "$c" = "$a" ] || { echo "FAIL: --force wrote $c bytes, expected $a"; fail=1; }
[ $fail = 0 ] && echo "tree output linear; depth capped; limit enforced"
exit $fail
