#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every analysis command runs on every input format the readers support
# (Chrome JSON, gzip'd Chrome JSON, a JSONL session, a marker log) and its
# --json output is valid JSON with the labelled scope; convert's outputs
# read back; the same trace in each format gives the same call tree.
set -u
STINT=${STINT_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/t.json" <<'J'
{"traceEvents":[
{"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","name":"load","pid":1,"tid":1,"ts":5,"dur":40},
{"ph":"X","name":"compute","pid":1,"tid":1,"ts":50,"dur":45},
{"ph":"X","name":"kernel","pid":1,"tid":1,"ts":60,"dur":20},
{"ph":"X","name":"step","pid":1,"tid":1,"ts":200,"dur":120},
{"ph":"X","name":"load","pid":1,"tid":1,"ts":205,"dur":60},
{"ph":"X","name":"compute","pid":1,"tid":1,"ts":270,"dur":45},
{"ph":"C","name":"mem","pid":1,"ts":0,"args":{"used":10}},
{"ph":"C","name":"mem","pid":1,"ts":300,"args":{"used":30}}
]}
J
gzip -c "$TMP/t.json" > "$TMP/t.json.gz.bin"
"$STINT" convert "$TMP/t.json" -o "$TMP/t.jsonl" --to jsonl 2>/dev/null || { echo "FAIL: convert jsonl"; exit 1; }
"$STINT" convert "$TMP/t.json" -o "$TMP/t.log" --to markers 2>/dev/null || { echo "FAIL: convert markers"; exit 1; }
fail=0
for in in t.json t.json.gz.bin t.jsonl t.log; do
  for cmd in "tree" "tree --flat" "steps --step step" "counters" "diff $TMP/$in"; do
    "$STINT" $cmd "$TMP/$in" --json > "$TMP/out" 2> "$TMP/err"; rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL: stint $cmd $in: exit $rc"; cat "$TMP/err"; fail=1; continue; fi
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"].startswith("stint."), d' "$TMP/out" \
      || { echo "FAIL: stint $cmd $in --json is not valid"; fail=1; }
  done
  "$STINT" report "$TMP/$in" -o "$TMP/r.html" 2>/dev/null || { echo "FAIL: report $in"; fail=1; }
  # same tree whatever the format (paths, calls, totals, self)
  "$STINT" tree "$TMP/$in" --json 2>/dev/null | python3 -c '
import json,sys
def walk(ns, pre, out):
    for n in ns:
        p = pre + "/" + n["name"]; out.append((p, n["calls"], n["total_ns"], n["self_ns"])); walk(n["children"], p, out)
out = []; walk(json.load(sys.stdin)["host"], "", out); print(sorted(out))' > "$TMP/tree.$in"
  cmp -s "$TMP/tree.t.json" "$TMP/tree.$in" || { echo "FAIL: the tree from $in differs:"; cat "$TMP/tree.t.json" "$TMP/tree.$in"; fail=1; }
done
"$STINT" steps "$TMP/t.jsonl" --step step --json | python3 -c '
import json,sys; d=json.load(sys.stdin); s=d["steps"]
assert [x["wall_ns"] for x in s] == [100000, 120000], s
assert [x["unattributed_ns"] for x in s] == [15000, 15000], s
assert s[0]["children_union_ns"] == {"load": 40000, "compute": 45000}, s[0]' || fail=1
# otlp-json: written by the OTLP writer when the build has it, else a clear refusal
"$STINT" convert "$TMP/t.json" -o "$TMP/t.otlp.json" --to otlp-json 2> "$TMP/err"; rc=$?
if [ $rc -eq 0 ]; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["resourceSpans"], d' "$TMP/t.otlp.json" \
    || { echo "FAIL: otlp-json output"; fail=1; }
elif [ $rc -ne 2 ] || ! grep -q "otlp-json not available in this build" "$TMP/err"; then
  echo "FAIL: convert --to otlp-json exit $rc"; cat "$TMP/err"; fail=1
fi
# a JSONL session whose step has children on two other threads (explicit
# parent ids): the measured span is the step, the children overlap (counted
# once), and a JSONL -> JSONL conversion keeps all of it
HERE=$(cd "$(dirname "$0")" && pwd)
x=$HERE/cross_thread_session.jsonl
"$STINT" convert "$x" -o "$TMP/x2.jsonl" --to jsonl 2>/dev/null || { echo "FAIL: convert jsonl -> jsonl"; fail=1; }
for f in "$x" "$TMP/x2.jsonl"; do
  "$STINT" steps "$f" --json | python3 -c '
import json,sys; s=json.load(sys.stdin)["steps"]
assert len(s) == 1 and s[0]["wall_ns"] == 100, s
assert s[0]["children_union_ns"] == {"worker_a": 50, "worker_b": 60}, s
assert s[0]["overlap_ns"] == 45 and s[0]["unattributed_ns"] == 35, s' || { echo "FAIL: steps on $f"; fail=1; }
done
cmp -s <("$STINT" tree "$x" 2>&1) <("$STINT" tree "$TMP/x2.jsonl" 2>&1) || { echo "FAIL: tree differs after jsonl -> jsonl"; fail=1; }
# the span tree comes from parent ids in summary too: the step's self time
# is 100 - |[20,70] u [25,85]| = 35 ns, the same in tree; root's is 100
"$STINT" summary "$x" --json > "$TMP/xs.json" && "$STINT" tree "$x" --flat --json > "$TMP/xt.json" \
  && python3 - "$TMP/xs.json" "$TMP/xt.json" <<'PY' || { echo "FAIL: summary's self time on a JSONL session with children on other threads"; fail=1; }
import json, sys
s = {r["name"]: r["self_ns"] for r in json.load(open(sys.argv[1]))["names"]}
assert s == {"root": 100, "step": 35, "worker_a": 50, "worker_b": 60}, s
t = {r["name"]: r["self_ns"] for r in json.load(open(sys.argv[2]))["names"]}
assert s == t, (s, t)
PY
# a child that starts before its parent on the parent's own thread (the
# walk then streams the track in time order, the child first): clipped to the
# parent, it still counts against the parent, in summary as in tree:
# parent [100, 200] less [100, 150] u [160, 180] = 30 ns
cat > "$TMP/early.jsonl" <<'EOF'
{"kind":"meta","schema":"stint/session/1","run_id":"r","pid":1,"clock_monotonic_ns":0}
{"kind":"span_start","id":"p","name":"parent","start_ns":100,"span_kind":"function","tid":1}
{"kind":"span_start","id":"c","parent_id":"p","name":"early","start_ns":50,"span_kind":"function","tid":1}
{"kind":"span_start","id":"d","parent_id":"p","name":"late","start_ns":160,"span_kind":"function","tid":1}
{"kind":"span_end","id":"c","duration_ns":100}
{"kind":"span_end","id":"d","duration_ns":20}
{"kind":"span_end","id":"p","duration_ns":100}
EOF
"$STINT" summary "$TMP/early.jsonl" --json > "$TMP/es.json" && "$STINT" tree "$TMP/early.jsonl" --flat --json > "$TMP/et.json" \
  && python3 - "$TMP/es.json" "$TMP/et.json" <<'PY' || { echo "FAIL: summary's self time with a child starting before its parent"; fail=1; }
import json, sys
s = {r["name"]: r["self_ns"] for r in json.load(open(sys.argv[1]))["names"]}
t = {r["name"]: r["self_ns"] for r in json.load(open(sys.argv[2]))["names"]}
assert s == {"parent": 30, "early": 100, "late": 20} and s == t, (s, t)
PY
[ $fail -eq 0 ] && echo "ok: tree, steps, counters, diff, report on Chrome, gzip, JSONL and markers inputs"
exit $fail
