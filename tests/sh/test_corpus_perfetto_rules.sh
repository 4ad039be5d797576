#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Thread slices of the spec examples and speedscope inputs vs Perfetto's derived rules (tests/corpus/perfetto_rules.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/perfetto_rules.py"
