#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint sizes --json` against an independent model (sizes_oracle.py, which
# measures the text with Python's own JSON decoder): adversarial traces made
# here (escaped and non-ASCII keys and names, whitespace inside events, args
# that are arrays or nested, names that are numbers or absent, times as
# strings, a BOM, the object form with keys around traceEvents, a trailing
# comma), each plain, gzipped and read in parts on two threads, with and
# without each filter; then, when ../shared is present, generated traces of
# every style and format the same way.
set -euo pipefail
STINT=${STINT_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
ORACLE=$HERE/sizes_oracle.py
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-sizes.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 checks=0

python3 - "$T" <<'PY'
import json, random, sys
out = sys.argv[1]
for seed in range(8):
    r = random.Random(seed)
    ev = []
    for i in range(r.randint(40, 300)):
        e = {}
        k = r.random()
        e["ph"] = r.choice(["X", "X", "B", "E", "i", "C", "M", "s", "f", "b", "e"])
        if r.random() < 0.9:
            e["name"] = r.choice(["run", "naïve ✓", "a\"b", "step", "x" * r.randint(1, 40), "", "tab\tname"])
        if r.random() < 0.7:
            e["cat"] = r.choice(["cpu", "gpu", "cpu,gpu", "", "dev\u00e9"])
        e["pid"] = r.choice([1, 2, 7])
        if r.random() < 0.8:
            e["tid"] = r.choice([0, 1, 3, 9])
        ts = r.randint(0, 5000) + r.choice([0, 0.5, 0.125])
        e["ts"] = str(ts) if r.random() < 0.2 else ts
        if e["ph"] == "X":
            e["dur"] = r.randint(0, 400) if r.random() < 0.8 else str(r.randint(0, 400))
        a = r.random()
        if a < 0.6:
            args = {}
            for j in range(r.randint(0, 5)):
                key = r.choice(["Input Dims", "src_file", "k\u00e9y", "q\"uote", "n", "deep", "{brace}"])
                args[key] = r.choice([1, -2.5e3, "text with } and {", [1, [2, {"x": 3}]], {"y": {"z": None}},
                                      True, "é" * r.randint(0, 30)])
            e["args"] = args
        elif a < 0.65:
            e["args"] = []
        ev.append(e)
    # the text: one of several layouts, whitespace inside events
    def put(e):
        t = json.dumps(e, ensure_ascii=r.random() < 0.5)
        if r.random() < 0.3:
            t = t.replace(", ", " ,\n  ").replace(": ", " :  ")
        if r.random() < 0.1 and '"args": {' in t:
            t = t.replace('"args": {', '"\\u0061rgs": {', 1)
        return t
    body = ",\n".join(put(e) for e in ev)
    if seed % 4 == 0:
        text = "[" + body + "]"
    elif seed % 4 == 1:
        text = '{"otherData": {"v": "1"}, "traceEvents": [\n' + body + '\n],\n "displayTimeUnit": "ns", "metadata": {"a": [1, 2]}}'
    elif seed % 4 == 2:
        text = "\ufeff[ " + body + " ,\n]\n"
    else:
        text = '{\n  "traceEvents" : [' + body + "]  }\n"
    open(f"{out}/adv{seed}.json", "w", encoding="utf-8").write(text)
PY

# compare FILE [filter args]: runs stint on FILE plain, read in parts on two
# threads, and (without filters) gzipped; the outputs are checked against
# the oracle at the end, in one Python process (each start costs ~0.4 s here)
: >"$T/manifest"
compare() {
  local f=$1; shift
  checks=$((checks + 1))
  local modes="plain split"
  [ $# = 0 ] && modes="plain gz split" # (gzip adds nothing to a filter's check)
  for mode in $modes; do
    local in=$f env=() out=$T/out.$checks.$mode
    case $mode in
      gz) gzip -c "$f" >"$T/in.gz"; in=$T/in.gz ;;
      split) env=(STINT_THREADS=2 STINT_SPLIT_MIN_BYTES=4096) ;;
    esac
    if ! env "${env[@]}" "$STINT" sizes "$in" --json "$@" >"$out" 2>"$T/err"; then
      echo "FAIL: $(basename "$f") $mode $*: exit $?"; cat "$T/err"; fail=1; continue
    fi
    (IFS='|'; printf '%s\n' "$out|$mode|$f|$*") >>"$T/manifest" # (no argument here holds a '|')
  done
}

for f in "$T"/adv*.json; do
  compare "$f"
  case $f in *adv[4-7].json) continue ;; esac
  compare "$f" --pid 2
  compare "$f" --tid 1
  compare "$f" --pid 1 --tid 1
  compare "$f" --cat gpu
  compare "$f" --name 'x*'
  compare "$f" --time-range 1000000:2500000
  compare "$f" --time-range :200000 --cat cpu
done

GEN=${STINT_SHARED_DIR:-}/tools/gen_chrome.py
if [ ! -f "$GEN" ]; then
  echo "SKIP (generated traces): $GEN is absent (shared tools); adversarial traces only"
else
  k=0
  for cfg in "--style line --format object" "--style compact --format array --flavor chrome" \
             "--style pretty --format object --flavor kineto" "--style line --format array-open"; do
    k=$((k + 1))
    # shellcheck disable=SC2086 # cfg holds several generator options
    python3 "$GEN" --size 700K --seed "$k" $cfg -o "$T/g$k.json"
    compare "$T/g$k.json"
    compare "$T/g$k.json" --name 'aten::*'
  done
fi

# every output against the oracle
if ! python3 - "$HERE" "$T/manifest" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import sizes_oracle
bad = 0
want = {}
for line in open(sys.argv[2]):
    out, mode, path, *args = line.rstrip("\n").split("|")
    args = [a for a in args if a]
    key = (path, tuple(args))
    if key not in want:
        want[key] = sizes_oracle.model(path, args)
    got = json.load(open(out))
    if got["schema"] != "stint.sizes/1" or got["partial"] is not False or (got["gzip_bytes"] > 0) != (mode == "gz"):
        print("FAIL: %s %s %s: schema, partial or gzip_bytes" % (path, mode, args)); bad = 1
        continue
    for k, v in want[key].items():
        if v != got[k]:
            print("FAIL: %s %s %s: %s differs from the oracle" % (path.rsplit("/", 1)[1], mode, args, k))
            print("  want:", json.dumps(v)[:600])
            print("  got: ", json.dumps(got[k])[:600])
            bad = 1
            break
sys.exit(bad)
PY
then
  fail=1
fi

# the text view: its totals line, and --top
"$STINT" sizes "$T/adv1.json" --top 2 >"$T/text" 2>&1
grep -q '^## by name: top 2 of ' "$T/text" || { echo "FAIL: --top 2 not applied"; cat "$T/text"; fail=1; }
grep -q '^## trace object keys other than traceEvents: top 2 of 3$' "$T/text" ||
  { echo "FAIL: the object's three other keys are not listed"; cat "$T/text"; fail=1; }

echo "sizes: $checks oracle comparisons, each plain and split (and gzipped without filters)"
[ $fail = 0 ] && echo PASS
exit $fail
