#!/bin/sh
# tests/e2e/report_dwarf.sh: profile a CPU-bound program built without frame
# pointers with --call-graph dwarf; the report unwinds the sampled user stacks
# with libunwind: the hottest functions, their share and the full call path
# from main; and, where perf works here, perf report's shares within 5 points.
. "$TESTLIB"

ROUNDS=100
PROG="$HELPERS/cpuburn_nofp"
mkdir -p "$T/out"
record_fg -q -F 999 --call-graph dwarf,8192 -e cpu-clock -m 16M -o "$T/out" -- "$PROG" "$ROUNDS" \
	>/dev/null || fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
F=$1

pct() { awk -v s="$1" '$NF==s && $1 ~ /%$/ {sub("%","",$1); print $1; exit}' "$2"; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN{exit !(v != "" && v+0 >= lo && v+0 <= hi)}'; }

"$FLIGHTREC" report --sort sym "$F" >"$T/sym.txt" || fail "report exited $?"
a=$(pct hot_a "$T/sym.txt")
b=$(pct hot_b "$T/sym.txt")
in_range "$a" 56 77 || fail "hot_a has ${a:-no}% of the samples, expected about 67%: $(head -30 "$T/sym.txt")"
in_range "$b" 23 44 || fail "hot_b has ${b:-no}% of the samples, expected about 33%"
grep -q 'did not unwind' "$T/sym.txt" && echo "note: $(grep 'did not unwind' "$T/sym.txt")"
pass "dwarf: hot_a ${a}%, hot_b ${b}%"

"$FLIGHTREC" report --folded "$F" >"$T/folded" || fail "report --folded exited $?"
for fn in hot_a hot_b; do
	full=$(awk -v fn="$fn" '$0 ~ (";" fn "(;mix)? [0-9]+$") {n += $NF;
		if ($0 ~ ("^cpuburn_nofp;(.*;)?main;run;" fn "(;mix)? ")) f += $NF}
		END {printf "%d %d", f, n}' "$T/folded")
	set -- $full
	[ "$2" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 95)) ] ||
		fail "only $1 of $2 $fn stacks unwound to main;run;$fn: $(head -5 "$T/folded")"
	pass "unwound: $1 of $2 $fn stacks are main;run;$fn"
done
# below main: the C library's start code, from its own unwind tables
grep -Eq '^cpuburn_nofp;(_start;)?(__libc_start_main[^;]*;)?__libc_start_call_main;main;run;hot_a' "$T/folded" ||
	echo "note: the C library's frames below main are missing: $(head -1 "$T/folded")"

if command -v perf >/dev/null 2>&1; then
	if perf record -q -e cpu-clock -F 999 --call-graph dwarf,8192 -o "$T/perf.data" -- "$PROG" \
		"$ROUNDS" >/dev/null 2>"$T/perf.err" &&
	   perf report -i "$T/perf.data" --stdio --no-children --sort sym -q -g none \
		>"$T/perf.txt" 2>>"$T/perf.err" && [ -n "$(pct hot_a "$T/perf.txt")" ]; then
		pa=$(pct hot_a "$T/perf.txt")
		pb=$(pct hot_b "$T/perf.txt")
		awk -v a="$a" -v pa="$pa" -v b="$b" -v pb="$pb" \
			'BEGIN {d1 = a - pa; d2 = b - pb; exit !(d1 <= 5 && d1 >= -5 && d2 <= 5 && d2 >= -5)}' ||
			fail "perf report: hot_a ${pa}%, hot_b ${pb}%; flightrec: ${a}%, ${b}%"
		pass "perf report agrees: hot_a ${pa}%, hot_b ${pb}%"
	else
		echo "perf did not work here, comparison skipped: $(head -c 300 "$T/perf.err")"
	fi
fi
exit 0
