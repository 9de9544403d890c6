#!/bin/sh
# tests/e2e/emfile.sh: a recorder that runs out of file descriptors after it
# started (its RLIMIT_NOFILE lowered to what it holds, with prlimit) answers
# each snapshot client with an error instead of leaving it waiting, says so
# once, does not spin (the connection it could not take kept poll() waking:
# 100% CPU before), and serves snapshots again once descriptors are free.
. "$TESTLIB"

command -v prlimit >/dev/null || { echo "SKIP: no prlimit (util-linux)" >&2; exit 77; }
mkdir -p "$T/out"
record_bg fd -a -e cpu-clock -F 99 -o "$T/out"
# the limit at the lowest free descriptor: the next one it opens fails.
# Its descriptors settle first: a start-up reader (/proc/kallsyms, /proc
# scans) that closes its file later would leave a free one below the limit
# (on a loaded machine a client then got in and its snapshot failed instead)
fds() { ls /proc/$RECPID/fd | sort -n | tr '\n' ' '; }
a=$(fds); for _ in $(seq 1 20); do sleep 0.5; b=$(fds); [ "$a" = "$b" ] && break; a=$b; done
nfd=$(ls /proc/$RECPID/fd | sort -n | awk '$1 != NR - 1 {print NR - 1; f = 1; exit} END {if (!f) print NR}')
hard=$(prlimit --pid "$RECPID" --nofile -o HARD --noheadings | tr -d ' ')
soft=$(prlimit --pid "$RECPID" --nofile -o SOFT --noheadings | tr -d ' ')
prlimit --pid "$RECPID" --nofile="$nfd:$hard" || fail "prlimit exited $?"
cpu0=$(awk '{print $14 + $15}' /proc/$RECPID/stat)
for i in 1 2 3; do
	out=$(timeout 10 "$FLIGHTREC" snapshot --name fd 2>&1); rc=$?
	[ "$rc" -ne 124 ] || fail "snapshot $i waited 10 s for an answer"
	[ "$rc" -ne 0 ] || fail "snapshot $i succeeded with no descriptor to spare? ($out)"
	echo "$out" | grep -q 'out of file descriptors' || fail "snapshot $i: $out"
done
sleep 2
cpu1=$(awk '{print $14 + $15}' /proc/$RECPID/stat)
[ $((cpu1 - cpu0)) -lt 50 ] || fail "the recorder used $((cpu1 - cpu0)) ticks in ~2 s starved: spinning"
n=$(grep -c 'accepting a snapshot client: Too many open files' "$T/record-fd.err")
[ "$n" -eq 1 ] || fail "said $n times: $(cat "$T/record-fd.err")"
pass "out of descriptors: 3 clients told so, said once, $((cpu1 - cpu0)) ticks in ~2 s"
prlimit --pid "$RECPID" --nofile="$soft:$hard" || fail "prlimit (back) exited $?"
"$FLIGHTREC" snapshot --name fd >/dev/null 2>&1 || fail "snapshot after descriptors came back exited $?"
grep -q 'accepting snapshot clients again' "$T/record-fd.err" || fail "not said: $(cat "$T/record-fd.err")"
kill -INT "$RECPID"; wait "$RECPID"; rc=$?
BGPIDS=""
[ "$rc" -eq 0 ] || fail "the recorder exited $rc"
[ "$(ls "$T/out"/*.frec | wc -l)" -eq 2 ] || fail "files: $(ls "$T/out")"
pass "descriptors back: a snapshot, then the final one, exit 0"
