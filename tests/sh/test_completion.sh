#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bash completion (scripts/stint-completion.bash, generated from the manual):
# commands, per-command options, option values and `stint help <command>`;
# and every option a built command accepts (its --help) is offered.
set -uo pipefail
src=${STINT_SOURCE_DIR:?}
stint=${STINT_BIN:?}
# shellcheck source=/dev/null
source "$src/scripts/stint-completion.bash" || { echo "FAIL: cannot source the completion script"; exit 1; }
[[ $(complete -p stint) == *'-F _stint'* ]] || { echo "FAIL: completion not registered"; exit 1; }
fails=0

# complete WORD... : sets COMPREPLY for the last word
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _stint; }
expect() { # description, wanted words (space separated), then the command line
  local what=$1 want=$2; shift 2
  comp "$@"
  local got=" ${COMPREPLY[*]} "
  for w in $want; do
    case "$got" in *" $w "*) ;; *) echo "FAIL: $what: '$w' not offered for '$*' (got:$got)"; fails=$((fails + 1)) ;; esac
  done
}
reject() { # description, unwanted word, command line
  local what=$1 bad=$2; shift 2
  comp "$@"
  case " ${COMPREPLY[*]} " in *" $bad "*) echo "FAIL: $what: '$bad' offered for '$*'"; fails=$((fails + 1)) ;; esac
}

expect "commands" "timing tree" stint t
expect "command list" "slices summary diff convert report help --version" stint ''
reject "prefix filter" "slices" stint t
expect "help topics" "diff" stint help di
expect "options" "--tree --tree=names --tree=depth --trace-out" stint timing --tr
expect "filters" "--pid --tid --time-range --min-dur" stint slices --
expect "format values" "chrome jsonl markers" stint slices x.json --format ''
expect "convert targets" "otlp-json" stint convert in.json -o out --to o
expect "tree sort" "total self calls" stint tree t.json --sort ''
expect "diff gate" "--fail-on-regression" stint diff a b --f
expect "diff threshold" "--threshold" stint diff a b --t
comp stint diff a b --pid ''
[ ${#COMPREPLY[@]} -eq 0 ] || { echo "FAIL: a number argument got completions: ${COMPREPLY[*]}"; fails=$((fails + 1)); }
tmpd=$(mktemp -d); trap 'rm -rf "$tmpd"' EXIT
touch "$tmpd/trace_one.json"
expect "file names" "$tmpd/trace_one.json" stint slices "$tmpd/trace_o"
expect "output file" "$tmpd/trace_one.json" stint convert in -o "$tmpd/trace_"

# Every option of a built command is offered.
built=$("$stint" --help | awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1}')
for c in $built; do
  comp stint "$c" -
  offered=" ${COMPREPLY[*]} "
  for opt in $("$stint" "$c" --help 2>&1 | grep -oE '(^|[^a-z-])--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*' | sort -u); do
    case "$offered" in *" $opt "*) ;; *) echo "FAIL: stint $c accepts $opt but completion does not offer it"; fails=$((fails + 1)) ;; esac
  done
done
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: completion of commands, options, values and files"
