#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Spans that libstint loses in full thread buffers, end to end: the demo runs
# with 4 KiB buffers and a 5 s flush (so that most of its spans are lost), and
# each file it writes must say so to the analyzer: `stint summary --json`
# gives the number the demo printed (its own count, from stint_get_stats) for
# the marker log, the JSONL session and the Chrome trace, on one thread of
# the demo's pid, with a range that lies where the demo ran; the flight
# recorder's count is its metadata's; each plain and gzipped; every command
# says LOST on stderr; `stint timing` warns with the same number; --strict
# exits 1. Then a marker log whose loss lines are split over many threads
# and lines, against a count made here.
set -euo pipefail
STINT=${STINT_BIN:?}
DEMO="$(dirname "$STINT")/examples/demo"
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-losses.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 checks=0
check() { # name, got, want
    checks=$((checks + 1))
    if [ "$2" != "$3" ]; then
        echo "FAIL: $1: got '$2', want '$3'"
        fail=1
    fi
}
if [ ! -x "$DEMO" ]; then
    echo "SKIP: no demo binary at $DEMO"
    exit 77
fi
STINT_BUFFER_KB=4 STINT_FLUSH_MS=5000 "$DEMO" "$T/out" >"$T/demo.txt" 2>"$T/demo.err"
lost=$(sed -n 's/.*markers.log ([0-9]* spans, \([0-9]*\) dropped.*/\1/p' "$T/demo.txt")
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$T/out/session.jsonl" | head -n 1)
echo "demo: $lost spans lost, pid $pid"
checks=$((checks + 1))
if [ -z "$lost" ] || [ "$lost" -eq 0 ]; then
    echo "FAIL: the demo lost no span with 4 KiB buffers (cannot test)"; cat "$T/demo.txt"; exit 1
fi
for f in markers.log session.jsonl trace.json ring.json; do
    gzip -c "$T/out/$f" >"$T/out/$f.gz"
    for g in "$f" "$f.gz"; do
        "$STINT" summary --json "$T/out/$g" >"$T/$g.sum" 2>"$T/s.err" || true
        check "summary $g: LOST on stderr" "$(grep -c "LOST: the writer lost [0-9]* span" "$T/s.err")" 1
    done
done
# each file's loss in absolute CLOCK_MONOTONIC ns (the Chrome trace counts from its
# origin_monotonic_ns, the session from its meta's clock_monotonic_ns): the same drops,
# reported by three sinks, must read as the same count, thread and range
python3 - "$T" "$lost" "$pid" <<'PY' >"$T/cmp.txt"
import json, re, sys
T, lost, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = T + "/out/"
meta = json.loads(open(out + "session.jsonl").readline())
base = {"markers.log": 0, "session.jsonl": meta["clock_monotonic_ns"],
        "trace.json": json.load(open(out + "trace.json"))["metadata"]["origin_monotonic_ns"]}
recs = [tuple(map(int, m)) for m in re.findall(r"ts=(\d+) dur=(\d+)", open(out + "markers.log").read())]
lo, hi = min(a for a, _ in recs), max(a + b for a, b in recs)
for f, b in sorted(base.items()):
    for g in (f, f + ".gz"):
        d = json.load(open("%s/%s.sum" % (T, g)))
        l, th = d["lost"], d["lost"]["threads"]
        print(g, "spans", l["spans"] == lost, "one thread", len(th) == 1 and th[0]["tid"] is not None,
              "pid", th[0]["pid"] == pid, "count", th[0]["count"] == lost, "dropped", d["dropped"] == 0)
        a, z = th[0]["first_ns"] + b, th[0]["last_ns"] + b
        # lost while the demo ran: within its kept spans' time, give or take a second
        print(g, "range", a <= z and lo - 10**9 <= a and z <= hi + 10**9, a, z)
md = json.load(open(out + "ring.json"))["metadata"]
for g in ("ring.json", "ring.json.gz"):
    l = json.load(open("%s/%s.sum" % (T, g)))["lost"]
    print(g, "spans", l["spans"] == md["lost_in_thread_buffers"], "thread", l["threads"][0]["pid"] is None
          if l["threads"] else l["spans"] == 0)
PY
cat "$T/cmp.txt"
check "the files' losses agree" "$(grep -c False "$T/cmp.txt")" 0
check "the three files' ranges are one range" "$(awk '$2 == "range" {print $4, $5}' "$T/cmp.txt" | sort -u | wc -l)" 1
for c in "tree" "steps" "counters" "slices"; do
    "$STINT" $c "$T/out/markers.log" >/dev/null 2>"$T/c.err" || true
    check "$c: LOST on stderr" "$(grep -c "LOST: the writer lost $lost span" "$T/c.err")" 1
done
"$STINT" timing "$T/out/markers.log" >/dev/null 2>"$T/t.err"
check "timing: warning" "$(grep -c "the writer lost $lost span(s) before they reached the log" "$T/t.err")" 1
rc=0; "$STINT" timing --strict "$T/out/markers.log" >/dev/null 2>&1 || rc=$?
check "timing --strict: exit" "$rc" 1
for f in markers.log session.jsonl trace.json; do
    rc=0; "$STINT" summary --strict "$T/out/$f" >/dev/null 2>"$T/s.err" || rc=$?
    check "summary --strict $f: exit" "$rc" 1
    # (the demo's marker log has repairs too, and the first problem is the one --strict names)
    check "summary --strict $f: message" "$(grep -c -- "--strict: " "$T/s.err")" 1
done

# many threads, many lines, log prefixes, interleaved with records; each
# thread's count and range made here
python3 - "$T/many.log" >"$T/many.want" <<'PY'
import json, random, sys
r = random.Random(3)
want = {}
with open(sys.argv[1], "w") as f:
    ts = 10**9
    for i in range(3000):
        ts += r.randint(1, 5000)
        # 20 threads: more than the reader looks back over to join a report to its thread's last
        # one, so that the final merge (sort, join) does the rest
        pid, tid = r.choice([(10, 11), (10, 12), (20, 21)] + [(30, 100 + k) for k in range(17)])
        if r.random() < 0.3:
            n, a, b = r.randint(1, 10**6), ts - r.randint(0, 10**4), ts
            unknown = r.random() < 0.1
            if unknown:
                a = b = 0
            pre = r.choice(["", "[2026-08-04 10:00:00.000001][T0x1][TIMING] ", "INFO:root:"])
            end = r.choice(["\n", "\r\n"])
            f.write("%s[STINT] v=1 dropped pid=%d tid=%d count=%d first_ts=%d last_ts=%d%s" % (pre, pid, tid, n, a, b, end))
            w = want.setdefault((pid, tid), [0, None, None])
            w[0] += n
            if not unknown:
                w[1] = a if w[1] is None else min(w[1], a)
                w[2] = b if w[2] is None else max(w[2], b)
        else:
            f.write("[STRACE] v=1 pid=%d tid=%d inv=%d hid=00ab depth=1 name=s%d ts=%d dur=%d k=v\n"
                    % (pid, tid, i, i % 7, ts, r.randint(1, 999)))
print(json.dumps({"spans": sum(w[0] for w in want.values()),
                  "threads": [{"pid": p, "tid": t, "count": w[0], "first_ns": w[1], "last_ns": w[2]}
                              for (p, t), w in sorted(want.items())]}, sort_keys=True))
PY
gzip -c "$T/many.log" >"$T/many.log.gz"
for g in many.log many.log.gz; do
    "$STINT" summary --json "$T/$g" 2>/dev/null |
        python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["lost"], sort_keys=True))' >"$T/got"
    check "summary $g: lost per thread" "$(cat "$T/got")" "$(cat "$T/many.want")"
    # filters leave the losses as they are
    "$STINT" summary --json --tid 11 "$T/$g" 2>/dev/null |
        python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["lost"], sort_keys=True))' >"$T/got"
    check "summary $g --tid 11: lost" "$(cat "$T/got")" "$(cat "$T/many.want")"
done

echo "$checks checks"
if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "PASS"
