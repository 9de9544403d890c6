#!/bin/sh
# tests/e2e/vdso.sh: [vdso] frames are named in every mode: a clock_gettime
# loop (tests/helpers/vdso_loop) recorded backward, --forward and --keep;
# each file carries the VDSO blob (src/record/composer.c writes it into every
# file kind), so the report names __vdso_clock_gettime and never shows
# "[vdso] [unknown]" (before, --forward files had no VDSO blob: 96.5% unknown).
. "$TESTLIB"

for mode in --backward --forward "--keep 10s"; do
	d="$T/out${mode%% *}"
	mkdir -p "$d"
	# shellcheck disable=SC2086 # the mode is one or two words
	record_fg $mode -e cpu-clock -o "$d" -- "$HELPERS/vdso_loop" 700 ||
		fail "$mode: record failed: $(cat "$T/record.err")"
	f=$(ls "$d"/*.frec) || fail "$mode: no file"
	"$FLIGHTREC" report "$f" >"$T/report.txt" 2>"$T/report.err" ||
		fail "$mode: report failed: $(cat "$T/report.err")"
	grep -qE 'vdso_loop +\[vdso\] +\[\.\] __vdso_clock_gettime' "$T/report.txt" ||
		fail "$mode: __vdso_clock_gettime not named: $(sed -n 15,20p "$T/report.txt")"
	if grep -E '\[vdso\] +\[\.\] \[unknown\]' "$T/report.txt"; then
		fail "$mode: [vdso] frames left unknown"
	fi
	share=$(awk '$4 == "[vdso]" {s += $1} END {printf "%d", s}' "$T/report.txt")
	[ "$share" -ge 50 ] || fail "$mode: only $share% of the samples in [vdso]"
	pass "$mode: [vdso] named ($share% of the samples in it)"
done
