#!/bin/sh
# tests/e2e/first_hour.sh: what a perf user tries first (issue 11): no -e,
# a command's whole run kept, wrapped rings said, -m any size, early one-line
# errors, help CMD, several recorders without --name, --max-files with the
# final snapshot, pid 0's name, a live forward file.
. "$TESTLIB"
F=$FLIGHTREC
B="$HELPERS/cpuburn_fp"
mkdir -p "$T/o" "$T/w" "$T/m"

# no -e: perf's default event, said in one line; the README's own example
record_fg -F 999 -g -o "$T/o" -- "$B" 50 >/dev/null || fail "record -F 999 -g -- CMD exited $?: $(cat "$T/record.err")"
grep -qE '^flightrec: no -e given: recording (cycles|cpu-clock) at 999 Hz' "$T/record.err" ||
	fail "no status line naming the default event: $(cat "$T/record.err")"
pass "no -e: $(grep 'no -e' "$T/record.err")"

# a command without a mode flag: the whole run (forward), every sample
f=$(ls "$T"/o/*.frec)
$F dump "$f" >"$T/d.txt" || fail "dump exited $?"
grep -q '^# mode: forward$' "$T/d.txt" || fail "record -- CMD did not keep the whole run: $(grep '^# mode' "$T/d.txt")"
n=$(awk '$4=="SAMPLE" && $5=="cpuburn_fp"' "$T/d.txt" | wc -l)
[ "$n" -ge 100 ] || fail "only $n samples of a 0.5 s run at 999 Hz"
grep -q ' cpu-clock\| cycles' "$T/d.txt" || fail "no default event in the file"
pass "record -- CMD keeps the whole run: $n samples"

# --backward keeps a window; a ring that wrapped is said, with the spans
record_fg --backward -m 1 -e cpu-clock -o "$T/w" -- "$B" 60 >/dev/null || fail "record --backward exited $?: $(cat "$T/record.err")"
grep -qE '^flightrec: ring wrapped on [0-9]+ CPU\(s\): the file keeps the last [0-9.]+ s of the [0-9.]+ s recorded' "$T/record.err" ||
	fail "the snapshot status does not say the ring wrapped: $(cat "$T/record.err")"
w=$(ls "$T"/w/*.frec)
$F report "$w" | grep -qE '^# ring wrapped on [0-9]+ of [0-9]+ CPUs: .*kept the last [0-9.]+ s of the [0-9.]+ s recorded' ||
	fail "report header does not say the ring wrapped"
$F dump "$w" | grep -qE '^# ring wrapped on [0-9]+ of [0-9]+ CPUs' || fail "dump header does not say the ring wrapped"
pass "--backward: wrapped ring said by record, report and dump"

# -m takes any size, rounded up to a power of two pages, and says so
record_fg -m 3 -e cpu-clock -o "$T/m" -- true || fail "-m 3 exited $?: $(cat "$T/record.err")"
grep -q '^flightrec: -m 3: rounded up to 4 pages' "$T/record.err" || fail "-m 3: $(cat "$T/record.err")"
record_fg -m 100K -e cpu-clock -o "$T/m" -- true || fail "-m 100K exited $?"
grep -q 'rounded up to 32 pages' "$T/record.err" || fail "-m 100K: $(cat "$T/record.err")"
# --window-time's advice is a size -m takes
record_fg --backward -m 1 --window-time 10s -e cpu-clock -o "$T/m" -- "$B" 30 >/dev/null || fail "window-time run exited $?"
adv=$(sed -n 's/.*use -m \([^ ]*\) or more.*/\1/p' "$T/record.err" | head -1)
[ -n "$adv" ] || fail "no -m advice: $(cat "$T/record.err")"
echo "$adv" | grep -qE '^(1|2|4|8|16|32|64|128|256|512)[KMG]$' || fail "advice -m $adv is not a power of two"
"$F" record -q -m "$adv" -e cpu-clock -o "$T/m" -- true || fail "-m $adv (the advice) refused"
pass "-m rounds up; --window-time advises -m $adv, which -m takes"

# early one-line errors, before anything is opened or said
expect_error 2 "999999: no such process" $F record -p 999999 -o "$T/m"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
expect_error 64 "above the kernel's maximum, $max Hz" $F record -F $((max + 1)) -o "$T/m" -- true
expect_error 2 "/nonexistent: cannot run: No such file or directory" $F record -o "$T/m" -- /nonexistent
expect_error 2 "no-such-cmd-x: cannot run: No such file or directory" $F record -o "$T/m" -- no-such-cmd-x
expect_error 64 "a tracepoint is a kernel event" $F record -e sched:sched_switch:u -o "$T/m" -- true
expect_error 64 "malformed event" $F record -e cpu-clock:x -o "$T/m" -- true
"$F" record -q -e cpu-clock:u -e sched:sched_switch:k -o "$T/m" -- true || fail "modifiers :u and :k refused"
for c in record snapshot dump report archive; do
	$F help $c >"$T/h.txt" || fail "help $c exited $?"
	grep -q "^Usage: flightrec $c" "$T/h.txt" || fail "help $c: $(head -1 "$T/h.txt")"
done
expect_error 64 "unknown command" $F help nosuch
pass "help CMD for every command"

# several recorders without --name: a command's beside a system-wide one
"$F" record -q -a --backward -e cpu-clock -F 99 -o "$T/m" --no-final-snapshot 2>"$T/a.err" &
apid=$!; BGPIDS="$BGPIDS $apid"
for _ in $(seq 1 100); do [ -S "$FLIGHTREC_RUN_DIR/default.sock" ] && break; sleep 0.1; done
[ -S "$FLIGHTREC_RUN_DIR/default.sock" ] || fail "record -a: no socket: $(cat "$T/a.err")"
$F snapshot >/dev/null 2>"$T/s.err" || fail "snapshot with one recorder running: $(cat "$T/s.err")"
"$F" record -e cpu-clock -o "$T/m" -- sleep 2 2>"$T/c.err" &
cpid=$!
for _ in $(seq 1 100); do ls "$FLIGHTREC_RUN_DIR"/cmd-sleep-*.sock >/dev/null 2>&1 && break; sleep 0.1; done
$F snapshot >"$T/s.out" 2>"$T/s.err"; rc=$?
[ $rc -eq 64 ] || fail "snapshot with two recorders exited $rc: $(cat "$T/s.err")"
grep -q '^  default (pid' "$T/s.err" && grep -q '^  cmd-sleep-[0-9]* (pid' "$T/s.err" || fail "no list: $(cat "$T/s.err")"
# cmd-BASENAME-PID names the command's pid, not the recorder's
npid=$(sed -n 's/^  cmd-sleep-\([0-9]*\) (pid \([0-9]*\).*/\1/p' "$T/s.err")
[ -n "$npid" ] && [ "$npid" != "$cpid" ] && [ "$(cat "/proc/$npid/comm" 2>/dev/null)" = sleep ] ||
	fail "cmd-sleep-${npid:-?}: not the command's pid (the recorder is $cpid): $(cat "$T/s.err")"
wait $cpid || fail "record -- sleep beside record -a exited $?: $(cat "$T/c.err")"
set -- "$T"/m/flightrec-cmd-sleep-"$npid"-*.frec
[ -f "$1" ] || fail "no file named flightrec-cmd-sleep-$npid-*: $(ls "$T/m")"
pass "record -- CMD beside record -a: own name cmd-sleep-$npid (the command's pid); snapshot lists both (64)"
kill -TERM $apid; wait $apid

# --max-files holds for the final snapshot too
mkdir -p "$T/r"
record_bg rot -a --backward -e cpu-clock -F 99 --max-files 1 -o "$T/r"
$F snapshot --name rot >/dev/null && $F snapshot --name rot >/dev/null || fail "snapshots failed"
kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""
n=$(ls "$T"/r/*.frec | wc -l)
[ "$n" -eq 1 ] || fail "--max-files 1 left $n files after the final snapshot"
pass "--max-files 1: one file after the final snapshot"

# pid 0 is swapper in dump as in report
f=$(ls "$T"/r/*.frec)
d0=$($F dump "$f" | awk '$3=="0/0" && $4=="SAMPLE" {print $5; exit}')
[ -z "$d0" ] || [ "$d0" = swapper ] || fail "dump names pid 0 '$d0'"
$F report --sort pid,comm "$f" >/dev/null || fail "report exited $?"
pass "pid 0: dump says '${d0:-(no idle samples)}'"

# a live --forward file: report says live, exit 0
mkdir -p "$T/l"
"$F" record -q --forward -e cpu-clock -o "$T/l" -- sleep 3 &
lp=$!
sleep 1.5
$F report "$T"/l/*.frec >/dev/null 2>"$T/l.err"; rc=$?
[ $rc -eq 0 ] || fail "report of a live file exited $rc: $(cat "$T/l.err")"
grep -q 'live: still being written by recorder pid' "$T/l.err" || fail "live file not said live: $(cat "$T/l.err")"
grep -q 'truncated' "$T/l.err" && fail "live file said truncated"
wait $lp
pass "report of a live forward file: $(cat "$T/l.err")"
exit 0
