#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A plain Chrome file read on several threads (cut at event boundaries into
# parts that the threads take in turn, the parts' models merged in file order)
# gives exactly the same slices and summary as one thread, for 2 to 64 parts
# on 2 and 3 threads: array, object and unterminated-array forms, pretty and
# line styles, a file whose cuts sit inside a long string (the split must be
# refused and the file read again on one thread), a file cut off inside its
# last part (partial report) and one with bad bytes in a middle part. The
# same for gzip files (from 3 threads on, or with STINT_SPLIT_PARTS: one
# part per thread unless it says otherwise; each thread inflates from the
# start and parses its part), including a gzip file cut off (no trailer: the
# size is guessed wrong). Summary's other two-thread steps
# (the finish walk and its tally split by track, the quantiles of names
# split in two shares, both from 65536 on) are checked the same way on a
# file of 90,000 short spans, and the split walk again (forced on with
# STINT_FINISH_SPLIT_MIN=1) on small files whose repairs (overlaps, E
# events that close nothing, unfinished B) fall on tracks of both walkers
# (the first message must be the lowest track's, as on one thread), with
# filters.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
GEN=${STINT_SHARED_DIR:-}/tools/gen_chrome.py
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
[ -f "$GEN" ] || { echo "SKIP: $GEN is absent (shared tools)"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
# threads:parts read against one thread ("-": the default for the size, 4
# per thread here); under a sanitizer (10-40x slower) two of them
configs="2:- 2:2 3:7 2:64" gzfiles="a o c many ids bad open"
if [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  configs="2:- 3:7" gzfiles="a bad open"
fi
SAME_DIR=$T; . "$(dirname "$0")/same_output.sh"
same() { # name file
  for cmd in "summary --json" "slices --json" "counters --json"; do
    ref_run env STINT_THREADS=1 "$STINT" $cmd "$2"
    for tp in $configs; do
      parts=${tp#*:}; [ "$parts" = - ] && parts=
      same_as_ref "$1: $cmd identical on 1 thread and on $tp threads:parts" \
        env STINT_THREADS=${tp%:*} STINT_SPLIT_PARTS=$parts STINT_SPLIT_MIN_BYTES=1 "$STINT" $cmd "$2"
    done
  done
}
split_says() { # name file expected-text [threads]: what the split did (STINT_DEBUG_SPLIT)
  STINT_DEBUG_SPLIT=1 STINT_THREADS=${4:-2} STINT_SPLIT_MIN_BYTES=1 "$STINT" summary "$2" 2>&1 >/dev/null | grep -q "$3" &&
    echo "ok   $1: the split read says '$3'" || { echo "FAIL $1: the split read does not say '$3'"; fail=1; }
}
python3 "$GEN" --size 3M --seed 3 --format array --style line -o "$T/a.json" 2>/dev/null; same "array/line" "$T/a.json"
split_says "array/line" "$T/a.json" "split read: 8 parts on 2 threads$"
python3 "$GEN" --size 3M --seed 4 --format object --style pretty -o "$T/o.json" 2>/dev/null; same "object/pretty" "$T/o.json"
python3 "$GEN" --size 3M --seed 5 --format array-open --style compact -o "$T/c.json" 2>/dev/null; same "array-open/compact" "$T/c.json"
python3 - "$T/s.json" <<'PY'
import sys
# the middle of the file is inside a string that looks like an event boundary
fake = ',{"ph":"X","name":"fake","ts":1,"dur":1}' * 20000
ev = ['{"ph":"X","name":"a","pid":1,"tid":1,"ts":%d,"dur":1}' % i for i in range(100)]
ev.insert(50, '{"ph":"X","name":"s","pid":1,"tid":1,"ts":50,"dur":1,"args":{"t":"%s"}}' % fake.replace('"', '\\"'))
open(sys.argv[1], "w").write("[" + ",".join(ev) + "]")
PY
same "split point inside a string" "$T/s.json"
split_says "split point inside a string" "$T/s.json" "read again on one thread"
# cut off inside an event of the last part: the same partial report (rc 1)
head -c 2000000 "$T/a.json" > "$T/cut.json"; same "cut off in the last part" "$T/cut.json"
# bad bytes inside an event of a middle part: the error comes from a one-thread read
python3 - "$T/a.json" "$T/bad.json" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
at = b.index(b'"ph"', len(b) * 3 // 8)
open(sys.argv[2], "wb").write(b[:at] + b'"ph" @@ ' + b[at + 4:])
PY
same "bad bytes in a middle part" "$T/bad.json"
split_says "bad bytes in a middle part" "$T/bad.json" "read again on one thread"
python3 - "$T/many.json" <<'PY'
import sys
# 90,000 spans on 3 lanes, 300 names, nested two deep, durations spread so
# that every name has its own quantiles
out = []
for i in range(30000):
    for tid in (1, 2, 3):
        ts = i * 100
        out.append('{"ph":"X","cat":"c%d","name":"n%d","pid":1,"tid":%d,"ts":%d,"dur":%d}'
                   % (i % 7, (i * 31 + tid) % 300, tid, ts, 50 + (i * 7919 + tid) % 47))
        out.append('{"ph":"X","cat":"k","name":"inner%d","pid":1,"tid":%d,"ts":%d.5,"dur":%d}'
                   % (i % 13, tid, ts + 1, 1 + (i * 104729) % 40)) if i % 2 else None
open(sys.argv[1], "w").write("[" + ",\n".join(e for e in out if e) + "]")
PY
same "90,000 spans (finish and quantiles on two threads)" "$T/many.json"
STINT_DEBUG_SPLIT=1 STINT_THREADS=2 "$STINT" summary "$T/many.json" 2>&1 >/dev/null | grep -q "finish walk: 3 tracks on two threads" &&
  echo "ok   90,000 spans: the finish walk was split" || { echo "FAIL 90,000 spans: the finish walk was not split"; fail=1; }
python3 - "$T" <<'PY'
import json, random, sys
# many lanes, each with its own mix: X spans that overlap their parent, B/E
# pairs, an E that closes nothing, a B that never ends, instants, both clocks
# of names met on several lanes; the first repair of each kind on a late lane
# in some files and an early one in others
for seed in range(6):
    r = random.Random(seed)
    ev = []
    lanes = [(p, t) for p in (1, 2, 3) for t in range(1, 6)]
    for k, (pid, tid) in enumerate(lanes):
        late = (k >= len(lanes) // 2) == (seed % 2 == 0)
        ts = 0
        for i in range(r.randint(5, 40)):
            ts += r.randint(0, 20)
            e = {"pid": pid, "tid": tid, "ts": ts, "name": r.choice("abcdefg"), "cat": r.choice(["", "x", "y"])}
            q = r.random()
            if q < 0.6:
                e.update(ph="X", dur=r.choice([0, 1, 5, 30, 100]))
            elif q < 0.75:
                e["ph"] = "B"
            elif q < 0.9:
                e["ph"] = "E"
            else:
                e.update(ph="i", s="t")
            ev.append(e)
        # flows (v1): starts here, steps and ends on the next lane, some
        # arrows that bind nothing or continue no started flow
        for i in range(r.randint(0, 6)):
            fid, fts = r.randint(1, 5), r.randint(0, ts + 20)
            fl = {"ph": "s", "id": fid, "name": "fl", "cat": "c", "pid": pid, "tid": tid, "ts": fts}
            nx = lanes[(k + 1) % len(lanes)]
            ev.append(fl)
            if r.random() < 0.5:
                ev.append(dict(fl, ph="t", pid=nx[0], tid=nx[1], ts=fts + r.randint(0, 10)))
            ev.append(dict(fl, ph="f", pid=nx[0], tid=nx[1], ts=fts + r.randint(0, 30), **({"bp": "e"} if r.random() < 0.5 else {})))
        if late:  # an overlap, an E that closes nothing, a B left open
            ev += [{"ph": "X", "pid": pid, "tid": tid, "ts": ts + 100, "dur": 10, "name": "p"},
                   {"ph": "X", "pid": pid, "tid": tid, "ts": ts + 105, "dur": 10, "name": "ovl%d" % k},
                   {"ph": "E", "pid": pid, "tid": tid, "ts": ts + 200, "name": "none%d" % k},
                   {"ph": "B", "pid": pid, "tid": tid, "ts": ts + 300, "name": "open%d" % k}]
    r.shuffle(ev) if seed % 3 == 0 else None
    json.dump(ev, open("%s/walk%d.json" % (sys.argv[1], seed), "w"))
PY
for f in "$T"/walk*.json; do
  for args in "summary --json" "summary" "summary --json --name [a-c]*" "summary --json --pid 2 --time-range 0:150"; do
    ref_run env STINT_THREADS=1 "$STINT" $args "$f"
    same_as_ref "$(basename "$f") $args: the finish walk split in two gives the same" \
      env STINT_THREADS=2 STINT_FINISH_SPLIT_MIN=1 "$STINT" $args "$f"
  done
done
STINT_DEBUG_SPLIT=1 STINT_THREADS=2 STINT_FINISH_SPLIT_MIN=1 "$STINT" summary "$T/walk0.json" 2>&1 >/dev/null |
  grep -q "finish walk: .* on two threads" && echo "ok   walk0: the finish walk was split" || { echo "FAIL walk0: not split"; fail=1; }
python3 - "$T/ids.json" <<'PY'
import sys
# pids and tids given as strings (synthetic ids) next to real negative ones,
# on both sides of the split: the halves' models must agree on which is which
ev = []
for i in range(400):
    ev.append('{"ph":"X","name":"s%d","pid":1,"tid":"w","ts":%d,"dur":3}' % (i % 5, 10 * i))
    ev.append('{"ph":"X","name":"n%d","pid":1,"tid":-1,"ts":%d,"dur":3}' % (i % 3, 10 * i + 1))
    ev.append('{"ph":"X","name":"p","pid":"proc","tid":"t%d","ts":%d,"dur":2}' % (i % 2, 10 * i + 2))
    ev.append('{"ph":"X","name":"q","pid":-7,"tid":-7,"ts":%d,"dur":2}' % (10 * i + 3))
# in the second half only: a string tid met before a string pid (one thread
# numbers them in that order; the merge must too)
for i in range(400, 420):
    ev.append('{"ph":"X","name":"late","pid":9,"tid":"late%d","ts":%d,"dur":1}' % (i % 3, 10 * i))
    ev.append('{"ph":"X","name":"later","pid":"lp%d","tid":"x","ts":%d,"dur":1}' % (i % 2, 10 * i + 5))
# a string pid whose tid is absent or 0 (the tid is then the pid's number,
# which the merge renumbers with the pid)
for i in range(420, 440):
    ev.append('{"ph":"X","name":"notid","pid":"np%d","ts":%d,"dur":1}' % (i % 2, 10 * i))
    ev.append('{"ph":"X","name":"tid0","pid":"zp","tid":0,"ts":%d,"dur":1}' % (10 * i + 5))
open(sys.argv[1], "w").write("[" + ",\n".join(ev) + "]")
PY
same "string and negative pids and tids" "$T/ids.json"
if command -v gzip >/dev/null; then
  # no closing ']' after a last ',': a part whose stream ends before its cut
  # reads on to the real end (and counts the missing ']' as one thread does)
  python3 -c 'import sys; b = open(sys.argv[1]).read().rstrip(); open(sys.argv[2], "w").write(b[:-1].rstrip() + ",\n")' "$T/a.json" "$T/open.json"
  for f in $gzfiles; do gzip -1 -c "$T/$f.json" > "$T/$f.json.gz"; same "gzip $f" "$T/$f.json.gz"; done
  split_says "gzip array/line, 3 threads" "$T/a.json.gz" "split read: 3 parts on 3 threads$" 3
  STINT_DEBUG_SPLIT=1 STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1 "$STINT" summary "$T/a.json.gz" 2>&1 >/dev/null |
    grep -q "split read" && { echo "FAIL gzip on 2 threads: split (the inflate pipe does better there)"; fail=1; } ||
    echo "ok   gzip on 2 threads: not split (inflated on one thread, parsed on the other)"
  head -c 300000 "$T/a.json.gz" > "$T/cut.json.gz"; same "gzip cut off" "$T/cut.json.gz"
else
  echo "SKIP: gzip is not installed (the gzip cases)"
fi
exit $fail
