# SPDX-License-Identifier: MIT
"""Perfetto's own diff-test SQL through `stint sql`, against the expected CSVs.

Reads ../shared/corpus/perfetto-json/cases.json in place. A case runs when its trace is there and
its query names only tables and functions `stint sql` has (docs/cli/sql.md); the query goes to
`stint sql TRACE QUERY --json` unchanged, and every row and value is compared with the expected
CSV ("[NULL]" is NULL; numbers compare as numbers). Prints every case run and every case skipped
with the reason. A case listed in KNOWN must differ (the reason says why), so the list stays honest.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from corpus_common import Checker, locate  # noqa: E402

# The tables and views stint sql has; a FROM/JOIN naming anything else is Perfetto-only.
OURS = {"slice", "thread", "process", "thread_track", "process_track", "track", "counter", "counter_track",
        "process_counter_track", "args", "flow", "instant", "metadata", "span", "lane", "repair", "lost",
        "invocation"}

# Cases that run and are known to differ, with why.
KNOWN = {
    "json__json_sort_index_hints": "Perfetto always has a placeholder process 0 and thread 0 (its swapper) and "
                                   "a main thread (tid = pid) per process; stint lists only the processes and "
                                   "threads the trace names",
    "json__json_sort_index_ordering": "the same placeholder process 0 heads Perfetto's process list",
}


def skip_reason(case, base):
    """Why the case cannot run through stint sql, or None."""
    q = case["query"]
    if not case.get("trace") or not os.path.exists(os.path.join(base, case["trace"])):
        return "trace not in the corpus (%s)" % case.get("trace_kind", "absent")
    if re.search(r"\bINCLUDE\s+PERFETTO\s+MODULE\b", q, re.I):
        return "needs a Perfetto stdlib module (INCLUDE PERFETTO MODULE)"
    ctes = {m.lower() for m in re.findall(r"(?:WITH|,)\s*(\w+)\s+AS\s*\(", q, re.I)}
    for name, call in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)\s*(\()?", q, re.I):
        n = name.lower()
        if call:
            return "needs Perfetto's table function %s()" % name
        if n not in OURS and n not in ctes:
            return "needs Perfetto's table %s" % name
    return None


def value(cell):
    """An expected CSV cell as the JSON value it stands for: quoted cells are text (the reader
    keeps them str), unquoted ones numbers (it made them float); "[NULL]" is NULL."""
    return None if cell == "[NULL]" else cell


def same(want, got):
    if isinstance(want, (int, float)) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return abs(want - got) <= 1e-9 * max(1.0, abs(want))
    return want == got


def main():
    found = locate("perfetto-json")
    if isinstance(found, int):
        return found
    base, stint = found
    cases = json.load(open(os.path.join(base, "cases.json")))["cases"]
    check = Checker(KNOWN, width=300)
    ran, skipped = [], []
    for case in cases:
        why = skip_reason(case, base)
        if why:
            skipped.append((case["name"], why))
            continue
        ran.append(case["name"])
        p = subprocess.run([stint, "sql", os.path.join(base, case["trace"]), case["query"], "--json"],
                           capture_output=True, text=True)
        rows = json.loads(p.stdout) if p.returncode in (0, 1) and p.stdout.strip() else None
        got = "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]) if rows is None else \
            [[v for v in r.values()] for r in rows]
        lines = list(csv.reader(io.StringIO(open(os.path.join(base, case["expected"])).read()),
                                quoting=csv.QUOTE_NONNUMERIC))
        want = [[value(c) for c in row] for row in lines[1:] if row]
        if rows is not None:
            hdr = [list(r.keys()) for r in rows[:1]]
            if hdr and hdr[0] != lines[0]:
                got = "columns %s" % hdr[0]
                want_cols = "columns %s" % lines[0]
                check(case["name"], want_cols, got, case["name"])
                continue
            if len(got) == len(want) and all(len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
                                             for a, b in zip(want, got)):
                got = want
        check(case["name"], want, got, case["name"])
    print("\nran %d case(s): %s" % (len(ran), ", ".join(ran)))
    print("skipped %d case(s):" % len(skipped))
    for name, why in skipped:
        print("  %s: %s" % (name, why))
    return check.done()


if __name__ == "__main__":
    sys.exit(main())
