# SPDX-License-Identifier: MIT
"""A Python program and a C library it calls write into the same marker log
and the same JSONL session, and the stint CLI reads them as one trace.

The C library (built here with the C compiler, linked against the build's
libstint.so) opens its own spans with STINT_SCOPE and writes session spans
through the stint_session pointer Python hands it. Both sides share one
libstint instance: the same thread stacks, invocation ids, hid and sinks."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stint_test_env import BUILD, CC, SOURCE, STINT_BIN, parse_markers, run_py  # noqa: E402

C_SOURCE = r"""
#include <stint/session.h>
#include <stint/stint.h>

/* Called from Python inside a Python span and a Python session span. */
int mixed_kernel(stint_session *s, int n);
int mixed_kernel(stint_session *s, int n)
{
    STINT_SCOPE("c.kernel");
    stint_attr_i64("n", n);
    {
        STINT_SCOPE("c.kernel.inner");
    }
    uint64_t id = 0;
    if (stint_session_span_begin(s, "c.kernel", STINT_SPAN_OP, STINT_STEP_FORWARD, &id) != STINT_OK)
        return -1;
    uint64_t shape[2] = {2, 3};
    stint_op_record op = STINT_OP_RECORD_INIT;
    op.span_id = id;
    op.op_name = "c.add";
    op.shape = shape;
    op.ndim = 2;
    op.dtype = "f32";
    op.duration_ns = 77;
    if (stint_session_op(s, &op) != STINT_OK || stint_session_span_end(s, id) != STINT_OK)
        return -2;
    return (int)stint_current_invocation();
}
"""

def slices_json(test, path):
    """`stint slices --json path` rows (indexed by row), or None with a note
    when this build's reader for the format is not there yet."""
    p = subprocess.run([STINT_BIN, "slices", "--json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if "not yet built" in p.stderr:
        print("\nNOTE: %s: stint's reader is not built yet; not read back through the CLI" % path, file=sys.stderr)
        return None
    test.assertEqual(p.returncode, 0, p.stderr)
    rows = json.loads(p.stdout)["slices"]
    test.assertEqual([r["row"] for r in rows], list(range(len(rows))))
    return rows


class Mixed(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        src = os.path.join(d, "mixed.c")
        with open(src, "w") as f:
            f.write(C_SOURCE)
        self.clib = os.path.join(d, "libmixed.so")
        cmd = [CC, "-std=c11", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o", self.clib, src,
               "-I" + os.path.join(SOURCE, "include"), "-L" + BUILD, "-lstint", "-Wl,-rpath," + BUILD,
               "-Wl,--build-id"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 0, "building the C library failed: %s\n%s" % (" ".join(cmd), p.stdout))
        self.log = os.path.join(d, "markers.log")
        self.jsonl = os.path.join(d, "session.jsonl")
        # One process: Python spans around C spans, three invocations; the
        # first also inside a JSONL session that C writes into too.
        run_py("""
            import ctypes, stint
            stint.markers_to_path(%r)
            c = ctypes.CDLL(%r)
            c.mixed_kernel.argtypes = [ctypes.c_void_p, ctypes.c_int]
            c.mixed_kernel.restype = ctypes.c_int
            stint.set_hid(0x5151)
            with stint.Session(%r, "py.main") as s:
                for step in range(3):
                    inv = stint.invocation_begin()
                    with stint.span("py.step", step=step):
                        with s.span("py.forward", kind="module", step="forward"):
                            got = c.mixed_kernel(s.handle, step)
                    assert got == inv, (got, inv)
        """ % (self.log, self.clib, self.jsonl))

    def tearDown(self):
        self.tmp.cleanup()

    def test_one_marker_log(self):
        with open(self.log) as f:
            recs = parse_markers(f.read())
        self.assertEqual(len(recs), 9)
        self.assertEqual(len({(r["pid"], r["tid"]) for r in recs}), 1, "one thread wrote everything")
        for r in recs:
            self.assertEqual(r["hid"], "5151", r)  # C spans see the hid Python set
        by_inv = {}
        for r in recs:
            by_inv.setdefault(r["inv"], {})[r["name"]] = r
        self.assertEqual(sorted(by_inv), ["1", "2", "3"])
        for inv, spans in by_inv.items():
            self.assertEqual(spans["py.step"]["depth"], "0")
            self.assertEqual(spans["c.kernel"]["depth"], "1")  # nested under the Python span
            self.assertEqual(spans["c.kernel.inner"]["depth"], "2")
            self.assertEqual(spans["c.kernel"]["n"], str(int(inv) - 1))
            py, ck = spans["py.step"], spans["c.kernel"]
            self.assertTrue(int(py["ts"]) <= int(ck["ts"]) and
                            int(ck["ts"]) + int(ck["dur"]) <= int(py["ts"]) + int(py["dur"]))

        # The CLI reads the log as one trace: one callable, Python root, C child.
        p = subprocess.run([STINT_BIN, "timing", "--tree=depth", "--json", self.log], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["records"]["spans"], 9)
        self.assertEqual(len(doc["callables"]), 1)
        cal = doc["callables"][0]
        self.assertEqual(cal["hid"], "5151")
        self.assertEqual(cal["invocations"], 3)
        root = cal["nodes"][0]
        self.assertEqual(root["name"], "py.step")
        self.assertEqual([c["name"] for c in root["children"]], ["c.kernel"])
        self.assertEqual([c["name"] for c in root["children"][0]["children"]], ["c.kernel.inner"])

        # stint slices: the C spans' parent rows are the Python spans.
        rows = slices_json(self, self.log)
        if rows is None:
            return
        self.assertEqual(len(rows), 9)
        for r in rows:
            if r["name"] == "c.kernel":
                self.assertEqual(rows[r["parent"]]["name"], "py.step")
            if r["name"] == "c.kernel.inner":
                self.assertEqual(rows[r["parent"]]["name"], "c.kernel")

    def test_hid_of_a_c_function(self):
        # Python names the C callable by its library's Build-ID, as C would.
        p = run_py("""
            import ctypes, stint
            c = ctypes.CDLL(%r)
            with open(%r, "rb") as f:
                print(stint.hid_of_address(c.mixed_kernel), stint.hid_of_elf(f.read()))
        """ % (self.clib, self.clib))
        by_address, by_file = (int(x) for x in p.stdout.split())
        self.assertNotEqual(by_address, 0)
        self.assertEqual(by_address, by_file)

    def test_one_jsonl_session(self):
        with open(self.jsonl) as f:
            lines = [json.loads(line) for line in f]
        starts = {}
        for r in lines:
            if r["kind"] == "span_start":
                starts.setdefault(r["name"], []).append(r)
        self.assertEqual(len(starts["py.forward"]), 3)
        self.assertEqual(len(starts["c.kernel"]), 3)
        ids = {r["id"]: r for r in lines if r["kind"] == "span_start"}
        for ck in starts["c.kernel"]:
            parent = ids[ck["parent_id"]]
            self.assertEqual(parent["name"], "py.forward")  # the C span nests under the Python one
            self.assertEqual(parent["tid"], ck["tid"])
            self.assertEqual(ck["span_kind"], "op")
        ops = [r for r in lines if r["kind"] == "op"]
        self.assertEqual([o["op_name"] for o in ops], ["c.add"] * 3)
        self.assertEqual({o["span_id"] for o in ops}, {r["id"] for r in starts["c.kernel"]})
        self.assertEqual(lines[-1]["kind"], "span_end")
        self.assertEqual(lines[-1]["id"], "s1")

        # The CLI reads the session as one trace: one tree under the root.
        rows = slices_json(self, self.jsonl)
        if rows is None:
            return
        self.assertEqual(len(rows), 1 + 3 + 3)
        self.assertEqual([r["name"] for r in rows if r["parent"] is None], ["py.main"])
        for r in rows:
            if r["name"] == "c.kernel":
                self.assertEqual(rows[r["parent"]]["name"], "py.forward")
                self.assertEqual(r["depth"], 2)

        # ... and exports it as OTLP/JSON: one trace, C spans parented by Python spans, unix times.
        p = subprocess.run([STINT_BIN, "convert", self.jsonl, "-o", "-", "--to", "otlp-json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode == 2 and ("not available" in p.stderr or "unknown" in p.stderr):
            print("\nNOTE: stint convert --to otlp-json is not in this build; OTLP not checked", file=sys.stderr)
            return
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        spans = [sp for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for sp in ss["spans"]]
        by_id = {sp["spanId"]: sp for sp in spans}
        self.assertEqual(len({sp["traceId"] for sp in spans}), 1)
        kernels = [sp for sp in spans if sp["name"] == "c.kernel"]
        self.assertEqual(len(kernels), 3)
        anchor = lines[0]["clock_realtime_ns"]
        for k in kernels:
            self.assertEqual(by_id[k["parentSpanId"]]["name"], "py.forward")
            self.assertGreaterEqual(int(k["startTimeUnixNano"]), anchor)


if __name__ == "__main__":
    unittest.main()
