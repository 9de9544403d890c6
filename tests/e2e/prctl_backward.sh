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
# the renames (the name after exec, from sched_process_exec, is not one)
comms=$(awk -v p="$pid" '$4=="COMM" && $NF=="exec=0" && $6!="comm=prctl_loop" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/big.txt")
grep -q '^# comms: sample rings$' "$T/big.txt" || fail "the file does not say its COMMs are in the sample rings: $(grep '^# comms' "$T/big.txt")"
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

# a COMM storm the moment system-wide recording starts: backward mode writes
# the COMMs into the sample rings, as perf --overwrite does (they cost one
# write and nothing reads them while recording), so the sideband ring the
# loop drains gets none of them and loses nothing; the file holds the
# newest renames, each right before its sample, and the process table names
# the storm's process from its exec (sched_process_exec) though the ring no
# longer holds its exec COMM
last=$(($(nproc) - 1))
mkdir -p "$T/storm"
"$FLIGHTREC" record --name storm -a -e syscalls:sys_enter_prctl --backward -o "$T/storm" \
	2>"$T/record-storm.err" &
RECPID=$!
BGPIDS="$BGPIDS $RECPID"
for _ in $(seq 1 1000); do grep -q recording "$T/record-storm.err" && break; sleep 0.01; done
grep -q recording "$T/record-storm.err" || fail "the recorder never said recording"
taskset -c "$last" "$HELPERS/prctl_loop" 200000 & lp=$!
wait "$lp" || fail "prctl_loop exited $?"
kill -INT "$RECPID"
wait "$RECPID" || fail "the recorder exited $?: $(cat "$T/record-storm.err")"
line=$(grep 'written' "$T/record-storm.err")
lost=$(echo "$line" | sed -n 's/.* \([0-9]*\) lost,.*/\1/p')
[ "$lost" = 0 ] || fail "COMM storm at start: '$line'"
set -- "$T"/storm/*.frec
"$FLIGHTREC" dump "$1" >"$T/storm.txt" || fail "dump exited $?"
# arg3 = i, taken at the syscall's entry: the rename before it is call i-1's,
# prctl_((i - 1) % 1000): every sample of the storm in the file (but the
# oldest) has the COMM of the call before it right before it
awk -v p="$lp" "$AWKHEX"' { split($3, a, "/") } a[1] != p { next }
	$4 == "COMM" { name = substr($6, 6); next }
	$4 == "SAMPLE" && $8 == "option=0x0000000f" { for (i = 7; i <= NF; i++) if ($i ~ /^arg3=/) v = hex(substr($i, 6));
		n++; if (name != sprintf("prctl_%03d", (v + 999) % 1000)) bad++ }
	END { print n + 0, bad + 0 }' "$T/storm.txt" >"$T/storm.n"
read -r n bad <"$T/storm.n"
[ "$n" -gt 1000 ] && [ "$bad" -le 1 ] ||
	fail "COMM storm: $n samples of pid $lp in the file, $bad without their own rename before them"
# the ring overwrote the exec's own COMM: the sideband still names the
# process from its exec (a COMM made from sched_process_exec, kept with the
# exec's MMAP2s), and its samples under that name in the table
awk -v p="$lp" '$4 == "COMM" && $3 == p "/" p && $6 == "comm=prctl_loop" {f = 1} END {exit !f}' "$T/storm.txt" ||
	fail "COMM storm: no COMM naming pid $lp prctl_loop in the file: $(grep " $lp/$lp " "$T/storm.txt" | grep -v SAMPLE | head -5)"
pass "COMM storm as recording starts: 0 lost; $n samples each after its own rename; pid $lp named from its exec"
exit 0
