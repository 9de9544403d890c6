#!/bin/sh
# bench/soak.sh: the recorder left running as it runs in production, under
# churn: system-wide, -g, a fork storm (short-lived processes doing reads),
# a snapshot every 10 s. Once a minute: the recorder's RSS (VmRSS), its open
# fds, its threads, the files written, and the last snapshot's latency.
# Usage: bench/soak.sh BUILDDIR MINUTES OUTDIR   (make soak SOAK_MINUTES=30)
# Prints one line per minute and writes OUTDIR/soak.csv; exits 1 when RSS or
# fds grew after the warm-up (first 3 minutes) by more than 10% / 8 fds.
set -u
b=${1:?builddir}; minutes=${2:-30}; out=${3:-bench/out/soak}
fr="$b/src/flightrec"; rl="$b/tests/helpers/read_loop"
[ -x "$fr" ] && [ -x "$rl" ] || { echo "soak: build first (make && make check-build)" >&2; exit 2; }
mkdir -p "$out/files"
rm -f "$out"/files/*.frec   # the files column counts this run's (a rerun would add to it)
run=$(mktemp -d); export FLIGHTREC_RUN_DIR="$run"
"$fr" record -a -g -e cpu-clock -F 999 --backward -o "$out/files" --max-files 20 \
	--name soak -q 2>"$out/recorder.err" &
rec=$!
sleep 2
kill -0 $rec 2>/dev/null || { cat "$out/recorder.err" >&2; exit 2; }
( while kill -0 $rec 2>/dev/null; do "$rl" 200 & "$rl" 200 & wait; done ) 2>/dev/null &
storm=$!
( while kill -0 $rec 2>/dev/null; do sleep 10; "$fr" snapshot --name soak >/dev/null 2>&1; done ) &
snaps=$!
echo "minute,rss_kib,fds,threads,files,forks" >"$out/soak.csv"
f0=$(awk '/^processes/ {print $2}' /proc/stat)
m=0
while [ $m -lt "$minutes" ]; do
	sleep 60
	m=$((m + 1))
	kill -0 $rec 2>/dev/null || { echo "soak: the recorder died at minute $m" >&2; break; }
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
	fds=$(ls /proc/$rec/fd | wc -l)
	thr=$(ls /proc/$rec/task | wc -l)
	files=$(ls "$out/files" | wc -l)
	forks=$(( $(awk '/^processes/ {print $2}' /proc/stat) - f0 ))
	echo "$m,$rss,$fds,$thr,$files,$forks" >>"$out/soak.csv"
	echo "soak: minute $m: rss ${rss} KiB, $fds fds, $thr threads, $files files, $forks forks"
done
kill $snaps $storm 2>/dev/null
kill -INT $rec; wait $rec
rm -rf "$run"
awk -F, 'NR==1 {next} $1==3 {r0=$2; f0=$3} {r=$2; f=$3}
	END { if (!r0) exit 0;
	      printf "soak: after warm-up rss %d -> %d KiB, fds %d -> %d\n", r0, r, f0, f;
	      exit (r > r0 * 1.10 || f > f0 + 8) }' "$out/soak.csv"
