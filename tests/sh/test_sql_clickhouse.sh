#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stint sql on a real ClickHouse server: starts clickhouse-server on 127.0.0.1 with a config in a
# temporary folder (ports of its own), loads two traces (a generated Chrome trace and a generated
# marker log, or the golden cases' inputs without ../shared/tools) and checks that the same SQL gives
# the same numbers on SQLite and on ClickHouse; then the failures: a server that is not there and an
# insert the server refuses give exit 3 with its message and the rows that went in. The server is
# killed on every way out. Skips (77) when clickhouse-server is not installed or does not start.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
SERVER=$(command -v clickhouse-server || ls /usr/sbin/clickhouse-server 2>/dev/null || true)
[ -n "$SERVER" ] || { echo "SKIP: clickhouse-server is not installed (scripts/deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

T=$(mktemp -d)
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null; for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$PID" 2>/dev/null; fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Ports of its own, away from ClickHouse's defaults (and from another run of this test).
HTTP=$((20000 + ($$ * 7 + RANDOM) % 20000)); TCP=$((HTTP + 1))
cat >"$T/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile>
    <quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
EOF
cat >"$T/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$T/server.log</log><errorlog>$T/server.err.log</errorlog></logger>
  <http_port>$HTTP</http_port>
  <tcp_port>$TCP</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$T/data/</path>
  <tmp_path>$T/tmp/</tmp_path>
  <user_files_path>$T/user_files/</user_files_path>
  <format_schema_path>$T/format_schemas/</format_schema_path>
  <users_config>$T/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>536870912</mark_cache_size>
</yandex>
EOF
"$SERVER" --config-file="$T/config.xml" >"$T/server.out" 2>&1 &
PID=$!
up=0
for _ in $(seq 150); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$HTTP" && printf 'GET /ping HTTP/1.0\r\n\r\n' >&3 && grep -q Ok <&3) 2>/dev/null; then
    up=1; break
  fi
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if [ $up -ne 1 ]; then
  echo "SKIP: clickhouse-server did not start on 127.0.0.1:$HTTP:"; tail -5 "$T/server.out" "$T/server.err.log" 2>/dev/null
  exit 77
fi
URL="http://127.0.0.1:$HTTP/?database=stint_test"

# Two traces (one python for both generators: its start is slow on a loaded machine).
if [ -f "$SHARED/tools/gen_chrome.py" ] && [ -f "$SHARED/tools/gen_strace.py" ]; then
  python3 - "$SHARED/tools" "$T" >/dev/null 2>"$T/gen.err" <<'PY' || { echo "FAIL: the generators:"; cat "$T/gen.err"; exit 1; }
import runpy, sys
tools, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, tools)
for gen, size, name in (("gen_chrome.py", "300K", "a.json"), ("gen_strace.py", "100K", "b.log")):
    sys.argv = [gen, "--size", size, "--seed", "5", "-o", out + "/" + name]
    runpy.run_path(tools + "/" + gen, run_name="__main__")
PY
else
  cp "$SRC/tests/cli/sql_every_format/input.json" "$T/a.json"; cp "$SRC/tests/cli/sql_every_format/input.log" "$T/b.log"
fi

fail=0
"$STINT" sql --clickhouse "$URL" "$T/a.json" "$T/b.log" 2>"$T/load.err"; rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: loading into ClickHouse exited $rc:"; cat "$T/load.err"; exit 1; fi
echo "loaded: $(tail -1 "$T/load.err")"

# The same SQL on both engines (portable SQL: single-table aggregates, NULL groups included; the
# engines put NULL at opposite ends of an order, so rows are compared sorted).
QUERIES=(
  "SELECT name, count(*) AS n, sum(dur) AS total, sum(self) AS self_total, max(depth) AS deepest FROM slice GROUP BY name ORDER BY name"
  "SELECT pid, tid, count(*) AS n, sum(dur) AS total, min(ts) AS first FROM slice GROUP BY pid, tid ORDER BY pid, tid"
  "SELECT rank, count(*) AS n FROM process GROUP BY rank ORDER BY rank"
  "SELECT count(*) AS n, sum(int_value) AS ints, count(string_value) AS strings FROM args"
  "SELECT track_id, count(*) AS n, sum(value) AS total FROM counter GROUP BY track_id ORDER BY track_id"
  "SELECT pid, inv, hid, host_wall, device_wall FROM invocation ORDER BY pid, inv"
  "SELECT count(*) AS n, sum(slice_out) AS o, sum(slice_in) AS i FROM flow"
  "SELECT clock, count(*) AS n, sum(dur) AS total FROM span GROUP BY clock ORDER BY clock"
)
all=
for i in "${!QUERIES[@]}"; do
  all+="${QUERIES[$i]};"
  "$STINT" sql --clickhouse "$URL" "${QUERIES[$i]}" --csv >"$T/ch$i.csv" 2>"$T/ch$i.err" ||
    { echo "FAIL: ClickHouse refused ${QUERIES[$i]}:"; cat "$T/ch$i.err"; fail=1; }
done
"$STINT" sql "$T/a.json" "$T/b.log" "$all" --json >"$T/lite.json" 2>"$T/lite.err" ||
  { echo "FAIL: SQLite refused the queries:"; cat "$T/lite.err"; fail=1; }
python3 - "$T" "${QUERIES[@]}" <<'PY' || fail=1
import csv, json, sys
t, queries = sys.argv[1], sys.argv[2:]
text, dec, lite, pos = open(t + "/lite.json").read(), json.JSONDecoder(), [], 0
while text[pos:].strip():
    while text[pos].isspace():
        pos += 1
    v, pos = dec.raw_decode(text, pos)
    lite.append(v)
def num(c):
    if c is None or c == "\\N":
        return None
    try:
        return float(c)
    except (TypeError, ValueError):
        return c
def key(r):
    return [(x is None, str(x)) for x in r]
bad = 0
for i, q in enumerate(queries):
    a = sorted([[num(v) for v in r.values()] for r in lite[i]], key=key) if i < len(lite) else None
    b = sorted([[num(c) for c in r] for r in list(csv.reader(open("%s/ch%d.csv" % (t, i))))[1:]], key=key)
    same = lambda x, y: abs(x - y) <= 1e-9 * max(1.0, abs(x)) if isinstance(x, float) and isinstance(y, float) else x == y
    ok = a is not None and len(a) == len(b) and len(a) > 0 and all(
        len(r) == len(s) and all(map(same, r, s)) for r, s in zip(a, b))
    print("%s %5d rows  %s" % ("ok  " if ok else "FAIL", len(b), q))
    if not ok:
        bad = 1
        print("      SQLite:     %s\n      ClickHouse: %s" % ((a or [])[:3], b[:3]))
sys.exit(bad)
PY

# A second load appends: ids go on after the first load's.
"$STINT" convert "$T/b.log" --to clickhouse -o "$URL" 2>/dev/null || { echo "FAIL: convert --to clickhouse"; fail=1; }
"$STINT" sql --clickhouse "$URL" "SELECT count(*) - uniqExact(id) FROM slice" --csv >"$T/dup.csv"
if [ "$(tail -1 "$T/dup.csv")" = "0" ]; then echo "ok   a second load appends with fresh ids"
else echo "FAIL: slice ids repeat after a second load: $(cat "$T/dup.csv")"; fail=1; fi

# Failures: no server there; a bad query; an insert the server refuses (a flow table of another shape).
"$STINT" sql --clickhouse "http://127.0.0.1:$((HTTP + 2))/" "$T/a.json" 2>"$T/e1"; rc=$?
if [ $rc -eq 3 ] && grep -q "no answer\|cannot connect" "$T/e1"; then echo "ok   an unreachable server: exit 3, $(head -1 "$T/e1")"
else echo "FAIL: unreachable server gave exit $rc:"; cat "$T/e1"; fail=1; fi
"$STINT" sql --clickhouse "$URL" "SELEC 1" 2>"$T/e2"; rc=$?
if [ $rc -eq 2 ] && grep -q "Syntax error" "$T/e2"; then echo "ok   a bad query: exit 2 with the server's message"
else echo "FAIL: bad query gave exit $rc:"; cat "$T/e2"; fail=1; fi
BAD="http://127.0.0.1:$HTTP/?database=stint_bad"
"$STINT" sql --clickhouse "http://127.0.0.1:$HTTP/" "CREATE DATABASE stint_bad" >/dev/null
"$STINT" sql --clickhouse "$BAD" "CREATE TABLE flow (id Int64, oops Int64) ENGINE = Memory" >/dev/null
"$STINT" sql --clickhouse "$BAD" "$T/a.json" 2>"$T/e3"; rc=$?
inside=$("$STINT" sql --clickhouse "$BAD" "SELECT count(*) FROM slice" --csv | tail -1)
marked=$("$STINT" sql --clickhouse "$BAD" "SELECT kind, count FROM repair WHERE kind = 'load failed'" --csv | tail -1)
went=$(sed -n 's/.*failed: \([0-9]*\) row(s) went in.*/\1/p' "$T/e3")
if [ $rc -eq 3 ] && grep -q "No such column slice_out\|slice_out" "$T/e3" && [ -n "$went" ] && [ "$went" -gt 0 ] &&
   [ "$inside" -gt 0 ] && [ "$marked" = "\"load failed\",$went" ]; then
  echo "ok   a refused insert: exit 3, the server's message, $went rows went in, marked in repair"
else echo "FAIL: refused insert: exit $rc, slices inside $inside, marked '$marked':"; cat "$T/e3"; fail=1; fi
exit $fail
