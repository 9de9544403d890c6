#!/bin/sh
# tests/e2e/trigger_latency.sh: record --trigger-latency: a program making
# thousands of 1 ms sleeps and one of 250 ms gives exactly one
# latency-triggered file, its trigger within 10 ms after the slow call
# returned, naming the pair and its duration; --time trigger-2s,trigger
# reads it; --trigger-after delays it; a system-wide --keep recorder catches
# it too; a pair begun before the recorder started is ignored (-p); usage
# errors are one line, exit 64.
. "$TESTLIB"

trig() {   # FILE KEY: the trigger's value of KEY
	"$FLIGHTREC" dump "$1" | sed -n "s/^# trigger\.$2=//p" | head -1
}
# latency_files DIR: the files whose trigger source is latency
latency_files() {
	for f in "$1"/*.frec; do
		[ "$(trig "$f" source)" = latency ] && echo "$f"
	done
}

# a command: 3000 sleeps of 1 ms, the 1500th of 250 ms
mkdir -p "$T/cmd"
record_fg --trigger-latency syscall:clock_nanosleep,100ms -e syscalls:sys_enter_clock_nanosleep -o "$T/cmd" -- \
	"$HELPERS/sleeps" 3000 1500 250 >"$T/slow.txt" || fail "record exited $?: $(cat "$T/record.err")"
read -r _ b e <"$T/slow.txt" || fail "the helper said nothing"
latency_files "$T/cmd" >"$T/lat.txt"
[ "$(wc -l <"$T/lat.txt")" -eq 1 ] || fail "expected one latency-triggered file, got: $(cat "$T/lat.txt"; ls "$T/cmd")"
F=$(cat "$T/lat.txt")
t=$(trig "$F" trigger_time_ns) lat=$(trig "$F" latency_ns)
[ -n "$t" ] && [ "$t" -ge $((e - 1000000)) ] && [ "$t" -le $((e + 10000000)) ] ||
	fail "trigger at ${t:-none}, the slow call returned at $e"
[ -n "$lat" ] && [ "$lat" -ge 250000000 ] && [ "$lat" -le $((e - b + 1000000)) ] ||
	fail "latency_ns ${lat:-none}, the slow call took $((e - b)) ns"
[ "$(trig "$F" event)" = syscalls:sys_enter_clock_nanosleep ] &&
	[ "$(trig "$F" end_event)" = syscalls:sys_exit_clock_nanosleep ] || fail "the pair is not named: $("$FLIGHTREC" dump "$F" | grep trigger)"
grep -q 'snapshot (latency) written' "$T/record.err" || fail "no status line: $(cat "$T/record.err")"
"$FLIGHTREC" report --time trigger-2s,trigger "$F" >"$T/r.txt" 2>&1 || fail "report --time trigger-2s,trigger exited $?: $(cat "$T/r.txt")"
# the sleeps up to the slow one's start (its BEGIN is the last event before the trigger)
n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/r.txt" | head -1)
[ -n "$n" ] && [ "$n" -gt 100 ] || fail "--time trigger-2s,trigger: ${n:-no} samples: $(head -5 "$T/r.txt")"
pass "one latency snapshot: trigger $(( (t - e) / 1000 )) us from the slow call's return, latency $((lat / 1000000)) ms"

# --trigger-after: the snapshot waits
mkdir -p "$T/after"
record_fg -q --trigger-latency syscall:clock_nanosleep,100ms --trigger-after 300ms -o "$T/after" -- \
	"$HELPERS/sleeps" 1200 600 200 >/dev/null || fail "record exited $?"
F=$(latency_files "$T/after")
[ -n "$F" ] && [ "$(trig "$F" after_ns)" = 300000000 ] || fail "--trigger-after: $(ls "$T/after")"
pass "--trigger-after 300ms: after_ns $(trig "$F" after_ns)"

# system-wide --keep: the helper's slow call among everyone's
mkdir -p "$T/keep"
record_bg lk -a --keep 10s -e cpu-clock -F 99 --trigger-latency syscall:clock_nanosleep,150ms -o "$T/keep"
"$HELPERS/sleeps" 1000 500 300 >"$T/slow2.txt" &
hp=$!
wait "$hp" || fail "sleeps failed"
for _ in $(seq 1 100); do
	for f in $(latency_files "$T/keep" 2>/dev/null); do
		[ "$(trig "$f" tid)" = "$hp" ] && found=$f && break 2
	done
	sleep 0.1
done
[ -n "${found:-}" ] || fail "no latency snapshot of pid $hp: $(ls "$T/keep"; cat "$T/record-lk.err")"
pass "--keep -a: the helper's 300 ms sleep triggered $(basename "$found")"
kill -INT "$RECPID"; wait "$RECPID"

# a pair begun before the recorder started: ignored, not mismatched
sleep 2 &
sp=$!
sleep 0.3
mkdir -p "$T/pid"
record_fg -q -p "$sp" --trigger-latency syscall:clock_nanosleep,100ms -o "$T/pid" || fail "record -p exited $?: $(cat "$T/record.err")"
[ -z "$(latency_files "$T/pid")" ] || fail "a pair begun before the start triggered: $(latency_files "$T/pid")"
pass "-p: the sleep begun before the recorder started triggered nothing"

expect_error 64 "expected BEGIN,END,DURATION" "$FLIGHTREC" record --trigger-latency syscall:read -o "$T"
expect_error 64 "two tracepoints" "$FLIGHTREC" record -q --trigger-latency cpu-clock,task-clock,10ms -o "$T"
expect_error 64 "unknown event" "$FLIGHTREC" record -q --trigger-latency syscall:no_such_call,10ms -o "$T"
expect_error 64 "not with --trigger" "$FLIGHTREC" record --trigger sched:sched_switch --trigger-latency syscall:read,10ms -o "$T"
expect_error 64 "apply to --backward" "$FLIGHTREC" record --forward --trigger-latency syscall:read,10ms -o "$T"
pass "usage errors"
exit 0
