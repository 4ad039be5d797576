#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix, then builds the two consumer
# projects against that copy (examples/consumers/cmake with find_package,
# examples/consumers/make with pkg-config) and runs them. Checks: the files
# land where they should, libstint.so has a versioned SONAME, both the shared
# and the static consumer run and write the marker they were asked to, and
# the installed CLI reads that log.
set -euo pipefail
src=${STINT_SOURCE_DIR:?}
build=${STINT_BUILD_DIR:?}
cc=${STINT_C_COMPILER:-cc}
if grep -q '^STINT_SANITIZE:STRING=.\+' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: sanitizer build (consumers would need the sanitizer runtime)"; exit 77
fi
for tool in cmake pkg-config make; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=lib; [ -d "$prefix/lib64/cmake" ] && libdir=lib64
for f in include/stint/stint.h include/stint/session.h bin/stint "$libdir/libstint.a" \
         "$libdir/pkgconfig/stint.pc" "$libdir/cmake/stint/stintConfig.cmake" \
         "$libdir/cmake/stint/stintConfigVersion.cmake" "$libdir/cmake/stint/stintTargets.cmake"; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in share/man/man1/stint.1 share/man/man3/libstint.3 share/bash-completion/completions/stint \
         "$libdir/stint/python/stint/__init__.py"; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
ver=$("$prefix/bin/stint" --version | awk '{print $2}')
major=${ver%%.*}
[ -f "$prefix/$libdir/libstint.so.$ver" ] || fail "no libstint.so.$ver"
[ -L "$prefix/$libdir/libstint.so.$major" ] || fail "no libstint.so.$major link"
[ -L "$prefix/$libdir/libstint.so" ] || fail "no libstint.so link"
soname=$(objdump -p "$prefix/$libdir/libstint.so.$ver" | awk '$1=="SONAME"{print $2}')
[ "$soname" = "libstint.so.$major" ] || fail "SONAME is '$soname', want libstint.so.$major"
# The shared library exports the public API and nothing internal.
# (Outputs go through files: `producer | grep -q` under pipefail fails when
# grep exits early and the producer gets SIGPIPE.)
nm -D --defined-only "$prefix/$libdir/libstint.so" > "$tmp/dynsyms"
if awk '{print $3}' "$tmp/dynsyms" | grep '^stint_i_' >/dev/null; then
  fail "libstint.so exports internal stint_i_ symbols"
fi
grep ' T stint_span_begin$' "$tmp/dynsyms" >/dev/null || fail "stint_span_begin not exported"

check_run() { # binary label
  local log=$tmp/$2.log
  rm -f "$log"
  out=$("$1" "$log") || fail "$2 exited $?"
  [ "$out" = "stint $ver acc=45" ] || fail "$2 printed '$out'"
  grep -q 'name=consumer.work' "$log" || fail "$2: no consumer.work marker in $log"
  grep -q 'name=consumer.main' "$log" || fail "$2: no consumer.main marker in $log"
  grep -q 'n=10' "$log" || fail "$2: attribute n=10 missing"
  "$prefix/bin/stint" timing "$log" >"$tmp/$2.timing" || fail "installed stint could not read $2's log"
  grep -q 'consumer.work' "$tmp/$2.timing" || fail "$2: stint timing lost consumer.work"
}

# 1. CMake consumer: find_package(stint) -> stint::stint, stint::stint_static.
cp -r "$src/examples/consumers" "$tmp/consumers"
cmake -S "$tmp/consumers/cmake" -B "$tmp/cbuild" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" >"$tmp/cconf.log" 2>&1 || { cat "$tmp/cconf.log"; fail "consumer cmake configure"; }
cmake --build "$tmp/cbuild" >"$tmp/cbuild.log" 2>&1 || { cat "$tmp/cbuild.log"; fail "consumer cmake build"; }
check_run "$tmp/cbuild/consumer_shared" cmake_shared
check_run "$tmp/cbuild/consumer_static" cmake_static
ldd "$tmp/cbuild/consumer_shared" > "$tmp/ldd_c"
grep "libstint.so.$major => $prefix" "$tmp/ldd_c" >/dev/null || fail "cmake consumer does not load the installed libstint.so"

# 2. Makefile consumer through pkg-config.
PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig make -C "$tmp/consumers/make" CC="$cc" >"$tmp/mbuild.log" 2>&1 \
  || { cat "$tmp/mbuild.log"; fail "consumer make build"; }
check_run "$tmp/consumers/make/consumer_shared" make_shared
check_run "$tmp/consumers/make/consumer_static" make_static
ldd "$tmp/consumers/make/consumer_shared" > "$tmp/ldd_m"
grep "libstint.so.$major => $prefix" "$tmp/ldd_m" >/dev/null || fail "make consumer does not load the installed libstint.so"
nm "$tmp/consumers/make/consumer_static" > "$tmp/static_syms"
if grep ' U stint_span_begin' "$tmp/static_syms" >/dev/null; then fail "static consumer is not static"; fi
# 3. The installed Python binding finds the installed library by itself.
if command -v python3 >/dev/null; then
  got=$(cd "$tmp" && env -u STINT_LIB -u STINT_BUILD_DIR PYTHONPATH="$prefix/$libdir/stint/python" \
        python3 -c 'import stint; print(stint.library_path, stint.version())') || fail "installed python binding"
  case "$got" in "$prefix/$libdir/libstint.so"*" $ver") ;; *) fail "installed python binding loaded '$got'" ;; esac
fi
echo "ok: installed into a temp prefix; cmake and pkg-config consumers (shared and static) ran"
