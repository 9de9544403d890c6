#!/bin/sh
# tests/e2e/crafted.sh: the reading side's fault classes of issue 32, as
# crafted files with valid checksums (tests/helpers/frcraft), through dump and
# report: each exits 1 with one line saying what could not be used (or, where
# everything could, exits 0), lists what could be read, and stays within the
# proportion budget: peak RSS under a bound (structural, /usr/bin/time %M, not
# timed; `timeout` only guards against a hang).
. "$TESTLIB"
F=$FLIGHTREC
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time" >&2; exit 77; }
# decoded bytes at most max(16 MiB, 64 x file size) (doc/format.md §6): the
# readers' peak, libraries and tables included, stays far under 1 GB
RSS_MAX_KB=${RSS_MAX_KB:-200000}
# a sanitizer build (make distcheck): its runtime's shadow and quarantine of
# freed memory are not the reader's: a small quarantine, and room for the shadow
if grep -q __asan_init "$FLIGHTREC" 2>/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
	export ASAN_OPTIONS
	RSS_MAX_KB=400000
fi

# run CMD...: exit code in $rc, stderr in $T/err, stdout in $T/out, peak RSS (KiB) in $rss
run() {
	timeout 120 /usr/bin/time -f '%M' -o "$T/rss" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	rss=$(tail -1 "$T/rss")
	[ "$rc" -ne 124 ] || fail "$*: hang guard (120 s) reached"
	[ "$rss" -le "$RSS_MAX_KB" ] || fail "$*: peak RSS $rss KiB over $RSS_MAX_KB KiB"
}

# check CLASS CODE PATTERN: dump and report of the class's file exit CODE,
# every stderr line is "flightrec: ...", one of them matches PATTERN, the
# good sample is still listed, the cost is bounded
check() {
	c=$1 code=$2 pat=$3
	f="$T/$c.frec"
	"$HELPERS/frcraft" "$c" "$f" || fail "frcraft $c: $?"
	for cmd in dump report; do
		run "$F" $cmd "$f"
		[ "$rc" -eq "$code" ] || fail "$cmd $c: exit $rc, expected $code: $(cat "$T/err")"
		if grep -qv '^flightrec: ' "$T/err"; then
			fail "$cmd $c: a line that is not 'flightrec: ...': $(cat "$T/err")"
		fi
		if [ -z "$pat" ]; then
			[ ! -s "$T/err" ] || fail "$cmd $c: said something: $(cat "$T/err")"
		else
			grep -qE "^flightrec: .*$pat" "$T/err" || fail "$cmd $c: no line '$pat': $(cat "$T/err")"
		fi
		[ "$cmd" = report ] || grep -q 'SAMPLE' "$T/out" || fail "dump $c: the good sample is not listed"
		pass "$cmd $c ($(wc -c <"$f") bytes): exit $rc, peak RSS $rss KiB: $(grep -E "${pat:-.}" "$T/err" | head -1)"
	done
}

budget='decoded size out of proportion to the file size \(skipped\), and [0-9]+ more like it'
check budget-meta 1 "\(META\).*$budget"
check budget-event 1 "\(EVENT\).*$budget"
check budget-cpustat 1 "\(CPUSTAT\).*$budget"
check budget-procs 1 "\(BLOB PROCS\).*$budget"
check budget-perfmap 1 "\(BLOB PERFMAP\).*$budget"
# every name and mapping usable, nothing to say: linear (a hang guard only)
check procs-order 0 ''
check cpu-id 1 '1 records could not be used: .* 1 CPU statistics of a CPU id past 4095'
check bad-body 1 '1 records could not be used: 0 samples of no event of the file, 1 samples whose body does not parse'
check two-events 1 '47 records could not be used: 47 samples of no event of the file'
check lost-wrap 1 '18446744073709551615 records lost while recording'
# a newer writer's blob kind: said once, not damage
check unknown-kind 0 '1 blob of a kind this flightrec does not know \(kind 99'

# the HTML timeline of cpu-id: one CPU row, not ten million
run "$F" report --format=html -o "$T/cpu.html" "$T/cpu-id.frec"
[ "$rc" -eq 1 ] || fail "report --format=html cpu-id: exit $rc: $(cat "$T/err")"
sz=$(wc -c <"$T/cpu.html")
[ "$sz" -lt 2000000 ] || fail "report --format=html cpu-id: a $sz-byte page"
grep -q 'cpu 10000000' "$T/cpu.html" && fail "report --format=html cpu-id: a row for CPU 10000000"
pass "report --format=html cpu-id: $sz bytes, peak RSS $rss KiB"

# PROCS that fail for memory are said as memory, never as a malformed payload:
# dump under falling address-space limits until the table does not fit
said=no
for mb in 200 150 100 80 60 50 45 40 35 30 27 24 21 18 16; do
	(ulimit -v $((mb * 1024)) && exec "$F" dump "$T/procs-order.frec") >/dev/null 2>"$T/err"
	rc=$?
	grep -q 'malformed payload' "$T/err" && fail "dump at ${mb} MB: ENOMEM blamed on the file: $(cat "$T/err")"
	if grep -q 'PROCS blobs): Cannot allocate memory' "$T/err"; then
		[ "$rc" -eq 1 ] || fail "dump at ${mb} MB: exit $rc after the memory line"
		said=yes
		pass "dump at ${mb} MB: $(cat "$T/err")"
		break
	fi
done
[ $said = yes ] || echo "note: no limit tried made the process table fail for memory"
pass "crafted files"
