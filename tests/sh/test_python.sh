#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding's tests (tests/python/test_*.py, unittest) with the
# system python3 against this build's libstint.so. Skips when python3 is
# absent, and in sanitizer builds (a plain python3 cannot load a
# sanitizer-instrumented libstint.so).
set -euo pipefail
src=${STINT_SOURCE_DIR:?}
build=${STINT_BUILD_DIR:?}
py=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && py=/usr/bin/python3   # the system one (Debian), when there
if [ -z "$py" ]; then echo "SKIP: python3 not installed"; exit 77; fi
if grep -q '^STINT_SANITIZE:STRING=.\+' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: sanitizer build (python3 cannot load an instrumented libstint.so)"; exit 77
fi
[ -f "$build/libstint.so" ] || { echo "FAIL: $build/libstint.so not built"; exit 1; }
"$py" --version
export STINT_LIB=$build/libstint.so
export PYTHONDONTWRITEBYTECODE=1
exec "$py" -m unittest discover -s "$src/tests/python" -p 'test_*.py' -v
