#!/bin/sh
# tests/e2e/report_tptext.sh: the tracepoint text of --format=perf-script
# against `perf script` on the same run: flightrec records a shell that
# waits on a fifo, perf attaches to it (-p), then the shell execs a static
# copy of read_loop (reads of one byte, then a sleep); both record the same
# tracepoints; for each event, the text after "EVENT: " of every sample of
# the workload (comm rl) is the same, line for line, in both outputs. perf
# 6.1's reader aborts in util/build-id.c on the MMAP2 record of a file on a
# device whose major number is above 20 when another recorder (this one, or
# a test beside it) asks for build ids: the flag leaks into perf's records.
# So perf sees no such mapping: it attaches after the shell started, and the
# static workload lives on a tmpfs (major 0).
. "$TESTLIB"
CC=${CC:-cc}
command -v perf >/dev/null 2>&1 || { echo "SKIP: no perf"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "SKIP: no C compiler ($CC)"; exit 77; }
S=$(dirname "$(dirname "$(dirname "$TESTLIB")")")
SHM=$(mktemp -d /dev/shm/fr-tptext.XXXXXX 2>/dev/null) || { echo "SKIP: no /dev/shm"; exit 77; }
trap 'rm -rf "$SHM"; cleanup' EXIT
"$CC" -static -O1 -o "$SHM/rl" "$S/tests/helpers/read_loop.c" 2>"$T/cc.err" ||
	{ echo "SKIP: no static libc: $(tail -1 "$T/cc.err")"; exit 77; }
"$SHM/rl" 1 || { echo "SKIP: /dev/shm does not execute"; exit 77; }

EVS="sched:sched_switch syscalls:sys_enter_read syscalls:sys_exit_read sched:sched_process_exit
irq:softirq_entry sched:sched_process_exec"
ev_args=
for e in $EVS; do ev_args="$ev_args -e $e"; done
mkfifo "$SHM/go" || { echo "SKIP: no fifo on /dev/shm"; exit 77; }
mkdir -p "$T/out" "$T/home"
ok=
for _ in 1 2 3; do
	rm -rf "$T/out"/* "$T/p.data" "$SHM/pid"
	# shellcheck disable=SC2086,SC2016
	"$FLIGHTREC" record -q $ev_args -o "$T/out" -- sh -c \
		'echo $$ >"$0/pid"; read -r x <"$0/go"; exec "$0/rl" 200 20' "$SHM" \
		2>"$T/record.err" &
	frpid=$!
	BGPIDS="$BGPIDS $frpid"
	n=0
	while [ ! -s "$SHM/pid" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	# shellcheck disable=SC2086
	HOME="$T/home" perf record -q -B -N -k monotonic $ev_args -o "$T/p.data" \
		-p "$(cat "$SHM/pid")" >/dev/null 2>"$T/perf.err" &
	perfpid=$!
	sleep 1   # perf attached
	echo go >"$SHM/go"
	wait "$frpid" || fail "record exited $?: $(cat "$T/record.err")"
	wait "$perfpid" || continue
	HOME="$T/home" perf script -i "$T/p.data" >"$T/perf.txt" 2>>"$T/perf.err" && ok=1 && break
done
[ -n "$ok" ] || { echo "SKIP: perf fails here: $(tail -1 "$T/perf.err")"; exit 77; }
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one flightrec file, got: $*"
"$FLIGHTREC" report --format=perf-script "$1" >"$T/fr.txt" 2>"$T/fr.err" ||
	fail "report exited $?: $(cat "$T/fr.err")"

# the text of EVENT's samples of the workload, in order
texts() {
	awk -v ev="$2" '$1 == "rl" { i = index($0, " " ev ": "); if (i) print substr($0, i + length(ev) + 3) }' "$1"
}
for e in $EVS; do
	texts "$T/perf.txt" "$e" >"$T/want"
	texts "$T/fr.txt" "$e" >"$T/got"
	case $e in   # the events the workload surely hits
	sched:sched_switch|syscalls:sys_enter_read|syscalls:sys_exit_read|sched:sched_process_exec)
		[ -s "$T/want" ] || fail "perf script has no $e sample of the workload" ;;
	esac
	diff "$T/want" "$T/got" >"$T/diff" ||
		fail "$e: the text differs from perf script's ($(wc -l <"$T/want") lines): $(head -6 "$T/diff")"
	pass "$e: $(wc -l <"$T/want") samples with perf script's text"
done
grep -q 'prev_state=S ==> next_comm=' "$T/fr.txt" || fail "no sched_switch text with prev_state=S"
