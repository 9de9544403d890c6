#!/bin/sh
# tests/e2e/loop_fault.sh: the record loop fails loudly. The test hook
# FLIGHTREC_TEST_FAULT=loop:N (doc/exit-codes.md) makes the loop's Nth tick
# fail as an allocation would: the recorder says one line, exits 2, and the
# final file still holds what the rings held (backward, --forward, --keep).
# The workload is a COMM storm, so that the loop wakes (drains) often.
. "$TESTLIB"

# the command runs 3 s past its renames: in backward mode they no longer
# wake the loop (the COMMs are in the sample rings), its ticks come from
# its timers alone, and the third must come while the command runs
for mode in --backward --forward "--keep 10s"; do
	d="$T/out${mode%% *}"
	mkdir -p "$d"
	# shellcheck disable=SC2086 # the mode is one or two words
	export FLIGHTREC_TEST_FAULT=loop:3
	expect_error 2 \
		'record: draining the sideband: Cannot allocate memory \(recording stopped' \
		"$FLIGHTREC" record -q $mode -e cpu-clock -o "$d" -- \
		sh -c "\"$HELPERS/prctl_loop\" 300000; sleep 3"
	unset FLIGHTREC_TEST_FAULT
	f=$(ls "$d"/*.frec) || fail "$mode: no final file"
	n=$("$FLIGHTREC" dump "$f" | awk '$4 == "SAMPLE" {n++} END {print n + 0}')
	[ "$n" -gt 0 ] || fail "$mode: the final file holds no sample"
	pass "$mode: final file with $n samples"
done
