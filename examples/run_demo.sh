#!/usr/bin/env bash
# `make demo`: runs the instrumented demo and reads its outputs back with the
# stint CLI (commands that are not built yet are skipped with a note).
set -euo pipefail
build=${1:-build}
out=$build/demo
mkdir -p "$out"
"$build/examples/demo" "$out"
stint=$build/stint
have() { "$stint" --help 2>/dev/null | grep -q "^  $1 "; }
if have timing; then
  echo; echo "== stint timing $out/markers.log"
  "$stint" timing "$out/markers.log" --trace-out "$out/timing.trace.json"
fi
if have summary; then
  echo; echo "== stint summary $out/markers.log"
  "$stint" summary "$out/markers.log"
fi
echo; echo "demo outputs in $out:"; ls -1 "$out" | sed 's/^/  /'
