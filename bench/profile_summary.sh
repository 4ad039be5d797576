#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where `stint summary` spends its time, sampled rather than counted: perf
# record on the cpu-clock software event (a timer, so it works where the
# machine has no hardware counters, as here), then the samples' shares by
# function and by stage. callgrind counts instructions, which here are not
# time: the model side waits on memory, the tokenizer does not.
#   bench/profile_summary.sh [BUILD_DIR] [FILE]
#   THREADS=N   STINT_THREADS for the profiled run (default 1: one core's work)
#   HZ=N        samples per second (default 10000)
#   TOP=N       functions listed (default 25)
# Without FILE a 100 MB trace is generated (../shared/tools/gen_chrome.py,
# seed 1, as bench_summary.sh does) and deleted afterwards. Needs perf
# (Debian: linux-perf) and python3; says SKIP and exits 0 without them.
# Run it on an idle machine: samples of a shared core measure the neighbour.
set -euo pipefail
build=${1:-build}
file=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
STINT=$build/stint
[ -x "$STINT" ] || { echo "profile_summary: $STINT not built"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "profile_summary: SKIP: perf is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/stint-prof.XXXXXX"); trap 'rm -rf "$work"' EXIT
if [ -z "$file" ]; then
  GEN=${STINT_SHARED_DIR:-$here/../../shared}/tools/gen_chrome.py
  [ -f "$GEN" ] || { echo "profile_summary: SKIP: no FILE and $GEN is absent"; exit 0; }
  file=$work/chrome_100M.json
  python3 "$GEN" --size 100M --seed 1 -o "$file" 2>/dev/null
fi
threads=${THREADS:-1}
if ! STINT_THREADS=$threads perf record -q -e cpu-clock -F "${HZ:-10000}" -o "$work/perf.data" \
    "$STINT" summary --json "$file" >/dev/null 2>"$work/err"; then
  echo "profile_summary: SKIP: perf record failed:"; tail -3 "$work/err"; exit 0
fi
perf report -i "$work/perf.data" --no-children --sort sym --stdio 2>/dev/null >"$work/report"
python3 - "$work/report" "${TOP:-25}" "$file" "$threads" <<'EOF'
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r'\s*([0-9.]+)%\s+\[(.)\]\s+(\S+)', line)
    if m:
        rows.append((float(m.group(1)), m.group(2) == 'k', m.group(3)))
# Stages by function name (inlined helpers count in their caller). The
# patterns are this build's function names: check them after a refactor.
stages = [
    ('inflate (ISA-L or zlib: .gz input)', r'^(decode_huffman.*|crc32_.*|isal_.*|inflate.*|adler32.*|read_header.*)$'),
    ('tokenizer (event keys and values, args skipped and validated)',
     r'^(parse_event|block_skip|fast_skip.*|stint_json_.*|scan_.*|stint_scan_.*|stint_parse_ts|read_id2|'
     r'find_hints|find_args_key|pipe_main)$'),
    ('model while reading (names, lanes, lean records, flows)',
     r'^(step|add_event|intern_.*|stint_model_(intern|add_slice|begin|end|flow|counter|str|lane_at|track_.*|synthetic_.*)|'
     r'stint_i_lean_(add|note)|pair_of|lane_fill|stint_umap_.*|handle_.*|walk_.*|__memcmp.*)$'),
    ('finish walk, tally, quantiles, output',
     r'^(stint_model_finish|stint_i_lean_track|on_slice|.*near_sort.*|cat_run_flush.*|stint_select_.*|'
     r'stint_intervals_.*|.*merge.*|cmd_summary.*|stint_text.*|__vfprintf.*|summary_join|dur_append|walk_tracks.*|tail_.*)$'),
]
kernel = [('kernel: read() copy and page cache', r'(copy_to_iter|filemap|page_cache|folio|xas_|readahead)'),
          ('kernel: page faults', r'(page_fault|clear_page|anonymous_page|handle_mm|alloc_.*pages|lruvec|memcg|vma)')]
tot = {}
for pct, k, name in rows:
    what = None
    for label, pat in (kernel if k else stages):
        if re.search(pat, name):
            what = label
            break
    what = what or ('kernel: other' if k else 'other user code (libc, allocator, ...)')
    tot[what] = tot.get(what, 0) + pct
print(f"stint summary --json {sys.argv[3]} (STINT_THREADS={sys.argv[4]}), cpu-clock samples:")
print("\nby stage:")
for what, pct in sorted(tot.items(), key=lambda x: -x[1]):
    print(f"  {pct:6.2f}%  {what}")
print(f"\ntop {sys.argv[2]} functions:")
for pct, k, name in rows[:int(sys.argv[2])]:
    print(f"  {pct:6.2f}%  {'[k] ' if k else ''}{name}")
EOF
