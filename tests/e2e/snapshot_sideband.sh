#!/bin/sh
# tests/e2e/snapshot_sideband.sh: processes that start just before a snapshot
# are named in it. A storm of short-lived read_loop processes runs while 40
# snapshots are taken; the rings are copied before the sideband is drained,
# so every sample of the copy has its process's COMM/MMAP2 in the file:
# no sample of a storm process may dump as anything but read_loop. The storm's
# reads ask for 53 bytes (no other test's do): pids wrap at 32768 here, and in a
# parallel make check another test's process can reuse a storm pid.
. "$TESTLIB"

mkdir -p "$T/out"
record_bg sb -a -e syscalls:sys_enter_read --backward -m 64 -o "$T/out" --no-final-snapshot
( while [ ! -e "$T/stop" ]; do "$HELPERS/read_loop" 300 0 53 & echo $! >>"$T/pids"; wait; done ) &
BGPIDS="$BGPIDS $!"
n=0
while [ $n -lt 40 ]; do
	"$FLIGHTREC" snapshot --name sb >/dev/null || fail "snapshot $n exited $?"
	n=$((n + 1))
done
touch "$T/stop"
unknown=0; samples=0
for f in "$T/out"/*.frec; do
	"$FLIGHTREC" dump --no-header "$f" >"$T/d.txt" || fail "dump $f exited $?"
	set -- $(awk -v pf="$T/pids" 'BEGIN{while ((getline p < pf) > 0) storm[p]=1}
		$4=="SAMPLE" && $NF=="count=0x00000035" {split($3,a,"/")
			if (a[1] in storm) {n++; if ($5!="read_loop") {u++; if (!bad) bad=$0}}}
		END{print n+0, u+0; if (bad) print bad > "/dev/stderr"}' "$T/d.txt")
	samples=$((samples + $1)); unknown=$((unknown + $2))
	[ "$2" -eq 0 ] || fail "$(basename "$f"): $2 of $1 storm samples not named read_loop"
done
[ "$samples" -gt 1000 ] || fail "only $samples samples in 40 snapshots"
pass "40 snapshots during a process storm: $samples samples of $(wc -l <"$T/pids") storm processes, $unknown misnamed"
