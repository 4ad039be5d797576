#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""markers_lean_oracle.py LOG - how many of a marker log's (pid, tid, inv,
clock) groups can be lean records, computed here from the records alone:
"K of N". A group can when each record is a root (depth 0) or linked by its
depth (written as spans end: a record adopts the pending records one level
deeper; parent first where that agrees with time more often, as for device
groups) to a parent that contains it, when nesting its records by time (by
start, longer first, then log order; a record under the innermost one not
yet ended, one ending where the next starts having ended unless both last
0 ns) gives each its depth parent, and when its [first start, last end] meets
no other group's on its thread. Only well-formed host records are read (a
torn line lacks dur=)."""
import re
import sys

REC = re.compile(rb"\[STRACE\] v=1 pid=(\d+) tid=(\d+) inv=(\d+) hid=\S+ depth=(\d+) name=\S+ ts=(\d+) dur=(\d+)(\s|$)")


def links(g, pre):
    up, stk, agree = [None] * len(g), [], 0
    for k, (ts, end, d) in enumerate(g):
        if pre:
            while stk and g[stk[-1]][2] >= d:
                stk.pop()
            if stk and d and g[stk[-1]][2] == d - 1:
                up[k] = stk[-1]
        else:
            while stk and g[stk[-1]][2] > d:
                j = stk.pop()
                if g[j][2] == d + 1:
                    up[j] = k
        stk.append(k)
    for k, p in enumerate(up):
        if p is not None and g[p][0] <= g[k][0] and g[k][1] <= g[p][1]:
            agree += 1
    return up, agree


def nests(g):
    (post, a), (pre, b) = links(g, False), links(g, True)
    up = pre if b > a else post
    for k, (ts, end, d) in enumerate(g):
        if end - ts >= 1 << 40 or (d == 0) != (up[k] is None):
            return False
        if up[k] is not None and not (g[up[k]][0] <= ts and end <= g[up[k]][1]):
            return False
    stk = []
    for k in sorted(range(len(g)), key=lambda k: (g[k][0], -g[k][1], k)):
        ts, end, _ = g[k]
        while stk:
            t = g[stk[-1]]
            if t[1] < ts or (t[1] == ts and (t[1] > t[0] or end != ts)):
                stk.pop()
            else:
                break
        if (stk[-1] if stk else None) != up[k]:
            return False
        stk.append(k)
    return True


groups = {}
with open(sys.argv[1], "rb") as f:
    for line in f:
        for m in REC.finditer(line):
            if b"clk=dev" in line:
                continue
            pid, tid, inv, d, ts, dur = (int(x) for x in m.groups()[:6])
            groups.setdefault((pid, tid, inv), []).append((ts, ts + dur, d))
ok = {k: nests(g) for k, g in groups.items()}
by_thread = {}
for k, g in groups.items():
    by_thread.setdefault(k[:2], []).append((min(r[0] for r in g), max(r[1] for r in g), k))
for spans in by_thread.values():
    spans.sort()
    top = None  # the latest end of the groups before
    for i, (lo, hi, k) in enumerate(spans):
        if (top is not None and lo <= top) or (i + 1 < len(spans) and spans[i + 1][0] <= hi):
            ok[k] = False
        top = hi if top is None else max(top, hi)
print("%d of %d" % (sum(ok.values()), len(groups)))
