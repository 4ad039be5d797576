#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The JSON tokenizer without AVX2 (STINT_NO_AVX2=1 selects the portable SWAR
# scan at run time): its unit tests, and `stint summary --json` on the
# Perfetto JSON conformance traces must match the AVX2 run byte for byte.
set -euo pipefail
build=${STINT_BUILD_DIR:?STINT_BUILD_DIR is not set}
# (77: a corpus part of that unit test was skipped, the rest passed)
STINT_NO_AVX2=1 "$build/tests/test_json" || [ $? = 77 ]
STINT_NO_AVX2=1 "$build/tests/test_json_fast" || [ $? = 77 ]
corpus=${STINT_SHARED_DIR:-}/corpus
if [ -z "${STINT_SHARED_DIR:-}" ] || [ ! -d "$corpus" ]; then
  echo "SKIP (conformance part): the shared corpus is absent (the unit parts passed)"
  exit 77
fi
stint=${STINT_BIN:-$build/stint}
n=0 k=0 every=1
# (under a sanitizer, 10-40x slower: every 4th file)
[ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ] && every=4
while IFS= read -r -d '' f; do
  k=$((k + 1))
  [ $((k % every)) = 0 ] || continue
  a=$("$stint" summary --json "$f" 2>&1; echo "rc=$?")
  b=$(STINT_NO_AVX2=1 "$stint" summary --json "$f" 2>&1; echo "rc=$?")
  if [ "$a" != "$b" ]; then
    echo "FAIL: $f: summary differs without AVX2"
    exit 1
  fi
  n=$((n + 1))
done < <(find "$corpus" -name '*.json' -size -2M -print0 | sort -z)
echo "portable scan agrees on $n corpus files"
[ "$n" -gt 0 ]
