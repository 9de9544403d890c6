#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# bench/pg_switch.sh: a real server's throughput under each recorder
# configuration, switched back and forth under ONE long pgbench run per
# workload (the same throwaway cluster, configurations and start commands as
# bench/pg.sh): pgbench -c 4 -j 2 -P 1 --progress-timestamp TPC-B or -S runs
# throughout; round by round, in a rotating order, each configuration is
# started (as a user starts it: no taskset, its defaults), given SETTLE s to
# start, then measured for BLOCK s (the mean of pgbench's per-second progress
# lines that lie wholly inside the block), then stopped, and 1 s passes
# before the next. baseline starts nothing and is timed alike. A fresh
# pgbench per run moves +-15-25% here (regimes of 10-30 s); adjacent blocks
# of one run are much closer, and the paired differences cancel the rest.
# Prints "WORKLOAD ROUND CONFIG TPS" lines (bench/frstat -p baseline reads
# them) and, with --stats, the paired differences and the recorder's mean CPU.
# Root (tracepoints, BPF).
#   bench/pg_switch.sh [--rounds N] [--block S] [--settle S] [--configs "baseline service ..."]
#                      [--workloads "select tpcb"] [--flightrec BIN] [--no-sync-commit]
#                      [--pin] [--old BIN] [--out DIR] [--stats]
# Defaults: --rounds 20 --block 8 --settle 3 --configs "baseline service perf
# perf-nostack" --workloads "select tpcb" (about 12 s a block: 16 min each).
# --no-sync-commit: the server with synchronous_commit=off (see bench/pg.sh).
# --pin: a pinned view, never the headline: the server on the last CPU,
# pgbench on the others (taskset), the recorder still where the scheduler
# puts it; the server's CPU is then the bottleneck, and what the programs
# cost there shows with far less of the scheduler's noise.
# --old BIN: the build the service-old configuration runs (the service's
# defaults, as this tree's data/flightrec.default has them).
# --out DIR writes pg-switch-runs.txt (the lines printed), pg-switch-cpu.txt
# ("WORKLOAD ROUND CONFIG CPU%": the recorder's utime+stime over the block,
# from /proc/PID/stat, in % of all CPUs; 0 for baseline), pg-switch-windows.txt
# ("WORKLOAD ROUND CONFIG START END LINES": each block's epoch seconds and how
# many progress lines it averaged) and pg-switch-progress-WORKLOAD.txt
# (pgbench's progress lines). Configurations: bench/pg.sh's (bench/pgrec.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=rounds.sh
. "$here/rounds.sh"
rounds=20 block=8 settle=3 configs="baseline service perf perf-nostack" workloads="select tpcb"
fr=$top/src/flightrec out="" stats=0 pgopts="" pin=0 fr_old=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--block) block=$2; shift ;;
	--settle) settle=$2; shift ;;
	--configs) configs=$2; shift ;;
	--workloads) workloads=$2; shift ;;
	--flightrec) fr=$2; shift ;;
	--no-sync-commit) pgopts="-c synchronous_commit=off" ;;
	--pin) pin=1 ;;
	--old) fr_old=$2; shift ;;
	--out) out=$2; shift ;;
	--stats) stats=1 ;;
	-h|--help) sed -n '2,34p' "$0"; exit 0 ;;
	*) echo "pg_switch.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
usage() { echo "pg_switch.sh: $*" >&2; exit 64; }
case "$rounds" in ''|*[!0-9]*|0) usage "--rounds: a whole number of rounds, not '$rounds'" ;; esac
# seconds: --block at least 2 (a whole progress line inside it), --settle any
secs_ok() { awk -v v="$1" -v min="$2" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 >= min) }'; }
secs_ok "$block" 2 || usage "--block: seconds, at least 2, not '$block'"
secs_ok "$settle" 0 || usage "--settle: seconds, not '$settle'"
# shellcheck source=pglib.sh
. "$here/pglib.sh"
pg_find pg_switch.sh
# shellcheck source=pgrec.sh
. "$here/pgrec.sh"
nconf=0
for c in $configs; do
	case " $rec_configs " in *" $c "*) ;; *) usage "unknown configuration $c" ;; esac
	nconf=$((nconf + 1))
done
[ "$nconf" -ge 1 ] || usage "no configurations"
case " $configs " in *" baseline "*) ;; *) echo "pg_switch.sh: no baseline: --stats has nothing to pair with" >&2 ;; esac
for w in $workloads; do
	case "$w" in tpcb|select) ;; *) usage "workload $w?" ;; esac
done
hz=$(getconf CLK_TCK) ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$pin" = 1 ]; then
	[ "$ncpu" -ge 2 ] || usage "--pin needs 2 CPUs or more"
	# shellcheck disable=SC2034  # read by pglib.sh
	pg_pin="taskset -c $((ncpu - 1))" pgb_pin="taskset -c 0-$((ncpu - 2))"
fi
# pgbench outlives the loop: each block's settle, block and gap, 5 s for the
# recorder's start and stop, and a margin; it is stopped when the loop ends
total=$(awk -v n=$((rounds * nconf)) -v s="$settle" -v b="$block" \
	'BEGIN { t = n * (s + b + 1 + 5) + 30; printf "%d\n", t == int(t) ? t : int(t) + 1 }')

pg_tmp pgsw
cleanup() {
	stop_rec
	stop_pgbench
	pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_start "$pgopts"

# rec_ticks: the recorder's utime+stime in clock ticks (0 for baseline);
# fails when it is gone (its comm may hold spaces: the fields after the last ')')
rec_ticks() {
	local st
	[ -n "$rec" ] || { echo 0; return 0; }
	st=$(cat "/proc/$rec/stat" 2>/dev/null) || return 1
	st=${st##*) }
	# shellcheck disable=SC2086
	set -- $st
	[ "$1" != Z ] || return 1
	echo $((${12} + ${13}))
}
# block_tps FILE START END: the mean tps of the progress lines whose second
# (from the line before, or 1 s before the first) lies wholly in [START, END];
# "TPS LINES", or nothing without one
block_tps() {
	awk -v s="$2" -v e="$3" '
	$1 == "progress:" && $3 == "s," && $5 == "tps," {
		ts = $2 + 0; b = have ? prev : ts - 1; prev = ts; have = 1
		if (b >= s && ts <= e) { sum += $4; n++ }
	}
	END { if (n) printf "%.1f %d\n", sum / n, n }' "$1"
}

if [ -n "$out" ]; then
	mkdir -p "$out" || exit 1
	results=$out/pg-switch-runs.txt cpus=$out/pg-switch-cpu.txt windows=$out/pg-switch-windows.txt
else
	results=$tmp/runs.txt cpus=$tmp/cpu.txt windows=$tmp/windows.txt
fi
: >"$results"; : >"$cpus"; : >"$windows"
for w in $workloads; do
	case "$w" in tpcb) a="" ;; select) a="-S" ;; esac
	prog=$tmp/progress-$w.txt
	# shellcheck disable=SC2086
	pgb -c 4 -j 2 -T "$total" -P 1 --progress-timestamp $a >"$tmp/pgbench-$w.txt" 2>"$prog" & pb=$!
	pgb_started "$prog" || exit 1
	for r in $(seq 1 "$rounds"); do
		# shellcheck disable=SC2086
		for c in $(bench_order "$r" $configs); do
			start_rec "$c"
			sleep "$settle"
			c0=$(rec_ticks) || { echo "pg_switch.sh: $c: the recorder exited within ${settle}s" >&2; exit 1; }
			t0=$(date +%s.%N)
			sleep "$block"
			t1=$(date +%s.%N)
			c1=$(rec_ticks) || { echo "pg_switch.sh: $c: the recorder exited during the block" >&2; exit 1; }
			stop_rec
			sleep 1
			kill -0 "$pb" 2>/dev/null ||
				{ echo "pg_switch.sh: pgbench $w ended before the rounds did (-T $total)" >&2; exit 1; }
			m=$(block_tps "$prog" "$t0" "$t1")
			nl=${m#* }; [ -n "$m" ] || nl=0
			echo "$w $r $c $t0 $t1 $nl" >>"$windows"
			if [ -z "$m" ]; then
				echo "pg_switch.sh: $w $r $c: no progress line inside the block, left out" >&2
				continue
			fi
			line="$w $r $c ${m% *}"
			echo "$line"
			echo "$line" >>"$results"
			awk -v w="$w" -v r="$r" -v c="$c" -v d=$((c1 - c0)) -v hz="$hz" -v n="$ncpu" \
				-v t0="$t0" -v t1="$t1" 'BEGIN { printf "%s %s %s %.2f\n", w, r, c, d / hz / (t1 - t0) / n * 100 }' >>"$cpus"
		done
	done
	stop_pgbench
	[ -n "$out" ] && cp "$prog" "$out/pg-switch-progress-$w.txt"
done
if [ "$stats" = 1 ]; then
	if [ -x "$here/frstat" ]; then
		"$here/frstat" -p baseline -b baseline "$results"
	else
		echo "pg_switch.sh: bench/frstat not built (make bench/frstat): no statistics" >&2
	fi
	echo "recorder CPU, % of all $ncpu CPUs (mean of the blocks):"
	awk '{ k = $1 " " $3; if (!(k in n)) o[++m] = k; s[k] += $4; n[k]++ }
	     END { for (i = 1; i <= m; i++) printf "%-24s %6.2f\n", o[i], s[o[i]] / n[o[i]] }' "$cpus"
fi
