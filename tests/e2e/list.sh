#!/bin/sh
# tests/e2e/list.sh: flightrec list [GLOB]: tracepoints from tracefs, software
# events, hardware events marked where no PMU counts them; sorted output; a
# glob that matches nothing prints nothing and exits 0.
. "$TESTLIB"

"$FLIGHTREC" list 'syscalls:sys_enter_rea*' >"$T/rea.txt" 2>"$T/err" || fail "list exited $?: $(cat "$T/err")"
grep -Eq '^  syscalls:sys_enter_read +\[Tracepoint event\]$' "$T/rea.txt" ||
	fail "no sys_enter_read: $(cat "$T/rea.txt")"
grep -v 'syscalls:sys_enter_rea' "$T/rea.txt" | grep -q . && fail "the glob let through: $(cat "$T/rea.txt")"
awk '{print $1}' "$T/rea.txt" >"$T/names"
LC_ALL=C sort -c "$T/names" || fail "not sorted: $(cat "$T/names")"
pass "list 'syscalls:sys_enter_rea*': $(wc -l <"$T/names") tracepoints, sorted"

out=$("$FLIGHTREC" list cpu-clock) || fail "list cpu-clock exited $?"
echo "$out" | grep -Eq '^  cpu-clock +\[Software event\]$' || fail "list cpu-clock: '$out'"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "list cpu-clock printed more: $out"
pass "list cpu-clock"

out=$("$FLIGHTREC" list 'no_such_event_*') || fail "list of an unknown glob exited $?"
[ -z "$out" ] || fail "an unknown glob printed: $out"
pass "unknown glob: nothing, exit 0"

"$FLIGHTREC" list >"$T/all.txt" || fail "list exited $?"
grep -q '\[Hardware event\]' "$T/all.txt" || fail "no hardware events listed"
grep -q 'sched:sched_switch' "$T/all.txt" || fail "no sched:sched_switch"
for kind in Hardware Software Tracepoint; do
	grep "\[$kind event\]" "$T/all.txt" | awk '{print $1}' | LC_ALL=C sort -c ||
		fail "$kind events not sorted"
done
pass "list: $(wc -l <"$T/all.txt") events, each kind sorted"
exit 0
