#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Chrome and folded outputs of `stint convert` load in speedscope's own
# importer (npm package speedscope, pinned, installed at test time into the
# build folder; run under node with a do-nothing DOM, see
# speedscope_profiles.js). Skips when node/npm are absent or the package cannot
# be installed.
set -u
STINT=${STINT_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIP: node/npm are absent"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
NPMDIR=${STINT_BUILD_DIR:-/tmp}/speedscope-npm
if [ ! -d "$NPMDIR/node_modules/speedscope/dist/release" ]; then
  mkdir -p "$NPMDIR"
  if ! (cd "$NPMDIR" && timeout 300 npm install --no-audit --no-fund --silent speedscope@1.25.0 >/dev/null 2>&1); then
    echo "SKIP: could not install the npm package speedscope (offline?)"; exit 77
  fi
fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/in.json" <<'J'
{"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
{"ph":"X","name":"learner_step","pid":1,"tid":1,"ts":0,"dur":1400},
{"ph":"X","name":"input_wait","pid":1,"tid":1,"ts":10,"dur":1260},
{"ph":"X","name":"model_and_wait","pid":1,"tid":1,"ts":1275,"dur":108},
{"ph":"X","name":"learner_step","pid":1,"tid":1,"ts":2000,"dur":1410},
{"ph":"X","name":"model;and;wait","pid":1,"tid":1,"ts":3260,"dur":137},
{"ph":"X","name":"outer","pid":1,"tid":2,"ts":0,"dur":100},
{"ph":"X","name":"spill","pid":1,"tid":2,"ts":50,"dur":100}
]}
J
"$STINT" convert "$TMP/in.json" -o "$TMP/trace_chrome.json" --to chrome 2>/dev/null || { echo "FAIL: convert chrome"; exit 1; }
"$STINT" convert "$TMP/in.json" -o "$TMP/stacks_folded.txt" --to folded 2>/dev/null || { echo "FAIL: convert folded"; exit 1; }
node "$HERE/speedscope_profiles.js" "$NPMDIR" "$TMP/trace_chrome.json" "$TMP/stacks_folded.txt" > "$TMP/res" 2>"$TMP/err"
rc=$?
cat "$TMP/res"
[ $rc -eq 0 ] || { echo "FAIL: speedscope importer exit $rc"; cat "$TMP/err"; exit 1; }
python3 - "$TMP/res" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
chrome, folded = rows
want = {"learner_step", "input_wait", "model_and_wait", "model;and;wait", "outer", "spill"}
assert chrome["profiles"] >= 2, chrome          # two threads (plus the overlap track)
assert set(chrome["names"]) == want, chrome["names"]
# folded: ';' in a name became ':'; weights are self ns; they sum to the time covered on each
# thread: the roots' wall time plus the 50 us that "spill" runs past "outer"
assert set(folded["names"]) == (want - {"model;and;wait"}) | {"model:and:wait"}, folded["names"]
assert folded["total"] == (1400 + 1410 + 150) * 1000, folded["total"]
print("ok: speedscope imported the Chrome and folded outputs")
PY
