#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pandas-free Python baseline for bench_gpu.sh: json.load the whole
Kineto trace, then the device busy union `stint gpu` reports: per device
(the pid), the union of its kernel, memcpy and memset spans (ts/dur as
exact integers of ns, digits below 1 ns truncated). Prints one line per
device: "device busy_ns", to check it agrees with stint."""
import json
import sys
from decimal import Decimal

WORK = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_ccp_events"}


def ns(v):
    return int(Decimal(str(v)) * 1000)


def main():
    with open(sys.argv[1]) as f:
        d = json.load(f, parse_float=Decimal)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    per = {}
    for e in ev:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in WORK and "dur" in e:
            t = ns(e["ts"])
            per.setdefault(e["pid"], []).append((t, t + ns(e["dur"])))
    for dev in sorted(per):
        busy, end = 0, None
        for a, b in sorted(per[dev]):
            if end is None or a > end:
                busy += b - a
                end = b
            elif b > end:
                busy += b - end
                end = b
        print(dev, busy)


if __name__ == "__main__":
    main()
