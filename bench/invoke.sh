#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# bench/invoke.sh: what the off-CPU programs cost a context switch outside
# what bpf_stats counts (their invocation: the tracepoint's call, the
# program's entry and exit), and all told on a hot cache. A round trip of
# `perf bench sched pipe` on one CPU (taskset -c 1: two processes, two
# switches and two returns to user space a round trip) under each
# configuration, rounds in a rotating order, bpf_stats off:
#   none     nothing attached
#   empty    bench/bpf/empty.bpf.c: programs that return at once, on
#            sched_switch and rseq_update (the hooks of waits.bpf.c)
#   empty-switch, empty-resume  the one on sched_switch, or on rseq_update, only
#   service  flightrec record -a with the service's defaults
#            (data/flightrec.default), started as a user starts it
#   old      the same with --old BIN (bench/pgrec.sh's service and
#            service-old start both)
# Prints "ROUND CONFIG NS_PER_SWITCH" lines, then each configuration's
# median and its paired difference from none (median, and mean +- Student's
# t 95% by bench/frstat -p); then one counting pass with bpf_stats on: the
# empty programs' runs a round trip, so that the empty configuration's
# difference per run is the invocation's cost. Root; builds
# bench/bpf/empty.bpf.o and bench/bpf/empty with clang and libbpf.
#   bench/invoke.sh [--rounds N] [--loops N] [--old BIN]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=rounds.sh
. "$here/rounds.sh"
rounds=9 loops=200000 fr_old=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--loops) loops=$2; shift ;;
	--old) fr_old=$2; shift ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "invoke.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
case "$rounds" in ''|*[!0-9]*|0) echo "invoke.sh: --rounds: a whole number, not '$rounds'" >&2; exit 64 ;; esac
case "$loops" in ''|*[!0-9]*|0) echo "invoke.sh: --loops: a whole number, not '$loops'" >&2; exit 64 ;; esac
[ -z "$fr_old" ] || [ -x "$fr_old" ] || { echo "invoke.sh: --old: $fr_old is not executable" >&2; exit 64; }
fr=$top/src/flightrec
[ -x "$fr" ] || { echo "invoke.sh: build flightrec first ($fr)" >&2; exit 1; }
[ -x "$top/bench/frstat" ] || make -C "$top" bench/frstat >/dev/null || exit 1
tmp=$(mktemp -d /tmp/invoke.XXXXXX)
mkdir -p "$tmp/rec"
# shellcheck source=pgrec.sh
. "$here/pgrec.sh"
cleanup() { stop_rec; sysctl -qw kernel.bpf_stats_enabled=0; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
build_empty

# start CONFIG: its programs attached (pgrec.sh's configurations; old is its
# service-old); stop_rec stops them
start() {
	case "$1" in
	none) return 0 ;;
	old) start_rec service-old ;;
	*) start_rec "$1" ;;
	esac
	sleep 1.5
}
# ns per switch of a round trip on CPU 1 (two switches a round trip)
pingpong() {
	taskset -c 1 perf bench sched pipe -l "$loops" 2>/dev/null |
		awk '/usecs\/op/ { printf "%.1f\n", $1 * 1000 / 2 }'
}
configs="none empty empty-switch empty-resume service"; [ -n "$fr_old" ] && configs="$configs old"
: >"$tmp/runs"
for r in $(seq 1 "$rounds"); do
	# shellcheck disable=SC2086
	for c in $(bench_order "$r" $configs); do
		start "$c"
		ns=$(pingpong)
		stop_rec
		echo "$r $c $ns" | tee -a "$tmp/runs"
	done
done
echo "medians (ns per switch), and paired differences from none (median, mean +- 95%):"
for c in $configs; do
	awk -v c="$c" '$2 == c { print $3 }' "$tmp/runs" | sort -n |
		awk -v c="$c" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s: %.1f ns per switch (%d runs)\n", c, m, NR }'
done
# the paired differences: "ROUND CONFIG VALUE" lines, as frstat -p reads them
awk '{ print "pingpong", $1, $2, $3 }' "$tmp/runs" | "$top/bench/frstat" -p none -b none
# the empty programs' runs a round trip (bpf_stats on for this pass only)
start empty
sysctl -qw kernel.bpf_stats_enabled=1
b0=$(bpftool prog show -j)
taskset -c 1 perf bench sched pipe -l "$loops" >/dev/null 2>&1
b1=$(bpftool prog show -j)
sysctl -qw kernel.bpf_stats_enabled=0
stop_rec
python3 - "$loops" "$b0" "$b1" <<'PY'
import json, sys
loops = int(sys.argv[1])
a = {p["id"]: p for p in json.loads(sys.argv[2])}
for p in json.loads(sys.argv[3]):
    if p.get("name", "").startswith("fr_empty") and p["id"] in a:
        runs = p.get("run_cnt", 0) - a[p["id"]].get("run_cnt", 0)
        print("%s: %.2f runs a round trip" % (p["name"], runs / loops))
PY
