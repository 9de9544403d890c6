#!/bin/sh
# tests/e2e/prctl_backward.sh: perf's backward-ring-buffer test, through the
# real binary: 111 prctl(PR_SET_NAME) under syscalls:sys_enter_prctl.
# 256-page ring: exactly 111 samples and 111 COMMs; 1-page ring: only the
# newest samples, contiguous, in order, none corrupt; a COMM storm as
# system-wide recording starts loses no sideband, nor does a storm long
# enough to fill the sideband store.
. "$TESTLIB"

mkdir -p "$T/big" "$T/small"
record_fg -q -m 256 -e syscalls:sys_enter_prctl --backward -o "$T/big" -- "$HELPERS/prctl_loop" 111 ||
	fail "record (256 pages) exited $?: $(cat "$T/record.err")"
set -- "$T"/big/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file after the command exited, got: $*"
[ "$(stat -c %a "$1")" = 600 ] || fail "file mode is $(stat -c %a "$1"), expected 600"
"$FLIGHTREC" dump "$1" >"$T/big.txt" || fail "dump exited $?"
pid=$(awk '$4=="COMM" && $NF=="exec=1" && $6=="comm=prctl_loop" {split($3,a,"/"); print a[1]; exit}' "$T/big.txt")
[ -n "$pid" ] || fail "no exec COMM of prctl_loop in the file"
# only PR_SET_NAME (option 15): a sanitizer runtime in the helper may call prctl too
samples=$(awk -v p="$pid" '$4=="SAMPLE" && $6=="syscalls:sys_enter_prctl" && $8=="option=0x0000000f" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/big.txt")
comms=$(awk -v p="$pid" '$4=="COMM" && $NF=="exec=0" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/big.txt")
[ "$samples" -eq 111 ] || fail "256 pages: $samples sys_enter_prctl samples, expected 111"
[ "$comms" -eq 111 ] || fail "256 pages: $comms COMM records, expected 111"
pass "256 pages: $samples samples, $comms COMM records from pid $pid"
# arg3 carries the loop index: 0..110 in order
seq_ok=$(awk "$AWKHEX"' $4=="SAMPLE" && $8=="option=0x0000000f" {for(i=7;i<=NF;i++) if ($i ~ /^arg3=/) {v=hex(substr($i,6)); if (v!=n) bad=1; n++}} END{print (bad||n!=111)?"no":"yes"}' "$T/big.txt")
[ "$seq_ok" = yes ] || fail "256 pages: arg3 sequence is not 0..110 in order"

record_fg -q -m 1 -e syscalls:sys_enter_prctl --backward -o "$T/small" -- "$HELPERS/prctl_loop" 111 ||
	fail "record (1 page) exited $?: $(cat "$T/record.err")"
set -- "$T"/small/*.frec
"$FLIGHTREC" dump "$1" >"$T/small.txt" || fail "dump of the 1-page file exited $?"
grep -q '^# cpu .* corrupt' "$T/small.txt" && fail "1 page: a ring walk reported corruption"
awk "$AWKHEX"' $4=="SAMPLE" && $8=="option=0x0000000f" {for(i=7;i<=NF;i++) if ($i ~ /^arg3=/) print hex(substr($i,6))}' "$T/small.txt" >"$T/seq"
n=$(wc -l <"$T/seq")
[ "$n" -gt 0 ] && [ "$n" -lt 111 ] || fail "1 page: $n samples, expected some but fewer than 111"
last=$(tail -n 1 "$T/seq")
first=$(head -n 1 "$T/seq")
[ "$last" -eq 110 ] || fail "1 page: newest sample has arg3=$last, expected 110"
awk 'NR>1 && $1!=prev+1 {exit 1} {prev=$1}' "$T/seq" || fail "1 page: samples are not contiguous and in order"
# times never go backwards
awk '$1 ~ /^[0-9]/ { if ($1 < prev) exit 1; prev=$1 }' "$T/small.txt" || fail "1 page: records not in time order"
grep -q '^# cpu .*wrapped' "$T/small.txt" || fail "1 page: the wrapped ring is not flagged"
pass "1 page: $n newest samples, arg3 $first..$last, contiguous, in order"

# a COMM storm the moment system-wide recording starts: the loop drains the
# 1 MiB sideband ring meanwhile (kallsyms loads in a thread of its own; it
# held the loop for 0.1-0.5 s, and ~13k of 200k COMMs were lost)
# A sanitizer build (make distcheck's) drains several times slower and loses
# part of a 450k/s COMM storm at any time, start or not: the plain build's
# make check is where this is checked.
if ldd "$FLIGHTREC" 2>/dev/null | grep -q 'libasan'; then
	echo "note: sanitizer build: the COMM storm at start is checked by the plain build"
	exit 0
fi
last=$(($(nproc) - 1))
# storm NAME N WHAT: a system-wide backward recorder, N prctl(PR_SET_NAME) on
# the last CPU as soon as it says recording, stopped; its file in $T/NAME,
# fails unless it lost nothing ($line: its status line)
storm() {
	mkdir -p "$T/$1"
	"$FLIGHTREC" record --name "$1" -a -e syscalls:sys_enter_prctl --backward -o "$T/$1" \
		2>"$T/record-$1.err" &
	RECPID=$!
	BGPIDS="$BGPIDS $RECPID"
	# at once: record_bg's 0.1 s polls of the socket let the load finish first
	for _ in $(seq 1 1000); do grep -q recording "$T/record-$1.err" && break; sleep 0.01; done
	grep -q recording "$T/record-$1.err" || fail "the recorder never said recording"
	taskset -c "$last" "$HELPERS/prctl_loop" "$2" || fail "prctl_loop exited $?"
	kill -INT "$RECPID"
	wait "$RECPID" || fail "the recorder exited $?: $(cat "$T/record-$1.err")"
	line=$(grep 'written' "$T/record-$1.err")
	lost=$(echo "$line" | sed -n 's/.* \([0-9]*\) lost,.*/\1/p')
	[ "$lost" = 0 ] || fail "$3: '$line'"
}
storm storm 200000 "COMM storm at start"
set -- "$T"/storm/*.frec
"$FLIGHTREC" dump "$1" >"$T/storm.txt" || fail "dump exited $?"
pid=$(awk '$4=="COMM" && $NF=="exec=1" && $6=="comm=prctl_loop" {split($3,a,"/"); print a[1]; exit}' "$T/storm.txt")
comms=$(awk -v p="$pid" '$4=="COMM" && $NF=="exec=0" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/storm.txt")
[ "$comms" -eq 200000 ] || fail "COMM storm at start: $comms COMM records of pid $pid, expected 200000"
pass "COMM storm as recording starts: 200000 COMMs, 0 lost"

# a long storm: 2M COMMs (80 MB of sideband) fill the per-CPU store to its
# 64 MiB cap, which then drops its oldest records a block at a time (until
# 2026-12-03 it memmoved out the oldest half, and the drain stalled long
# enough to lose 8-10k of these COMMs)
storm storm2 2000000 "2M-COMM storm"
pass "2M-COMM storm past the store's cap: 0 lost ($line)"
exit 0
