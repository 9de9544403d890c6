#!/bin/sh
# tests/e2e/confined_snapshots.sh: a system-wide recorder confined to CPU 0
# (taskset) snapshots while read_loop runs flat out on CPU 1. The recorder
# cannot run on CPU 1, so that ring must be copied paused, never unpinned:
# every read_loop record in every file is whole (read's syscall nr, its fd,
# its one buffer, count 1), times never go backwards, no ring walk reports
# corruption, and the status line says which path each CPU took.
# N=1000 sh tests/e2e/confined_snapshots.sh for the long run.
. "$TESTLIB"

N=${N:-100}
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs" >&2; exit 77; }
taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null ||
	{ echo "SKIP: cannot run on CPUs 0 and 1" >&2; exit 77; }

mkdir -p "$T/out"
printf '#!/bin/sh\nexec taskset -c 0 "%s" "$@"\n' "$FLIGHTREC" >"$T/fr-cpu0"
chmod +x "$T/fr-cpu0"
FLIGHTREC_SAVE=$FLIGHTREC
FLIGHTREC=$T/fr-cpu0
record_bg cf -a -e syscalls:sys_enter_read --backward -m 16 -o "$T/out" --no-final-snapshot \
	--max-files 4
FLIGHTREC=$FLIGHTREC_SAVE
taskset -c 1 "$HELPERS/read_loop" 2000000000 &
LP=$!
BGPIDS="$BGPIDS $LP"
# its loader's reads (fd 3, other counts) are overwritten long before this:
# from here on, each of its reads is read(3, &c, 1)
sleep 0.5

reads=0
i=0
while [ "$i" -lt "$N" ]; do
	i=$((i + 1))
	f=$("$FLIGHTREC" snapshot --name cf) || fail "snapshot $i: flightrec snapshot exited $?"
	dump_reads "$f" >"$T/d.txt" || fail "snapshot $i: dump exited $?"
	grep -q '^# cpu .*corrupt' "$T/d.txt" && fail "snapshot $i: a ring walk reported corruption"
	# awk prints: records bad first-bad-line
	set -- $(awk -v p="$LP" '
		$4 == "SAMPLE" && $6 == "syscalls:sys_enter_read" {
			split($3, a, "/"); if (a[1] != p || $5 == "taskset") next
			n++
			if (!buf) buf = $9
			if ($7 != "__syscall_nr=0" || $8 != "fd=0x00000003" || $9 != buf ||
			    $10 != "count=0x00000001" || NF != 10 || $5 != "read_loop" ||
			    $1 < t) { bad++; if (!line) line = NR }
			t = $1
		}
		END { print n + 0, bad + 0, line + 0 }' "$T/d.txt")
	[ "$2" -eq 0 ] || fail "snapshot $i: $2 torn read_loop records of $1, first: $(sed -n "$3p" "$T/d.txt")"
	reads=$((reads + $1))
done
[ "$reads" -gt 0 ] || fail "no read_loop record in $N snapshots"
n=$(grep -c 'snapshot (command) written' "$T/record-cf.err")
[ "$n" -eq "$N" ] || fail "$n status lines for $N snapshots"
# CPU 0 by its pinned copy thread, CPU 1 paused (the recorder cannot run there)
ok=$(grep -c 'copied 1 pinned, 1 paused)' "$T/record-cf.err")
[ "$ok" -eq "$N" ] || fail "$ok of $N snapshots copied '1 pinned, 1 paused': $(grep -m1 'written' "$T/record-cf.err")"
grep -q 'skipped' "$T/record-cf.err" && fail "a CPU was skipped: $(grep -m1 skipped "$T/record-cf.err")"
grep -q '^# pinned_copy: no' "$T/d.txt" || fail "the file does not say its copy was not all pinned"
pass "$N snapshots of a recorder confined to CPU 0: $reads read_loop records, none torn; 1 pinned, 1 paused"
exit 0
