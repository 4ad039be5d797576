#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint top`: RSS over a long stream of marker lines (50 M records; 5 M with
# BENCH_QUICK=1) and the time of one tick on a 1 MB and a 1 GB log (100 MB
# with BENCH_QUICK=1): a tick reads only the appended bytes, so the two
# medians should match.
set -euo pipefail
build=${1:-build}
records=50000000; sizes=1048576,1073741824
if [ "${BENCH_QUICK:-0}" = 1 ]; then records=5000000; sizes=1048576,104857600; fi
echo "-- RSS over $records records (bench_top rss)"
"$build/bench/bench_top" rss --records "$records"
echo "-- one tick (append 200 records, poll, draw) by log size (bench_top tick)"
"$build/bench/bench_top" tick --sizes "$sizes" --ticks 200
