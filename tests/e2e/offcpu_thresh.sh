#!/bin/sh
# tests/e2e/offcpu_thresh.sh: the service's default events (data/flightrec.default:
# --off-cpu-thresh 10ms, the switches without stacks, the stacks of waits
# from BPF) name a long wait's stack and estimate the short waits' time
# within the error the report states. The workload (tests/helpers/
# offcpu_thresh.c) sleeps 4 x 50 ms in long_wait (oct-long) beside 4,000 x
# 100 us in short_wait (oct-short). Checks: long_wait's folded time within 5%
# of what the workload measured, every long wait with its stack; short_wait's
# estimated time within 4 sigma (sqrt(scale * S), the largest scale the
# report states: 10 ms or more, as the budget of stacks has it) of
# oct-short's exact S time from the switches; the stated counts add up.
# Then a budget of 5 short-wait stacks a second per CPU (--off-cpu-thresh
# 10ms,5): fewer kept, at a larger scale, the long waits all kept, the
# estimate within the error stated at that scale. And DURATION[,RATE]'s bad
# inputs: one line each, exit 64.
. "$TESTLIB"

# DURATION[,RATE]: each bad part one line, exit 64
for bad in 0 5s 10ms,0 10ms,x 10ms,1000001 10ms, ; do
	expect_error 64 'expected DURATION\[,RATE\]' "$FLIGHTREC" record -a --off-cpu-thresh "$bad" -o "$T"
done

# long_diag: oct-long's switches, stack samples and the file's losses, for a
# failure's message
long_diag() {
	lt=$(awk '$1=="oct-long" {print $2}' "$T/work")
	"$FLIGHTREC" dump -i "$F" 2>/dev/null | awk -v t="/$lt " -v n="next=[0-9]*/$lt " -v lt="$lt" '
		/^# cpu [0-9]*:/ { print; next }
		index($0, "stack tid=") && index($0, t) { print; next }
		($0 ~ "prev=[0-9]*/" lt " " || $0 ~ n) { print }' | tail -n 40
}

# long_kept REPORT: its stacks line says that each of oct-long's 4 waits of
# 50 ms has its stack, none lost. One whose switch-in the kernel did not
# show (this VM's init threads' switches are never traced: the next
# switch-out comes first) has none to take, and is said apart: at most one.
long_kept() {
	awk '/^# stacks of waits \(record --off-cpu-thresh 10.000 ms\): every S and D wait of 10.000 ms or more: / {
		line = $0
		sub(/.* or more: /, "", line)
		split(line, a, " ")
		kept = a[1]; lost = a[5]
		noin = 0
		if (match(line, /; [0-9]+ whose switch-in was not recorded/))
			noin = substr(line, RSTART + 2, RLENGTH) + 0
		found = 1
	} END { exit !(found && lost == 0 && noin <= 1 && kept + noin >= 4 && kept + noin <= 9) }' "$1"
}

service_run "$HELPERS/offcpu_thresh"
"$FLIGHTREC" dump -i "$F" 2>/dev/null | grep -q '^# offcpu_stack_rate: 50$' ||
	fail "the file's META lacks offcpu_stack_rate 50 (the default budget): $("$FLIGHTREC" dump -i "$F" 2>/dev/null | grep '^# offcpu')"
long_ms=$(awk '$1=="oct-long" {print $3 / 1e6}' "$T/work")
short_tid=$(awk '$1=="oct-short" {print $2}' "$T/work")

"$FLIGHTREC" report --off-cpu --comm oct-long -i "$F" >"$T/long.txt" 2>"$T/long.err" ||
	fail "report --off-cpu --comm oct-long exited $?: $(cat "$T/long.err")"
"$FLIGHTREC" report --off-cpu --folded --comm oct-long -i "$F" >"$T/long.folded" ||
	fail "--folded --comm oct-long exited $?"
# the waits' lines only (the state frame second): a 99 Hz clock sample may
# land in long_wait's own wake-up path, on-CPU (distcheck: one of 10101 us)
us=$(awk '/^oct-long;\[off-cpu: [^]]*\];.*;long_wait;/ {n += $NF} END {print n + 0}' "$T/long.folded")
awk -v us="$us" -v ms="$long_ms" 'BEGIN {d = us / 1000 - ms; if (d < 0) d = -d; exit !(ms > 0 && d <= ms * 0.05)}' ||
	fail "long_wait: ${us} us folded, the workload measured ${long_ms} ms: $(cat "$T/long.folded")"
grep -q ';run;long_wait;clock_nanosleep;.*hrtimer_nanosleep' "$T/long.folded" ||
	fail "long_wait's stack lacks its caller run and the kernel's nanosleep: $(cat "$T/long.folded")"
long_kept "$T/long.txt" || fail "the stacks line: $(grep '^# stacks' "$T/long.txt"); oct-long in the file: $(long_diag)"
pass "long_wait: $us us in its stack (kernel and user), measured $long_ms ms"

# short_est LABEL: oct-short's exact S time (the switches) against its
# sampled stacks' estimate in $F, within 4 sigma at the largest scale the
# report states; sets sampled, scale, s_ms, est_ms
short_est() {
	short_tid=$(awk '$1=="oct-short" {print $2}' "$T/work")
	"$FLIGHTREC" report --off-cpu --tid "$short_tid" -i "$F" >"$T/$1.txt" ||
		fail "$1: report --off-cpu --tid $short_tid exited $?"
	"$FLIGHTREC" report --off-cpu --folded --tid "$short_tid" -i "$F" >"$T/$1.folded" ||
		fail "$1: --folded --tid exited $?"
	s_ms=$(awk -v t="$short_tid" '$2==t && $1 ~ /^[0-9]+$/ {print $7; exit}' "$T/$1.txt")
	est_ms=$(awk '/^[^;]*;\[off-cpu: [^]]*\];.*;short_wait;/ {n += $NF} END {print n / 1000}' "$T/$1.folded")
	line=$(grep '^# shorter waits: ' "$T/$1.txt")
	[ -n "$s_ms" ] && [ -n "$line" ] || fail "$1: no row or no shorter-waits line: $(head -40 "$T/$1.txt")"
	sampled=$(echo "$line" | sed -n 's/.* \([0-9]*\) sampled .*/\1/p')
	scale=$(echo "$line" | sed -n 's/.*+-1\.96\*sqrt(\([0-9.]*\) ms \* S).*/\1/p')
	[ "${sampled:-0}" -gt 0 ] || fail "$1: no short wait sampled: $line"
	awk -v c="$scale" 'BEGIN {exit !(c >= 10 && c <= 4000)}' || fail "$1: the stated scale '$scale': $line"
	awk -v e="$est_ms" -v s="$s_ms" -v c="$scale" 'BEGIN {d = e - s; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * sqrt(c * s))}' ||
		fail "$1: short_wait estimated ${est_ms} ms, the thread's S time ${s_ms} ms (4 sigma: $(awk -v s="$s_ms" -v c="$scale" 'BEGIN{print 4*sqrt(c*s)}') ms); $line"
}

short_est short
pass "short_wait estimated $est_ms ms from $sampled sampled stacks, exact S $s_ms ms (+-$(awk -v s="$s_ms" -v c="$scale" 'BEGIN{printf "%.1f", 1.96*sqrt(c*s)}') ms at 95%, scale up to $scale ms)"

# a budget of 5 stacks a second per CPU (--off-cpu-thresh 10ms,5): oct-short
# alone would give ~100 a second at 10 ms; fewer are kept, at a larger
# scale, every long wait still with its stack, and the estimate within the
# error stated at that scale
SERVICE_EXTRA="--off-cpu-thresh 10ms,5" service_run "$HELPERS/offcpu_thresh"
"$FLIGHTREC" dump -i "$F" 2>/dev/null | grep -q '^# offcpu_stack_rate: 5$' ||
	fail "the budgeted file's META lacks offcpu_stack_rate 5"
"$FLIGHTREC" report --off-cpu --comm oct-long -i "$F" >"$T/bl.txt" ||
	fail "report --off-cpu --comm oct-long (budget 5) exited $?"
long_kept "$T/bl.txt" ||
	fail "budget 5: not every long wait has its stack: $(grep '^# stacks' "$T/bl.txt"); oct-long in the file: $(long_diag)"
short_est budget
# ~5 a second on each of the CPUs the thread ran on, and the ramp before the scale rose
[ "$sampled" -le 30 ] || fail "budget 5: $sampled short waits sampled: $line"
awk -v c="$scale" 'BEGIN {exit !(c >= 40)}' || fail "budget 5: the scale stayed at $scale ms: $line"
pass "budget 5: $sampled sampled, scale up to $scale ms, short_wait estimated $est_ms ms, exact S $s_ms ms"
