#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_bad_inputs.sh - runs the bad-input corpus (tests/data/bad/cases.txt)
# through the stint CLI: each case's exit code, a stderr line matching its
# expected message (file, offset, what was expected), no crash (no exit code
# above 3, no sanitizer report), and peak RSS within the documented bound
# (docs/reliability.md): 160 MiB for summary (a 64 MiB event window, grown by
# doubling, plus the model), 288 MiB for timing (its longest-line bound of
# 256 MiB plus its 1 MiB chunk). The RSS bound is skipped in sanitizer builds
# (shadow memory) and when neither /usr/bin/time nor python3 is present.
# Big inputs (a 100 MB string, a 1 MB marker line, args nested 10,000 deep)
# are generated into a temporary folder and deleted afterwards.
# Also: a CRLF marker log gives the same report as its LF twin.
set -uo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
stint=$(realpath "${STINT_BIN:-$src/build/stint}")
bad=$src/tests/data/bad
tmp=$(mktemp -d /tmp/stint_bad.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

sanitized=0
if [ -n "${STINT_BUILD_DIR:-}" ] && grep -q '^STINT_SANITIZE:STRING=.' "$STINT_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
  sanitized=1
fi

# peak_rss_kb FILE_OUT CMD... : runs CMD, writes its peak RSS in KiB to FILE_OUT ("" if unknown)
run_measured() {
  local out=$1
  shift
  if [ $sanitized = 0 ] && [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$out" "$@"
  elif [ $sanitized = 0 ] && command -v python3 >/dev/null; then
    python3 - "$out" "$@" <<'EOF'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)
EOF
  else
    : > "$out"
    "$@"
  fi
}

generate() {
  local name=$1 path=$tmp/$1
  case $name in
    string_100mb.json)
      { printf '[{"ph":"X","name":"'; head -c 100000000 /dev/zero | tr '\0' 'a'
        printf '","ts":1,"dur":2,"pid":1,"tid":1}]\n'; } > "$path" ;;
    args_deep_10000.json)
      { printf '[{"ph":"X","name":"deep","ts":1,"dur":2,"pid":1,"tid":1,"args":{"x":'
        head -c 10000 /dev/zero | tr '\0' '['; head -c 10000 /dev/zero | tr '\0' ']'
        printf '}}]\n'; } > "$path" ;;
    line_1mb.log)
      { echo '[STRACE] v=1 pid=1 tid=2 inv=0 hid=0 depth=0 name=a ts=100 dur=5'
        printf '[STRACE] v=1 pid=1 tid=2 inv=0 hid=0 depth=0 name=big ts=150 dur=5 pad='
        head -c 1048576 /dev/zero | tr '\0' 'x'; echo
        printf 'noise '; head -c 1048576 /dev/zero | tr '\0' 'y'; echo
        echo '[STRACE] v=1 pid=1 tid=2 inv=0 hid=0 depth=0 name=b ts=200 dur=5'; } > "$path" ;;
    a_directory) mkdir -p "$path" ;;
    no_such_file.json) ;;
    *) echo "unknown generated input $name" >&2; return 1 ;;
  esac
  echo "$path"
}

n=0
while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; esac
  IFS='|' read -r name input args rc ere <<<"$line"
  name=$(echo "$name" | sed 's/^ *//; s/ *$//')
  input=$(echo "$input" | sed 's/^ *//; s/ *$//')
  args=$(echo "$args" | sed 's/^ *//; s/ *$//')
  rc=$(echo "$rc" | tr -d ' ')
  ere=$(echo "$ere" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  if [[ $input == gen:* ]]; then
    path=$tmp/${input#gen:}
    [ -e "$path" ] || [ "${input#gen:}" = no_such_file.json ] || generate "${input#gen:}" >/dev/null || { fail "$name: cannot generate"; continue; }
  else
    path=$bad/$input
  fi
  cmd=()
  for a in $args; do
    if [ "$a" = FILE ]; then cmd+=("$path"); else cmd+=("$a"); fi
  done
  run_measured "$tmp/rss" timeout 120 "$stint" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" # (a hang fails: exit 124)
  got=$?
  want_ere=${ere//FILE/$path}
  if [ "$got" != "$rc" ]; then
    fail "$name: exit $got, expected $rc"; sed 's/^/    /' "$tmp/err" | head -5
  fi
  if [ "$got" -gt 3 ]; then
    fail "$name: crashed (exit $got)"
  fi
  if grep -qE 'Sanitizer|runtime error|Segmentation' "$tmp/err"; then
    fail "$name: sanitizer report"; head -20 "$tmp/err"
  fi
  if [ "$want_ere" = '^$' ]; then
    if grep -q 'error' "$tmp/err"; then fail "$name: unexpected error on stderr"; sed 's/^/    /' "$tmp/err" | head -5; fi
  elif ! grep -qE -- "$want_ere" "$tmp/err"; then
    fail "$name: stderr does not match /$want_ere/"; sed 's/^/    /' "$tmp/err" | head -5
  fi
  if [ "$rc" = 1 ] && [[ $args == summary* ]] && ! grep -q 'PARTIAL' "$tmp/err" && ! grep -q -- '--strict' "$tmp/err"; then
    fail "$name: exit 1 without the report marked PARTIAL"
  fi
  # exit 3 prints no report: stdout empty, and stderr says so rather than PARTIAL
  if [ "$rc" = 3 ] && [[ $args == summary* ]] &&
     { [ -s "$tmp/out" ] || grep -q 'PARTIAL' "$tmp/err" || ! grep -q ': no report (the input could not be read' "$tmp/err"; }; then
    fail "$name: exit 3 without 'no report' on stderr (or with a report or PARTIAL)"; sed 's/^/    /' "$tmp/err" | head -5
  fi
  rss=$(cat "$tmp/rss" 2>/dev/null | tail -1)
  if [ -n "$rss" ]; then
    case $args in timing*) bound=$((288 * 1024)) ;; *) bound=$((160 * 1024)) ;; esac
    if [ "$rss" -gt "$bound" ]; then
      fail "$name: peak RSS ${rss} KiB over the bound ${bound} KiB"
    fi
    printf 'ok   %-45s exit %s, peak RSS %6d KiB\n' "$name" "$got" "$rss"
  else
    printf 'ok   %-45s exit %s\n' "$name" "$got"
  fi
done < "$bad/cases.txt"

# CRLF gives the same report as LF (same file name, so the reports compare as text)
mkdir -p "$tmp/crlf" "$tmp/lf"
cp "$bad/crlf.log" "$tmp/crlf/x.log"
cp "$bad/lf.log" "$tmp/lf/x.log"
for c in summary timing; do
  (cd "$tmp/crlf" && "$stint" $c x.log >"$tmp/crlf.$c" 2>&1)
  (cd "$tmp/lf" && "$stint" $c x.log >"$tmp/lf.$c" 2>&1)
  if ! cmp -s "$tmp/crlf.$c" "$tmp/lf.$c"; then
    fail "CRLF and LF logs give different $c reports"
    diff "$tmp/crlf.$c" "$tmp/lf.$c" | head -10
  fi
done
grep -q 'name' "$tmp/lf.summary" || fail "LF summary report is empty"

# a gzip stream cut short keeps what was inflated before the cut (a partial
# report, not an empty one): 2000 events, the compressed stream cut at 3/4
{ printf '['; for i in $(seq 0 1999); do
    [ "$i" = 0 ] || printf ','
    printf '{"ph":"X","name":"e%d","ts":%d,"dur":1,"pid":1,"tid":1}' "$i" $((i * 2))
  done; printf ']'; } | gzip -c > "$tmp/full.json.gz"
size=$(stat -c %s "$tmp/full.json.gz")
head -c $((size * 3 / 4)) "$tmp/full.json.gz" > "$tmp/cut.json.gz"
"$stint" summary "$tmp/cut.json.gz" >"$tmp/out" 2>"$tmp/err"
got=$?
events=$(sed -n 's/^PARTIAL .*, \([0-9]*\) events.*/\1/p' "$tmp/out")
if [ "$got" != 1 ] || [ -z "$events" ] || [ "$events" -lt 1000 ] || [ "$events" -ge 2000 ]; then
  fail "cut gzip: exit $got, ${events:-no} events in the partial report (expected 1000-1999)"
else
  printf 'ok   %-45s exit 1, %s of 2000 events kept\n' "gzip cut at 3/4" "$events"
fi

echo "$n cases, $fails failed"
[ $fails = 0 ]
