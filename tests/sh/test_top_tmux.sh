#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stint top` driven as a person would, in a tmux pane: a writer appends
# markers at a known rate with known durations (some records written in two
# pieces, a pause between them), `stint top` follows the log full screen,
# capture-pane reads the screen, and the test checks the calls (exactly,
# against the lines written), the means (exactly: the durations are fixed),
# the rates (against the rate the writer achieved, read from the log) and the
# lanes' busy shares; then sends keys (sort, filter, pause, since start,
# grouping, resize),
# truncates the log and rotates it (a new file takes its name), checks that
# the view follows both, and quits with q (exit status 0).
set -euo pipefail
STINT=${STINT_BIN:?}
if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux is not installed (scripts/deps.sh installs it)"
  exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/stint-top-tmux.XXXXXX")
SOCK=$T/tmux.sock # in the scratch folder: removed with it
WPID=
cleanup() {
  [ -n "$WPID" ] && kill "$WPID" 2>/dev/null || true
  tmux -S "$SOCK" kill-server 2>/dev/null || true
  rm -rf "$T"
}
trap cleanup EXIT
LOG=$T/run.log
: > "$LOG"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The writer: decode.step on lane 7/1 every 20 ms lasting 15 ms, prefill on
# lane 7/2 every 100 ms lasting 50 ms, times from CLOCK_MONOTONIC as the
# marker writer's; every 7th record is written in two pieces 60 ms apart.
cat > "$T/writer.py" <<'PY'
import os, sys, time
log, count = sys.argv[1], sys.argv[2]
f = open(log, "a", buffering=1)
n = 0
t_next = time.monotonic()
k = 0
while True:
    k += 1
    now = time.monotonic_ns()
    lines = ["[STRACE] v=1 pid=7 tid=1 inv=%d hid=aa depth=0 name=decode.step ts=%d dur=15000000\n"
             % (k, now - 15000000)]
    if k % 5 == 0:
        lines.append("[STRACE] v=1 pid=7 tid=2 inv=%d hid=bb depth=0 name=prefill ts=%d dur=50000000\n"
                     % (k, now - 50000000))
    for line in lines:
        if (n + 1) % 7 == 0:
            f.write(line[:30]); f.flush(); time.sleep(0.06); f.write(line[30:])
        else:
            f.write(line)
        f.flush()
        n += 1
    with open(count + ".tmp", "w") as c:
        c.write("%d\n" % n)
    os.replace(count + ".tmp", count)
    t_next += 0.02
    time.sleep(max(0, t_next - time.monotonic()))
PY
python3 "$T/writer.py" "$LOG" "$T/count" &
WPID=$!

tmux -S "$SOCK" -f /dev/null new-session -d -s top -x 150 -y 30 \
  "env TERM=xterm $STINT top $LOG --interval 200ms --window 20s; echo \$? > $T/rc"
tmux -S "$SOCK" set-option -t top remain-on-exit on >/dev/null
screen() { tmux -S "$SOCK" capture-pane -p -t top; }
# waits (up to 8 s) until the screen matches the extended regex $1
wait_for() {
  for _ in $(seq 80); do
    if screen | grep -Eq -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "--- screen:"; screen; return 1
}
row() { screen | awk -v k="$1" '$1 == k'; }

# a screen with both rows (a capture may catch a frame half drawn)
grab() {
  local s
  for _ in $(seq 30); do
    s=$(screen)
    if grep -q '^decode\.step ' <<<"$s" && grep -q '^prefill ' <<<"$s"; then printf '%s\n' "$s"; return 0; fi
    sleep 0.1
  done
  printf '%s\n' "$s"
}
# Wait for 60 records (the writer may start slowly on a loaded machine).
for _ in $(seq 150); do
  [ "$(cat "$T/count" 2>/dev/null || echo 0)" -ge 60 ] && break
  sleep 0.1
done
wait_for '^decode\.step ' || bad "no decode.step row"
# The rates while the writer runs; then stop it, let two ticks pass, and
# read the calls.
run_scr=$(grab)
cp "$LOG" "$T/snap.log" # what the writer had written when that screen was read
kill -STOP "$WPID"
sleep 0.5
scr=$(grab)
written=$(cat "$T/count")
got=$(python3 - "$LOG" "$T/snap.log" <<'PY'
import re, sys
def whole(path):
    return [l for l in open(path) if l.endswith("\n")]
recs = whole(sys.argv[1])
d = [r for r in recs if "decode.step" in r]
p = [r for r in recs if "prefill" in r]
nd, np_, nrec = len(d), len(p), len(recs)
recs = whole(sys.argv[2]) # the rates and the busy share: as of the running screen
d = [r for r in recs if "decode.step" in r]
p = [r for r in recs if "prefill" in r]
ts = [int(re.search(r"ts=(\d+)", r).group(1)) for r in recs]
ends = [int(re.search(r"ts=(\d+)", r).group(1)) + int(re.search(r"dur=(\d+)", r).group(1)) for r in recs]
span = (max(ends) - min(ts)) / 1e9
print(nd, np_, "%.3f" % (len(d) / span), "%.3f" % (len(p) / span), nrec,
      "%.2f" % min(100, 100 * len(d) * 0.015 / span))
PY
)
read -r nd np rd rp nrec bd <<<"$got"
drow=$(awk '$1 == "decode.step"' <<<"$scr")
prow=$(awk '$1 == "prefill"' <<<"$scr")
read -r _ _ drate _ <<<"$(awk '$1 == "decode.step"' <<<"$run_scr")"
read -r _ _ prate _ <<<"$(awk '$1 == "prefill"' <<<"$run_scr")"
echo "written: $written lines ($nrec whole); decode $nd at ${rd}/s, prefill $np at ${rp}/s"
echo "screen:  $drow"
echo "         $prow"
echo "rates while writing: decode.step $drate/s, prefill $prate/s"
read -r _ dcalls _ dmean _ <<<"$drow"
read -r _ pcalls _ pmean _ <<<"$prow"
[ "$dcalls" = "$nd" ] || bad "decode.step calls $dcalls, written $nd"
[ "$pcalls" = "$np" ] || bad "prefill calls $pcalls, written $np"
[ "$dmean" = "15.0ms" ] || bad "decode.step mean $dmean, written 15.0ms"
[ "$pmean" = "50.0ms" ] || bad "prefill mean $pmean, written 50.0ms"
python3 - "$drate" "$rd" "$prate" "$rp" <<'PY' || bad "rates off by more than 25% (prefill 40%)"
import sys
a, b, c, d = map(float, sys.argv[1:])
# decode.step: 50 and more records; prefill: a fifth of them, so one record
# more or less at the window's edges weighs more
sys.exit(0 if abs(a - b) <= 0.25 * b and abs(c - d) <= 0.4 * d else 1)
PY
grep -q 'torn 0 ' <<<"$scr" || bad "a record written in two pieces was counted torn"
busy=$(grep -o '7/1 [0-9.]*%' <<<"$run_scr" | head -1 | awk '{print $2}' | tr -d %)
echo "lane 7/1 busy while writing: $busy%, the writer's: $bd%"
python3 -c "import sys; b, w = float('$busy'), float('$bd'); sys.exit(0 if abs(b - w) <= 0.25 * w else 1)" ||
  bad "lane 7/1 busy $busy%, the writer's $bd%"
kill -CONT "$WPID"

# Keys: sort (s: calls -> calls/s), filter (/pre*), pause (p), since start (t),
# grouping (g), resize.
tmux -S "$SOCK" send-keys -t top s
wait_for 'sort calls/s' || bad "s did not move the sort column"
tmux -S "$SOCK" send-keys -t top / 'pre*' Enter
wait_for "filter 'pre\*'" || bad "the filter is not shown"
screen | grep -q '^decode\.step ' && bad "the filter left decode.step on screen"
screen | grep -q '^prefill ' || bad "the filter hid prefill"
# p pauses (the title says so), t shows since start, both undo themselves.
tmux -S "$SOCK" send-keys -t top p
wait_for 'PAUSED' || bad "p did not pause"
tmux -S "$SOCK" send-keys -t top p t
wait_for '^since start \(' || bad "t did not show since start"
screen | grep -q 'PAUSED' && bad "a second p did not resume"
tmux -S "$SOCK" send-keys -t top t / Enter g
wait_for '^hid ' || bad "g did not group by hid"
wait_for '^0x00000000000000aa ' || bad "no hid row after g"
tmux -S "$SOCK" resize-window -t top -x 100 -y 20 2>/dev/null || tmux -S "$SOCK" resize-pane -t top -x 100 -y 20
sleep 0.5
[ "$(screen | wc -l)" -le 20 ] || bad "the view did not shrink with the terminal"
screen | tail -1 | grep -q 'q quit' || bad "no key line at the bottom after the resize"
tmux -S "$SOCK" resize-window -t top -x 150 -y 30 2>/dev/null || tmux -S "$SOCK" resize-pane -t top -x 150 -y 30
tmux -S "$SOCK" send-keys -t top g g g

# Truncate in place, then rotate (rename away; a new file takes the name).
kill "$WPID"; wait "$WPID" 2>/dev/null || true; WPID=
now=$(python3 -c 'import time; print(time.monotonic_ns())')
: > "$LOG"
printf '[STRACE] v=1 pid=7 tid=3 inv=1 hid=cc depth=0 name=after.truncate ts=%d dur=1000\n' "$now" >> "$LOG"
wait_for 'truncated 1 ' || bad "the truncation is not shown"
wait_for '^after\.truncate ' || bad "records after the truncation are not shown"
mv "$LOG" "$LOG.1"
printf '[STRACE] v=1 pid=7 tid=3 inv=2 hid=cc depth=0 name=after.rotate ts=%d dur=2000\n' "$((now + 5000))" > "$LOG"
wait_for 'rotated 1' || bad "the rotation is not shown"
wait_for '^after\.rotate ' || bad "records of the new file are not shown"

tmux -S "$SOCK" send-keys -t top q
for _ in $(seq 50); do
  [ "$(tmux -S "$SOCK" display-message -p -t top '#{pane_dead}')" = 1 ] && break
  sleep 0.1
done
[ "$(tmux -S "$SOCK" display-message -p -t top '#{pane_dead}')" = 1 ] || bad "q did not end stint top"
st=$(cat "$T/rc" 2>/dev/null || echo none)
[ "$st" = 0 ] || bad "stint top exited $st after q"
[ $fail = 0 ] && echo "ok: rates, means, calls, busy, keys, resize, truncation, rotation and quit"
exit $fail
