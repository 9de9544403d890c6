#!/bin/sh
# tests/e2e/report_filters.sh: tracepoint counts by event and the report's
# filters (--pid, --comm, --time, -e) on two processes doing known reads,
# checked against what dump lists; usage errors; the default file; perf-script
# and JSON of tracepoint events with their decoded fields.
. "$TESTLIB"

mkdir -p "$T/out"
record_fg -q -m 1M -e syscalls:sys_enter_read -o "$T/out" -- \
	sh -c "'$HELPERS/read_loop' 300; '$HELPERS/read_loop' 200 20" ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
F=$1
"$FLIGHTREC" dump "$F" >"$T/dump.txt" || fail "dump exited $?"

# from dump: the two read_loop processes and their samples
pids=$(awk '$4=="COMM" && $6=="comm=read_loop" && $NF=="exec=1" {split($3,a,"/"); print a[1]}' "$T/dump.txt")
set -- $pids
[ $# -eq 2 ] || fail "expected two exec'd read_loop processes, got '$pids'"
p1=$1 p2=$2
count() { awk -v p="$1" '$4=="SAMPLE" {split($3,a,"/"); if (p=="" || a[1]==p) n++} END {print n+0}' "$T/dump.txt"; }
c1=$(count "$p1")
c2=$(count "$p2")
all=$(count "")
[ "$c1" -ge 300 ] && [ "$c2" -ge 200 ] || fail "dump: $c1 and $c2 reads, expected at least 300 and 200"

# samples per event, and the histogram's total
"$FLIGHTREC" report "$F" >"$T/all.txt" || fail "report exited $?"
grep -Eq "^# +$all  syscalls:sys_enter_read\$" "$T/all.txt" ||
	fail "the event count is not $all: $(grep -A3 'per event' "$T/all.txt")"
total() { awk '$1 ~ /%$/ {n += $2} END {print n+0}' "$1"; }
[ "$(total "$T/all.txt")" -eq "$all" ] || fail "the histogram holds $(total "$T/all.txt") samples, not $all"
"$FLIGHTREC" report --no-header --sort pid,comm "$F" >"$T/pid.txt" || fail "report --sort pid,comm exited $?"
got=$(awk -v p="$p1" '$3==p && $4=="read_loop" {print $2}' "$T/pid.txt")
[ "$got" = "$c1" ] || fail "--sort pid,comm: pid $p1 has '$got' samples, dump $c1: $(cat "$T/pid.txt")"
pass "counts: $all samples, $c1 from pid $p1, $c2 from pid $p2"

"$FLIGHTREC" report --pid "$p2" "$F" >"$T/p2.txt" || fail "--pid exited $?"
[ "$(total "$T/p2.txt")" -eq "$c2" ] || fail "--pid $p2: $(total "$T/p2.txt") samples, expected $c2"
"$FLIGHTREC" report --pid "$p1,$p2" --comm read_loop,nothing "$F" >"$T/both.txt" || fail "--comm exited $?"
[ "$(total "$T/both.txt")" -eq $((c1 + c2)) ] || fail "--pid/--comm: $(total "$T/both.txt") samples, expected $((c1 + c2))"
pass "--pid, --comm"
# filters that select nothing: not an empty report and exit 0, but one line
# saying what the file holds (its span, its processes by name), exit 1
for sel in "--comm nothing" "--pid 1" "--time 1,2" "--comm nothing --format=folded"; do
	# shellcheck disable=SC2086
	"$FLIGHTREC" report $sel "$F" >"$T/none.txt" 2>"$T/none.err"; rc=$?
	[ $rc -eq 1 ] || fail "report $sel exited $rc, expected 1: $(cat "$T/none.err")"
	[ "$(wc -l <"$T/none.err")" -eq 1 ] || fail "report $sel: not one line: $(cat "$T/none.err")"
	grep -q "no sample matches.*holds $all samples from .*$p1 read_loop ($c1)" "$T/none.err" &&
		grep -q "$p2 read_loop ($c2)" "$T/none.err" ||
		fail "report $sel does not say what the file holds: $(cat "$T/none.err")"
	[ ! -s "$T/none.txt" ] || fail "report $sel printed a report: $(head -3 "$T/none.txt")"
done
pass "filters selecting nothing -> 1: $(cat "$T/none.err")"

# --time: up to the last read of the first process, and from the next one on
t1=$(awk -v p="$p1" '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) t=$1} END {print t}' "$T/dump.txt")
# compare SEC.NSEC exactly: seconds, then nanoseconds (a double cannot hold both)
before=$(awk -v t="$t1" 'function le(a, b,  x, y) {split(a, x, "."); split(b, y, ".");
	return x[1]+0 < y[1]+0 || (x[1]+0 == y[1]+0 && x[2]+0 <= y[2]+0)}
	$4=="SAMPLE" && le($1, t) {n++} END {print n+0}' "$T/dump.txt")
"$FLIGHTREC" report --time ",$t1" "$F" >"$T/t1.txt" || fail "--time ,$t1 exited $?"
[ "$(total "$T/t1.txt")" -eq "$before" ] || fail "--time ,$t1: $(total "$T/t1.txt") samples, expected $before"
"$FLIGHTREC" report --time "$t1," "$F" >"$T/t2.txt" || fail "--time $t1, exited $?"
[ $(($(total "$T/t2.txt") + before - 1)) -eq "$all" ] ||
	fail "--time $t1,: $(total "$T/t2.txt") samples, expected $((all - before + 1))"
pass "--time: $before samples up to $t1"

# -e, usage errors, the newest file of a directory
"$FLIGHTREC" report -e syscalls:sys_enter_read -d "$T/out" >"$T/e.txt" || fail "-e -d exited $?"
[ "$(total "$T/e.txt")" -eq "$all" ] || fail "-e/-d: $(total "$T/e.txt") samples"
expect_error 64 'no such event' "$FLIGHTREC" report -e cpu-clock "$F"
expect_error 64 'START,END' "$FLIGHTREC" report --time 12x "$F"
expect_error 64 'START is after END' "$FLIGHTREC" report --time 2,1 "$F"
expect_error 64 'comm,pid,dso,sym,srcline' "$FLIGHTREC" report --sort comm,bogus "$F"
expect_error 64 'text, folded' "$FLIGHTREC" report --format=xml "$F"
expect_error 2 'not a flightrec file' "$FLIGHTREC" report "$T/dump.txt"
expect_error 2 'no flightrec file' "$FLIGHTREC" report -d "$T"
# a directory given as the file is read as -d reads it (it said "bad magic")
"$FLIGHTREC" report "$T/out" >"$T/dir.txt" 2>"$T/dir.err" || fail "report DIR exited $?: $(cat "$T/dir.err")"
[ "$(total "$T/dir.txt")" -eq "$all" ] || fail "report DIR: $(total "$T/dir.txt") samples, expected $all"
"$FLIGHTREC" dump "$T/out" >"$T/dir.dump" || fail "dump DIR exited $?"
cmp -s "$T/dir.dump" "$T/dump.txt" || fail "dump DIR lists another file than dump FILE"
mkdir -p "$T/empty"
expect_error 2 'no flightrec file' "$FLIGHTREC" report "$T/empty"
pass "report DIR, dump DIR: the newest file in DIR"

# tracepoint events in perf-script and JSON (perf-script: the print fmt's text; JSON: the fields)
"$FLIGHTREC" report --format=perf-script --pid "$p1" "$F" >"$T/script" || fail "perf-script exited $?"
# (sys_enter_read's print fmt: "fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx")
n=$(grep -Ec "^ *read_loop +$p1 \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +syscalls:sys_enter_read: fd: 0x[0-9a-f]{8}, buf: 0x[0-9a-f]{8,}, count: 0x[0-9a-f]{8}\$" "$T/script")
[ "$n" -eq "$c1" ] || fail "perf-script: $n lines of pid $p1, expected $c1: $(head -3 "$T/script")"
"$FLIGHTREC" report --format=json "$F" >"$T/trace.json" || fail "json exited $?"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$T/trace.json" "$all" <<'PY' || fail "the JSON trace is not what was recorded"
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e.get("cat") == "tracepoint"]
assert len(ev) == int(sys.argv[2]), len(ev)
assert all(e["ph"] == "i" and isinstance(e["args"]["count"], int) and "fields" not in e["args"]
           for e in ev)   # each field once, decoded
assert any(e["ph"] == "M" and e["args"]["name"] == "read_loop" for e in t["traceEvents"])
PY
	pass "json: $all tracepoint events with fields"
fi
exit 0
