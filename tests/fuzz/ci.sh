#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci.sh - the fuzzing stage of .ci/run: builds the libFuzzer targets with
# clang (ASan + UBSan), replays every stored regression input and fuzzes each
# target for FUZZ_CI_SECONDS (default 27) from the seed corpora, two targets at
# a time (FUZZ_JOBS, one per vCPU): eleven targets at 27 s keep the stage near
# three minutes with the build. Without clang it says so and
# fails, because CI must not pass silently without its fuzzing.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f scripts/deps.sh ] && bash scripts/deps.sh test
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not found (apt-get install clang)" >&2
  exit 1
fi
b=${FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Debug -DSTINT_FUZZ=ON -DSTINT_TESTS=OFF >/dev/null
cmake --build "$b" -j"${JOBS:-$(nproc 2>/dev/null || echo 2)}" --target fuzzers
rm -rf "$b/fuzz-corpus" "$b/fuzz-crashes" # CI: a fresh corpus each run
# a fixed seed: the same commit fuzzes the same way on every CI run (exploring
# with fresh seeds is `make fuzz`'s job)
FUZZ_JOBS=${FUZZ_JOBS:-2} FUZZ_SEED=${FUZZ_SEED:-20261130} bash tests/fuzz/run.sh "$b" "${FUZZ_CI_SECONDS:-27}"
