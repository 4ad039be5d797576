#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's layers (docs/architecture.md) only include downwards:
#
#   base 0  <  model 1  <  read 2, analyze 2  <  write 3  <  timing 4  <  cmd 5
#
# A file may include headers of its own layer and of lower ones; read/ and
# analyze/ sit side by side and never include each other (a reader does not
# analyse, an analysis does not parse). libstint (src/, include/) includes
# nothing from tools/. Every quoted include in tools/stint names its layer
# ("model/model.h"), and every file sits in a layer folder.
#
# The test also proves that it can fail: it copies the tree, adds an upward
# include (model/ including cmd/), and expects the check to reject the copy.
set -euo pipefail
src=${STINT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

check() { # check ROOT: prints each violation, returns 1 if any
  python3 - "$1" <<'EOF'
import os, re, sys
root = sys.argv[1]
rank = {"base": 0, "model": 1, "read": 2, "analyze": 2, "write": 3, "timing": 4, "cmd": 5}
inc = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
bad = []
tools = os.path.join(root, "tools", "stint")
for dirpath, _, files in os.walk(tools):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, tools)
        parts = rel.split(os.sep)
        if len(parts) != 2 or parts[0] not in rank:
            bad.append(f"tools/stint/{rel}: not in a layer folder ({', '.join(rank)})")
            continue
        layer = parts[0]
        for h in inc.findall(open(path, encoding="utf-8", errors="replace").read()):
            if h.startswith("stint/"):
                continue  # the public header
            hl = h.split("/")[0]
            if "/" not in h or hl not in rank:
                bad.append(f"tools/stint/{rel}: includes \"{h}\" without its layer")
            elif hl != layer and (rank[hl] > rank[layer] or rank[hl] == rank[layer]):
                bad.append(f"tools/stint/{rel}: {layer}/ includes {hl}/ (\"{h}\"), a layer above or beside it")
for top in ("src", "include"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                path = os.path.join(dirpath, f)
                for h in inc.findall(open(path, encoding="utf-8", errors="replace").read()):
                    if "tools/" in h or h.split("/")[0] in rank:
                        bad.append(f"{os.path.relpath(path, root)}: libstint includes the CLI's \"{h}\"")
for b in bad:
    print("layering:", b)
sys.exit(1 if bad else 0)
EOF
}

fails=0
if ! check "$src"; then
  echo "FAIL: the tree breaks the layering above" >&2
  fails=1
fi

# The check must catch an upward include: model/ including cmd/.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tools"
cp -r "$src/tools/stint" "$tmp/tools/"
cp -r "$src/src" "$src/include" "$tmp/"
printf '#include "cmd/cmdopts.h"\n' >> "$tmp/tools/stint/model/model.h"
if out=$(check "$tmp"); then
  echo "FAIL: an upward include (model/ -> cmd/) was not caught" >&2
  fails=1
else
  echo "$out" | grep -q 'model/model.h: model/ includes cmd/' || { echo "FAIL: wrong complaint: $out" >&2; fails=1; }
fi
# ...and libstint reaching into the CLI.
cp "$src/src/span.c" "$tmp/src/span.c"
printf '#include "../tools/stint/base/umap.h"\n' >> "$tmp/src/span.c"
sed -i '$d' "$tmp/tools/stint/model/model.h"
if check "$tmp" >/dev/null; then
  echo "FAIL: src/ including tools/ was not caught" >&2
  fails=1
fi

[ "$fails" = 0 ] && echo "layers: every include points down (and the check rejects an upward one)"
exit "$fails"
