#!/bin/sh
# tests/e2e/forward.sh: --forward streams every record: a read() loop at full
# speed on both CPUs with the default ring loses nothing, costs <= 3.2 bytes
# per event in the file, and kill -9 of the recorder leaves a file readable up
# to its last complete chunk (at most the last flush interval, 1 s, is lost).
. "$TESTLIB"
N=300000
mkdir -p "$T/out" "$T/k9"

record_bg fw --forward -a -e syscalls:sys_enter_read -o "$T/out"
taskset -c 0 "$HELPERS/read_loop" $N & p0=$!
taskset -c 1 "$HELPERS/read_loop" $N & p1=$!
wait $p0 || fail "read_loop on CPU 0 failed"
wait $p1 || fail "read_loop on CPU 1 failed"
sleep 0.3
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
# the sanitizer build (make distcheck) reads several times slower, beside
# other tests: zero loss at full speed is the plain build's to show (make
# check); there a loss is said and the rest checked
asan=false
grep -q __asan_init "$FLIGHTREC" 2>/dev/null && asan=true
if $asan && [ $rc -eq 1 ] && grep -q ' lost; ' "$T/record-fw.err"; then
	echo "note: a sanitizer build lost records at full speed: $(tail -1 "$T/record-fw.err")"
else
	[ $rc -eq 0 ] || fail "recorder exited $rc: $(cat "$T/record-fw.err")"
	asan=false
fi
set -- "$T"/out/*.frec
[ $# -eq 1 ] || fail "expected one file, got $*"
"$FLIGHTREC" dump "$1" >"$T/fw.txt"; rc=$?
[ $rc -eq 0 ] || { $asan && [ $rc -eq 1 ]; } || fail "dump exited $rc"
if $asan; then
	grep -q ' SAMPLE ' "$T/fw.txt" || fail "the file of a lossy recording has no record"
	pass "forward, sanitizer build: the file of a lossy recording reads ($(grep -c SAMPLE "$T/fw.txt") records)"
else
for p in $p0 $p1; do
	n=$(awk -v p=$p '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/fw.txt")
	# the dynamic loader reads a few ELF headers before main
	[ "$n" -ge $N ] && [ "$n" -le $((N + 16)) ] || fail "pid $p: $n reads recorded, expected $N (+ loader reads)"
done
lost=$(awk '/^# cpu/ {for(i=1;i<=NF;i++) if ($i ~ /^lost_(records|samples)=/) {split($i,a,"="); s+=a[2]}} END{print s+0}' "$T/fw.txt")
[ "$lost" -eq 0 ] || fail "$lost records lost at full speed with the default ring"
total=$(awk '$4=="SAMPLE"' "$T/fw.txt" | wc -l)
bytes=$(stat -c %s "$1")
awk -v b="$bytes" -v n="$total" 'BEGIN{ exit !(b / n <= 3.2) }' ||
	fail "$(awk -v b="$bytes" -v n="$total" 'BEGIN{printf "%.2f", b/n}') bytes per event, target <= 3.2"
pass "forward: 2 x $N reads, 0 lost, $(awk -v b="$bytes" -v n="$total" 'BEGIN{printf "%.2f", b/n}') bytes/event ($bytes bytes, $total events)"
fi

# kill -9: the file reads up to its last complete chunk
record_bg k9 --forward -a -e syscalls:sys_enter_read -o "$T/k9"
"$HELPERS/read_loop" 100000 & hp=$!
wait $hp
sleep 1.6
kill -9 "$RECPID"
wait "$RECPID" 2>/dev/null
BGPIDS=""
set -- "$T"/k9/*.frec
"$FLIGHTREC" dump "$1" >"$T/k9.txt" 2>"$T/k9.err"; rc=$?
[ $rc -eq 1 ] && grep -q truncated "$T/k9.err" || fail "dump of a killed recording: exit $rc, $(cat "$T/k9.err")"
n=$(awk -v p=$hp '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/k9.txt")
[ "$n" -ge 100000 ] || fail "kill -9: $n of the 100000 reads made 1.6 s before the kill are in the file"
pass "kill -9: file readable, all $n reads flushed before the kill are there"
rm -f "$FLIGHTREC_RUN_DIR/k9.sock" "$FLIGHTREC_RUN_DIR/k9.pid"

# a one-page ring cannot keep up with a read loop: exit 1, and the loss is
# said in one line even with -q (which drops the status lines)
mkdir -p "$T/q"
last=$(($(nproc) - 1))
"$FLIGHTREC" record -q --forward -m 1 -e syscalls:sys_enter_read -o "$T/q" -- \
	taskset -c "$last" "$HELPERS/read_loop" 300000 0 3 2>"$T/q.err"
rc=$?
[ $rc -eq 1 ] || fail "-q, 1-page ring: exit $rc, expected 1 (records lost): $(cat "$T/q.err")"
[ "$(wc -l <"$T/q.err")" -eq 1 ] && grep -q 'flightrec: forward: [0-9]* records lost' "$T/q.err" ||
	fail "-q, 1-page ring: stderr '$(cat "$T/q.err")'"
pass "-q and a loss: exit 1 and '$(cat "$T/q.err")'"
exit 0
