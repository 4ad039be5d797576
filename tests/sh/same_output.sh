# SPDX-License-Identifier: MIT
# same_output.sh - sourced by shell tests that compare two ways of running
# stint: ref_run runs a command once as the reference (stdout, stderr and
# exit code kept in $SAME_DIR), same_as_ref runs another and prints an "ok"
# or "FAIL" line naming WHAT (on a difference: the first lines of the stderr
# diff, and fail=1 in the caller).
#   SAME_DIR=$T; ref_run CMD...; same_as_ref WHAT CMD...

ref_run() {
  "$@" > "$SAME_DIR/ref" 2> "$SAME_DIR/ref.err"
  ref_rc=$?
}

same_as_ref() {
  local what=$1 r
  shift
  "$@" > "$SAME_DIR/out" 2> "$SAME_DIR/out.err"
  r=$?
  if [ "$r" = "$ref_rc" ] && cmp -s "$SAME_DIR/ref" "$SAME_DIR/out" && cmp -s "$SAME_DIR/ref.err" "$SAME_DIR/out.err"; then
    echo "ok   $what (rc $r)"
  else
    echo "FAIL $what (rc $ref_rc vs $r)"
    diff "$SAME_DIR/ref.err" "$SAME_DIR/out.err" | head -5
    fail=1
  fi
}
