#!/bin/sh
# tests/e2e/offcpu_default.sh: a file recorded with --off-cpu shows its
# off-CPU time without --off-cpu at report time: plain report, --folded,
# --format=pprof (an off_cpu sample type) and the HTML page (the threads'
# states) hold the same as with it; --no-off-cpu leaves it out (the
# switches counted as an ordinary event); a file without switches is
# reported as before, and --off-cpu on it still exits 64.
. "$TESTLIB"

mkdir -p "$T/cmd"
record_fg -q --off-cpu -g -e cpu-clock -o "$T/cmd" -- "$HELPERS/offcpu_work" >"$T/work" ||
	fail "record --off-cpu exited $?: $(cat "$T/record.err")"
set -- "$T"/cmd/*.frec
F=$1

# text: the off-CPU section, the same lines as asked for
"$FLIGHTREC" report -i "$F" >"$T/plain.txt" 2>"$T/plain.err" || fail "report exited $?: $(cat "$T/plain.err")"
"$FLIGHTREC" report --off-cpu -i "$F" >"$T/asked.txt" 2>/dev/null || fail "report --off-cpu exited $?"
grep -q '^# off-CPU: switch-out to switch-in' "$T/plain.txt" ||
	fail "plain report: no off-CPU section: $(head -30 "$T/plain.txt")"
sleep_ms=$(awk '$NF=="sleep_here" && $2 ~ /%$/ && $3 ~ /^[SDR]$/ {ms += $1} END {print ms+0}' "$T/plain.txt")
awk -v m="$sleep_ms" 'BEGIN{exit !(m > 100)}' || fail "plain report: sleep_here off-CPU $sleep_ms ms"
diff "$T/plain.txt" "$T/asked.txt" >"$T/d.txt" || fail "plain report differs from --off-cpu: $(head -10 "$T/d.txt")"
pass "text: the off-CPU section without --off-cpu (sleep_here $sleep_ms ms), as with it"

# folded: the waits under their state frame, in microseconds, as asked for
"$FLIGHTREC" report --folded -i "$F" >"$T/plain.folded" || fail "--folded exited $?"
"$FLIGHTREC" report --off-cpu --folded -i "$F" >"$T/asked.folded" || fail "--off-cpu --folded exited $?"
grep -q ';\[off-cpu: sleeping (S)\];.*sleep_here' "$T/plain.folded" ||
	fail "--folded: no off-CPU stacks: $(head -5 "$T/plain.folded")"
cmp -s "$T/plain.folded" "$T/asked.folded" || fail "--folded differs from --off-cpu --folded"
pass "folded: $(grep -c 'off-cpu:' "$T/plain.folded") off-CPU stacks without --off-cpu"

# pprof: the off_cpu/nanoseconds sample type (go tool pprof reads it;
# quickstart installs it)
"$FLIGHTREC" report -q --format=pprof -o "$T/p.pb.gz" -i "$F" 2>/dev/null || fail "--format=pprof exited $?"
"$FLIGHTREC" report -q --no-off-cpu --format=pprof -o "$T/n.pb.gz" -i "$F" 2>/dev/null ||
	fail "--no-off-cpu pprof exited $?"
GO=$(command -v go) || fail "go not installed (quickstart installs golang-go)"
export HOME="$T" GOPATH="$T/gopath" GOCACHE="$T/gocache" GOTOOLCHAIN=local GOFLAGS=
"$GO" tool pprof -raw "$T/p.pb.gz" 2>&1 | grep -q 'off_cpu/nanoseconds' ||
	fail "pprof: no off_cpu sample type: $("$GO" tool pprof -raw "$T/p.pb.gz" 2>&1 | head -5)"
"$GO" tool pprof -raw "$T/n.pb.gz" 2>&1 | grep -q 'off_cpu/nanoseconds' &&
	fail "pprof --no-off-cpu: an off_cpu sample type"
pass "pprof: an off_cpu sample type without --off-cpu, none with --no-off-cpu"

# html: the threads' states
"$FLIGHTREC" report --format=html -o "$T/p.html" -i "$F" || fail "--format=html exited $?"
grep -q 'id="threads"' "$T/p.html" || fail "html: no threads' states"
pass "html: the threads' running, runnable, sleeping and blocked states"

# --no-off-cpu: no section; the switches are one more event
"$FLIGHTREC" report --no-off-cpu -i "$F" >"$T/no.txt" 2>/dev/null || fail "--no-off-cpu exited $?"
grep -q '^# off-CPU' "$T/no.txt" && fail "--no-off-cpu: an off-CPU section"
grep -Eq '^# +[0-9]+  sched:sched_switch' "$T/no.txt" ||
	fail "--no-off-cpu: sched_switch not counted: $(grep -A4 'samples per event' "$T/no.txt")"
pass "--no-off-cpu: no off-CPU section, sched:sched_switch counted as an event"

# a file without switches: as before; --off-cpu on it exits 64
mkdir -p "$T/plainrec"
record_fg -q -e cpu-clock -o "$T/plainrec" -- "$HELPERS/busy" 200 >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/plainrec/*.frec
"$FLIGHTREC" report -i "$1" >"$T/b.txt" || fail "report of a file without switches exited $?"
grep -q '^# off-CPU' "$T/b.txt" && fail "a file without switches: an off-CPU section"
expect_error 64 "--off-cpu: the file has no context switches" "$FLIGHTREC" report --off-cpu -i "$1"
pass "a file without switches: no off-CPU section; --off-cpu exits 64"
