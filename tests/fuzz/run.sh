#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run.sh BUILD_DIR SECONDS - runs every fuzz target of BUILD_DIR/fuzz for
# SECONDS each (one after the other), on a corpus kept in BUILD_DIR/fuzz-corpus
# (seeded by seeds.sh, grown by each run), with the target's dictionary.
# Stored regression inputs (tests/fuzz/regress/<target>/) are replayed first.
# A crash leaves its input in BUILD_DIR/fuzz-crashes/<target>/ and makes the
# script fail: copy that file into tests/fuzz/regress/<target>/ with the fix.
# FUZZ_TARGETS="fuzz_json fuzz_chrome" restricts the set; FUZZ_JOBS runs that
# many targets at once; FUZZ_SEED=N fixes libFuzzer's random seed (CI does, so
# that a commit's short fuzzing explores the same way on every run). Prints "exec count" lines for docs/reliability.md.
set -uo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS}
secs=${2:?usage: run.sh BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
targets=${FUZZ_TARGETS:-$(cd "$build/fuzz" && ls fuzz_* 2>/dev/null)}
[ -n "$targets" ] || { echo "run.sh: no fuzz targets in $build/fuzz (configure with CC=clang -DSTINT_FUZZ=ON)" >&2; exit 2; }
corpus=$build/fuzz-corpus
if [ ! -d "$corpus" ]; then
  bash "$here/seeds.sh" "$corpus/seed" || exit 2
fi
# a small quarantine: big per-run buffers otherwise cost a fresh mmap and page faults each run
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=16}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fail=0

run_one() {
  local t=$1 name=${1#fuzz_}; name=${name%_gz}; name=${name%_split}; name=${name%_args}
  local bin=$build/fuzz/$t live=$corpus/live/$t crashes=$build/fuzz-crashes/$t
  mkdir -p "$live" "$crashes"
  local dict=()
  [ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
  # 1. regression inputs: every stored file must run clean
  if [ -d "$here/regress/$t" ] && [ -n "$(ls -A "$here/regress/$t" 2>/dev/null)" ]; then
    if ! "$bin" -rss_limit_mb=4096 -timeout=30 -artifact_prefix="$crashes/" "$here/regress/$t"/* >"$build/fuzz-$t.regress.log" 2>&1; then
      echo "FAIL $t: a stored regression input fails (see $build/fuzz-$t.regress.log)"
      return 1
    fi
  fi
  # 2. fuzz: the live corpus grows across runs; seeds are read, never written
  # -close_fd_mask=2: the readers' own messages are noise here; libFuzzer and
  # the sanitizers keep a duplicate of stderr for their reports
  local seed=()
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  "$bin" "${dict[@]}" "${seed[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=2 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$live" "$corpus/seed/$t" \
    >"$build/fuzz-$t.log" 2>&1
  local rc=$?
  local execs
  execs=$(grep -E '^stat::number_of_executed_units' "$build/fuzz-$t.log" | awk '{print $2}' | tail -1)
  echo "exec count: $t ${execs:-?} executions in ${secs}s, rc=$rc"
  if [ $rc -ne 0 ]; then
    echo "FAIL $t: crash or leak; input kept in $crashes/ (log: $build/fuzz-$t.log)"
    grep -E 'ERROR|SUMMARY|runtime error' "$build/fuzz-$t.log" | head -5
    return 1
  fi
}

jobs=${FUZZ_JOBS:-1}
pids=()
for t in $targets; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || fail=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
exit $fail
