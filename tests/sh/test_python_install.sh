#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `pip install ./python` works: python/pyproject.toml (setuptools, no
# dependencies) installs the package into a fresh virtual environment, and
# the installed package finds this build's libstint.so through
# $STINT_LIBRARY and records a span. No package index is used (--no-index,
# --no-build-isolation: the venv sees the system's setuptools), nothing is
# installed into the system Python, and the source tree is not written to
# (pip builds from a copy). Skips (77) when python3, venv, pip or setuptools
# (or wheel, for a setuptools before 70.1) are missing, and in sanitizer
# builds.
set -euo pipefail
src=${STINT_SOURCE_DIR:?}
build=${STINT_BUILD_DIR:?}
py=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && py=/usr/bin/python3   # the system one (Debian), as test_python.sh
if [ -z "$py" ]; then echo "SKIP: python3 not installed"; exit 77; fi
if grep -q '^STINT_SANITIZE:STRING=.\+' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: sanitizer build (python3 cannot load an instrumented libstint.so)"; exit 77
fi
[ -f "$build/libstint.so" ] || { echo "FAIL: $build/libstint.so not built"; exit 1; }
if ! "$py" -c 'import setuptools' 2>/dev/null; then echo "SKIP: setuptools missing ($py)"; exit 77; fi
# building a wheel needs the wheel package before setuptools 70.1 (which has bdist_wheel itself)
if ! "$py" -c 'import wheel' 2>/dev/null &&
   ! "$py" -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
  echo "SKIP: neither wheel nor a setuptools with bdist_wheel ($py)"; exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1; then
  cat "$tmp/venv.log"; echo "SKIP: python3 -m venv does not work here"; exit 77
fi
vpy=$tmp/venv/bin/python
if ! "$vpy" -m pip --version >/dev/null 2>&1; then echo "SKIP: pip missing in the venv"; exit 77; fi

# the version of the package is the headers' (include/stint/version.h)
hv=$(sed -nE 's/^#define STINT_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+).*/\2/p' "$src/include/stint/version.h" | paste -sd.)
pv=$(sed -nE 's/^version = "(.*)"/\1/p' "$src/python/pyproject.toml")
[ "$hv" = "$pv" ] || { echo "FAIL: python/pyproject.toml says $pv, include/stint/version.h $hv"; exit 1; }

cp -r "$src/python" "$tmp/python"
rm -rf "$tmp/python/build" "$tmp/python"/*.egg-info
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
if ! "$vpy" -m pip install --no-build-isolation --no-index "$tmp/python" >"$tmp/pip.log" 2>&1; then
  cat "$tmp/pip.log"; echo "FAIL: pip install --no-build-isolation --no-index ./python"; exit 1
fi
"$vpy" -m pip show stint | grep -E '^(Name|Version|Requires):'

# outside the checkout, with no PYTHONPATH and no build folder to fall back on:
# the venv's copy is the one imported, and STINT_LIBRARY names the library
cd "$tmp"
unset PYTHONPATH STINT_LIB STINT_BUILD_DIR
export STINT_LIBRARY=$build/libstint.so STINT_MARKERS=$tmp/markers.log
"$vpy" - "$tmp" "$build/libstint.so" <<'PY'
import os, sys
tmp, lib = sys.argv[1], sys.argv[2]
import stint
where = os.path.dirname(os.path.abspath(stint.__file__))
assert where.startswith(os.path.join(tmp, "venv")), "imported from %s, not the venv" % where
assert os.path.samefile(stint.library_path, lib), stint.library_path
with stint.span("python.install.check", n=1):
    stint.attr("ok", True)
stint.flush()
print("imported", where, "library", stint.library_path, "version", stint.version())
PY
grep -q 'python.install.check' "$tmp/markers.log" || { cat "$tmp/markers.log"; echo "FAIL: the span was not recorded"; exit 1; }
echo "PASS: pip install ./python, STINT_LIBRARY, one span recorded"
