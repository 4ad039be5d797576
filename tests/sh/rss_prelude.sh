# SPDX-License-Identifier: MIT
# rss_prelude.sh NAME - sourced by the tests that measure stint's peak RSS
# (`. "$(dirname "$0")/rss_prelude.sh" NAME`): sets src (the source tree),
# stint (the CLI) and tmp (a scratch folder, removed at exit), and skips the
# test (exit 77, saying why) in a sanitizer build, whose shadow memory is no
# RSS of stint's, or where /usr/bin/time is missing.
set -euo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
stint=$(realpath "${STINT_BIN:-$src/build/stint}")
if [ -n "${STINT_BUILD_DIR:-}" ] && grep -q '^STINT_SANITIZE:STRING=.' "$STINT_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: sanitizer build (peak RSS is the sanitizer's, not stint's)"
  exit 77
fi
if [ ! -x /usr/bin/time ]; then
  echo "SKIP: /usr/bin/time is needed to measure peak RSS"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stint-$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
