#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint report` writes one self-contained HTML file that opens in headless
# Chromium with no console errors and draws a non-blank timeline:
#   1. no network or external assets in the file (no http(s):// URLs, no src= or href= to files);
#   2. --dump-dom: the page script ran to the end (#stint-ready, slices drawn > 0) and
#      reported no error (#stint-error empty); Chromium's log has no "Uncaught" error;
#   3. --screenshot: in the timeline's rectangle (as the page reports it), a real
#      share of the pixels is coloured (slices), checked by decoding the PNG.
# For a small trace, and for two tall ones: 160 threads of 25 levels and 2000
# threads (their canvas was as high as all lanes, over Chromium's ~65k px, and
# stayed blank while the page said it drew them).
# Skips when chromium or python3 is absent.
set -u
STINT=${STINT_BIN:?}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium is absent (apt-get install chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/trace.json" <<'PY'
import json, random, sys
r = random.Random(7)
ev = [{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"learner <main> & \"co\""}}]
t = 0
for k in range(30):
    w = r.randint(800, 1200); m = r.randint(100, 300)
    ev.append({"ph":"X","name":"learner_step","pid":1,"tid":1,"ts":t,"dur":w+m+20})
    ev.append({"ph":"X","name":"input_wait","pid":1,"tid":1,"ts":t+5,"dur":w})
    ev.append({"ph":"X","name":"model_and_wait","pid":1,"tid":1,"ts":t+10+w,"dur":m})
    ev.append({"ph":"X","name":"loader </script><b>x</b>","pid":1,"tid":2,"ts":t,"dur":w//2})
    t += w + m + 40
ev.append({"ph":"C","name":"mem","pid":1,"ts":0,"args":{"used":1}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
python3 - "$TMP/deep.json" "$TMP/wide.json" <<'PY'
import json, sys
json.dump({"traceEvents": [{"ph": "X", "name": "f%d" % d, "ts": d, "dur": 1000 - 2 * d, "pid": 1, "tid": t + 1}
                           for t in range(160) for d in range(25)]}, open(sys.argv[1], "w"))
json.dump({"traceEvents": [{"ph": "X", "name": "w%d" % (t % 7), "ts": t % 50, "dur": 500, "pid": 1, "tid": t + 1}
                           for t in range(2000)]}, open(sys.argv[2], "w"))
PY
fail=0
for trace in trace deep wide; do
echo "== $trace"
"$STINT" report "$TMP/$trace.json" -o "$TMP/report.html" || { echo "FAIL: stint report exit $?"; exit 1; }
if grep -Eqi 'https?://|<(script|img|link|iframe)[^>]*(src|href)=' "$TMP/report.html"; then
  echo "FAIL: the report refers to external resources:"; grep -Eoi '.{0,40}(https?://|src=|href=).{0,40}' "$TMP/report.html" | head; fail=1
fi
grep -q '<b>x</b>' "$TMP/report.html" && { echo "FAIL: a name was not escaped"; fail=1; }
run_chromium() { # $1: profile dir; rest: extra args
  local prof=$1; shift
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --window-size=1200,1000 --hide-scrollbars \
    --enable-logging=stderr --v=0 "$@" "file://$TMP/report.html"
}
run_chromium "$TMP/p1" --dump-dom > "$TMP/dom.html" 2> "$TMP/log1"
run_chromium "$TMP/p2" --screenshot="$TMP/shot.png" > /dev/null 2> "$TMP/log2"
if grep -Eq 'Uncaught|CONSOLE[:(].*[Ee]rror' "$TMP/log1" "$TMP/log2"; then
  echo "FAIL: console errors:"; grep -Eh 'Uncaught|CONSOLE' "$TMP/log1" "$TMP/log2" | head; fail=1
fi
[ -s "$TMP/shot.png" ] || { echo "FAIL: no screenshot"; cat "$TMP/log2" | tail -5; exit 1; }
want=100; [ $trace = trace ] || want=10 # (a tall trace draws the lanes in view)
python3 - "$TMP/dom.html" "$TMP/shot.png" $want <<'PY' || fail=1
import re, struct, sys, zlib
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
m = re.search(r'<div id="stint-ready"[^>]*>', dom)
assert m, "the page script did not finish (#stint-ready missing)"
tag = m.group(0)
drawn = int(re.search(r'data-drawn="(\d+)"', tag).group(1))
assert drawn >= int(sys.argv[3]), ("slices drawn", drawn)
err = re.search(r'<div id="stint-error">(.*?)</div>', dom, re.S)
assert err and err.group(1).strip() == "", ("script error", err and err.group(1))
x, y, w, h = map(int, re.search(r'data-timeline-rect="([-\d,]+)"', tag).group(1).split(","))
assert w > 100 and h > 30, (w, h)

def png_rgb(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, W = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
        if typ == b"IHDR":
            W, H, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
    raw = zlib.decompress(idat); stride = W * bpp; rows = []; prev = bytearray(stride); i = 0
    for _ in range(H):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for k in range(stride):
            a = line[k - bpp] if k >= bpp else 0; b = prev[k]; c = prev[k - bpp] if k >= bpp else 0
            if f == 1: line[k] = (line[k] + a) & 255
            elif f == 2: line[k] = (line[k] + b) & 255
            elif f == 3: line[k] = (line[k] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return W, H, bpp, rows

W, H, bpp, rows = png_rgb(sys.argv[2])
coloured = total = 0
for yy in range(max(y, 0), min(y + h, H)):
    row = rows[yy]
    for xx in range(max(x, 0), min(x + w, W)):
        r_, g_, b_ = row[xx * bpp:xx * bpp + 3]
        total += 1
        if max(r_, g_, b_) - min(r_, g_, b_) > 40:  # saturated: a slice, not text/background grey
            coloured += 1
assert total > 0, "timeline rectangle outside the screenshot"
share = coloured / total
print(f"timeline {w}x{h} at ({x},{y}): {coloured} of {total} pixels coloured ({share:.1%}); {drawn} slices drawn")
assert share > 0.05, "the timeline looks blank"
assert h <= 1000, ("the timeline is higher than the window", h)
PY
done
exit $fail
