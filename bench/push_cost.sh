#!/bin/bash
# bench/push_cost.sh: what --push costs a snapshot. Three system-wide --keep
# recorders side by side, the service's events (cpu-clock 99 Hz -g,
# --off-cpu-thresh 10ms), a CPU burner and a read loop running: one without
# --push, one pushing to a loopback OTLP receiver (tests/helpers/otlp_sink.py)
# that answers at once, one to a receiver that answers in 5 s. Each round
# snapshots each recorder once, in rotating order, and prints
# "KEY ROUND CONFIG VALUE" lines:
#   latency   ms until `flightrec snapshot` returned (what a user waits)
#   deliver   push: ms from the snapshot's return to the receiver's answer
#   cpu       push: the pusher's CPU ms for that snapshot (convert + POST)
#   bytes     push: the request's size; nopush: the snapshot file's size
# then bench/frstat -p nopush's paired differences of the latencies. Root.
#   bench/push_cost.sh [--rounds N] [--out DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
rounds=9 out=""
fr=$top/src/flightrec sink=$top/tests/helpers/otlp_sink.py
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	*) echo "push_cost.sh: unknown option $1" >&2; exit 64 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "push_cost.sh: needs root" >&2; exit 77; }
tmp=$(mktemp -d /tmp/frpush.XXXXXX)
pids=""
# TERM: background jobs of a script ignore SIGINT (the receivers would stay)
trap 'kill -TERM $pids 2>/dev/null; wait; rm -rf "$tmp"' EXIT
export FLIGHTREC_RUN_DIR=$tmp/run
mkdir -p "$tmp/run" "$tmp/fast" "$tmp/slow" "$tmp/o-nopush" "$tmp/o-push" "$tmp/o-slow"
chmod 700 "$tmp/run"
python3 "$sink" "$tmp/fast" & pids="$pids $!"
python3 "$sink" "$tmp/slow" --delay 5 & pids="$pids $!"
for _ in $(seq 1 100); do [ -s "$tmp/fast/port" ] && [ -s "$tmp/slow/port" ] && break; sleep 0.05; done
ev="-q -a -e cpu-clock -F 99 -g --off-cpu-thresh 10ms --keep 30s"
"$fr" record $ev --name nopush -o "$tmp/o-nopush" & pids="$pids $!"
"$fr" record $ev --name push -o "$tmp/o-push" \
	--push "http://127.0.0.1:$(cat "$tmp/fast/port")/v1development/profiles" & pa=$!; pids="$pids $pa"
"$fr" record $ev --name slow -o "$tmp/o-slow" \
	--push "http://127.0.0.1:$(cat "$tmp/slow/port")/v1development/profiles" & pids="$pids $!"
(while :; do "$top/tests/helpers/cpuburn_fp" 1 >/dev/null; done) & pids="$pids $!"
(while :; do "$top/tests/helpers/read_loop" 200000 >/dev/null 2>&1; sleep 0.2; done) & pids="$pids $!"
for n in nopush push slow; do
	for _ in $(seq 1 100); do [ -S "$tmp/run/$n.sock" ] && break; sleep 0.1; done
done
sleep 3
pusher=$(pgrep -P "$pa" | head -1)
ms() { echo $(($(date +%s%N) / 1000000)); }
cpu_ms() { awk '{print ($14 + $15) * 1000 / '"$(getconf CLK_TCK)"'}' "/proc/$1/stat"; }
results=${out:+$out/push-cost-runs.txt}
[ -n "$out" ] && mkdir -p "$out" && : >"$results"
say() { echo "$*"; [ -n "$results" ] && echo "$*" >>"$results"; }
configs="nopush push slow"
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2; do
		c=$(echo $configs | cut -d' ' -f$(( (i + r - 1) % 3 + 1 )))
		before=$(awk '$2 == 200' "$tmp/fast/log" 2>/dev/null | wc -l)
		c0=$(cpu_ms "$pusher")
		t=$(ms); f=$("$fr" snapshot --name "$c") || { echo "snapshot $c failed" >&2; exit 1; }
		t1=$(ms)
		say "latency $r $c $((t1 - t))"
		case $c in
		nopush) say "bytes $r $c $(stat -c %s "$f")" ;;
		push)
			for _ in $(seq 1 600); do
				[ "$(awk '$2 == 200' "$tmp/fast/log" | wc -l)" -gt "$before" ] && break; sleep 0.01
			done
			say "deliver $r $c $(($(ms) - t1))"
			say "cpu $r $c $(awk -v a="$c0" -v b="$(cpu_ms "$pusher")" 'BEGIN {print b - a}')"
			say "bytes $r $c $(tail -1 "$tmp/fast/log" | awk '{print $4}')" ;;
		esac
	done
done
if [ -n "$results" ] && [ -x "$here/frstat" ]; then
	grep '^latency ' "$results" | "$here/frstat" -p nopush -b nopush
	grep -v '^latency ' "$results" | awk '{print $1, $3, $4}' | "$here/frstat"
fi
