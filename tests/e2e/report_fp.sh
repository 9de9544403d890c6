#!/bin/sh
# tests/e2e/report_fp.sh: profile a CPU-bound program with frame-pointer
# callchains (-g) and check the report: the hottest functions and their share
# (about 2/3 and 1/3 by construction), the full call path from main, inline
# frames, the perf-script and JSON outputs; and, where perf works here, that
# perf report gives the same shares within 5 points.
. "$TESTLIB"

ROUNDS=100
PROG="$HELPERS/cpuburn_fp"
mkdir -p "$T/out"
record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/out" -- "$PROG" "$ROUNDS" >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
F=$1

# share of a symbol in a report (the first column of the line that ends in it)
pct() { awk -v s="$1" '$NF==s && $1 ~ /%$/ {sub("%","",$1); print $1; exit}' "$2"; }
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN{exit !(v != "" && v+0 >= lo && v+0 <= hi)}'; }

"$FLIGHTREC" report --no-header --sort sym "$F" >"$T/sym.txt" || fail "report exited $?"
a=$(pct hot_a "$T/sym.txt")
b=$(pct hot_b "$T/sym.txt")
in_range "$a" 56 77 || fail "hot_a has ${a:-no}% of the samples, expected about 67%: $(head -12 "$T/sym.txt")"
in_range "$b" 23 44 || fail "hot_b has ${b:-no}% of the samples, expected about 33%"
top=$(awk '$1 ~ /%$/ {print $NF}' "$T/sym.txt" | head -2 | tr '\n' ' ')
[ "$top" = "hot_a hot_b " ] || fail "the two hottest functions are '$top', expected hot_a hot_b"
pass "-g: hot_a ${a}%, hot_b ${b}%"

# the full call path from main, in the folded stacks and under -g
"$FLIGHTREC" report --folded "$F" >"$T/folded" || fail "report --folded exited $?"
awk '{ if ($NF !~ /^[0-9]+$/) exit 1 }' "$T/folded" || fail "a folded line does not end in a count"
full=$(awk '/;hot_a(;mix)? [0-9]+$/ {n += $NF; if ($0 ~ /^cpuburn_fp;(.*;)?main;run;hot_a(;mix)? /) f += $NF}
	END {printf "%d %d", f, n}' "$T/folded")
set -- $full
[ "$2" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 95)) ] ||
	fail "only $1 of $2 hot_a stacks go cpuburn_fp;...;main;run;hot_a: $(head -5 "$T/folded")"
pass "folded: $1 of $2 hot_a stacks are main;run;hot_a"
"$FLIGHTREC" report -g --no-header --sort sym "$F" >"$T/g.txt" || fail "report -g exited $?"
awk '$NF=="hot_a" && $1 ~ /%$/ {on=1; next} on && /^$/ {exit} on {print}' "$T/g.txt" >"$T/g_a.txt"
for f in run main 'mix \[inlined\]'; do
	grep -Eq "(^| |--)$f\$" "$T/g_a.txt" || fail "-g: no '$f' under hot_a: $(cat "$T/g_a.txt")"
done
pass "-g: run, main and the inlined mix under hot_a"

# perf script's layout
"$FLIGHTREC" report --format=perf-script "$F" >"$T/script" || fail "perf-script exited $?"
grep -Eq '^cpuburn_fp +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: $' "$T/script" ||
	fail "no perf-script sample header line: $(head -3 "$T/script")"
grep -Eq "^	 *[0-9a-f]+ hot_a\+0x[0-9a-f]+ \(.*/cpuburn_fp\)\$" "$T/script" ||
	fail "no perf-script frame line for hot_a: $(head -8 "$T/script")"
n=$(grep -c ' cpu-clock: $' "$T/script")
total=$(awk '$1 ~ /%$/ {n += $2} END {print n+0}' "$T/sym.txt")
[ "$n" -eq "$total" ] || fail "perf-script has $n samples, the report $total"
pass "perf-script: $n samples"

"$FLIGHTREC" report --format=json "$F" >"$T/trace.json" || fail "json exited $?"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$T/trace.json" >/dev/null || fail "the JSON does not parse"
	pass "json parses"
fi

# perf report on the same program, where perf works
if command -v perf >/dev/null 2>&1; then
	if perf record -q -e cpu-clock -F 999 -g -o "$T/perf.data" -- "$PROG" "$ROUNDS" \
		>/dev/null 2>"$T/perf.err" &&
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
