#!/bin/sh
# tests/e2e/keep.sh: record --keep DURATION keeps the last DURATION in memory.
# A numbered read() loop (read_loop COUNT 0: each read's buf and count number
# it), paced to 200,000 reads a second, runs ~10 s under --keep 5s; the
# snapshot holds a gap-free run of its reads spanning >= 5 s, none older than
# 5 s + one chunk (1 s flush) before the snapshot. (Flat out, one loop makes
# ~2 M reads a second, more than a reader given a share of a loaded 2-CPU
# machine drains: what a reader that falls behind keeps is stall.sh's.) Tiny rings (-m 1) at a high rate lose records: the recorder's
# stderr, dump and report say how many, and dump and report exit 1. A process
# that ran and exited inside the window is still named and symbolized (user
# and kernel frames) in a second snapshot of the same window. Usage errors: one line each.
. "$TESTLIB"
mkdir -p "$T/out" "$T/lost" "$T/sym"

expect_error 64 'not with --forward, --backward or --switch-output' "$FLIGHTREC" record --keep 5s --forward -a
expect_error 64 'not with --forward, --backward or --switch-output' "$FLIGHTREC" record --backward --keep 5s -a
expect_error 64 'not with --forward, --backward or --switch-output' "$FLIGHTREC" record --keep 5s --switch-output 1M -a
expect_error 64 'expected DURATION\[,SIZE\]' "$FLIGHTREC" record --keep 0 -a
expect_error 64 'expected DURATION\[,SIZE\]' "$FLIGHTREC" record --keep 5s,100K -a
expect_error 64 'expected DURATION\[,SIZE\]' "$FLIGHTREC" record --keep 5s,12Q -a

cpu=1
[ "$(nproc)" -ge 2 ] || cpu=0
record_bg kp --keep 5s -a -e syscalls:sys_enter_read -o "$T/out"
# the status line comes once the readers start, just after the socket
# appears (record_bg's cue): a loaded machine can put seconds between them
for _ in $(seq 1 100); do
	grep -q 'keeping the last 5.000 s' "$T/record-kp.err" && break
	sleep 0.1
done
grep -q 'keeping the last 5.000 s' "$T/record-kp.err" || fail "no keep status line: $(cat "$T/record-kp.err")"
taskset -c $cpu "$HELPERS/read_loop" 2000000000 0 0 200000 & LP=$!
BGPIDS="$BGPIDS $LP"
sleep 9
f=$("$FLIGHTREC" snapshot --name kp) || fail "snapshot exited $?: $(cat "$T/record-kp.err")"
kill "$LP"
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
# the sanitizer build (make distcheck) reads several times slower, beside
# other tests: a gap-free window is the plain build's to show (make check),
# as in forward.sh; there a loss is said (exit 1) and the file still reads
asan=false
grep -q __asan_init "$FLIGHTREC" 2>/dev/null && asan=true
if $asan && [ $rc -eq 1 ] && grep -q 'count records lost while recording' "$T/record-kp.err"; then
	echo "note: a sanitizer build lost records at full speed: $(grep -m1 'lost,' "$T/record-kp.err")"
else
	[ $rc -eq 0 ] || fail "recorder exited $rc: $(cat "$T/record-kp.err")"
	asan=false
fi
"$FLIGHTREC" dump "$f" >"$T/kp.txt"; rc=$?
[ $rc -eq 0 ] || { $asan && [ $rc -eq 1 ]; } || fail "dump exited $rc"
grep -q '^# mode: keep' "$T/kp.txt" || fail "the file does not say mode keep"
if $asan; then
	grep -q ' SAMPLE ' "$T/kp.txt" || fail "the file of a lossy keep recording has no record"
	pass "keep, sanitizer build: the file of a lossy recording reads ($(grep -c ' SAMPLE ' "$T/kp.txt") records)"
else
snap=$(awk '/^# snapshot_time_ns:/ {print $3; exit}' "$T/kp.txt")
# prints: reads gaps first last first-gap-line
set -- $(awk -v p="$LP" "$AWKHEX"'
	$4 == "SAMPLE" && $6 == "syscalls:sys_enter_read" {
		split($3, a, "/"); if (a[1] != p) next
		split($9, b, "="); split($10, c, "="); buf = hex(b[2]); cnt = hex(c[2])
		if (n && !(buf == pb && cnt == pc + 1) &&
		    !(pc == 16 && cnt == 1 && (buf == pb + 1 || buf == pb - 1048575))) {
			gaps++; if (!line) line = NR
		}
		if (!n) first = $1
		last = $1; pb = buf; pc = cnt; n++
	}
	END { printf "%d %d %s %s %d\n", n, gaps, first, last, line }' "$T/kp.txt")
reads=$1 gaps=$2 first=$3 last=$4
[ "$reads" -gt 100000 ] || fail "only $reads reads of the loop in the file"
[ "$gaps" -eq 0 ] || fail "$gaps gaps in the loop's numbered reads, first at: $(sed -n "$5p" "$T/kp.txt")"
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l - f >= 4.99) }' ||
	fail "the reads span $(awk -v f="$first" -v l="$last" 'BEGIN{print l - f}') s, expected >= 5 s"
awk -v f="$first" -v s="$snap" 'BEGIN { exit !(s / 1e9 - f <= 6.0) }' ||
	fail "the oldest read is $(awk -v f="$first" -v s="$snap" 'BEGIN{print s / 1e9 - f}') s before the snapshot, expected <= 5 s + one chunk (1 s)"
awk -v l="$last" -v s="$snap" 'BEGIN { exit !(s / 1e9 - l <= 0.5) }' ||
	fail "the newest read is $(awk -v l="$last" -v s="$snap" 'BEGIN{print s / 1e9 - l}') s before the snapshot: the rings were not drained"
grep -q 'snapshot (command) written: .*from the --keep window' "$T/record-kp.err" ||
	fail "no keep snapshot line: $(cat "$T/record-kp.err")"
pass "keep 5s: $reads numbered reads, gap-free, $(awk -v f="$first" -v l="$last" 'BEGIN{printf "%.3f", l - f}') s, oldest $(awk -v f="$first" -v s="$snap" 'BEGIN{printf "%.3f", s / 1e9 - f}') s before the snapshot"
fi

# tiny rings, two loops flat out: the readers cannot keep up; the losses are said
record_bg kl --keep 5s -m 1 -a -e syscalls:sys_enter_read -o "$T/lost"
taskset -c 0 "$HELPERS/read_loop" 2000000000 & L0=$!
taskset -c $cpu "$HELPERS/read_loop" 2000000000 & L1=$!
BGPIDS="$BGPIDS $L0 $L1"
sleep 2
# the loops stop first: the window keeps their losses, and the snapshot's
# fsync does not compete with two full-speed loops and two readers woken
# every few records (that took up to 60 s on the loaded 2-CPU machine)
kill "$L0" "$L1"
f=$("$FLIGHTREC" snapshot --name kl) || fail "snapshot exited $?: $(cat "$T/record-kl.err")"
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
# its files count losses: exit 1, said, as a forward recorder's
[ $rc -eq 1 ] && grep -q 'snapshot files written count records lost while recording' "$T/record-kl.err" ||
	fail "the recorder whose files count losses exited $rc: $(tail -3 "$T/record-kl.err")"
said=$(sed -n 's/.*snapshot (command) written: .* \([0-9][0-9]*\) lost,.*/\1/p' "$T/record-kl.err")
[ -n "$said" ] && [ "$said" -gt 0 ] || fail "the recorder did not say it lost records: $(cat "$T/record-kl.err")"
"$FLIGHTREC" dump "$f" >"$T/kl.txt" 2>"$T/kl.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'records lost while recording' "$T/kl.err" || fail "dump exited $rc: $(cat "$T/kl.err")"
lost=$(awk '/^# cpu/ {for(i=1;i<=NF;i++) if ($i ~ /^lost_(records|samples)=/) {split($i,a,"="); if (a[2] > m[$3]) m[$3] = a[2]}} END{for (c in m) s += m[c]; print s+0}' "$T/kl.txt")
[ "$lost" -gt 0 ] || fail "dump shows no lost records: $(grep '^# cpu' "$T/kl.txt")"
grep -q ' LOST ' "$T/kl.txt" || fail "no LOST record in the dump"
"$FLIGHTREC" report "$f" >"$T/kl-report.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "report of a file with losses exited $rc"
grep -qE 'lost: [1-9]' "$T/kl-report.txt" || fail "report does not show the losses: $(grep -i lost "$T/kl-report.txt")"
pass "tiny rings: $said lost said by the recorder, $lost in dump's cpu lines, report says $(grep -oE 'lost: [0-9]+' "$T/kl-report.txt" | head -1)"

# retention and symbols: cpuburn_fp runs ~1 s and exits; two snapshots of
# the same window both name its functions and kernel ones
record_bg ks --keep 8s -e cpu-clock -F 999 -g -a -o "$T/sym"
"$HELPERS/cpuburn_fp" 100 >/dev/null
sleep 0.5
f1=$("$FLIGHTREC" snapshot --name ks) || fail "snapshot exited $?"
f2=$("$FLIGHTREC" snapshot --name ks) || fail "second snapshot exited $?"
kill -INT "$RECPID"
wait "$RECPID"
BGPIDS=""
for f in "$f1" "$f2"; do
	"$FLIGHTREC" report "$f" >"$T/ks.txt" 2>&1 || fail "report $f exited $?"
	grep -qE 'cpuburn_fp .*\[\.\] hot_a' "$T/ks.txt" ||
		fail "$f: the exited cpuburn_fp's hot_a is not named: $(head -20 "$T/ks.txt")"
	grep -qE '\[k\] [a-z_]' "$T/ks.txt" || fail "$f: no kernel symbol: $(head -20 "$T/ks.txt")"
done
pass "exited process and kernel symbols named in two snapshots of one window"
exit 0
