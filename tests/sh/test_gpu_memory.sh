#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint gpu` stays within `summary`'s memory (docs/cli/gpu.md, docs/performance.md): on
# generated Kineto-style traces of two sizes (bench/gen_kineto.py: devices, streams,
# correlations, ac2g flows), the slope of gpu's peak RSS per span must not pass summary's
# on the same files. gpu counts the flow events without keeping them (it links kernels to
# their launches by args.correlation): when it kept them as summary does, its slope was
# summary's plus its own lists (~1.3x) and this test failed. Also: gpu says on stderr how
# many flow events it read and did not bind, and its figures are those of the whole
# model's read (the same JSON with STINT_THREADS=1).
. "$(dirname "$0")/rss_prelude.sh" gpumem
gen=$src/bench/gen_kineto.py
peak_kb() { # peak_kb CMD FILE: peak RSS in KiB
  /usr/bin/time -f '%M' -o "$tmp/rss" "$stint" "$1" --json "$2" >"$tmp/$1.out" 2>"$tmp/$1.err" ||
    { echo "$1 $2 failed:"; cat "$tmp/$1.err"; exit 1; }
  tail -1 "$tmp/rss"
}
python3 "$gen" "$tmp/a" --devices 2 --ops 12 --seed 1 --bytes 40000000
python3 "$gen" "$tmp/b" --devices 2 --ops 12 --seed 1 --bytes 120000000
a=$tmp/a.rank0.json b=$tmp/b.rank0.json
spans() { "$stint" summary --json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["spans"])'; }
na=$(spans "$a") nb=$(spans "$b")
ga=$(peak_kb gpu "$a") gb=$(peak_kb gpu "$b")
sa=$(peak_kb summary "$a") sb=$(peak_kb summary "$b")
read -r g s < <(awk -v ga="$ga" -v gb="$gb" -v sa="$sa" -v sb="$sb" -v na="$na" -v nb="$nb" \
  'BEGIN { d = nb - na; printf "%.1f %.1f\n", (gb - ga) * 1024 / d, (sb - sa) * 1024 / d }')
echo "gpu: $na -> $nb spans: $ga -> $gb KiB, $g B per span; summary: $sa -> $sb KiB, $s B per span"
if awk -v g="$g" -v s="$s" 'BEGIN { exit !(g > s) }'; then
  echo "FAIL: gpu grows $g B a span, more than summary's $s"; exit 1
fi
grep -q "flow event(s) read, not bound into arrows" "$tmp/gpu.err" ||
  { echo "FAIL: gpu did not say that it left the flow events unbound:"; cat "$tmp/gpu.err"; exit 1; }
STINT_THREADS=1 "$stint" gpu --json "$b" > "$tmp/one.json" 2>/dev/null
cmp -s "$tmp/one.json" "$tmp/gpu.out" || { echo "FAIL: gpu --json differs between one thread and two"; exit 1; }
echo "gpu memory: $g B a span, within summary's $s"
