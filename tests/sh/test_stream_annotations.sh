#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A device stream is a queue of device work: on Kineto's HTA NCCL trace,
# `stint summary` gives stream 7 (and every stream) a busy time equal to the
# union of its kernel, gpu_memcpy and gpu_memset spans, computed here in
# Python from the JSON text (exact ns from the decimal microseconds); its
# gpu_user_annotation spans are left out of the lane's spans, sum and busy
# and listed apart (stream_annotations), with their own union. Before, the
# annotations were counted as work and stream 7's busy was 400.4 ms, 3.4x
# the 118.3 ms of device work.
set -euo pipefail
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
F="$SHARED/corpus/real-traces/hta_nccl_data.json.gz"
if [ ! -f "$F" ]; then
    echo "SKIP: $F is absent (the shared corpus)"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-streams.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$STINT" summary --json "$F" >"$T/s.json" 2>"$T/err"
"$STINT" summary "$F" >"$T/s.txt" 2>>"$T/err"
python3 - "$F" "$T/s.json" "$T/s.txt" <<'PY'
import gzip, json, sys
from decimal import Decimal
trace = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)
summ = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
WORK = {"kernel", "gpu_memcpy", "gpu_memset"}

def ns(v):
    return int(Decimal(v) * 1000)  # (Kineto writes us with at most 3 decimals: exact)

def union(iv):
    tot, end = 0, None
    for a, b in sorted(iv):
        if end is None or a > end:
            tot, end = tot + b - a, b
        elif b > end:
            tot, end = tot + b - end, b
    return tot

work, annot = {}, {}
for e in trace["traceEvents"]:
    if e.get("ph") != "X" or not isinstance(e.get("tid"), int) or e.get("pid") != 0:
        continue
    a = ns(e["ts"]); b = a + ns(e.get("dur", 0))
    if e.get("cat") in WORK:
        work.setdefault(e["tid"], []).append((a, b))
    elif e.get("cat") == "gpu_user_annotation":
        annot.setdefault(e["tid"], []).append((a, b))
fail = []
lanes = {(l["pid"], l["tid"]): l for l in summ["lanes"]}
ann = {(l["pid"], l["tid"]): l for l in summ.get("stream_annotations", [])}
for tid in sorted(work):
    got = lanes[(0, tid)]
    if got["busy_ns"] != union(work[tid]) or got["spans"] != len(work[tid]):
        fail.append("stream %d: busy %d ns, %d spans; want %d ns, %d spans" %
                    (tid, got["busy_ns"], got["spans"], union(work[tid]), len(work[tid])))
for tid in sorted(annot):
    got = ann.get((0, tid), {})
    if got.get("busy_ns") != union(annot[tid]) or got.get("spans") != len(annot[tid]):
        fail.append("stream %d annotations: %r; want %d ns over %d spans" % (tid, got, union(annot[tid]), len(annot[tid])))
if 7 not in work or 7 not in annot:
    fail.append("stream 7 has no device work or no annotation")
if "annotations on device streams" not in text:
    fail.append("the text has no annotations section")
for f in fail:
    print("FAIL:", f)
print("stream 7: busy %d ns over %d spans of device work; annotations %d ns (%d spans)" %
      (union(work[7]), len(work[7]), union(annot.get(7, [])), len(annot.get(7, []))))
sys.exit(1 if fail else 0)
PY
