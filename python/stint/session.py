# SPDX-License-Identifier: MIT
"""Session outputs of libstint for Python (include/stint/session.h): the
JSONL profiler session, the flight-recorder ring and the streaming Chrome
JSON writer. Every failing call raises stint.StintError.

    with stint.Session("run.jsonl", entrypoint="model::forward") as s:
        with s.span("forward", kind="module", step="forward") as sid:
            s.op("matmul", span_id=sid, shape=(64, 64), dtype="float32", duration_ns=1200)

Session.handle is the C `stint_session *`, for C code (called through
ctypes) that writes into the same session.
"""

import ctypes
import contextlib

from . import _lib
from ._lib import lib as _c

_PHASES = {"train": 0, "infer": 1}
_TIMING = {"host": 0, "device_synchronized": 1}
_KINDS = {"function": 0, "op": 1, "module": 2}
_STEPS = {None: 0, "forward": 1, "backward": 2, "optimizer": 3}
_CATEGORIES = {None: 0, "parameter": 1, "activation": 2, "gradient": 3, "optimizer": 4, "other": 5}
_ACTIONS = {"alloc": 0, "free": 1}
_GRADS = {"present": 0, "missing": 1, "zero": 2, "non_finite": 3}
WARMUP_DEFAULT = -1
BYTES_UNKNOWN = -1


def _b(s):
    return None if s is None else (s if isinstance(s, bytes) else str(s).encode("utf-8", "surrogateescape"))


def _err(status, what, detail=""):
    from . import StintError
    return StintError(status, what, detail)


def _pick(table, value, what):
    try:
        return table[value]
    except KeyError:
        raise ValueError("%s must be one of %s, not %r" % (what, sorted(k for k in table if k), value)) from None


def _shape(shape):
    shape = tuple(int(d) for d in shape or ())
    return (ctypes.c_uint64 * len(shape))(*shape) if shape else None, len(shape)


class Session:
    """A JSONL session (stint/session/1) at path; the meta line and the root
    span s1 (named entrypoint) are written at once. Defaults are the C
    library's: correlation_id "<entrypoint>/update-<capture_step>", run_id
    "run-<pid>-<realtime ns>", device "cpu", warmup_steps capture_step - 1."""

    def __init__(self, path, entrypoint, *, correlation_id=None, run_id=None, device=None, phase="train",
                 timing_mode="host", capture_step=1, warmup_steps=WARMUP_DEFAULT, measured_region_sync=False,
                 tags=None):
        opt = _lib.SessionOptions()
        opt.entrypoint = _b(entrypoint)
        opt.correlation_id = _b(correlation_id)
        opt.run_id = _b(run_id)
        opt.device = _b(device)
        opt.phase = _pick(_PHASES, phase, "phase")
        opt.timing_mode = _pick(_TIMING, timing_mode, "timing_mode")
        opt.capture_step = capture_step
        opt.warmup_steps = warmup_steps
        opt.flags = 1 if measured_region_sync else 0
        tags = list((tags or {}).items())
        if tags:
            arr = (_lib.Tag * len(tags))(*[_lib.Tag(_b(k), _b(v)) for k, v in tags])
            opt.tags = ctypes.cast(arr, ctypes.POINTER(_lib.Tag))
            opt.ntags = len(tags)
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        st = _c.stint_session_open(_b(str(path)), opt, ctypes.byref(handle), err, len(err))
        if st != 0:
            raise _err(st, "stint_session_open(%s)" % path, err.value.decode(errors="replace"))
        self._h = handle
        self.path = str(path)

    @property
    def handle(self):
        """The C stint_session pointer (an int), to hand to C code."""
        return self._h.value

    def _check(self, st, what):
        if st != 0:
            msg = _c.stint_session_message(self._h) if self._h else b""
            raise _err(st, what, (msg or b"").decode(errors="replace"))

    def begin(self, name, kind="function", step=None):
        """Begins a span on this thread (parent: its innermost open span, else
        the root s1); returns N of "sN"."""
        sid = ctypes.c_uint64()
        self._check(_c.stint_session_span_begin(self._h, _b(name), _pick(_KINDS, kind, "kind"),
                                                _pick(_STEPS, step, "step"), ctypes.byref(sid)),
                    "stint_session_span_begin(%s)" % name)
        return sid.value

    def measure_begin(self, name):
        """Begins the session's one measured region; returns its id."""
        sid = ctypes.c_uint64()
        self._check(_c.stint_session_measure_begin(self._h, _b(name), ctypes.byref(sid)),
                    "stint_session_measure_begin(%s)" % name)
        return sid.value

    def end(self, span_id):
        """Ends span_id, which must be this thread's innermost open span."""
        self._check(_c.stint_session_span_end(self._h, span_id), "stint_session_span_end(s%d)" % span_id)

    @contextlib.contextmanager
    def span(self, name, kind="function", step=None):
        """`with s.span("forward", step="forward") as sid:` begin/end."""
        sid = self.begin(name, kind, step)
        try:
            yield sid
        finally:
            self.end(sid)

    @contextlib.contextmanager
    def measure(self, name):
        sid = self.measure_begin(name)
        try:
            yield sid
        finally:
            self.end(sid)

    def op(self, op_name, *, span_id, dtype, inputs=(), output=None, shape=(), device=None, duration_ns=0,
           timestamp_ns=0, storage_bytes=BYTES_UNKNOWN, input_storage_bytes=0):
        r = _lib.OpRecord()
        r.span_id = span_id
        r.op_name = _b(op_name)
        ins = [_b(i) for i in inputs]
        arr = (ctypes.c_char_p * len(ins))(*ins) if ins else None
        r.inputs = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p)) if arr else None
        r.ninputs = len(ins)
        r.output = _b(output)
        dims, r.ndim = _shape(shape)
        r.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_uint64)) if dims else None
        r.dtype = _b(dtype)
        r.device = _b(device)
        r.duration_ns = duration_ns
        r.timestamp_ns = timestamp_ns
        r.storage_bytes = storage_bytes
        r.input_storage_bytes = input_storage_bytes
        self._check(_c.stint_session_op(self._h, r), "stint_session_op(%s)" % op_name)

    def tensor(self, tensor_id, *, span_id, dtype, shape=(), device=None, requires_grad=False,
               storage_bytes=BYTES_UNKNOWN, category=None):
        r = _lib.TensorRecord()
        r.span_id = span_id
        r.tensor_id = _b(tensor_id)
        dims, r.ndim = _shape(shape)
        r.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_uint64)) if dims else None
        r.dtype = _b(dtype)
        r.device = _b(device)
        r.requires_grad = 1 if requires_grad else 0
        r.storage_bytes = storage_bytes
        r.category = _pick(_CATEGORIES, category, "category")
        self._check(_c.stint_session_tensor(self._h, r), "stint_session_tensor(%s)" % tensor_id)

    def memory(self, tensor_id, nbytes, *, span_id, action="alloc", op_name=None, device=None, shape=(),
               dtype=None, category=None, timestamp_ns=0):
        r = _lib.MemoryRecord()
        r.span_id = span_id
        r.tensor_id = _b(tensor_id)
        r.op_name = _b(op_name)
        r.device = _b(device)
        r.bytes = nbytes
        r.action = _pick(_ACTIONS, action, "action")
        dims, r.ndim = _shape(shape)
        r.shape = ctypes.cast(dims, ctypes.POINTER(ctypes.c_uint64)) if dims else None
        r.dtype = _b(dtype)
        r.category = _pick(_CATEGORIES, category, "category")
        r.timestamp_ns = timestamp_ns
        self._check(_c.stint_session_memory(self._h, r), "stint_session_memory(%s)" % tensor_id)

    def device_memory(self, used_bytes, free_bytes, *, device=None, reserved_bytes=-1, timestamp_ns=0):
        self._check(_c.stint_session_device_memory(self._h, _b(device), used_bytes, free_bytes, reserved_bytes,
                                                   timestamp_ns), "stint_session_device_memory")

    def gradient(self, root, key, state="present", norm=None):
        n = ctypes.c_double(norm) if norm is not None else None
        self._check(_c.stint_session_gradient(self._h, _b(root), _b(key), _pick(_GRADS, state, "state"),
                                              ctypes.byref(n) if n is not None else None),
                    "stint_session_gradient(%s)" % key)

    def counter(self, name, value, unit=None):
        self._check(_c.stint_session_counter(self._h, _b(name), float(value), _b(unit)),
                    "stint_session_counter(%s)" % name)

    def fork(self, parent_pid, child_pid):
        self._check(_c.stint_session_fork(self._h, parent_pid, child_pid), "stint_session_fork")

    def dropped(self, tid, count, first_ns=0, last_ns=0):
        self._check(_c.stint_session_dropped(self._h, tid, count, first_ns, last_ns), "stint_session_dropped")

    def flush(self):
        self._check(_c.stint_session_flush(self._h), "stint_session_flush")

    def stats(self):
        s = _lib.SessionStats()
        _c.stint_session_get_stats(self._h, s)
        return {name: getattr(s, name) for name, _ in _lib.SessionStats._fields_}

    def finish(self):
        """Ends the root span and closes the file (STINT_E_SPANS_OPEN while
        other spans are open: the session stays usable)."""
        self._check(_c.stint_session_finish(self._h), "stint_session_finish")

    def close(self):
        """Frees the session; without finish() the file has no root span_end
        (a reader treats it as cut short)."""
        if self._h:
            _c.stint_session_free(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.finish()
        finally:
            self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_h", None):
                self.close()
        except Exception:  # interpreter teardown: the library may be gone
            pass


def dtype_size(dtype):
    """Bytes of one element of dtype; 0 when unknown."""
    return _c.stint_dtype_size(_b(dtype))


def storage_bytes(shape, dtype):
    """shape x dtype size in bytes (0 for an unknown dtype); raises
    OverflowError past 64 bits."""
    dims, n = _shape(shape)
    over = ctypes.c_int(0)
    v = _c.stint_storage_bytes(ctypes.cast(dims, ctypes.POINTER(ctypes.c_uint64)) if dims else None, n, _b(dtype),
                               ctypes.byref(over))
    if over.value:
        raise OverflowError("storage size of %r x %s does not fit 64 bits" % (tuple(shape), dtype))
    return v


# ---- the flight recorder ---------------------------------------------------------

def ring_start(capacity):
    """Starts recording the last `capacity` closed host spans of every thread."""
    st = _c.stint_ring_start(capacity)
    if st != 0:
        raise _err(st, "stint_ring_start(%d)" % capacity)


class RingCapture:
    """What ring_finish() returns: .events (list of dicts in completion
    order: name, ts_ns relative to the ring's start, dur_ns, pid, tid,
    depth), .dropped, and write_chrome(path)."""

    def __init__(self, handle):
        self._h = handle
        self.dropped = _c.stint_ring_capture_dropped(handle)
        self.events = []
        ev = _lib.RingEvent()
        for i in range(_c.stint_ring_capture_count(handle)):
            st = _c.stint_ring_capture_event(handle, i, ev)
            if st != 0:
                raise _err(st, "stint_ring_capture_event(%d)" % i)
            self.events.append({"name": ev.name.decode(errors="replace"), "ts_ns": ev.ts_ns, "dur_ns": ev.dur_ns,
                                "pid": ev.pid, "tid": ev.tid, "depth": ev.depth})

    def write_chrome(self, path):
        st = _c.stint_ring_capture_write_chrome(self._h, _b(str(path)))
        if st != 0:
            raise _err(st, "stint_ring_capture_write_chrome(%s)" % path)

    def close(self):
        if self._h:
            _c.stint_ring_capture_free(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter teardown: the library may be gone
            pass


def ring_finish():
    """Stops the ring and returns its RingCapture."""
    h = ctypes.c_void_p()
    st = _c.stint_ring_finish(ctypes.byref(h))
    if st != 0:
        raise _err(st, "stint_ring_finish")
    return RingCapture(h)


def crash_dump_enable(path):
    """On SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT, write the running ring to path."""
    st = _c.stint_ring_crash_dump_enable(_b(str(path)))
    if st != 0:
        raise _err(st, "stint_ring_crash_dump_enable(%s)" % path)


def crash_dump_disable():
    _c.stint_ring_crash_dump_disable()


# ---- the streaming Chrome JSON writer ------------------------------------------------

class ChromeWriter:
    """Writes every span closed from now on to path as Chrome/Perfetto JSON
    until close(); also a context manager."""

    def __init__(self, path):
        h = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        st = _c.stint_chrome_open(_b(str(path)), ctypes.byref(h), err, len(err))
        if st != 0:
            raise _err(st, "stint_chrome_open(%s)" % path, err.value.decode(errors="replace"))
        self._h = h
        self.path = str(path)

    def counter(self, name, value):
        st = _c.stint_chrome_counter(self._h, _b(name), float(value))
        if st != 0:
            raise _err(st, "stint_chrome_counter(%s)" % name)

    def close(self):
        if self._h:
            h, self._h = self._h, ctypes.c_void_p()
            st = _c.stint_chrome_close(h)
            if st != 0:
                raise _err(st, "stint_chrome_close(%s)" % self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
