#!/bin/sh
# tests/e2e/wakers.sh: report --off-cpu --wakers on waits whose wakers are
# known by construction (tests/helpers/wakers.c: a lock held in hold_lock()
# and waited for in wait_lock(); a pipe written after a sleep in write_late()
# and read in read_pipe()): the folded waker lines (bcc offwaketime's layout)
# give >= 90% of each waiter's time to the right waker function, each
# waiter's total within 5% of what the workload measured; the text report
# names the waker under the waiting stack; the JSON trace draws an arrow
# from the waker to each wait it ended; a file without waker stacks and
# an output that draws none are one line, exit 64.
. "$TESTLIB"

mkdir -p "$T/out"
record_fg -q --off-cpu -g -o "$T/out" -- "$HELPERS/wakers" 20 30 20 >"$T/measured.txt" ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
F=$1
"$FLIGHTREC" report --off-cpu --wakers --folded "$F" >"$T/wakers.folded" || fail "--wakers --folded exited $?"
grep -q ';--;' "$T/wakers.folded" || fail "no waker line: $(head -3 "$T/wakers.folded")"
# WAITER WAKER: the waiter's us (stacks with ;WAITER; before --), the part whose
# waker stack (after --) has WAKER, and what the workload measured
check() {
	want=$(awk -v f="$1" '$1 == f {print $2}' "$T/measured.txt")
	set -- "$1" "$2" $(awk -v w=";$1;" -v k=";$2;" '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		i = index(line, ";--;"); waiter = substr(line, 1, i) ; waker = substr(line, i + 3) ";"
		if (index(waiter, w)) { tot += n; if (index(waker, k)) ok += n }
	} END {print tot + 0, ok + 0}' "$T/wakers.folded")
	[ "$3" -gt 0 ] || fail "no waits under $1: $(cut -c1-300 "$T/wakers.folded")"
	awk -v t="$3" -v k="$4" 'BEGIN {exit !(k >= 0.9 * t)}' ||
		fail "$1: $4 of $3 us woken by $2 (< 90%): $(cut -c1-400 "$T/wakers.folded")"
	awk -v t="$3" -v m="$want" 'BEGIN {d = t - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05 * m)}' ||
		fail "$1: $3 us off-CPU with a waker, the workload measured $want us"
	pass "$1: $3 us (measured $want), $(awk -v t="$3" -v k="$4" 'BEGIN {printf "%.1f", 100 * k / t}')% woken by $2"
}
check wait_lock hold_lock
check read_pipe write_late
# the text: the waker under the waiting stack
"$FLIGHTREC" report "$F" >"$T/text.txt" || fail "report exited $?"
grep -q '^# wakers (sched_waking' "$T/text.txt" || fail "no wakers line in the text header"
awk '/<- wait_lock <-/ {on = 1; next} on && /woken by/ {print; exit} on {exit}' "$T/text.txt" |
	grep -q 'hold_lock' || fail "the text names no hold_lock under wait_lock: $(grep -A2 'wait_lock' "$T/text.txt" | head -6)"
pass "text: wait_lock's stack woken by hold_lock"
# the JSON trace: an arrow (flow events) from the holder to the waiter at
# each wait it ended: the lock and the pipe, 20 each (the round flags race)
"$FLIGHTREC" report --format=json -o "$T/t.json" "$F" || fail "--format=json exited $?"
python3 - "$T/t.json" <<'PY' || fail "the JSON trace's waker arrows"
import collections, json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents'] if isinstance(d, dict) else d
s = {e['id']: e for e in ev if e.get('cat') == 'wakeup' and e['ph'] == 's'}
f = {e['id']: e for e in ev if e.get('cat') == 'wakeup' and e['ph'] == 'f'}
assert s and set(s) == set(f), 'unpaired flow events'
pairs = collections.Counter((s[i]['tid'], f[i]['tid']) for i in s if s[i]['tid'] != f[i]['tid'])
(a, b), n = pairs.most_common(1)[0]
assert n >= 40, pairs   # the lock's and the pipe's, 20 each (the flags' may race)
print('ok: %d waker arrows from thread %d to %d, %d back' % (n, a, b, pairs[(b, a)]))
PY
# the HTML page: the waiting thread's wait slices name their waker (a
# title per wait a pixel or wider): the lock's and the pipe's, 20 each
"$FLIGHTREC" report --format=html -o "$T/p.html" "$F" || fail "--format=html exited $?"
n=$(grep -o 'class="woken"[^>]*><title>[^<]*' "$T/p.html" |
	grep -c 'in [^,]*wait_lock, woken by [0-9]* wakers in .*hold_lock')
m=$(grep -o 'class="woken"[^>]*><title>[^<]*' "$T/p.html" |
	grep -c 'in [^,]*read_pipe[^,]*, woken by [0-9]* wakers in .*write_late')
[ "$n" -ge 15 ] && [ "$m" -ge 15 ] ||
	fail "the page titles $n wait_lock slices with hold_lock and $m read_pipe slices with write_late (want >= 15 each of 20): $(grep -o 'class="woken"[^>]*><title>[^<]*' "$T/p.html" | head -3)"
pass "html: $n wait_lock slices woken by hold_lock, $m read_pipe slices by write_late"
# the flame graph draws the same lines
"$FLIGHTREC" report --wakers --flamegraph "$T/w.svg" "$F" || fail "--wakers --flamegraph exited $?"
grep -q 'hold_lock' "$T/w.svg" && grep -q '>--<\|title>--' "$T/w.svg" || fail "the waker flame graph lacks hold_lock or --"
pass "the waker flame graph"

# the critical path of the waiting thread: while it waited in wait_lock and
# read_pipe, the holder slept in nap under hold_lock and write_late (the
# workload's construction): those two rows of the table, within 5% of the
# waiter's measured waits (the holder's naps end each wait but for the
# wakeup's latency; the path's runnable time is the waiter's own row)
WT=$("$FLIGHTREC" report --format=waits "$F" | awk '/<- wait_lock <-/ {print $6; exit}')
[ -n "$WT" ] || fail "no wait_lock wait in --format=waits"
"$FLIGHTREC" report --critical-path "$WT" "$F" >"$T/cp.txt" || fail "--critical-path exited $?"
cp_ms() {   # the table's ms of the holder's nap under $1
	awk -v k="nap <- $1 <- holder" '/^# the path/ {exit} index($0, k) && $3 != '"$WT"' {s += $1} END {printf "%.0f", s * 1000}' "$T/cp.txt"
}
for pair in "wait_lock hold_lock" "read_pipe write_late"; do
	set -- $pair
	want=$(awk -v f="$1" '$1 == f {print $2}' "$T/measured.txt")
	got=$(cp_ms "$2")
	awk -v g="$got" -v m="$want" 'BEGIN {d = g - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.05 * m)}' ||
		fail "--critical-path $WT: $got us in $2's nap, the workload measured $want us in $1: $(head -12 "$T/cp.txt")"
	pass "--critical-path: $1's waits were $2's nap: $got us (measured $want)"
done
grep -q "woken by [0-9]* wakers in .*do_unlock <- hold_lock" "$T/cp.txt" ||
	fail "--critical-path names no waker in hold_lock: $(sed -n '/^# the path/,+4p' "$T/cp.txt")"
expect_error 64 "not with --pid" "$FLIGHTREC" report --critical-path "$WT" --pid 1 "$F"
expect_error 64 "expected a thread id" "$FLIGHTREC" report --critical-path 12x "$F"
expect_error 1 "thread 2147483647 was not seen" "$FLIGHTREC" report --critical-path 2147483647 "$F"

# refused: no waker stacks (no -g), an output that draws none
mkdir -p "$T/nog"
record_fg -q --off-cpu -o "$T/nog" -- "$HELPERS/wakers" 2 5 5 >/dev/null || fail "record exited $?"
set -- "$T"/nog/*.frec
expect_error 64 "have no stacks" "$FLIGHTREC" report --wakers --folded "$1"
expect_error 64 "draw the waits with their wakers" "$FLIGHTREC" report --wakers "$F"
expect_error 64 "have no stacks" "$FLIGHTREC" report --critical-path 1 "$1"
exit 0
