#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# seeds.sh OUT_DIR - builds the seed corpora of every fuzz target under
# OUT_DIR/<target>/ from ../shared/corpus (read in place, copied only into the
# build tree, never into the repository), the project's own test data and the
# small hand-written seeds in tests/fuzz/seeds/. Files over 256 KiB are left
# out (libFuzzer's -max_len follows the largest seed).
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
corpus=${STINT_SHARED_DIR:-$src/../shared}/corpus
mkdir -p "$out"
for t in chrome chrome_args chrome_gz chrome_split jsonl json markers tsparse term top capture; do mkdir -p "$out/fuzz_$t"; done
# fuzz_top's seeds open with a byte: its low two bits pick the format (0 found, 1 markers,
# 2 JSONL, 3 Chrome), the rest how many lines each hand-over carries
# the terminal escaper: a title-setting name, C1 and bidi controls, CJK, a cut UTF-8 sequence
printf "\x20a\x1b]0;t\x07\xc2\x9b\xe2\x80\xae\xe6\x97\xa5\xe6" > "$out/fuzz_term/s0"

n=0
add() { # add TARGET FILE [PREFIX_BYTES_AS_PRINTF]
  local t=$1 f=$2 pre=${3:-}
  [ -f "$f" ] || return 0
  [ "$(stat -c %s "$f")" -le 262144 ] || return 0
  n=$((n + 1))
  if [ -n "$pre" ]; then
    { printf "$pre"; cat "$f"; } > "$out/fuzz_$t/s$n"
  else
    cp "$f" "$out/fuzz_$t/s$n"
  fi
}

# our own seeds, by target
for d in "$here"/seeds/*/; do
  [ -d "$d" ] || continue
  t=$(basename "$d")
  for f in "$d"*; do add "$t" "$f"; done
done

if [ -d "$corpus" ]; then
  while IFS= read -r -d '' f; do
    add json "$f"
    add chrome "$f"
    add chrome_args "$f"
  done < <(find "$corpus/json-test-suite" -name '*.json' -print0 2>/dev/null)
  while IFS= read -r -d '' f; do
    add chrome "$f"
    add chrome_gz "$f" '\000\000'
    add chrome_split "$f"
  done < <(find "$corpus/perfetto-json" "$corpus/speedscope" "$corpus/catapult" "$corpus/spec-examples" \
             "$corpus/seed-systems" -name '*.json' -print0 2>/dev/null)
  # the seed systems' traces again with mode bits 3-7: every command of fuzz_chrome_gz runs on them
  while IFS= read -r -d '' f; do
    add chrome_gz "$f" '\370\000'
    add top "$f" '\013'
  done < <(find "$corpus/seed-systems" -name '*.json' -print0 2>/dev/null)
  while IFS= read -r -d '' f; do
    add jsonl "$f"
    add chrome_gz "$f" '\004\000'
    add top "$f" '\006'
  done < <(find "$corpus/seed-systems" -name '*.jsonl' -print0 2>/dev/null)
  while IFS= read -r -d '' f; do
    add markers "$f" '\007\377'
    add chrome_gz "$f" '\002\000'
    add top "$f" '\005'
    add top "$f" '\000'
  done < <(grep -rlZ --include='*.log' --include='*.txt' '\[STRACE\]' "$corpus/seed-systems" 2>/dev/null)
  # numbers of the JSON test suite, as bare text, for the number parser
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    tr -d '[] \n' < "$f" > "$out/fuzz_tsparse/s$n"
  done < <(find "$corpus/json-test-suite" -name '*_number*.json' -print0 2>/dev/null)
fi
# the project's own data: CLI golden cases and any test inputs
while IFS= read -r -d '' f; do
  case "$f" in
    *.json) add chrome "$f"; add chrome_split "$f" ;;
    *.jsonl) add jsonl "$f" ;;
    *.log) add markers "$f" '\003\125' ;;
  esac
done < <(find "$src/tests/cli" "$src/tests/data" -type f -not -path '*/bad/*' -print0 2>/dev/null)
# binary captures, written from the documented layout by the golden case's generator: whole,
# cut in its second block and after a block head; mode byte: as they are, bit 1 rewrites the
# sums, bit 7 also runs the commands
gen=$src/tests/cli/capture_summary/gen.py
if command -v python3 >/dev/null && [ -f "$gen" ]; then
  tmpc=$(mktemp -d)
  python3 "$gen" "$tmpc/whole.stint" && python3 "$gen" "$tmpc/cut.stint" --cut 64 && python3 "$gen" "$tmpc/head.stint" --cut 0
  for f in "$tmpc"/*.stint; do add capture "$f" '\000'; add capture "$f" '\002'; add capture "$f" '\202'; done
  rm -rf "$tmpc"
fi
for t in "$out"/*/; do
  echo "seeds: $(basename "$t"): $(ls "$t" | wc -l) files"
done
