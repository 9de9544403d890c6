#!/bin/sh
# tests/e2e/fault_sweep.sh: faults under a running recorder, each stage: a
# full disk (a small tmpfs filled, then freed) under backward snapshots, the
# forward stream and --keep; kill -9 and SIGSTOP/SIGCONT mid-forward, under
# backward snapshots and under --keep; the output directory removed mid-forward; 20
# parallel snapshot clients. Each
# case asserts the exit code, the message, and what the file holds plus what
# it counts lost against the workload's own count (read_loop's reads of an
# odd size, selected by a filter so other tests' reads stay out): nothing
# exits 0 with data missing.
. "$TESTLIB"
F="$FLIGHTREC"
mnt="$T/small"
mkdir -p "$mnt"
mount -t tmpfs -o size=4m tmpfs "$mnt" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs here" >&2; exit 77; }
trap 'umount "$mnt" 2>/dev/null; cleanup' EXIT

# reads of SIZE by PID in dump's output FILE
reads_of() { awk -v p="$1" '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$2"; }
# the LOST records' counts in dump's output FILE
lost_in() { awk '$4=="LOST" {split($NF,a,"="); n+=a[2]} END{print n+0}' "$1"; }
# report's "lost: N"
report_lost() { sed -n 's/.*; lost: \([0-9]*\)$/\1/p' "$1"; }
fill() { dd if=/dev/zero of="$mnt/filler" bs=16k 2>/dev/null; }
# the recorder's events are enabled once it says "recording" (its socket may
# come before): a workload started earlier may go unseen
started() {
	for _ in $(seq 1 50); do
		grep -q '^flightrec: recording' "$T/record-$1.err" && return 0
		sleep 0.1
	done
	fail "recorder $1 never said it is recording: $(cat "$T/record-$1.err")"
}
stop_rec() { kill -INT "$RECPID"; wait "$RECPID"; rc=$?; BGPIDS=""; }

# 1. backward snapshot onto a full disk: one line, exit 2, the rings kept;
# freed, the next snapshot holds every read of the workload.
mkdir -p "$mnt/b"
fill
record_bg bk -a -e syscalls:sys_enter_read --filter 'count == 3011' -m 64 -o "$mnt/b" \
	--no-final-snapshot
started bk
"$HELPERS/read_loop" 3000 0 3011 & hp=$!; wait $hp
expect_error 2 "No space left on device" "$F" snapshot --name bk
rm -f "$mnt/filler"
f=$("$F" snapshot --name bk) || fail "backward: snapshot after freeing space failed"
"$F" dump "$f" >"$T/b.txt"; drc=$?
got=$(reads_of $hp "$T/b.txt"); lost=$(lost_in "$T/b.txt")
[ $((got + lost)) -ge 3000 ] || fail "backward: $got reads + $lost lost of the 3000"
[ $drc -eq $([ "$lost" -gt 0 ] && echo 1 || echo 0) ] || fail "backward: dump exited $drc with $lost lost"
stop_rec
pass "backward ENOSPC: exit 2 said; then $got of 3000 reads, $lost lost, dump $drc"
rm -rf "$mnt/b"

# 2. --keep: a snapshot onto a full disk fails in one line; freed, the next
# holds the workload's reads.
mkdir -p "$mnt/k"
fill
record_bg kp --keep 10s -a -e syscalls:sys_enter_read --filter 'count == 3019' -o "$mnt/k" \
	--no-final-snapshot
started kp
"$HELPERS/read_loop" 3000 0 3019 & hp=$!; wait $hp
sleep 1.2   # one flush: the reads are in a kept chunk
expect_error 2 "No space left on device" "$F" snapshot --name kp
rm -f "$mnt/filler"
f=$("$F" snapshot --name kp) || fail "keep: snapshot after freeing space failed"
"$F" dump "$f" >"$T/k.txt"; drc=$?
got=$(reads_of $hp "$T/k.txt"); lost=$(lost_in "$T/k.txt")
[ $((got + lost)) -ge 3000 ] || fail "keep: $got reads + $lost lost of the 3000"
stop_rec
pass "--keep ENOSPC: exit 2 said; then $got of 3000 reads, $lost lost, dump $drc"
rm -rf "$mnt/k"

# 3. forward onto a disk that fills, then is freed: each episode said with its
# count, the loss in the file (LOST records), in report's lost: and marked on
# the html page's timeline, exit 1;
# what the file holds plus what it counts lost covers every read.
mkdir -p "$mnt/f"
# leave ~320 KiB: the file's start fits, its records do not
head -c $((4 * 1024 * 1024 - 320 * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null
record_bg fw --forward -a -e syscalls:sys_enter_read --filter 'count == 3023' -o "$mnt/f"
started fw
total=0; pids=""
for _ in $(seq 1 20); do
	"$HELPERS/read_loop" 200000 0 3023 & hp=$!; wait $hp
	total=$((total + 200000)); pids="$pids $hp"
	sleep 0.3
	grep -q 'dropping records until writes succeed' "$T/record-fw.err" && break
done
grep -q 'dropping records until writes succeed' "$T/record-fw.err" ||
	fail "forward: no write failure said: $(cat "$T/record-fw.err")"
rm -f "$mnt/filler"
"$HELPERS/read_loop" 5000 0 3023 & hp=$!; wait $hp
total=$((total + 5000)); pids="$pids $hp"
sleep 1.5
stop_rec
[ $rc -eq 1 ] || fail "forward ENOSPC: recorder exited $rc: $(cat "$T/record-fw.err")"
said=$(sed -n 's/.*writes resumed (\([0-9]*\) records lost meanwhile)/\1/p' "$T/record-fw.err" |
	awk '{s+=$1} END{print s+0}')
[ "$said" -gt 0 ] || fail "forward ENOSPC: no 'writes resumed (N records lost)': $(cat "$T/record-fw.err")"
f=$(ls "$mnt"/f/*.frec)
"$F" dump "$f" >"$T/f.txt" 2>"$T/f.err"; drc=$?
[ $drc -eq 1 ] && grep -q 'records lost while recording' "$T/f.err" ||
	fail "forward ENOSPC: dump exited $drc: $(cat "$T/f.err")"
inrec=$(lost_in "$T/f.txt")
[ "$inrec" -ge "$said" ] || fail "forward ENOSPC: LOST records count $inrec, the recorder said $said"
"$F" report "$f" >"$T/f.rep" 2>"$T/f.rerr"; rrc=$?
lost=$(report_lost "$T/f.rep")
[ $rrc -eq 1 ] && [ "${lost:-0}" -ge "$said" ] ||
	fail "forward ENOSPC: report exited $rrc, lost: $lost (said $said): $(cat "$T/f.rerr")"
"$F" report --format=html -o "$T/f.html" "$f" 2>/dev/null; hrc=$?
[ $hrc -eq 1 ] && grep -q 'class="hole"' "$T/f.html" && grep -q "<b>lost: $inrec records" "$T/f.html" ||
	fail "forward ENOSPC: the html page (exit $hrc) does not mark the hole"
got=0
for p in $pids; do got=$((got + $(reads_of $p "$T/f.txt"))); done
[ $((got + lost)) -ge $total ] || fail "forward ENOSPC: $got reads + $lost lost < the $total made"
pass "forward ENOSPC: exit 1; episodes said $said lost, LOST records $inrec, report lost: $lost; $got of $total reads in the file"
rm -rf "$mnt/f"

# 4. kill -9 mid-forward: the file reads, marked truncated, exit 1.
mkdir -p "$T/k9"
record_bg k9 --forward -a -e syscalls:sys_enter_read --filter 'count == 3037' -o "$T/k9"
started k9
"$HELPERS/read_loop" 20000 0 3037 & hp=$!; wait $hp
sleep 1.5   # a flush: the reads are written
kill -9 "$RECPID"; wait "$RECPID" 2>/dev/null; BGPIDS=""
f=$(ls "$T"/k9/*.frec)
"$F" dump "$f" >"$T/k9.txt" 2>"$T/k9.err"; drc=$?
[ $drc -eq 1 ] && grep -q 'truncated' "$T/k9.err" || fail "kill -9: dump exited $drc: $(cat "$T/k9.err")"
got=$(reads_of $hp "$T/k9.txt"); lost=$(lost_in "$T/k9.txt")
[ $((got + lost)) -ge 20000 ] || fail "kill -9: $got reads + $lost lost of the 20000 written before"
"$F" report "$f" >/dev/null 2>"$T/k9.rerr"; rrc=$?
[ $rrc -eq 1 ] || fail "kill -9: report exited $rrc: $(cat "$T/k9.rerr")"
pass "kill -9 mid-forward: dump/report exit 1, truncated; $got of 20000 reads"

# 5. SIGSTOP mid-forward with small rings: the kernel drops records, the file
# counts them (lost:), report exits 1; read + lost cover the workload.
mkdir -p "$T/st"
record_bg st --forward -m 1 -a -e syscalls:sys_enter_read --filter 'count == 3041' -o "$T/st"
started st
kill -STOP "$RECPID"
"$HELPERS/read_loop" 100000 0 3041 & hp=$!; wait $hp
kill -CONT "$RECPID"
sleep 1
stop_rec
[ $rc -eq 1 ] || fail "SIGSTOP: recorder exited $rc (records were lost): $(cat "$T/record-st.err")"
f=$(ls "$T"/st/*.frec)
"$F" dump "$f" >"$T/st.txt" 2>/dev/null
"$F" report "$f" >"$T/st.rep" 2>"$T/st.rerr"; rrc=$?
got=$(reads_of $hp "$T/st.txt"); lost=$(report_lost "$T/st.rep")
[ $rrc -eq 1 ] && grep -q 'records lost while recording' "$T/st.rerr" ||
	fail "SIGSTOP: report exited $rrc: $(cat "$T/st.rerr")"
[ "$lost" -gt 0 ] && [ $((got + lost)) -ge 100000 ] || fail "SIGSTOP: $got reads + $lost lost < 100000"
pass "SIGSTOP/SIGCONT mid-forward: exit 1; $got of 100000 reads, report lost: $lost"

# 6. the output directory removed mid-forward: said at once, exit 1, and the
# last line does not name a file as written.
mkdir -p "$T/gone"
record_bg gone --forward -a -e syscalls:sys_enter_read --filter 'count == 3049' -o "$T/gone"
started gone
"$HELPERS/read_loop" 1000 0 3049 & hp=$!; wait $hp
rm -rf "$T/gone"
for _ in $(seq 1 30); do
	grep -q 'removed while recording' "$T/record-gone.err" && break
	sleep 0.1
done
grep -q 'removed while recording' "$T/record-gone.err" ||
	fail "directory removed: not said within 3 s: $(cat "$T/record-gone.err")"
stop_rec
[ $rc -eq 1 ] || fail "directory removed: recorder exited $rc: $(cat "$T/record-gone.err")"
tail -n 1 "$T/record-gone.err" | grep -q 'No such file or directory' ||
	fail "directory removed: last line: $(tail -n 1 "$T/record-gone.err")"
pass "output directory removed: said at once, exit 1: $(grep 'removed while' "$T/record-gone.err")"

# 7. 20 parallel snapshot clients: 20 distinct files, each reads cleanly.
mkdir -p "$T/par"
record_bg par -a -e syscalls:sys_enter_read --filter 'count == 3061' -o "$T/par" --no-final-snapshot
started par
"$HELPERS/read_loop" 2000 0 3061 & hp=$!; wait $hp
sp=""
for i in $(seq 1 20); do
	"$F" snapshot --name par >"$T/par.$i" 2>"$T/par.$i.err" & sp="$sp $!"
done
bad=0
for p in $sp; do wait "$p" || bad=$((bad + 1)); done
[ $bad -eq 0 ] || fail "20 snapshots: $bad failed: $(cat "$T"/par.*.err)"
n=$(cat "$T"/par.? "$T"/par.?? | sort -u | wc -l)
[ "$n" -eq 20 ] || fail "20 snapshots: $n distinct files"
for f in $(cat "$T"/par.? "$T"/par.??); do
	"$F" dump "$f" >"$T/p.txt" 2>"$T/p.err" || fail "snapshot $f: dump exited $?: $(cat "$T/p.err")"
	[ "$(reads_of $hp "$T/p.txt")" -ge 2000 ] || fail "snapshot $f: $(reads_of $hp "$T/p.txt") of 2000 reads"
done
stop_rec
pass "20 parallel snapshots: 20 distinct files, each with the 2000 reads"

# 8. backward, SIGSTOP: a snapshot asked of a stopped recorder times out in
# one line (exit 2); after SIGCONT the next one holds the reads made before.
mkdir -p "$T/bs"
record_bg bs -a -e syscalls:sys_enter_read --filter 'count == 3067' -m 64 -o "$T/bs" --no-final-snapshot
started bs
"$HELPERS/read_loop" 2000 0 3067 & hp=$!; wait $hp
kill -STOP "$RECPID"
"$F" snapshot --name bs --timeout 1 >/dev/null 2>"$T/bs.err"; src=$?
kill -CONT "$RECPID"
[ $src -eq 2 ] && [ "$(wc -l <"$T/bs.err")" -eq 1 ] || fail "snapshot of a stopped recorder: exit $src: $(cat "$T/bs.err")"
f=$("$F" snapshot --name bs) || fail "snapshot after SIGCONT failed"
dump_reads "$f" >"$T/bs.txt" || fail "snapshot after SIGCONT does not read"
got=$(reads_of $hp "$T/bs.txt"); lost=$(lost_in "$T/bs.txt")
[ $((got + lost)) -ge 2000 ] || fail "backward SIGSTOP: $got reads + $lost lost of the 2000"
pass "backward SIGSTOP: $(cat "$T/bs.err") (exit 2); after SIGCONT $got of 2000 reads"

# 9. backward, kill -9 while snapshots are asked: every client either gets a
# file that reads or fails in one line; no file that does not read is left.
for i in 1 2 3 4 5; do
	"$F" snapshot --name bs >"$T/k.$i" 2>"$T/k.$i.err" & eval "kp$i=\$!"
done
kill -9 "$RECPID"; wait "$RECPID" 2>/dev/null; BGPIDS=""
for i in 1 2 3 4 5; do
	eval "wait \$kp$i"; krc=$?
	if [ $krc -eq 0 ]; then
		dump_reads "$(cat "$T/k.$i")" >/dev/null || fail "kill -9: client $i got a file that does not read"
	else
		[ "$(wc -l <"$T/k.$i.err")" -eq 1 ] || fail "kill -9: client $i exited $krc: $(cat "$T/k.$i.err")"
	fi
done
for f in "$T"/bs/*; do
	"$F" dump "$f" >/dev/null 2>"$T/kd.err"
	drc=$?
	[ $drc -le 1 ] || fail "kill -9 mid-snapshot: $f: dump exited $drc: $(cat "$T/kd.err")"
done
# snapshots are written unnamed until complete: a kill leaves no partial file
set -- "$T"/bs/*.part
[ -e "$1" ] && fail "kill -9 mid-snapshot left a partial file: $*"
pass "backward kill -9 mid-snapshot: each client got a readable file or one line; $(ls "$T/bs" | wc -l) files read, no partial file"

# 10. --keep, SIGSTOP with small rings: its readers stop, the kernel drops
# records; after SIGCONT a snapshot counts them (lost:), dump exits 1, and
# what it holds plus what it counts lost covers the workload.
mkdir -p "$T/ks"
record_bg ks --keep 10s -m 1 -a -e syscalls:sys_enter_read --filter 'count == 3071' -o "$T/ks" \
	--no-final-snapshot
started ks
kill -STOP "$RECPID"
"$HELPERS/read_loop" 100000 0 3071 & hp=$!; wait $hp
kill -CONT "$RECPID"
sleep 1.2   # a flush: what the readers took is in a kept chunk
f=$("$F" snapshot --name ks) || fail "--keep SIGSTOP: snapshot after SIGCONT failed"
"$F" dump "$f" >"$T/ks.txt" 2>"$T/ks.err"; drc=$?
"$F" report "$f" >"$T/ks.rep" 2>/dev/null
got=$(reads_of $hp "$T/ks.txt"); lost=$(report_lost "$T/ks.rep")
[ $drc -eq 1 ] && grep -q 'records lost while recording' "$T/ks.err" ||
	fail "--keep SIGSTOP: dump exited $drc: $(cat "$T/ks.err")"
[ "${lost:-0}" -gt 0 ] && [ $((got + lost)) -ge 100000 ] ||
	fail "--keep SIGSTOP: $got reads + ${lost:-0} lost < 100000"
pass "--keep SIGSTOP/SIGCONT: dump exit 1; $got of 100000 reads, report lost: $lost"

# 11. --keep, kill -9 while snapshots are asked: every client gets a file
# that reads or one line; every file left in the directory reads.
for i in 1 2 3 4 5; do
	"$F" snapshot --name ks >"$T/kk.$i" 2>"$T/kk.$i.err" & eval "kk$i=\$!"
done
kill -9 "$RECPID"; wait "$RECPID" 2>/dev/null; BGPIDS=""
for i in 1 2 3 4 5; do
	eval "wait \$kk$i"; krc=$?
	if [ $krc -eq 0 ]; then
		dump_reads "$(cat "$T/kk.$i")" >/dev/null || fail "--keep kill -9: client $i got a file that does not read"
	else
		[ "$(wc -l <"$T/kk.$i.err")" -eq 1 ] || fail "--keep kill -9: client $i exited $krc: $(cat "$T/kk.$i.err")"
	fi
done
for f in "$T"/ks/*; do
	"$F" dump "$f" >/dev/null 2>"$T/kkd.err"
	drc=$?
	[ $drc -le 1 ] || fail "--keep kill -9 mid-snapshot: $f: dump exited $drc: $(cat "$T/kkd.err")"
done
set -- "$T"/ks/*.part
[ -e "$1" ] && fail "--keep kill -9 mid-snapshot left a partial file: $*"
pass "--keep kill -9 mid-snapshot: each client got a readable file or one line; $(ls "$T/ks" | wc -l) files read, no partial file"
exit 0
