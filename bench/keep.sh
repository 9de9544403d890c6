#!/bin/sh
# bench/keep.sh: record --keep's targets (issue 10): a numbered read() loop at
# full speed on one CPU (read_loop COUNT 0) for SECONDS under --keep KEEP,
# system-wide, then snapshots. Checks and prints: the first file's reads of the
# loop are gap-free and span >= KEEP; the recorder's peak RSS (VmHWM) and RSS;
# trigger -> file closed (the recorder's own "total", and `flightrec snapshot`'s
# wall time); recorder CPU time (utime + stime, /proc/PID/stat) per million
# events drained (samples in the window + records it dropped by age or size).
# Usage: bench/keep.sh BUILDDIR [SECONDS=90] [KEEP=60s] [CPU=1] [OUTDIR]
# Not part of make check (it runs for SECONDS plus a dump of the window).
set -u
b=${1:?builddir}; secs=${2:-90}; keep=${3:-60s}; cpu=${4:-1}; out=${5:-bench/out/keep}
fr="$b/src/flightrec"; rl="$b/tests/helpers/read_loop"
[ -x "$fr" ] && [ -x "$rl" ] || { echo "keep: build first (make && make check-build)" >&2; exit 2; }
rm -rf "$out"; mkdir -p "$out/files"
run=$(mktemp -d); export FLIGHTREC_RUN_DIR="$run"
tck=$(getconf CLK_TCK)
cpu_s() { awk -v t="$tck" '{ printf "%.3f", ($14 + $15) / t }' /proc/$1/stat; }

"$fr" record --keep "$keep" -a -e syscalls:sys_enter_read -o "$out/files" --name kb \
	2>"$out/recorder.err" &
rec=$!
for _ in $(seq 1 100); do [ -S "$run/kb.sock" ] && break; sleep 0.1; done
[ -S "$run/kb.sock" ] || { cat "$out/recorder.err" >&2; exit 2; }
c0=$(cpu_s $rec)
taskset -c "$cpu" "$rl" 2000000000 0 0 & lp=$!
sleep "$secs"
c1=$(cpu_s $rec)
t0=$(date +%s%N)
f=$("$fr" snapshot --name kb) || { cat "$out/recorder.err" >&2; exit 1; }
t1=$(date +%s%N)
c2=$(cpu_s $rec)
sleep 1
"$fr" snapshot --name kb >/dev/null; sleep 1; "$fr" snapshot --name kb >/dev/null
kill $lp
hwm=$(awk '/^VmHWM/ {print $2}' /proc/$rec/status)
rss=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
kill -INT $rec; wait $rec
rm -rf "$run"

line=$(grep -m1 'snapshot (command) written' "$out/recorder.err")
samples=$(echo "$line" | sed -n 's/.*(\([0-9]*\) samples,.*/\1/p')
dropped=$(echo "$line" | sed -n 's/.* \([0-9]*\) records dropped by age.*/\1/p')
lost=$(echo "$line" | sed -n 's/.* \([0-9]*\) lost,.*/\1/p')
total_ms=$(echo "$line" | sed -n 's/.*total \([0-9.]*\) ms.*/\1/p')
drain_ms=$(echo "$line" | sed -n 's/.*drain \([0-9.]*\) ms.*/\1/p')
bytes=$(stat -c %s "$f")
snaps=$(grep -o 'total [0-9.]* ms' "$out/recorder.err" | awk '{printf "%s%s", s, $2; s=", "}')

AWKHEX='function hex(s,  i,c,v){v=0; s=tolower(s); sub(/^0x/,"",s); for(i=1;i<=length(s);i++){c=index("0123456789abcdef",substr(s,i,1)); if(!c) return -1; v=v*16+c-1} return v}'
set -- $("$fr" dump "$f" | awk -v p="$lp" "$AWKHEX"'
	$4 == "SAMPLE" && $6 == "syscalls:sys_enter_read" {
		split($3, a, "/"); if (a[1] != p) next
		split($9, b, "="); split($10, c, "="); buf = hex(b[2]); cnt = hex(c[2])
		if (n && !(buf == pb && cnt == pc + 1) &&
		    !(pc == 16 && cnt == 1 && (buf == pb + 1 || buf == pb - 1048575)))
			gaps++
		if (!n) first = $1
		last = $1; pb = buf; pc = cnt; n++
	}
	/^# snapshot_time_ns:/ { snap = $3 }
	END { printf "%d %d %.3f %.3f\n", n, gaps, last - first, snap / 1e9 - first }')
reads=$1 gaps=$2 span=$3 oldest=$4
events=$((samples + dropped))
awk -v r="$reads" -v g="$gaps" -v sp="$span" -v o="$oldest" -v hwm="$hwm" -v rss="$rss" \
    -v tm="$total_ms" -v dm="$drain_ms" -v wall="$(( (t1 - t0) / 1000000 ))" -v ev="$events" \
    -v c0="$c0" -v c1="$c1" -v c2="$c2" -v by="$bytes" -v lo="$lost" -v sn="$snaps" \
    -v secs="$secs" -v keep="$keep" -v sa="$samples" 'BEGIN {
	printf "keep %s, %s s of a numbered read loop on one CPU, system-wide sys_enter_read\n", keep, secs
	printf "window: %d reads of the loop, %d gaps, span %.3f s, oldest %.3f s before the snapshot\n", r, g, sp, o
	printf "file: %.1f MiB, %d samples (%.2f B/sample), %d lost\n", by / 1048576, sa, by / (sa ? sa : 1), lo
	printf "recorder RSS: peak %.1f MiB (VmHWM), %.1f MiB at the end\n", hwm / 1024, rss / 1024
	printf "trigger -> file closed: %.1f ms (recorder: drain %.1f ms), %d ms for flightrec snapshot; all snapshots: %s ms\n", tm, dm, wall, sn
	printf "recorder CPU: %.2f s over %d events drained (%.3f s per million); the snapshot %.2f s\n", c1 - c0, ev, (c1 - c0) / (ev / 1e6), c2 - c1
}' | tee "$out/result.txt"
rm -f "$out"/files/*.frec
