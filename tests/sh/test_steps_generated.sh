#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seed 003 acceptance: a generated learner-step trace (fixed seed) read by
# `stint steps`: input_wait and model_and_wait inside every step, a
# nonnegative remainder equal to wall minus the union of the children
# (checked against an independent computation), overlap counted once, and no
# figure that adds the step to its children.
set -eu
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
STINT=${STINT_BIN:?}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/trace.json" <<'PY'
import json, random, sys
r = random.Random(31)
ev = [{"ph":"M","name":"thread_name","pid":7,"tid":7,"args":{"name":"learner"}}]
t = 100
truth = []
for k in range(12):
    wait = r.randint(900, 1300); model = r.randint(60, 160); gap = r.randint(0, 20)
    start = t; ev.append({"ph":"X","name":"learner_step","pid":7,"tid":7,"ts":start,"dur":0})
    w0 = start + r.randint(1, 10); ev.append({"ph":"X","name":"input_wait","pid":7,"tid":7,"ts":w0,"dur":wait})
    m0 = w0 + wait + gap; ev.append({"ph":"X","name":"model_and_wait","pid":7,"tid":7,"ts":m0,"dur":model})
    end = m0 + model + r.randint(1, 30)
    ev[-3]["dur"] = end - start
    truth.append((end - start, wait, model))
    t = end + r.randint(5, 50)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
json.dump(truth, open(sys.argv[1] + ".truth", "w"))
PY
"$STINT" steps "$TMP/trace.json" --step learner_step --json > "$TMP/out.json"
"$STINT" steps "$TMP/trace.json" --step learner_step > "$TMP/out.txt"
python3 - "$TMP/out.json" "$TMP/trace.json.truth" "$TMP/out.txt" <<'PY'
import json, sys
out = json.load(open(sys.argv[1])); truth = json.load(open(sys.argv[2]))
assert out["steps_count"] == 12, out["steps_count"]
assert out["children"] == ["input_wait", "model_and_wait"], out["children"]
for st, (wall, wait, model) in zip(out["steps"], truth):
    assert st["wall_ns"] == wall * 1000, (st, wall)
    assert st["children_union_ns"]["input_wait"] == wait * 1000
    assert st["children_union_ns"]["model_and_wait"] == model * 1000
    assert st["overlap_ns"] == 0
    assert st["unattributed_ns"] >= 0
    assert st["unattributed_ns"] == (wall - wait - model) * 1000
    # no figure adds the step to its children
    bad = (wall + wait + model) * 1000
    assert bad not in [st["wall_ns"], st["unattributed_ns"], *st["children_union_ns"].values()]
o = out["over_steps"]["host"]
assert o["unattributed"]["min_ns"] >= 0
assert o["wall"]["max_ns"] == max(w for w, _, _ in truth) * 1000
assert "union" in out["scope"] and "never a sum" in out["scope"]
text = open(sys.argv[3]).read()
assert "unattributed" in text and "median" in text
print("ok: 12 steps, remainders", [s["unattributed_ns"] for s in out["steps"]][:4], "...")
PY
# overlapping children: covered-by-two counted once, remainder still >= 0
cat > "$TMP/ov.json" <<'J'
[{"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":20},
 {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","name":"b","pid":1,"tid":2,"ts":0,"dur":10},
 {"ph":"B","name":"c","pid":1,"tid":1,"ts":12},{"ph":"E","pid":1,"tid":1,"ts":30}]
J
"$STINT" steps "$TMP/ov.json" --step step --json | python3 -c '
import json,sys; s=json.load(sys.stdin)["steps"][0]
assert s["children_union_ns"] == {"a":10000,"c":8000}, s
assert s["unattributed_ns"] == 2000, s
print("ok: child clipped to its step")'
