#!/bin/sh
# tests/e2e/offcpu_thresh.sh: the service's default events (data/flightrec.default:
# --off-cpu-thresh 10ms, the switches without stacks, the stacks of waits
# from BPF) name a long wait's stack and estimate the short waits' time
# within the error the report states. The workload (tests/helpers/
# offcpu_thresh.c) sleeps 4 x 50 ms in long_wait (oct-long) beside 4,000 x
# 100 us in short_wait (oct-short). Checks: long_wait's folded time within 5%
# of what the workload measured, every long wait with its stack; short_wait's
# estimated time within 4 sigma (sqrt(10 ms * S)) of oct-short's exact S time
# from the switches; the stated counts add up.
. "$TESTLIB"

service_run "$HELPERS/offcpu_thresh"
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
grep -q '^# stacks of waits (record --off-cpu-thresh 10.000 ms): every S and D wait of 10.000 ms or more: [4-9] with their stack, 0 whose' "$T/long.txt" ||
	fail "the stacks line: $(grep '^# stacks' "$T/long.txt")"
pass "long_wait: $us us in its stack (kernel and user), measured $long_ms ms"

"$FLIGHTREC" report --off-cpu --tid "$short_tid" -i "$F" >"$T/short.txt" ||
	fail "report --off-cpu --tid $short_tid exited $?"
"$FLIGHTREC" report --off-cpu --folded --tid "$short_tid" -i "$F" >"$T/short.folded" ||
	fail "--folded --tid exited $?"
# the thread's exact S time (the switches) and the sampled stacks' estimate
s_ms=$(awk -v t="$short_tid" '$2==t && $1 ~ /^[0-9]+$/ {print $7; exit}' "$T/short.txt")
est_ms=$(awk '/^[^;]*;\[off-cpu: [^]]*\];.*;short_wait;/ {n += $NF} END {print n / 1000}' "$T/short.folded")
line=$(grep '^# shorter waits: ' "$T/short.txt")
[ -n "$s_ms" ] && [ -n "$line" ] || fail "no row or no shorter-waits line: $(head -40 "$T/short.txt")"
sampled=$(echo "$line" | sed -n 's/.* \([0-9]*\) sampled .*/\1/p')
[ "${sampled:-0}" -gt 0 ] || fail "no short wait sampled: $line"
awk -v e="$est_ms" -v s="$s_ms" 'BEGIN {d = e - s; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * sqrt(10 * s))}' ||
	fail "short_wait estimated ${est_ms} ms, the thread's S time ${s_ms} ms (4 sigma: $(awk -v s="$s_ms" 'BEGIN{print 4*sqrt(10*s)}') ms); $line"
pass "short_wait estimated $est_ms ms from $sampled sampled stacks, exact S $s_ms ms (+-$(awk -v s="$s_ms" 'BEGIN{printf "%.1f", 1.96*sqrt(10*s)}') ms at 95%)"
