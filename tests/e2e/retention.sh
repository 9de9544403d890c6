#!/bin/sh
# tests/e2e/retention.sh: a small ring and a short window; a 3-second
# CPU-bound process exits before the snapshot, and its COMM and MMAP2 records
# are older than the window: the file's process table still names it, its
# executable mapping and build id (perf shows ":PID [unknown]" here).
. "$TESTLIB"
mkdir -p "$T/out"
record_bg ret -a -e cpu-clock -F 1000 -m 8 --window-time 1s -o "$T/out" --no-final-snapshot
"$HELPERS/busy" 3000 & bp=$!
wait $bp || fail "busy failed"
f=$("$FLIGHTREC" snapshot --name ret) || fail "snapshot failed"
"$FLIGHTREC" dump "$f" >"$T/d.txt" || fail "dump failed"
n=$(awk -v p=$bp '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$n" -gt 0 ] || fail "no samples of the exited process in the window"
c=$(awk -v p=$bp '$4=="COMM" || $4=="MMAP2" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$c" -eq 0 ] || fail "its COMM/MMAP2 records are still in the window: the test proves nothing"
"$HELPERS/frblobs" "$f" >"$T/b.txt" || fail "frblobs failed"
grep -qE "^proc $bp ppid=[0-9]+ start=[0-9]+ exit=[1-9][0-9]* comm=busy maps=" "$T/b.txt" ||
	fail "the process table lacks the exited process: $(grep "^proc $bp" "$T/b.txt")"
grep -qE "^map $bp 0x[0-9a-f]+ 0x[0-9a-f]+ $HELPERS/busy bid=20$" "$T/b.txt" ||
	fail "the process table lacks its executable mapping with a build id"
bad=$(awk -v p=$bp '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p && $5!="busy") n++} END{print n+0}' "$T/d.txt")
[ "$bad" -eq 0 ] || fail "dump: $bad samples of the exited process not named busy"
"$FLIGHTREC" report --pid $bp --sort comm,dso,sym "$f" >"$T/r.txt" || fail "report exited $?"
top=$(grep -E '^ +[0-9.]+%' "$T/r.txt" | head -n 1)
echo "$top" | grep -qE ' busy +busy +\[\.\] (spin|work)' ||
	fail "report does not name the exited process, its binary and function: $top"
pass "exited pid $bp: $n samples in the window; dump and report name it: $(echo "$top" | tr -s ' ')"
exit 0
