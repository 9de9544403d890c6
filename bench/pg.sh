#!/bin/bash
# bench/pg.sh: a real server's throughput under each recorder configuration:
# PostgreSQL from Debian's packages in a throwaway cluster (initdb in a
# temporary directory, a private port and socket directory, pgbench -i -s 10),
# pgbench -c 4 -j 2 TPC-B and -S, each configuration started as a user starts
# it (no taskset, its defaults), rounds interleaved in a rotating order.
# Prints "WORKLOAD ROUND CONFIG TPS" lines (bench/frstat -p baseline reads
# them) and, with --stats, the paired differences. Root (tracepoints, BPF).
#   bench/pg.sh [--rounds N] [--seconds S] [--configs "baseline service ..."]
#               [--workloads "tpcb select"] [--flightrec BIN] [--no-sync-commit] [--out DIR] [--stats]
# --no-sync-commit runs the server with synchronous_commit=off: TPC-B then
# waits for no fsync of a virtual disk (whose speed moves it +-15% run to run
# here) and spends the machine's CPUs, so what a recorder takes shows in it.
# Configurations (see the table in doc/benchmarks.md, "A real server"):
#   baseline        no recorder
#   service         the service's defaults (data/flightrec.default, as the unit runs them)
#   offcpu          record -a -g -F 99 --off-cpu (every switch with its stack, backward)
#   perf            perf record -a -g -e cpu-clock/freq=99/ -e sched:sched_switch (every
#                   switch with its stack: the same events as the service, as perf has them)
#   perf-nostack    perf record -a -e cpu-clock/freq=99,call-graph=fp/
#                   -e sched:sched_switch/call-graph=no/ -e sched:sched_wakeup (the
#                   service's switches and wakeups without stacks, no stacks of waits)
#   service-bw      the service's events in a backward window (-m 16M): no reading while recording
#   bw-nostack      the switches and wakeups without stacks, backward (-m 16M), no BPF
#   keep-nostack    record -a -e cpu-clock -F 99 -g -e sched:sched_switch -e sched:sched_wakeup
#                   --keep 60s, no -g on the switches (the service without its BPF programs)
#   service-cpu     the service's defaults less --off-cpu-thresh: its sampler and window alone
#   empty           programs that return at once on sched_switch and rseq_update
#                   (bench/bpf/empty.bpf.c): what invoking the service's hooks costs
#   empty-switch    the one on sched_switch only; empty-resume: on rseq_update only
#   cpu-empty       service-cpu and empty together: the service less its programs' bodies
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/rounds.sh"
rounds=7 secs=10 configs="baseline service offcpu perf perf-nostack" workloads="tpcb select"
fr=$top/src/flightrec out="" stats=0 pgopts=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--seconds) secs=$2; shift ;;
	--configs) configs=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	--flightrec) fr=$2; shift ;;
	--no-sync-commit) pgopts="-c synchronous_commit=off" ;;
	--out) out=$2; shift ;;
	--stats) stats=1 ;;
	-h|--help) sed -n '2,28p' "$0"; exit 0 ;;
	*) echo "pg.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
. "$here/pglib.sh"
pg_find pg.sh
. "$here/pgrec.sh"

pg_tmp pg
cleanup() {
	[ -n "${rec:-}" ] && kill -INT "$rec" 2>/dev/null && wait "$rec" 2>/dev/null
	pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_start "$pgopts"

results=${out:+$out/pg-runs.txt}
[ -n "$out" ] && mkdir -p "$out" && : >"$results"
for r in $(seq 1 "$rounds"); do
	for c in $(bench_order "$r" $configs); do
		start_rec "$c"
		[ -n "$rec" ] && sleep 2   # started, rings mapped, BPF attached
		for w in $workloads; do
			case "$w" in tpcb) a="" ;; select) a="-S" ;; *) echo "pg.sh: workload $w?" >&2; exit 64 ;; esac
			tps=$(pgb -c 4 -j 2 -T "$secs" $a 2>/dev/null | awk '/^tps = /{print $3; exit}')
			line="$w $r $c ${tps:-0}"
			echo "$line"
			[ -n "$results" ] && echo "$line" >>"$results"
		done
		stop_rec
	done
done
if [ "$stats" = 1 ] && [ -n "$results" ] && [ -x "$here/frstat" ]; then
	"$here/frstat" -p baseline -b baseline "$results"
fi
