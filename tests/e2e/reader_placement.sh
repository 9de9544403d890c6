#!/bin/sh
# tests/e2e/reader_placement.sh: forward mode's reader threads: by default
# one per CPU, unpinned (the recorder's whole affinity) at nice -10;
# --reader-cpus own pins each to its ring's CPU, LIST where asked (e.g. away
# from the workload's CPU), any leaves them unpinned at nice 0.
. "$TESTLIB"
mkdir -p "$T/a" "$T/b"
ncpu=$(nproc)
readers() {   # PID -> "B CPUS" for each reader thread (nice -10)
	for t in /proc/$1/task/*; do
		# nice is field 19 of stat, counted after the ")" that ends comm
		ni=$(sed 's/.*) //' "$t/stat" | awk '{print $17}')
		[ "$ni" = -10 ] && echo "B $(awk '/^Cpus_allowed_list/ {print $2}' "$t/status")"
	done
}
record_bg fa --forward -a -e syscalls:sys_enter_read -o "$T/a"
all=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/$RECPID/status)
for _ in $(seq 1 40); do readers $RECPID >"$T/ra.txt"; [ "$(wc -l <"$T/ra.txt")" -ge "$ncpu" ] && break; sleep 0.05; done
kill -INT $RECPID; wait $RECPID; BGPIDS=""
[ "$(wc -l <"$T/ra.txt")" -ge "$ncpu" ] || fail "expected $ncpu reader threads at nice -10: $(cat "$T/ra.txt")"
[ "$(grep -c "^B $all\$" "$T/ra.txt")" -eq "$(wc -l <"$T/ra.txt")" ] ||
	fail "default: a reader narrower than the recorder's CPUs ($all): $(cat "$T/ra.txt")"
pass "default: $(wc -l <"$T/ra.txt") readers at nice -10, unpinned (CPUs $all)"
mkdir -p "$T/o"
record_bg fo --forward --reader-cpus own -a -e syscalls:sys_enter_read -o "$T/o"
for _ in $(seq 1 40); do readers $RECPID >"$T/ro.txt"; [ "$(wc -l <"$T/ro.txt")" -ge "$ncpu" ] && break; sleep 0.05; done
kill -INT $RECPID; wait $RECPID; BGPIDS=""
for c in $(seq 0 $((ncpu - 1))); do
	grep -q "^B $c\$" "$T/ro.txt" || fail "--reader-cpus own: no reader pinned to CPU $c: $(cat "$T/ro.txt")"
done
pass "--reader-cpus own: $(wc -l <"$T/ro.txt") readers at nice -10, one pinned per CPU"
record_bg fb --forward --reader-cpus 0 -a -e syscalls:sys_enter_read -o "$T/b"
for _ in $(seq 1 40); do readers $RECPID >"$T/rb.txt"; [ "$(wc -l <"$T/rb.txt")" -ge "$ncpu" ] && break; sleep 0.05; done
kill -INT $RECPID; wait $RECPID; BGPIDS=""
[ "$(grep -c '^B 0$' "$T/rb.txt")" -ge "$ncpu" ] || fail "--reader-cpus 0: $(cat "$T/rb.txt")"
pass "--reader-cpus 0: every reader on CPU 0"
# any: nice 0, the recorder's whole affinity
mkdir -p "$T/c"
record_bg fc --forward --reader-cpus any -a -e syscalls:sys_enter_read -o "$T/c"
sleep 0.5
raised=$(readers $RECPID | wc -l)
pinned=$(for t in /proc/$RECPID/task/*; do awk '/^Cpus_allowed_list/ {print $2}' "$t/status"; done | grep -vcx "$all")
kill -INT $RECPID; wait $RECPID; BGPIDS=""
[ "$raised" -eq 0 ] || fail "--reader-cpus any: $raised threads at nice -10"
[ "$pinned" -eq 0 ] || fail "--reader-cpus any: $pinned threads narrower than $all"
pass "--reader-cpus any: no thread raised or pinned"
expect_error 64 'reader-cpus' "$FLIGHTREC" record --reader-cpus 0 -a -e cpu-clock
expect_error 64 'reader-cpus' "$FLIGHTREC" record --reader-cpus any -a -e cpu-clock
expect_error 64 'reader-cpus' "$FLIGHTREC" record --reader-cpus own -a -e cpu-clock
expect_error 64 'reader-cpus' "$FLIGHTREC" record --forward --reader-cpus 0- -a -e cpu-clock
