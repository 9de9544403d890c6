#!/bin/sh
# tests/e2e/report_parallel.sh: the text report of a big file (>= 1 MiB, two
# CPUs' sample streams) is made by workers that each walk some CPUs' samples
# with all the sideband and merge their histograms by name: its output must
# be byte for byte that of one ordered pass (FLIGHTREC_REPORT_ONE_PASS) in
# every view, with filters, and the workers must really run (the file opened
# once per worker, seen with strace where installed).
. "$TESTLIB"

# two CPU-bound processes sampled every 50 us: ~40k samples per second. The
# rounds are fixed work, so a fast machine makes a smaller file: the rounds
# double until the file is big enough for the parallel report (three tries)
rounds=600
for try in 1 2 3; do
	rm -rf "$T/out"
	mkdir -p "$T/out"
	record_fg -q -c 50000 -g -e cpu-clock -m 64M --backward -o "$T/out" -- \
		sh -c "$HELPERS/cpuburn_fp $rounds & $HELPERS/cpuburn_fp $rounds; wait" >/dev/null ||
		fail "record exited $?: $(cat "$T/record.err")"
	set -- "$T"/out/*.frec
	F=$1
	size=$(stat -c %s "$F")
	[ "$size" -ge 1048576 ] && break
	echo "note: $rounds rounds made $size bytes, under 1 MiB: again with twice the rounds"
	rounds=$((rounds * 2))
done
[ "$size" -ge 1048576 ] || fail "the profile is $size bytes after $try tries: too small for the parallel report"
cpus=$("$FLIGHTREC" dump "$F" | awk '$4 == "SAMPLE" {c[$2]=1} END {print length(c)}')
[ "$cpus" -ge 2 ] || fail "samples from $cpus CPU(s): both CPUs were expected"

n=0
for view in "" "-g" "--children" "-g --children" "--sort cpu,tid,sym" "--sort comm,pid,dso" \
	"-g --sort srcline" "--sort sym --percent-limit 1" "-g --comm cpuburn_fp" "--no-header"; do
	# shellcheck disable=SC2086
	"$FLIGHTREC" report $view "$F" >"$T/par.txt" 2>"$T/par.err" || fail "report $view: rc $?: $(cat "$T/par.err")"
	# shellcheck disable=SC2086
	FLIGHTREC_REPORT_ONE_PASS=1 "$FLIGHTREC" report $view "$F" >"$T/one.txt" 2>"$T/one.err" ||
		fail "one-pass report $view: rc $?"
	cmp -s "$T/par.txt" "$T/one.txt" ||
		fail "report $view differs from one pass: $(diff "$T/one.txt" "$T/par.txt" | head -8)"
	n=$((n + 1))
done
grep -q 'hot_a' "$T/par.txt" || fail "no hot_a in the report: $(head -20 "$T/par.txt")"
pass "$n views of a $size-byte, $cpus-CPU file: the parallel report equals one pass"

if command -v strace >/dev/null 2>&1; then
	# LeakSanitizer refuses to run under ptrace (sanitizer builds): leaks are
	# checked by the runs above
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	base=$(basename "$F")
	strace -f -e trace=openat -o "$T/st.txt" "$FLIGHTREC" report -g "$F" >/dev/null 2>"$T/st.err" ||
		fail "report under strace: rc $?: $(tail -3 "$T/st.err")"
	opens=$(grep -c "$base" "$T/st.txt")
	[ "$opens" -ge 3 ] || fail "the file was opened $opens time(s): no workers ran"
	FLIGHTREC_REPORT_ONE_PASS=1 strace -f -e trace=openat -o "$T/st1.txt" "$FLIGHTREC" report -g "$F" \
		>/dev/null 2>&1 || fail "one-pass report under strace: rc $?"
	[ "$(grep -c "$base" "$T/st1.txt")" -eq 1 ] || fail "one pass opened the file more than once"
	pass "workers ran: the file opened $opens times (1 + one per worker), once in one pass"
else
	pass "strace is not installed: that workers ran is not checked (./quickstart installs it)"
fi
