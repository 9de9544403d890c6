#!/bin/sh
# tests/e2e/offcpu.sh: record --off-cpu a workload whose split is known by
# construction (tests/helpers/offcpu_work.c: a thread sleeping in sleep_here,
# one blocked on a pipe in pipe_wait_here, one burning CPU) and check report
# --off-cpu: each function's off-CPU time within 10% of what the workload
# measured itself, on-CPU + off-CPU of each thread within 2% of its wall time
# (from just before pthread_create, or from the thread's first instruction if
# main was preempted between its clock and clone: the kernel's start lies
# between the two);
# the folded lines in microseconds agree with the text. Per command (the
# task's own switches) and system-wide (both sides of sched_switch).
. "$TESTLIB"

PROG="$HELPERS/offcpu_work"
# within A B P [SLACK]: A within P% of B, plus SLACK (0.0011: one unit of
# the last of three decimals, where both figures are printed rounded to 0.001)
within() { awk -v a="$1" -v b="$2" -v p="$3" -v s="${4:-0}" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(b > 0 && d <= b*p/100 + s)}'; }

# check MODE FILE WORKLOAD-OUTPUT
check() {
	mode=$1 F=$2 W=$3
	"$FLIGHTREC" report --off-cpu -i "$F" >"$T/$mode.txt" 2>"$T/$mode.err" ||
		fail "$mode: report --off-cpu exited $?: $(cat "$T/$mode.err")"
	grep -q '^# off-CPU: switch-out to switch-in' "$T/$mode.txt" ||
		fail "$mode: no off-CPU section: $(tail -20 "$T/$mode.txt")"
	for pair in "sleeper sleep_here" "piper pipe_wait_here"; do
		set -- $pair
		want=$(awk -v n="$1" '$1==n {print $4 / 1e6}' "$W")
		got=$(awk -v f="$2" '$NF==f && $2 ~ /%$/ && $3 ~ /^[SDR]$/ {ms += $1} END {print ms+0}' \
			"$T/$mode.txt")
		within "$got" "$want" 10 ||
			fail "$mode: $2 off-CPU ${got} ms, the workload measured ${want} ms: $(sed -n '/per function/,/per stack/p' "$T/$mode.txt" | head -30)"
		pass "$mode: $2 off-CPU ${got} ms, measured ${want} ms"
	done
	for name in sleeper piper burner; do
		tid=$(awk -v n="$name" '$1==n {print $2}' "$W")
		wall=$(awk -v n="$name" '$1==n {print $3 / 1e6}' "$W")
		ran=$(awk -v n="$name" '$1==n {print $5 / 1e6}' "$W")
		row=$(awk -v t="$tid" '$2==t && $1 ~ /^[0-9]+$/ {print $4, $5, $6; exit}' "$T/$mode.txt")
		[ -n "$row" ] || fail "$mode: no per-thread row for $name ($tid): $(grep -A8 'per thread' "$T/$mode.txt")"
		set -- $row
		sum=$(awk -v a="$2" -v b="$3" 'BEGIN{print a+b}')
		awk -v s="$sum" -v w="$wall" -v r="$ran" 'BEGIN{exit !(s >= r * 0.98 && s <= w * 1.02)}' ||
			fail "$mode: $name on ${2} + off ${3} = ${sum} ms, its wall time ${wall} ms (${ran} ms from its first instruction)"
		within "$1" "$sum" 0.01 0.0011 || fail "$mode: $name window $1 ms but on+off $sum ms"
		pass "$mode: $name on ${2} + off ${3} ms = ${sum}, wall ${wall} ms (ran ${ran} ms)"
	done
	# folded: us, the state frame under the thread, the function's stacks add up
	"$FLIGHTREC" report --off-cpu --folded -i "$F" >"$T/$mode.folded" ||
		fail "$mode: --off-cpu --folded exited $?"
	us=$(awk '/^oc-sleeper;\[off-cpu: [^]]*\];.*;sleep_here;/ {n += $NF} END {print n/1000}' "$T/$mode.folded")
	got=$(awk '$NF=="sleep_here" && $2 ~ /%$/ && $3 ~ /^[SDR]$/ {ms += $1} END {print ms+0}' "$T/$mode.txt")
	within "$us" "$got" 1 || fail "$mode: folded has ${us} ms in sleep_here, the text ${got} ms: $(grep sleep_here "$T/$mode.folded" | head -3)"
	pass "$mode: folded sleep_here ${us} ms in us lines"
}

mkdir -p "$T/cmd"
record_fg -q --off-cpu -g -e cpu-clock -o "$T/cmd" -- "$PROG" >"$T/cmd.work" ||
	fail "record --off-cpu exited $?: $(cat "$T/record.err")"
[ "$(awk 'NF == 5' "$T/cmd.work" | wc -l)" -eq 3 ] || fail "the workload printed: $(cat "$T/cmd.work")"
set -- "$T"/cmd/*.frec
F=$1
check command "$F" "$T/cmd.work"
set -- "$F"

# --pid, --tid and --comm narrow the off-CPU view: the rows, the sums, the
# functions and stacks, the folded lines, the JSON slices are the threads'
# they select (the totals line is their rows' off-CPU)
stid=$(awk '$1=="sleeper" {print $2}' "$T/cmd.work")
ptid=$(awk '$1=="piper" {print $2}' "$T/cmd.work")
wpid=$(awk -v t="$stid" '$2==t && $1 ~ /^[0-9]+$/ {print $1; exit}' "$T/command.txt")
[ -n "$wpid" ] || fail "no row for the sleeper ($stid)"
rows() { awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 11' "$1"; }
offsum() { awk '/^# off-CPU [0-9.]+ ms/ {print $3}' "$1"; }
fnms() { awk -v f="$2" '$NF==f && $2 ~ /%$/ && $3 ~ /^[SDR]$/ {ms += $1} END {print ms+0}' "$1"; }
"$FLIGHTREC" report --off-cpu --tid "$stid" -i "$F" >"$T/tid.txt" || fail "--off-cpu --tid exited $?"
[ "$(rows "$T/tid.txt" | wc -l)" -eq 1 ] && [ "$(rows "$T/tid.txt" | awk '{print $2}')" = "$stid" ] ||
	fail "--tid $stid: rows $(rows "$T/tid.txt")"
grep -q "^# threads: 1 of [0-9]*, as selected" "$T/tid.txt" ||
	fail "--tid: no threads line: $(grep '^#' "$T/tid.txt" | head -12)"
within "$(offsum "$T/tid.txt")" "$(rows "$T/tid.txt" | awk '{print $6}')" 0.01 ||
	fail "--tid: off-CPU $(offsum "$T/tid.txt") ms, its row $(rows "$T/tid.txt")"
within "$(fnms "$T/tid.txt" sleep_here)" "$(fnms "$T/command.txt" sleep_here)" 0.01 &&
	[ "$(fnms "$T/tid.txt" pipe_wait_here)" = 0 ] ||
	fail "--tid: sleep_here $(fnms "$T/tid.txt" sleep_here) ms (all: $(fnms "$T/command.txt" sleep_here)), pipe_wait_here $(fnms "$T/tid.txt" pipe_wait_here)"
pass "--off-cpu --tid $stid: its row, sleep_here $(fnms "$T/tid.txt" sleep_here) ms, no pipe_wait_here"
"$FLIGHTREC" report --off-cpu --comm oc-piper -i "$F" >"$T/comm.txt" || fail "--off-cpu --comm exited $?"
[ "$(rows "$T/comm.txt" | awk '{print $2 "/" $3}')" = "$ptid/oc-piper" ] ||
	fail "--comm oc-piper: rows $(rows "$T/comm.txt")"
within "$(fnms "$T/comm.txt" pipe_wait_here)" "$(fnms "$T/command.txt" pipe_wait_here)" 0.01 &&
	[ "$(fnms "$T/comm.txt" sleep_here)" = 0 ] || fail "--comm: $(sed -n '/per function/,$p' "$T/comm.txt" | head)"
pass "--off-cpu --comm oc-piper: its row, pipe_wait_here only"
"$FLIGHTREC" report --off-cpu --pid "$wpid" -i "$F" >"$T/pid.txt" || fail "--off-cpu --pid exited $?"
[ "$(rows "$T/pid.txt" | awk -v p="$wpid" '$1!=p' | wc -l)" -eq 0 ] &&
	[ "$(rows "$T/pid.txt" | wc -l)" -ge 4 ] || fail "--pid $wpid: rows $(rows "$T/pid.txt")"
pass "--off-cpu --pid $wpid: $(rows "$T/pid.txt" | wc -l) threads, all its own"
"$FLIGHTREC" report --off-cpu --folded --comm oc-sleeper -i "$F" >"$T/comm.folded" ||
	fail "--off-cpu --folded --comm exited $?"
grep -q '^oc-sleeper;\[off-cpu: ' "$T/comm.folded" && ! grep -v '^oc-sleeper;' "$T/comm.folded" | grep -q . ||
	fail "--folded --comm oc-sleeper: $(grep -v '^oc-sleeper;' "$T/comm.folded" | head -3)"
pass "--off-cpu --folded --comm oc-sleeper: its lines only"
if command -v python3 >/dev/null 2>&1; then
	"$FLIGHTREC" report --off-cpu --format=json --tid "$stid" -o "$T/tid.json" -i "$F" || fail "json --tid exited $?"
	python3 -c 'import json, sys
tids = {e.get("tid") for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "sched"}
sys.exit(tids != {int(sys.argv[2])})' "$T/tid.json" "$stid" || fail "json --tid $stid: slices of other threads"
	pass "json --off-cpu --tid: its slices only"
fi
"$FLIGHTREC" report --off-cpu --comm nothing -i "$F" >"$T/none.txt" 2>"$T/none.err"; rc=$?
[ "$rc" -eq 1 ] && grep -q 'no sample matches' "$T/none.err" ||
	fail "--off-cpu --comm nothing exited $rc: $(cat "$T/none.err")"
pass "--off-cpu --comm nothing -> 1: $(cat "$T/none.err")"

# pprof: cpu/nanoseconds and off_cpu/nanoseconds in one profile (go tool pprof where installed)
"$FLIGHTREC" report --off-cpu --format=pprof -o "$T/p.pb.gz" -i "$1" || fail "pprof exited $?"
GO=$(command -v go || true)
if [ -n "$GO" ]; then
	export HOME="$T" GOPATH="$T/gopath" GOCACHE="$T/gocache" GOTOOLCHAIN=local GOFLAGS=
	"$GO" tool pprof -raw "$T/p.pb.gz" 2>/dev/null | grep -q 'samples/count cpu/nanoseconds\[dflt\] off_cpu/nanoseconds' ||
		fail "pprof sample types: $("$GO" tool pprof -raw "$T/p.pb.gz" 2>&1 | head -8)"
	"$GO" tool pprof -top -sample_index=off_cpu -unit=ms "$T/p.pb.gz" >"$T/top.txt" 2>&1 ||
		fail "go tool pprof: $(cat "$T/top.txt")"
	want=$(awk '$1=="sleeper" {print $4 / 1e6}' "$T/cmd.work")
	got=$(awk '$NF=="sleep_here" {v=$4; sub("ms","",v); print v}' "$T/top.txt")
	within "$got" "$want" 10 || fail "pprof off_cpu sleep_here ${got:-no} ms, measured $want: $(head -15 "$T/top.txt")"
	pass "pprof: off_cpu sleep_here $got ms, measured $want ms"
fi

# the JSON trace: each thread's slices (running, runnable, sleeping, blocked
# on I/O) cover its window; running is its on-CPU time
"$FLIGHTREC" report --off-cpu --format=json -o "$T/trace.json" -i "$1" || fail "json exited $?"
if command -v python3 >/dev/null 2>&1; then
	for name in sleeper piper burner; do
		tid=$(awk -v n="$name" '$1==n {print $2}' "$T/cmd.work")
		row=$(awk -v t="$tid" '$2==t && $1 ~ /^[0-9]+$/ {print $4, $5; exit}' "$T/command.txt")
		set -- $row
		got=$(python3 -c 'import json, sys
tid = int(sys.argv[2]); run = tot = 0.0
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("cat") == "sched" and e.get("tid") == tid:
        # a running slice is 1 ns wider at each end (doc/report.md)
        d = e["dur"] / 1000 - (0.000002 if e["name"] == "running" else 0)
        tot += d; run += d if e["name"] == "running" else 0
print("%.3f %.3f" % (tot, run))' "$T/trace.json" "$tid") || fail "the JSON does not parse"
		set -- $row $got
		within "$3" "$1" 0.01 0.0011 && within "$4" "$2" 0.01 0.0011 ||
			fail "json: $name slices $3 ms (running $4), the text says window $1, on-CPU $2"
		pass "json: $name slices $3 ms, running $4 ms"
	done
	out=$(json_nested "$T/trace.json") || fail "json: slices that cross on a thread's track: $out"
	pass "json: every thread's slices and frames nest"
fi

# the HTML page: a row per thread with its states
"$FLIGHTREC" report --off-cpu --format=html -o "$T/page.html" -i "$F" || fail "html exited $?"
grep -q '<svg id="threads"' "$T/page.html" || fail "html: no thread timeline"
for name in oc-sleeper oc-piper oc-burner; do
	grep -q ">[0-9]* $name</text>" "$T/page.html" || fail "html: no row for $name"
done
grep -q '<title>[0-9]*: sleeping ' "$T/page.html" && grep -q '<title>[0-9]*: running ' "$T/page.html" ||
	fail "html: no sleeping or running spans"
pass "html: a timeline row per thread"
# a range in the middle of the sleeper's sleep redraws the flame graph with
# its wait (wall clock, ns) and titles it so: the waits are in the range's cells
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	grep -q '<h2>Flame graph: cpu-clock and off-CPU waits (wall clock, ns)' "$T/page.html" ||
		fail "html: the flame graph is not titled as wall clock: $(grep -o '<h2>Flame graph: [^<]*' "$T/page.html")"
	chrome "$T/range.dom" --dump-dom "file://$T/page.html?range=0.3,0.6" || fail "--dump-dom exited $?"
	grep -q 'id="range">range: +[0-9.]* s to +[0-9.]* s<' "$T/range.dom" ||
		fail "html: the range was not applied: $(grep -o 'id="range">[^<]*' "$T/range.dom")"
	grep -q '<title>sleep_here (' "$T/range.dom" && grep -q '<title>\[off-cpu: sleeping (S)\] (' "$T/range.dom" ||
		fail "html: the range's flame graph has not the sleeper's wait: $(grep -o '<title>[^<]*' "$T/range.dom" | head -12)"
	pass "html: a range over the sleep redraws its off-CPU wait ($(grep -o '<title>sleep_here ([^)]*)' "$T/range.dom" | head -1))"
	# the filter box (?filter=): the tables and the flame graph of the
	# threads named so only
	chrome "$T/filter.dom" --dump-dom "file://$T/page.html?filter=oc-piper" || fail "--dump-dom exited $?"
	grep -o '<table id="threads">.*</table>' "$T/filter.dom" | sed 's/<\/tr>/\n/g; s/<[^>]*>/ /g' |
		grep -E '[0-9]+ +[0-9.]+%' >"$T/filter.rows"
	[ -s "$T/filter.rows" ] && ! grep -qv 'oc-piper' "$T/filter.rows" ||
		fail "html ?filter=oc-piper: the threads table: $(cat "$T/filter.rows")"
	grep -q '<title>pipe_wait_here (' "$T/filter.dom" && ! grep -q '<title>sleep_here (' "$T/filter.dom" ||
		fail "html ?filter=oc-piper: the flame graph is not the piper's"
	pass "html: ?filter=oc-piper: the piper's rows and waits only"
fi

# system-wide: both sides of every switch from sched_switch itself, in a
# --keep window (its records kept by time, not by a ring's size: other work
# on the machine, tests run beside this one, switching fast wrapped a
# backward ring's window before the workload's start, and the test then
# retried with larger rings; a test made fragile by its own window, fixed so)
mkdir -p "$T/sys"
record_bg offcpu_sys --off-cpu -a -g -e cpu-clock --keep 60s -o "$T/sys" --no-final
"$PROG" >"$T/sys.work" || fail "the workload failed"
"$FLIGHTREC" snapshot --name offcpu_sys >/dev/null 2>"$T/snap.err" || fail "snapshot: $(cat "$T/snap.err")"
kill -INT "$RECPID"
wait "$RECPID"
BGPIDS=""
set -- "$T"/sys/*.frec
[ -f "$1" ] || fail "no system-wide snapshot: $(cat "$T/record-offcpu_sys.err")"
"$FLIGHTREC" report --off-cpu -i "$1" >"$T/sys.txt" 2>&1 || fail "system-wide: report --off-cpu exited $?: $(tail -3 "$T/sys.txt")"
tid=$(awk '$1=="sleeper" {print $2}' "$T/sys.work")
ran=$(awk '$1=="sleeper" {print $5 / 1e6}' "$T/sys.work")
win=$(awk -v t="$tid" '$2==t && $1 ~ /^[0-9]+$/ {print $4; exit}' "$T/sys.txt")
[ -n "$win" ] && awk -v w="$win" -v r="$ran" 'BEGIN{exit !(w >= r * 0.98)}' ||
	fail "system-wide: the sleeper's window is ${win:-absent} ms of its ${ran} ms"
check system-wide "$1" "$T/sys.work"
# the idle task's stack, where the window holds one (an idle CPU: not on a
# loaded machine), names every kernel caller: x86_64_start_reservations
# ends with its call to start_kernel, and a caller is looked up at its
# return address - 1 (its symbol kept too)
"$FLIGHTREC" report --folded --no-off-cpu -i "$1" 2>/dev/null | grep 'cpu_startup_entry' >"$T/idle.folded"
if [ -s "$T/idle.folded" ]; then
	grep -q '\[unknown\]' "$T/idle.folded" &&
		fail "an idle stack with an unnamed frame: $(grep '\[unknown\]' "$T/idle.folded" | head -2)"
	pass "system-wide: $(wc -l <"$T/idle.folded") idle stacks, every frame named"
fi
# system-wide, every thread of the machine: the JSON's slices and frames
# nest on each track (the recorder's own switches recorded, every task's
# switch-in with them; a switch-in lost: the wait ends at a sample of it)
if command -v python3 >/dev/null 2>&1; then
	"$FLIGHTREC" report --off-cpu --format=json -o "$T/sys.json" -i "$1" || fail "system-wide json exited $?"
	out=$(json_nested "$T/sys.json") || fail "system-wide json: slices that cross on a thread's track: $out"
	pass "system-wide json: every thread's slices and frames nest"
fi
