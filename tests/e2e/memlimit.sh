#!/bin/sh
# tests/e2e/memlimit.sh: a --keep recorder in a cgroup with a 40 MiB memory
# limit (v2 memory.max or v1 memory.limit_in_bytes, whichever this machine
# has) under a read() storm on both CPUs for 10 s: it says its budget from
# the cgroup at the start, its window stays within a quarter of the limit
# (the oldest chunks go by size, counted), the snapshot is written, and it is
# never OOM-killed (before: the 256 MiB default window grew until it was).
. "$TESTLIB"
LIMIT=$((40 << 20))
# a sanitizer build's runtime (shadow memory, quarantine) is not the
# recorder's memory: the plain build's make check is where the budget is held
if grep -q __asan_init "$FLIGHTREC" 2>/dev/null; then
	echo "SKIP: a sanitizer build: its runtime's memory is not the recorder's (make check runs this)" >&2
	exit 77
fi
mkdir -p "$T/out"
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/fr-memlimit-$$
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir "$CG" 2>/dev/null && echo $LIMIT >"$CG/memory.max" 2>/dev/null ||
		{ rmdir "$CG" 2>/dev/null; echo "SKIP: cannot make a v2 memory cgroup here" >&2; exit 77; }
	PEAK=$CG/memory.peak KIND="cgroup memory.max"
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/fr-memlimit-$$
	mkdir "$CG" 2>/dev/null && echo $LIMIT >"$CG/memory.limit_in_bytes" 2>/dev/null ||
		{ rmdir "$CG" 2>/dev/null; echo "SKIP: cannot make a v1 memory cgroup here" >&2; exit 77; }
	PEAK=$CG/memory.max_usage_in_bytes KIND="cgroup memory.limit_in_bytes"
else
	echo "SKIP: no memory cgroup controller mounted" >&2
	exit 77
fi
gone() { for p in $BGPIDS; do kill -9 "$p" 2>/dev/null; done; sleep 0.2; rmdir "$CG" 2>/dev/null; cleanup; }
trap gone EXIT INT TERM

sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$FLIGHTREC' record --name mem --keep 60s -a \
	-e syscalls:sys_enter_read -o '$T/out'" 2>"$T/rec.err" &
RECPID=$!
BGPIDS="$BGPIDS $RECPID"
for _ in $(seq 1 100); do [ -S "$FLIGHTREC_RUN_DIR/mem.sock" ] && break; sleep 0.1; done
[ -S "$FLIGHTREC_RUN_DIR/mem.sock" ] || fail "the recorder did not start: $(cat "$T/rec.err")"
grep -q "memory budget: 40 MiB ($KIND): the --keep window at most 10 MiB" "$T/rec.err" ||
	fail "the budget is not said: $(cat "$T/rec.err")"
"$HELPERS/read_loop" 2000000000 & L0=$!
"$HELPERS/read_loop" 2000000000 & L1=$!
BGPIDS="$BGPIDS $L0 $L1"
sleep 10
kill $L0 $L1
f=$("$FLIGHTREC" snapshot --name mem) || fail "snapshot exited $?: $(cat "$T/rec.err")"
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "the recorder exited $rc (137: OOM-killed): $(tail -3 "$T/rec.err")"
held=$(sed -n 's/.*from the --keep window: \([0-9.]*\) MiB held.*/\1/p' "$T/rec.err" | head -1)
[ -n "$held" ] && awk -v h="$held" 'BEGIN { exit !(h <= 10.5) }' ||
	fail "the window held ${held:-?} MiB, over its 10 MiB: $(cat "$T/rec.err")"
grep -q 'records dropped by age or size so far' "$T/rec.err" || fail "no keep line: $(cat "$T/rec.err")"
peak=$(cat "$PEAK" 2>/dev/null || echo 0)
"$FLIGHTREC" dump "$f" >/dev/null 2>&1; drc=$?
[ $drc -le 1 ] || fail "dump of the snapshot exited $drc"
pass "40 MiB cgroup, 10 s read storm: budget said, window held $held MiB, peak $((peak >> 20)) MiB in the cgroup, recorder exit $rc"
exit 0
