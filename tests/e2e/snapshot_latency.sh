#!/bin/sh
# tests/e2e/snapshot_latency.sh: with a CPU hog on every CPU (and, where
# chrt works, a SCHED_FIFO hog on the last CPU), the first snapshot after
# start and 10 more each copy the rings within LIMIT_MS (default 150,
# generous for CI; the target is 50) of the trigger, and close the file
# within TOTAL_MS (default 1000: the file is written by the recorder's main
# thread, a normal task the FIFO hog can starve), by the recorder's own
# status line (copy ms, total ms), and none skips a CPU. A copy thread the
# VM did not run within the deadline makes its CPU paused: allowed, counted.
. "$TESTLIB"

LIMIT_MS=${LIMIT_MS:-150}
TOTAL_MS=${TOTAL_MS:-1000}
ncpu=$(nproc)
mkdir -p "$T/out"
for c in $(seq 0 $((ncpu - 1))); do
	taskset -c "$c" "$HELPERS/busy" 30000 &
	BGPIDS="$BGPIDS $!"
done
record_bg lat -a -e syscalls:sys_enter_read --backward -m 256 -o "$T/out" --no-final-snapshot
fifo=""
for i in $(seq 0 10); do
	if [ "$i" -eq 1 ] && chrt -f 10 true 2>/dev/null; then
		# 1.5 s of SCHED_FIFO hog (RT throttling still leaves others 5%)
		taskset -c $((ncpu - 1)) chrt -f 10 "$HELPERS/busy" 1500 &
		BGPIDS="$BGPIDS $!"
		fifo=" and a SCHED_FIFO hog on cpu $((ncpu - 1))"
		sleep 0.1
	fi
	t0=$(date +%s%N)
	f=$("$FLIGHTREC" snapshot --name lat) || fail "snapshot $i: flightrec snapshot exited $?"
	t1=$(date +%s%N)
	echo "client $(( (t1 - t0) / 1000 ))" >>"$T/client.txt"
	[ -f "$f" ] || fail "snapshot $i: no file $f"
done
grep 'snapshot (command) written' "$T/record-lat.err" >"$T/status.txt"
[ "$(wc -l <"$T/status.txt")" -eq 11 ] || fail "expected 11 status lines: $(cat "$T/record-lat.err")"
sed -n 's/.*copy \([0-9.]*\) ms, total \([0-9.]*\) ms, copied \(.*\))$/\1 \2 \3/p' "$T/status.txt" >"$T/ms.txt"
[ "$(wc -l <"$T/ms.txt")" -eq 11 ] || fail "status lines without copy/total ms: $(cat "$T/status.txt")"
awk -v lim="$LIMIT_MS" -v tot="$TOTAL_MS" '
	{ if ($1 > lim) { print "snapshot " NR - 1 ": copy " $1 " ms > " lim " ms"; bad = 1 }
	  if ($2 > tot) { print "snapshot " NR - 1 ": total " $2 " ms > " tot " ms"; bad = 1 }
	  if ($0 ~ /skipped/) { print "snapshot " NR - 1 ": " $0; bad = 1 } }
	END { exit bad }' "$T/ms.txt" || fail "$(cat "$T/status.txt")"
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
first=$(head -n 1 "$T/ms.txt" | awk '{ print "copy " $1 " ms, total " $2 " ms" }')
mc=$(tail -n 10 "$T/ms.txt" | awk '{ print $1 }' | med)
mt=$(tail -n 10 "$T/ms.txt" | awk '{ print $2 }' | med)
mcl=$(tail -n 10 "$T/client.txt" | awk '{ print $2 / 1000 }' | med)
pinned=$(awk -v n="$ncpu" '$3 == n && $4 == "pinned," { k++ } END { print k + 0 }' "$T/ms.txt")
pass "hog on each of $ncpu CPUs$fifo: first snapshot $first; next 10: median copy $mc ms, total $mt ms, client round trip $mcl ms (limits $LIMIT_MS / $TOTAL_MS ms); $pinned of 11 copied all CPUs pinned"
exit 0
