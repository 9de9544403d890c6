#!/bin/sh
# tests/e2e/trigger_latency.sh: record --trigger-latency: a program making
# thousands of 1 ms sleeps and one of 250 ms gives exactly one
# latency-triggered file, its trigger within 10 ms after the slow call
# returned, naming the pair and its duration; --time trigger-2s,trigger
# reads it; --trigger-after delays it; a system-wide --keep recorder catches
# it too; in --forward the slow call completes the file being written and
# recording goes on into the next, every sleep in one file once (as
# forward_rotate.sh judges a switch), and --trigger EVENT switches too; a
# pair begun before the recorder started is ignored (-p); under -G only the
# cgroup's calls count; usage errors
# (--window-time in forward mode among them) are one line, exit 64.
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
# the report's header names the slow call's thread, the pair and its latency
tid=$(trig "$F" tid)
grep -q "^# trigger: latency: thread $tid (pid [0-9]*) took 25[0-9]\.[0-9]* ms from syscalls:sys_enter_clock_nanosleep to syscalls:sys_exit_clock_nanosleep" "$T/r.txt" ||
	fail "the report's header does not name the slow call: $(grep '^# trigger' "$T/r.txt")"
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

# --forward: the slow call completes the file being written, the rest of the
# run goes into the next one
# sleeps FILE: the times (ns) of the helper's sleeps in it, in file order
sleep_times() {
	dump_reads "$1" >"$T/st.dump" || { echo "DUMP-FAILED $1"; return; }
	awk '$4=="SAMPLE" && $6=="syscalls:sys_enter_clock_nanosleep" {
		t = $1; sub(/\./, "", t); print t }' "$T/st.dump"
}
mkdir -p "$T/fwd"
record_fg --forward --trigger-latency syscall:clock_nanosleep,100ms -e syscalls:sys_enter_clock_nanosleep \
	-o "$T/fwd" -- "$HELPERS/sleeps" 3000 1500 250 >"$T/slow3.txt" || fail "record --forward exited $?: $(cat "$T/record.err")"
read -r _ b e <"$T/slow3.txt" || fail "the helper said nothing"
latency_files "$T/fwd" >"$T/lat3.txt"
[ "$(wc -l <"$T/lat3.txt")" -eq 1 ] || fail "--forward: expected one latency-triggered file, got: $(cat "$T/lat3.txt"; ls "$T/fwd")"
F=$(cat "$T/lat3.txt")
set -- "$T"/fwd/*.frec
[ $# -eq 2 ] && [ "$1" = "$F" ] || fail "--forward: expected the latency file, then the exit's: $*"
[ "$(trig "$2" source)" = exit ] || fail "--forward: the last file's trigger is $(trig "$2" source)"
grep -q "forward: file complete (latency): $F " "$T/record.err" || fail "--forward: no switch line: $(cat "$T/record.err")"
t=$(trig "$F" trigger_time_ns) lat=$(trig "$F" latency_ns) sw=$(trig "$F" snapshot_time_ns)
[ -n "$t" ] && [ "$t" -ge $((e - 1000000)) ] && [ "$t" -le $((e + 10000000)) ] ||
	fail "--forward: trigger at ${t:-none}, the slow call returned at $e"
[ -n "$lat" ] && [ "$lat" -ge 250000000 ] && [ "$lat" -le $((e - b + 1000000)) ] ||
	fail "--forward: latency_ns ${lat:-none}, the slow call took $((e - b)) ns"
[ "$(trig "$F" end_event)" = syscalls:sys_exit_clock_nanosleep ] && [ "$(trig "$F" tid)" -gt 0 ] ||
	fail "--forward: the pair is not named: $("$FLIGHTREC" dump "$F" | grep trigger)"
"$FLIGHTREC" report --time trigger-2s,trigger "$F" >"$T/r3.txt" 2>&1 || fail "--forward: report --time trigger-2s,trigger exited $?: $(cat "$T/r3.txt")"
n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/r3.txt" | head -1)
[ -n "$n" ] && [ "$n" -gt 100 ] || fail "--forward: --time trigger-2s,trigger: ${n:-no} samples: $(head -5 "$T/r3.txt")"
# the boundary: each file's sleeps end before the next file's begin, every
# sleep in one file once (3000), the slow one's BEGIN in the first, the
# run's later sleeps in the second
sleep_times "$1" >"$T/f1.t"
sleep_times "$2" >"$T/f2.t"
grep -q DUMP-FAILED "$T/f1.t" "$T/f2.t" && fail "--forward: a file does not dump: $(grep -h DUMP-FAILED "$T/f1.t" "$T/f2.t")"
n1=$(wc -l <"$T/f1.t") n2=$(wc -l <"$T/f2.t")
[ $((n1 + n2)) -eq 3000 ] || fail "--forward: $n1 + $n2 sleeps in the files, the helper made 3000"
[ "$(cat "$T/f1.t" "$T/f2.t" | sort | uniq -d | wc -l)" -eq 0 ] || fail "--forward: a sleep in both files"
last1=$(sort -n "$T/f1.t" | tail -1) first2=$(sort -n "$T/f2.t" | head -1)
[ "$last1" -lt "$first2" ] || fail "--forward: the first file's last sleep ($last1) is after the second's first ($first2)"
[ "$last1" -ge "$(trig "$F" begin_time_ns)" ] || fail "--forward: the slow sleep's BEGIN is not in the first file (its last sleep at $last1)"
[ "$first2" -gt "$e" ] && [ "$n2" -gt 1000 ] ||
	fail "--forward: the second file's $n2 sleeps begin at $first2, the slow call returned at $e"
pass "--forward: one latency-completed file (trigger $(( (t - e) / 1000 )) us from the slow call's return, latency $((lat / 1000000)) ms, switched $(( (sw - e) / 1000000 )) ms after it), then the next: $n1 + $n2 sleeps, none in both, the boundary in time order"

# --forward --trigger EVENT: the same switch, the event's trigger
mkdir -p "$T/fwdev"
record_fg -q --forward --trigger syscalls:sys_enter_kill -e syscalls:sys_enter_clock_nanosleep -o "$T/fwdev" -- \
	sh -c "'$HELPERS/sleeps' 200 0 1; kill -0 \$\$; '$HELPERS/sleeps' 200 0 1" >/dev/null || fail "record --forward --trigger exited $?: $(cat "$T/record.err")"
set -- "$T"/fwdev/*.frec
[ $# -eq 2 ] && [ "$(trig "$1" source)" = event ] && [ "$(trig "$1" event)" = syscalls:sys_enter_kill ] ||
	fail "--forward --trigger: $# files, the first's trigger $(trig "$1" source) $(trig "$1" event)"
n1=$(sleep_times "$1" | wc -l) n2=$(sleep_times "$2" | wc -l)
[ $((n1 + n2)) -eq 400 ] && [ "$n1" -ge 200 ] && [ "$n2" -le 200 ] && [ "$n2" -gt 0 ] ||
	fail "--forward --trigger: $n1 + $n2 sleeps, expected 200 before the kill and 400 in all"
pass "--forward --trigger syscalls:sys_enter_kill: the file completed at the kill ($n1 sleeps), recording went on ($n2)"

# a pair begun before the recorder started: ignored, not mismatched
sleep 2 &
sp=$!
sleep 0.3
mkdir -p "$T/pid"
record_fg -q -p "$sp" --trigger-latency syscall:clock_nanosleep,100ms -o "$T/pid" || fail "record -p exited $?: $(cat "$T/record.err")"
[ -z "$(latency_files "$T/pid")" ] || fail "a pair begun before the start triggered: $(latency_files "$T/pid")"
pass "-p: the sleep begun before the recorder started triggered nothing"

# -G: the pair counts only the cgroup's calls: its 250 ms sleep triggers, a
# 200 ms sleep outside it (and any other process's) does not
root=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
if [ -n "$root" ]; then
	cg="frlat-$$"
	mkdir "$root/$cg" || fail "mkdir $root/$cg"
	trap 'cleanup; rmdir "$root/$cg" 2>/dev/null' EXIT
	mkdir -p "$T/cg"
	mkfifo "$T/go"
	(read -r _ <"$T/go"; exec "$HELPERS/sleeps" 300 150 250) >"$T/cgslow.txt" &
	inside=$!
	echo "$inside" >"$root/$cg/cgroup.procs" || fail "cannot move $inside into $root/$cg"
	record_bg lg -G "$cg" --trigger-latency syscall:clock_nanosleep,100ms -o "$T/cg" --no-final-snapshot
	echo go >"$T/go"
	"$HELPERS/sleeps" 300 150 200 >/dev/null & outside=$!
	wait "$outside"; wait "$inside" || fail "the sleeper in the cgroup"
	sleep 0.2
	kill -INT "$RECPID"; wait "$RECPID" || fail "record -G exited $?: $(cat "$T/record-lg.err")"
	latency_files "$T/cg" >"$T/cglat.txt"
	[ "$(wc -l <"$T/cglat.txt")" -eq 1 ] ||
		fail "-G: expected one latency file, got $(wc -l <"$T/cglat.txt"): $(for f in $(cat "$T/cglat.txt"); do echo "pid $(trig "$f" pid) $(trig "$f" latency_ns) ns;"; done)"
	F=$(cat "$T/cglat.txt")
	[ "$(trig "$F" pid)" = "$inside" ] || fail "-G: the trigger names pid $(trig "$F" pid), the sleeper in the cgroup is $inside"
	lat=$(trig "$F" latency_ns)
	[ "$lat" -ge 250000000 ] && [ "$lat" -lt 400000000 ] || fail "-G: latency_ns $lat, the cgroup's slow sleep was 250 ms"
	rmdir "$root/$cg" 2>/dev/null
	pass "-G $cg: one latency file, the cgroup's 250 ms sleep (pid $inside, $((lat / 1000000)) ms); the 200 ms one outside it triggered nothing"
fi

expect_error 64 "expected BEGIN,END,DURATION" "$FLIGHTREC" record --trigger-latency syscall:read -o "$T"
expect_error 64 "two tracepoints" "$FLIGHTREC" record -q --trigger-latency cpu-clock,task-clock,10ms -o "$T"
expect_error 64 "unknown event" "$FLIGHTREC" record -q --trigger-latency syscall:no_such_call,10ms -o "$T"
expect_error 64 "not with --trigger" "$FLIGHTREC" record --trigger sched:sched_switch --trigger-latency syscall:read,10ms -o "$T"
expect_error 64 "--window-time: .*--forward" "$FLIGHTREC" record --forward --trigger-latency syscall:read,10ms \
	--window-time 10s -o "$T"
pass "usage errors"
exit 0
