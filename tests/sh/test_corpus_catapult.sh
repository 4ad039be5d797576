#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# catapult's sample traces: thread slices, sums, depths, unclosed Bs, names, counters vs an
# independent exact model of the JSON (tests/corpus/catapult.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/catapult.py"
