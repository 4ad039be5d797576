#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint report` keeps device work apart and says what it is:
#   - a marker log's device phases are drawn only on device-clock lanes,
#     labelled "inv N (device clock, own origin)", never on a host lane;
#   - annotations on a device stream (gpu_user_annotation) get a section of
#     their own with their count, union and sum, worked out here by hand,
#     and stay out of the lane table, whose busy time is the kernels' alone.
set -u
STINT=${STINT_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-rdev.XXXXXX")
trap 'rm -rf "$T"' EXIT
P='[STRACE] v=1 pid=7 tid=7 inv=1 hid=ab'
cat > "$T/in.log" <<EOF
$P depth=1 name=run ts=1000000 dur=500000
$P depth=1 name=device_wall ts=0 dur=270000 clk=dev
$P depth=2 name=graph_build ts=37000 dur=224000 clk=dev
$P depth=2 name=orch ts=49000 dur=120000 clk=dev
$P depth=2 name=sched ts=49600 dur=209400 clk=dev
EOF
# stream 7: one kernel [10, 15) us; annotations [0, 30) and [20, 40): union 40 us, sum 50 us
cat > "$T/k.json" <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"step","pid":0,"tid":1,"ts":0,"dur":50},
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5},
{"ph":"X","cat":"gpu_user_annotation","name":"a","pid":0,"tid":7,"ts":0,"dur":30},
{"ph":"X","cat":"gpu_user_annotation","name":"b","pid":0,"tid":7,"ts":20,"dur":20}
]}
EOF
fail=0
"$STINT" report "$T/in.log" -o "$T/m.html" 2>"$T/err" || { echo "FAIL: report markers"; cat "$T/err"; fail=1; }
"$STINT" report "$T/k.json" -o "$T/k.html" 2>>"$T/err" || { echo "FAIL: report chrome"; cat "$T/err"; fail=1; }
python3 - "$T/m.html" "$T/k.html" <<'PY' || fail=1
import json, re, sys
m, k = open(sys.argv[1]).read(), open(sys.argv[2]).read()
d = json.loads(re.search(r'id="stint-data">(.*?)</script>', m, re.S).group(1))
labels = [l["label"] for l in d["lanes"]]
dev = {"device_wall", "graph_build", "orch", "sched"}
sl = d["slices"]
seen = set()
for i in range(0, len(sl), 5):
    lane, name = labels[sl[i]], d["names"][sl[i + 4]]
    if name in dev:
        assert lane == "pid 7 inv 1 (device clock, own origin)", (name, lane)
        seen.add(name)
    else:
        assert "device" not in lane, (name, lane)
assert seen == dev, seen
assert "Annotations on device streams" not in m
sec = k.split("<h2>Annotations on device streams</h2>")
assert len(sec) == 2, "no section of annotations"
rows = re.findall(r"<tr><td class=\"n\">(.*?)</td>(.*?)</tr>", sec[1].split("</table>")[0])
assert len(rows) == 1 and rows[0][0].startswith("pid 0 tid 7"), rows
assert re.findall(r"<td>(.*?)</td>", rows[0][1]) == ["2", "40.000", "50.000"], rows
lanes = k.split("<h2>Lanes</h2>")[1].split("</table>")[0]
row7 = [r for r in re.findall(r"<tr><td class=\"n\">(.*?)</tr>", lanes) if r.startswith("pid 0 tid 7")]
assert row7 and re.findall(r"<td>(.*?)</td>", row7[0])[1:] == ["1", "5.000", "5.000"], row7
print("ok: device lanes apart and labelled; stream annotations listed apart (2, union 40 us, sum 50 us)")
PY
exit $fail
