#!/bin/sh
# tests/e2e/offcpu_delay.sh: the service's default events (data/flightrec.default:
# --off-cpu-thresh, the switches from BPF) give a thread's scheduler delay
# as the kernel counts it. The workload (tests/helpers/runq.c) wakes a
# nice-5 thread 150 times on a CPU two burners keep busy; its own
# /proc/self/task/TID/schedstat run_delay at the end is the reference. The
# per-thread table's delay column must come within 5% (and 2 ms) of it
# (the delay before its first switch-out, of its first run, is on no wait).
. "$TESTLIB"

service_run "$HELPERS/runq"
tid=$(awk '$1 == "rq-wait" {print $2}' "$T/work")
ref=$(awk '$1 == "rq-wait" {printf "%.3f", $3 / 1e6}' "$T/work")
[ -n "$tid" ] || fail "the workload printed no rq-wait line: $(cat "$T/work")"

"$FLIGHTREC" report --off-cpu --tid "$tid" -i "$F" >"$T/r.txt" 2>"$T/r.err" ||
	fail "report --off-cpu --tid $tid exited $?: $(cat "$T/r.err")"
got=$(thread_rows "$T/r.txt" | awk -v t="$tid" '$2 == t { print $10 }')   # its delay
[ -n "$got" ] || fail "no per-thread row for $tid: $(sed -n '/^# per thread/,/^# [a-z]/p' "$T/r.txt" | head -20)"
awk -v g="$got" -v r="$ref" 'BEGIN { d = g - r; if (d < 0) d = -d; exit !(r > 20 && d <= r * 0.05 + 2) }' ||
	fail "thread $tid's delay: the report says $got ms, the kernel counted $ref ms: $(sed -n '/^# per thread/,/^# [a-z]/p' "$T/r.txt" | head -8)"
pass "a nice-5 thread on a busy CPU: delay $got ms in the report, $ref ms by the kernel's schedstat"
