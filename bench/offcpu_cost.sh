#!/bin/bash
# bench/offcpu_cost.sh: what off-CPU recording costs per context switch and
# per system call, the two rates that decide its price on a server (pgbench
# TPC-B here: 116,000 switches and 430,000 system calls a second). Two pinned
# self-timed workloads under each configuration, rounds interleaved:
#   pipe: perf bench sched pipe on one CPU (taskset -c 1): us per round trip
#         (2 context switches, 2 wakeups, 4 system calls)
#   read: bench/workloads/read_loop on one CPU: ns per read() (no switch)
# Prints "WORKLOAD ROUND CONFIG VALUE" lines and, with --stats, bench/frstat
# -p none's paired differences. Root.
#   bench/offcpu_cost.sh [--rounds N] [--configs "none thresh ..."] [--old FLIGHTREC] [--out DIR] [--stats]
# Configurations (all system-wide, backward rings):
#   none        no recorder
#   thresh      cpu-clock 99 Hz -g --off-cpu-thresh 10ms (the service's events: switches and
#               stacks from BPF)
#   switches    -e sched:sched_switch -e sched:sched_wakeup only, no stacks (perf tracepoints:
#               flightrec's -g would give them stacks, so no cpu-clock either)
#   offcpu      cpu-clock 99 Hz -g --off-cpu (every switch with its stack)
#   perf-nostack perf record -a cpu-clock -g, sched_switch and sched_wakeup without stacks
#   perf-wakers perf record -a -g: cpu-clock 99 Hz, sched_switch and sched_waking, every one
#               with its stack (what --off-cpu records: its counterpart)
#   thresh-old  thresh, by the flightrec binary --old names (an earlier build)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/rounds.sh"
rounds=9 configs="none thresh switches offcpu perf-nostack" out="" stats=0 old=""
fr=$top/src/flightrec rl=$top/bench/workloads/read_loop
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--configs) configs=$2; shift ;;
	--out) out=$2; shift ;;
	--old) old=$2; shift ;;
	--stats) stats=1 ;;
	-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
	*) echo "offcpu_cost.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "offcpu_cost.sh: needs root" >&2; exit 77; }
[ -x "$rl" ] || { echo "offcpu_cost.sh: build bench/workloads/read_loop first (make bench-build)" >&2; exit 77; }
tmp=$(mktemp -d /tmp/frcost.XXXXXX)
rec=""
trap '[ -n "$rec" ] && kill -INT "$rec" 2>/dev/null; wait; rm -rf "$tmp"' EXIT
start() {
	local base="-q -a -e cpu-clock -F 99 -g -o $tmp --name cost"
	rm -f "$tmp"/*
	case "$1" in
	none) rec=""; return ;;
	thresh) "$fr" record $base --off-cpu-thresh 10ms & rec=$! ;;
	thresh-old) [ -x "$old" ] || { echo "offcpu_cost.sh: thresh-old needs --old FLIGHTREC" >&2; exit 64; }
		"$old" record $base --off-cpu-thresh 10ms & rec=$! ;;
	switches) "$fr" record -q -a -e sched:sched_switch -e sched:sched_wakeup \
		-o "$tmp" --name cost 2>/dev/null & rec=$! ;;
	offcpu) "$fr" record $base --off-cpu & rec=$! ;;
	perf-nostack) perf record -q -a -e cpu-clock/freq=99,call-graph=fp/ \
		-e sched:sched_switch/call-graph=no/ -e sched:sched_wakeup/call-graph=no/ \
		-o "$tmp/perf.data" >/dev/null 2>&1 & rec=$! ;;
	perf-wakers) perf record -q -a -g -e cpu-clock/freq=99/ -e sched:sched_switch \
		-e sched:sched_waking -o "$tmp/perf.data" >/dev/null 2>&1 & rec=$! ;;
	*) echo "offcpu_cost.sh: unknown configuration $1" >&2; exit 64 ;;
	esac
	sleep 1.5
}
stop() { [ -n "$rec" ] && kill -INT "$rec" 2>/dev/null && wait "$rec" 2>/dev/null; rec=""; }
results=${out:+$out/offcpu-cost-runs.txt}
[ -n "$out" ] && mkdir -p "$out" && : >"$results"
for r in $(seq 1 "$rounds"); do
	for c in $(bench_order "$r" $configs); do
		start "$c"
		p=$(taskset -c 1 perf bench sched pipe -l 100000 2>/dev/null | awk '/usecs\/op/{print $1}')
		v=$(taskset -c 1 "$rl" -n 1000000 -r 1 2>/dev/null | tail -1)
		stop
		for line in "pipe $r $c ${p:-0}" "read $r $c ${v:-0}"; do
			echo "$line"
			[ -n "$results" ] && echo "$line" >>"$results"
		done
	done
done
if [ "$stats" = 1 ] && [ -n "$results" ] && [ -x "$here/frstat" ]; then
	"$here/frstat" -p none -b none "$results"
fi
