#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Readers end to end through `stint summary --json` / `stint slices`: gzip by
# content, stdin, the seed fixtures (004: gz + 70,000-char arg, sum 20 us,
# union 15 us for "kernel"; 003: [0,10],[2,7],[8,12] -> 12 not 19), and
# malformed inputs (truncated gz, garbage, a 100 MB string, args nested
# 10,000 deep, invalid UTF-8): each gives a clear message and its exit code,
# never a crash, with bounded memory.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
# jget FILE EXPR: evaluates a python expression over the JSON document d
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# expect_rc WANT CMD...: runs CMD with stdout in $T/out and stderr in $T/err
expect_rc() {
  local want=$1; shift
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$want" ]; then bad "exit $rc, expected $want: $*"; head -5 "$T/err"; return 1; fi
  if [ "$rc" -ge 128 ]; then bad "crashed: $*"; return 1; fi
  return 0
}

# --- seed 004: gzipped trace, 70,000-character arg, kernel sum 20 us, union 15 us
python3 - "$T/seed004.json" <<'PY'
import json, sys
big = "x" * 70000
ev = [
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 1, "tid": 7, "ts": 0, "dur": 10, "args": {"blob": big}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 1, "tid": 8, "ts": 5, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 3},
]
json.dump({"traceEvents": ev, "displayTimeUnit": "ms"}, open(sys.argv[1], "w"))
PY
gzip -c "$T/seed004.json" > "$T/seed004.trace"   # no .gz in the name: detected by content
if expect_rc 0 "$STINT" summary --json "$T/seed004.trace"; then
  got=$(jget "$T/out" '[(c["sum_ns"], c["busy_ns"]) for c in d["categories"] if c["cat"]=="kernel"]')
  [ "$got" = "[(20000, 15000)]" ] && ok "seed 004 kernel sum 20 us, union 15 us (gzip by content)" || bad "seed 004: $got"
fi
# the same through stdin
if expect_rc 0 bash -c "cat '$T/seed004.trace' | '$STINT' summary --json -"; then
  got=$(jget "$T/out" '[(c["sum_ns"], c["busy_ns"]) for c in d["categories"] if c["cat"]=="kernel"]')
  [ "$got" = "[(20000, 15000)]" ] && ok "stdin (-) with gzip" || bad "stdin: $got"
fi

# --- seed 003: [0,10],[2,7],[8,12] us on one lane -> busy 12, sum 19
cat > "$T/seed003.json" <<'J'
[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":5},
 {"ph":"X","name":"c","pid":1,"tid":1,"ts":8,"dur":4}]
J
if expect_rc 0 "$STINT" summary --json "$T/seed003.json"; then
  got=$(jget "$T/out" '(d["lanes"][0]["busy_ns"], d["lanes"][0]["sum_ns"], d["repairs"])')
  [ "$got" = "(12000, 19000, {'overlapping_complete': 1})" ] && ok "seed 003 union 12 not 19, overlap flagged" || bad "seed 003: $got"
fi
expect_rc 1 "$STINT" summary --strict "$T/seed003.json" && grep -q "strict" "$T/err" && ok "--strict turns the repair into exit 1" || bad "--strict"

# --- names: total is the union per lane (recursion once), self subtracts children
cat > "$T/rec.json" <<'J'
[{"ph":"X","name":"f","cat":"c","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","name":"f","cat":"c","pid":1,"tid":1,"ts":1,"dur":5},
 {"ph":"X","name":"g","cat":"c","pid":1,"tid":1,"ts":2,"dur":2},
 {"ph":"X","name":"f","cat":"c","pid":1,"tid":2,"ts":0,"dur":4}]
J
if expect_rc 0 "$STINT" summary --json "$T/rec.json"; then
  got=$(jget "$T/out" '[(n["name"], n["spans"], n["sum_ns"], n["total_ns"], n["self_ns"], n["min_ns"], n["p50_ns"], n["p90_ns"], n["max_ns"]) for n in d["names"]]')
  want="[('f', 3, 19000, 14000, 12000, 4000, 5000, 10000, 10000), ('g', 1, 2000, 2000, 2000, 2000, 2000, 2000, 2000)]"
  [ "$got" = "$want" ] && ok "name total/self/quantiles" || bad "names: $got"
fi

# --- filters
if expect_rc 0 "$STINT" summary --json --tid 2 "$T/rec.json"; then
  got=$(jget "$T/out" 'd["spans"]'); [ "$got" = 1 ] && ok "--tid" || bad "--tid: $got"
fi
if expect_rc 0 "$STINT" slices --csv --name 'f' --min-dur 5us --time-range 0:1.5us "$T/rec.json"; then
  got=$(tail -n +2 "$T/out" | cut -d, -f2,3 | tr '\n' ' '); [ "$got" = "0,10000 1000,5000 " ] && ok "--name --min-dur --time-range" || bad "filters: $got"
fi
expect_rc 2 "$STINT" summary --time-range 5 "$T/rec.json" && grep -q "time-range" "$T/err" && ok "bad --time-range is a usage error" || bad "usage error"

# --- malformed inputs
head -c 300 "$T/seed004.trace" > "$T/trunc.gz"
expect_rc 1 "$STINT" summary "$T/trunc.gz" && grep -q "truncated" "$T/err" && ok "truncated gzip: exit 1, says truncated" || bad "truncated gz: $(head -2 $T/err)"
printf 'this is not a trace\n' > "$T/garbage"
expect_rc 1 "$STINT" summary "$T/garbage" && grep -q "unknown format" "$T/err" && ok "garbage: exit 1, unknown format" || bad "garbage"
head -c 2000 /dev/urandom > "$T/random" 2>/dev/null; printf '[{"ph":"X",' | cat - "$T/random" > "$T/random.json"
expect_rc 1 "$STINT" summary "$T/random.json" && grep -q "byte" "$T/err" && ok "random bytes inside JSON: exit 1 with a byte offset" || bad "random"
expect_rc 3 "$STINT" summary "$T/does-not-exist" && grep -q "cannot open" "$T/err" && ok "missing file: exit 3" || bad "missing file"
printf '[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","name":"bad\xff","pid":1,"tid":1,"ts":2,"dur":1}]' > "$T/utf8.json"
if expect_rc 1 "$STINT" summary --json "$T/utf8.json"; then
  grep -q "UTF-8" "$T/err" && [ "$(jget "$T/out" '(d["partial"], d["spans"])')" = "(True, 1)" ] && ok "invalid UTF-8: exit 1, partial report keeps what was read" || bad "utf8: $(cat $T/err)"
fi
python3 - "$T/deep.json" <<'PY'
import sys
deep = '{"a":' * 10000 + '1' + '}' * 10000
open(sys.argv[1], "w").write('[{"ph":"X","name":"deep","pid":1,"tid":1,"ts":0,"dur":5,"args":%s}]' % deep)
PY
if expect_rc 0 "$STINT" slices --json "$T/deep.json"; then
  grep -q '"name":"deep"' "$T/out" && grep -q '"key":"args.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a","type":"json"' "$T/out" && ok "args nested 10,000 deep: kept (JSON text past depth 64)" || bad "deep args"
fi
python3 - "$T/huge.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":"huge","pid":1,"tid":1,"ts":1,"dur":1,"args":{"s":"')
    chunk = "y" * (1 << 20)
    for _ in range(100):
        f.write(chunk)
    f.write('"}}]')
PY
if expect_rc 1 /usr/bin/time -f "%M" -o "$T/rss" "$STINT" summary --json "$T/huge.json"; then
  rss=$(tail -1 "$T/rss")
  # sanitizers keep shadow memory: the bound is checked in plain builds only
  if grep -qs '^STINT_SANITIZE:STRING=..*' "${STINT_BUILD_DIR:-/nonexistent}/CMakeCache.txt"; then rss=0; fi
  grep -q "longer than" "$T/err" && [ "$rss" -lt 200000 ] && ok "100 MB string: exit 1, clear message, peak RSS ${rss} KB" || bad "huge: rss=$rss $(cat $T/err)"
fi
rm -f "$T/huge.json"

# --- leniencies of the Chrome container, each counted
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},\n{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1},\n{}' > "$T/open.json"
if expect_rc 0 "$STINT" summary --json "$T/open.json"; then
  [ "$(jget "$T/out" '(d["spans"], d["repairs"])')" = "(2, {'missing_close': 1})" ] && ok "missing final ] and trailing {}" || bad "open array: $(cat $T/out | tail -3)"
fi

# --- marker logs: glued records split, torn record counted, device clock kept apart
printf '[I] x: [STRACE] v=1 pid=7 tid=8 inv=1 hid=a depth=0 name=step ts=1000 dur=500 [2026][T1] y: [STRACE] v=1 pid=7 tid=8 inv=1 hid=b depth=1 name=inner ts=1100 dur=100\r\n[STRACE] v=1 pid=7 tid=9 inv=2 hid=c depth=0 name=dev ts=0 dur=300 clk=dev\n[STRACE] v=1 pid=7 tid=8 inv=1 hid=d depth=0 name=cut ts=5\n' > "$T/m.log"
if expect_rc 0 "$STINT" summary --json "$T/m.log"; then
  got=$(jget "$T/out" '(d["format"], d["spans"], sorted((l["tid"], l["clock"], l["busy_ns"]) for l in d["lanes"]), d["drops"])')
  [ "$got" = "('markers', 3, [(2, 'device', 300), (8, 'host', 500)], {'torn_record': 1})" ] && ok "markers: glued, torn, device lane" || bad "markers: $got"
  grep -q "1 of 4 records incomplete" "$T/err" && ok "markers: 'K of N records incomplete' on stderr" || bad "markers stderr: $(cat $T/err)"
fi

# --- JSONL sessions: errors name the line
printf '{"kind":"meta","schema":"stint/session/1","pid":5}\n{"kind":"span_start","id":"s1","name":"root","start_ns":0,"tid":5}\n{"kind":"span_start","id":"s2","parent_id":"s1","name":"w","start_ns":10,"tid":6}\n{"kind":"span_end","id":"s2","duration_ns":20}\n{"kind":"span_end","id":"s1","duration_ns":100}\n' > "$T/s.jsonl"
if expect_rc 0 "$STINT" slices --json "$T/s.jsonl"; then
 [ "$(jget "$T/out" '[(s["name"], s["tid"], s["depth"], s["parent"]) for s in d["slices"]]')" = "[('root', 5, 0, None), ('w', 6, 1, 0)]" ] && ok "jsonl: tree from parent ids across threads" || bad "jsonl tree: $(cat $T/out | head -5)"
fi
jsonl_err() { # name, file content, expected message part
  printf "$2" > "$T/e.jsonl"
  expect_rc 1 "$STINT" summary "$T/e.jsonl" && grep -q "$3" "$T/err" && ok "jsonl: $1" || bad "jsonl $1: $(cat $T/err)"
}
jsonl_err "meta not first" '{"kind":"span_start","id":"s1","name":"x","start_ns":0}\n' "line 1: no meta record before this one"
jsonl_err "duplicate meta" '{"kind":"meta","schema":"stint/session/1"}\n{"kind":"meta","schema":"stint/session/1"}\n' "line 2: a second meta"
jsonl_err "unknown schema" '{"kind":"meta","schema":"other/9"}\n' "unknown schema"
jsonl_err "duplicate span id" '{"kind":"meta","schema":"stint/session/1"}\n{"kind":"span_start","id":"s1","name":"x","start_ns":0}\n{"kind":"span_start","id":"s1","name":"y","start_ns":1}\n' "line 3: duplicate span id"
jsonl_err "end of unknown span" '{"kind":"meta","schema":"stint/session/1"}\n{"kind":"span_end","id":"s9","duration_ns":1}\n' "line 2: span_end for unknown span"
jsonl_err "duplicate end" '{"kind":"meta","schema":"stint/session/1"}\n{"kind":"span_start","id":"s1","name":"x","start_ns":0}\n{"kind":"span_end","id":"s1","duration_ns":1}\n{"kind":"span_end","id":"s1","duration_ns":1}\n' "line 4: a second span_end"
exit $fail
