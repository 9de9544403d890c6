#!/bin/bash
# bench/latency_cost.sh: what record --trigger-latency costs where it is
# dearest: a pinned read() loop (bench/workloads/read_loop on CPU 1, ns per
# read) under `--trigger-latency syscall:read,10ms` (no read that slow: every
# BEGIN and END read and matched, none triggers), against the same
# recorder without the trigger, --forward recording of the same two events,
# and perf recording them. Rounds interleaved (the order rotates); prints
# "read ROUND CONFIG VALUE" and the recorder's CPU seconds as "cpu ROUND
# CONFIG VALUE", then bench/frstat -p none's paired differences. Root.
#   bench/latency_cost.sh [--rounds N] [--ops N] [--out DIR] [--configs "A B ..."]
# Configurations (system-wide):
#   none      no recorder
#   floor     record -a -e cpu-clock -F 99 (backward): the latency recorder without its pair
#   latency   the same with --trigger-latency syscall:read,10ms
#   forward   record -a --forward -e syscalls:sys_enter_read -e syscalls:sys_exit_read
#   perf      perf record -a -e syscalls:sys_enter_read -e syscalls:sys_exit_read
# and, not run unless --configs names them (the trigger in forward mode):
#   fwdfloor  record -a --forward -e cpu-clock -F 99
#   fwdlatency the same with --trigger-latency syscall:read,10ms
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/rounds.sh"
rounds=9 ops=2000000 out="" configs="none floor latency forward perf"
fr=$top/src/flightrec rl=$top/bench/workloads/read_loop
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--ops) ops=$2; shift ;;
	--out) out=$2; shift ;;
	--configs) configs=$2; shift ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "latency_cost.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "latency_cost.sh: needs root" >&2; exit 77; }
[ -x "$rl" ] || { echo "latency_cost.sh: build bench/workloads/read_loop first (make bench-build)" >&2; exit 77; }
tmp=$(mktemp -d /tmp/frlat.XXXXXX)
rec=""
trap '[ -n "$rec" ] && kill -INT "$rec" 2>/dev/null; wait; rm -rf "$tmp"' EXIT
export FLIGHTREC_RUN_DIR=$tmp/run
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"
pair="-e syscalls:sys_enter_read -e syscalls:sys_exit_read"
start() {
	rm -f "$tmp"/*.frec "$tmp"/perf.data
	case "$1" in
	none) rec=""; return ;;
	floor) "$fr" record -q -a -e cpu-clock -F 99 -o "$tmp" --name lat --no-final-snapshot & rec=$! ;;
	latency) "$fr" record -q -a -e cpu-clock -F 99 --trigger-latency syscall:read,10ms -o "$tmp" \
		--name lat --no-final-snapshot & rec=$! ;;
	forward) "$fr" record -q -a --forward $pair -o "$tmp" --name lat & rec=$! ;;
	fwdfloor) "$fr" record -q -a --forward -e cpu-clock -F 99 -o "$tmp" --name lat & rec=$! ;;
	fwdlatency) "$fr" record -q -a --forward -e cpu-clock -F 99 --trigger-latency \
		syscall:read,10ms -o "$tmp" --name lat & rec=$! ;;
	perf) perf record -q -a $pair -o "$tmp/perf.data" >/dev/null 2>&1 & rec=$! ;;
	*) echo "latency_cost.sh: unknown configuration $1" >&2; exit 64 ;;
	esac
	sleep 1.5
}
cpu_s() {   # the recorder's CPU seconds so far (children: none)
	[ -n "$rec" ] && awk -v t="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / t}' "/proc/$rec/stat" 2>/dev/null || echo 0
}
stop() { [ -n "$rec" ] && kill -INT "$rec" 2>/dev/null && wait "$rec" 2>/dev/null; rec=""; }
results=${out:+$out/latency-cost-runs.txt}
[ -n "$out" ] && mkdir -p "$out" && : >"$results"
for r in $(seq 1 "$rounds"); do
	for c in $(bench_order "$r" $configs); do
		start "$c"
		c0=$(cpu_s)
		v=$(taskset -c 1 "$rl" -n "$ops" -r 1 2>/dev/null | tail -1)
		c1=$(cpu_s)
		stop
		for line in "read $r $c ${v:-0}" "cpu $r $c $(awk -v a="$c0" -v b="$c1" 'BEGIN {print b - a}')"; do
			echo "$line"
			[ -n "$results" ] && echo "$line" >>"$results"
		done
	done
done
if [ -n "$results" ] && [ -x "$here/frstat" ]; then
	grep '^read ' "$results" | "$here/frstat" -p none -b none
	grep '^read ' "$results" | awk '{print $3, $4}' | "$here/frstat" -b none
	grep '^cpu ' "$results" | awk '{print $3, $4}' | "$here/frstat" -b floor
fi
