#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# STINT_SELF_TRACE (selftrace.h): stint records its own phases with libstint
# and writes them as Chrome JSON. The report must not change (stdout
# byte-identical, stderr the same but for the self trace's own line); the
# trace must be one stint reads back without a repair or a drop, with the
# threads named and the phases nested as the code runs them: on a gzip trace
# the inflate thread's blocks, the read, the finish (E events, flow events,
# the two walkers and their tracks, the joins), the summary's tail and
# output, with each thread's CPU time on its main spans; on a plain file
# read in parts, each part and its merge. A
# recorder smaller than the run (STINT_SELF_TRACE_SPANS) keeps the last
# spans and counts the others as dropped. Without
# the variable nothing is written and libstint prints nothing (no marker
# lines); a path that cannot be written gives exit 3 after the report; a
# command that fails on its input keeps its exit code and still writes the
# trace.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
command -v gzip >/dev/null || { echo "SKIP: gzip is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
python3 - "$T/t.json" <<'PY'
import random, sys
random.seed(3)
ev = []
for tid in range(1, 7):
    ts = 1000
    for k in range(6000):
        ev.append('{"ph":"X","cat":"c%d","name":"outer%d","pid":1,"tid":%d,"ts":%d,"dur":40,"args":{"k":%d}}'
                  % (k % 3, k % 5, tid, ts, k))
        ev.append('{"ph":"X","cat":"c%d","name":"inner%d","pid":1,"tid":%d,"ts":%d.5,"dur":20}' % (k % 2, k % 7, tid, ts + 3))
        if k % 50 == 0:
            ev.append('{"ph":"B","name":"b","pid":1,"tid":%d,"ts":%d}' % (tid, ts + 30))
            ev.append('{"ph":"E","pid":1,"tid":%d,"ts":%d}' % (tid, ts + 35))
            ev.append('{"ph":"s","cat":"f","name":"flow","id":%d,"pid":1,"tid":%d,"ts":%d}' % (k, tid, ts + 31))
            ev.append('{"ph":"f","bp":"e","cat":"f","name":"flow","id":%d,"pid":1,"tid":%d,"ts":%d}' % (k, 7 - tid, ts + 36))
        ts += 50
open(sys.argv[1], "w").write("[\n" + ",\n".join(ev) + "\n]\n")
PY
gzip -1 -k "$T/t.json"
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

# without the variable: nothing written, no marker lines
env -u STINT_SELF_TRACE STINT_FINISH_SPLIT_MIN=1000 "$STINT" summary --json "$T/t.json.gz" >"$T/out0" 2>"$T/err0"
rc0=$?
check [ "$rc0" = 0 ]
check [ "$(ls "$T" | grep -c self)" = 0 ]
if grep -q 'STRACE\|self trace' "$T/err0"; then echo "FAIL: stderr without STINT_SELF_TRACE: $(cat "$T/err0")"; fail=1; fi

# gzip, the inflate thread, two walkers
STINT_SELF_TRACE="$T/self.json" STINT_FINISH_SPLIT_MIN=1000 "$STINT" summary --json "$T/t.json.gz" >"$T/out1" 2>"$T/err1"
check [ $? = 0 ]
check cmp -s "$T/out0" "$T/out1"
grep -v '^stint: self trace: ' "$T/err1" > "$T/err1b"
check cmp -s "$T/err0" "$T/err1b"
if ! grep -q "^stint: self trace: [0-9]* spans (0 dropped) written to $T/self.json\$" "$T/err1"; then
  echo "FAIL: no self trace line: $(cat "$T/err1")"; fail=1
fi
"$STINT" slices --json "$T/self.json" >"$T/s1.json" 2>"$T/s1.err"
check [ $? = 0 ]
if [ -s "$T/s1.err" ]; then echo "FAIL: the self trace reads with messages: $(cat "$T/s1.err")"; fail=1; fi
python3 - "$T/s1.json" "$T/self.json" "$(wc -c < "$T/t.json")" <<'PY' || fail=1
import json, sys
rows = json.load(open(sys.argv[1]))["slices"]
meta = json.load(open(sys.argv[2]))
names = {e["tid"]: e["args"]["name"] for e in meta["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"}
bad = []
def need(c, what):
    if not c: bad.append(what)
need(meta.get("dropped_events") == 0, "dropped events")
def by(name): return [r for r in rows if r["name"] == name]
def thread(r): return names.get(r["tid"])
def parent(r): return rows[r["parent"]]["name"] if r["parent"] is not None else None
top = by("stint summary")
need(len(top) == 1 and top[0]["depth"] == 0 and thread(top[0]) == "stint", "one command span at depth 0 on 'stint'")
rss = [a["value"] for a in top[0]["args"] if a["key"] == "args.rss_kib"] if top else []
need(rss and rss[0] > 0, "the command span's rss_kib")
rd = by("read")
need(len(rd) == 1 and parent(rd[0]) == "stint summary", "read under the command")
inf = [r for r in by("inflate") if thread(r) == "stint inflate"]
need(len(inf) >= 1 and sum(a["value"] for r in inf for a in r["args"] if a["key"] == "args.bytes") == int(sys.argv[3]), "inflate blocks on 'stint inflate' adding up to the file")
for w in by("wait: inflate"):
    need(parent(w) == "read", "a reader's wait outside the read")
need(len(by("E events sorted, slices grouped")) == 1, "the grouping step")
need(len(by("flow events in order")) == 1, "the flow events' order")
wt = by("walk tracks")
need(len(wt) == 2 and sorted(thread(r) for r in wt) == ["stint", "stint walk"], "two walkers on 'stint' and 'stint walk'")
tracks = by("walk track")
need(len(tracks) >= 6 and all(parent(r) == "walk tracks" for r in tracks), "tracks walked inside the walkers")
need(sorted(a["value"] for r in tracks for a in r["args"] if a["key"] == "args.track") == list(range(len(tracks))), "each track walked once")
need(len(by("join tallies")) == 1 and len(by("bind flows")) == 1, "the joins")
need(len(by("records in order")) >= 1 and all(parent(r) == "walk track" for r in by("records in order")), "records put in order inside a track's walk")
it = by("inflate thread")
need(len(it) == 1 and thread(it[0]) == "stint inflate" and all(parent(r) == "inflate thread" for r in inf), "the inflate thread's blocks inside its span")
for r in rd + wt + it + by("tail: unions and quantiles"):
    cpu = [a["value"] for a in r["args"] if a["key"] == "args.cpu_us"]
    need(len(cpu) == 1 and 0 <= cpu[0] * 1000 <= r["dur_ns"] + 1000000, "CPU time (cpu_us) within the span: %s" % r["name"])
need(len(by("summary: output")) == 1 and parent(by("summary: output")[0]) == "stint summary", "the output")
for r in rows:
    if r["parent"] is not None:
        p = rows[r["parent"]]
        need(p["ts_ns"] <= r["ts_ns"] and r["ts_ns"] + r["dur_ns"] <= p["ts_ns"] + p["dur_ns"], "a span outside its parent: %s" % r["name"])
if bad:
    print("FAIL: self trace (gzip):", sorted(set(bad))); sys.exit(1)
PY

# a plain file read in parts on two threads
STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=100000 STINT_SPLIT_PARTS=4 "$STINT" summary --json "$T/t.json" >"$T/out2" 2>"$T/err2"
STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=100000 STINT_SPLIT_PARTS=4 STINT_SELF_TRACE="$T/self2.json" \
  "$STINT" summary --json "$T/t.json" >"$T/out3" 2>"$T/err3"
check [ $? = 0 ]
check cmp -s "$T/out2" "$T/out3"
"$STINT" summary --json "$T/t.json" >"$T/out2b" 2>/dev/null
check cmp -s "$T/out2" "$T/out2b"
"$STINT" slices --json "$T/self2.json" >"$T/s2.json" 2>/dev/null
python3 - "$T/s2.json" "$T/self2.json" <<'PY' || fail=1
import json, sys
rows = json.load(open(sys.argv[1]))["slices"]
meta = json.load(open(sys.argv[2]))
names = {e["tid"]: e["args"]["name"] for e in meta["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"}
parts = [r for r in rows if r["name"] == "read part"]
got = sorted(a["value"] for r in parts for a in r["args"] if a["key"] == "args.part")
bad = []
if got != [0, 1, 2, 3]: bad.append("read parts %s" % got)
if not any(names.get(r["tid"]) == "stint read" for r in parts): bad.append("no part on 'stint read'")
merged = sorted(a["value"] for r in rows if r["name"] == "merge part" for a in r["args"] if a["key"] == "args.part")
if merged != [1, 2, 3]: bad.append("merged parts %s" % merged)
reads = [r for r in rows if r["name"] == "read()"]
if not reads: bad.append("no read() spans")
if bad:
    print("FAIL: self trace (split):", bad); sys.exit(1)
PY

# a recorder smaller than the run: the last spans kept, the others counted
STINT_SELF_TRACE="$T/self6.json" STINT_SELF_TRACE_SPANS=20 STINT_FINISH_SPLIT_MIN=1000 \
  "$STINT" summary --json "$T/t.json.gz" >"$T/out6" 2>"$T/err6"
check cmp -s "$T/out0" "$T/out6"
if ! grep -q "^stint: self trace: 20 spans ([1-9][0-9]* dropped) written to" "$T/err6"; then
  echo "FAIL: a 20-span recorder: $(cat "$T/err6")"; fail=1
fi

# a path that cannot be written: the report, then exit 3
STINT_SELF_TRACE="$T/no/such/dir/x.json" STINT_FINISH_SPLIT_MIN=1000 "$STINT" summary --json "$T/t.json.gz" >"$T/out4" 2>"$T/err4"
rc=$?
check [ "$rc" = 3 ]
check cmp -s "$T/out0" "$T/out4"
grep -q "STINT_SELF_TRACE: $T/no/such/dir/x.json: not written" "$T/err4" || { echo "FAIL: no message: $(cat "$T/err4")"; fail=1; }

# bad data: its exit code, and the trace is written
head -c 30000 "$T/t.json" > "$T/cut.json"
STINT_SELF_TRACE="$T/self5.json" "$STINT" summary "$T/cut.json" >/dev/null 2>"$T/err5"
rc=$?
check [ "$rc" = 1 ]
check [ -s "$T/self5.json" ]
"$STINT" summary "$T/self5.json" >/dev/null 2>&1 || { echo "FAIL: the trace of a failed run does not read"; fail=1; }

[ "$fail" = 0 ] && echo "PASS: self trace"
exit "$fail"
