#!/bin/sh
# tests/e2e/reader_placement.sh: forward mode's reader threads never take the
# workload's CPU by default: unpinned (the recorder's whole affinity) and
# SCHED_BATCH (no wakeup preemption). --reader-cpus pins them where asked.
. "$TESTLIB"
mkdir -p "$T/a" "$T/b"
ncpu=$(nproc)
readers() {   # PID -> "B CPUS" for each SCHED_BATCH (policy 3) thread
	for t in /proc/$1/task/*; do
		# policy is field 41 of stat, counted after the ")" that ends comm
		pol=$(sed 's/.*) //' "$t/stat" | awk '{print $39}')
		[ "$pol" = 3 ] && echo "B $(awk '/^Cpus_allowed_list/ {print $2}' "$t/status")"
	done
}
record_bg fa --forward -a -e syscalls:sys_enter_read -o "$T/a"
all=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/$RECPID/status)
for _ in $(seq 1 40); do readers $RECPID >"$T/ra.txt"; [ "$(wc -l <"$T/ra.txt")" -ge "$ncpu" ] && break; sleep 0.05; done
kill -INT $RECPID; wait $RECPID; BGPIDS=""
[ "$(wc -l <"$T/ra.txt")" -ge "$ncpu" ] || fail "expected $ncpu SCHED_BATCH reader threads: $(cat "$T/ra.txt")"
grep -qv "^B $all\$" "$T/ra.txt" && fail "a reader is pinned by default: $(cat "$T/ra.txt") (recorder: $all)"
pass "default: $(wc -l <"$T/ra.txt") readers, SCHED_BATCH, on CPUs $all"
record_bg fb --forward --reader-cpus 0 -a -e syscalls:sys_enter_read -o "$T/b"
for _ in $(seq 1 40); do readers $RECPID >"$T/rb.txt"; [ "$(wc -l <"$T/rb.txt")" -ge "$ncpu" ] && break; sleep 0.05; done
kill -INT $RECPID; wait $RECPID; BGPIDS=""
[ "$(grep -c '^B 0$' "$T/rb.txt")" -ge "$ncpu" ] || fail "--reader-cpus 0: $(cat "$T/rb.txt")"
pass "--reader-cpus 0: every reader on CPU 0"
expect_error 64 'reader-cpus' "$FLIGHTREC" record --reader-cpus 0 -a -e cpu-clock
expect_error 64 'reader-cpus' "$FLIGHTREC" record --forward --reader-cpus 0- -a -e cpu-clock
