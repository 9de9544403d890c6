#!/bin/sh
# tests/e2e/gc.sh: a system-wide recorder in each mode (backward, --forward,
# --keep) sees 4,500 processes exit, past the 4,096 at which its process
# model collects the exited ones no window can show (the source's
# oldest_time); it keeps recording: a snapshot after the storm holds a later
# workload's samples under its own name (its pid's only: a parallel make
# check runs other prctl loops), and SIGINT ends the recorder with 0.
. "$TESTLIB"

for mode in backward forward keep; do
	case $mode in
	backward) flags= ;;
	forward) flags=--forward ;;
	keep) flags="--keep 30s" ;;
	esac
	mkdir -p "$T/$mode"
	# shellcheck disable=SC2086
	record_bg "gc_$mode" $flags -a -e syscalls:sys_enter_prctl -o "$T/$mode" --no-final
	"$HELPERS/forker" 4500 >/dev/null || fail "$mode: forker failed"
	sleep 1.5   # the loop ticks at least once a second: the collection runs
	kill -0 "$RECPID" 2>/dev/null || { wait "$RECPID"; fail "$mode: the recorder died after 4500 exits (status $?): $(tail -3 "$T/record-gc_$mode.err")"; }
	# its pid: other tests of a parallel make check may run prctl too
	"$HELPERS/prctl_loop" 50 & loop=$!
	wait "$loop" || fail "$mode: prctl_loop failed"
	"$FLIGHTREC" snapshot --name "gc_$mode" >/dev/null 2>"$T/snap.err" ||
		fail "$mode: snapshot after the storm: $(cat "$T/snap.err")"
	kill -INT "$RECPID"
	wait "$RECPID"; rc=$?
	[ "$rc" -eq 0 ] || fail "$mode: the recorder exited $rc: $(tail -3 "$T/record-gc_$mode.err")"
	n=0
	for f in "$T/$mode"/*.frec; do
		[ -f "$f" ] || continue
		# forward's first file may hold none of the loop's samples
		rc=0
		"$FLIGHTREC" report --sort comm --pid "$loop" -i "$f" >>"$T/$mode.txt" 2>"$T/$mode.err" || rc=$?
		[ "$rc" -eq 0 ] || grep -q 'no sample matches' "$T/$mode.err" ||
			fail "$mode: report of $f exited $rc: $(cat "$T/$mode.err")"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || fail "$mode: no file written"
	# each prctl is entered under the name the one before set: the first
	# under the exec's name
	got=$(awk '$NF ~ /^prctl_[0-9][0-9][0-9]$/ {n += $2} END {print n + 0}' "$T/$mode.txt")
	first=$(awk '$NF == "prctl_loop" {n += $2} END {print n + 0}' "$T/$mode.txt")
	[ "$got" -eq 49 ] && [ "$first" -eq 1 ] ||
		fail "$mode: of 50 prctl samples $got under prctl_NNN, $first under prctl_loop: $(grep -v '^#' "$T/$mode.txt" | grep -v ' prctl_[0-9]' | head -5)"
	pass "$mode: 4500 exits collected, recording went on: 49 samples named prctl_NNN and the first prctl_loop, in $n file(s)"
done
exit 0
