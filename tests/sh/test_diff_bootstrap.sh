#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint diff` acceptance: generated traces (fixed seeds, 5 names x 200 spans,
# lognormal durations) where one name is 10% slower are flagged for that name
# only, and --fail-on-regression exits 4; pairs drawn from the same
# distribution are never flagged (several pairs); the verdicts are
# deterministic; names with too few spans are reported as such, not judged.
set -u
STINT=${STINT_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/gen.py" <<'PY'
import json, random, sys
def gen(path, seed, slow_name=None, factor=1.0, n=200):
    r = random.Random(seed); ev = []; t = 0
    base = {"attn": 500, "mlp": 800, "norm": 50, "embed": 120, "loss": 30}
    for k in range(n):
        for nm, b in base.items():
            d = b * r.lognormvariate(0, 0.1) * (factor if nm == slow_name else 1.0)
            ev.append({"ph": "X", "cat": "op", "name": nm, "pid": 1, "tid": 1, "ts": round(t, 3), "dur": round(d, 3)})
            t += d + 1
    ev.append({"ph": "X", "cat": "op", "name": "rare", "pid": 1, "tid": 1, "ts": round(t, 3), "dur": 5})
    json.dump({"traceEvents": ev}, open(path, "w"))
a, b, sa, sb = sys.argv[1:5]
gen(a, int(sa))
if len(sys.argv) > 5: gen(b, int(sb), sys.argv[5], 1.10)
else: gen(b, int(sb))
PY
fail=0
verdicts() { "$STINT" diff "$1" "$2" --json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print(" ".join(r["name"]+"="+r["verdict"] for r in d["rows"]))'; }
for pair in "1 2" "5 6" "9 10"; do
  set -- $pair
  python3 "$TMP/gen.py" "$TMP/a.json" "$TMP/b.json" $1 $2 mlp
  v=$(verdicts "$TMP/a.json" "$TMP/b.json")
  echo "10% slower mlp, seeds $pair: $v"
  case " $v " in *" mlp=slower "*) ;; *) echo "FAIL: the 10% slower name was not flagged"; fail=1;; esac
  n=$(echo "$v" | tr ' ' '\n' | grep -c '=slower\|=faster')
  [ "$n" -eq 1 ] || { echo "FAIL: $n names flagged, expected only mlp"; fail=1; }
  case " $v " in *" rare=too_few "*) ;; *) echo "FAIL: a single-span name was judged"; fail=1;; esac
  "$STINT" diff "$TMP/a.json" "$TMP/b.json" --fail-on-regression > /dev/null; rc=$?
  [ $rc -eq 4 ] || { echo "FAIL: --fail-on-regression exit $rc, expected 4"; fail=1; }
done
for pair in "3 4" "7 8" "11 12" "13 14" "15 16"; do
  set -- $pair
  python3 "$TMP/gen.py" "$TMP/a.json" "$TMP/b.json" $1 $2
  v=$(verdicts "$TMP/a.json" "$TMP/b.json")
  echo "same distribution, seeds $pair: $v"
  if echo "$v" | grep -q '=slower\|=faster'; then echo "FAIL: a same-distribution pair was flagged"; fail=1; fi
  "$STINT" diff "$TMP/a.json" "$TMP/b.json" --fail-on-regression > "$TMP/o1"; rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: --fail-on-regression exit $rc without a regression"; fail=1; }
  "$STINT" diff "$TMP/a.json" "$TMP/b.json" --fail-on-regression > "$TMP/o2"
  cmp -s "$TMP/o1" "$TMP/o2" || { echo "FAIL: two runs differ"; fail=1; }
done
grep -q "too few samples" "$TMP/o1" || { echo "FAIL: no explanation for too few samples"; fail=1; }
exit $fail
