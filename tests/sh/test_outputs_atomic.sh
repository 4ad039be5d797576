#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# File outputs are written whole or not at all (write/outfile.h): report -o,
# convert -o, convert --split-every and timing --trace-out. A write that fails
# (here: past a file-size limit, EFBIG) leaves the old file as it was, leaves
# no temporary behind, exits 3 and names the reason; an output that is one of
# the inputs (by name, through a symbolic link, or a hard link) is refused
# with exit 2 before anything is read or written; a success replaces the file
# a symbolic link points to (the link stays) and keeps the old file's mode;
# a FIFO or device is written in place, never replaced.
set -u
STINT=${STINT_BIN:?}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# a trace whose outputs pass 64 KiB (the size limit below)
awk 'BEGIN{printf "{\"traceEvents\":[\n"; for(i=0;i<3000;i++) printf "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":5,\"name\":\"span_number_%d\"}\n", (i?",":""), i%7, i*10, i; print "]}"}' > t.json
printf '[STRACE] v=1 pid=1 tid=1 inv=0 hid=0 depth=0 name=a ts=1000 dur=5000\n' > t.log

# 1. a failed write leaves the old file and no temporary
for c in "report t.json -o out.html" "convert t.json -o out.html --to chrome" "convert t.json -o out.html --to jsonl"; do
  printf 'OLD\n' > out.html
  ( trap '' XFSZ; ulimit -f 64; "$STINT" $c ) > /dev/null 2> err; rc=$?
  [ "$rc" = 3 ] || bad "$c past the size limit: exit $rc, expected 3"
  [ "$(cat out.html)" = OLD ] || bad "$c: the old file was changed by a failed write"
  ls -A | grep -q 'stint-' && { bad "$c: a temporary was left: $(ls -A | grep stint-)"; rm -f .*stint-*; }
  grep -q 'File too large' err || bad "$c: the message does not name the reason: $(cat err)"
done

# 2. --split-every: a failed part leaves no temporary
( trap '' XFSZ; ulimit -f 64; "$STINT" convert t.json -o part.json --to chrome --split-every 100000000 ) > /dev/null 2>&1
ls -A | grep -q 'stint-' && bad "--split-every: a temporary was left"

# 3. the output is an input: by name, symbolic link, hard link
cp t.json keep.json
ln -s t.json link.json
ln t.json hard.json
for o in t.json link.json hard.json ./t.json; do
  for c in "report t.json -o $o" "convert t.json -o $o --to chrome" "convert t.json -o $o --to folded"; do
    "$STINT" $c > /dev/null 2> err; rc=$?
    [ "$rc" = 2 ] || bad "$c: exit $rc, expected 2 (the output is the input)"
    grep -q 'is the input' err || bad "$c: no message saying why: $(cat err)"
    cmp -s t.json keep.json || { bad "$c: the input was changed"; cp keep.json t.json; }
  done
done
"$STINT" timing t.log --trace-out t.log > /dev/null 2> err; rc=$?
[ "$rc" = 2 ] || bad "timing --trace-out onto its log: exit $rc, expected 2"
[ "$(head -c 8 t.log)" = '[STRACE]' ] || bad "timing --trace-out wrote onto its input"

# 4. success: the target a link points to is replaced, the link stays, the mode is kept
printf 'OLD\n' > real.html
chmod 640 real.html
ln -s real.html via.html
"$STINT" report t.json -o via.html 2> err || bad "report through a link failed: $(cat err)"
[ -L via.html ] || bad "the symbolic link was replaced by a file"
grep -q '<html' real.html || bad "the link's target was not written"
[ "$(stat -c %a real.html)" = 640 ] || bad "the mode changed: $(stat -c %a real.html)"
"$STINT" timing t.log --trace-out tr.json > /dev/null 2> err || bad "timing --trace-out failed: $(cat err)"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' tr.json 2>/dev/null || bad "timing --trace-out is not JSON"
ls -A | grep -q 'stint-' && bad "a temporary was left after success"

# 5. a target that is no regular file (a FIFO here; /dev/null, /dev/stdout alike) is written in place,
#    never replaced by a rename
mkfifo fifo.json
cat fifo.json > from_fifo.json &
"$STINT" convert t.json -o fifo.json --to chrome 2> err || bad "convert to a FIFO failed: $(cat err)"
wait
[ -p fifo.json ] || bad "the FIFO was replaced by a plain file"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' from_fifo.json 2>/dev/null || bad "the FIFO's reader got no JSON"

# 6. a command killed while it writes (SIGTERM, SIGINT at a few moments) leaves the old file or the
#    whole new one, and no temporary
awk 'BEGIN{printf "{\"traceEvents\":[\n"; for(i=0;i<200000;i++) printf "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":5,\"name\":\"s%d\"}\n", (i?",":""), i%5, i*10, i%100; print "]}"}' > big.json
for d in 0.3 1; do
  for sig in TERM INT; do
    printf 'OLD\n' > k.json
    "$STINT" convert big.json -o k.json --to chrome 2>/dev/null & pid=$!
    sleep $d; kill -$sig $pid 2>/dev/null; wait $pid 2>/dev/null
    if [ "$(head -c 4 k.json)" != OLD ]; then
      python3 -c 'import json,sys; json.load(open(sys.argv[1]))' k.json 2>/dev/null || bad "SIG$sig after ${d}s: k.json is neither the old file nor a whole trace"
    fi
    ls -A | grep -q 'stint-' && { bad "SIG$sig after ${d}s: a temporary was left: $(ls -A | grep stint-)"; rm -f .*stint-*; }
  done
done

[ $fail = 0 ] && echo "PASS: outputs are atomic and never an input"
exit $fail
