#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what building and testing stint needs on Debian 12, calling apt-get
# only for packages that are missing. Usage: scripts/deps.sh [build|test|full]
#   build: compiler, cmake, zlib, ISA-L, SQLite, ncurses, libedit (what `make` and `make demo` need)
#   test:  build + clang (fuzzers, sanitizers), python3, node/npm, chromium, locales (de_DE for
#          test_sink_text's comma-decimal case), sqlite3 (the load-rate floor), tmux (the live
#          view's test), clickhouse-server (the fleet round trip of `stint sql`)
set -euo pipefail
level=${1:-build}
pkgs=(build-essential cmake zlib1g-dev libisal-dev pkg-config libsqlite3-dev libncurses-dev libedit-dev)
if [ "$level" != build ]; then
  pkgs+=(clang libclang-rt-14-dev python3 nodejs npm chromium valgrind binutils locales sqlite3 tmux
         clickhouse-server)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node may come from outside Debian (a preinstalled toolchain); accept it when present.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  keep=(); for p in "${missing[@]}"; do [ "$p" = nodejs ] || [ "$p" = npm ] || keep+=("$p"); done
  missing=("${keep[@]+"${keep[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
