#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint sizes --json` on JSONL sessions against an independent model written
# here with Python's own JSON decoder (each record's members found by
# raw_decode, as sizes_oracle.py finds a Chrome event's): the demo's session,
# the sessions among the CLI tests, and an adversarial session made here
# (escaped keys and values, a byte order mark, CRLF, blank lines, blanks
# around records, records before the meta line, names that are no strings,
# op_name, a torn last line, span_end records named by their open span,
# with ids written with escapes, or naming themselves); plain and gzipped,
# with and without each filter; and a session with invalid JSON on a line
# (exit 1, partial).
set -euo pipefail
STINT=${STINT_BIN:?}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-sizes-jsonl.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0 checks=0

python3 - "$T" <<'PY'
import json, random, sys
out = sys.argv[1]
r = random.Random(7)
lines = ['{"kind":"span_start","id":"s0","name":"early","start_ns":5,"tid":3}']  # before meta: pid 0
lines.append(json.dumps({"kind": "meta", "schema": "stint/session/1", "pid": 42, "tags": {"a": "b"}}))
t = 100
for i in range(300):
    t += r.randint(0, 900)
    k = r.random()
    if k < 0.35:
        rec = {"kind": "span_start", "id": "s%d" % i, "name": r.choice(["fwd", "bwd", "naïve ✓", "a\"b"]),
               "start_ns": t, "span_kind": r.choice(["function", "op", "module"]), "tid": r.choice([3, 4])}
    elif k < 0.6:
        rec = {"kind": "span_end", "id": "s%d" % r.randint(max(0, i - 12), i), "duration_ns": r.randint(1, 9999)}
        if r.random() < 0.1:  # one that names itself keeps its own (the span still ends)
            rec["span_kind"] = "own"
        if r.random() < 0.05:  # an id spelled with an escape is the same id
            rec["id"] = "\u0073" + rec["id"][1:]
    elif k < 0.75:
        rec = {"kind": "op", "span_id": "s1", "op_name": r.choice(["matmul", "add"]), "inputs": ["x", "w"],
               "shape": [r.randint(1, 64), 8], "dtype": "float32", "duration_ns": 7, "timestamp_ns": t}
    elif k < 0.85:
        rec = {"kind": "counter", "timestamp_ns": t, "name": "loss", "value": r.random(), "unit": "", "tid": 4}
    elif k < 0.9:
        rec = {"kind": "memory", "timestamp_ns": str(t), "name": 12, "op_name": "alloc", "bytes": 64}
    else:
        rec = {"kind": "gradient", "event_id": "gradient-%d" % i, "state": "present", "norm": None}
    text = json.dumps(rec, ensure_ascii=r.random() < 0.5, separators=(",", ":") if r.random() < 0.6 else (", ", ": "))
    if r.random() < 0.1:
        text = text.replace('"kind"', '"\\u006bind"', 1)
    if r.random() < 0.1:
        text = " \t" + text + "  "
    lines.append(text)
    if r.random() < 0.05:
        lines.append("")
body = "".join(l + ("\r\n" if i % 3 == 0 else "\n") for i, l in enumerate(lines))
open(f"{out}/adv.jsonl", "w", encoding="utf-8").write("\ufeff" + body + '{"kind":"span_end","id":"s1","dur')
open(f"{out}/bad.jsonl", "w", encoding="utf-8").write(lines[1] + "\n" + lines[2] + "\n{\"kind\": tru}\n" + lines[3] + "\n")
PY

DEMO=$(dirname "$STINT")/examples/demo # (the demo built beside the stint under test)
# shellcheck source=sizes_compare.sh
. "$HERE/sizes_compare.sh"

inputs=("$T/adv.jsonl" "$HERE/cross_thread_session.jsonl")
if [ -x "$DEMO" ]; then
  mkdir -p "$T/demo" && "$DEMO" "$T/demo" >/dev/null
  inputs+=("$T/demo/session.jsonl")
else
  echo "SKIP (the demo's session): $DEMO is not built"
fi
for f in "$ROOT"/tests/cli/*/input.jsonl; do inputs+=("$f"); done
for f in "${inputs[@]}"; do compare "$f"; done
for args in "--pid 42" "--pid 0" "--tid 4" "--name f*" "--cat function" "--time-range 5000:60000" \
            "--tid 3 --time-range :30000"; do
  # shellcheck disable=SC2086 # args holds several options
  compare "$T/adv.jsonl" $args
done

if ! python3 - "$HERE" "$T/manifest" <<'PY'
import fnmatch, gzip, json, sys
sys.path.insert(0, sys.argv[1])
from sizes_oracle import members, nbytes

def first(pairs):  # the first of duplicate keys, as the reader's lookup takes it
    d = {}
    for k, v in pairs:
        d.setdefault(k, v)
    return d

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)

def model(path, flt):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    rows = {"phases": {}, "names": {}, "event_keys": {}}
    tot = dict(events=0, event_bytes=0, filtered_events=0, filtered_bytes=0, text_bytes=len(raw))
    pid = 0
    opened = {}  # span id -> (cat, name) of the spans begun and not ended
    lines = text.split("\n")
    for ln in lines[:-1]:  # the last piece has no '\n': torn (or empty)
        s = ln.lstrip("\ufeff").rstrip("\r").strip(" \t")
        if not s:
            continue
        rec = json.loads(s, object_pairs_hook=first)
        mem, end = members(s, 0)
        nb = nbytes(s, 0, end)
        kind = rec.get("kind") if isinstance(rec.get("kind"), str) else ""
        if kind == "meta" and is_int(rec.get("pid")):
            pid = rec["pid"]
        name = rec.get("name") if isinstance(rec.get("name"), str) else \
            rec.get("op_name") if isinstance(rec.get("op_name"), str) else ""
        cat = rec.get("span_kind") if isinstance(rec.get("span_kind"), str) else ""
        rid = rec.get("id")
        if kind == "span_start" and isinstance(rid, str):
            opened[rid] = (cat, name)
        elif kind == "span_end" and isinstance(rid, str) and rid in opened:
            own = any(isinstance(rec.get(k), str) for k in ("name", "op_name", "span_kind"))
            c0, n0 = opened.pop(rid)
            if not own:  # a span_end that names nothing of its own: its span's
                cat, name = c0, n0
        t = rec.get("start_ns") if "start_ns" in rec else rec.get("timestamp_ns")
        ok = True
        a = flt.split()
        for i in range(0, len(a), 2):
            k, v = a[i], a[i + 1]
            if k == "--pid" and pid != int(v): ok = False
            if k == "--tid" and not (is_int(rec.get("tid")) and rec["tid"] == int(v)): ok = False
            if k == "--name" and not fnmatch.fnmatchcase(name, v): ok = False
            if k == "--cat" and cat != v: ok = False
            if k == "--time-range":
                t0, t1 = v.split(":")
                t0 = int(t0) if t0 else -(1 << 63)
                t1 = int(t1) if t1 else (1 << 63) - 1
                if not (is_int(t) and t0 <= t < t1): ok = False
        if not ok:
            tot["filtered_events"] += 1
            tot["filtered_bytes"] += nb
            continue
        tot["events"] += 1
        tot["event_bytes"] += nb
        for t_, key, n in (("phases", kind, nb), ("names", (cat, name), nb)):
            row = rows[t_].setdefault(key, [0, 0])
            row[0] += 1
            row[1] += n
        for key, k0, v0, v1 in mem:
            row = rows["event_keys"].setdefault(key, [0, 0])
            row[0] += 1
            row[1] += nbytes(s, k0, v1)
    tot["outside_bytes"] = tot["text_bytes"] - tot["event_bytes"] - tot["filtered_bytes"]
    return rows, tot

bad = n = 0
for line in open(sys.argv[2]):
    out, path, flt = line.rstrip("\n").split("|")
    n += 1
    got = json.load(open(out, encoding="utf-8"))
    rows, tot = model(path, flt)
    where = "%s [%s]" % (path.split("/")[-1], flt)
    for k, v in tot.items():
        if got[k] != v:
            print("MISMATCH %s: %s: stint %s, oracle %s" % (where, k, got[k], v)); bad += 1
    if got["format"] != "jsonl" or got["args_bytes"] or got["args_keys"] or got["top_keys"] or got["partial"]:
        print("MISMATCH %s: format, args or partial: %s" % (where, str(got)[:200])); bad += 1
    have = {"phases": {r["ph"]: [r["events"], r["bytes"]] for r in got["phases"]},
            "names": {(r["cat"], r["name"]): [r["events"], r["bytes"]] for r in got["names"]},
            "event_keys": {r["key"]: [r["events"], r["bytes"]] for r in got["event_keys"]}}
    for t in have:
        if have[t] != rows[t]:
            keys = sorted(set(have[t]) | set(rows[t]), key=repr)
            print("MISMATCH %s: %s (key, stint, oracle): %s" % (where, t,
                  [(k, have[t].get(k), rows[t].get(k)) for k in keys if have[t].get(k) != rows[t].get(k)][:4])); bad += 1
print("%d outputs checked against the model, %d mismatches" % (n, bad))
sys.exit(1 if bad else 0)
PY
then fail=1; fi

# invalid JSON on line 3: exit 1, partial, the tally of the lines before it and of that line's text
rc=0; "$STINT" sizes "$T/bad.jsonl" --json >"$T/bad.json" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || { echo "FAIL: invalid JSON on a line: exit $rc, expected 1"; fail=1; }
grep -q "line 3: invalid JSON record" "$T/err" || { echo "FAIL: no line-3 error: $(cat "$T/err")"; fail=1; }
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], "rb").read().split(b"\n")
sys.exit(0 if d["partial"] and d["events"] == 2 and d["text_bytes"] == sum(len(l) + 1 for l in lines[:3]) else 1)
' "$T/bad.json" "$T/bad.jsonl" || { echo "FAIL: the partial tally: $(head -c 300 "$T/bad.json")"; fail=1; }

echo "test_sizes_jsonl: $checks comparisons"
exit $fail
