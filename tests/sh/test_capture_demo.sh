#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The demo program (examples/demo.c) run with STINT_CAPTURE writes a binary
# capture beside its marker log: both sinks get the same spans of one run, so
# every command must say the same of both (the capture's lanes carry the
# threads' names, which a marker log has not: those are blanked before the
# comparison); `timing` reads a capture as the marker log it stands for,
# from a file, gzip or stdin. Then the capture cut in its middle still reads:
# the spans kept plus the torn entries counted, never more spans than the
# whole, and `timing --strict` fails on it.
set -u
STINT=${STINT_BIN:?}
DEMO=${STINT_BUILD_DIR:?}/examples/demo
[ -x "$DEMO" ] || { echo "SKIP: $DEMO is not built"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail=0
STINT_CAPTURE="$TMP/cap.stint" "$DEMO" "$TMP" >/dev/null 2>"$TMP/demo.err" || { echo "demo failed"; cat "$TMP/demo.err"; exit 1; }
[ -s "$TMP/cap.stint" ] || { echo "no capture written"; exit 1; }
[ "$("$STINT" summary --json "$TMP/cap.stint" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])')" = capture ] ||
  { echo "not read as a capture"; fail=1; }
blank_names() { # summary: a lane row's thread name (after pid and tid) turned into as many blanks
  if [ "$name" = summary ]; then perl -pe 's/^( +\d+ +\d+ )(\S+)/$1 . (" " x length($2))/e'; else cat; fi
}
same() { # same NAME CMD...: the command's stdout on the capture and on the marker log (summary:
  # less its first line, which names the file and format, and the lanes' names; timing's JSON: less
  # the bytes read)
  local name=$1; shift
  local f=cat
  [ "$name" = summary ] && f="tail -n +2"
  case $name in timing*) f="sed -E s/\"bytes\":[[:space:]][0-9]+/\"bytes\":_/";; esac # (the files' sizes differ)
  "$STINT" "$@" "$TMP/cap.stint" 2>/dev/null | $f | blank_names > "$TMP/c.$name"
  "$STINT" "$@" "$TMP/markers.log" 2>/dev/null | $f | blank_names > "$TMP/m.$name"
  [ -s "$TMP/m.$name" ] || { echo "$name: no output on the marker log"; fail=1; return; }
  if ! cmp -s "$TMP/c.$name" "$TMP/m.$name"; then
    echo "$name differs between the capture and the marker log:"; diff "$TMP/c.$name" "$TMP/m.$name" | head -10; fail=1
  fi
}
same slices slices
same tree tree
same steps steps --step learner_step
same summary summary
same timing timing
same timing-tree timing --tree
same timing-depth timing --tree=depth
same timing-rounds timing --rounds-table --json
same timing-warmup timing --json --warmup 1
gzip -c "$TMP/cap.stint" > "$TMP/cap.stint.gz"
for src in "$TMP/cap.stint.gz" -; do # gzip and stdin: the capture found by its magic all the same
  "$STINT" timing "$src" < "$TMP/cap.stint" 2>/dev/null > "$TMP/c.timing-src"
  cmp -s "$TMP/c.timing-src" "$TMP/m.timing" || { echo "timing of $src differs from the marker log's"; fail=1; }
done
# cut in the middle: whole records kept, the rest counted as torn
size=$(stat -c %s "$TMP/cap.stint")
head -c $((size / 2)) "$TMP/cap.stint" > "$TMP/cut.stint"
whole=$("$STINT" summary --json "$TMP/cap.stint" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["spans"])')
read -r kept torn < <("$STINT" summary --json "$TMP/cut.stint" 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["spans"], d["drops"].get("torn_record", 0))')
if [ -z "$kept" ] || [ "$kept" -ge "$whole" ] || [ "$torn" -lt 1 ]; then
  echo "cut capture: $kept of $whole spans kept, $torn torn (expected fewer kept and a torn count)"; fail=1
fi
# timing on the cut capture: the lost entries said as incomplete records, an error under --strict
"$STINT" timing "$TMP/cut.stint" > /dev/null 2> "$TMP/cut.err"; rc=$?
grep -q "records are incomplete" "$TMP/cut.err" && [ $rc = 0 ] ||
  { echo "timing on the cut capture: rc=$rc, stderr:"; cat "$TMP/cut.err"; fail=1; }
"$STINT" timing --strict "$TMP/cut.stint" > /dev/null 2> "$TMP/cut.err"; rc=$?
grep -q "byte [0-9]*: the capture ends inside its last block" "$TMP/cut.err" && [ $rc = 1 ] ||
  { echo "timing --strict on the cut capture: rc=$rc (expected 1), stderr:"; cat "$TMP/cut.err"; fail=1; }
[ $fail = 0 ] && echo "ok: capture and marker log agree ($whole spans); cut at half: $kept kept, $torn torn"
exit $fail
