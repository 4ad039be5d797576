#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stint sql's interactive prompt, on a pseudo-terminal (util-linux script): a statement over
# several lines runs at its ';', dot commands answer, a bad statement prints SQLite's message
# and the prompt goes on, .quit leaves with exit 0. Skips (77) without script(1).
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
SRC=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) is not installed"; exit 77; }
"$STINT" sql --help >/dev/null 2>&1 || { echo "SKIP: stint sql is not in this build (no SQLite)"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf '.tables\nSELECT name, sum(dur)\n  FROM slice WHERE depth = 1\n  GROUP BY name;\nSELEC 1;\nSELECT count(*) AS n FROM span;\n.quit\n' |
  TERM=dumb script -qec "$STINT sql $SRC/tests/cli/sql_every_format/input.json" /dev/null > "$T/out" 2>&1
rc=$?
tr -d '\r' < "$T/out" > "$T/clean"
fail=0
check() { grep -qE -- "$1" "$T/clean" || { echo "FAIL: no line matching '$1'"; fail=1; }; }
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
check '^stint sql: SQLite [0-9.]+; \.help for help'
check '^span +view$'
check '^slice +table$'
check '^inner +40000$'
check 'stint sql: near "SELEC": syntax error'
check '^ *3$'
[ $fail -eq 0 ] && echo "ok: the prompt ran a multi-line statement, dot commands, an error and went on"
[ $fail -eq 0 ] || { echo "--- output:"; cat "$T/clean"; }
exit $fail
