#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The seed systems' upstream assertions (*.expected.json, seed-systems/README.md) against
# stint summary/timing/diff/memory/slices (tests/corpus/seed_expectations.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/seed_expectations.py"
