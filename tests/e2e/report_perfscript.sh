#!/bin/sh
# tests/e2e/report_perfscript.sh: --format=perf-script against `perf script`.
# Every line has perf's layout; folded by a folder that follows
# stackcollapse-perf.pl's rules it gives the stacks of --folded; a copy of
# the program without symbols gives `[unknown] (FILE)` frames. Where perf
# works here, the same deterministic workload (cpuburn_fp) recorded by perf
# (-e cpu-clock -F 999 -g) gives the same heavy stacks with the same shares,
# and perf's own output passes the same layout checks.
. "$TESTLIB"

ROUNDS=100
PROG="$HELPERS/cpuburn_fp"
# perf record and perf script into $1.txt, false where perf fails here. -B:
# perf's build-id cache ($HOME/.debug, one per recording) cannot name the
# stripped copy (the same build id) from the program's symbols. Tried three
# times: perf 6.1 aborts in util/build-id.c when another recorder with build
# ids runs system-wide (its MMAP2 records come with the build-id flag set).
perf_record() {
	out=$1; shift
	command -v perf >/dev/null 2>&1 || return 1
	mkdir -p "$out.home"
	for _ in 1 2 3; do
		HOME="$out.home" perf record -B -q -e cpu-clock -F 999 -g -o "$out" -- "$@" \
			>/dev/null 2>"$T/perf.err" &&
		HOME="$out.home" perf script -i "$out" >"$out.txt" 2>>"$T/perf.err" &&
		[ -s "$out.txt" ] && return 0
	done
	echo "note: perf fails here, its part is left out: $(tail -1 "$T/perf.err")"
	return 1
}

# stackcollapse-perf.pl's rules: a header line (NAME TID or NAME PID/TID)
# opens a sample, counted under the first event name seen; frame lines
# "ADDR FUNC (MODULE)" are pushed leaf first; "+0x..." is stripped, names
# starting with "(" skipped, "[unknown]" becomes "[MODULE's base name]"
# ("[unknown]" for no module), and anything from the first "(" on is cut
# (--tidy-generic is on by default); a blank line ends the sample: "COMM;
# root;...;leaf COUNT", COMM with spaces as '_'.
fold() {
	awk '
	/^#/ { next }
	/^$/ { if (name != "" && n) { s = name; for (i = n; i >= 1; i--) s = s ";" st[i]; c[s]++ }
	       name = ""; n = 0; next }
	/^[^ \t]/ || /^ +[^ ]+ +[0-9]+[ \/]/ {
		line = $0; sub(/^ +/, "", line)
		if (!match(line, /^.+ +[0-9]+(\/[0-9]+)? /)) { print "unrecognized: " $0 > "/dev/stderr"; next }
		comm = line; sub(/ +[0-9]+(\/[0-9]+)? .*$/, "", comm)
		ev = ""
		if (match(line, /[^ ]+: *$/)) { ev = substr(line, RSTART, RLENGTH); sub(/: *$/, "", ev) }
		if (ev != "" && first == "") first = ev
		if (ev != "" && ev != first) { name = ""; next }
		gsub(/ /, "_", comm); name = comm; n = 0; next }
	/^[ \t]+[0-9a-f]+ .+ \([^ ]*\)$/ {
		if (name == "") next
		line = $0; sub(/^[ \t]+[0-9a-f]+ +/, "", line)
		mod = line; sub(/^.* \(/, "", mod); sub(/\)$/, "", mod)
		f = line; sub(/ \([^ ]*\)$/, "", f); sub(/\+0x[0-9a-f]+$/, "", f)
		if (f ~ /^\(/) next
		if (f == "[unknown]") { if (mod != "[unknown]") { f = mod; sub(/.*\//, "", f) } else f = "unknown"; f = "[" f "]" }
		gsub(/;/, ":", f); gsub(/[<>]/, "", f)
		if (f !~ /\.\(.*\)\./) sub(/\(.*/, "", f)
		gsub(/["\047]/, "", f)
		st[++n] = f; next }
	{ print "unrecognized: " $0 > "/dev/stderr" }
	END { for (s in c) print s, c[s] }' "$1" | sort
}

# perf script's default fields, per line: the header of a sample with a
# callchain ("COMM TID [CPU] SEC.USEC: PERIOD EVENT: "; the CPU where the
# file has it), frames "\t" + the address right-aligned in 16 + " SYM+0xOFF
# (DSO)", "[unknown] (DSO)" or "SYM+0xOFF (inlined)", a blank line after each.
check_layout() {
	awk -v what="$2" '
	function bad(why) { printf "%s, line %d: %s: [%s]\n", what, NR, why, $0; exit 1 }
	/^$/ { if (!inside) bad("blank line outside a sample"); inside = 0; next }
	!inside { if ($0 !~ /^[^ \t].* +[0-9]+ (\[[0-9][0-9][0-9]\] )? *[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]: +[0-9]+ cpu-clock: $/)
			bad("not a sample header")
		  inside = 1; next }
	{ if (substr($0, 1, 1) != "\t" || substr($0, 18, 1) != " " || substr($0, 2, 16) !~ /^ *[0-9a-f]+$/)
		bad("not TAB, a 16-wide address and a space")
	  rest = substr($0, 19)
	  if (rest !~ /^[^ ].*\+0x[0-9a-f]+ \([^ ]+\)$/ && rest !~ /^\[unknown\] \([^ ]+\)$/ &&
	      rest !~ /^[^ ].*\+0x[0-9a-f]+ \(inlined\)$/)
		bad("not SYM+0xOFF (DSO), [unknown] (DSO) or SYM+0xOFF (inlined)") }
	END { if (inside) bad("no blank line after the last sample") }' "$1" >"$T/layout.err" ||
		fail "$(cat "$T/layout.err")"
}

mkdir -p "$T/out"
record_fg -q -e cpu-clock -F 999 -g -m 4M -o "$T/out" -- "$PROG" "$ROUNDS" >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
F=$1
# perf shows no inline frames here: compare the functions' own frames
"$FLIGHTREC" report --format=perf-script --no-inline "$F" >"$T/fr.txt" ||
	fail "--format=perf-script exited $?"
"$FLIGHTREC" report --format=perf-script "$F" >"$T/fr_inline.txt" ||
	fail "--format=perf-script exited $?"
"$FLIGHTREC" report --folded --no-inline "$F" >"$T/fr.own" || fail "--folded exited $?"
check_layout "$T/fr.txt" "flightrec --no-inline"
check_layout "$T/fr_inline.txt" "flightrec"
grep -Eq '^	 +[0-9a-f]+ mix\+0x[0-9a-f]+ \(inlined\)$' "$T/fr_inline.txt" ||
	fail "no inline frame of mix: $(grep -m3 hot_a "$T/fr_inline.txt")"
pass "every line has perf script's layout"

# the stacks of at least 5% in either, with their shares
share() { awk '{n = $NF; $NF = ""; sub(/ $/, ""); w[$0] = n; t += n}
	END {for (s in w) printf "%s %.1f\n", s, 100 * w[s] / t}' "$1" | sort; }
# compare A B NAME-A NAME-B: the same stacks of 5% or more, within 6 points
compare() {
	awk -v a="$3" -v b="$4" 'FNR == NR {p[$1] = $2; next} {f[$1] = $2}
	END {for (s in p) if (p[s] >= 5 || f[s] >= 5) {d = p[s] - f[s]; if (d > 6 || d < -6) {
		printf "%s: %s %.1f%%, %s %.1f%%\n", s, a, p[s], b, f[s]; bad = 1}}
	     for (s in f) if (f[s] >= 5 && !(s in p)) {printf "%s: only %s, %.1f%%\n", s, b, f[s]; bad = 1}
	     exit bad}' "$1" "$2" >"$T/diff.txt" || fail "the folded stacks differ: $(cat "$T/diff.txt")"
	[ -s "$1" ] && [ -s "$2" ] || fail "no stacks: $3 $(wc -l <"$1"), $4 $(wc -l <"$2")"
}
fold "$T/fr.txt" >"$T/fr.folded" 2>"$T/fr.fold.err"
[ -s "$T/fr.fold.err" ] && fail "flightrec's output has lines the folder does not know: $(head -3 "$T/fr.fold.err")"
share "$T/fr.folded" >"$T/fr.share"
# --folded names an address no symbol covers FILE+0xADDR, stackcollapse [FILE]
awk '{k = split($1, f, ";"); s = f[1]
	for (i = 2; i <= k; i++) {if (f[i] ~ /\+0x[0-9a-f]+$/) {sub(/\+0x[0-9a-f]+$/, "", f[i]); f[i] = "[" f[i] "]"}
		s = s ";" f[i]}
	c[s] += $2} END {for (s in c) print s, c[s]}' "$T/fr.own" | LC_ALL=C sort >"$T/fr.own.sorted"
LC_ALL=C sort "$T/fr.folded" | cmp -s - "$T/fr.own.sorted" ||
	fail "folding perf-script is not --folded: $(LC_ALL=C sort "$T/fr.folded" | diff "$T/fr.own.sorted" - | head -5)"
pass "stackcollapse-perf's folding of the perf-script output is --folded"

leaf() { awk -v f="$2" '{k = split($1, a, ";"); if (a[k] == f) s += $2} END {printf "%.1f", s}' "$1"; }
ftop=$(sort -k2 -rn "$T/fr.share" | head -1)
case "$ftop" in
cpuburn_fp\;*main\;run\;hot_a\ *) ;;
*) fail "the heaviest stack is not main;run;hot_a: $ftop" ;;
esac
if perf_record "$T/perf" "$PROG" "$ROUNDS"; then
	check_layout "$T/perf.txt" "perf script (the reference)"
	fold "$T/perf.txt" >"$T/perf.folded" 2>"$T/perf.fold.err"
	[ -s "$T/perf.fold.err" ] && fail "perf's output has lines the folder does not know: $(head -3 "$T/perf.fold.err")"
	share "$T/perf.folded" >"$T/perf.share"
	compare "$T/perf.share" "$T/fr.share" perf flightrec
	ptop=$(sort -k2 -rn "$T/perf.share" | head -1)
	[ "${ptop% *}" = "${ftop% *}" ] || fail "the heaviest stack: perf '$ptop', flightrec '$ftop'"
	pa=$(leaf "$T/perf.share" hot_a)
	fa=$(leaf "$T/fr.share" hot_a)
	awk -v p="$pa" -v f="$fa" 'BEGIN {d = p - f; exit !(p > 40 && d <= 6 && d >= -6)}' ||
		fail "hot_a: perf ${pa}%, flightrec ${fa}%"
	pass "perf script folds alike: heaviest ${ftop}% (perf ${ptop##* }%), hot_a perf ${pa}%, flightrec ${fa}%"
fi

# a program without symbols: its frames are [unknown] in its file, as perf has them
mkdir -p "$T/out2" && cp "$PROG" "$T/cpuburn_nosym" && strip -s "$T/cpuburn_nosym" || fail "cannot strip a copy"
record_fg -q -e cpu-clock -F 999 -g -m 4M -o "$T/out2" -- "$T/cpuburn_nosym" 30 >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
"$FLIGHTREC" report --format=perf-script "$T"/out2/*.frec >"$T/fr2.txt" || fail "perf-script exited $?"
check_layout "$T/fr2.txt" "flightrec, no symbols"
grep -Eq "^	 +[0-9a-f]+ \[unknown\] \($T/cpuburn_nosym\)\$" "$T/fr2.txt" ||
	fail "no '[unknown] ($T/cpuburn_nosym)' frame: $(sed -n 1,8p "$T/fr2.txt")"
! grep -q 'cpuburn_nosym+0x' "$T/fr2.txt" ||
	fail "an unknown frame named FILE+0xADDR: $(grep -m1 'cpuburn_nosym+0x' "$T/fr2.txt")"
fold "$T/fr2.txt" | sort -k2 -rn | head -1 >"$T/fr2.top"
grep -q '^cpuburn_nosym;.*;\[cpuburn_nosym\] ' "$T/fr2.top" || fail "the heaviest stack's leaf is not [cpuburn_nosym]: $(cat "$T/fr2.top")"
if perf_record "$T/perf2" "$T/cpuburn_nosym" 30; then
	grep -Eq "^	 +[0-9a-f]+ \[unknown\] \($T/cpuburn_nosym\)\$" "$T/perf2.txt" ||
		fail "perf has no '[unknown] ($T/cpuburn_nosym)' frame: $(sed -n 1,8p "$T/perf2.txt")"
	fold "$T/perf2.txt" | sort -k2 -rn | head -1 >"$T/perf2.top"
	[ "$(cut -d' ' -f1 "$T/perf2.top")" = "$(cut -d' ' -f1 "$T/fr2.top")" ] ||
		fail "the heaviest stack without symbols: perf $(cat "$T/perf2.top"), flightrec $(cat "$T/fr2.top")"
	pass "perf's heaviest stack without symbols is the same"
fi
pass "no symbols: [unknown] (FILE) frames; heaviest stack $(cat "$T/fr2.top")"
exit 0
