#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The spec examples that derived-thread-slices-perfetto-rules.csv has no rows for: what the
# README's expected column states, against stint's output (tests/corpus/spec_examples.py).
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
exec python3 "${STINT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/corpus/spec_examples.py"
