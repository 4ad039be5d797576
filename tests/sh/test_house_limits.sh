#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The house's size limits (scripts/house_limits.py): no .c or .h in src/ or
# tools/ over 900 lines, no function over 150. The limits are checked on a
# deliberately long function too, so that the check is known to bite.
set -euo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 "$src/scripts/house_limits.py" --root "$src"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
{ echo "int long_one(void)"; echo "{"; for i in $(seq 1 160); do echo "    (void)$i;"; done; echo "    return 0;"; echo "}"; } > "$tmp/src/long.c"
if python3 "$src/scripts/house_limits.py" --root "$tmp" >/dev/null; then
  echo "FAIL: a 164-line function passed the limits" >&2
  exit 1
fi
echo "house limits hold (and a long function is caught)"
