#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every function the project's text names the way a call is written,
# `stint_x(` (`stint_x()`, `stint_x(args)`, `stint_x().field`), exists: it is
# declared or defined in the public headers (include/stint/*.h, comments
# left out), or, for the library's own comments, in src/. Read: README.md,
# docs/**/*.md, docs/cli/manual.txt, docs/man/*, the headers' comments,
# python/stint/*.py and src/*.[ch]. A name written for a function that does
# not exist (stint_stats() for stint_get_stats()) fails with its place.
# The scanner first proves it bites on an injected mention. Skips (77)
# without python3.
set -euo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
py=$(command -v python3 || true)
if [ -z "$py" ]; then echo "SKIP: python3 not installed"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/scan.py" <<'PY'
import glob, os, re, sys

root, extra = sys.argv[1], sys.argv[2:]
os.chdir(root)
# Names that look like calls but are no function of the library. Empty on
# purpose: add one only with the reason it cannot be a function.
ALLOW = set()

CALL = re.compile(r"\b(stint_[a-z0-9_]+)\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)

def code_names(paths):
    names = set()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            names.update(CALL.findall(COMMENT.sub(" ", f.read())))
    return names

headers = sorted(glob.glob("include/stint/*.h"))
public = code_names(headers)
internal = code_names(sorted(glob.glob("src/*.[ch]")))

texts = ["README.md", "docs/cli/manual.txt"]
texts += sorted(glob.glob("docs/**/*.md", recursive=True)) + sorted(glob.glob("docs/man/*"))
texts += sorted(glob.glob("python/stint/*.py"))
commented = headers + sorted(glob.glob("src/*.[ch]"))

bad = []
def check(path, text, known):
    for lineno, line in enumerate(text.split("\n"), 1):
        for name in CALL.findall(line):
            if name not in known and name not in ALLOW:
                bad.append("%s:%d: %s() is not a function of libstint: %s" % (path, lineno, name, line.strip()))

for p in texts + extra:
    if os.path.isfile(p):
        with open(p, encoding="utf-8") as f:
            check(p, f.read(), public)
for p in commented:
    with open(p, encoding="utf-8") as f:
        text = f.read()
    # the comments only (the compiler checks the code), line numbers kept
    only = "".join(m.group(0) if m.group(0).startswith(("/*", "//")) else "\n" * m.group(0).count("\n")
                   for m in re.finditer(r"/\*.*?\*/|//[^\n]*|[^/]+|/", text, re.S))
    check(p, only, public | (internal if p.startswith("src/") else set()))

for b in bad:
    print(b)
print("%d names checked against %d declared; %d unknown" % (len(public | internal), len(public), len(bad)))
sys.exit(1 if bad else 0)
PY

# it bites: an injected mention of a function that does not exist
printf 'the count is in `stint_stats().spans_dropped`\n' >"$tmp/injected.md"
if "$py" "$tmp/scan.py" "$src" "$tmp/injected.md" >"$tmp/out" 2>&1 ||
   ! grep -q 'injected.md:1: stint_stats()' "$tmp/out"; then
  cat "$tmp/out"; echo "FAIL: the scanner missed an injected stint_stats()"; exit 1
fi

if ! "$py" "$tmp/scan.py" "$src"; then
  echo "FAIL: the names above are written as calls but no header declares them"
  exit 1
fi
echo "PASS: every stint_x() named in the docs, headers and sources exists"
