# SPDX-License-Identifier: MIT
"""Finding and declaring libstint.so (ctypes; no build step).

Search order (the first that loads wins):
  1. the file named by the environment variable STINT_LIBRARY (a path; the
     older name STINT_LIB is read when STINT_LIBRARY is unset); an explicit
     choice is never second-guessed: if it does not load, import fails;
  2. next to the package: libstint.so* in this folder, then in its parent,
     then in the prefix's <libdir>, three folders up: <libdir> itself when
     the package is installed as <libdir>/stint/python/stint (`make
     install`), <prefix>/lib when pip installed it as
     <prefix>/lib/pythonX.Y/site-packages/stint;
  3. the build folder: $STINT_BUILD_DIR, else <repository>/build;
  4. the system: ctypes.util.find_library("stint"), then "libstint.so.0".

Every function prototype of include/stint/stint.h and include/stint/session.h
used by the package is declared here once, with the C types, so that a
wrong argument fails in Python instead of corrupting memory.
"""

import ctypes
import ctypes.util
import glob
import os

from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t,
                    c_uint, c_uint32, c_uint64, c_void_p)

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("STINT_LIBRARY") or os.environ.get("STINT_LIB")
    if env:
        yield env
        return  # an explicit choice is never second-guessed
    installed_libdir = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
    for folder in (_HERE, os.path.dirname(_HERE), installed_libdir):
        for path in sorted(glob.glob(os.path.join(folder, "libstint.so*"))):
            yield path
    build = os.environ.get("STINT_BUILD_DIR") or os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build")
    yield os.path.join(build, "libstint.so")
    found = ctypes.util.find_library("stint")
    if found:
        yield found
    yield "libstint.so.0"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("stint: cannot load libstint.so; tried: " + "; ".join(tried) +
                      ". Set STINT_LIBRARY to the library's path.")


lib, path = _load()


class Loc(Structure):
    _fields_ = [("name", c_char_p), ("attrs", c_char_p), ("file", c_char_p), ("func", c_char_p), ("line", c_int)]


class Span(Structure):
    _fields_ = [("token", c_uint32)]


class Stats(Structure):
    _fields_ = [("spans_recorded", c_uint64), ("spans_dropped", c_uint64), ("spans_written", c_uint64),
                ("spans_autoclosed", c_uint64), ("spans_too_deep", c_uint64), ("attrs_dropped", c_uint64),
                ("names_truncated", c_uint64), ("threads", c_uint64), ("drop_first_ts_ns", c_int64),
                ("drop_last_ts_ns", c_int64), ("sink_error", c_int), ("clock_tsc", c_int),
                ("sink_spans_lost", c_uint64)]  # (stint.h's stint_stats, field for field)


class Tag(Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


class SessionOptions(Structure):
    _fields_ = [("entrypoint", c_char_p), ("correlation_id", c_char_p), ("run_id", c_char_p),
                ("device", c_char_p), ("phase", c_int), ("timing_mode", c_int), ("capture_step", c_uint64),
                ("warmup_steps", c_int64), ("flags", c_uint), ("tags", POINTER(Tag)), ("ntags", c_size_t)]


class OpRecord(Structure):
    _fields_ = [("span_id", c_uint64), ("op_name", c_char_p), ("inputs", POINTER(c_char_p)),
                ("ninputs", c_size_t), ("output", c_char_p), ("shape", POINTER(c_uint64)), ("ndim", c_size_t),
                ("dtype", c_char_p), ("device", c_char_p), ("duration_ns", c_int64), ("timestamp_ns", c_int64),
                ("storage_bytes", c_int64), ("input_storage_bytes", c_uint64)]


class TensorRecord(Structure):
    _fields_ = [("span_id", c_uint64), ("tensor_id", c_char_p), ("shape", POINTER(c_uint64)), ("ndim", c_size_t),
                ("dtype", c_char_p), ("device", c_char_p), ("requires_grad", c_int), ("storage_bytes", c_int64),
                ("category", c_int)]


class MemoryRecord(Structure):
    _fields_ = [("span_id", c_uint64), ("tensor_id", c_char_p), ("op_name", c_char_p), ("device", c_char_p),
                ("bytes", c_uint64), ("action", c_int), ("shape", POINTER(c_uint64)), ("ndim", c_size_t),
                ("dtype", c_char_p), ("category", c_int), ("timestamp_ns", c_int64)]


class SessionStats(Structure):
    _fields_ = [("lines", c_uint64), ("bytes", c_uint64), ("invalid_utf8", c_uint64), ("size_overflows", c_uint64)]


class RingEvent(Structure):
    _fields_ = [("name", c_char_p), ("ts_ns", c_int64), ("dur_ns", c_int64), ("pid", c_int32), ("tid", c_int32),
                ("depth", c_int)]


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


S = c_int  # stint_status
_proto("stint_strerror", c_char_p, S)
_proto("stint_version", c_char_p)
_proto("stint_span_begin", Span, POINTER(Loc))
_proto("stint_span_begin_copy", Span, c_char_p, c_size_t)
_proto("stint_span_end", None, Span)
_proto("stint_attr_i64", None, c_char_p, c_int64)
_proto("stint_attr_u64", None, c_char_p, c_uint64)
_proto("stint_attr_f64", None, c_char_p, c_double)
_proto("stint_attr_bool", None, c_char_p, c_int)
_proto("stint_attr_str", None, c_char_p, c_char_p)
_proto("stint_invocation_begin", c_uint64)
_proto("stint_set_invocation", None, c_uint64)
_proto("stint_current_invocation", c_uint64)
_proto("stint_set_hid", None, c_uint64)
_proto("stint_hid_of_elf", c_uint64, c_char_p, c_size_t)
_proto("stint_fnv1a64", c_uint64, c_char_p, c_size_t)
_proto("stint_hid_of_address", c_uint64, c_void_p)
_proto("stint_set_enabled", None, c_int)
_proto("stint_is_enabled", c_int)
_proto("stint_flush", S)
_proto("stint_shutdown", S)
_proto("stint_markers_to_fd", S, c_int, c_uint)
_proto("stint_markers_to_path", S, c_char_p, c_uint)
_proto("stint_markers_off", None)
_proto("stint_get_stats", None, POINTER(Stats))
_proto("stint_now_ns", c_int64)
_proto("stint_device_span", None, c_char_p, c_int64, c_int64, c_int)

_proto("stint_session_open", S, c_char_p, POINTER(SessionOptions), POINTER(c_void_p), c_char_p, c_size_t)
_proto("stint_session_span_begin", S, c_void_p, c_char_p, c_int, c_int, POINTER(c_uint64))
_proto("stint_session_measure_begin", S, c_void_p, c_char_p, POINTER(c_uint64))
_proto("stint_session_span_end", S, c_void_p, c_uint64)
_proto("stint_session_op", S, c_void_p, POINTER(OpRecord))
_proto("stint_session_tensor", S, c_void_p, POINTER(TensorRecord))
_proto("stint_session_memory", S, c_void_p, POINTER(MemoryRecord))
_proto("stint_session_device_memory", S, c_void_p, c_char_p, c_uint64, c_uint64, c_int64, c_int64)
_proto("stint_session_gradient", S, c_void_p, c_char_p, c_char_p, c_int, POINTER(c_double))
_proto("stint_session_counter", S, c_void_p, c_char_p, c_double, c_char_p)
_proto("stint_session_fork", S, c_void_p, c_int32, c_int32)
_proto("stint_session_dropped", S, c_void_p, c_int32, c_uint64, c_int64, c_int64)
_proto("stint_session_flush", S, c_void_p)
_proto("stint_session_finish", S, c_void_p)
_proto("stint_session_message", c_char_p, c_void_p)
_proto("stint_session_get_stats", None, c_void_p, POINTER(SessionStats))
_proto("stint_session_free", None, c_void_p)
_proto("stint_dtype_size", c_size_t, c_char_p)
_proto("stint_storage_bytes", c_uint64, POINTER(c_uint64), c_size_t, c_char_p, POINTER(c_int))

_proto("stint_ring_start", S, c_size_t)
_proto("stint_ring_finish", S, POINTER(c_void_p))
_proto("stint_ring_capture_count", c_size_t, c_void_p)
_proto("stint_ring_capture_dropped", c_uint64, c_void_p)
_proto("stint_ring_capture_event", S, c_void_p, c_size_t, POINTER(RingEvent))
_proto("stint_ring_capture_write_chrome", S, c_void_p, c_char_p)
_proto("stint_ring_capture_free", None, c_void_p)
_proto("stint_ring_crash_dump_enable", S, c_char_p)
_proto("stint_ring_crash_dump_disable", None)

_proto("stint_chrome_open", S, c_char_p, POINTER(c_void_p), c_char_p, c_size_t)
_proto("stint_chrome_counter", S, c_void_p, c_char_p, c_double)
_proto("stint_chrome_close", S, c_void_p)

# The runtime switch as the C macros read it.
g_enabled = c_int.in_dll(lib, "stint_g_enabled")
