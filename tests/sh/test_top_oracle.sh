#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint top --once --json` against an independent model (top_oracle.py,
# the window, quantile, busy and TPOT rules written again in Python) over
# generated marker logs: well-nested spans on several lanes, several
# callables (hids), durations over four decades, records written at their
# end in end order; with the default window (everything inside it) and with
# windows shorter than the run (the window keeps only its slices), grouped
# by name and by lane.
set -euo pipefail
STINT=${STINT_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-top-oracle.XXXXXX")
trap 'rm -rf "$T"' EXIT

python3 - "$T" <<'PY'
import random, sys
out = sys.argv[1]
for seed in range(3):
    r = random.Random(seed)
    recs = []
    for lane in range(r.randint(2, 5)):
        pid, tid = r.choice([10, 20]), 100 + lane
        t = 10**9 + r.randint(0, 10**6)
        inv = 0
        while t < 10**9 + 5 * 10**9:
            inv += 1
            hid = r.choice([0xaa, 0xaa, 0xaa, 0xbb, 0xc0ffee])
            root = int(10 ** r.uniform(4, 8))
            kids, at = [], t
            for k in range(r.randint(0, 3)):
                d = r.randint(1, max(1, root // 4))
                if at + d > t + root:
                    break
                kids.append(("step.%d" % k, at, d))
                at += d + r.randint(0, 1000)
            for name, ts, d in kids:
                recs.append((ts + d, "[STRACE] v=1 pid=%d tid=%d inv=%d hid=%x depth=1 name=%s ts=%d dur=%d"
                             % (pid, tid, inv, hid, name, ts, d)))
            recs.append((t + root, "[STRACE] v=1 pid=%d tid=%d inv=%d hid=%x depth=0 name=run ts=%d dur=%d"
                         % (pid, tid, inv, hid, t, root)))
            t += root + r.randint(0, 10**7)
    recs.sort(key=lambda x: x[0])
    with open("%s/g%d.log" % (out, seed), "w") as f:
        for _, line in recs:
            f.write("[mono] " + line + "\n")
PY

args=()
n=0
for log in "$T"/g*.log; do
  for win in 30000000000 1000000000 333333337; do
    for by in name lane; do
      n=$((n + 1))
      "$STINT" top "$log" --once --json --window "${win}ns" --by "$by" > "$T/got$n.json"
      args+=("$log" "$win" "$by" "$T/got$n.json")
    done
  done
done
python3 "$HERE/top_oracle.py" "${args[@]}"
