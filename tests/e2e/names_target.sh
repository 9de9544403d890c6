#!/bin/sh
# tests/e2e/names_target.sh: per command in backward mode, the name
# tracepoints are opened once per CPU for every task (pid -1: a task's
# context holds fewer events, each of its COMMs is offered to fewer), and
# the execs of processes outside the command are dropped: with another
# program exec'ing all the while, nothing of it reaches the file, while a
# child of the command that exited with its records older than the window
# (renames of its siblings beside it) is still named busy.
. "$TESTLIB"

# the tracepoints' own opens: pid -1 and each CPU once
command -v strace >/dev/null || fail "strace is not installed"
mkdir -p "$T/st"
# LeakSanitizer refuses to run under ptrace (make distcheck's sanitizer
# build): leaks are checked by the runs below
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -qq -e trace=perf_event_open -o "$T/strace.txt" \
	"$FLIGHTREC" record -q --backward -e syscalls:sys_enter_prctl -o "$T/st" -- true 2>"$T/st.err" ||
	{ grep -qE 'Permission denied|Operation not permitted' "$T/st.err" &&
		{ echo "SKIP: the kernel refuses perf_event_open here: $(cat "$T/st.err")" >&2; exit 77; }
	  fail "record under strace: $(cat "$T/st.err")"; }
tfs=$(awk '$3 == "tracefs" {print $2; exit}' /proc/mounts)
[ -n "$tfs" ] || fail "no tracefs mounted after a recording with tracepoints"
id=$(cat "$tfs/events/sched/sched_process_exec/id") || fail "no sched_process_exec id"
ncpu=$(getconf _NPROCESSORS_ONLN)
hex=$(printf '0x%x' "$id")
all=$(grep -cE "type=PERF_TYPE_TRACEPOINT.*config=($id|$hex),.*\}, -1, [0-9]+, -1," "$T/strace.txt")
own=$(grep -cE "type=PERF_TYPE_TRACEPOINT.*config=($id|$hex),.*\}, [0-9]+, [0-9]+, -1," "$T/strace.txt")
[ "$all" -eq "$ncpu" ] && [ "$own" -eq 0 ] ||
	fail "sched_process_exec opened $all times for every task and $own for the command's, expected $ncpu and 0: $(grep -E "config=($id|$hex)," "$T/strace.txt" | head -3)"
pass "per command, sched_process_exec opened once per CPU ($ncpu) for every task"

# another program exec'ing all the while the command runs
cp /bin/true "$T/outsider_nm" || fail "cp"
( n=0; while [ ! -e "$T/stop" ]; do "$T/outsider_nm"; n=$((n + 1)); done; echo "$n" >"$T/outsider.n" ) &
mkdir -p "$T/out"
record_fg -q --backward -e cpu-clock -F 1000 -m 8 --window-time 1s -o "$T/out" -- \
	sh -c '"$1/busy" 3000 & for i in 1 2 3 4 5 6 7 8 9 10; do "$1/prctl_loop" 2000 >/dev/null; done; wait' \
	sh "$HELPERS" || fail "record exited $?: $(cat "$T/record.err")"
touch "$T/stop"
wait
[ "$(cat "$T/outsider.n")" -gt 20 ] || fail "the outsider ran only $(cat "$T/outsider.n") times"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
"$FLIGHTREC" dump "$1" >"$T/d.txt" || fail "dump exited $?"
"$HELPERS/frblobs" "$1" >"$T/b.txt" || fail "frblobs exited $?"
grep -q outsider_nm "$T/d.txt" "$T/b.txt" &&
	fail "the file names a process outside the command: $(grep -h outsider_nm "$T/d.txt" "$T/b.txt" | head -3)"
pass "$(cat "$T/outsider.n") execs of another program while recording: none in the file"
bp=$(awk '$1 == "proc" && $0 ~ / comm=busy / {print $2; exit}' "$T/b.txt")
[ -n "$bp" ] || fail "the process table does not hold busy: $(grep '^proc' "$T/b.txt" | head -5)"
grep -qE "^proc $bp ppid=[0-9]+ start=[0-9]+ exit=[1-9][0-9]* comm=busy " "$T/b.txt" ||
	fail "busy is not an exited process in the table: $(grep "^proc $bp " "$T/b.txt")"
n=$(awk -v p="$bp" '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$n" -gt 0 ] || fail "no samples of busy in the window"
c=$(awk -v p="$bp" '($4=="COMM" || $4=="MMAP2") {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$c" -eq 0 ] || fail "busy's COMM/MMAP2 records are still in the window: the test proves nothing"
"$FLIGHTREC" report --pid "$bp" --sort comm "$1" >"$T/r.txt" || fail "report exited $?"
grep -qE '^ +100\.00% +[0-9]+ +busy$' "$T/r.txt" || fail "busy's samples are not named busy: $(grep -v '^#' "$T/r.txt" | head -3)"
pass "busy (pid $bp) exited, its records older than the window: $n samples named busy"
exit 0
