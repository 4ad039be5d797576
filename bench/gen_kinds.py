#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_kinds.py - a Chrome JSON trace with N of one kind of thing the model keeps.

Measures memory per kind (docs/reliability.md, "Memory per kind of thing
kept"): each kind varies one thing and keeps the rest small, so the slope of
peak RSS between two sizes is the cost of one item of that kind.

  names     N complete spans (1 us) on one thread, each of its own name
  lanes     N complete spans (1 us) of one name, each on its own thread
  instants  N thread instants ("i", "s":"t") of one name on one thread,
            inside one span
  flows     N flow pairs (s on thread 1, f on thread 2, bound to the
            enclosing span) between two long spans
  spans     N complete spans (1 us) of one name on one thread (the base)

The output is deterministic (no randomness). Usage:
    gen_kinds.py KIND N [-o FILE]     (FILE: stdout when absent)
The counts written go to stderr as one JSON line.
"""

import argparse
import json
import sys

KINDS = ("names", "lanes", "instants", "flows", "spans")


def events(kind, n):
    """Yields the trace's events as JSON text, one per line, for kind x n."""
    if kind == "names":
        for i in range(n):
            yield '{"ph":"X","name":"n%d","pid":1,"tid":1,"ts":%d,"dur":1}' % (i, 2 * i)
    elif kind == "lanes":
        for i in range(n):
            yield '{"ph":"X","name":"s","pid":1,"tid":%d,"ts":%d,"dur":1}' % (i + 1, i)
    elif kind == "spans":
        for i in range(n):
            yield '{"ph":"X","name":"s","pid":1,"tid":1,"ts":%d,"dur":1}' % (2 * i)
    elif kind == "instants":
        yield '{"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":%d}' % (n + 2)
        for i in range(n):
            yield '{"ph":"i","s":"t","name":"tick","pid":1,"tid":1,"ts":%d}' % (i + 1)
    elif kind == "flows":
        yield '{"ph":"X","name":"send","pid":1,"tid":1,"ts":0,"dur":%d}' % (2 * n + 4)
        yield '{"ph":"X","name":"recv","pid":1,"tid":2,"ts":0,"dur":%d}' % (2 * n + 4)
        for i in range(n):
            yield '{"ph":"s","name":"f","cat":"c","id":%d,"pid":1,"tid":1,"ts":%d}' % (i + 1, 2 * i + 1)
            yield '{"ph":"f","bp":"e","name":"f","cat":"c","id":%d,"pid":1,"tid":2,"ts":%d}' % (i + 1, 2 * i + 2)
    else:
        raise ValueError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=KINDS)
    ap.add_argument("n", type=int)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = open(a.output, "w") if a.output else sys.stdout
    out.write('{"traceEvents":[\n')
    first = True
    buf = []
    for ev in events(a.kind, a.n):
        buf.append(ev if first else ",\n" + ev)
        first = False
        if len(buf) >= 4096:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))
    out.write("\n]}\n")
    if a.output:
        out.close()
    sys.stderr.write(json.dumps({"kind": a.kind, "n": a.n}) + "\n")


if __name__ == "__main__":
    main()
