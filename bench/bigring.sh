#!/bin/sh
# bench/bigring.sh: what a snapshot of big backward rings costs (issue 10,
# item 6). For each -m size: record syscalls:sys_enter_read on every CPU,
# fill the rings with 1.25 rings' worth of reads on every CPU (all wrap),
# keep a read(2) storm running on every CPU through the trigger (unless
# --idle), trigger `flightrec snapshot`, and take the
# trigger -> file time (the client's round trip: it returns once the file is
# renamed into place), the recorder's own copy/total ms, the recorder's CPU
# time during the snapshot (utime + stime, all threads: steadier than wall
# time on a loaded machine), and the recorder's peak RSS (VmHWM; also minus
# the sample rings, nproc x SIZE, though perf's ring pages are not counted
# in RSS here). Each run is a fresh recorder. Prints one line per run and the medians. Not in make check.
# Run as root from a built tree: bench/bigring.sh [--runs N] [--fill READS_PER_CPU] [--idle] [SIZE...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
FLIGHTREC=${FLIGHTREC:-$top/src/flightrec}
READ_LOOP=$top/tests/helpers/read_loop
runs=7 fill="" idle=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--fill) fill=$2; shift 2 ;;   # reads per CPU
	--idle) idle=1; shift ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	-*) echo "bigring.sh: $1: unknown option" >&2; exit 64 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- 64M 256M
[ -x "$FLIGHTREC" ] && [ -x "$READ_LOOP" ] || { echo "bigring.sh: build first (make)" >&2; exit 1; }
T=$(mktemp -d /tmp/bigring.XXXXXX)
chmod 700 "$T"
export FLIGHTREC_RUN_DIR="$T/run"
mkdir -m 700 "$FLIGHTREC_RUN_DIR"
ncpu=$(nproc)
BG=""
cleanup() {
	for p in $BG; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

bytes() {   # 64M -> bytes
	case $1 in
	*G) echo $(( ${1%G} << 30 )) ;;
	*M) echo $(( ${1%M} << 20 )) ;;
	*K) echo $(( ${1%K} << 10 )) ;;
	*) echo "$1" ;;
	esac
}
hz=$(getconf CLK_TCK)
# utime + stime of a process, in clock ticks (its threads included)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

storm_start() {
	STORM=""
	for c in $(seq 0 $((ncpu - 1))); do
		taskset -c "$c" "$READ_LOOP" 2000000000 >/dev/null 2>&1 &
		STORM="$STORM $!"
	done
	BG="$BG $STORM"
}
storm_stop() {
	for p in $STORM; do kill "$p" 2>/dev/null; done
	for p in $STORM; do wait "$p" 2>/dev/null; done
	STORM=""
}

one_run() {   # SIZE RUN -> one line "ms hwm_mib copy_ms total_ms mib_written"
	size=$1 run=$2 name=bigring$run
	out=$T/out-$size-$run
	mkdir -p "$out"
	"$FLIGHTREC" record --name "$name" -a -e syscalls:sys_enter_read --backward -m "$size" \
		-o "$out" --no-final-snapshot 2>"$T/rec.err" &
	rec=$!
	BG="$BG $rec"
	for _ in $(seq 1 100); do
		[ -S "$FLIGHTREC_RUN_DIR/$name.sock" ] && break
		sleep 0.1
	done
	[ -S "$FLIGHTREC_RUN_DIR/$name.sock" ] || { echo "recorder did not start: $(cat "$T/rec.err")" >&2; exit 1; }
	# fill: 1.25 rings' worth of reads (records of 72 bytes) on every CPU, so
	# every ring has wrapped, whatever the machine's speed
	n=${fill:-$(( $(bytes "$size") / 72 * 5 / 4 ))}
	FILLP=""
	for c in $(seq 0 $((ncpu - 1))); do
		taskset -c "$c" "$READ_LOOP" "$n" >/dev/null 2>&1 &
		FILLP="$FILLP $!"
	done
	BG="$BG $FILLP"
	for p in $FILLP; do wait "$p"; done
	if [ "$idle" -eq 0 ]; then
		storm_start
		sleep 0.5
	fi
	c0=$(cpu_ticks "$rec")
	t0=$(date +%s%N)
	f=$("$FLIGHTREC" snapshot --name "$name") || { echo "snapshot failed" >&2; exit 1; }
	t1=$(date +%s%N)
	c1=$(cpu_ticks "$rec")
	storm_stop
	hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$rec/status")
	kill -INT "$rec"
	wait "$rec" 2>/dev/null
	ms=$(( (t1 - t0) / 1000000 ))
	ring_kib=$(( $(bytes "$size") / 1024 * ncpu ))
	st=$(sed -n 's/.*copy \([0-9.]*\) ms, total \([0-9.]*\) ms.*/\1 \2/p' "$T/rec.err" | head -n 1)
	fsz=$(stat -c %s "$f")
	smp=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' "$T/rec.err" | head -n 1)
	echo "$ms $(( (hwm - ring_kib) / 1024 )) ${st:-? ?} $(( fsz >> 20 )) $(( hwm / 1024 )) ${smp:-?} $(( (c1 - c0) * 1000 / hz ))"
	[ -n "${VERBOSE:-}" ] && grep -E "written|DBG" "$T/rec.err" >&2
	rm -rf "$out"
}

echo "# $ncpu CPUs, full rings, storm $( [ "$idle" -eq 1 ] && echo 'stopped before' || echo 'running through') the trigger, $runs runs"
echo "# size run trigger->file_ms rss_above_rings_MiB copy_ms total_ms file_MiB VmHWM_MiB samples recorder_cpu_ms"
for size in "$@"; do
	: >"$T/res"
	for r in $(seq 1 "$runs"); do
		line=$(one_run "$size" "$r") || exit 1
		echo "$size $r $line"
		echo "$line" >>"$T/res"
	done
	echo "median -m $size: trigger->file $(awk '{ print $1 }' "$T/res" | med) ms," \
	     "RSS above rings $(awk '{ print $2 }' "$T/res" | med) MiB," \
	     "copy $(awk '{ print $3 }' "$T/res" | med) ms, total $(awk '{ print $4 }' "$T/res" | med) ms," \
	     "file $(awk '{ print $5 }' "$T/res" | med) MiB, VmHWM $(awk '{ print $6 }' "$T/res" | med) MiB," \
	     "samples $(awk '{ print $7 }' "$T/res" | med), recorder CPU $(awk '{ print $8 }' "$T/res" | med) ms"
done
