#!/bin/sh
# tests/e2e/report_walltime.sh: time as people say it (issue 25): --time as
# wall-clock times (ISO 8601 with Z and +01:00, a time of day in the local
# zone) selects the same samples as the event-clock range the file's clock
# reference makes of them; trigger-relative and perf's percent ranges select
# what dump says lies there; the header names the recorder's run and the
# events the file holds, in local time; --tod in perf-script and dump; bad
# --time values exit 64 with one line.
. "$TESTLIB"

mkdir -p "$T/out"
record_fg -q -m 1M -e syscalls:sys_enter_read -o "$T/out" -- \
	sh -c "'$HELPERS/read_loop' 300 200; '$HELPERS/read_loop' 300" ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
F=$1
"$FLIGHTREC" dump "$F" >"$T/dump.txt" || fail "dump exited $?"

# the file's clock reference, as the reader takes it: the snapshot's pair,
# else the start's, else realtime_offset_ns (REALTIME - MONOTONIC, ns)
pair() { sed -n "s/^# $1: \([0-9]*\) \([0-9]*\) [0-9]*\$/\2 - \1/p" "$T/dump.txt"; }
off=$(pair clock_pair_snapshot)
[ -n "$off" ] || off=$(pair clock_pair_start)
[ -n "$off" ] || off=$(sed -n 's/^# realtime_offset_ns: \(-\{0,1\}[0-9]*\)$/\1/p' "$T/dump.txt")
[ -n "$off" ] || fail "the file has no clock reference: $(grep '^# ' "$T/dump.txt" | head -20)"
off=$(($off))

# SEC.NSEC (9 digits) <-> ns
ns() { echo "$1" | sed 's/\.//; s/^0*//'; }
samples=$(awk '$4=="SAMPLE" {print $1}' "$T/dump.txt")
all=$(echo "$samples" | wc -l)
[ "$all" -ge 600 ] || fail "dump lists $all samples, expected at least 600"
a=$(echo "$samples" | sed -n 100p)
b=$(echo "$samples" | sed -n 450p)
total() { awk '$1 ~ /%$/ {n += $2} END {print n+0}' "$1"; }
between() {   # samples of dump with lo <= ns <= hi
	echo "$samples" | awk -v lo="$1" -v hi="$2" '{t = $1; sub(/\./, "", t); t += 0}
		t >= lo + 0 && t <= hi + 0 {n++} END {print n+0}'
}
"$FLIGHTREC" report -q --time "$a,$b" "$F" >"$T/mono.txt" || fail "--time $a,$b exited $?"
mono=$(total "$T/mono.txt")
[ "$mono" -eq "$(between "$(ns "$a")" "$(ns "$b")")" ] && [ "$mono" -ge 351 ] ||
	fail "--time $a,$b: $mono samples, dump $(between "$(ns "$a")" "$(ns "$b")")"

# wall-clock forms of the same range
wa=$(($(ns "$a") + off)) wb=$(($(ns "$b") + off))
iso() {   # ns since the epoch, TZ-free: ISO 8601 in UTC, or (+1) at +01:00
	s=$(($1 / 1000000000)) f=$(printf %09d $(($1 % 1000000000)))
	if [ "${2:-}" = +1 ]; then
		echo "$(date -u -d "@$((s + 3600))" +%Y-%m-%dT%H:%M:%S).$f+01:00"
	else
		echo "$(date -u -d "@$s" +%Y-%m-%dT%H:%M:%S).${f}Z"
	fi
}
tod() { echo "$(TZ=$2 date -d "@$(($1 / 1000000000))" +%H:%M:%S).$(printf %09d $(($1 % 1000000000)))"; }
check_wall() {
	"$FLIGHTREC" report -q --time "$1" "$F" >"$T/wall.txt" 2>"$T/wall.err" ||
		fail "--time $1 exited $?: $(cat "$T/wall.err")"
	[ "$(total "$T/wall.txt")" -eq "$mono" ] ||
		fail "--time $1: $(total "$T/wall.txt") samples, --time $a,$b $mono"
}
check_wall "$(iso $wa),$(iso $wb)"
check_wall "$(iso $wa +1)-$(iso $wb +1)"
export TZ=UTC0
check_wall "$(tod $wa UTC0)-$(tod $wb UTC0)"
export TZ=EST5EDT,M3.2.0,M11.1.0
check_wall "$(tod $wa "$TZ"),$(tod $wb "$TZ")"
pass "wall-clock --time: $mono samples, as --time $a,$b (offset $off ns)"

# the header: both spans under their names, in local time with the zone
"$FLIGHTREC" report "$F" >"$T/all.txt" || fail "report exited $?"
d='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'
grep -Eq "^# recorder's run: [0-9]+\.[0-9]{3} s, from $d to $d [-+][0-9]{4} E[SD]T \(event clock [0-9]+\.[0-9]{9} to [0-9]+\.[0-9]{9}\)\$" "$T/all.txt" ||
	fail "no recorder's run in the header: $(grep '^#' "$T/all.txt" | head -12)"
grep -Eq "^# events in the file: [0-9]+\.[0-9]{3} s, from $d to $d [-+][0-9]{4} E[SD]T \(event clock [0-9]+\.[0-9]{9} to [0-9]+\.[0-9]{9}\)\$" "$T/all.txt" ||
	fail "no span of the events in the header: $(grep '^#' "$T/all.txt" | head -12)"
# (CPUs without records say first=0.000000000)
first=$(sed -n 's/^# cpu [0-9]*: .* first=\([0-9.]*\) .*/\1/p' "$T/dump.txt" | grep -v '^0\.0*$' | sort -n | head -1)
grep -q "^# events in the file: .*(event clock $first to " "$T/all.txt" ||
	fail "the events' span does not start at the file's first record $first"
pass "header: $(grep -E "^# (recorder's run|events in the file)" "$T/all.txt" | tr '\n' '|')"

# relative to the trigger: what dump lists from 300 ms before it to it
trig=$(sed -n 's/^# trigger\.trigger_time_ns=\([0-9]*\)$/\1/p' "$T/dump.txt" | head -1)
[ -n "$trig" ] || fail "the file has no trigger time: $(grep '^# trigger' "$T/dump.txt")"
want=$(between $((trig - 300000000)) "$trig")
"$FLIGHTREC" report -q --time trigger-300ms,trigger "$F" >"$T/trig.txt" || fail "--time trigger exited $?"
[ "$(total "$T/trig.txt")" -eq "$want" ] && [ "$want" -gt 0 ] ||
	fail "--time trigger-300ms,trigger: $(total "$T/trig.txt") samples, dump $want"
"$FLIGHTREC" report -q --time "trigger-0.3s-trigger+0s" "$F" >"$T/trig2.txt" || fail "--time trigger- exited $?"
[ "$(total "$T/trig2.txt")" -eq "$want" ] || fail "trigger-0.3s-trigger+0s: $(total "$T/trig2.txt"), dump $want"
pass "--time trigger-300ms,trigger: $want samples"

# perf's percentages of the file's span (its CPU stats' first to last record)
last=$(sed -n 's/^# cpu [0-9]*: .* last=\([0-9.]*\) .*/\1/p' "$T/dump.txt" | sort -n | tail -1)
f0=$(ns "$first") span=$(($(ns "$last") - $(ns "$first")))
pct() { awk -v f="$f0" -v s="$span" -v p="$1" 'BEGIN {printf "%.0f", f + int(s * p / 100 + 0.5)}'; }
check_pct() {
	"$FLIGHTREC" report -q --time "$1" "$F" >"$T/pct.txt" || fail "--time $1 exited $?"
	[ "$(total "$T/pct.txt")" -eq "$2" ] || fail "--time $1: $(total "$T/pct.txt") samples, dump $2"
}
# (the two read_loops: one at each end of the span)
w1=$(between "$(pct 0)" "$(pct 50)")
check_pct 0%-50% "$w1"
w2=$(between "$(pct 50)" "$(pct 100)")
check_pct 50%/2 "$w2"
[ "$w1" -gt 0 ] && [ "$w2" -gt 0 ] || fail "0%-50% and 50%/2 hold $w1 and $w2 samples: not each a read_loop"
w3=$(($(between "$(pct 0)" "$(pct 10)") + $(between "$(pct 90)" "$(pct 100)")))
check_pct 0%-10%,90%-100% "$w3"
check_pct 0%-100% "$all"
pass "percentages: 0%-50% $w1, 50%/2 $w2, 0%-10%,90%-100% $w3 samples"

# --tod: perf script -F +tod's field (local time, microseconds), opt-in
export TZ=UTC0
"$FLIGHTREC" report --format=perf-script --tod "$F" >"$T/tod.script" || fail "--tod exited $?"
line=$(grep -m1 'sys_enter_read' "$T/tod.script")
t=$(echo "$line" | sed -n 's/.*\] [0-9-]* [0-9:.]* *\([0-9]*\.[0-9]*\): .*/\1/p')
want=$(echo "$line" | sed -n 's/.*\] \([0-9-]* [0-9:.]*\) .*/\1/p')
[ -n "$t" ] || fail "--tod: no tod field in '$line'"
first_s=$(awk '$4=="SAMPLE" {print $1; exit}' "$T/dump.txt")
w=$(($(ns "$first_s") + off))
got="$(date -u -d "@$((w / 1000000000))" '+%Y-%m-%d %H:%M:%S').$(printf %06d $((w % 1000000000 / 1000)))"
[ "$want" = "$got" ] || fail "--tod: '$want' for the first sample, expected '$got': $line"
"$FLIGHTREC" report --format=perf-script "$F" >"$T/plain.script" || fail "perf-script exited $?"
grep -Eq '\] [0-9]{4}-' "$T/plain.script" && fail "perf-script without --tod shows a date"
[ "$(sed 's/\] [0-9-]* [0-9:.]* /] /' "$T/tod.script" | md5sum)" = "$(md5sum <"$T/plain.script")" ] ||
	fail "--tod changed more than the tod field"
"$FLIGHTREC" dump --tod --no-header "$F" >"$T/tod.dump" || fail "dump --tod exited $?"
n=$(grep -Ec '^[0-9]+\.[0-9]{9} [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9} ' "$T/tod.dump")
[ "$n" -eq "$(wc -l <"$T/tod.dump")" ] || fail "dump --tod: $n of $(wc -l <"$T/tod.dump") lines with the tod"
pass "--tod: $want"

# bad values: one line, exit 64
for v in 12x 2,1 1,2,3 25:00-26:00 14:03:10 14:03:10.1234567890, 2026-02-30T00:00Z, \
	trigger+1x, trigger2, trigger 10% 120%-130% 60%/2 10%/0 '' 99999999999999999999, 14:03:10+15:00,; do
	expect_error 64 '--time' "$FLIGHTREC" report --time "$v" "$F"
done
expect_error 64 'START is after END' "$FLIGHTREC" report --time trigger,trigger-1s "$F"
expect_error 64 'START is after END' "$FLIGHTREC" report --time 30%-20% "$F"
