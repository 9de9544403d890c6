#!/bin/sh
# tests/e2e/pid_target.sh: `record -p PID` follows an existing process and the
# children it starts afterwards, records nothing of other processes, and ends
# with a final snapshot when the process exits.
. "$TESTLIB"
mkdir -p "$T/out"
# a shell that waits, then runs the reader as its child
sh -c "sleep 0.7; '$HELPERS/read_loop' 500 300" &
sp=$!
# another process reading meanwhile, not a target
(sleep 0.3; "$HELPERS/read_loop" 300) &
record_fg -q --backward -e syscalls:sys_enter_read -p $sp -o "$T/out" || fail "record -p exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file when the target exited, got: $*"
"$FLIGHTREC" dump "$1" >"$T/d.txt" || fail "dump exited $?"
n=$(awk '$4=="SAMPLE" && $5=="read_loop"' "$T/d.txt" | wc -l)
[ "$n" -ge 500 ] && [ "$n" -le 520 ] || fail "$n reads of the target's child, expected 500 (+ loader reads)"
awk -v p=$sp '$4=="SAMPLE" {split($3,a,"/"); if (a[1]!=p && $5!="read_loop" && $5!="sh" && $5!="sleep") print}' "$T/d.txt" | head -3 >&2
other=$(awk -v p=$sp '$4=="SAMPLE" {split($3,a,"/"); if (a[1]!=p && $5!="read_loop" && $5!="sh" && $5!="sleep") n++} END{print n+0}' "$T/d.txt")
[ "$other" -eq 0 ] || fail "$other samples of processes outside the target"
grep -q '^# trigger: exit$' "$T/d.txt" || fail "the final snapshot is not marked as the target's exit"
pass "-p $sp: its child's $n reads, nothing else, final snapshot at exit"
exit 0
