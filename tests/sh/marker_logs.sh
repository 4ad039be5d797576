# SPDX-License-Identifier: MIT
# Sourced by tests: each_marker_log DIR CMD [ARGS...] runs `CMD FILE ARGS...`
# for each marker log under DIR (a *.log file with a "[STRACE] v=1" line), in
# name order, and sets marker_logs_seen to how many there were.
each_marker_log() {
  local dir=$1 f
  shift
  marker_logs_seen=0
  while IFS= read -r f; do
    "$1" "$f" "${@:2}"
    marker_logs_seen=$((marker_logs_seen + 1))
  done < <(grep -rlI --include='*.log' '\[STRACE\] v=1' "$dir" | sort)
}
