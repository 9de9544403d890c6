#!/bin/bash
# bench/pg_stall.sh: a real stall read from the service's window, against an
# independent reference. PostgreSQL + pgbench -c 4 -j 2 TPC-B (a throwaway
# cluster, as bench/pg.sh) under the service's defaults (data/
# flightrec.default) and bpftrace's off-CPU sum per thread (waits of 100 ms
# or more, taken from sched_switch); SECONDS after the start one psql session
# holds LOCK TABLE pgbench_accounts IN ACCESS EXCLUSIVE MODE for 3 s while
# the backends wait; a snapshot is taken DELAY s after the stall. Prints, per
# backend that waited, bpftrace's long-wait total and what `report --off-cpu
# --tid T --time STALL --folded` puts under ProcSleep, and their ratio; then
# the off-CPU section of the stall's report. Root.
#   bench/pg_stall.sh [--delay S] [--out DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
fr=$top/src/flightrec delay=60 out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--delay) delay=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "pg_stall.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
. "$here/pglib.sh"
pg_find pg_stall.sh
command -v bpftrace >/dev/null || { echo "pg_stall.sh: bpftrace not installed" >&2; exit 77; }
svc_events=$(sed -n 's/^FLIGHTREC_EVENTS=//p' "$top/data/flightrec.default")
svc_window=$(sed -n 's/^FLIGHTREC_WINDOW=//p' "$top/data/flightrec.default")
pg_tmp stall
rec="" bt=""
cleanup() {
	[ -n "$rec" ] && kill -INT "$rec" 2>/dev/null && wait "$rec" 2>/dev/null
	[ -n "$bt" ] && kill -INT "$bt" 2>/dev/null && wait "$bt" 2>/dev/null
	pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_start
# shellcheck disable=SC2086
"$fr" record -q -a $svc_events $svc_window -o "$tmp/rec" --name stall & rec=$!
# the reference: each thread's waits (sleeping, not preempted) of 100 ms or more
cat >"$tmp/off.bt" <<'BT'
tracepoint:sched:sched_switch {
	if (args->prev_state != 0) { @out[args->prev_pid] = nsecs; }
	$s = @out[args->next_pid];
	if ($s != 0) {
		delete(@out[args->next_pid]);
		if (nsecs - $s >= 100000000) { @long[args->next_pid, args->next_comm] = sum(nsecs - $s); }
	}
}
END { clear(@out); }
BT
bpftrace "$tmp/off.bt" >"$tmp/bt.txt" 2>&1 & bt=$!
sleep 3
pgb -c 4 -j 2 -T $((delay + 12)) >"$tmp/pgbench.txt" 2>&1 & pb=$!
sleep 5
mono() { python3 -c 'import time; print("%.3f" % time.clock_gettime(time.CLOCK_MONOTONIC))'; }
t0=$(mono)
as_pg "$pgbin/psql" -h "$tmp/sock" -p "$port" -q -c "BEGIN; LOCK TABLE pgbench_accounts IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT;" postgres >/dev/null
t1=$(mono)
sleep 1
kill -INT $bt; wait $bt; bt=""
sleep "$delay"
f=$("$fr" snapshot --name stall) || { echo "pg_stall.sh: snapshot failed" >&2; exit 1; }
wait $pb
# "@long[TID, COMM]: NS": the backends' (their comm is postgres)
sed -n 's/^@long\[\([0-9]*\), postgres\]: \([0-9]*\)$/\1 \2/p' "$tmp/bt.txt" >"$tmp/long.txt"
echo "# stall: psql held the lock for $(echo "$t1 - $t0" | bc) s; snapshot $delay s after, $(basename "$f")"
echo "# tid bpftrace_ms flightrec_procsleep_ms ratio"
# the stall: from just before the lock was taken to psql's return (after the
# lock's release: what the backends waited for after it, row locks among
# themselves, would be ProcSleep too)
win="$(echo "$t0 - 0.1" | bc),$t1"
while read -r tid ns; do
	us=$("$fr" report --off-cpu --tid "$tid" --time "$win" --folded "$f" 2>/dev/null |
		awk '/ProcSleep/ { s += $NF } END { print s + 0 }')
	[ "$us" -gt 0 ] || continue
	awk -v t="$tid" -v b="$ns" -v u="$us" 'BEGIN { printf "%s %.1f %.1f %.4f\n", t, b / 1e6, u / 1e3, (u * 1e3) / b }'
done <"$tmp/long.txt" | tee "$tmp/cmp.txt"
[ -n "$out" ] && mkdir -p "$out" && cp "$tmp/cmp.txt" "$out/pg-stall.txt" && cp "$f" "$out/"
"$fr" report --off-cpu --comm postgres --time "$win" -g "$f" 2>/dev/null |
	sed -n '/^# off-CPU:/,$p' | head -60
