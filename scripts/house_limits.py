#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The size limits of the code in src/ and tools/: no .c or .h file over
MAX_FILE lines, no function over MAX_FUNC lines (from the line of its
opening brace at column 0 to its closing brace at column 0, the house
style's function layout). Prints each file or function over its limit, or
with --top N the N longest functions; exits 1 when any limit is broken.

usage: house_limits.py [--root DIR] [--top N]
"""
import os
import re
import sys

MAX_FILE = 900
MAX_FUNC = 150
DIRS = ("src", "tools")


def functions(path):
    """(name, first line, length) of each function defined in path."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{") and start is None:
            j = i - 1  # the name is on the nearest line above with a '('
            while j >= 0 and "(" not in lines[j]:
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j]) if j >= 0 else None
            head = lines[j] if j >= 0 else ""
            if m and not head.lstrip().startswith(("struct", "enum", "union", "static const", "const")) or \
                    (m and "(" in head and head.rstrip().endswith(")")):
                start = (m.group(1), i + 1)
            else:
                start = ("", -1)
        elif line.startswith("}") and start is not None:
            if start[1] > 0:
                out.append((start[0], start[1], i + 1 - start[1] + 1))
            start = None
    return out


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    top = 0
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root, i = argv[i + 1], i + 2
        elif argv[i] == "--top":
            top, i = int(argv[i + 1]), i + 2
        else:
            sys.exit(__doc__)
    bad = 0
    allf = []
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                n = sum(1 for _ in open(path, encoding="utf-8", errors="replace"))
                if n > MAX_FILE:
                    print(f"{rel}: {n} lines (limit {MAX_FILE})")
                    bad += 1
                if f.endswith(".c"):
                    for name, line, length in functions(path):
                        allf.append((length, rel, line, name))
                        if length > MAX_FUNC:
                            print(f"{rel}:{line}: {name}() is {length} lines (limit {MAX_FUNC})")
                            bad += 1
    for length, rel, line, name in sorted(allf, reverse=True)[:top]:
        print(f"  {length:5d}  {rel}:{line} {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
