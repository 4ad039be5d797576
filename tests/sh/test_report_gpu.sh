#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint report`'s GPU section: present with device work (a utilization plot
# per device, the class breakdown with the figures `stint gpu --json` gives,
# the top kernels, a bar per step), absent without it, and the page still
# refers to nothing outside itself.
set -eu
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
python3 "$SRC/bench/gen_kineto.py" g --devices 2 --steps 5 --ops 8 --seed 11
"$STINT" report g.rank0.json -o g.html 2>/dev/null
"$STINT" gpu --json g.rank0.json > g.json 2>/dev/null
python3 - g.html g.json <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
assert html.count('<h2 id="gpu">') == 1, "no GPU section"
gpu = html[html.index('<h2 id="gpu">'):]
assert gpu.count('class="gpuplot"') == len(d["devices"]) == 2, gpu.count('class="gpuplot"')
def us(ns):
    return "%d.%03d" % divmod(ns, 1000)
for dv in d["devices"]:
    row = "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td>" % (dv["device"], us(dv["window_ns"]), us(dv["busy_ns"]),
                                                               us(dv["idle_ns"]))
    assert row in gpu, row
top = gpu[gpu.index("<h3>Top kernels"):gpu.index("<h3>Device time per step")]
assert top.count("<tr><td") == len(d["kernels"]) == 10, top.count("<tr><td")
steps = gpu[gpu.index("<h3>Device time per step"):]
assert steps.count("<tr><td") == len(d["steps"]) == 5, steps.count("<tr><td")
for s in d["steps"]:
    assert "<td>%s</td><td>%s</td>" % (us(s["wall_ns"]), us(s["busy_ns"])) in steps, s
assert not re.search(r'https?://|<(script|img|link|iframe)[^>]*(src|href)=', html, re.I), "external reference"
PY
echo '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5}]}' > cpu.json
"$STINT" report cpu.json -o cpu.html 2>/dev/null
grep -q '<h2 id="gpu">' cpu.html && { echo "FAIL: a GPU section without device work"; exit 1; }
echo ok
