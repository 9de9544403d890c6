#!/bin/sh
# tests/e2e/offcpu_flush.sh: the offcpu event's switches wait in per-CPU
# batches until a timer tick (10 ms); a snapshot must still hold every
# switch before its trigger. A process exits and a snapshot is asked for at
# once, ten times, in each mode that reads the rings at a snapshot (backward)
# or as they fill (--keep); then one more snapshot. A process's last switch
# (state X) that happened before a snapshot's trigger must be in that
# snapshot; one that came after it (a loaded machine may run the exiting
# task's last schedule after its parent reaped it and asked) must be in a
# later one.
. "$TESTLIB"

ns() { awk -v t="$1" 'BEGIN { split(t, a, "."); printf "%d%09d\n", a[1], a[2] }'; }

for mode in backward keep; do
	mkdir -p "$T/$mode"
	opt=; [ $mode = keep ] && opt="--keep 30s"
	record_bg "fl$mode" -a -e cpu-clock -F 9 --off-cpu-thresh 10ms $opt -o "$T/$mode" \
		--no-final-snapshot
	sleep 0.3
	: >"$T/list"
	n=0
	while [ $n -lt 10 ]; do
		"$HELPERS/read_loop" 1 & p=$!; wait $p
		f=$("$FLIGHTREC" snapshot --name "fl$mode") || fail "$mode: snapshot $n exited $?"
		echo "$p $f" >>"$T/list"
		n=$((n + 1))
	done
	sleep 0.1
	"$FLIGHTREC" snapshot --name "fl$mode" >/dev/null || fail "$mode: the last snapshot exited $?"
	kill -INT $RECPID; wait $RECPID || fail "$mode: recorder exited $?"
	for f in "$T/$mode"/*.frec; do
		"$FLIGHTREC" dump "$f" >"$f.txt" 2>"$T/dump.err" || fail "$mode: dump $f exited $?: $(cat "$T/dump.err")"
	done
	own=0 after=0
	while read -r p f; do
		trig=$(sed -n 's/^# trigger.trigger_time_ns=//p' "$f.txt")
		if grep -q "switch prev=$p/$p state=X" "$f.txt"; then
			own=$((own + 1))
			continue
		fi
		# the files after f (their names sort by time, then sequence)
		t=$(ls "$T/$mode"/*.frec | sort | awk -v f="$f" 'seen {print} $0 == f {seen = 1}' |
			while read -r g; do grep -h -m1 "switch prev=$p/$p state=X" "$g.txt"; done |
			awk 'NR == 1 {print $1}')
		[ -n "$t" ] || fail "$mode: the last switch of $p is in no snapshot; its switches: \
$(grep -h "switch prev=$p/$p\|next=$p/$p" "$T/$mode"/*.frec.txt | tail -n 3); the files' CPUs: \
$(grep -h '^# cpu [0-9]*:' "$T/$mode"/*.frec.txt | sort | uniq -c | sort -rn | head -n 4)"
		[ "$(ns "$t")" -ge "$trig" ] ||
			fail "$mode: the last switch of $p, at $t, before $(basename "$f")'s trigger ($trig ns), is not in it"
		after=$((after + 1))
	done <"$T/list"
	pass "$mode: 10 processes exited just before a snapshot: $own last switches in it, $after after its trigger (in a later one)"
done
