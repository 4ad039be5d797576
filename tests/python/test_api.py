# SPDX-License-Identifier: MIT
"""The Python binding's API over libstint.so: spans as context managers and
decorators, typed attributes, invocation ids and hid, runtime switch, stats,
errors, sessions, the ring and the Chrome writer, and how the library is
found."""

import json
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stint_test_env import LIB, PYDIR, parse_markers, run_py  # noqa: E402

os.environ.setdefault("STINT_LIBRARY", LIB)
sys.path.insert(0, PYDIR)
import stint  # noqa: E402


class MarkerOutput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "m.log")

    def tearDown(self):
        self.tmp.cleanup()

    def markers(self, code, **env):
        run_py("import stint\nstint.markers_to_path(%r)\n" % self.log + textwrap.dedent(code), **env)
        with open(self.log) as f:
            return parse_markers(f.read())

    def test_context_manager_decorator_and_attributes(self):
        recs = self.markers('''
            stint.set_hid(0xfeed)
            inv = stint.invocation_begin()
            assert stint.current_invocation() == inv == 1, inv

            @stint.span
            def plain(): pass

            @stint.span("named.call", mode="fast")
            def named(x): return x * 2

            with stint.span("outer", rows=128, ratio=0.5, ok=True, who="py"):
                stint.attr("huge", 2**64 - 1)
                stint.attr("neg", -3)
                stint.attr("wide", 2**70)
                assert named(21) == 42
                plain()
        ''')
        by = {r["name"]: r for r in recs}
        self.assertEqual(set(by), {"outer", "named.call", "plain"})
        self.assertEqual(by["outer"]["depth"], "0")
        self.assertEqual(by["named.call"]["depth"], "1")
        self.assertEqual(by["plain"]["depth"], "1")
        for r in recs:
            self.assertEqual(r["hid"], "feed")
            self.assertEqual(r["inv"], "1")
            self.assertEqual(r["pid"], str(r["tid"]) if r["pid"] == r["tid"] else r["pid"])
        o = by["outer"]
        self.assertEqual((o["rows"], o["ratio"], o["ok"], o["who"]), ("128", "0.5", "true", "py"))
        self.assertEqual((o["huge"], o["neg"], o["wide"]), ("18446744073709551615", "-3", str(2**70)))
        self.assertEqual(by["named.call"]["mode"], "fast")
        # the inner spans lie inside the outer one
        t0, d0 = int(o["ts"]), int(o["dur"])
        t1, d1 = int(by["named.call"]["ts"]), int(by["named.call"]["dur"])
        self.assertTrue(t0 <= t1 and t1 + d1 <= t0 + d0)

    def test_exception_is_recorded_and_propagates(self):
        recs = self.markers('''
            @stint.span("boom")
            def boom(): raise KeyError("x")
            try:
                boom()
            except KeyError:
                pass
            else:
                raise SystemExit("exception swallowed")
            try:
                with stint.span("boom.cm"):
                    raise ValueError("y")
            except ValueError:
                pass
        ''')
        by = {r["name"]: r for r in recs}
        self.assertEqual(by["boom"]["exception"], "KeyError")
        self.assertEqual(by["boom.cm"]["exception"], "ValueError")

    def test_runtime_switch_env_and_call(self):
        recs = self.markers('''
            assert not stint.enabled()
            with stint.span("hidden"): pass
            stint.set_enabled(True)
            with stint.span("shown"): pass
        ''', STINT="0")
        self.assertEqual([r["name"] for r in recs], ["shown"])

    def test_threads_have_their_own_stacks(self):
        recs = self.markers('''
            import threading
            def work(i):
                stint.set_invocation(100 + i)
                with stint.span("t.outer"):
                    with stint.span("t.inner"):
                        pass
            ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
            [t.start() for t in ts]; [t.join() for t in ts]
        ''')
        self.assertEqual(len(recs), 8)
        for r in recs:
            self.assertEqual(r["depth"], "0" if r["name"] == "t.outer" else "1")
        self.assertEqual(sorted({r["inv"] for r in recs}), ["100", "101", "102", "103"])
        self.assertEqual(len({r["tid"] for r in recs}), 4)

    def test_too_deep_spans_leave_their_parents_alone(self):
        with open(self.log, "w"):
            pass
        run_py("""
            import stint
            stint.markers_to_path(%r)
            def down(i):
                with stint.span("deep", level=i):
                    if i < 140:
                        down(i + 1)
            @stint.span("deep.fn", level=1)
            def fn(i):
                if i < 140:
                    fn(i + 1)
            down(0)
            fn(0)
            assert stint.stats()["spans_too_deep"] == 2 * (141 - 128), stint.stats()
        """ % self.log)
        with open(self.log) as f:
            lines = [l for l in f if "[STRACE]" in l]
        self.assertEqual(len(lines), 2 * 128)
        for line in lines:
            self.assertEqual(line.count(" level="), 1, line)

    def test_spans_lost_to_a_write_error_are_counted(self):
        # markers into /dev/full: every line is lost and counted; the Stats
        # mirror must hold the field (a short one would be overrun by C)
        run_py("""
            import os, stint
            fd = os.open("/dev/full", os.O_WRONLY)
            stint.markers_to_fd(fd)
            for i in range(37):
                with stint.span("lost"):
                    pass
            try:
                stint.flush()
            except stint.StintError:
                pass
            s = stint.stats()
            assert s["sink_error"] != 0 and s["sink_spans_lost"] == 37, s
            stint.markers_off()
        """)

    def test_long_dynamic_names_are_copied_and_flagged(self):
        recs = self.markers('''
            stint._LOC_CACHE_MAX = 0  # force the copying path
            stint._locs.clear()
            with stint.span("x" * 100): pass
            assert stint.stats()["names_truncated"] == 1
        ''')
        self.assertEqual(recs[0]["name"], "x" * 63)
        self.assertEqual(recs[0]["stint_truncated"], "1")


class InProcess(unittest.TestCase):
    def test_version_and_hashes(self):
        self.assertRegex(stint.version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(stint.fnv1a64(b""), 0xcbf29ce484222325)
        self.assertEqual(stint.fnv1a64(b"a"), 0xaf63dc4c8601ec8c)
        self.assertEqual(stint.hid_of_elf(b"not an elf"), stint.fnv1a64(b"not an elf"))
        self.assertEqual(stint.dtype_size("f32"), 4)
        self.assertEqual(stint.storage_bytes((2, 3), "f16"), 12)
        with self.assertRaises(OverflowError):
            stint.storage_bytes((2**40, 2**40), "f64")

    def test_stats_and_clock(self):
        s = stint.stats()
        self.assertIn("spans_recorded", s)
        a = stint.now_ns()
        self.assertGreaterEqual(stint.now_ns(), a)

    def test_errors_raise(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(stint.StintError) as cm:
                stint.Session(os.path.join(d, "no", "such", "dir.jsonl"), "e")
            self.assertEqual(cm.exception.name, "STINT_E_IO")
            with self.assertRaises(stint.StintError) as cm:
                stint.Session(os.path.join(d, "x.jsonl"), "e", capture_step=0)
            self.assertEqual(cm.exception.name, "STINT_E_INVAL")
            with self.assertRaises(ValueError):
                stint.Session(os.path.join(d, "x.jsonl"), "e", phase="nope")
        with self.assertRaises(stint.StintError):
            stint.ring_start(0)
        with self.assertRaises(stint.StintError) as cm:
            stint.ring_finish()
        self.assertEqual(cm.exception.name, "STINT_E_STATE")

    def test_session_lines(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.jsonl")
            with stint.Session(path, "py.main", device="cpu", tags={"b": "2", "a": "1"}) as s:
                with s.span("fwd", kind="module", step="forward") as sid:
                    s.op("matmul", span_id=sid, inputs=("x", "w"), output="y", shape=(4, 4), dtype="f32",
                         duration_ns=1200)
                    s.tensor("w", span_id=sid, shape=(4, 4), dtype="f32", requires_grad=True,
                             category="parameter")
                    s.memory("y", 64, span_id=sid, op_name="matmul", shape=(4, 4), dtype="f32")
                    s.counter("loss", 0.25, "nats")
                    s.gradient("model", "w", norm=1.5)
                    with self.assertRaises(stint.StintError) as cm:
                        s.end(1)  # the root: only finish ends it
                    self.assertEqual(cm.exception.name, "STINT_E_STATE")
                with s.measure("region"):
                    pass
                self.assertGreater(s.stats()["lines"], 5)
            with open(path) as f:
                lines = [json.loads(line) for line in f]
        kinds = [r["kind"] for r in lines]
        self.assertEqual(kinds[0], "meta")
        self.assertEqual(lines[0]["entrypoint"], "py.main")
        self.assertEqual(lines[0]["tags"], {"a": "1", "b": "2"})
        self.assertEqual(lines[0]["correlation_id"], "py.main/update-1")  # the C default
        self.assertEqual(lines[0]["warmup_steps"], 0)
        starts = {r["name"]: r for r in lines if r["kind"] == "span_start"}
        self.assertEqual(starts["fwd"]["parent_id"], "s1")
        self.assertEqual(starts["fwd"]["step"], "forward")
        self.assertEqual(starts["fwd"]["span_kind"], "module")
        self.assertTrue(starts["region"]["measured"])
        op = next(r for r in lines if r["kind"] == "op")
        self.assertEqual((op["op_name"], op["inputs"], op["shape"]), ("matmul", ["x", "w"], [4, 4]))
        self.assertIn("tensor", kinds)
        self.assertIn("memory", kinds)
        self.assertIn("gradient", kinds)
        self.assertEqual(lines[-1], {"kind": "span_end", "id": "s1", "duration_ns": lines[-1]["duration_ns"]})

    def test_ring_and_chrome_writer(self):
        with tempfile.TemporaryDirectory() as d:
            chrome = os.path.join(d, "c.json")
            w = stint.ChromeWriter(chrome)
            stint.ring_start(2)
            for i in range(3):
                with stint.span("ring.%d" % i):
                    pass
            w.counter("queue", 3)
            cap = stint.ring_finish()
            w.close()
            self.assertEqual([e["name"] for e in cap.events], ["ring.1", "ring.2"])
            self.assertEqual(cap.dropped, 1)
            self.assertEqual(cap.events[0]["pid"], os.getpid())
            out = os.path.join(d, "ring.json")
            cap.write_chrome(out)
            cap.close()
            with open(out) as f:
                ring = json.load(f)
            self.assertEqual([e["name"] for e in ring["traceEvents"] if e["ph"] == "X"], ["ring.1", "ring.2"])
            with open(chrome) as f:
                doc = json.load(f)
            names = {e["name"] for e in doc["traceEvents"]}
            self.assertTrue({"ring.0", "ring.1", "ring.2", "queue"} <= names)


class LibrarySearch(unittest.TestCase):
    def test_stint_library_wins_and_is_reported(self):
        p = run_py("import stint; print(stint.library_path)", STINT_LIBRARY=LIB,
                   STINT_LIB="/nonexistent/libstint.so")
        self.assertEqual(p.stdout.strip(), LIB)

    def test_older_name_stint_lib_still_works(self):
        p = run_py("import stint; print(stint.library_path)", STINT_LIBRARY=None, STINT_LIB=LIB)
        self.assertEqual(p.stdout.strip(), LIB)

    def test_bad_stint_library_is_a_clear_import_error(self):
        p = run_py("import stint", check=False, STINT_LIBRARY="/nonexistent/libstint.so")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot load libstint.so", p.stderr)
        self.assertIn("STINT_LIBRARY", p.stderr)

    def test_build_dir_is_found_without_stint_library(self):
        p = run_py("import stint; print(stint.library_path)", STINT_LIBRARY=None, STINT_LIB=None)
        self.assertTrue(os.path.samefile(p.stdout.strip(), LIB), p.stdout)


if __name__ == "__main__":
    unittest.main()
