#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A device stream is a queue, not a call stack: on real Kineto traces (the
# HTA CUDA trace whose stream 7 has kernels that overlap by the profiler's
# 1-2 us rounding, and the MTIA trace's "Stream 1 FW" lane, where DMA
# requests overlap), `stint slices --json` nests no device work (kernel,
# gpu_memcpy, gpu_memset, mtia_ccp_events) under other device work: each is
# a root of its lane (depth 0, no parent) and the overlaps are counted as
# the repair stream_overlap. The count is computed here in Python from the
# trace text: per lane, the device work in start order (longest first on a
# tie), one for each span that starts before the one before it ends. On the
# HTA NCCL trace, whose streams carry gpu_user_annotation ranges, device
# work sits only under those ranges. Before, a 47 us GEMM was the child of
# a 4 us elementwise kernel.
set -euo pipefail
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
D="$SHARED/corpus/real-traces"
for f in hta_trace_diff_test.json.gz hta_mtia_rank_0.json.gz hta_nccl_data.json.gz; do
    if [ ! -f "$D/$f" ]; then
        echo "SKIP: $D/$f is absent (the shared corpus)"
        exit 77
    fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-queue.XXXXXX")
trap 'rm -rf "$T"' EXIT
# (the device's pid only: the whole MTIA trace's rows with args are 110 MB;
# a device lane's parents are on its own lane)
for fp in hta_trace_diff_test:1 hta_mtia_rank_0:9 hta_nccl_data:0; do
    f=${fp%:*}
    "$STINT" slices --json --pid "${fp#*:}" "$D/$f.json.gz" >"$T/$f.slices" 2>"$T/$f.err"
    "$STINT" summary --json "$D/$f.json.gz" >"$T/$f.summary" 2>>"$T/$f.err"
done
python3 - "$D" "$T" <<'PY'
import gzip, json, sys
from collections import defaultdict
from decimal import Decimal
D, T = sys.argv[1], sys.argv[2]
WORK = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_ccp_events"}
fail = 0


def ns(v):
    return int(Decimal(v) * 1000)


def expected_overlaps(path):
    """Per lane, device work sorted by (start, longest first, file order):
    how many start before the previous one ends."""
    tr = json.load(gzip.open(path), parse_float=str)  # (decimal text: made exact ns below)
    evs = tr["traceEvents"] if isinstance(tr, dict) else tr
    lanes = defaultdict(list)
    for i, e in enumerate(evs):
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in WORK:
            lanes[(e["pid"], e["tid"])].append((ns(e["ts"]), -ns(e.get("dur", 0)), i))
    n = 0
    for v in lanes.values():
        v.sort()
        n += sum(1 for a, b in zip(v, v[1:]) if b[0] < a[0] - a[1])
    return n, sum(len(v) for v in lanes.values())


for f, lane in (("hta_trace_diff_test", (1, 7)), ("hta_mtia_rank_0", (9, 4)), ("hta_nccl_data", (0, 7))):
    rows = json.load(open("%s/%s.slices" % (T, f)))["slices"]
    by = {r["row"]: r for r in rows}
    work = [r for r in rows if r["cat"].lower() in WORK and r["kind"] == "complete"]
    under_work = [r for r in work if r["parent"] is not None and by[r["parent"]]["cat"].lower() in WORK]
    anc = set()
    for r in work:
        p = r["parent"]
        while p is not None:
            anc.add(by[p]["cat"])
            p = by[p]["parent"]
    on_lane = [r for r in work if (r["pid"], r["tid"]) == lane]
    summ = json.load(open("%s/%s.summary" % (T, f)))
    got = summ["repairs"].get("stream_overlap", 0)
    want, nwork = expected_overlaps("%s/%s.json.gz" % (D, f))
    text = open("%s/%s.err" % (T, f)).read()
    print("%s: %d device-work spans (%d on lane %s), depths %s, ancestors' categories %s; stream_overlap %d "
          "(python %d)" % (f, len(work), len(on_lane), lane, sorted({r["depth"] for r in work}), sorted(anc), got,
                           want))
    if len(work) != nwork or not on_lane:
        print("FAIL %s: %d device-work slices, the trace has %d" % (f, len(work), nwork)); fail = 1
    if under_work or anc - {"gpu_user_annotation"}:
        print("FAIL %s: device work nested under device work: %d" % (f, len(under_work))); fail = 1
    if f != "hta_nccl_data":
        # no annotation on these lanes: every device-work span is a root
        if any(r["depth"] != 0 or r["parent"] is not None for r in work):
            print("FAIL %s: device work not at depth 0" % f); fail = 1
        if got != want or want == 0:
            print("FAIL %s: stream_overlap %d, python %d" % (f, got, want)); fail = 1
        if "stream_overlap" not in text or "overlapping_complete" in summ["repairs"] and f == "hta_trace_diff_test":
            print("FAIL %s: the repair is not shown by name, or the overlaps are still nesting repairs" % f); fail = 1
    elif got != 0 or want != 0:
        print("FAIL %s: stream_overlap %d, python %d (none expected)" % (f, got, want)); fail = 1
sys.exit(fail)
PY
echo "PASS"
