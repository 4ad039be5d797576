#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Loads our Chrome/Perfetto JSON with a real importer: the npm package
# speedscope (its Trace Event importer, under node). Inputs: a multi-thread
# trace written by the Chrome sink now (test_chrome_sink_threads --write), and the
# demo's trace.json and ring.json (the demo is run into a temp folder when it
# is built; otherwise build/demo is used). Every input is also checked to
# parse and to be strictly nested per track (test_chrome_sink_threads --check).
# Skipped (exit 77, with a message) when node/npm are absent or npm cannot
# install the package (offline). speedscope is installed at test time under
# the build folder, never into the repository.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${STINT_BUILD_DIR:-$here/../../build}
version=1.25.0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "SKIP: node/npm not found; the speedscope import check needs them"
  exit 77
fi
prefix=$build/speedscope-node
release=$prefix/node_modules/speedscope/dist/release
if [ ! -d "$release" ] || ! grep -q "\"version\": \"$version\"" "$prefix/node_modules/speedscope/package.json" 2>/dev/null; then
  mkdir -p "$prefix"
  if ! (cd "$prefix" && timeout 300 npm install --no-audit --no-fund --silent --prefix "$prefix" "speedscope@$version" >npm.log 2>&1); then
    echo "SKIP: npm could not install speedscope@$version (offline?); see $prefix/npm.log"
    exit 77
  fi
fi
tmp=$(mktemp -d /tmp/stint_speedscope.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
checker=$build/tests/test_chrome_sink_threads
"$checker" --write "$tmp/threads.json" || { echo "FAIL: could not write the test trace"; exit 1; }
inputs=("$tmp/threads.json")
# the demo's own outputs: run it into the temp folder when it is built (so
# this check does not depend on `make demo` having run), else use build/demo
demo_dir=$build/demo
if [ -x "$build/examples/demo" ]; then
  mkdir -p "$tmp/demo"
  if STINT_MARKERS=off "$build/examples/demo" "$tmp/demo" 2 >"$tmp/demo.log" 2>&1; then
    demo_dir=$tmp/demo
  else
    echo "FAIL: the demo failed:"; cat "$tmp/demo.log"; exit 1
  fi
fi
for f in "$demo_dir/trace.json" "$demo_dir/ring.json"; do
  if [ -f "$f" ]; then
    inputs+=("$f")
  else
    echo "note: $f absent (the demo does not write it yet); not checked"
  fi
done
rc=0
for f in "${inputs[@]}"; do
  "$checker" --check "$f" || rc=1
done
node "$here/speedscope_import.js" "$release" "${inputs[@]}" || rc=1
# --bench (bench_summary.sh's peer row): one "N profiles, M warnings" line per
# file, warnings counted rather than failing; a trace whose ends do not match
# its begins must pass and show them
printf '%s\n' '{"traceEvents":[' \
  '{"ph":"B","name":"outer","pid":1,"tid":1,"ts":0},{"ph":"B","name":"inner","pid":1,"tid":1,"ts":1},' \
  '{"ph":"E","name":"outer","pid":1,"tid":1,"ts":2},{"ph":"E","name":"inner","pid":1,"tid":1,"ts":3}]}' >"$tmp/cross.json"
out=$(node "$here/speedscope_import.js" --bench "$release" "$tmp/threads.json" "$tmp/cross.json") || {
  echo "FAIL: --bench failed:"; echo "$out"; rc=1; }
if ! echo "$out" | grep -Eq '/threads\.json: 5 profiles, 0 warnings$' ||
   ! echo "$out" | grep -Eq '/cross\.json: 1 profiles, [1-9][0-9]* warnings$'; then
  echo "FAIL: --bench lines not as bench_summary.sh reads them:"; echo "$out"; rc=1
else
  echo "--bench: $(echo "$out" | sed 's/^.*: //' | paste -sd';')"
fi
exit $rc
