#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The call tree of a marker log comes from its depth field, not from time
# containment, and each invocation's device window is reported
# (markers_depth_oracle.py computes both independently from the records):
#   - the demo's own log (and `make demo` as a whole) prints no repair and no
#     warning; `tree` has every device phase once under device_wall, with
#     graph_build's self time equal to its duration; `summary --json` and
#     `timing --json` give the device windows computed here;
#   - the seed reference logs give the same tree in slices, tree, summary and
#     `timing --tree=depth`;
#   - a generated log whose depth contradicts containment keeps the depth tree
#     and counts one depth_outside_parent repair, named; --strict fails.
set -euo pipefail
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
ORACLE="$SRC/tests/sh/markers_depth_oracle.py"
BUILD=$(dirname "$STINT")
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-depth.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 ran=0
if [ -x "$BUILD/examples/demo" ]; then
    bash "$SRC/examples/run_demo.sh" "$BUILD" >"$T/demo.out" 2>&1 || { echo "FAIL: make demo"; cat "$T/demo.out"; fail=1; }
    if grep -Eiq 'repair|warning' "$T/demo.out"; then
        echo "FAIL: make demo prints a repair or a warning:"; grep -Ei 'repair|warning' "$T/demo.out"; fail=1
    fi
    python3 "$ORACLE" "$STINT" demo "$BUILD/demo/markers.log" || fail=1
    ran=$((ran + 1))
else
    echo "note: no demo at $BUILD/examples/demo: its checks skipped"
fi
SEED="$SHARED/corpus/seed-systems"
if [ -d "$SEED" ]; then
    python3 "$ORACLE" "$STINT" trees "$SEED/hw-native-sys_simpler/generated/sample_seed_era.log" \
        "$SEED/hw-native-sys_pypto/tests/ut/runtime/test_benchmark.span_tree.log" \
        "$SEED/hw-native-sys_pypto/tests/ut/runtime/test_benchmark.warmup2_rounds3.log" \
        "$SEED/zhusy54_simpler/tests/hbg.log" "$SEED/zhusy54_simpler/tests/aicore.log" || fail=1
    ran=$((ran + 1))
else
    echo "note: $SEED is absent: the seed logs' checks skipped"
fi
# depth says b is a's child and c is b's, but b ends after a and c starts before b
# (post-order, as spans end); d is a well-nested sibling
cat >"$T/contra.log" <<'LOG'
[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab depth=2 name=c ts=1500 dur=200
[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab depth=1 name=b ts=1600 dur=900
[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab depth=1 name=d ts=1100 dur=100
[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab depth=0 name=a ts=1000 dur=1000
LOG
python3 "$ORACLE" "$STINT" contra "$T/contra.log" || fail=1
python3 "$ORACLE" "$STINT" trees "$T/contra.log" || fail=1
ran=$((ran + 1))
[ $fail -eq 0 ] && echo "ok: $ran group(s) of depth-tree checks"
exit $fail
