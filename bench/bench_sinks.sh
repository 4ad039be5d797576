#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost per span of each session sink (run by bench/run.sh).
set -euo pipefail
build=${1:-build}
spans=200000; [ "${BENCH_QUICK:-0}" = 1 ] && spans=20000
"$build/bench/bench_sinks" --spans "$spans" --reps 7 --out "${TMPDIR:-/tmp}"
