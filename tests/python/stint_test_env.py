# SPDX-License-Identifier: MIT
"""Shared helpers of the Python tests: where the build, the CLI and the
package are, and running a Python snippet in a fresh process (the library's
sinks and counters are process-wide, so tests that look at marker output
start their own interpreter)."""

import os
import subprocess
import sys
import textwrap

SOURCE = os.environ.get("STINT_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("STINT_BUILD_DIR") or os.path.join(SOURCE, "build")
STINT_BIN = os.environ.get("STINT_BIN") or os.path.join(BUILD, "stint")
CC = os.environ.get("STINT_C_COMPILER") or "cc"
PYDIR = os.path.join(SOURCE, "python")
LIB = os.path.join(BUILD, "libstint.so")


def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYDIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("STINT_LIBRARY", LIB)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def run_py(code, cwd=None, check=True, **env):
    """Runs code (dedented) in a fresh python3; returns CompletedProcess."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=child_env(**env),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError("python child failed (%d):\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
    return p


def parse_markers(text):
    """[STRACE] lines -> list of dicts (values as strings)."""
    out = []
    for line in text.splitlines():
        i = line.find("[STRACE] ")
        if i < 0:
            continue
        rec = {}
        for tok in line[i + 9:].split():
            k, _, v = tok.partition("=")
            rec[k] = v
        out.append(rec)
    return out
