#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The report of a trace with device work opens in headless Chromium under
# its Content-Security-Policy with no console error: the page script runs
# to the end (#stint-ready, #stint-error empty) and the GPU section's SVG
# plots are in the DOM as SVG (a polygon per device). Skips when chromium
# or python3 is absent.
set -u
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is absent (apt-get install chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 "$SRC/bench/gen_kineto.py" "$TMP/g" --devices 2 --steps 4 --seed 5 || exit 1
"$STINT" report "$TMP/g.rank0.json" -o "$TMP/report.html" 2>/dev/null || { echo "FAIL: stint report exit $?"; exit 1; }
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$TMP/prof" --window-size=1200,1000 --enable-logging=stderr --v=0 \
  --dump-dom "file://$TMP/report.html" > "$TMP/dom.html" 2> "$TMP/log"
if grep -Eq 'Uncaught|CONSOLE[:(].*[Ee]rror|Content.Security.Policy' "$TMP/log"; then
  echo "FAIL: console errors:"; grep -Eh 'Uncaught|CONSOLE|Security' "$TMP/log" | head; exit 1
fi
python3 - "$TMP/dom.html" <<'PY' || exit 1
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
assert re.search(r'<div id="stint-ready"', dom), "the page script did not finish (#stint-ready missing)"
err = re.search(r'<div id="stint-error">(.*?)</div>', dom, re.S)
assert err and err.group(1).strip() == "", ("script error", err and err.group(1))
gpu = dom[dom.index('<h2 id="gpu">'):]
plots = re.findall(r'<svg class="gpuplot"[^>]*>.*?<polygon[^>]*points="([^"]+)"', gpu, re.S)
assert len(plots) == 2, len(plots)
for p in plots:
    ys = [float(xy.split(",")[1]) for xy in p.split()]
    assert min(ys) < 60, "a utilization plot is flat at zero"
print("ok: GPU section rendered, %d plots" % len(plots))
PY
