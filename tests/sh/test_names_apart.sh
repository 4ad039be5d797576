#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No command prints two different names alike: two C++ kernel names that
# share their first 100+ characters (and differ near the end), and two that
# share a 40-character start and end (and differ in the middle), each get a
# row of their own in every text output; the rows of the two names, with
# their numbers taken out, must differ. A 400-character name must not widen
# summary's name column past 64 columns.
set -u
STINT=${STINT_BIN:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/t.json" <<'EOF'
import json, sys
p = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
assert len(p) >= 100
names = [p + "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
         p + "(int, at::native::FillFunctor<half>, at::detail::Array<char*, 1>)",
         "A" * 40 + "middle_one" + "Z" * 40, "A" * 40 + "middle_two" + "Z" * 40,
         "ampere_sgemm_" + "x" * 380 + "_nn"]
ev = [{"ph": "X", "pid": 1, "tid": 1, "ts": s * 1000, "dur": 900, "name": "step", "cat": "s"} for s in range(2)]
for i, n in enumerate(names):  # two spans each, one per step, so diff and steps have rows
    for s in range(2):
        ev.append({"ph": "X", "pid": 1, "tid": 1, "ts": s * 1000 + i * 100 + 1, "dur": 10 + i, "name": n, "cat": "kernel"})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
fail=0
for c in "summary" "summary --wide" "tree" "tree --flat" "steps --step step" "diff $TMP/t.json" "slices"; do
  "$STINT" $c "$TMP/t.json" > "$TMP/out" 2> "$TMP/err" || { echo "FAIL: stint $c: $(cat "$TMP/err")"; fail=1; continue; }
  python3 - "$TMP/out" "$c" <<'EOF' || fail=1
import re, sys
out, cmd = open(sys.argv[1], encoding="utf-8").read().splitlines(), sys.argv[2]
def text(line):  # the row without its numbers and units
    return " ".join(t for t in line.split() if not re.fullmatch(r"[-+]?[\d.,%]+|us|ms|ns|s|x|-", t))
bad = 0
rows = set(text(l) for l in out if "vectorized" in l or "middle_" in l or "ampere" in l)
if cmd.startswith("steps"):  # names are column heads on one line: each must be told apart there
    head = " ".join(l for l in out if "ampere" in l)
    for part in ("<half>", "<float>, at::detail::Array<char*, 1>)", "middle_one", "middle_two"):
        if part not in head:
            print("FAIL: stint %s: the column heads lose %r" % (cmd, part)); bad = 1
# five names: five different row texts (a name's own rows may repeat, numbers aside)
elif len(rows) != 5:
    print("FAIL: stint %s: %d different rows for 5 names: %r" % (cmd, len(rows), sorted(r[:100] for r in rows))); bad = 1
if cmd == "summary":
    head = next(l for l in out if l.startswith("cat ") and " name " in l)
    w = head.index("spans")
    if w > 16 + 1 + 64 + 10:
        print("FAIL: summary's name column is %d wide with a 400-character name" % w); bad = 1
    if not any("\u2026" in l for l in out):
        print("FAIL: summary cut no name"); bad = 1
sys.exit(bad)
EOF
done
[ $fail = 0 ] && echo "PASS: no two names print alike"
exit $fail
