#!/bin/sh
# tests/e2e/offcpu_accounting.sh: the off-CPU per-thread table counts only
# what the switches show (doc/report.md, --off-cpu): a system-wide recorder
# leaves its own tracepoint records out but its context switches, so its
# threads are recorded whole (they showed running the whole window when
# their switch-outs were dropped) and so are the switch-ins of the tasks
# after them; a thread that exited before a --time range has no row there;
# every row's on + off + unknown is its window time.
. "$TESTLIB"

mkdir -p "$T/out"
record_bg acc -a --off-cpu -e cpu-clock -F 99 --keep 30s -o "$T/out"
"$HELPERS/cpuburn_fp" 5 >/dev/null &
bp=$!
wait "$bp"
sleep 0.5
kill -INT "$RECPID"
wait "$RECPID"
rc=$?
[ "$rc" -le 1 ] || fail "recorder exited $rc: $(cat "$T/record-acc.err")"
set -- "$T"/out/*.frec
F=$1
[ -f "$F" ] || fail "no file: $(cat "$T/record-acc.err")"


"$FLIGHTREC" report "$F" >"$T/all.txt" 2>"$T/all.err"
[ $? -le 1 ] || fail "report exited $?: $(cat "$T/all.err")"
thread_rows "$T/all.txt" >"$T/rows"
[ -s "$T/rows" ] || fail "no per-thread rows: $(head -60 "$T/all.txt")"
# the recorder's threads: whole (nothing unknown), mostly asleep
awk -v p="$RECPID" '$1 == p' "$T/rows" >"$T/self"
[ -s "$T/self" ] || fail "the recorder's threads have no rows: $(head -20 "$T/rows")"
bad=$(awk '$12 > 0.5 || $5 > $4 / 2' "$T/self")
[ -z "$bad" ] || fail "the recorder's threads are not recorded whole: $bad"
awk -v p="$bp" '$1 == p' "$T/rows" | grep -q . ||
	fail "the burner $bp has no row: $(head -30 "$T/rows")"
# on + off + unknown = window, each row (ms, three decimals each)
bad=$(awk '{ d = $4 - ($5 + $6 + $12); if (d > 0.005 || d < -0.005) print }' "$T/rows")
[ -z "$bad" ] || fail "rows whose on + off + unknown is not their window: $bad"
pass "system-wide: the recorder's $(wc -l <"$T/self") threads recorded whole; the burner's row; on + off + unknown = window"

# a --time range after the burner exited: no row for it (it was shown
# running through all of it)
ex=$("$FLIGHTREC" dump "$F" 2>/dev/null | awk -v p="$bp" '$4 == "EXIT" && $2 ~ /^\[/ && $NF ~ "^ptid=" && $0 ~ ("pid=" p " ") { print $1; exit }')
[ -n "$ex" ] || fail "no EXIT of the burner $bp in the file"
from=$(awk -v t="$ex" 'BEGIN { printf "%.9f", t + 0.05 }')
"$FLIGHTREC" report --time "$from," "$F" >"$T/after.txt" 2>"$T/after.err"
[ $? -le 1 ] || fail "report --time $from, exited $?: $(cat "$T/after.err")"
thread_rows "$T/after.txt" >"$T/rows2"
awk -v p="$bp" '$1 == p || $2 == p' "$T/rows2" | grep -q . &&
	fail "the burner (exited at $ex) has a row in --time $from,: $(awk -v p="$bp" '$1 == p' "$T/rows2")"
pass "--time $from, (after the burner's exit at $ex): no row for it"
