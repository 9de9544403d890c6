#!/bin/sh
# tests/e2e/keep_stall.sh: a --keep recorder held off the CPU (SIGSTOP, as a
# saturated machine, a CPU quota or a debugger would hold it) while a
# numbered read() loop runs flat out keeps the END of the stall: its rings
# are overwrite rings read as they fill, so the kernel overwrote the oldest
# records the readers had not reached, never the newest. The snapshot after
# the stall ends with the loop's last read, a gap-free run of the loop's
# reads before it (at least half a ring's worth), one hole before them,
# counted (LOST record, the recorder's line, exit 1 of recorder, dump and
# report).
. "$TESTLIB"
mkdir -p "$T/out"
N=3000000
cpu=1
[ "$(nproc)" -ge 2 ] || cpu=0

# only reads of 17 to 32 bytes, the loop's (read_loop COUNT -16): in a
# parallel make check other tests' reads on the loop's CPU after it ended
# overwrote its newest reads in a ring that recorded every read
record_bg st --keep 30s -a -e syscalls:sys_enter_read --filter 'count >= 17 && count <= 32' \
	-o "$T/out"
kill -STOP "$RECPID"
# the stall lasts 2 s and at least the loop: all its reads fall inside it
# (a loop still running after SIGCONT beside other flat-out loops of a
# parallel make check lapped the reader again: not the stall's end)
sleep 2 & SP=$!
taskset -c $cpu "$HELPERS/read_loop" $N 0 -16 & LP=$!
wait "$LP" || fail "read_loop failed"
wait "$SP"
kill -CONT "$RECPID"
f=$("$FLIGHTREC" snapshot --name st) || fail "snapshot exited $?: $(cat "$T/record-st.err")"
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
[ $rc -eq 1 ] && grep -q 'snapshot files written count records lost while recording' "$T/record-st.err" ||
	fail "the recorder whose file counts losses exited $rc: $(cat "$T/record-st.err")"
said=$(sed -n 's/.*snapshot (command) written: .* \([0-9][0-9]*\) lost,.*/\1/p' "$T/record-st.err")
[ -n "$said" ] && [ "$said" -gt 0 ] || fail "the recorder did not say it lost records: $(cat "$T/record-st.err")"

"$FLIGHTREC" dump "$f" >"$T/st.txt" 2>"$T/st.err"; rc=$?
[ $rc -eq 1 ] && grep -q 'records lost while recording' "$T/st.err" || fail "dump exited $rc: $(cat "$T/st.err")"
grep -q ' LOST ' "$T/st.txt" || fail "no LOST record in the dump"
# the loop's reads, newest backwards: how many follow each other without a
# gap from the newest, and the newest's count (read i asks (i % 16) + 17
# bytes; its pid's, of 17 to 32 bytes: pids wrap at 32768 here, and in a
# parallel make check another test's process took the loop's pid after it
# exited; not by name: the loop's exec COMM may be lost from a sideband ring
# that overflowed while the recorder was stopped)
set -- $(awk -v p="$LP" "$AWKHEX"'
	$4 == "SAMPLE" && $6 == "syscalls:sys_enter_read" {
		split($3, a, "/"); if (a[1] != p) next
		split($9, b, "="); split($10, c, "="); k = hex(c[2]) - 16; if (k < 1 || k > 16) next
		n++; buf[n] = hex(b[2]); cnt[n] = k
	}
	END {
		run = n ? 1 : 0
		for (i = n; i > 1; i--) {
			ok = buf[i] == buf[i-1] && cnt[i] == cnt[i-1] + 1 ||
			     cnt[i-1] == 16 && cnt[i] == 1 && (buf[i] == buf[i-1] + 1 || buf[i] == buf[i-1] - 1048575)
			if (!ok) break
			run++
		}
		printf "%d %d %d\n", n, run, n ? cnt[n] : 0
	}' "$T/st.txt")
reads=$1 run=$2 lastcnt=$3
[ "$reads" -gt 0 ] || fail "none of the loop's reads in the file"
[ "$lastcnt" -eq $(( (N - 1) % 16 + 1 )) ] ||
	fail "the newest read in the file asks 16 + $lastcnt bytes: not the loop's last read (16 + $(( (N - 1) % 16 + 1 )))"
# the default ring is 4 MiB: half of it is ~30,000 of these records
[ "$run" -ge 30000 ] || fail "only $run reads before the loop's last without a gap"
[ "$run" -lt $N ] || fail "no hole in $N reads held off 2 s: was the recorder stopped?"
"$FLIGHTREC" report "$f" >"$T/st-report.txt" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "report of a file with losses exited $rc"
grep -qE 'lost: [1-9]' "$T/st-report.txt" || fail "report does not show the losses: $(grep -i lost "$T/st-report.txt")"
pass "stalled 2 s: the loop's last read and $run before it gap-free in the file, $said earlier records lost and said ($reads of $N reads kept)"
exit 0
