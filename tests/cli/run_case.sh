#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs one golden CLI case. A case is a folder holding:
#   cmd              bash commands (run with pipefail: a failing stint before a pipe fails the
#                    case unless the case echoes its code); $STINT is the CLI, $CORPUS is ../shared/corpus,
#                    $CASE is the case folder, $TMP a fresh scratch folder
#   expected.stdout  stdout, byte for byte (optional)
#   expected.stderr  stderr, byte for byte (optional)
#   expected.rc      the exit code (optional, default 0)
#   needs_corpus     present: skip (exit 77) with a message when the corpus is absent
set -u
CASE=${1:?usage: run_case.sh CASE_FOLDER}
if [ ! -f "$CASE/cmd" ]; then
  echo "no case at $CASE (no cmd file)" >&2
  exit 2
fi
export STINT=${STINT_BIN:?STINT_BIN not set}
export CORPUS=${STINT_SHARED_DIR:-}/corpus
export CASE
if [ -e "$CASE/needs_corpus" ] && [ ! -d "$CORPUS" ]; then
  echo "SKIP: $CORPUS is absent; case $(basename "$CASE") needs the shared corpus"
  exit 77
fi
TMP=$(mktemp -d); export TMP
trap 'rm -rf "$TMP"' EXIT
bash -o pipefail -c "$(cat "$CASE/cmd")" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
want_rc=0; [ -e "$CASE/expected.rc" ] && want_rc=$(cat "$CASE/expected.rc")
fail=0
if [ "$rc" != "$want_rc" ]; then echo "exit code $rc, expected $want_rc"; fail=1; fi
for s in stdout stderr; do
  if [ -e "$CASE/expected.$s" ] && ! cmp -s "$CASE/expected.$s" "$TMP/$s"; then
    echo "--- $s differs:"; diff -u "$CASE/expected.$s" "$TMP/$s" | head -60; fail=1
  fi
done
if [ $fail -ne 0 ]; then echo "--- stderr was:"; head -40 "$TMP/stderr"; fi
exit $fail
