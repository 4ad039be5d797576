#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI manual: the committed outputs of scripts/gen_manual.py (help_text.c,
# docs/man/stint.1, docs/man/libstint.3, scripts/stint-completion.bash) match
# docs/cli/manual.txt; every command of the dispatcher has a manual with its
# exit codes and an example; every option a built command accepts in its own
# --help is in its manual; the man pages render without groff warnings; the
# libstint(3) example compiles.
set -euo pipefail
src=${STINT_SOURCE_DIR:?}
stint=${STINT_BIN:?}
cc=${STINT_C_COMPILER:-cc}
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 1. Generated files are up to date (needs python3; the rest does not).
if command -v python3 >/dev/null; then
  python3 "$src/scripts/gen_manual.py" --root "$src" --check || fail "generated manual outputs are stale: run python3 scripts/gen_manual.py"
else
  echo "note: python3 absent, not regenerating the manual (the other checks still run)"
fi

# 2. Every command in the dispatcher's table has a full manual.
cmds=$(grep -o '{"[a-z]*", stint_cmd_' "$src/tools/stint/cmd/main.c" | sed 's/{"\([a-z]*\)".*/\1/')
[ -n "$cmds" ] || fail "found no commands in tools/stint/cmd/main.c"
for c in $cmds help; do
  out=$("$stint" help "$c") || { fail "stint help $c exited $?"; continue; }
  printf '%s\n' "$out" > "$tmp/help_$c"
  head -1 "$tmp/help_$c" | grep -q "^stint $c - " || fail "stint help $c: no title line"
  grep -q '^usage:' "$tmp/help_$c" || fail "stint help $c: no usage"
  grep -q '^exit status:' "$tmp/help_$c" || fail "stint help $c: no exit status"
  grep -q '^  0  ' "$tmp/help_$c" || fail "stint help $c: exit code 0 undocumented"
  grep -q '^  2  ' "$tmp/help_$c" || fail "stint help $c: exit code 2 undocumented"
  [ "$(grep -c '^example:' "$tmp/help_$c")" -ge 1 ] || fail "stint help $c: no example"
  grep -q '^  \$ stint\|^  \$ .*stint ' "$tmp/help_$c" || fail "stint help $c: the example runs no stint command"
  if [ "$c" != help ]; then
    grep -q '^options:' "$tmp/help_$c" || fail "stint help $c: no options"
    grep -q "stint $c\\b" <(man -l "$src/docs/man/stint.1" 2>/dev/null || cat "$src/docs/man/stint.1") \
      || fail "stint.1 lacks stint $c"
  fi
done

# 3. Every option a built command takes (its own --help) is in its manual.
built=$("$stint" --help | awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1}')
for c in $built; do
  "$stint" "$c" --help > "$tmp/usage_$c" 2>&1 || true
  for opt in $(grep -oE '(^|[^a-z-])--?[a-z][a-z-]*' "$tmp/usage_$c" | grep -oE -- '--?[a-z][a-z-]*' | sort -u); do
    case "$opt" in -h|--help) continue ;; esac
    grep -qE -- "(^|[^a-z-])${opt}([^a-z-]|$)" "$tmp/help_$c" || fail "stint $c accepts $opt but stint help $c does not document it"
  done
done

# 4. Unknown commands are a usage error; help text goes to stdout.
if "$stint" help no-such-command >/dev/null 2>"$tmp/err"; then fail "stint help no-such-command exited 0"; else
  rc=$?; [ $rc -eq 2 ] || fail "stint help no-such-command exited $rc, want 2"; fi
grep -q "no manual for 'no-such-command'" "$tmp/err" || fail "no message for an unknown command"

# 5. Man pages render cleanly.
if command -v groff >/dev/null; then
  for page in stint.1 libstint.3; do
    warn=$(groff -man -ww -z -Tutf8 "$src/docs/man/$page" 2>&1) || fail "groff failed on $page"
    [ -z "$warn" ] || fail "groff warnings on $page: $warn"
  done
else
  echo "note: groff absent, man pages not rendered"
fi

# 6. The libstint(3) example compiles against the public headers.
sed -n '/^@page libstint/,$p' "$src/docs/cli/manual.txt" | sed -n 's/^ |//p' > "$tmp/example.c"
[ -s "$tmp/example.c" ] || fail "libstint(3) has no code example"
"$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$src/include" "$tmp/example.c" || fail "the libstint(3) example does not compile"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: manual up to date; $(echo $cmds | wc -w) commands documented; man pages render"
