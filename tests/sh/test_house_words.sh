#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's text speaks of the product, not of how it was made: no
# numbered work periods, issues or seed documents in the README, the docs,
# the code or the binding (a generator's "--seed 5" is a seed of another
# kind and is allowed).
set -euo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src"
hits=$(grep -rniE '(session|issue|seed) [0-9]+' README.md docs src tools include python | grep -vE -- '--seed [0-9]+' || true)
if [ -n "$hits" ]; then
  echo "FAIL: the text names work periods, issues or seed documents by number:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no numbered sessions, issues or seeds in README.md docs src tools include python"
