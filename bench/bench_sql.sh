#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint sql --db` load rate on a generated Chrome trace (../shared/tools/gen_chrome.py) against
# the floor of SQLite inserts, measured in the same run: the sqlite3 shell's own `.import` of the
# very same rows as CSV into the very same tables (the schema stint made, without its views; the
# same pragmas: no journal, no syncs), one transaction per table as .import makes it. stint's time
# includes reading and modelling the JSON; the floor's starts from CSV already written. Rows per
# second count every row of every table (by wall time); MB/s is of the trace (stint) and of the CSV
# (.import). CPU time (user + sys) is printed beside the wall time: on a shared machine it is the
# steadier of the two.
# Medians of REPS runs.
#   bench/bench_sql.sh [BUILD_DIR]
#   BENCH_QUICK=1      20 MB instead of 100 MB
#   STINT_BENCH_1G=1   also 1 GB (once; the database is ~1.5x the trace on disk)
#   REPS=N             runs per measurement (default 3; 1 for the 1 GB trace)
# Generated files live under ${TMPDIR:-/tmp} and are deleted at the end.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
[ -x "$STINT" ] || { echo "bench_sql: $STINT not built"; exit 1; }
[ -f "$GEN" ] || { echo "bench_sql: SKIP: $GEN is absent"; exit 0; }
command -v sqlite3 >/dev/null || { echo "bench_sql: SKIP: sqlite3 (the floor) is not installed"; exit 0; }
"$STINT" sql --help >/dev/null 2>&1 || { echo "bench_sql: SKIP: stint sql is not in this build"; exit 0; }
size=100M; [ "${BENCH_QUICK:-0}" = 1 ] && size=20M
sizes=$size; [ "${STINT_BENCH_1G:-0}" = 1 ] && sizes="$size 1G"
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-bench-sql.XXXXXX"); trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/timing_lib.sh" # median
# timed FILE.t CMD...: appends "wall_s cpu_s maxrss_kb" of one run to FILE.t
timed() {
  local out=$1 t0 t1; shift
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S %M" -o "$out.one" "$@" >/dev/null 2>"$out.err"
  t1=$(date +%s%N)
  tail -1 "$out.one" | awk -v ns=$((t1 - t0)) '{print ns / 1e9, $1 + $2, $3}' >> "$out.t"
}

printf "%-5s %-26s %9s %8s %8s %8s %8s %7s %7s %9s\n" size what rows wall_s cpu_s rows/s MB/s wall/fl cpu/fl maxrss_MB
for sz in $sizes; do
  reps=${REPS:-3}; [ "$sz" = 1G ] && reps=1
  trace=$work/trace-$sz.json
  python3 "$GEN" --size "$sz" --seed 1 -o "$trace" >/dev/null 2>&1
  mb=$(stat -c %s "$trace" | awk '{print $1 / 1e6}')
  rm -f "$work/stint.t" "$work/floor.t"
  for _ in $(seq "$reps"); do
    rm -f "$work/db.sqlite"
    timed "$work/stint" "$STINT" sql "$trace" --db "$work/db.sqlite"
  done
  rows=$(sed -n 's/^stint sql: wrote \([0-9]*\) rows.*/\1/p' "$work/stint.err")
  # The same rows as CSV, table by table, and an empty database of the same tables.
  tables=$(sqlite3 "$work/db.sqlite" "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
  # (without the generated columns, stored nowhere, which the shell's .import of 3.40 miscounts)
  sqlite3 "$work/db.sqlite" "SELECT sql || ';' FROM sqlite_schema WHERE type = 'table'" | python3 -c '
import re, sys
for line in sys.stdin:
    while True:
        m = re.search(r",? *\w+ \w+ GENERATED ALWAYS AS \(", line)
        if not m:
            break
        i, depth = m.end(), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0)
            i += 1
        line = line[:m.start()] + line[i:].replace(" VIRTUAL", "", 1)
    sys.stdout.write(line.replace("(, ", "("))' > "$work/schema.sql"
  : > "$work/import.sql"
  echo "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536;" >> "$work/import.sql"
  csvmb=0
  for t in $tables; do
    cols=$(sqlite3 "$work/db.sqlite" "SELECT group_concat(name, ', ') FROM pragma_table_xinfo('$t') WHERE hidden = 0")
    sqlite3 -csv -noheader "$work/db.sqlite" "SELECT $cols FROM $t" > "$work/$t.csv"
    echo ".import --csv $work/$t.csv $t" >> "$work/import.sql"
  done
  csvmb=$(cat "$work"/*.csv | wc -c | awk '{print $1 / 1e6}')
  for _ in $(seq "$reps"); do
    rm -f "$work/floor.sqlite"
    sqlite3 "$work/floor.sqlite" < "$work/schema.sql"
    timed "$work/floor" sqlite3 "$work/floor.sqlite" -init "$work/import.sql" ".quit"
  done
  got=$(for t in $tables; do sqlite3 "$work/floor.sqlite" "SELECT count(*) FROM $t"; done | awk '{n += $1} END {print n}')
  [ "$got" = "$rows" ] || echo "bench_sql: the floor imported $got rows, stint wrote $rows"
  fw=$(awk '{print $1}' "$work/floor.t" | median); fc=$(awk '{print $2}' "$work/floor.t" | median)
  for what in stint floor; do
    w=$(awk '{print $1}' "$work/$what.t" | median); c=$(awk '{print $2}' "$work/$what.t" | median)
    rss=$(awk '{print $3}' "$work/$what.t" | sort -n | tail -1)
    label="stint sql --db (from JSON)"; m=$mb
    [ $what = floor ] && label="sqlite3 .import (CSV)" && m=$csvmb
    awk -v sz="$sz" -v l="$label" -v r="$rows" -v w="$w" -v c="$c" -v m="$m" -v fw="$fw" -v fc="$fc" -v rss="$rss" 'BEGIN {
      printf "%-5s %-26s %9d %8.2f %8.2f %8.0f %8.1f %6.2fx %6.2fx %9.0f\n", sz, l, r, w, c, r / w, m / w, w / fw,
        (fc > 0 ? c / fc : 0), rss / 1024 }'
  done
  rm -f "$work"/*.csv "$work"/*.sqlite "$trace"
done
echo "(wall/fl, cpu/fl: stint's wall and CPU (user + sys) time over the .import floor's; trace $size = gen_chrome.py --seed 1; $(date -u +%F), $(nproc) CPUs)"
