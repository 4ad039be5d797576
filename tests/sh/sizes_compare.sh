# SPDX-License-Identifier: MIT
# sizes_compare.sh - sourced by test_sizes_markers.sh and test_sizes_jsonl.sh.
# compare FILE [filter args]: runs `stint sizes FILE --json` with the
# filters, plain and (without filters) gzipped, and appends OUT|FILE|ARGS to
# $T/manifest for the test's model to check at the end (one Python process:
# each start costs ~0.4 s here). Uses $STINT and $T; counts in $checks; a
# failed run sets fail=1.
compare() {
  local f=$1; shift
  checks=$((checks + 1))
  local modes="plain"
  [ $# = 0 ] && modes="plain gz"
  for mode in $modes; do
    local in=$f out=$T/out.$checks.$mode
    [ "$mode" = gz ] && { gzip -c "$f" >"$T/in.gz"; in=$T/in.gz; }
    if ! "$STINT" sizes "$in" --json "$@" >"$out" 2>"$T/err"; then
      echo "FAIL: $(basename "$f") $mode $*: exit $?"; cat "$T/err"; fail=1; continue
    fi
    printf '%s|%s|%s\n' "$out" "$f" "$*" >>"$T/manifest"
  done
}
: >"$T/manifest"
