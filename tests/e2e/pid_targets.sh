#!/bin/sh
# tests/e2e/pid_targets.sh: `record -p A,B` watches every target: when A exits
# first, recording goes on until B exits too, and the final snapshot holds
# B's reads made after A was gone.
. "$TESTLIB"
mkdir -p "$T/out"
# A: gone after 1.5 s; B: reads 2222 times at 3 s, after A's exit
sh -c "sleep 1.5" &
a=$!
sh -c "sleep 3; exec '$HELPERS/read_loop' 2222" &
b=$!
record_fg -q --backward -e syscalls:sys_enter_read -p $a,$b -o "$T/out" || fail "record -p exited $?: $(cat "$T/record.err")"
kill -0 $b 2>/dev/null && fail "the recorder ended while target $b was still running"
set -- "$T"/out/*.frec
[ $# -eq 1 ] || fail "expected one file, got: $*"
"$FLIGHTREC" dump "$1" >"$T/d.txt" || fail "dump exited $?"
n=$(awk -v p=$b '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$n" -ge 2222 ] || fail "$n reads of target $b, expected >= 2222 (it read after target $a exited)"
grep -q '^# trigger: exit$' "$T/d.txt" || fail "the final snapshot is not marked as the targets' exit"
pass "-p $a,$b: recording lasted until both exited; $n reads of $b after $a's exit"
