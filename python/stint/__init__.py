# SPDX-License-Identifier: MIT
"""stint for Python: spans, attributes, invocation ids and callable hashes,
JSONL sessions, the flight-recorder ring and the Chrome JSON writer, over
libstint.so through ctypes (no build step; see _lib.py for how the library is
found).

The C library does the work, so the defaults are the C library's: the
environment variables STINT, STINT_MARKERS, STINT_MARKERS_PREFIX,
STINT_BUFFER_KB and STINT_CLOCK mean the same here, marker lines go to
stderr unless told otherwise, and a C library loaded in the same process
shares the spans, the invocation ids and the sinks with Python.

    import stint

    @stint.span("train.step")            # a decorator ...
    def step(batch): ...

    with stint.span("load", rows=128):    # ... or a context manager, with attributes
        stint.attr("cache_hit", True)      # on the innermost open span

Spans belong to the calling thread and close innermost first, as in C.

Installing: `pip install ./python` (setuptools, no dependencies) installs
the package alone; libstint.so comes from the C build or its install. The
package loads the library from, in order (the first that loads wins; see
_lib.py):
  1. $STINT_LIBRARY, the path of libstint.so (an explicit choice: if it does
     not load, `import stint` fails and says so);
  2. next to the package or an installed prefix: its own folder, its parent,
     and the prefix's library folder (<libdir> for `make install`'s
     <libdir>/stint/python, <prefix>/lib for a pip install into <prefix>);
  3. a build folder: $STINT_BUILD_DIR, else the checkout's build/;
  4. the system's search: ctypes.util.find_library("stint"), then
     libstint.so.0.
stint.library_path says which file was loaded.
"""

import ctypes
import functools
import threading

from . import _lib
from ._lib import lib as _c

__all__ = [
    "StintError", "version", "library_path", "span", "Span", "attr", "enabled", "set_enabled", "flush", "shutdown",
    "stats", "now_ns", "invocation_begin", "set_invocation", "current_invocation", "set_hid", "hid_of_elf",
    "fnv1a64", "hid_of_address", "markers_to_path", "markers_to_fd", "markers_off", "device_span", "MARKERS_PREFIX",
    "Session", "ring_start", "ring_finish", "RingCapture", "crash_dump_enable", "crash_dump_disable",
    "ChromeWriter", "dtype_size", "storage_bytes",
]

MARKERS_PREFIX = 1  # stint_marker_flags: prefix lines like the reference logger
ATTR_MAX = 16
NAME_COPY_MAX = 64

library_path = _lib.path


class StintError(Exception):
    """A libstint call returned a status other than STINT_OK.

    .status is the stint_status value, .name its C name."""

    NAMES = {1: "STINT_E_NOMEM", 2: "STINT_E_INVAL", 3: "STINT_E_IO", 4: "STINT_E_BUSY", 5: "STINT_E_STATE",
             6: "STINT_E_SPAN_MISMATCH", 7: "STINT_E_SPANS_OPEN", 8: "STINT_E_TRUNCATED",
             9: "STINT_E_UNSUPPORTED", 10: "STINT_E_TIMEOUT", 11: "STINT_E_NOT_FOUND"}

    def __init__(self, status, what, detail=""):
        self.status = status
        self.name = self.NAMES.get(status, "STINT_E_%d" % status)
        text = "%s: %s" % (what, _c.stint_strerror(status).decode())
        if detail:
            text += " (%s)" % detail
        super().__init__(text)


def _check(status, what, detail=None):
    if status != 0:
        raise StintError(status, what, detail() if detail else "")


def _b(s):
    return None if s is None else (s if isinstance(s, bytes) else str(s).encode("utf-8", "surrogateescape"))


# Keys and call-site names are borrowed by the library until the writer has
# drained the span, and the writer may still drain at process exit, after
# the interpreter has freed its objects. So they are copied into C memory
# that is never freed (bounded: one copy per distinct key or call site).
_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_interned = {}
_intern_lock = threading.RLock()
_LOC_CACHE_MAX = 4096


def _perm_bytes(raw):
    p = _libc.malloc(len(raw) + 1)
    if not p:
        raise MemoryError("stint: out of memory")
    ctypes.memmove(p, raw + b"\0", len(raw) + 1)
    return p


def _key(k):
    v = _interned.get(k)
    if v is None:
        with _intern_lock:
            v = _interned.get(k)
            if v is None:
                v = _interned[k] = ctypes.c_char_p(_perm_bytes(_b(k)))
    return v


_locs = {}


def _loc(name, func=None, file=None, line=0):
    """A permanent stint_loc for (name, func, file, line), or None once the
    cache is full (then the name is copied per span)."""
    key = (name, func, file, line)
    loc = _locs.get(key)
    if loc is None and len(_locs) < _LOC_CACHE_MAX:
        with _intern_lock:
            loc = _locs.get(key)
            if loc is None:
                mem = _libc.malloc(ctypes.sizeof(_lib.Loc))
                if not mem:
                    raise MemoryError("stint: out of memory")
                loc = _lib.Loc.from_address(mem)
                ctypes.memmove(mem, ctypes.byref(_lib.Loc(None, None, None, None, line)), ctypes.sizeof(_lib.Loc))
                for field, v in (("name", name), ("file", file), ("func", func)):
                    if v:
                        ctypes.c_void_p.from_address(mem + getattr(_lib.Loc, field).offset).value = \
                            ctypes.cast(_key(v), ctypes.c_void_p).value
                _locs[key] = loc
    return loc


def version():
    """The library version, "MAJOR.MINOR.PATCH"."""
    return _c.stint_version().decode()


def enabled():
    """The runtime switch (environment STINT, or set_enabled)."""
    return bool(_lib.g_enabled.value)


def set_enabled(on):
    _c.stint_set_enabled(1 if on else 0)


def attr(key, value):
    """Sets a typed attribute on the calling thread's innermost open span:
    bool, int (signed 64-bit, or unsigned above that; wider ints as their
    decimal text), float, else str.
    Strings longer than 63 bytes are cut and flagged by the library."""
    k = _key(key)
    if isinstance(value, bool):
        _c.stint_attr_bool(k, 1 if value else 0)
    elif isinstance(value, int) and -(1 << 63) <= value < (1 << 64):
        if value > 0x7FFFFFFFFFFFFFFF:
            _c.stint_attr_u64(k, value)
        else:
            _c.stint_attr_i64(k, value)
    elif isinstance(value, float):
        _c.stint_attr_f64(k, value)
    else:
        _c.stint_attr_str(k, _b(value))


# The open `with` spans of each thread, innermost last: spans close in LIFO
# order per thread, so one stack serves every Span object.
_tls = threading.local()


def span(name=None, **attrs):
    """A span: `with stint.span("name", k=v):` or `@stint.span("name")`.

    As a decorator without a name (`@stint.span` or `@stint.span()`) the
    span is named after the function's qualified name. Keyword arguments
    become typed attributes. An exception leaving the span adds the attribute
    exception=<type name>. Begin and end run on the calling thread."""
    if callable(name):
        return Span()(name)
    return Span(name, **attrs)


class Span:
    """What span() returns: a reusable context manager and decorator."""

    __slots__ = ("name", "attrs", "_loc")

    def __init__(self, name=None, **attrs):
        self.name = name
        self.attrs = attrs
        self._loc = _loc(name) if name is not None else None

    def _begin(self):
        if not _lib.g_enabled.value:
            return 0
        if self._loc is not None:
            tok = _c.stint_span_begin(self._loc).token
        else:
            raw = _b(self.name)
            tok = _c.stint_span_begin_copy(raw, len(raw)).token
        if tok:
            for k, v in self.attrs.items():
                attr(k, v)
        return tok

    def __enter__(self):
        if self.name is None:
            raise TypeError("stint.span() needs a name when used with `with`")
        stack = getattr(_tls, "stack", None)
        if stack is None:
            stack = _tls.stack = []
        stack.append(self._begin())
        return self

    def __exit__(self, exc_type, exc, tb):
        tok = _tls.stack.pop()
        if tok:
            if exc_type is not None:
                attr("exception", exc_type.__name__)
            _c.stint_span_end(_lib.Span(tok))
        return False

    def __call__(self, fn):
        code = getattr(fn, "__code__", None)
        name = self.name if self.name is not None else getattr(fn, "__qualname__", repr(fn))
        loc = _loc(name, getattr(fn, "__qualname__", None), code.co_filename if code else None,
                   code.co_firstlineno if code else 0)
        attrs = self.attrs

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not _lib.g_enabled.value:
                return fn(*args, **kwargs)
            if loc is not None:
                tok = _c.stint_span_begin(loc)
            else:
                raw = _b(name)
                tok = _c.stint_span_begin_copy(raw, len(raw))
            if tok.token:  # attributes of an unrecorded span must not land on its parent
                for k, v in attrs.items():
                    attr(k, v)
            try:
                return fn(*args, **kwargs)
            except BaseException as e:
                if tok.token:
                    attr("exception", type(e).__name__)
                raise
            finally:
                if tok.token:
                    _c.stint_span_end(tok)
        return wrapper


def flush():
    """Drains every thread's buffer into the sinks now; raises the first
    sticky sink error."""
    _check(_c.stint_flush(), "stint_flush")


def shutdown():
    """Flushes, stops the writer, closes the sinks (also done at exit)."""
    _check(_c.stint_shutdown(), "stint_shutdown")


def stats():
    """The library's counters (stint_stats) as a dict."""
    s = _lib.Stats()
    _c.stint_get_stats(s)
    return {name: getattr(s, name) for name, _ in _lib.Stats._fields_}


def now_ns():
    """CLOCK_MONOTONIC in ns, the clock of marker ts= values."""
    return _c.stint_now_ns()


def invocation_begin():
    """Allocates the next process-wide invocation id and makes it current on
    this thread (spans ending here print it as inv=)."""
    return _c.stint_invocation_begin()


def set_invocation(inv):
    _c.stint_set_invocation(inv)


def current_invocation():
    return _c.stint_current_invocation()


def set_hid(hid):
    """Sets this thread's callable hash, printed as hid= by spans ending here."""
    _c.stint_set_hid(hid)


def hid_of_elf(data):
    """The callable hash of an in-memory object (GNU Build-ID or FNV-1a-64)."""
    data = bytes(data)
    return _c.stint_hid_of_elf(data, len(data))


def hid_of_address(fn):
    """The Build-ID hash of the loaded object holding fn: a ctypes function
    of a C library (or a code address as an int); 0 when it has none."""
    addr = fn if isinstance(fn, int) else ctypes.cast(fn, ctypes.c_void_p).value
    return _c.stint_hid_of_address(addr)


def fnv1a64(data):
    data = _b(data) if isinstance(data, str) else bytes(data)
    return _c.stint_fnv1a64(data, len(data))


def markers_to_path(path, flags=0):
    """Marker lines go to path (created, opened O_APPEND; safe to share
    between processes and with C code in this process)."""
    _check(_c.stint_markers_to_path(_b(str(path)), flags), "stint_markers_to_path(%s)" % path)


def markers_to_fd(fd, flags=0):
    _check(_c.stint_markers_to_fd(fd, flags), "stint_markers_to_fd(%d)" % fd)


def markers_off():
    _c.stint_markers_off()


def device_span(name, ts_ns, dur_ns, depth=0):
    """One device-clock span (ts_ns is an offset on the device clock)."""
    _c.stint_device_span(_key(name), ts_ns, dur_ns, depth)


from .session import (ChromeWriter, RingCapture, Session, crash_dump_disable, crash_dump_enable,  # noqa: E402
                      dtype_size, ring_finish, ring_start, storage_bytes)
