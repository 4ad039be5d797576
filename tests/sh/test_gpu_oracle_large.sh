#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint gpu --json` against the independent Python oracle (gpu_oracle.py) on
# the larger real traces of the corpus: MTIA (mtia_ccp_events, dma_request
# copies, mtia_runtime calls), a Kineto CUDA trace with memory events, a DDP
# trace with ns timestamps, and a 4-stream trace.
set -eu
command -v python3 >/dev/null || { echo "SKIP: python3 is absent"; exit 77; }
STINT=${STINT_BIN:?}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${STINT_SHARED_DIR:-$SRC/../shared}
R="$SHARED/corpus/real-traces"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
for f in hta_mtia_rank_0 hta_df_index_resolver hta_ns_resolution_rank-0.pt.trace hta_trace_diff_control; do
    p="$R/$f.json.gz"
    [ -f "$p" ] || { echo "SKIP: $p is absent"; exit 77; }
    "$STINT" gpu --json --top 0 "$p" > "$TMP/$f.out" 2>/dev/null
    python3 "$SRC/tests/sh/gpu_oracle.py" "$TMP/$f.out" "$p" || { echo "FAIL: oracle disagrees on $f"; exit 1; }
done
# MTIA: its DMA requests are memory work, its kernels linked to runFunction calls
python3 - "$TMP/hta_mtia_rank_0.out" <<'PY' || { echo "FAIL: MTIA figures"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["launch"]["linked"] == 3453 and d["launch"]["unlinked_kernels"] == 22361, d["launch"]
assert d["devices"][0]["device"] == 9 and d["devices"][0]["memory_ns"] > 0
PY
echo "ok"
