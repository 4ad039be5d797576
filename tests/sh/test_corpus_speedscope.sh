#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# speedscope's Trace Event cases: per-lane name totals/self vs speedscope's frames (tests/corpus/speedscope.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/speedscope.py"
