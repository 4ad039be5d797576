#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An I/O error in the middle of a file: what was read before it is still
# reported, marked PARTIAL, and the command exits 3; an I/O error before any
# event was read prints no report and says so ("no report", never PARTIAL).
# The error comes from the test knob STINT_TEST_EIO_AT=N (input.c: the read
# that would pass file offset N fails with EIO). Plain files on one thread
# and cut into parts on two, gzip input (its inflate thread), diff, marker
# logs through `stint timing`'s own reader, and JSONL read line by line
# (memory, counters --time-key).
set -uo pipefail
STINT=${STINT_BIN:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-eio.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# 5 MB of complete spans whose args (random hex) compress about 2:1, so the
# gzip file is over 1 MiB too (the readers read 1 MiB at a time)
python3 - "$work/t.json" <<'PY'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents":[\n')
    ts, n = 0, 0
    while f.tell() < 5_000_000:
        ts += r.randint(5, 50)
        f.write('{"ph":"X","name":"n%d","cat":"c","pid":1,"tid":%d,"ts":%d,"dur":%d,"args":{"h":"%032x","g":"%032x"}},\n'
                % (r.randint(0, 30), r.randint(1, 4), ts, r.randint(1, 40), r.getrandbits(128), r.getrandbits(128)))
        f.write('{"ph":"C","name":"mem","pid":1,"ts":%d,"args":{"bytes":%d}},\n' % (ts, r.randint(0, 1 << 20)))
        n += 2
    f.write('{}]}\n')
PY
gzip -1 -c "$work/t.json" >"$work/t.json.gz"
total=$("$STINT" summary --json "$work/t.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["spans"])')
[ "${total:-0}" -gt 1000 ] || bad "the whole file reads as ${total:-?} spans"
zsize=$(stat -c %s "$work/t.json.gz")
[ "$zsize" -gt 1200000 ] || bad "the gzip file is only $zsize bytes (needs more than 1 MiB)"

# check NAME EXPECT FILE ARGS...: runs the command with the knob set (EIO_AT
# in the environment); EXPECT is "partial" (rc 3, output, PARTIAL, the error
# with its offset) or "none" (rc 3, no output, "no report"). The output is
# stdout, or OUT when set (a command writing a file).
check() {
  local name=$1 expect=$2 file=$3 was=$fail; shift 3
  fail=0
  rm -f "${OUT:-$work/out}"
  "$STINT" "$@" "$file" >"$work/out" 2>"$work/err"
  local rc=$?
  local out=${OUT:-$work/out}
  if [ "$rc" != 3 ]; then bad "$name: exit $rc, expected 3"; sed 's/^/    /' "$work/err" | head -5; fail=1; return; fi
  if ! grep -qE "^stint( timing: cannot read .* at byte [0-9]+|( timing:|: error:) .*: read error at (compressed )?byte [0-9]+): Input/output error$" "$work/err"; then
    bad "$name: no read error with its byte offset on stderr"; sed 's/^/    /' "$work/err" | head -5
  fi
  if [ "$expect" = partial ]; then
    [ -s "$out" ] || bad "$name: nothing reported of what was read"
    grep -qE 'the report is PARTIAL|the tables below are PARTIAL' "$work/err" || bad "$name: stderr does not mark the report PARTIAL"
    grep -q 'no report' "$work/err" && bad "$name: stderr says 'no report' above a report"
  else
    [ -s "$out" ] && bad "$name: a report after an error before any event"
    grep -q "no report (the input could not be read)" "$work/err" || bad "$name: stderr does not say 'no report'"
    grep -q 'PARTIAL' "$work/err" && bad "$name: PARTIAL without a report"
  fi
  [ $fail = 0 ] && echo "ok   $name (exit 3, $(wc -c <"$out") bytes out)"
  [ $was = 0 ] || fail=1
}

# summary --json: the spans read before the error, fewer than all, partial: true
json_spans() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["spans"] if d["partial"] is True else -1)' "$work/out"
}

export STINT_TEST_EIO_AT=2500000
for cmd in "summary" "summary --json" "slices --csv" "tree" "counters"; do
  STINT_THREADS=1 check "plain, one thread: $cmd" partial "$work/t.json" $cmd
done
STINT_THREADS=1 check "plain, one thread: summary --json (spans)" partial "$work/t.json" summary --json
s=$(json_spans)
{ [ "${s:-0}" -gt 0 ] && [ "$s" -lt "$total" ]; } || bad "one thread: $s spans reported partial, expected 1..$((total - 1))"
STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=1 check "plain, two threads in parts: summary --json" partial "$work/t.json" summary --json
s=$(json_spans)
{ [ "${s:-0}" -gt 0 ] && [ "$s" -lt "$total" ]; } || bad "two threads: $s spans reported partial, expected 1..$((total - 1))"
OUT=$work/folded.txt check "plain: convert" partial "$work/t.json" convert --to folded -o "$work/folded.txt"
check "plain: diff" partial "$work/t.json" diff "$work/t.json"
grep -q '^# PARTIAL: A and B each ended in an error' "$work/out" || bad "diff: the comparison is not marked PARTIAL"
check "plain: diff --json" partial "$work/t.json" diff --json "$work/t.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["partial_a"] is True and d["partial_b"] is True and d["rows"]))' \
  "$work/out" || bad "diff --json: partial_a/partial_b not true, or no rows"

export STINT_TEST_EIO_AT=$((zsize - 100000))
check "gzip, inflate thread: summary --json" partial "$work/t.json.gz" summary --json
s=$(json_spans)
{ [ "${s:-0}" -gt 0 ] && [ "$s" -lt "$total" ]; } || bad "gzip: $s spans reported partial, expected 1..$((total - 1))"
STINT_NO_INFLATE_THREAD=1 check "gzip, no inflate thread: slices" partial "$work/t.json.gz" slices --csv
# the compressed chunks read ahead by the reader (input.c), every one it can,
# or none: the failed read still ends the run the same way
for ra in all 0; do
  STINT_PIPE_READ_AHEAD=$ra check "gzip, inflate thread, read ahead $ra: summary --json" partial "$work/t.json.gz" summary --json
  s=$(json_spans)
  { [ "${s:-0}" -gt 0 ] && [ "$s" -lt "$total" ]; } || bad "gzip, read ahead $ra: $s spans reported partial, expected 1..$((total - 1))"
done

# gen_log FILE SEED BYTES NAMES PREFIX HEX: a marker log of about BYTES, one
# record per name (comma-separated) and invocation after the log prefix,
# with a random 128-bit hex attr when HEX is 1
gen_log() {
  python3 - "$@" <<'PY'
import random, sys
path, seed, size, names, prefix, hexattr = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(","), sys.argv[5], sys.argv[6] == "1"
r = random.Random(seed)
with open(path, "w") as f:
    ts, inv = 1000, 0
    while f.tell() < size:
        inv += 1
        for d, name in enumerate(names):
            f.write("%s[STRACE] v=1 pid=7 tid=8 inv=%d hid=%d depth=%d name=%s ts=%d dur=%d%s\n"
                    % (prefix, inv, d + 1, d, name, ts + d, r.randint(100, 900) - 50 * d,
                       " h=%032x" % r.getrandbits(128) if hexattr else ""))
        ts += 1000
PY
}

# marker logs: `stint timing` (its own reader) and `summary` of the same log
gen_log "$work/m.log" 3 3000000 run,orch,sched "I1201 12:00:00.000 host] " 0
export STINT_TEST_EIO_AT=1500000
check "markers: timing" partial "$work/m.log" timing
check "markers: summary" partial "$work/m.log" summary
export STINT_TEST_EIO_AT=0
check "markers, error at the first read: timing" none "$work/m.log" timing

# a gzip marker log (found by content, as stdin too) reads as the plain one;
# its attrs (random hex) keep the gzip file over 1 MiB
gen_log "$work/mz.log" 5 5000000 run,orch "" 1
gzip -1 -c "$work/mz.log" >"$work/mz.log.gz"
unset STINT_TEST_EIO_AT
"$STINT" timing --json "$work/mz.log" >"$work/mz.plain.json" 2>/dev/null || bad "markers: timing of the plain log failed"
"$STINT" timing --json "$work/mz.log.gz" >"$work/mz.gz.json" 2>"$work/err" || bad "markers, gzip: timing failed"
"$STINT" timing --json - <"$work/mz.log.gz" >"$work/mz.stdin.json" 2>/dev/null || bad "markers, gzip on stdin: timing failed"
grep -q '"spans": [1-9]' "$work/mz.plain.json" || bad "markers: the plain log gave no spans"
cmp -s "$work/mz.plain.json" "$work/mz.gz.json" || bad "markers, gzip: timing differs from the plain log's"
cmp -s "$work/mz.plain.json" "$work/mz.stdin.json" || bad "markers, gzip on stdin: timing differs from the plain log's"
for ra in all 0; do
  STINT_PIPE_READ_AHEAD=$ra "$STINT" timing --json "$work/mz.log.gz" >"$work/mz.ra.json" 2>/dev/null || bad "markers, gzip, read ahead $ra: timing failed"
  cmp -s "$work/mz.plain.json" "$work/mz.ra.json" || bad "markers, gzip, read ahead $ra: timing differs from the plain log's"
done
zm=$(stat -c %s "$work/mz.log.gz")
[ "$zm" -gt 1200000 ] || bad "the gzip log is only $zm bytes (needs more than 1 MiB)"
export STINT_TEST_EIO_AT=$((zm - 100000))
check "markers, gzip: timing" partial "$work/mz.log.gz" timing
unset STINT_TEST_EIO_AT
# cut short: bad data (exit 1), what was read before it timed and marked PARTIAL
head -c $((zm / 2)) "$work/mz.log.gz" >"$work/mz-cut.log.gz"
"$STINT" timing "$work/mz-cut.log.gz" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" = 1 ] || bad "markers, truncated gzip: exit $rc, expected 1"
grep -q 'gzip stream is truncated' "$work/err" || bad "markers, truncated gzip: no message about the truncation"
grep -q 'the tables below are PARTIAL' "$work/err" || bad "markers, truncated gzip: not marked PARTIAL"
[ -s "$work/out" ] || bad "markers, truncated gzip: nothing reported of what was read"
"$STINT" timing --json "$work/mz-cut.log.gz" >"$work/out" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["partial"] is True and d["records"]["spans"] > 0))' \
  "$work/out" || bad "markers, truncated gzip: timing --json is not partial: true with the spans read"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["partial"] is not False)' "$work/mz.gz.json" ||
  bad "markers, gzip: timing --json of a whole log is not partial: false"

# JSONL read line by line by `memory` and `counters --time-key` (jsonl_scan.c)
python3 - "$work/mem.jsonl" "$work/tele.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"kind":"meta","schema":"stint/session/1","pid":1}\n')
    i = 0
    while f.tell() < 3_000_000:
        f.write('{"kind":"memory","timestamp_ns":%d,"tensor_id":"t%d","device":"cpu","bytes":4096,"action":"%s","category":"activation"}\n'
                % (1000 + i, i // 2, "alloc" if i % 2 == 0 else "free"))
        i += 1
with open(sys.argv[2], "w") as f:
    i = 0
    while f.tell() < 3_000_000:
        f.write('{"unix": %d, "power_w": %d, "pad": "%s"}\n' % (i, 100 + i % 50, "x" * 40))
        i += 1
PY
export STINT_TEST_EIO_AT=1500000
check "jsonl: memory" partial "$work/mem.jsonl" memory
grep -q '^# PARTIAL' "$work/out" || bad "memory: the report is not marked PARTIAL"
check "jsonl: memory --json" partial "$work/mem.jsonl" memory --json
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["partial"] is not True)' "$work/out" ||
  bad "memory --json: partial is not true"
check "jsonl: counters --time-key" partial "$work/tele.jsonl" counters --time-key unix --fields power_w --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["partial"] is True and 0 < d["series"][0]["samples"] < 40000))' \
  "$work/out" || bad "counters --time-key --json: not partial, or not the rows before the error"
export STINT_TEST_EIO_AT=0
check "jsonl, error at the first read: memory" none "$work/mem.jsonl" memory
check "jsonl, error at the first read: counters --time-key" none "$work/tele.jsonl" counters --time-key unix --fields power_w

export STINT_TEST_EIO_AT=0
for cmd in "summary" "slices" "tree"; do
  check "error at the first read: $cmd" none "$work/t.json" $cmd
done
check "error at the first read, gzip: summary" none "$work/t.json.gz" summary
unset STINT_TEST_EIO_AT
exit $fail
