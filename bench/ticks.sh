#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# bench/ticks.sh: what a timer interrupt costs this machine, and how many the
# service adds.
# (1) A CPU-bound loop (bench/workloads/cpu_tree, taskset on the last CPU)
# timed under a CPU clock sampler of HZ a CPU (`flightrec record -a -e
# cpu-clock -F HZ --keep 10s`, no stacks) for each HZ of --hz and none,
# rounds in a rotating order: "loop ROUND CONFIG NS_PER_ITERATION" lines and that
# CPU's timer interrupts a second ("ROUND CONFIG irq/s N", /proc/interrupts
# LOC), then the paired differences from none (bench/frstat -p) and what one
# interrupt costs: the difference over the interrupts added.
# (2) Each CPU's timer interrupts a second on the machine as it is (run it
# idle), 5 s each: nothing, the service's defaults (data/flightrec.default,
# started by bench/pgrec.sh as a user starts it), and --old BIN's.
# Root.
#   bench/ticks.sh [--rounds N] [--hz "1000 4000"] [--old BIN]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=rounds.sh
. "$here/rounds.sh"
rounds=9 hzs="1000 4000" fr_old=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--hz) hzs=$2; shift ;;
	--old) fr_old=$2; shift ;;
	-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
	*) echo "ticks.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
case "$rounds" in ''|*[!0-9]*|0) echo "ticks.sh: --rounds: a whole number, not '$rounds'" >&2; exit 64 ;; esac
for h in $hzs; do
	case "$h" in ''|*[!0-9]*|0) echo "ticks.sh: --hz: whole numbers, not '$h'" >&2; exit 64 ;; esac
done
fr=$top/src/flightrec wl=$top/bench/workloads/cpu_tree
for b in "$fr" "$wl" "$top/bench/frstat"; do
	[ -x "$b" ] || { echo "ticks.sh: $b not built (make; make bench/workloads/cpu_tree bench/frstat)" >&2; exit 1; }
done
ncpu=$(getconf _NPROCESSORS_ONLN) last=$(( $(getconf _NPROCESSORS_ONLN) - 1 ))
tmp=$(mktemp -d /tmp/ticks.XXXXXX) || exit 1
mkdir -p "$tmp/rec"
# shellcheck source=pgrec.sh
. "$here/pgrec.sh"
trap 'stop_rec; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# loc CPU: that CPU's local timer interrupts so far; loc all: every CPU's
loc() {
	awk -v c="$1" '$1 == "LOC:" { if (c == "all") { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }
	                             else print $(c + 2) }' /proc/interrupts
}

runs=$tmp/runs.txt
: >"$runs"
configs="none"
for h in $hzs; do configs="$configs hz$h"; done
echo "# (1) bench/workloads/cpu_tree on CPU $last, ns per iteration, under a cpu-clock sampler of HZ a CPU"
for r in $(seq 1 "$rounds"); do
	# shellcheck disable=SC2086
	for c in $(bench_order "$r" $configs); do
		rec=""
		if [ "$c" != none ]; then
			"$fr" record -q -a -e cpu-clock -F "${c#hz}" --keep 10s -o "$tmp/rec" --name ticks & rec=$!
			sleep 1
		fi
		a=$(loc "$last") t0=$(date +%s.%N)
		ns=$(taskset -c "$last" "$wl" -n 4000000 -r 1)
		b=$(loc "$last") t1=$(date +%s.%N)
		stop_rec
		rm -rf "$tmp/rec"/*
		echo "loop $r $c $ns" | tee -a "$runs"
		awk -v r="$r" -v c="$c" -v n=$((b - a)) -v t0="$t0" -v t1="$t1" \
			'BEGIN { printf "%s %s irq/s %.0f\n", r, c, n / (t1 - t0) }' | tee -a "$tmp/irq.txt"
	done
done
"$top/bench/frstat" -p none -b none "$runs"
echo "# one interrupt (the added ns per iteration over the added interrupts, medians):"
awk 'FNR == NR { if ($3 == "irq/s") irq[$2] = irq[$2] " " $4; next }
     { ns[$3] = ns[$3] " " $4 }
     function med(s,   a, n, i, j, t) { n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     END { n0 = med(ns["none"]); i0 = med(irq["none"])
	for (c in ns) if (c != "none") {
		di = med(irq[c]) - i0; f = (med(ns[c]) - n0) / n0
		printf "%s: %+.2f%% of the loop at %.0f interrupts a second more: %.1f us each\n", c, 100 * f, di, (di > 0 ? f / di * 1e6 : 0) } }' \
	"$tmp/irq.txt" "$runs"

echo "# (2) timer interrupts a second, all $ncpu CPUs, the machine as it is, 5 s each"
configs="baseline service"
[ -n "$fr_old" ] && configs="$configs service-old"
for r in 1 2 3; do
	for c in $configs; do
		start_rec "$c"
		sleep 2
		a=$(loc all)
		sleep 5
		b=$(loc all)
		stop_rec
		echo "$r $c $(( (b - a) / 5 )) timer interrupts/s"
	done
done
