# SPDX-License-Identifier: MIT
# gen.py OUT [--cut N] - writes a small binary capture (docs/formats/capture.md)
# from the layout alone, independently of libstint: two threads of process 4242,
# nested spans with attributes, a device span, a loss report, in two blocks; with
# --cut N the file stops N bytes into its second block's payload (a torn tail).
import struct
import sys


def entry(kind, body, flags=0, n16=0):
    size = 8 + len(body)
    pad = (-size) % 8
    return struct.pack('<IBBH', size + pad, kind, flags, n16) + body + b'\0' * pad


strings = {}
out_entries = []


def sid(s):
    if s == '':
        return 0
    if s not in strings:
        strings[s] = len(strings) + 1
        b = s.encode()
        out_entries.append(entry(1, struct.pack('<II', strings[s], len(b)) + b))
    return strings[s]


def thread(tid, name):
    b = name.encode()
    out_entries.append(entry(3, struct.pack('<iiQ', 4242, tid, 0x7f00 + tid) + b))


def span(tid, depth, name, ts, dur, inv=0, hid=0, static='', attrs=(), flags=0):
    n, s = sid(name), sid(static)
    keys = [sid(k) for k, _, _ in attrs]
    head = struct.pack('<iiIIqqQQ', tid, depth, n, s, ts, dur, inv, hid)
    arr, strs = b'', b''
    for (k, t, v), kid in zip(attrs, keys):
        if t == 5:
            b = v.encode()
            arr += struct.pack('<IBBHQ', kid, t, 0, len(b), 0)
            strs += b + b'\0' * ((-len(b)) % 8)
        elif t == 3:
            arr += struct.pack('<IBBHd', kid, t, 0, 0, v)
        else:
            arr += struct.pack('<IBBHq', kid, t, 0, 0, v)
    out_entries.append(entry(2, head + arr + strs, flags, len(attrs)))


def block(seq):
    global out_entries
    payload = b''.join(out_entries)
    a = b = 0
    for (w,) in struct.iter_unpack('<Q', payload):
        a = (a + w) % 2**64
        b = (b + a) % 2**64
    head = struct.pack('<IIIIQQ', 0x4B4C4253, len(payload), len(out_entries), seq, a, b)
    out_entries = []
    return head + payload


header = b'STINTCAP' + struct.pack('<IIIiqqII', 1, 0x01020304, 64, 4242, 1000, 1700000000000000000, 0, 1 << 20)
header += b'\0' * (64 - len(header))
out_entries.append(entry(5, struct.pack('<IIqq', 0, 0, 1000, 1700000000000000000)))
thread(11, 'main')
thread(12, 'worker 1')
# thread 11: step (depth 0) holding load and compute (depth 1); spans end innermost first
span(11, 1, 'load', 1000, 300, inv=1, hid=0xabc, attrs=[('bytes', 2, 4096), ('path', 5, 'a b.bin')])
span(11, 1, 'compute', 1400, 500, inv=1, hid=0xabc, attrs=[('ratio', 3, 0.25), ('ok', 4, 1)])
span(11, 0, 'step', 900, 1100, inv=1, hid=0xabc, static='phase=train')
span(12, 0, 'prefetch', 950, 400, attrs=[('n', 1, -3)])
span(11, 0, 'kernel', 0, 250, inv=1, flags=1)  # a device span: clk=dev
out_entries.append(entry(4, struct.pack('<iiQqq', 4242, 12, 7, 1500, 1900)))
first = block(0)
span(11, 0, 'step', 2100, 900, inv=2, hid=0xabc, static='phase=train')
span(12, 0, 'prefetch', 2200, 100)
span(12, 0, 'prefetch', 2400, 150)
second = block(1)
data = header + first + second
if len(sys.argv) > 3 and sys.argv[2] == '--cut':
    data = header + first + second[:32 + int(sys.argv[3])]
open(sys.argv[1], 'wb').write(data)
