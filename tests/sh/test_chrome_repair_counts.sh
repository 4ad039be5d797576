#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_chrome_repair_counts.sh - the Chrome reader's tokenizer-level repairs
# (trailing commas inside events, raw control bytes, lone surrogates) are
# counted exactly once per occurrence, also for the events that straddle the
# reader's 4 MiB window and are parsed a second time after the refill. A
# ~20 MB trace of 60,000 events, each holding one of each, is read from a
# plain file, from stdin and gzip-compressed; every count must be 60000.
set -uo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
stint=$(realpath "${STINT_BIN:-$src/build/stint}")
tmp=$(mktemp -d /tmp/stint_rc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=60000
# events of ~330 bytes, the repaired bytes first and a long string after them,
# so a window end inside an event usually falls after them
pad=$(printf 'x%.0s' $(seq 1 240))
awk -v n=$n -v pad="$pad" 'BEGIN {
  printf "[\n";
  for (i = 0; i < n; i++)
    printf "{\"name\":\"e\\ud800\",\"args\":{\"s\":\"a\tb\",},\"pad\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}%s\n", pad, i * 2, (i + 1 < n ? "," : "");
  printf "]\n";
}' > "$tmp/t.json"
[ "$(stat -c %s "$tmp/t.json")" -gt $((12 << 20)) ] || fail "generated trace is smaller than three windows"
check() {
  local what=$1 out=$2
  for k in trailing_comma control_char_in_string lone_surrogate; do
    got=$(tr -d '\n' < "$out" | grep -o "\"$k\":[0-9]*" | cut -d: -f2)
    [ "$got" = "$n" ] || fail "$what: $k counted ${got:-0} times, expected $n"
  done
  grep -q '"spans":'"$n"',' "$out" || fail "$what: not all $n spans were read"
}
"$stint" summary --json "$tmp/t.json" > "$tmp/o1" 2>/dev/null; check "file" "$tmp/o1"
STINT_THREADS=1 "$stint" summary --json "$tmp/t.json" > "$tmp/o2" 2>/dev/null; check "file, one thread" "$tmp/o2"
"$stint" summary --json - < "$tmp/t.json" > "$tmp/o3" 2>/dev/null; check "stdin" "$tmp/o3"
if command -v gzip >/dev/null; then
  gzip -1 -c "$tmp/t.json" > "$tmp/t.json.gz"
  "$stint" summary --json "$tmp/t.json.gz" > "$tmp/o4" 2>/dev/null; check "gzip" "$tmp/o4"
fi
[ $fails -eq 0 ] && echo "ok: repair counts exact across window refills"
exit $((fails > 0))
