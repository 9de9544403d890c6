#!/bin/sh
# tests/e2e/offcpu_flush.sh: the offcpu event's switches wait in per-CPU
# batches until a timer tick (10 ms); a snapshot must still hold the newest
# ones. A process exits and a snapshot is asked for at once, ten times, in
# each mode that reads the rings at a snapshot (backward) or as they fill
# (--keep): its last switch (state X) must be in the file every time.
. "$TESTLIB"

for mode in backward keep; do
	mkdir -p "$T/$mode"
	opt=; [ $mode = keep ] && opt="--keep 30s"
	record_bg "fl$mode" -a -e cpu-clock -F 9 --off-cpu-thresh 10ms $opt -o "$T/$mode" \
		--no-final-snapshot
	sleep 0.3
	n=0
	while [ $n -lt 10 ]; do
		"$HELPERS/read_loop" 1 & p=$!; wait $p
		"$FLIGHTREC" snapshot --name "fl$mode" >"$T/snap.txt" || fail "$mode: snapshot $n exited $?"
		f=$(ls -t "$T/$mode"/*.frec | head -1)
		"$FLIGHTREC" dump --no-header "$f" >"$T/d.txt" || fail "$mode: dump $f exited $?"
		grep -q "switch prev=$p/$p state=X" "$T/d.txt" ||
			fail "$mode: snapshot $n: the last switch of $p, which exited before it, is not in $(basename "$f")"
		n=$((n + 1))
	done
	kill -INT $RECPID; wait $RECPID || fail "$mode: recorder exited $?"
	pass "$mode: 10 snapshots each hold the last switch of a process that exited just before"
done
