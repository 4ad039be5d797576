#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint top --once --json` on every marker log of ../shared/corpus (read in
# place) against `stint timing --json`, the reference-compatible reader of
# the same logs: the same spans and torn records (a held last line, without
# its newline, is not counted by top: then top has at most timing's), and
# top's TPOT is timing's decode callable: the same hid, invocations and mean
# root duration.
set -euo pipefail
STINT=${STINT_BIN:?}
SHARED=${STINT_SHARED_DIR:-${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/../shared}
if [ ! -d "$SHARED/corpus" ]; then
  echo "SKIP: $SHARED/corpus is absent"
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-top-corpus.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
while IFS= read -r -d '' f; do
  grep -q '\[STRACE\]' "$f" || continue
  n=$((n + 1))
  "$STINT" top "$f" --once --json --format markers > "$T/top$n.json" 2>/dev/null || true
  "$STINT" timing --json "$f" > "$T/timing$n.json" 2>/dev/null || true
  printf '%s\n' "$f" > "$T/name$n"
done < <(find "$SHARED/corpus" -name '*.log' -size -2M -print0 | sort -z)
[ "$n" -gt 0 ] || { echo "SKIP: no marker log in $SHARED/corpus"; exit 77; }
python3 - "$T" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
fail = 0
tpots = 0
for i in range(1, n + 1):
    name = open("%s/name%d" % (d, i)).read().strip()
    try:
        top = json.load(open("%s/top%d.json" % (d, i)))
        tm = json.load(open("%s/timing%d.json" % (d, i)))
    except ValueError as e:
        print("FAIL %s: no JSON (%s)" % (name, e)); fail = 1; continue
    c, r = top["counts"], tm["records"]
    errs = []
    if c["held_bytes"] == 0:
        if (c["spans"], c["torn"]) != (r["spans"], r["torn"]):
            errs.append("spans/torn %d/%d, timing %d/%d" % (c["spans"], c["torn"], r["spans"], r["torn"]))
    elif c["spans"] > r["spans"]:
        errs.append("spans %d > timing's %d" % (c["spans"], r["spans"]))
    dec = [x for x in tm.get("callables", []) if x.get("label") == "decode"]
    tp = top["tpot"]
    if dec and c["held_bytes"] == 0:
        x = dec[0]
        tpots += 1
        if tp is None:
            errs.append("no TPOT; timing's decode is %s" % x["hid"])
        else:
            if int(tp["hid"], 16) != int(x["hid"], 16):
                errs.append("decode hid %s, timing %s" % (tp["hid"], x["hid"]))
            if tp["since_start"]["calls"] != x["invocations"]:
                errs.append("tokens %d, timing's invocations %d" % (tp["since_start"]["calls"], x["invocations"]))
            elif abs(tp["since_start"]["mean_ns"] / 1000 - x["root"]["stats"]["mean_us"]) > 0.002:
                errs.append("TPOT %d ns, timing's mean %s us" % (tp["since_start"]["mean_ns"], x["root"]["stats"]["mean_us"]))
    print("%s %s: %d spans, %d torn%s" % ("FAIL" if errs else "ok", name, c["spans"], c["torn"],
          "; " + "; ".join(errs) if errs else ""))
    fail |= bool(errs)
print("%d logs, TPOT checked on %d" % (n, tpots))
sys.exit(fail if tpots else 1)
PY
