#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Perfetto JSON conformance cases against their expected CSVs (see tests/corpus/perfetto_json.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/perfetto_json.py"
