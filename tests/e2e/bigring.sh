#!/bin/sh
# tests/e2e/bigring.sh: big backward rings (-m 64M per CPU) filled partly by
# a known number of reads on every CPU, then a marker read on every CPU, then
# a snapshot: the file holds every one of those reads (a ring not yet full
# keeps everything since start), each CPU's newest sample is its marker, no
# CPU wrapped or raced, dump reads it clean, and the recorder's peak RSS
# stays below the rings' size (the snapshot streams the rings in bounded
# chunks; it never holds a copy of a whole ring).
. "$TESTLIB"

ncpu=$(nproc)
N=${N:-50000}
FILL=4093     # count of a fill read (0xffd)
MARK=4091     # count of a marker read (0xffb)
mkdir -p "$T/out"
record_bg big -a -e syscalls:sys_enter_read --filter "count == $FILL || count == $MARK" \
	--backward -m 64M -o "$T/out" --no-final-snapshot
pids=""
for c in $(seq 0 $((ncpu - 1))); do
	taskset -c "$c" "$HELPERS/read_loop" "$N" 0 $FILL &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "read_loop $p failed"; done
for c in $(seq 0 $((ncpu - 1))); do
	taskset -c "$c" "$HELPERS/read_loop" 1 0 $MARK || fail "marker read on cpu $c failed"
done
f=$("$FLIGHTREC" snapshot --name big) || fail "flightrec snapshot exited $?"
[ -f "$f" ] || fail "no file $f"
hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$RECPID/status")
"$FLIGHTREC" dump "$f" >"$T/d.txt" 2>"$T/d.err" || fail "dump exited $?: $(cat "$T/d.err")"
[ -s "$T/d.err" ] && fail "dump said: $(cat "$T/d.err")"

# every fill read, per CPU: the count field is the last word of a sample line
fills=$(grep -c "SAMPLE  *read_loop .*count=0x00000ffd$" "$T/d.txt")   # the loops' own: another process may read 4093 bytes too
[ "$fills" -eq $((N * ncpu)) ] || fail "expected $((N * ncpu)) fill reads, the file has $fills"
marks=$(grep -c "SAMPLE  *read_loop .*count=0x00000ffb$" "$T/d.txt")
[ "$marks" -eq "$ncpu" ] || fail "expected $ncpu marker reads, the file has $marks"
# each CPU's newest sample is its marker
awk '$4 == "SAMPLE" { last[$2] = $NF } END { for (c in last) if (last[c] != "count=0x00000ffb") { print c, last[c]; bad = 1 }; exit bad }' \
	"$T/d.txt" >"$T/last.txt" || fail "a CPU's newest sample is not its marker: $(cat "$T/last.txt")"
grep '^# cpu ' "$T/d.txt" >"$T/cpus.txt"
[ "$(wc -l <"$T/cpus.txt")" -eq "$ncpu" ] || fail "expected $ncpu cpu lines: $(cat "$T/cpus.txt")"
grep -q 'wrapped' "$T/cpus.txt" && fail "a ring of 64M wrapped: $(cat "$T/cpus.txt")"
grep -v 'raced_bytes=0' "$T/cpus.txt" && fail "raced bytes on a quiet ring: $(cat "$T/cpus.txt")"
rings_kib=$((ncpu * 64 * 1024))
[ "$hwm" -lt "$rings_kib" ] || fail "recorder peak RSS $hwm KiB >= the rings' $rings_kib KiB"
line=$(grep 'snapshot (command) written' "$T/record-big.err" | sed 's/.*(\(.*\))$/\1/')
pass "-m 64M x $ncpu CPUs: $fills fill reads and $marks markers, newest kept, dump clean; recorder peak RSS $((hwm / 1024)) MiB; $line"
exit 0
