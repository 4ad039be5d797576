#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint top` follows a binary capture as the library writes it: block by
# block. The demo run with STINT_CAPTURE writes a capture and a marker log of
# the same spans: `top --once --json` must say the same of both (less the
# file's name, format and bytes). Then the capture is grown a piece at a
# time (cut inside its header, at, before and after each block's end): at
# each size top must count exactly the span entries of the whole blocks
# (found here from the documented layout, docs/formats/capture.md, not by
# the reader under test) and hold the rest as bytes not yet decoded.
set -u
STINT=${STINT_BIN:?}
DEMO=${STINT_BUILD_DIR:?}/examples/demo
[ -x "$DEMO" ] || { echo "SKIP: $DEMO is not built"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
fail=0
STINT_CAPTURE="$TMP/cap.stint" STINT_FLUSH_MS=1 "$DEMO" "$TMP" >/dev/null 2>"$TMP/demo.err" ||
  { echo "demo failed"; cat "$TMP/demo.err"; exit 1; }
strip() { python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("file", "format"):
    d.pop(k)
d["counts"].pop("bytes_read")
print(json.dumps(d, sort_keys=True))'; }
"$STINT" top --once --json "$TMP/cap.stint" > "$TMP/c.json" || { echo "top on the capture failed"; fail=1; }
"$STINT" top --once --json "$TMP/markers.log" > "$TMP/m.json" || { echo "top on the marker log failed"; fail=1; }
grep -q '"format":"capture"' "$TMP/c.json" || { echo "the capture was not read as one:"; head -c 300 "$TMP/c.json"; fail=1; }
if [ "$(strip < "$TMP/c.json")" != "$(strip < "$TMP/m.json")" ]; then
  echo "top says other things of the capture and of the marker log of the same run"; fail=1
fi
# the cut points and, for each, the spans of the whole blocks before it and the bytes after them
python3 - "$TMP/cap.stint" > "$TMP/cuts" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
hlen = struct.unpack_from('<I', b, 16)[0]
ends, spans, at, n = [], [], hlen, 0
while at + 32 <= len(b):
    magic, plen, _, _ = struct.unpack_from('<IIII', b, at)
    assert magic == 0x4B4C4253
    p = at + 32
    while p < at + 32 + plen:
        size, kind = struct.unpack_from('<IB', b, p)
        n += kind == 2
        p += size
    at += 32 + plen
    ends.append(at)
    spans.append(n)
assert at == len(b) and len(ends) >= 2, (at, len(b), len(ends))
cuts = {hlen - 10, hlen, hlen + 5}
for e in ends[:2] + ends[-1:]:  # (the first two blocks' ends and the file's: enough, and quick under ASan)
    cuts |= {e - 1, e, e + 1}
for k in sorted(c for c in cuts if 8 <= c <= len(b)):
    whole = [i for i, e in enumerate(ends) if e <= k]
    print(k, spans[whole[-1]] if whole else 0, k - (ends[whole[-1]] if whole else (hlen if k >= hlen else 0)))
PY
[ -s "$TMP/cuts" ] || { echo "no cut points"; exit 1; }
checked=0
while read -r k want_spans want_held; do
  head -c "$k" "$TMP/cap.stint" > "$TMP/grow.stint"
  c=$("$STINT" top --once --json "$TMP/grow.stint" | grep -o '"counts":{[^}]*}')
  got=$(for k in spans held_bytes torn; do printf '%s ' "$(echo "$c" | grep -o "\"$k\":[0-9]*" | cut -d: -f2)"; done)
  got=${got% }
  if [ "$got" != "$want_spans $want_held 0" ]; then
    echo "cut at $k bytes: top says spans, held, torn = $got; the layout says $want_spans $want_held 0"; fail=1
  fi
  checked=$((checked + 1))
done < "$TMP/cuts"
[ $fail = 0 ] && echo "ok: capture and marker log agree; $checked cut points counted exactly"
exit $fail
