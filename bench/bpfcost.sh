#!/bin/bash
# bench/bpfcost.sh: what a recorder configuration costs a real server,
# counted rather than timed: PostgreSQL + pgbench -c 4 -j 2 (TPC-B, or -S)
# for S seconds (a throwaway cluster, as bench/pg.sh) under each
# configuration given, with kernel.bpf_stats_enabled=1: each of flightrec's
# BPF programs' runs per second and ns per run, and the recorder's CPU time
# (all its threads' /proc/PID/task/TID/schedstat, ns). bpf_stats's own two
# clock reads are in every run's ns, so the programs' figure is an upper
# bound; fr_resume is one load of a global while no wait's stack is
# pending, and taking its ns a run as that floor ("net": each program's ns
# less fr_resume's, times its runs) gives a lower bound (it also takes off
# the user stacks fr_resume takes, and the trampolines' own few ns). With
# --old BIN, each configuration runs under that build too, the two
# alternating within each round. --invoke-ns N: what one program invocation
# costs outside bpf_stats's count (bench/invoke.sh measures it: the
# tracepoint's call into the program and back), added to the net figure for
# every run of every program, gives the best estimate ("estimate"). Root.
#   bench/bpfcost.sh [--rounds N] [--seconds S] [--select] [--old BIN] [--invoke-ns N] "RECORD OPTIONS" ...
#   e.g. bench/bpfcost.sh --rounds 5 --old /tmp/old/flightrec "-e cpu-clock -F 99 -g --off-cpu-thresh 10ms --keep 2m -z -1"
# One line a run: "BUILD ROUND: tps T; switches/s N; BPF B% (PROG RUNS/s x NS, ...),
# net N%[; estimate E%]; recorder R%; all A-U ns per switch" (percentages of all CPUs; A-U:
# the recorder's CPU and the programs' net, or their upper bound, over
# fr_switch's runs), then the medians of each build's runs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=1 secs=10 sel="" old="" invoke=0
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--seconds) secs=$2; shift ;;
	--select) sel=-S ;;
	--old) old=$2; shift ;;
	--invoke-ns) invoke=$2; shift ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	--*) echo "bpfcost.sh: unknown option $1" >&2; exit 64 ;;
	*) break ;;
	esac
	shift
done
case "$rounds" in ''|*[!0-9]*|0) echo "bpfcost.sh: --rounds: a whole number, not '$rounds'" >&2; exit 64 ;; esac
case "$secs" in ''|*[!0-9]*|0) echo "bpfcost.sh: --seconds: a whole number, not '$secs'" >&2; exit 64 ;; esac
case "$invoke" in ''|*[!0-9]*) echo "bpfcost.sh: --invoke-ns: a whole number of ns, not '$invoke'" >&2; exit 64 ;; esac
[ $# -ge 1 ] || { echo "bpfcost.sh: no configuration (record options) given" >&2; exit 64; }
[ -z "$old" ] || [ -x "$old" ] || { echo "bpfcost.sh: --old: $old is not executable" >&2; exit 64; }
. "$top/bench/pglib.sh"
pg_find bpfcost.sh
pg_tmp acct
trap 'sysctl -qw kernel.bpf_stats_enabled=0; pg_stop' EXIT
pg_start
sysctl -qw kernel.bpf_stats_enabled=1
rec_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
builds="new"; [ -n "$old" ] && builds="new old"
: >"$tmp/runs"
for r in $(seq 1 "$rounds"); do
	# the builds alternate, the first one changing each round
	order=$builds; [ -n "$old" ] && [ $((r % 2)) = 0 ] && order="old new"
	for cfg in "$@"; do
		for b in $order; do
			bin=$top/src/flightrec; [ "$b" = old ] && bin=$old
			# shellcheck disable=SC2086
			"$bin" record -q -a $cfg -o "$tmp/rec" --name acct & p=$!; sleep 2
			bpftool prog show -j >"$tmp/b0.json"
			t0=$(rec_ns "$p") s0=$(date +%s.%N)
			# shellcheck disable=SC2086
			tps=$(pgb -c 4 -j 2 -T "$secs" $sel 2>/dev/null | awk '/^tps/ { print $3 }')
			s1=$(date +%s.%N) t1=$(rec_ns "$p")
			bpftool prog show -j >"$tmp/b1.json"
			kill -INT "$p"; wait "$p"; rm -f "$tmp"/rec/*
			python3 - "$tmp/b0.json" "$tmp/b1.json" "$s0" "$s1" "$t0" "$t1" "${tps:-0}" "$b $r" "$invoke" <<'PY' | tee -a "$tmp/runs"
import json, sys, os
ncpu = os.cpu_count()
b0 = {p['id']: p for p in json.load(open(sys.argv[1]))}
wall = float(sys.argv[4]) - float(sys.argv[3])
progs = {}
for p in json.load(open(sys.argv[2])):
    if not p.get('name', '').startswith('fr_'):
        continue
    a = b0.get(p['id'], {})
    progs[p['name']] = (p.get('run_cnt', 0) - a.get('run_cnt', 0), p.get('run_time_ns', 0) - a.get('run_time_ns', 0))
tot = sum(ns for n, ns in progs.values())
fn, fns = progs.get('fr_resume', (0, 0))
floor = fns / fn if fn else 0
net = sum(max(0.0, ns - n * floor) for n, ns in progs.values())
rec = (int(sys.argv[6]) - int(sys.argv[5])) / 1e9
sw = progs.get('fr_switch', (0, 0))[0]
pct = lambda x: x / wall / ncpu * 100
desc = ", ".join("%s %d/s x %.0f" % (k, n / wall, ns / n if n else 0) for k, (n, ns) in sorted(progs.items()))
inv = int(sys.argv[9])
est = "; estimate %.2f%%" % pct((net + inv * sum(n for n, ns in progs.values())) / 1e9) if inv else ""
print("%s: tps %s; switches/s %d; BPF %.2f%% (%s), net %.2f%%%s; recorder %.2f%%; all %.0f-%.0f ns per switch"
      % (sys.argv[8], sys.argv[7], sw / wall, pct(tot / 1e9), desc, pct(net / 1e9), est, pct(rec),
         (net + rec * 1e9) / sw if sw else 0, (tot + rec * 1e9) / sw if sw else 0))
PY
		done
	done
done
[ "$rounds" -gt 1 ] || exit 0
echo "medians over $rounds rounds (each configuration's runs together):"
for b in $builds; do
	awk -v b="$b" '$1 == b {
		for (i = 1; i <= NF; i++) {
			if ($i == "BPF") { x = $(i + 1); sub(/%/, "", x); bpf[n + 1] = x }
			if ($i == "net") { x = $(i + 1); sub(/%;?/, "", x); net[++n] = x }
			if ($i == "estimate") { x = $(i + 1); sub(/%;?/, "", x); est[n] = x; ne++ }
			if ($i == "recorder") { x = $(i + 1); sub(/%;?/, "", x); rec[n] = x }
			if ($i == "all") { split($(i + 1), y, "-"); all[n] = y[1]; up[n] = y[2] }
		}
	}
	function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END { if (n) printf "%s: BPF %.2f%% (net %.2f%%%s), recorder %.2f%%, all %.0f-%.0f ns per switch (%d runs)\n",
		b, med(bpf, n), med(net, n), ne ? sprintf("; estimate %.2f%%", med(est, n)) : "", med(rec, n),
		med(all, n), med(up, n), n }' "$tmp/runs"
done
