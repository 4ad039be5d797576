#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gzip members and their trailers (input.c), with and without the inflate
# thread. With ISA-L, stint reads each member's header and 8-byte trailer
# itself and checks the trailer's size and CRC-32: on the thread that inflates when there is one thread, else
# on the reader (the inflate thread leaves a record of each member end in
# its block; while it is ahead it finds the CRC-32 of the block's pieces
# itself and the reader only combines them). None of that may change what
# is read: a trace written as one member, as 40 members cut anywhere (some
# empty, some with a name, comment, extra field and header CRC), and as
# 3,000 small members (more ends than a block records: the rest checked inline)
# gives the plain file's summary, byte for byte, with the inflate thread
# (the default), with it finding every block's CRC-32 (STINT_PIPE_SCAN_ALL)
# and without it (STINT_NO_INFLATE_THREAD). And every damaged trailer is an
# error (exit 1, the report marked partial) naming the compressed byte: a
# wrong CRC-32 in the last member, in a middle one and in one of the small
# ones; a wrong size; a trailer cut short; a second member cut in its
# header; bytes after the last member that are not a member.
set -u
STINT=${STINT_BIN:?STINT_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
python3 - "$T" <<'PY'
import gzip, random, struct, sys, zlib
d = sys.argv[1]
random.seed(11)
ev, ts = [], 0
for i in range(30000):
    ts += random.randint(1, 40)
    ev.append('{"ph": "X", "name": "n%d", "cat": "c%d", "pid": 1, "tid": %d, "ts": %d, "dur": %d, '
              '"args": {"i": %d, "s": "%s"}}' % (i % 41, i % 5, 1 + i % 4, ts, random.randint(0, 30), i,
                                                 "x" * random.randint(0, 60)))
src = ('{"traceEvents": [\n' + ",\n".join(ev) + '\n]}\n').encode()
open(d + "/t.json", "wb").write(src)

def member(data, level=6):
    return gzip.compress(data, level, mtime=0)

def member_fields(data):
    """A member whose header has FEXTRA, FNAME, FCOMMENT and FHCRC."""
    h = b"\x1f\x8b\x08\x1e" + b"\0" * 4 + b"\0\x03" + struct.pack("<H", 6) + b"ab\x02\x00xy" + b"t.json\0" + b"note\0"
    h += struct.pack("<H", zlib.crc32(h) & 0xffff)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return h + c.compress(data) + c.flush() + struct.pack("<II", zlib.crc32(data), len(data) & 0xffffffff)

one = member(src, 1)
open(d + "/one.json.gz", "wb").write(one)
cuts = sorted(random.sample(range(1, len(src)), 39))
parts = [src[a:b] for a, b in zip([0] + cuts, cuts + [len(src)])]
mm = b""
for k, p in enumerate(parts):
    if k % 4 == 1:
        mm += member(b"")
    mm += member_fields(p) if k % 5 == 2 else member(p, random.choice([1, 6, 9]))
open(d + "/many.json.gz", "wb").write(mm)
step = len(src) // 3000 + 1
small = [member(src[a:a + step], 1) for a in range(0, len(src), step)]
open(d + "/small.json.gz", "wb").write(b"".join(small))

def flip(b, at, bit=1):
    b = bytearray(b)
    b[at] ^= bit
    return bytes(b)

bad = {
    "crc_last": flip(one, len(one) - 8),
    "size_last": flip(one, len(one) - 4),
    "cut_trailer": one[:-3],
    "crc_middle": flip(member(src[:len(src) // 2]), -6, 0x10) + member(src[len(src) // 2:]),
    "crc_small": b"".join(small[:1500]) + flip(small[1500], -7) + b"".join(small[1501:]),
    "cut_second_header": member(src[:len(src) // 2]) + member(src[len(src) // 2:])[:5],
    "garbage_after": one + b"not a gzip member",
}
for name, data in bad.items():
    open(d + "/bad_%s.json.gz" % name, "wb").write(data)
PY
MODES="STINT_DEFAULT=1 STINT_PIPE_SCAN_ALL=1 STINT_NO_INFLATE_THREAD=1"
"$STINT" summary --json "$T/t.json" > "$T/want.json" 2>/dev/null || { echo "FAIL: the plain trace"; exit 1; }
for f in one many small; do
    for mode in $MODES; do
        env "$mode" "$STINT" summary --json "$T/$f.json.gz" > "$T/got.json" 2> "$T/err"
        rc=$?
        sed -i "s|$T/$f.json.gz|$T/t.json|g" "$T/got.json"
        if [ $rc -ne 0 ] || ! cmp -s "$T/want.json" "$T/got.json"; then
            echo "FAIL: $f.json.gz ($mode): exit $rc, or a summary other than the plain file's"
            head -3 "$T/err"
            fail=1
        fi
    done
done
# a build with zlib and no ISA-L has zlib's messages (zlib checks the trailers itself)
ldd "$STINT" 2>/dev/null | grep -q libisal || ISAL_MISSING=1
check_bad() { # name, pattern the message must match, "both": zlib's build says it too
    pat=$2
    [ -n "${ISAL_MISSING:-}" ] && [ "${3:-}" != both ] && pat="(corrupt gzip data|gzip stream is truncated)"
    for mode in $MODES; do
        env "$mode" "$STINT" summary "$T/bad_$1.json.gz" > "$T/out" 2> "$T/err"
        rc=$?
        if [ $rc -ne 1 ] || ! grep -Eq "bad_$1.json.gz: compressed byte [0-9]+: $pat" "$T/err" ||
            ! grep -q "PARTIAL" "$T/out"; then
            echo "FAIL: bad_$1.json.gz ($mode): exit $rc (want 1), or no message matching '$pat', or not partial"
            head -3 "$T/err"
            fail=1
        fi
    done
}
check_bad crc_last "corrupt gzip data \(CRC-32 of a member's inflated bytes is [0-9a-f]{8}, its trailer says [0-9a-f]{8}\)"
check_bad size_last "corrupt gzip data \(a member inflated to [0-9]+ bytes, its trailer says [0-9]+ mod 2\^32\)"
check_bad cut_trailer "gzip stream is truncated \(expected more of the gzip trailer\)"
check_bad crc_middle "corrupt gzip data \(CRC-32"
check_bad crc_small "corrupt gzip data \(CRC-32"
check_bad cut_second_header "gzip stream is truncated \(expected more gzip header\)"
check_bad garbage_after "the data after the gzip member that ends here is not a gzip member" both
[ $fail -eq 0 ] && echo "ok: gzip members and trailers (3 layouts x 3 modes, 7 damaged trailers x 3 modes)"
exit $fail
