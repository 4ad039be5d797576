#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
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
if have tree; then
  echo; echo "== stint tree $out/markers.log --depth 2"
  "$stint" tree "$out/markers.log" --depth 2
fi
if have steps; then
  echo; echo "== stint steps $out/markers.log --step learner_step"
  "$stint" steps "$out/markers.log" --step learner_step
fi
if have memory; then
  echo; echo "== stint memory $out/session.jsonl"
  "$stint" memory "$out/session.jsonl"
fi
if have sizes; then
  echo; echo "== stint sizes $out/trace.json --top 3"
  "$stint" sizes "$out/trace.json" --top 3
fi
if have report; then
  echo; echo "== stint report $out/markers.log -o $out/report.html"
  "$stint" report "$out/markers.log" -o "$out/report.html"
fi
echo; echo "demo outputs in $out:"; ls -1 "$out" | sed 's/^/  /'
