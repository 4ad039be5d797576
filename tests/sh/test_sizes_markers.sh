#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint sizes --json` on marker logs against an independent model
# (sizes_markers_oracle.py, the record grammar written again with regular
# expressions): adversarial logs made here (CRLF and lone CR line ends,
# blanks of every kind, records glued on one line behind log prefixes and
# tokens, torn records, clk=dev, attr tokens without '=' or with '=' in
# their values, non-ASCII names), plain and gzipped, with and without each
# filter; then, when ../shared is present, generated logs with noise and
# malformed records; and a cut gzip log (exit 1, its tally partial).
set -euo pipefail
STINT=${STINT_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-sizes-markers.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 checks=0

python3 - "$T" <<'PY'
import random, sys
out = sys.argv[1]
BLANKS = [b" ", b"  ", b"\t", b" \x1c", b"\v", b"\f "]
for seed in range(6):
    r = random.Random(seed)
    lines = []
    ts = 1000
    for i in range(r.randint(60, 200)):
        def rec():
            global ts
            ts += r.randint(0, 3000)
            b = lambda: r.choice(BLANKS) if r.random() < 0.3 else b" "
            name = r.choice([b"run", b"run.step", b"na\xc3\xafve", b"x" * r.randint(1, 30), b"a=b", b"k[0]"])
            head = b"[STRACE]" + b() + b"v=1" + b() + b"pid=%d" % r.choice([1, 2, 7]) + b() + \
                b"tid=%d" % r.choice([1, 3, 9]) + b() + b"inv=%d" % r.randint(1, 5) + b() + \
                b"hid=%x" % r.randint(0, 1 << 64) + b() + b"depth=%d" % r.randint(0, 4) + b() + \
                b"name=" + name + b() + b"ts=%d" % ts + b() + b"dur=%d" % r.randint(0, 5000)
            attrs = []
            for j in range(r.choice([0, 0, 1, 2, 4])):
                attrs.append(r.choice([b"ntensor=%d" % r.randint(1, 99), b"clk=dev", b"flag", b"eq=a=b",
                                       b"note=x[0][1]", b"clk=device", b"k\xc3\xa9=v"]))
            tail = (b()).join(attrs)
            return head + ((b() + tail) if attrs else b"") + (r.choice(BLANKS) if r.random() < 0.2 else b"")
        k = r.random()
        if k < 0.45:
            lines.append(rec())
        elif k < 0.6:
            lines.append(b"[2026-01-02 10:00:00][T0x1a][INFO] run.cc:12: " + rec())
        elif k < 0.7:  # two records glued on a line, the second behind a log prefix or a token
            glue = r.choice([b"[2026-01-02][T0x1][INFO] f: ", b" INFO:root:", b"", b" [mono_ns=5][T0x2]x "])
            lines.append(rec() + glue + rec())
        elif k < 0.78:  # torn: cut before its last field, or a bad field
            t = rec()
            lines.append(t[:r.randint(9, t.index(b"dur=") + 2)] if r.random() < 0.7 else t.replace(b"pid=", b"pid=x"))
        elif k < 0.85:
            lines.append(b"[STRACE]x not a head; [STRACE] v=q neither")
        else:
            lines.append(r.choice([b"I1130 plain log line", b"", b"{\"event\": \"metrics\"}", b"[a][b] brackets"]))
    ends = [b"\n", b"\r\n", b"\r"] if seed % 2 else [b"\n"]
    text = b"".join(l + r.choice(ends) for l in lines)
    if seed == 5:
        text = text.rstrip(b"\r\n")  # no line end after the last record
    open(f"{out}/adv{seed}.log", "wb").write(text)
PY

# shellcheck source=sizes_compare.sh
. "$HERE/sizes_compare.sh"

for f in "$T"/adv*.log; do
  compare "$f"
  compare "$f" --pid 2
  compare "$f" --tid 9
  compare "$f" --name 'run*'
  compare "$f" --cat x
  compare "$f" --time-range 20000:90000
  compare "$f" --pid 7 --time-range :50000
done

GEN=${STINT_SHARED_DIR:-}/tools/gen_strace.py
if [ ! -f "$GEN" ]; then
  echo "SKIP (generated logs): $GEN is absent (shared tools); adversarial logs only"
else
  for seed in 1 2; do
    python3 "$GEN" --size 600K --seed "$seed" --noise 0.4 --malformed 0.05 -o "$T/g$seed.log" >/dev/null 2>&1
    compare "$T/g$seed.log"
    compare "$T/g$seed.log" --name '*launch*'
  done
fi

if ! python3 "$HERE/sizes_markers_oracle.py" "$T/manifest"; then
  fail=1
fi

# the text report says what its rows are for a marker log
f=$T/adv0.log
"$STINT" sizes "$f" --top 3 >"$T/text"
for want in "bytes of log text" "## by clock" "## record fields:" "## attr keys:" "records "; do
  grep -qF -- "$want" "$T/text" || { echo "FAIL: the text report lacks '$want'"; fail=1; }
done
if grep -qF "trace object keys" "$T/text"; then echo "FAIL: a marker log's report lists trace object keys"; fail=1; fi

# a cut gzip log: exit 1, the tally of what was read marked partial, every byte read in it once
gzip -c "$T/adv1.log" | head -c 300 >"$T/cut.gz"
rc=0; "$STINT" sizes "$T/cut.gz" --json >"$T/cut.json" 2>"$T/err" || rc=$?
if [ "$rc" != 1 ]; then echo "FAIL: a cut gzip log: exit $rc, expected 1"; fail=1; fi
if ! python3 - "$T/cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["partial"] is True and d["text_bytes"] > 0 and d["events"] > 0 and \
    d["text_bytes"] == d["event_bytes"] + d["outside_bytes"] + d["filtered_bytes"]
sys.exit(0 if ok else 1)
PY
then echo "FAIL: a cut gzip log's tally: $(head -c 300 "$T/cut.json")"; fail=1; fi
grep -q "gzip stream is truncated" "$T/err" || { echo "FAIL: a cut gzip log: no error on stderr"; fail=1; }

echo "test_sizes_markers: $checks comparisons"
exit $fail
