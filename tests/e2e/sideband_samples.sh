#!/bin/sh
# tests/e2e/sideband_samples.sh: per command and with -p, in forward and
# --keep modes, the sideband records (COMM, MMAP2, FORK, EXIT) travel in the
# sample rings as perf puts them, and the recorder takes them out as it reads:
# no sideband event in the task's context (strace, where installed), yet the
# file names every process with its maps and exit (PROCS, the table fed from
# the readers) and its samples are symbolized; --switch-output's files each
# get theirs; backward mode keeps a sideband ring of its own.
. "$TESTLIB"

have_strace=false
command -v strace >/dev/null 2>&1 && have_strace=true
# rec NAME ARGS...: record into $T/NAME (under strace where installed)
rec() {
	n=$1; shift
	mkdir -p "$T/$n"
	if $have_strace; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=perf_event_open -o "$T/$n.st" "$FLIGHTREC" record -q -o "$T/$n" "$@" \
			>/dev/null 2>"$T/record.err"
	else
		record_fg -q -o "$T/$n" "$@" >/dev/null
	fi || fail "record $n exited $?: $(cat "$T/record.err")"
}
# dummies NAME: the sideband events opened for a task (a pid, not -1)
dummies() {
	grep 'PERF_COUNT_SW_DUMMY' "$T/$1.st" | grep -vc '}, -1, '
}
# check NAME: both burners and their shell in PROCS with an exit, their maps,
# hot_a symbolized under the burner's name
check() {
	set -- "$T/$1"/*.frec
	"$HELPERS/frblobs" "$1" >"$T/blobs" || fail "frblobs $1 exited $?"
	nb=$(grep -c '^proc .* exit=[1-9][0-9]* comm=cpuburn_fp maps=[1-9]' "$T/blobs")
	[ "$nb" -eq 2 ] || fail "$1: $nb exited cpuburn_fp with maps in PROCS, expected 2: $(grep '^proc' "$T/blobs")"
	grep -q '^map .*/cpuburn_fp ' "$T/blobs" || fail "$1: no map of cpuburn_fp: $(grep '^map' "$T/blobs" | head -5)"
	"$FLIGHTREC" report --sort comm,sym --no-header "$1" >"$T/rep" || fail "report $1 exited $?"
	grep -qE '%.* cpuburn_fp +\[\.\] hot_a$' "$T/rep" || fail "$1: hot_a of cpuburn_fp not in the report: $(head -5 "$T/rep")"
}
CMD="$HELPERS/cpuburn_fp 20; $HELPERS/cpuburn_fp 20"

rec fwd --forward -F 999 -g -e cpu-clock -- sh -c "$CMD"
check fwd
rec keep --keep 30s -F 999 -g -e cpu-clock -- sh -c "$CMD"
check keep
if $have_strace; then
	[ "$(dummies fwd)" -eq 0 ] || fail "forward per command opened a sideband event for the task: $(grep DUMMY "$T/fwd.st" | head -2)"
	[ "$(dummies keep)" -eq 0 ] || fail "--keep per command opened a sideband event for the task"
	rec bwd --backward -F 999 -g -e cpu-clock -- sh -c "$CMD"
	check bwd
	[ "$(dummies bwd)" -ge 1 ] || fail "backward per command opened no sideband event: its ring overwrites"
	pass "per command: no sideband event in forward and --keep (backward: $(dummies bwd)), every process named and mapped"
else
	pass "per command: every process named and mapped in forward and --keep (strace not installed: the events opened are not checked)"
fi

# -p: the target execs the burner after the recorder attached (its control
# socket says so: a fixed sleep lost the first burner to a recorder that
# started late under strace in a loaded distcheck); its name and maps come
# from the sample rings only
sh -c "while [ ! -S '$FLIGHTREC_RUN_DIR/pidt.sock' ]; do sleep 0.05; done; $CMD" &
sp=$!
BGPIDS="$BGPIDS $sp"
rec pid --name pidt --forward -F 999 -g -e cpu-clock -p "$sp"
check pid
! $have_strace || [ "$(dummies pid)" -eq 0 ] || fail "forward -p opened a sideband event for the task"
pass "-p $sp: the processes it started named and mapped from the sample rings"

# --switch-output: each file has the processes of its samples
rec sw --switch-output 150ms -F 999 -g -e cpu-clock -- sh -c "$CMD"
set -- "$T"/sw/*.frec
[ $# -ge 2 ] || fail "--switch-output 150ms made $# file(s)"
hot=0
for f in "$@"; do
	"$FLIGHTREC" report --sort comm,sym --no-header "$f" >"$T/rep" 2>"$T/rep.err" ||
		fail "report $f exited $?: $(cat "$T/rep.err")"
	grep -qE ' cpuburn_fp +\[\.\] 0x' "$T/rep" &&
		fail "$f: unsymbolized samples of cpuburn_fp: $(grep ' 0x' "$T/rep" | head -3)"
	grep -qE ' cpuburn_fp +\[\.\] hot_a$' "$T/rep" && hot=$((hot + 1))
done
[ "$hot" -ge 2 ] || fail "hot_a of cpuburn_fp in $hot of $# files, expected 2 or more"
pass "--switch-output: $# files, $hot with cpuburn_fp's hot_a, none unsymbolized"
