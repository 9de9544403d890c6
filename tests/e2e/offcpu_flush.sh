#!/bin/sh
# tests/e2e/offcpu_flush.sh: the offcpu event's switches wait in per-CPU
# batches until a tick finds them 5 ms old; a snapshot must still hold every
# switch before its trigger. The ticks are the CPU clock sampler's where it
# ticks often enough (-F 99: no perf event of the programs' own), else a
# timer's of the programs' own (-F 9: one more perf event a CPU). A process
# exits and a snapshot is asked for at once, ten times, with each tick and in
# each mode that reads the rings at a snapshot (backward) or as they fill
# (--keep); then one more snapshot. A process's last switch
# (state X) that happened before a snapshot's trigger must be in that
# snapshot; one that came after it (a loaded machine may run the exiting
# task's last schedule after its parent reaped it and asked) must be in a
# later one.
. "$TESTLIB"

ns() { awk -v t="$1" 'BEGIN { split(t, a, "."); printf "%d%09d\n", a[1], a[2] }'; }

perf_fds() { ls -l "/proc/$1/fd" | grep -c 'perf_event'; }
ncpu=$(grep -c '^cpu[0-9]' /proc/stat)

last=
for run in sampler:backward timer:backward timer:keep sampler:keep; do
	tick=${run%:*} base=${run#*:}
	freq=99; [ "$tick" = timer ] && freq=9
	[ "$base" = "$last" ] || { timer_fds= sampler_fds= last=$base; }
	mode=$base-$tick
	mkdir -p "$T/$mode"
	opt=; case $mode in keep*) opt="--keep 30s" ;; esac
	record_bg "fl$mode" -a -e cpu-clock -F $freq --off-cpu-thresh 10ms $opt -o "$T/$mode" \
		--no-final-snapshot
	sleep 0.3
	# the ticks' events: none of their own with the sampler, one a CPU without
	fds=$(perf_fds $RECPID)
	if [ "$tick" = timer ]; then timer_fds=$fds; else sampler_fds=$fds; fi
	if [ -n "$timer_fds" ] && [ -n "$sampler_fds" ]; then
		[ $((timer_fds - sampler_fds)) -eq "$ncpu" ] ||
			fail "$last: perf events: $timer_fds with -F 9, $sampler_fds with -F 99 ($ncpu CPUs): \
the sampler's ticks were not used, or a timer was left open"
	fi
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
