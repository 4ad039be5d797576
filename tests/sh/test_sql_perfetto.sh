#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Perfetto's diff-test SQL run unchanged through `stint sql`, against the expected CSVs; lists the
# cases run and those skipped with why (see tests/corpus/sql_perfetto.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
"${STINT_BIN:?STINT_BIN not set}" sql --help >/dev/null 2>&1 || { echo "SKIP: stint sql is not in this build (no SQLite)"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/sql_perfetto.py"
